//! Days in a user's time zone: which calendar day an instant falls on for
//! an IANA zone, and when the next one starts. Time zones come from the
//! IANA database bundled with `jiff`, so every machine agrees (DST rules
//! included) whatever its `/usr/share/zoneinfo` holds.

use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// A calendar day, counted in days since 1970-01-01 (negative before).
/// Serialised as its number; [`Day::iso`] gives `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Day(pub i32);

const SECS_PER_DAY: i64 = 86_400;

impl Day {
    /// The day before.
    pub fn prev(self) -> Day {
        Day(self.0.saturating_sub(1))
    }

    /// `n` days later (earlier when negative).
    pub fn plus(self, n: i32) -> Day {
        Day(self.0.saturating_add(n))
    }

    /// `YYYY-MM-DD`, as used in ledger keys and shown to clients.
    pub fn iso(self) -> String {
        match self.date() {
            Some(d) => d.to_string(),
            None => format!("day{}", self.0),
        }
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse_iso(s: &str) -> Option<Day> {
        let d: jiff::civil::Date = s.parse().ok()?;
        Day::of_date(d)
    }

    fn date(self) -> Option<jiff::civil::Date> {
        let ts = Timestamp::from_second(i64::from(self.0) * SECS_PER_DAY).ok()?;
        Some(ts.to_zoned(TimeZone::UTC).date())
    }

    fn of_date(d: jiff::civil::Date) -> Option<Day> {
        let secs = d.to_zoned(TimeZone::UTC).ok()?.timestamp().as_second();
        i32::try_from(secs.div_euclid(SECS_PER_DAY)).ok().map(Day)
    }
}

/// Longest zone name accepted (the longest IANA name is 32 characters).
pub const MAX_ZONE_LEN: usize = 64;

/// A validated IANA time zone (`Asia/Shanghai`, `America/New_York`, `UTC`).
#[derive(Debug, Clone)]
pub struct Zone {
    name: String,
    tz: TimeZone,
}

impl PartialEq for Zone {
    fn eq(&self, other: &Zone) -> bool {
        self.name == other.name
    }
}

impl Zone {
    /// UTC, the zone of accounts that never said theirs.
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".into(),
            tz: TimeZone::UTC,
        }
    }

    /// Validates an IANA name against the bundled database. Fixed offsets
    /// and POSIX strings are refused: a day must follow the place's rules.
    pub fn parse(name: &str) -> Option<Zone> {
        let name = name.trim();
        if name.is_empty()
            || name.len() > MAX_ZONE_LEN
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
        {
            return None;
        }
        let tz = TimeZone::get(name).ok()?;
        // The database's own spelling, so `utc` and `UTC` are one zone.
        let name = tz.iana_name().unwrap_or(name).to_owned();
        Some(Zone { name, tz })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The calendar day the instant `ms` (milliseconds since the epoch)
    /// falls on in this zone.
    pub fn day_of(&self, ms: i64) -> Day {
        let ts = Timestamp::from_millisecond(ms).unwrap_or(Timestamp::UNIX_EPOCH);
        Day::of_date(ts.to_zoned(self.tz.clone()).date()).unwrap_or(Day(0))
    }

    /// When `day` starts in this zone, in milliseconds since the epoch (the
    /// first instant of the day: where DST skips midnight, the first
    /// instant after the gap).
    pub fn start_of(&self, day: Day) -> i64 {
        day.date()
            .and_then(|d| d.to_zoned(self.tz.clone()).ok())
            .map(|z| z.timestamp().as_millisecond())
            .unwrap_or(i64::from(day.0) * SECS_PER_DAY * 1000)
    }

    /// When the day after the one holding `ms` starts (the next check-in).
    pub fn next_day_start(&self, ms: i64) -> i64 {
        self.start_of(self.day_of(ms).plus(1))
    }

    /// The zone to use: the account's stored one, else the one the client
    /// sent if valid, else UTC. Answers whether the client's zone was used
    /// (so the caller may store it).
    pub fn resolve(stored: Option<&str>, client: Option<&str>) -> (Zone, bool) {
        if let Some(z) = stored.and_then(Zone::parse) {
            return (z, false);
        }
        match client.and_then(Zone::parse) {
            Some(z) => (z, true),
            None => (Zone::utc(), false),
        }
    }
}

#[cfg(feature = "openapi")]
integer_schema!(Day, "days since 1970-01-01");
