//! Subscriptions: a plan's paid periods, what they give while they last
//! (payment info, spec 1 §3), upgrades prorated to the day, the monthly
//! credit grants, and the pause and retention options.

use serde::{Deserialize, Serialize};

use super::product::{Period, Plan, Product};
use super::DAY_MS;
use crate::account::PaymentInfo;

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubStatus {
    /// Paid up; renews at the period's end unless `cancel_at_period_end`.
    Active,
    /// A renewal failed and the provider retries: perks until the period's end.
    PastDue,
    /// Renewals paused by the member until `paused_until`: the paid period
    /// keeps its perks, then none until it resumes.
    Paused,
    /// Ended (cancelled, or renewal given up): no perks.
    Canceled,
}

/// What a subscription gives right now, cached on the account row so that
/// every request knows its perks without another read.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Perks {
    pub plan: Plan,
    pub product_level: u8,
    pub infinite_queue: bool,
    /// Milliseconds since the Unix epoch: perks end then (the paid period's end).
    pub until: i64,
}

impl Perks {
    /// Payment info (spec 1 §3) at `now`: nothing once `until` passed.
    pub fn payment_info(perks: Option<&Perks>, now: i64) -> PaymentInfo {
        match perks {
            Some(p) if now < p.until => PaymentInfo {
                active_state: p.plan == Plan::Full,
                lite_active_state: p.plan == Plan::Lite,
                infinite_queue: p.infinite_queue,
                product_level: p.product_level,
            },
            _ => PaymentInfo::default(),
        }
    }
}

/// Whether a subscription in `status` gives perks until its period ends:
/// the paid period is honoured whether it renews (active), its renewal
/// failed (past due) or renewals are paused; an ended one (refunded,
/// disputed, cancelled at once, or given up by the provider) gives none.
pub fn has_perks(status: SubStatus) -> bool {
    !matches!(status, SubStatus::Canceled)
}

/// The end of a period of `period` starting at `start` (ms): calendar
/// months as 30 days, years as 365 days, so every period has whole days.
pub fn period_end(start: i64, period: Period) -> i64 {
    start
        + match period {
            Period::Month => 30 * DAY_MS,
            Period::Year => 365 * DAY_MS,
        }
}

/// Monthly credit grants due by `now` for a period that started at
/// `start`: month 0 at the start, month k after k·30 days, at most the
/// period's months. Each grant is keyed by (subscription, period start, k),
/// so granting "all due" again grants nothing twice.
pub fn months_due(start: i64, period: Period, now: i64) -> u32 {
    if now < start {
        return 0;
    }
    let elapsed = ((now - start) / (30 * DAY_MS)) as u64 + 1;
    elapsed.min(u64::from(period.months())) as u32
}

/// The price of moving from `from` to `to` for the rest of a period
/// `[start, end)` at `now`, prorated to the day: the days left (rounded up:
/// a started day counts as left) times the difference of the two daily
/// prices, in minor units rounded up. `None` when it is not an upgrade
/// (same or lower plan level or price, another period length or currency).
///
/// Example: lite at 30.00 and full at 60.00 a month, 10 of 30 days used:
/// 20 days × (60.00 − 30.00) / 30 = 20.00.
pub fn upgrade_price(from: &Product, to: &Product, start: i64, end: i64, now: i64) -> Option<i64> {
    if from.period != to.period
        || from.currency != to.currency
        || to.product_level < from.product_level
        || to.price <= from.price
        || from.product_id == to.product_id
        || end <= start
    {
        return None;
    }
    let total_days = (end - start + DAY_MS - 1) / DAY_MS;
    let left_ms = (end - now.max(start)).max(0);
    let left_days = (left_ms + DAY_MS - 1) / DAY_MS;
    let diff = i128::from(to.price - from.price);
    let num = diff * i128::from(left_days);
    let den = i128::from(total_days.max(1));
    Some(((num + den - 1) / den) as i64)
}

/// A subscription as its owner sees it (`order/sub-detail`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubscriptionView {
    pub sub_id: String,
    pub product_id: String,
    pub product_name: String,
    pub plan: Plan,
    pub period: Period,
    pub product_level: u8,
    pub status: SubStatus,
    /// Renews by itself at `current_period_end` (false after clear-renewal
    /// or cancel, and for manual payments).
    pub auto_renew: bool,
    pub current_period_start: i64,
    pub current_period_end: i64,
    /// While paused: when collection resumes (ms).
    pub paused_until: Option<i64>,
    /// The price of the next period (minor units) and its currency.
    pub price: i64,
    pub currency: String,
    pub provider: String,
    /// Perks are in force now.
    pub perks_active: bool,
    /// The retention offer was taken (once per subscription).
    pub retention_used: bool,
    pub create_at: i64,
}

/// Pause options offered by `order/pause-info` (months).
pub const PAUSE_MONTHS: [u32; 3] = [1, 2, 3];

/// Retention offer: this much off the next period, once per subscription.
pub const RETENTION_PERCENT_OFF: u8 = 30;

/// Feedback reasons of `feedback` / `cancel-sub-user` (free text besides).
pub const CANCEL_REASONS: [&str; 6] = [
    "too_expensive",
    "not_using",
    "missing_features",
    "quality",
    "switching",
    "other",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mall::product::ProductKind;

    fn plan(id: &str, plan: Plan, level: u8, price: i64) -> Product {
        Product {
            product_id: id.into(),
            kind: ProductKind::Subscription,
            name: id.into(),
            price,
            currency: "CNY".into(),
            coins: 100,
            plan: Some(plan),
            period: Some(Period::Month),
            product_level: level,
            infinite_queue: false,
            original_price: None,
            features: vec![],
            active: true,
            sort: 0,
            scenes: vec!["web".into()],
        }
    }

    #[test]
    fn upgrades_are_prorated_to_the_day() {
        let lite = plan("lite", Plan::Lite, 1, 3000);
        let full = plan("full", Plan::Full, 3, 6000);
        let start = 1_000 * DAY_MS;
        let end = period_end(start, Period::Month);
        let cases = [
            // (days used, price)
            (0, Some(3000)),
            (10, Some(2000)),
            (29, Some(100)),
            (30, Some(0)),
            (45, Some(0)),
        ];
        for (used, want) in cases {
            let now = start + used * DAY_MS;
            assert_eq!(upgrade_price(&lite, &full, start, end, now), want, "{used}");
        }
        // Half a day into day 11: day 11 counts as left.
        let now = start + 10 * DAY_MS + DAY_MS / 2;
        assert_eq!(upgrade_price(&lite, &full, start, end, now), Some(2000));
        // Not upgrades.
        assert_eq!(upgrade_price(&full, &lite, start, end, start), None);
        assert_eq!(upgrade_price(&lite, &lite, start, end, start), None);
        let mut yearly = full.clone();
        yearly.period = Some(Period::Year);
        assert_eq!(upgrade_price(&lite, &yearly, start, end, start), None);
        let mut usd = full.clone();
        usd.currency = "USD".into();
        assert_eq!(upgrade_price(&lite, &usd, start, end, start), None);
        // Rounding up to the minor unit: 7 days of a 1-unit difference.
        let a = plan("a", Plan::Lite, 1, 3000);
        let b = plan("b", Plan::Lite, 1, 3001);
        assert_eq!(
            upgrade_price(&a, &b, start, end, start + 23 * DAY_MS),
            Some(1)
        );
    }

    #[test]
    fn monthly_grants_come_due_by_month() {
        let s = 50 * DAY_MS;
        let cases = [
            (Period::Month, -1, 0),
            (Period::Month, 0, 1),
            (Period::Month, 29 * DAY_MS, 1),
            (Period::Month, 31 * DAY_MS, 1),
            (Period::Year, 0, 1),
            (Period::Year, 30 * DAY_MS, 2),
            (Period::Year, 59 * DAY_MS, 2),
            (Period::Year, 364 * DAY_MS, 12),
            (Period::Year, 900 * DAY_MS, 12),
        ];
        for (period, at, want) in cases {
            assert_eq!(months_due(s, period, s + at), want, "{period:?} {at}");
        }
    }

    #[test]
    fn payment_info_follows_the_perks_and_their_end() {
        let p = Perks {
            plan: Plan::Lite,
            product_level: 1,
            infinite_queue: true,
            until: 1000,
        };
        let on = Perks::payment_info(Some(&p), 999);
        assert!(on.lite_active_state && !on.active_state && on.infinite_queue);
        assert_eq!(on.product_level, 1);
        assert_eq!(Perks::payment_info(Some(&p), 1000), PaymentInfo::default());
        assert_eq!(Perks::payment_info(None, 0), PaymentInfo::default());
        let full = Perks {
            plan: Plan::Full,
            ..p
        };
        assert!(Perks::payment_info(Some(&full), 0).active_state);
        assert!(has_perks(SubStatus::PastDue));
        assert!(has_perks(SubStatus::Paused));
        assert!(!has_perks(SubStatus::Canceled));
    }
}
