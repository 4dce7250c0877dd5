//! Orders: one purchase, and the state machine every payment event goes
//! through (DESIGN.md Contracts: `created | pending | paid | failed |
//! refunded | disputed`).
//!
//! ```text
//!  created --checkout opened--> pending --paid--> paid --refunded (all)--> refunded
//!     |                           |                 |  \--dispute opened--> disputed
//!     +------paid / failed--------+--failed--> failed   disputed --won--> paid
//!                                                  \--paid (late money is honoured)--> paid
//! ```
//!
//! [`transition`] is the only place that says which moves exist; a move it
//! refuses is a stale or replayed event and changes nothing.

use serde::{Deserialize, Serialize};

use super::product::ProductKind;

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    /// Stored; no checkout yet.
    Created,
    /// A checkout is open at the provider (or, manual: awaiting transfer).
    Pending,
    /// Paid: what it buys was given.
    Paid,
    /// Not paid: expired, declined or cancelled.
    Failed,
    /// All the money went back; what it bought was taken back.
    Refunded,
    /// The buyer disputed the payment; what it bought was taken back.
    Disputed,
}

impl OrderStatus {
    /// No payment event can move it any more (a dispute may still be won).
    pub fn is_final(self) -> bool {
        matches!(self, OrderStatus::Refunded)
    }
}

/// What an order buys.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderKind {
    /// A credit pack.
    Credits,
    /// The first period of a membership plan.
    Subscription,
    /// The prorated difference of moving a running plan up (the new plan
    /// starts when it is paid; the period is unchanged).
    Upgrade,
    /// One more period of a plan that does not renew by itself (manual).
    Renewal,
}

impl From<ProductKind> for OrderKind {
    fn from(k: ProductKind) -> OrderKind {
        match k {
            ProductKind::Credits => OrderKind::Credits,
            ProductKind::Subscription => OrderKind::Subscription,
        }
    }
}

/// What happened to an order.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderEvent {
    CheckoutOpened,
    Paid,
    Failed,
    /// All of it refunded (a partial refund keeps the order paid).
    Refunded,
    DisputeOpened,
    DisputeWon,
    /// A dispute lost: the order stays disputed (credits were taken back
    /// when it opened).
    DisputeLost,
}

/// The next status, or `None` when the event does not apply (a replay, or
/// an event older than the present state): the caller changes nothing.
pub fn transition(from: OrderStatus, event: OrderEvent) -> Option<OrderStatus> {
    use OrderEvent as E;
    use OrderStatus as S;
    match (from, event) {
        (S::Created, E::CheckoutOpened) => Some(S::Pending),
        (S::Created | S::Pending | S::Failed, E::Paid) => Some(S::Paid),
        (S::Created | S::Pending, E::Failed) => Some(S::Failed),
        (S::Paid, E::Refunded) => Some(S::Refunded),
        (S::Paid, E::DisputeOpened) => Some(S::Disputed),
        (S::Disputed, E::DisputeWon) => Some(S::Paid),
        (S::Disputed, E::DisputeLost) => Some(S::Disputed),
        _ => None,
    }
}

/// One recorded transition of an order.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderStep {
    pub status: OrderStatus,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    /// What caused it: `api`, `stripe:evt_...`, `operator:{id}`, ...
    pub cause: String,
}

/// An order as its owner sees it (`order/status`, `buy/log`, `order/create`
/// answers a part of it: `order_id, status, checkout_url`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderView {
    pub order_id: String,
    pub status: OrderStatus,
    pub kind: OrderKind,
    pub product_id: String,
    pub product_name: String,
    /// Charged, in minor units of `currency` (after any discount).
    pub amount: i64,
    pub currency: String,
    /// Credits it gives (packs; plans: the first month's).
    pub coins: i64,
    /// `stripe`, `adyen` or `manual`.
    pub provider: String,
    /// Where the browser pays; `null` once paid or for manual transfers.
    pub checkout_url: Option<String>,
    /// Minor units refunded so far.
    pub refunded: i64,
    pub create_at: i64,
    pub update_at: i64,
    pub steps: Vec<OrderStep>,
}

/// `order/create`, `order/create-sub` body.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CreateOrder {
    pub product_id: String,
    /// `stripe`, `adyen` or `manual`; the operator's default when empty.
    pub provider: Option<String>,
    /// Take the half-price offer, if this account has it (the server checks).
    pub use_discount: bool,
    /// The web app's locale, for the return page's path (`en` when absent).
    pub locale: Option<String>,
}

/// `order/create` answer (DESIGN.md Contracts).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedOrder {
    pub order_id: String,
    pub status: OrderStatus,
    pub checkout_url: Option<String>,
    pub amount: i64,
    pub currency: String,
    pub provider: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use OrderEvent as E;
    use OrderStatus as S;

    #[test]
    fn the_state_machine_table() {
        let all_s = [
            S::Created,
            S::Pending,
            S::Paid,
            S::Failed,
            S::Refunded,
            S::Disputed,
        ];
        let all_e = [
            E::CheckoutOpened,
            E::Paid,
            E::Failed,
            E::Refunded,
            E::DisputeOpened,
            E::DisputeWon,
            E::DisputeLost,
        ];
        let allowed = [
            (S::Created, E::CheckoutOpened, S::Pending),
            (S::Created, E::Paid, S::Paid),
            (S::Pending, E::Paid, S::Paid),
            (S::Failed, E::Paid, S::Paid),
            (S::Created, E::Failed, S::Failed),
            (S::Pending, E::Failed, S::Failed),
            (S::Paid, E::Refunded, S::Refunded),
            (S::Paid, E::DisputeOpened, S::Disputed),
            (S::Disputed, E::DisputeWon, S::Paid),
            (S::Disputed, E::DisputeLost, S::Disputed),
        ];
        for s in all_s {
            for e in all_e {
                let want = allowed
                    .iter()
                    .find(|(a, b, _)| *a == s && *b == e)
                    .map(|t| t.2);
                assert_eq!(transition(s, e), want, "{s:?} + {e:?}");
            }
        }
    }

    #[test]
    fn replays_change_nothing() {
        // A second "paid" for a paid order, a late "failed" after payment,
        // an "opened" after payment: all refused.
        assert_eq!(transition(S::Paid, E::Paid), None);
        assert_eq!(transition(S::Paid, E::Failed), None);
        assert_eq!(transition(S::Paid, E::CheckoutOpened), None);
        assert_eq!(transition(S::Refunded, E::Paid), None);
        assert_eq!(transition(S::Refunded, E::Refunded), None);
        assert!(S::Refunded.is_final());
    }

    #[test]
    fn statuses_are_snake_case() {
        assert_eq!(serde_json::to_value(S::Disputed).unwrap(), "disputed");
        assert_eq!(serde_json::to_value(OrderKind::Upgrade).unwrap(), "upgrade");
    }
}
