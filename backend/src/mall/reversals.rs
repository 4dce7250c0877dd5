//! Taking back what an order gave: refunds (in proportion to the money,
//! once per refunded total) and disputes (all of it, given back when the
//! dispute is won) through `Ledger::reverse`, which never takes the balance
//! below zero and records what was already spent as debt; a plan whose
//! payment went back ends at once.

use infra::store::Key;
use protocol::mall::subscription::SubStatus;
use protocol::mall::{OrderEvent, OrderKind, OrderStatus};
use protocol::ErrorCode;

use super::rows::OrderRow;
use super::subs::sub_id_of;
use super::MallService;
use crate::accounts::now_millis;
use crate::error::ApiError;

impl MallService {
    /// A refund of `total` minor units so far (`full`: all of it): takes
    /// back the credits in proportion, once per refunded total, and a full
    /// refund moves the order to `refunded` and ends a plan it started.
    pub(super) async fn refund(
        &self,
        order: &OrderRow,
        total: i64,
        full: bool,
        cause: &str,
    ) -> Result<(), ApiError> {
        let total = total.clamp(0, order.amount);
        let before = order.refunded;
        if total <= before && !full {
            return Ok(());
        }
        let o = self
            .inner
            .t
            .orders
            .update(&Key::of(&order.order_id), &Key::empty(), None, |o| {
                o.refunded = o.refunded.max(total);
            })
            .await?
            .ok_or(ErrorCode::OrderNotFound)?;
        let granted = self.granted_by(order);
        if o.status == OrderStatus::Paid || o.status == OrderStatus::Refunded {
            // Credits in proportion to the money: ceil(granted × total / amount)
            // in all, the part of it not taken back before now.
            let share = |m: i64| -> i64 {
                if order.amount <= 0 {
                    return 0;
                }
                (i128::from(granted) * i128::from(m)).div_euclid(i128::from(order.amount)) as i64
            };
            let now_total = if full { granted } else { share(total) };
            let before_total = share(before);
            if now_total > before_total {
                self.inner
                    .ledger
                    .reverse(
                        &order.account_id,
                        &format!("refund:{}:{total}", order.order_id),
                        now_total - before_total,
                    )
                    .await?;
            }
        }
        if full || total >= order.amount {
            self.step(&order.order_id, OrderEvent::Refunded, cause, |_| {})
                .await?;
            if order.kind == OrderKind::Subscription {
                self.end_sub(&order.account_id, &sub_id_of(&order.order_id))
                    .await?;
            }
        }
        Ok(())
    }

    /// Takes back everything an order granted not yet refunded (a dispute).
    pub(super) async fn take_back(&self, order: &OrderRow, key: &str) -> Result<(), ApiError> {
        let granted = self.granted_by(order);
        let refunded = if order.amount > 0 {
            (i128::from(granted) * i128::from(order.refunded) / i128::from(order.amount)) as i64
        } else {
            0
        };
        if granted - refunded > 0 {
            self.inner
                .ledger
                .reverse(&order.account_id, key, granted - refunded)
                .await?;
        }
        if order.kind == OrderKind::Subscription {
            self.end_sub(&order.account_id, &sub_id_of(&order.order_id))
                .await?;
        }
        Ok(())
    }

    /// Credits an order gave when paid.
    pub(super) fn granted_by(&self, order: &OrderRow) -> i64 {
        match order.kind {
            OrderKind::Credits | OrderKind::Subscription | OrderKind::Renewal => order.coins,
            OrderKind::Upgrade => 0,
        }
    }

    /// Ends a plan now: no perks from this moment.
    pub(super) async fn end_sub(&self, account: &str, sub_id: &str) -> Result<(), ApiError> {
        let now = now_millis();
        self.update_sub(account, sub_id, |r| {
            if r.status != SubStatus::Canceled {
                r.status = SubStatus::Canceled;
                r.auto_renew = false;
                r.current_period_end = r.current_period_end.min(now);
                r.update_at = now;
            }
        })
        .await?;
        self.sync_perks(account).await
    }
}
