//! The daily check-in: `activity/checkin/info` and `activity/checkin`.
//!
//! A check-in is decided by one compare-and-set of the account's
//! `CheckinRow` (so two concurrent check-ins make one), then paid by
//! `Ledger::grant` under `checkin:{account}:{YYYY-MM-DD}` (so a day pays
//! once whatever happens). A crash between the two leaves a row that says
//! today is checked in and a grant not made: every later check-in call of
//! that day grants the row's reward again under the same key, which pays
//! exactly the missing grant or nothing (under the key of the day it was
//! paid for, `paid_day`, even after a zone change moved `last_day`).
//!
//! `activity/checkin/time-zone` changes the pinned zone, once per 30 days,
//! carrying the last check-in into the new zone's calendar so that the
//! change never buys a check-in (`protocol::awards::rezone`).

use infra::store::Key;
use protocol::awards::rezone::{change_allowed, effective_day, next_open, rezone};
use protocol::awards::{checkin_key, CheckinDone, CheckinInfo, Day, Step, Streak, Zone};
use protocol::ErrorCode;

use super::{AwardService, CheckinRow};
use crate::error::ApiError;

impl CheckinRow {
    fn streak(&self) -> Streak {
        Streak {
            last: self.last_day.map(Day),
            days: self.streak,
        }
    }

    /// The day a check-in at `now` counts for in `zone` (see [`effective_day`]).
    fn today(&self, zone: &Zone, now: i64) -> Day {
        effective_day(zone, now, self.last_day.map(Day), self.not_before)
    }
}

/// Checks a zone the client sent: absent is fine, unknown is refused.
pub fn client_zone(tz: Option<&str>) -> Result<Option<&str>, ApiError> {
    match tz.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) if Zone::parse(t).is_some() => Ok(Some(t)),
        Some(_) => Err(ErrorCode::CheckinTimeZoneInvalid.into()),
    }
}

impl AwardService {
    /// The zone days are counted in for `row`: its pinned one, else the
    /// client's, else UTC.
    fn zone(row: Option<&CheckinRow>, client: Option<&str>) -> Zone {
        Zone::resolve(row.and_then(|r| r.tz.as_deref()), client).0
    }

    /// The zone a viewer's days are counted in outside the check-in (popup
    /// caps): an account's pinned zone, else the zone the client sent when
    /// it is a valid IANA name, else UTC. Visitors (None) have no pinned one.
    pub async fn viewer_zone(
        &self,
        account: Option<&str>,
        client: Option<&str>,
    ) -> Result<Zone, ApiError> {
        let row = match account {
            Some(a) => self.checkin_row(a).await?,
            None => None,
        };
        Ok(Self::zone(row.as_ref(), client.map(str::trim)))
    }

    /// The account's zone for task awards (no client zone there).
    pub(super) async fn account_zone(&self, account: &str) -> Result<Zone, ApiError> {
        Ok(Self::zone(self.checkin_row(account).await?.as_ref(), None))
    }

    /// `activity/checkin/info`.
    pub async fn info(&self, account: &str, tz: Option<&str>) -> Result<CheckinInfo, ApiError> {
        let tz = client_zone(tz)?;
        let row = self.checkin_row(account).await?;
        let zone = Self::zone(row.as_ref(), tz);
        let schedule = self.config().await?.schedule;
        Ok(self.info_of(&row.unwrap_or_default(), &zone, &schedule))
    }

    fn info_of(
        &self,
        row: &CheckinRow,
        zone: &Zone,
        schedule: &protocol::awards::Schedule,
    ) -> CheckinInfo {
        let now = self.now();
        let today = row.today(zone, now);
        let streak = row.streak();
        let checked_today = streak.checked(today);
        let reward_today = if checked_today {
            row.last_reward
        } else {
            schedule.reward(streak.today_position(today))
        };
        CheckinInfo {
            checked_today,
            streak: streak.current(today),
            today: today.iso(),
            time_zone: zone.name().to_owned(),
            reward_today,
            next_at: next_open(zone, today, row.last_day.map(Day), row.not_before),
            calendar: schedule.calendar(streak, today),
            total_days: row.total,
            temp_coins_popup: if checked_today && row.popup_day != Some(today.0) {
                row.last_reward
            } else {
                0
            },
            time_zone_pinned: row.tz.is_some(),
            time_zone_change_at: match change_allowed(row.tz_changed_at, now) {
                Ok(()) => 0,
                Err(at) => at,
            },
        }
    }

    /// `activity/checkin`: checks today in once, pays its reward once.
    #[tracing::instrument(skip(self))]
    pub async fn check_in(&self, account: &str, tz: Option<&str>) -> Result<CheckinDone, ApiError> {
        let tz = client_zone(tz)?;
        let schedule = self.config().await?.schedule;
        let t = &self.inner.checkins;
        let pk = Key::of(account);
        let (row, zone, today, granted) = loop {
            let cur = t.get(&pk, &Key::empty()).await?;
            let zone = Self::zone(cur.as_ref(), tz);
            let now = self.now();
            let base = cur.clone().unwrap_or_default();
            let today = base.today(&zone, now);
            let next = match base.streak().step(today) {
                Step::Already => break (base, zone, today, false),
                Step::Checked { days, .. } => CheckinRow {
                    last_day: Some(today.0),
                    streak: days,
                    total: base.total.saturating_add(1),
                    last_reward: schedule.reward(days),
                    tz: Some(zone.name().to_owned()),
                    popup_day: base.popup_day,
                    last_at: Some(now),
                    paid_day: None,
                    not_before: None,
                    tz_changed_at: base.tz_changed_at,
                },
            };
            let applied = match &cur {
                None => t.insert_if_absent(&pk, &Key::empty(), &next).await?.is_ok(),
                Some(c) => t
                    .compare_and_set(&pk, &Key::empty(), c, Some(&next))
                    .await?
                    .is_ok(),
            };
            if applied {
                break (next, zone, today, true);
            }
        };
        if row.last_day == Some(today.0) && row.last_reward > 0 {
            // Paid once per day by its key; a retry repairs a crash.
            let key = checkin_key(account, Day(row.paid_day.unwrap_or(today.0)));
            self.inner
                .ledger
                .grant(account, &key, row.last_reward)
                .await?;
        }
        let balance = self.inner.ledger.balance(account).await?.balance;
        Ok(CheckinDone {
            granted,
            reward: if row.last_day == Some(today.0) {
                row.last_reward
            } else {
                0
            },
            balance,
            info: self.info_of(&row, &zone, &schedule),
        })
    }

    /// `face-photo/mark-temp-coins-popup`: today's check-in credits popup
    /// was seen. Answers whether this call marked it.
    pub async fn mark_temp_coins_popup(&self, account: &str) -> Result<bool, ApiError> {
        let Some(row) = self.checkin_row(account).await? else {
            return Ok(false);
        };
        let today = row.today(&Self::zone(Some(&row), None), self.now());
        if row.popup_day == Some(today.0) {
            return Ok(false);
        }
        let mut marked = false;
        self.inner
            .checkins
            .update(&Key::of(account), &Key::empty(), Some(row), |r| {
                marked = r.popup_day != Some(today.0);
                r.popup_day = Some(today.0);
            })
            .await?;
        Ok(marked)
    }

    /// `activity/checkin/time-zone`: pins `tz` (an IANA name) as the
    /// account's zone. Choosing one before any is pinned is free; changing
    /// a pinned one is allowed once per 30 days and carries the last
    /// check-in into the new zone (`rezone`), so the change never grants a
    /// check-in on a day already checked in, in either zone's calendar.
    /// The same zone again changes nothing.
    #[tracing::instrument(skip(self))]
    pub async fn set_zone(&self, account: &str, tz: &str) -> Result<CheckinInfo, ApiError> {
        let new = Zone::parse(tz).ok_or(ErrorCode::CheckinTimeZoneInvalid)?;
        let schedule = self.config().await?.schedule;
        let t = &self.inner.checkins;
        let pk = Key::of(account);
        loop {
            let cur = t.get(&pk, &Key::empty()).await?;
            let now = self.now();
            let base = cur.clone().unwrap_or_default();
            let pinned = base.tz.as_deref().and_then(Zone::parse);
            if pinned.as_ref() == Some(&new) {
                return Ok(self.info_of(&base, &new, &schedule));
            }
            let mut next = base.clone();
            next.tz = Some(new.name().to_owned());
            if let Some(old) = pinned {
                if let Err(at) = change_allowed(base.tz_changed_at, now) {
                    return Err(ApiError::with_msg(
                        ErrorCode::CheckinTimeZoneChangeTooSoon,
                        format!(
                            "the time zone can be changed once every 30 days; next on {}",
                            old.day_of(at).iso()
                        ),
                    ));
                }
                next.tz_changed_at = Some(now);
                if let Some(last) = base.last_day {
                    let moved = rezone(&old, &new, Day(last), base.last_at);
                    next.last_day = Some(moved.last_day.0);
                    next.paid_day = Some(base.paid_day.unwrap_or(last));
                    next.not_before = Some(moved.not_before.max(base.not_before.unwrap_or(0)));
                    if base.popup_day == Some(last) {
                        next.popup_day = Some(moved.last_day.0);
                    }
                }
            }
            let applied = match &cur {
                None => t.insert_if_absent(&pk, &Key::empty(), &next).await?.is_ok(),
                Some(c) => t
                    .compare_and_set(&pk, &Key::empty(), c, Some(&next))
                    .await?
                    .is_ok(),
            };
            if applied {
                tracing::info!(account, zone = new.name(), "check-in time zone set");
                return Ok(self.info_of(&next, &new, &schedule));
            }
        }
    }
}
