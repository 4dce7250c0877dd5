//! Managing a plan: its page (`sub-detail`), renewal on and off, pause
//! and resume, cancellation with feedback, the retention offer, upgrades
//! prorated to the day, the provider's customer portal. Each asks the
//! provider first (plans the mall renews itself need none), then records
//! the change; the provider's later event confirms it.

use payments::SubscriptionChange;
use protocol::mall::order::{CreateOrder, CreatedOrder};
use protocol::mall::product::ProductKind;
use protocol::mall::subscription::{
    upgrade_price, SubStatus, SubscriptionView, CANCEL_REASONS, PAUSE_MONTHS, RETENTION_PERCENT_OFF,
};
use protocol::mall::{OrderKind, Product, DAY_MS};
use protocol::ErrorCode;
use serde::Serialize;

use super::orders::{discounted_price, plan_terms};
use super::rows::SubRow;
use super::MallService;
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;

/// `order/upgrade-price` for one plan.
#[derive(Debug, Clone, Serialize)]
pub struct UpgradeQuote {
    pub product_id: String,
    pub price: i64,
    pub currency: String,
    pub days_left: i64,
}

impl MallService {
    /// `order/sub-detail`: the plan in force (or the latest), and whether
    /// the provider has a self-service portal for it.
    pub async fn sub_detail(
        &self,
        who: &AccountRow,
    ) -> Result<(Option<SubscriptionView>, bool), ApiError> {
        self.sync_perks(&who.id).await?;
        let now = now_millis();
        let subs = self.subs(&who.id).await?;
        let pick = subs
            .iter()
            .find(|s| s.is_live(now))
            .or_else(|| subs.first());
        let portal = pick.is_some_and(|s| s.provider == "stripe" && s.customer.is_some());
        Ok((pick.map(|s| s.view(now)), portal))
    }

    /// Asks the provider of `sub` for a change (plans the mall renews
    /// itself need none).
    async fn tell_provider(
        &self,
        sub: &SubRow,
        change: SubscriptionChange,
    ) -> Result<(), ApiError> {
        let Some(ps) = &sub.provider_sub else {
            return Ok(());
        };
        let p = self.provider(&sub.provider)?;
        p.change_subscription(ps, &change).await.map_err(|e| {
            tracing::warn!(sub = %sub.sub_id, error = %e, "subscription change refused");
            ApiError::with_msg(
                ErrorCode::PaymentProviderUnavailable,
                "the payment provider did not accept the change; try again",
            )
        })
    }

    /// `clear-renewal-sub`: no renewal at the period's end (perks until then).
    pub async fn clear_renewal(
        &self,
        who: &AccountRow,
        sub_id: Option<&str>,
    ) -> Result<SubscriptionView, ApiError> {
        let sub = self.own_sub(who, sub_id).await?;
        self.tell_provider(&sub, SubscriptionChange::CancelAtPeriodEnd(true))
            .await?;
        self.set_sub(&sub, |r| r.auto_renew = false).await
    }

    /// `renewal-sub`: renew again. A provider-renewed plan turns renewal
    /// back on; a plan the mall renews gets an order for the next period.
    pub async fn renew(
        &self,
        who: &AccountRow,
        sub_id: Option<&str>,
        locale: Option<&str>,
        base_url: &str,
    ) -> Result<(SubscriptionView, Option<CreatedOrder>), ApiError> {
        let sub = self.own_sub(who, sub_id).await?;
        if sub.provider_sub.is_some() {
            self.tell_provider(&sub, SubscriptionChange::CancelAtPeriodEnd(false))
                .await?;
            let v = self.set_sub(&sub, |r| r.auto_renew = true).await?;
            return Ok((v, None));
        }
        let product = self.plan_product(&sub).await?;
        let amount = discounted_price(sub.terms.price, sub.next_off);
        let req = CreateOrder {
            product_id: sub.product_id.clone(),
            provider: Some(sub.provider.clone()),
            use_discount: false,
            locale: locale.map(str::to_owned),
        };
        let order = self
            .open_order(
                who,
                OrderKind::Renewal,
                &product,
                amount,
                sub.next_off > 0,
                Some(sub.terms.clone()),
                Some(sub.sub_id.clone()),
                &req,
                base_url,
            )
            .await?;
        Ok((sub.view(now_millis()), Some(order)))
    }

    /// `pause-sub`: no renewal for `months` months after the paid period
    /// (its perks are kept to its end); `0` resumes.
    pub async fn pause(
        &self,
        who: &AccountRow,
        sub_id: Option<&str>,
        months: u32,
    ) -> Result<SubscriptionView, ApiError> {
        let sub = self.own_sub(who, sub_id).await?;
        if months == 0 {
            if sub.status != SubStatus::Paused {
                return Err(ApiError::with_msg(
                    ErrorCode::Conflict,
                    "the plan is not paused",
                ));
            }
            self.tell_provider(&sub, SubscriptionChange::Pause { resume_at: None })
                .await?;
            return self
                .set_sub(&sub, |r| {
                    r.status = SubStatus::Active;
                    r.paused_until = None;
                })
                .await;
        }
        if !PAUSE_MONTHS.contains(&months) {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "months: 1, 2 or 3 (0 resumes)",
            ));
        }
        if !sub.auto_renew || sub.status != SubStatus::Active {
            return Err(ApiError::with_msg(
                ErrorCode::Conflict,
                "only an active plan that renews can be paused",
            ));
        }
        let until = sub.current_period_end + i64::from(months) * 30 * DAY_MS;
        self.tell_provider(
            &sub,
            SubscriptionChange::Pause {
                resume_at: Some(until / 1000),
            },
        )
        .await?;
        self.set_sub(&sub, |r| {
            r.status = SubStatus::Paused;
            r.paused_until = Some(until);
        })
        .await
    }

    /// `pause-info`.
    pub async fn pause_info(&self, who: &AccountRow) -> Result<serde_json::Value, ApiError> {
        let sub = self.live_sub(&who.id).await?;
        let can = sub
            .as_ref()
            .is_some_and(|s| s.auto_renew && s.status == SubStatus::Active);
        Ok(serde_json::json!({
            "can_pause": can,
            "months": PAUSE_MONTHS,
            "paused_until": sub.as_ref().and_then(|s| s.paused_until),
            "sub_id": sub.as_ref().map(|s| s.sub_id.clone()),
        }))
    }

    /// `feedback`: why a member leaves (kept with the plan for the operator).
    pub async fn feedback(
        &self,
        who: &AccountRow,
        sub_id: Option<&str>,
        reason: &str,
        text: &str,
    ) -> Result<SubscriptionView, ApiError> {
        check_feedback(reason, text)?;
        let sub = self.own_sub(who, sub_id).await?;
        let (reason, text) = (reason.to_owned(), text.trim().to_owned());
        self.set_sub(&sub, |r| {
            if r.feedback.len() < 20 {
                r.feedback
                    .push((reason.clone(), text.clone(), now_millis()));
            }
        })
        .await
    }

    /// `cancel-sub-user`: cancels at the period's end (perks until then),
    /// with the member's feedback.
    pub async fn cancel(
        &self,
        who: &AccountRow,
        sub_id: Option<&str>,
        reason: &str,
        text: &str,
    ) -> Result<SubscriptionView, ApiError> {
        if !reason.is_empty() || !text.is_empty() {
            self.feedback(who, sub_id, reason, text).await?;
        }
        let sub = self.own_sub(who, sub_id).await?;
        self.tell_provider(&sub, SubscriptionChange::CancelAtPeriodEnd(true))
            .await?;
        self.set_sub(&sub, |r| r.auto_renew = false).await
    }

    /// `retention-accept`: stay, with 30 % off the next period, once per plan.
    pub async fn accept_retention(
        &self,
        who: &AccountRow,
        sub_id: Option<&str>,
    ) -> Result<SubscriptionView, ApiError> {
        let sub = self.own_sub(who, sub_id).await?;
        if sub.retention_used {
            return Err(ApiError::with_msg(
                ErrorCode::Conflict,
                "the offer was already used",
            ));
        }
        self.tell_provider(
            &sub,
            SubscriptionChange::DiscountNext {
                percent_off: RETENTION_PERCENT_OFF,
            },
        )
        .await?;
        if !sub.auto_renew && sub.provider_sub.is_some() {
            self.tell_provider(&sub, SubscriptionChange::CancelAtPeriodEnd(false))
                .await?;
        }
        let auto = sub.provider_sub.is_some();
        self.set_sub(&sub, |r| {
            r.retention_used = true;
            r.next_off = RETENTION_PERCENT_OFF;
            if auto {
                r.auto_renew = true;
            }
        })
        .await
    }

    /// `upgrade-price`: the prorated price of moving the plan in force up
    /// to `product_id` (see `protocol::mall::subscription::upgrade_price`).
    pub async fn upgrade_quote(
        &self,
        who: &AccountRow,
        product_id: &str,
    ) -> Result<UpgradeQuote, ApiError> {
        let sub = self.own_sub(who, None).await?;
        let to = self.catalog().get(product_id).await?;
        quote(&sub, &to).ok_or_else(|| ErrorCode::NotAnUpgrade.into())
    }

    /// `batch-upgrade-price`: every plan on sale the plan in force can move up to.
    pub async fn upgrade_quotes(&self, who: &AccountRow) -> Result<Vec<UpgradeQuote>, ApiError> {
        let Some(sub) = self.live_sub(&who.id).await? else {
            return Ok(vec![]);
        };
        Ok(self
            .catalog()
            .on_sale("web", Some(ProductKind::Subscription))
            .await?
            .iter()
            .filter_map(|p| quote(&sub, p))
            .collect())
    }

    /// `order/upgrade`: an order for the prorated difference; the new plan
    /// applies when it is paid.
    pub async fn upgrade(
        &self,
        who: &AccountRow,
        req: &CreateOrder,
        base_url: &str,
    ) -> Result<CreatedOrder, ApiError> {
        let sub = self.own_sub(who, None).await?;
        let to = self.catalog().get(&req.product_id).await?;
        let q = quote(&sub, &to).ok_or(ErrorCode::NotAnUpgrade)?;
        if q.price <= 0 {
            return Err(ErrorCode::NotAnUpgrade.into());
        }
        // Paid with the provider the buyer names, else the plan's own.
        let req = CreateOrder {
            provider: req
                .provider
                .clone()
                .filter(|p| !p.is_empty())
                .or(Some(sub.provider.clone())),
            ..req.clone()
        };
        self.open_order(
            who,
            OrderKind::Upgrade,
            &to,
            q.price,
            false,
            plan_terms(&to),
            Some(sub.sub_id.clone()),
            &req,
            base_url,
        )
        .await
    }

    /// `order/portal`: the provider's self-service page (cards, invoices)
    /// for the account's customer.
    pub async fn portal(&self, who: &AccountRow, return_url: &str) -> Result<String, ApiError> {
        let subs = self.subs(&who.id).await?;
        let Some((provider, customer)) = subs
            .iter()
            .find_map(|s| Some((s.provider.clone(), s.customer.clone()?)))
        else {
            return Err(ErrorCode::NoSubscription.into());
        };
        self.provider(&provider)?
            .portal(&customer, return_url)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "portal refused");
                ApiError::with_msg(
                    ErrorCode::PaymentProviderUnavailable,
                    "the payment provider has no self-service page for this plan",
                )
            })
    }

    /// The product a plan was bought as (hidden or not), its terms as bought.
    async fn plan_product(&self, sub: &SubRow) -> Result<Product, ApiError> {
        let mut p = self
            .catalog()
            .any(&sub.product_id)
            .await?
            .ok_or(ErrorCode::ProductNotFound)?;
        p.price = sub.terms.price;
        Ok(p)
    }

    async fn set_sub(
        &self,
        sub: &SubRow,
        mut f: impl FnMut(&mut SubRow),
    ) -> Result<SubscriptionView, ApiError> {
        let row = self
            .update_sub(&sub.account_id, &sub.sub_id, |r| {
                f(r);
                r.update_at = now_millis();
            })
            .await?
            .ok_or(ErrorCode::NoSubscription)?;
        self.sync_perks(&sub.account_id).await?;
        Ok(row.view(now_millis()))
    }
}

/// The prorated upgrade from `sub`'s plan to `to`, if it is one.
fn quote(sub: &SubRow, to: &Product) -> Option<UpgradeQuote> {
    let now = now_millis();
    if to.kind != ProductKind::Subscription || !to.active {
        return None;
    }
    let from = Product {
        product_id: sub.product_id.clone(),
        kind: ProductKind::Subscription,
        name: sub.product_name.clone(),
        price: sub.terms.price,
        currency: sub.currency.clone(),
        coins: sub.terms.monthly_coins,
        plan: Some(sub.terms.plan),
        period: Some(sub.terms.period),
        product_level: sub.terms.product_level,
        infinite_queue: sub.terms.infinite_queue,
        original_price: None,
        features: vec![],
        active: true,
        sort: 0,
        scenes: vec![],
    };
    let price = upgrade_price(
        &from,
        to,
        sub.current_period_start,
        sub.current_period_end,
        now,
    )?;
    Some(UpgradeQuote {
        product_id: to.product_id.clone(),
        price,
        currency: to.currency.clone(),
        days_left: ((sub.current_period_end - now.max(sub.current_period_start)).max(0) + DAY_MS
            - 1)
            / DAY_MS,
    })
}

fn check_feedback(reason: &str, text: &str) -> Result<(), ApiError> {
    if !reason.is_empty() && !CANCEL_REASONS.contains(&reason) {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "reason: too_expensive, not_using, missing_features, quality, switching or other",
        ));
    }
    if text.chars().count() > 1000 {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "feedback: at most 1000 characters",
        ));
    }
    Ok(())
}
