//! Daily check-in and task awards (issue 22 part 2; spec 3 §7
//! `activity/checkin/info`, `activity/checkin`,
//! `face-photo/mark-user-activity-award-list`, `mark-temp-coins-popup`;
//! spec 3 §9 the daily first-post bonus of +20 stamina, stamina being
//! credits here): the wire types and the pure rules. Days are counted in
//! the user's IANA time zone (`day`; changing it: `rezone`), streaks and the operator's reward
//! schedule in `streak`, the awards and their once-only ledger keys in
//! `task`. No I/O.

pub mod day;
pub mod rezone;
pub mod streak;
pub mod task;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use day::{Day, Zone};
pub use streak::{CalendarDay, Schedule, Step, Streak};
pub use task::{AwardDef, Trigger};

/// The ledger key of a check-in: `checkin:{account}:{YYYY-MM-DD}`.
pub fn checkin_key(account: &str, day: Day) -> String {
    format!("checkin:{account}:{}", day.iso())
}

/// Body of `activity/checkin/info` and `activity/checkin`: the client's
/// IANA zone, used when the account has none stored yet.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CheckinRequest {
    #[serde(default, alias = "time_zone", alias = "timezone")]
    pub tz: Option<String>,
}

/// `activity/checkin/time-zone`: the account's new IANA zone.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Deserialize)]
pub struct TimeZoneRequest {
    #[serde(alias = "time_zone", alias = "timezone")]
    pub tz: String,
}

/// `activity/checkin/info`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckinInfo {
    /// Today (in `time_zone`) is checked in.
    pub checked_today: bool,
    /// The streak alive today (0 after a missed day).
    pub streak: u32,
    /// Today, `YYYY-MM-DD` in `time_zone`.
    pub today: String,
    /// The zone days are counted in.
    pub time_zone: String,
    /// What today's check-in pays (or paid).
    pub reward_today: i64,
    /// When the next day starts (milliseconds since the epoch).
    pub next_at: i64,
    /// The current cycle of the schedule.
    pub calendar: Vec<CalendarDay>,
    /// Days checked in ever.
    pub total_days: u32,
    /// Credits of today's check-in whose popup is not marked seen yet
    /// (`face-photo/mark-temp-coins-popup`); 0 when there is none.
    pub temp_coins_popup: i64,
    /// The zone is pinned (a check-in or a choice stored it): changing it is
    /// `activity/checkin/time-zone`, limited to once per 30 days.
    #[serde(default)]
    pub time_zone_pinned: bool,
    /// When the zone may be changed next (ms since the epoch); 0: now.
    #[serde(default)]
    pub time_zone_change_at: i64,
}

/// `activity/checkin`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckinDone {
    /// This call checked in (false: today was already checked in).
    pub granted: bool,
    /// Credits today's check-in paid.
    pub reward: i64,
    /// The account's balance after it.
    pub balance: i64,
    pub info: CheckinInfo,
}

/// An award granted to the account, as the popup shows it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwardView {
    /// The ledger key it was paid under.
    pub key: String,
    pub trigger: Trigger,
    pub title: String,
    pub amount: i64,
    /// When it was granted (milliseconds since the epoch).
    pub at: i64,
}

/// `face-photo/mark-user-activity-award-list`: the awards not seen yet,
/// now marked seen.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwardList {
    pub list: Vec<AwardView>,
}

/// The operator's configuration: the check-in schedule and the awards.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AwardConfig {
    pub schedule: Schedule,
    pub awards: Vec<AwardDef>,
}

impl AwardConfig {
    /// What a fresh instance runs with: the default schedule and every
    /// award at its default.
    pub fn shipped() -> AwardConfig {
        AwardConfig {
            schedule: Schedule::default(),
            awards: Trigger::ALL.iter().map(|t| t.default_award()).collect(),
        }
    }

    /// The enabled award for `trigger`.
    pub fn award(&self, trigger: Trigger) -> Option<&AwardDef> {
        self.awards
            .iter()
            .find(|a| a.trigger == trigger && a.enabled)
    }

    /// Adds or replaces the award of its trigger (kept in trigger order).
    pub fn upsert(&mut self, def: AwardDef) {
        self.awards.retain(|a| a.trigger != def.trigger);
        self.awards.push(def);
        self.awards.sort_by_key(|a| a.trigger);
    }

    /// Removes the award of `trigger`; whether there was one.
    pub fn remove(&mut self, trigger: Trigger) -> bool {
        let n = self.awards.len();
        self.awards.retain(|a| a.trigger != trigger);
        self.awards.len() != n
    }
}

/// `admin/checkin/schedule/set`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Deserialize)]
pub struct ScheduleRequest {
    pub rewards: Vec<i64>,
}

/// `admin/award/delete`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Deserialize)]
pub struct AwardDeleteRequest {
    pub trigger: String,
}

/// `admin/award/upsert`: like [`AwardDef`] with the trigger as text, so an
/// unknown one answers the award key rather than a decoding error.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Deserialize)]
pub struct AwardUpsertRequest {
    pub trigger: String,
    pub title: String,
    pub amount: i64,
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}
