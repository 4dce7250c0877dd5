//! The mall's stored rows (tables in `infra::store::tables`, "The mall").

use protocol::mall::order::OrderStep;
use protocol::mall::subscription::SubStatus;
use protocol::mall::{OrderKind, OrderStatus, OrderView, Period, Plan, SubscriptionView};
use serde::{Deserialize, Serialize};

/// An order (`ORDERS`). Every transition appends a step; the row changes
/// only by compare-and-set, so two events racing apply in some order and a
/// replay finds its transition refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderRow {
    pub order_id: String,
    pub account_id: String,
    pub kind: OrderKind,
    pub product_id: String,
    pub product_name: String,
    /// Charged (minor units), after any discount.
    pub amount: i64,
    pub currency: String,
    /// Credits the order grants when paid.
    pub coins: i64,
    pub provider: String,
    pub status: OrderStatus,
    pub steps: Vec<OrderStep>,
    pub create_at: i64,
    pub update_at: i64,
    /// The provider's checkout session and its page.
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub checkout_url: Option<String>,
    /// The provider's payment id (refunds and disputes name it).
    #[serde(default)]
    pub payment: Option<String>,
    #[serde(default)]
    pub customer: Option<String>,
    /// The provider's subscription id (plan orders).
    #[serde(default)]
    pub provider_sub: Option<String>,
    /// The mall's subscription this order started, renewed or upgraded.
    #[serde(default)]
    pub sub_id: Option<String>,
    /// Minor units refunded so far.
    #[serde(default)]
    pub refunded: i64,
    /// The half-price offer was used.
    #[serde(default)]
    pub discounted: bool,
    /// Plan orders: what the plan gives (copied from the product at
    /// purchase, so a later catalogue edit does not change a paid order).
    #[serde(default)]
    pub plan: Option<PlanTerms>,
}

impl OrderRow {
    pub fn view(&self) -> OrderView {
        OrderView {
            order_id: self.order_id.clone(),
            status: self.status,
            kind: self.kind,
            product_id: self.product_id.clone(),
            product_name: self.product_name.clone(),
            amount: self.amount,
            currency: self.currency.clone(),
            coins: self.coins,
            provider: self.provider.clone(),
            checkout_url: match self.status {
                OrderStatus::Created | OrderStatus::Pending => self.checkout_url.clone(),
                _ => None,
            },
            refunded: self.refunded,
            create_at: self.create_at,
            update_at: self.update_at,
            steps: self.steps.clone(),
        }
    }
}

/// What a plan gives, fixed when it was bought.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanTerms {
    pub plan: Plan,
    pub period: Period,
    pub product_level: u8,
    pub infinite_queue: bool,
    /// Credits granted each month of a period.
    pub monthly_coins: i64,
    /// The price of a full period.
    pub price: i64,
}

/// A subscription (`SUBSCRIPTIONS`, pk account, ck sub id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubRow {
    pub sub_id: String,
    pub account_id: String,
    pub product_id: String,
    pub product_name: String,
    pub terms: PlanTerms,
    pub currency: String,
    pub provider: String,
    #[serde(default)]
    pub provider_sub: Option<String>,
    #[serde(default)]
    pub customer: Option<String>,
    pub status: SubStatus,
    pub auto_renew: bool,
    pub current_period_start: i64,
    pub current_period_end: i64,
    #[serde(default)]
    pub paused_until: Option<i64>,
    /// Creation time (ms) of the newest provider event applied: an older
    /// subscription event never undoes a newer one.
    #[serde(default)]
    pub event_at: i64,
    #[serde(default)]
    pub retention_used: bool,
    /// Cancellation feedback (reason, text, when).
    #[serde(default)]
    pub feedback: Vec<(String, String, i64)>,
    /// Upgrade and renewal orders already applied (each applies once).
    #[serde(default)]
    pub applied: Vec<String>,
    /// Which paid period this is (0 the first; +1 each time the period
    /// moves past the end of the previous one). Monthly credits are keyed
    /// by it, so a provider adjusting a period's times grants nothing twice.
    #[serde(default)]
    pub period_no: u32,
    /// Monthly credits granted so far: (period number, months granted).
    /// Grants are keyed, so this only saves the ledger a re-check.
    #[serde(default)]
    pub granted: (u32, u32),
    /// Percent off the next period (the retention offer), for renewals the
    /// mall charges itself (manual, Adyen).
    #[serde(default)]
    pub next_off: u8,
    pub create_at: i64,
    pub update_at: i64,
}

impl SubRow {
    /// Sets the paid period. One that starts where the present one ends (a
    /// day's slack) or later is the next period; an earlier start is the
    /// same period with the provider's exact times.
    pub fn set_period(&mut self, start: i64, end: i64) {
        if start >= self.current_period_end - protocol::mall::DAY_MS {
            self.period_no += 1;
        }
        self.current_period_start = start;
        self.current_period_end = end;
    }

    /// Perks are in force at `now`.
    pub fn perks_active(&self, now: i64) -> bool {
        protocol::mall::subscription::has_perks(self.status) && now < self.current_period_end
    }

    /// Still the account's plan: not ended (a paused or past-due plan is).
    pub fn is_live(&self, now: i64) -> bool {
        match self.status {
            SubStatus::Canceled => false,
            SubStatus::Paused => true,
            SubStatus::Active | SubStatus::PastDue => now < self.current_period_end,
        }
    }

    pub fn view(&self, now: i64) -> SubscriptionView {
        SubscriptionView {
            sub_id: self.sub_id.clone(),
            product_id: self.product_id.clone(),
            product_name: self.product_name.clone(),
            plan: self.terms.plan,
            period: self.terms.period,
            product_level: self.terms.product_level,
            status: self.status,
            auto_renew: self.auto_renew,
            current_period_start: self.current_period_start,
            current_period_end: self.current_period_end,
            paused_until: self.paused_until,
            price: self.terms.price,
            currency: self.currency.clone(),
            provider: self.provider.clone(),
            perks_active: self.perks_active(now),
            retention_used: self.retention_used,
            create_at: self.create_at,
        }
    }
}

/// What a provider's id points at (`PAYMENT_REFS`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefRow {
    Order(String),
    Sub {
        account_id: String,
        sub_id: String,
    },
    /// An account's customer id at the provider.
    Customer(String),
}

/// A webhook event applied (`PAYMENT_EVENTS`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventMark {
    pub at: i64,
}

/// A paid order in the public "recent purchases" list (`ORDERS_RECENT`):
/// the buyer's name is masked when it is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentRow {
    pub name: String,
    pub product_name: String,
    pub kind: OrderKind,
    pub at: i64,
}

/// "Ann Lee" -> "A***e": enough to feel real, not enough to identify.
pub fn mask_name(name: &str) -> String {
    let chars: Vec<char> = name.trim().chars().collect();
    match chars.as_slice() {
        [] => "***".into(),
        [a] => format!("{a}***"),
        [a, .., z] => format!("{a}***{z}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_masked() {
        for (n, m) in [
            ("", "***"),
            ("A", "A***"),
            ("Ann Lee", "A***e"),
            ("张三丰", "张***丰"),
        ] {
            assert_eq!(mask_name(n), m);
        }
    }
}
