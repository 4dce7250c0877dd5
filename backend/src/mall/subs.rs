//! Subscriptions: a plan's periods and what they give. The account row
//! carries the perks of its best plan in force and until when
//! ([`MallService::sync_perks`]), so a request knows them without a read
//! and they end on time by themselves. Management (pause, renewal on and
//! off, cancel with feedback, the retention offer, upgrades) asks the
//! provider first, then records the change; the provider's later event
//! confirms it.

use infra::store::{Key, ScanRange};
use payments::SubscriptionChange;
use protocol::mall::order::{CreateOrder, CreatedOrder};
use protocol::mall::product::ProductKind;
use protocol::mall::subscription::{
    months_due, period_end, upgrade_price, Perks, SubStatus, SubscriptionView, CANCEL_REASONS,
    PAUSE_MONTHS, RETENTION_PERCENT_OFF,
};
use protocol::mall::{OrderKind, OrderStatus, Product, DAY_MS};
use protocol::ErrorCode;
use serde::Serialize;

use super::orders::{discounted_price, plan_terms, ref_key};
use super::rows::{OrderRow, RefRow, SubRow};
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
    /// The account's subscriptions, newest first.
    pub async fn subs(&self, account: &str) -> Result<Vec<SubRow>, ApiError> {
        let page = self
            .inner
            .t
            .subs
            .scan(&Key::of(account), &ScanRange::all(200))
            .await?;
        let mut v: Vec<SubRow> = page.rows.into_iter().map(|(_, s)| s).collect();
        v.sort_by_key(|s| std::cmp::Reverse(s.create_at));
        Ok(v)
    }

    /// The plan that is the account's now (running, paused or past due).
    pub async fn live_sub(&self, account: &str) -> Result<Option<SubRow>, ApiError> {
        let now = now_millis();
        Ok(self
            .subs(account)
            .await?
            .into_iter()
            .find(|s| s.is_live(now)))
    }

    async fn own_sub(&self, who: &AccountRow, sub_id: Option<&str>) -> Result<SubRow, ApiError> {
        let sub = match sub_id.filter(|s| !s.is_empty()) {
            Some(id) => self
                .inner
                .t
                .subs
                .get(&Key::of(&who.id), &Key::of(id))
                .await?
                .filter(|s| s.is_live(now_millis())),
            None => self.live_sub(&who.id).await?,
        };
        sub.ok_or_else(|| ErrorCode::NoSubscription.into())
    }

    /// Changes a subscription row by compare-and-set.
    pub(super) async fn update_sub(
        &self,
        account: &str,
        sub_id: &str,
        f: impl FnMut(&mut SubRow),
    ) -> Result<Option<SubRow>, ApiError> {
        Ok(self
            .inner
            .t
            .subs
            .update(&Key::of(account), &Key::of(sub_id), None, f)
            .await?)
    }

    /// Writes the perks of the account's best plan in force onto its row
    /// (tells its sockets when they changed), after granting any monthly
    /// credits that came due.
    pub async fn sync_perks(&self, account: &str) -> Result<(), ApiError> {
        let now = now_millis();
        let subs = self.subs(account).await?;
        let best = subs
            .iter()
            .filter(|s| s.perks_active(now))
            .max_by_key(|s| (s.terms.product_level, s.current_period_end));
        let perks = best.map(|s| Perks {
            plan: s.terms.plan,
            product_level: s.terms.product_level,
            infinite_queue: s.terms.infinite_queue,
            until: s.current_period_end,
        });
        if let Some(s) = best {
            self.grant_due(s).await?;
        }
        self.inner.accounts.set_perks(account, perks).await?;
        Ok(())
    }

    /// Grants the monthly credits of a plan in force that came due (a
    /// yearly plan gives its credits month by month), each keyed by
    /// (subscription, period number, month): repeats grant nothing.
    pub async fn grant_due(&self, s: &SubRow) -> Result<(), ApiError> {
        let now = now_millis();
        if !protocol::mall::subscription::has_perks(s.status) || now >= s.current_period_end {
            return Ok(());
        }
        let start = s.current_period_start;
        let no = s.period_no;
        // A period paid ahead (a renewal before the present one ends) gives
        // its first month's credits at once.
        let due = months_due(start.min(now), s.terms.period, now);
        let done = if s.granted.0 == no { s.granted.1 } else { 0 };
        if due <= done {
            return Ok(());
        }
        for k in done..due {
            self.inner
                .ledger
                .grant(
                    &s.account_id,
                    &format!("plan:{}:{no}:{k}", s.sub_id),
                    s.terms.monthly_coins,
                )
                .await?;
        }
        self.update_sub(&s.account_id, &s.sub_id, |r| {
            if r.period_no == no && (r.granted.0 != no || r.granted.1 < due) {
                r.granted = (no, due);
            }
        })
        .await?;
        Ok(())
    }

    /// Starts the plan a paid subscription order bought (once: the row is
    /// inserted if absent). `period`: the provider's first period, if known.
    pub(super) async fn start_sub(
        &self,
        order: &OrderRow,
        period: Option<(i64, i64)>,
    ) -> Result<(), ApiError> {
        let terms = order
            .plan
            .clone()
            .ok_or_else(|| ApiError::internal("a plan order without terms"))?;
        let sub_id = sub_id_of(&order.order_id);
        let paid_at = paid_at(order);
        let (start, end) = period.unwrap_or((paid_at, period_end(paid_at, terms.period)));
        let row = SubRow {
            sub_id: sub_id.clone(),
            account_id: order.account_id.clone(),
            product_id: order.product_id.clone(),
            product_name: order.product_name.clone(),
            terms,
            currency: order.currency.clone(),
            provider: order.provider.clone(),
            provider_sub: order.provider_sub.clone(),
            customer: order.customer.clone(),
            status: SubStatus::Active,
            // Only Stripe renews by itself; manual and Adyen plans are
            // renewed by the member's renewal orders.
            auto_renew: order.provider == "stripe",
            current_period_start: start,
            current_period_end: end,
            paused_until: None,
            event_at: 0,
            retention_used: false,
            feedback: vec![],
            applied: vec![],
            period_no: 0,
            granted: (0, 0),
            next_off: 0,
            create_at: paid_at,
            update_at: paid_at,
        };
        let t = &self.inner.t;
        let inserted = t
            .subs
            .insert_if_absent(&Key::of(&order.account_id), &Key::of(&sub_id), &row)
            .await?;
        if let (Err(_), Some((s, e))) = (&inserted, period) {
            // Started before without the provider's period: take it now.
            self.update_sub(&order.account_id, &sub_id, |r| {
                if r.event_at == 0 && r.current_period_start != s {
                    r.set_period(s, e);
                }
            })
            .await?;
        }
        if let Some(ps) = &order.provider_sub {
            t.refs
                .put(
                    &ref_key(&order.provider, "sub", ps),
                    &Key::empty(),
                    &RefRow::Sub {
                        account_id: order.account_id.clone(),
                        sub_id: sub_id.clone(),
                    },
                )
                .await?;
        }
        t.marks
            .put(&Key::of(&order.account_id), &Key::of("had_plan"), &paid_at)
            .await?;
        self.sync_perks(&order.account_id).await
    }

    /// A paid upgrade order: the plan's new terms from now on (the period
    /// is unchanged), the difference of the monthly credits once, and the
    /// provider renews at the new price.
    pub(super) async fn apply_upgrade(&self, order: &OrderRow) -> Result<(), ApiError> {
        let (Some(sub_id), Some(terms)) = (&order.sub_id, &order.plan) else {
            return Err(ApiError::internal("an upgrade order without its plan"));
        };
        let before = self
            .inner
            .t
            .subs
            .get(&Key::of(&order.account_id), &Key::of(sub_id))
            .await?
            .ok_or_else(|| ApiError::internal("an upgrade of a missing plan"))?;
        let extra = (terms.monthly_coins - before.terms.monthly_coins).max(0);
        let mut newly = false;
        let after = self
            .update_sub(&order.account_id, sub_id, |r| {
                newly = false;
                if !r.applied.contains(&order.order_id) {
                    newly = true;
                    r.applied.push(order.order_id.clone());
                    r.terms = terms.clone();
                    r.product_id = order.product_id.clone();
                    r.product_name = order.product_name.clone();
                    r.update_at = now_millis();
                }
            })
            .await?;
        if extra > 0 {
            self.inner
                .ledger
                .grant(
                    &order.account_id,
                    &format!("upgrade:{}", order.order_id),
                    extra,
                )
                .await?;
        }
        if let (true, Some(s), Some(ps)) = (newly, &after, &before.provider_sub) {
            let change = SubscriptionChange::ChangePrice {
                product_id: order.product_id.clone(),
                product_name: order.product_name.clone(),
                amount: terms.price,
                currency: s.currency.to_lowercase(),
                interval: interval(terms.period),
            };
            if let Ok(p) = self.provider(&s.provider) {
                if let Err(e) = p.change_subscription(ps, &change).await {
                    tracing::error!(sub = %s.sub_id, error = %e,
                        "upgrade applied but the provider's price was not changed: renewals bill the old price until an operator fixes it");
                }
            }
        }
        self.sync_perks(&order.account_id).await
    }

    /// A paid renewal order of a plan the mall renews itself: one more
    /// period, from the end of the present one (or from now if it ended).
    pub(super) async fn apply_renewal(&self, order: &OrderRow) -> Result<(), ApiError> {
        let Some(sub_id) = &order.sub_id else {
            return Err(ApiError::internal("a renewal order without its plan"));
        };
        let paid = paid_at(order);
        self.update_sub(&order.account_id, sub_id, |r| {
            if r.applied.contains(&order.order_id) {
                return;
            }
            r.applied.push(order.order_id.clone());
            let start = if r.current_period_end > paid && r.status != SubStatus::Canceled {
                r.current_period_end
            } else {
                paid
            };
            let end = period_end(start, r.terms.period);
            r.set_period(start, end);
            r.status = SubStatus::Active;
            r.paused_until = None;
            r.next_off = 0;
            r.update_at = now_millis();
        })
        .await?
        .ok_or_else(|| ApiError::internal("a renewal of a missing plan"))?;
        // Its credits come due when it starts (grant_due).
        self.sync_perks(&order.account_id).await
    }

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
        let req = CreateOrder {
            provider: Some(sub.provider.clone()).filter(|p| p != "adyen" || req.provider.is_none()),
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

/// The subscription a plan order starts (deterministic: a repeat finds it).
pub(super) fn sub_id_of(order_id: &str) -> String {
    format!("sub_{}", order_id.trim_start_matches("ord_"))
}

/// When an order was paid (its last `paid` step), for deterministic periods.
pub(super) fn paid_at(order: &OrderRow) -> i64 {
    order
        .steps
        .iter()
        .rev()
        .find(|s| s.status == OrderStatus::Paid)
        .map_or(order.update_at, |s| s.at)
}

pub(super) fn interval(p: protocol::mall::Period) -> payments::Interval {
    match p {
        protocol::mall::Period::Month => payments::Interval::Month,
        protocol::mall::Period::Year => payments::Interval::Year,
    }
}
