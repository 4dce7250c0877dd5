//! Streak arithmetic and the check-in reward schedule: whether a day's
//! check-in continues, starts or repeats a streak, what each streak day
//! pays, and the calendar of the current cycle shown to the user.

use serde::{Deserialize, Serialize};

use super::day::Day;

/// What an account's check-ins are now: its last check-in day and the
/// streak that day completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Streak {
    pub last: Option<Day>,
    /// Consecutive days ending on `last` (0 when `last` is `None`).
    pub days: u32,
}

/// What checking in on a day does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Already checked in on this day (or on a later one: a zone change
    /// never lets a day be checked in twice or in the past).
    Already,
    /// A check-in: the streak it makes (1 when it starts or restarts) and
    /// whether an earlier streak was broken.
    Checked { days: u32, reset: bool },
}

impl Streak {
    /// Checking in on `today`.
    pub fn step(self, today: Day) -> Step {
        match self.last {
            Some(last) if last >= today => Step::Already,
            Some(last) if last == today.prev() => Step::Checked {
                days: self.days.saturating_add(1),
                reset: false,
            },
            Some(_) => Step::Checked {
                days: 1,
                reset: self.days > 0,
            },
            None => Step::Checked {
                days: 1,
                reset: false,
            },
        }
    }

    /// The state after checking in on `today` (unchanged when `Already`).
    pub fn after(self, today: Day) -> Streak {
        match self.step(today) {
            Step::Already => self,
            Step::Checked { days, .. } => Streak {
                last: Some(today),
                days,
            },
        }
    }

    /// The streak shown on `today`: alive while today or yesterday was
    /// checked in, 0 once a day was missed.
    pub fn current(self, today: Day) -> u32 {
        match self.last {
            Some(last) if last >= today.prev() => self.days,
            _ => 0,
        }
    }

    /// Whether `today` is checked in.
    pub fn checked(self, today: Day) -> bool {
        self.last.is_some_and(|l| l >= today)
    }

    /// The streak day today's check-in counts as (or counted as).
    pub fn today_position(self, today: Day) -> u32 {
        if self.checked(today) {
            self.days.max(1)
        } else {
            self.current(today).saturating_add(1)
        }
    }
}

/// Most days in a schedule (one month's cycle).
pub const MAX_SCHEDULE_DAYS: usize = 31;
/// Largest reward of one day.
pub const MAX_DAY_REWARD: i64 = 100_000;

/// The operator's rewards by streak day; the cycle repeats after its last
/// day (day 8 of a 7-day schedule pays like day 1).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = AwardsStreakSchedule))]
pub struct Schedule {
    pub rewards: Vec<i64>,
}

impl Default for Schedule {
    /// 5, 5, 10, 10, 15, 15, 30 credits.
    fn default() -> Schedule {
        Schedule {
            rewards: vec![5, 5, 10, 10, 15, 15, 30],
        }
    }
}

impl Schedule {
    /// 1 to 31 days, each 0 to 100 000 credits.
    pub fn parse(rewards: Vec<i64>) -> Option<Schedule> {
        let ok = !rewards.is_empty()
            && rewards.len() <= MAX_SCHEDULE_DAYS
            && rewards.iter().all(|r| (0..=MAX_DAY_REWARD).contains(r));
        ok.then_some(Schedule { rewards })
    }

    /// Days in one cycle.
    pub fn len(&self) -> u32 {
        u32::try_from(self.rewards.len()).unwrap_or(1).max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.rewards.is_empty()
    }

    /// What streak day `n` (1-based) pays.
    pub fn reward(&self, n: u32) -> i64 {
        let i = (n.max(1) - 1) % self.len();
        self.rewards
            .get(usize::try_from(i).unwrap_or(0))
            .copied()
            .unwrap_or(0)
    }

    /// The calendar of the cycle holding today's streak day: one entry per
    /// day of the schedule, with its date if the streak goes on unbroken.
    pub fn calendar(&self, streak: Streak, today: Day) -> Vec<CalendarDay> {
        let pos = streak.today_position(today);
        let checked_today = streak.checked(today);
        let len = self.len();
        let first = (pos - 1) / len * len + 1;
        (0..len)
            .map(|i| {
                let n = first + i;
                let offset = i64::from(n) - i64::from(pos);
                let day = today.plus(i32::try_from(offset).unwrap_or(0));
                CalendarDay {
                    date: day.iso(),
                    streak_day: n,
                    reward: self.reward(n),
                    checked: n < pos || (n == pos && checked_today),
                    today: n == pos,
                }
            })
            .collect()
    }
}

/// One day of the check-in calendar.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CalendarDay {
    /// `YYYY-MM-DD` in the user's zone.
    pub date: String,
    /// Which day of the streak it is (1-based).
    pub streak_day: u32,
    /// Credits that day's check-in pays.
    pub reward: i64,
    /// Checked in already.
    pub checked: bool,
    /// It is today.
    pub today: bool,
}
