//! Changing an account's check-in time zone (`activity/checkin/time-zone`)
//! without letting the change buy a check-in.
//!
//! The rules:
//! - at most one change per [`ZONE_CHANGE_EVERY_MS`] (30 days); choosing a
//!   zone before any is pinned (no check-in yet) is free;
//! - the last check-in's day is carried into the new zone's calendar as
//!   the later of its day number and the new zone's day of the instant it
//!   was made ([`rezone`]), so the next check-in is on a later day of the
//!   new zone's calendar, and the day numbers never go back (ledger keys
//!   `checkin:{account}:{day}` of a later check-in are never an earlier
//!   one's);
//! - and no check-in before the old zone's next midnight after the last
//!   check-in (`not_before`), so the next check-in is on a later day of the
//!   old zone's calendar too.
//!
//! So a check-in after a change is on a new day in both calendars: moving
//! east never gives a second check-in inside the old day, moving west
//! never one inside the new day. A streak is kept: the day after the
//! carried day is always reachable after `not_before`.

use super::day::{Day, Zone};

/// Least time between two zone changes.
pub const ZONE_CHANGE_EVERY_MS: i64 = 30 * 86_400_000;

/// The check-in state moved into a new zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rezoned {
    /// The last check-in's day in the new zone's calendar.
    pub last_day: Day,
    /// No check-in before this instant (ms): the old zone's next midnight
    /// after the last check-in.
    pub not_before: i64,
}

/// Moves the last check-in (`last_day` in `old`'s calendar, made at
/// `last_at` ms; unknown for check-ins stored before the time was kept,
/// then the last instant of that day is assumed, the later the safer).
pub fn rezone(old: &Zone, new: &Zone, last_day: Day, last_at: Option<i64>) -> Rezoned {
    let day_end = old.start_of(last_day.plus(1));
    let at = last_at.unwrap_or(day_end.saturating_sub(1));
    Rezoned {
        last_day: last_day.max(new.day_of(at)),
        not_before: day_end,
    }
}

/// The day a check-in at `now` counts for: today in `zone`, except while a
/// change's `not_before` holds, when it is the last check-in's day (so the
/// check-in answers "already" and the widget shows today as checked).
pub fn effective_day(zone: &Zone, now: i64, last_day: Option<Day>, not_before: Option<i64>) -> Day {
    let today = zone.day_of(now);
    match (last_day, not_before) {
        (Some(last), Some(nb)) if now < nb => today.min(last),
        _ => today,
    }
}

/// When the next check-in opens: the start of the day after `today` (or
/// after the last check-in's day when a change carried it past today), or
/// `not_before` when that is later.
pub fn next_open(zone: &Zone, today: Day, last_day: Option<Day>, not_before: Option<i64>) -> i64 {
    let day = last_day.map_or(today, |l| l.max(today));
    zone.start_of(day.plus(1))
        .max(not_before.unwrap_or(i64::MIN))
}

/// Whether a zone change is allowed at `now` after the last one at
/// `last_change`: `Err(when)` gives when the next one is.
pub fn change_allowed(last_change: Option<i64>, now: i64) -> Result<(), i64> {
    match last_change {
        Some(at) if now < at.saturating_add(ZONE_CHANGE_EVERY_MS) => {
            Err(at.saturating_add(ZONE_CHANGE_EVERY_MS))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::streak::{Step, Streak};
    use super::*;

    fn ms(rfc3339: &str) -> i64 {
        rfc3339.parse::<jiff::Timestamp>().unwrap().as_millisecond()
    }

    fn z(name: &str) -> Zone {
        Zone::parse(name).unwrap()
    }

    /// Checks in at `at` in `old`, changes to `new` right after, then
    /// answers the first instant (hour by hour) a check-in is granted, its
    /// day in both zones, and whether the streak went on.
    fn first_after(old: &str, new: &str, at: &str) -> (i64, Day, Day, Day, bool) {
        let (old, new) = (z(old), z(new));
        let at = ms(at);
        let last = old.day_of(at);
        let moved = rezone(&old, &new, last, Some(at));
        let streak = Streak {
            last: Some(moved.last_day),
            days: 3,
        };
        let mut now = at;
        loop {
            now += 60_000;
            let day = effective_day(&new, now, Some(moved.last_day), Some(moved.not_before));
            if let Step::Checked { days, .. } = streak.step(day) {
                return (now, last, old.day_of(now), new.day_of(now), days == 4);
            }
        }
    }

    #[test]
    fn a_change_never_buys_a_check_in_on_a_day_already_checked() {
        let table = [
            // East: 23:00 in Los Angeles is 15:00 the next day in Shanghai.
            (
                "America/Los_Angeles",
                "Asia/Shanghai",
                "2026-11-27T07:00:00Z",
            ),
            // East inside one date: 01:00 UTC is 09:00 in Shanghai.
            ("UTC", "Asia/Shanghai", "2026-11-26T01:00:00Z"),
            // West: 01:00 in Shanghai is 09:00 the day before in Los Angeles.
            (
                "Asia/Shanghai",
                "America/Los_Angeles",
                "2026-11-26T17:00:00Z",
            ),
            // The widest: a day and an hour apart.
            (
                "Pacific/Pago_Pago",
                "Pacific/Kiritimati",
                "2026-11-27T10:30:00Z",
            ),
            (
                "Pacific/Kiritimati",
                "Pacific/Pago_Pago",
                "2026-11-27T10:30:00Z",
            ),
            // Across a DST change (Europe ends summer time on 25 October 2026).
            ("Europe/Berlin", "America/New_York", "2026-10-24T21:30:00Z"),
            ("UTC", "UTC", "2026-11-27T23:59:00Z"),
        ];
        for (old, new, at) in table {
            let (when, last, old_day, new_day, kept) = first_after(old, new, at);
            let at_ms = ms(at);
            assert!(old_day > last, "{old}->{new} at {at}: old day");
            assert!(
                new_day > z(new).day_of(at_ms),
                "{old}->{new} at {at}: new day"
            );
            assert!(kept, "{old}->{new} at {at}: streak kept");
            assert!(
                when - at_ms <= 50 * 3_600_000,
                "{old}->{new} at {at}: {when}"
            );
        }
    }

    #[test]
    fn the_next_check_in_opens_at_the_later_midnight() {
        let (la, sh) = (z("America/Los_Angeles"), z("Asia/Shanghai"));
        let at = ms("2026-11-27T07:00:00Z"); // 23:00 on the 26th in LA
        let m = rezone(&la, &sh, la.day_of(at), Some(at));
        assert_eq!(m.last_day.iso(), "2026-11-27");
        assert_eq!(m.not_before, ms("2026-11-27T08:00:00Z"));
        // Shanghai's next midnight (16:00 UTC) is later than LA's.
        let today = effective_day(&sh, at + 60_000, Some(m.last_day), Some(m.not_before));
        assert_eq!(today, m.last_day);
        assert_eq!(
            next_open(&sh, today, Some(m.last_day), Some(m.not_before)),
            ms("2026-11-27T16:00:00Z")
        );
        // UTC to Shanghai on the same date: the UTC midnight holds.
        let utc = Zone::utc();
        let at = ms("2026-11-26T01:00:00Z");
        let m = rezone(&utc, &sh, utc.day_of(at), Some(at));
        assert_eq!(m.last_day.iso(), "2026-11-26");
        let now = ms("2026-11-26T20:00:00Z"); // the 27th in Shanghai
        let today = effective_day(&sh, now, Some(m.last_day), Some(m.not_before));
        assert_eq!(today.iso(), "2026-11-26");
        assert_eq!(
            next_open(&sh, today, Some(m.last_day), Some(m.not_before)),
            ms("2026-11-27T00:00:00Z")
        );
        // Shanghai to Los Angeles: the carried day (the 27th) is LA's
        // tomorrow, so the next check-in is LA's midnight after it.
        let la = z("America/Los_Angeles");
        let at = ms("2026-11-26T17:00:00Z"); // 01:00 on the 27th in Shanghai
        let m = rezone(&sh, &la, sh.day_of(at), Some(at));
        assert_eq!(m.last_day.iso(), "2026-11-27");
        let today = effective_day(&la, at, Some(m.last_day), Some(m.not_before));
        assert_eq!(today.iso(), "2026-11-26");
        assert_eq!(
            next_open(&la, today, Some(m.last_day), Some(m.not_before)),
            ms("2026-11-28T08:00:00Z")
        );
        let later = effective_day(
            &sh,
            ms("2026-11-27T00:00:00Z"),
            Some(m.last_day),
            Some(m.not_before),
        );
        assert_eq!(later.iso(), "2026-11-27");
    }

    #[test]
    fn an_unknown_check_in_time_is_taken_as_the_end_of_its_day() {
        let (ny, sh) = (z("America/New_York"), z("Asia/Shanghai"));
        let day = Day::parse_iso("2026-11-27").unwrap();
        let m = rezone(&ny, &sh, day, None);
        // 23:59:59.999 in New York on the 27th is the 28th in Shanghai.
        assert_eq!(m.last_day.iso(), "2026-11-28");
        assert_eq!(m.not_before, ms("2026-11-28T05:00:00Z"));
    }

    #[test]
    fn one_change_per_thirty_days() {
        let t = ms("2026-11-01T00:00:00Z");
        assert_eq!(change_allowed(None, t), Ok(()));
        assert_eq!(
            change_allowed(Some(t), t + 1),
            Err(t + ZONE_CHANGE_EVERY_MS)
        );
        assert_eq!(
            change_allowed(Some(t), t + ZONE_CHANGE_EVERY_MS - 1),
            Err(t + ZONE_CHANGE_EVERY_MS)
        );
        assert_eq!(change_allowed(Some(t), t + ZONE_CHANGE_EVERY_MS), Ok(()));
    }
}
