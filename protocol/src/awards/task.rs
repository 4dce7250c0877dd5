//! Task awards: what an account is rewarded for doing (first post of the
//! day, first generation, ...), the operator's configuration of each, and
//! the ledger key that makes each award pay exactly once (once ever, or
//! once a day in the user's zone for daily ones).

use serde::{Deserialize, Serialize};

use super::day::Day;

/// What an award is for. One award per trigger.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The first work published on a day (spec 3 §9: +20 stamina). Daily.
    FirstPostOfDay,
    /// The first generation task ever created.
    FirstGeneration,
    /// The first account ever followed.
    FirstFollow,
    /// The first work ever published.
    FirstPublish,
    /// The profile completed: a name, an avatar and a bio.
    ProfileCompleted,
}

impl Trigger {
    pub const ALL: [Trigger; 5] = [
        Trigger::FirstPostOfDay,
        Trigger::FirstGeneration,
        Trigger::FirstFollow,
        Trigger::FirstPublish,
        Trigger::ProfileCompleted,
    ];

    /// The wire and key name.
    pub fn name(self) -> &'static str {
        match self {
            Trigger::FirstPostOfDay => "first_post_of_day",
            Trigger::FirstGeneration => "first_generation",
            Trigger::FirstFollow => "first_follow",
            Trigger::FirstPublish => "first_publish",
            Trigger::ProfileCompleted => "profile_completed",
        }
    }

    pub fn parse(s: &str) -> Option<Trigger> {
        Trigger::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Paid once a day (in the user's zone) rather than once ever.
    pub fn daily(self) -> bool {
        matches!(self, Trigger::FirstPostOfDay)
    }

    /// The ledger key of this award for `account`: `award:{trigger}:{account}`,
    /// with `:{YYYY-MM-DD}` for daily ones. The ledger grants a key once.
    pub fn ledger_key(self, account: &str, day: Day) -> String {
        if self.daily() {
            format!("award:{}:{account}:{}", self.name(), day.iso())
        } else {
            format!("award:{}:{account}", self.name())
        }
    }

    /// The shipped award: enabled, with its default credits (20 for the
    /// daily first post, spec 3 §9).
    pub fn default_award(self) -> AwardDef {
        let (amount, title) = match self {
            Trigger::FirstPostOfDay => (20, "First post of the day"),
            Trigger::FirstGeneration => (10, "First generation"),
            Trigger::FirstFollow => (5, "First follow"),
            Trigger::FirstPublish => (20, "First publication"),
            Trigger::ProfileCompleted => (10, "Profile completed"),
        };
        AwardDef {
            trigger: self,
            title: title.into(),
            amount,
            enabled: true,
        }
    }
}

/// Longest award title.
pub const MAX_TITLE_CHARS: usize = 60;
/// Largest award.
pub const MAX_AWARD: i64 = 100_000;

/// An award as the operator configures it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwardDef {
    pub trigger: Trigger,
    /// Shown in the popup ("First post of the day").
    pub title: String,
    /// Credits (stamina) granted.
    pub amount: i64,
    /// Off: nothing is granted for it.
    pub enabled: bool,
}

impl AwardDef {
    /// Trims the title; 1 to 60 characters, amount 1 to 100 000.
    pub fn checked(mut self) -> Option<AwardDef> {
        self.title = self.title.trim().to_owned();
        let n = self.title.chars().count();
        let ok = (1..=MAX_TITLE_CHARS).contains(&n)
            && !self.title.chars().any(char::is_control)
            && (1..=MAX_AWARD).contains(&self.amount);
        ok.then_some(self)
    }
}
