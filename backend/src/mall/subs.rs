//! Subscriptions: a plan's periods and what they give. The account row
//! carries the perks of its best plan in force and until when
//! ([`MallService::sync_perks`]), so a request knows them without a read
//! and they end on time by themselves. Starting a plan, applying a paid
//! upgrade or renewal, and the monthly credits are here; what a member
//! does with a plan is in `manage.rs`.

use infra::store::{Key, ScanRange};
use payments::SubscriptionChange;
use protocol::mall::subscription::{months_due, period_end, Perks, SubStatus};
use protocol::mall::OrderStatus;
use protocol::ErrorCode;

use super::orders::ref_key;
use super::rows::{OrderRow, RefRow, SubRow};
use super::MallService;
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;

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

    pub(super) async fn own_sub(
        &self,
        who: &AccountRow,
        sub_id: Option<&str>,
    ) -> Result<SubRow, ApiError> {
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
