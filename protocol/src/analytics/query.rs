//! The operator's questions over stored events, as pure functions of the
//! rows a sink reads back ([`Fact`]: only the columns the questions need):
//! daily active users, the funnel visit → sign-up → first generation →
//! purchase, weekly retention cohorts, and errors by release. Days are UTC
//! days numbered from 1970-01-01 (day 0); weeks start on Monday.
//!
//! Who is a person: an account when the event carries one; otherwise the
//! event's visitor hash, unless an event of the same day carries both that
//! hash and an account (the visitor signed in or signed up that day), in
//! which case it is that account. Visitor hashes are salted per day and the
//! salt is forgotten, so an anonymous visitor is never followed across days:
//! that is the privacy design, and why retention counts accounts only.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::{ERROR, GENERATION, PAGE_VIEW, PURCHASE, SIGN_UP};

/// The columns the questions read, for one stored event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fact {
    /// UTC day of the server's receive time.
    pub day: i32,
    /// Server receive time, ms since the epoch.
    pub ts: i64,
    pub name: String,
    pub account: Option<String>,
    pub visitor: Option<String>,
    pub release: Option<String>,
    /// An error's message (error events only).
    pub message: Option<String>,
}

const DAY_MS: i64 = 86_400_000;

/// The UTC day of a time in ms.
pub fn day_of_ms(ms: i64) -> i32 {
    ms.div_euclid(DAY_MS) as i32
}

/// The first ms of a day.
pub fn day_start_ms(day: i32) -> i64 {
    i64::from(day) * DAY_MS
}

/// `YYYY-MM-DD` of a day (proleptic Gregorian, H. Hinnant's civil_from_days).
pub fn format_day(day: i32) -> String {
    let z = i64::from(day) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The day of a `YYYY-MM-DD` date, if it is one.
pub fn parse_day(s: &str) -> Option<i32> {
    let mut it = s.split('-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    if it.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    i32::try_from(era * 146_097 + doe - 719_468).ok()
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The Monday starting the week of `day`.
pub fn week_start(day: i32) -> i32 {
    // Day 0 was a Thursday.
    day - (day + 3).rem_euclid(7)
}

/// Whether an event shows the person was there (a purchase may be paid by
/// a provider's webhook while the person is away).
fn is_activity(name: &str) -> bool {
    name != PURCHASE
}

/// Resolves persons: the (day, visitor) → account links of the facts.
struct Persons<'a> {
    links: HashMap<(i32, &'a str), &'a str>,
}

impl<'a> Persons<'a> {
    fn new(facts: &'a [Fact]) -> Persons<'a> {
        let mut links = HashMap::new();
        for f in facts {
            if let (Some(a), Some(v)) = (&f.account, &f.visitor) {
                // The first account seen wins: a shared device's later
                // sign-in does not move earlier events.
                links.entry((f.day, v.as_str())).or_insert(a.as_str());
            }
        }
        Persons { links }
    }

    /// `a:{account}` or `v:{hash}`; `None` for an event with neither.
    fn of(&self, f: &'a Fact) -> Option<(bool, &'a str)> {
        if let Some(a) = &f.account {
            return Some((true, a.as_str()));
        }
        let v = f.visitor.as_deref()?;
        Some(match self.links.get(&(f.day, v)) {
            Some(a) => (true, *a),
            None => (false, v),
        })
    }
}

/// One day's active people.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DauDay {
    /// `YYYY-MM-DD`.
    pub day: String,
    /// Distinct people (accounts and anonymous visitors).
    pub active: u32,
    /// Of which accounts.
    pub accounts: u32,
    /// Of which anonymous visitors.
    pub visitors: u32,
}

/// Daily active users for every day of `from..=to` (days with none are 0).
pub fn dau(facts: &[Fact], from: i32, to: i32) -> Vec<DauDay> {
    let persons = Persons::new(facts);
    let mut per_day: BTreeMap<i32, BTreeSet<(bool, &str)>> = BTreeMap::new();
    for f in facts {
        if f.day < from || f.day > to || !is_activity(&f.name) {
            continue;
        }
        if let Some(p) = persons.of(f) {
            per_day.entry(f.day).or_default().insert(p);
        }
    }
    (from..=to)
        .map(|d| {
            let set = per_day.get(&d);
            let accounts = set.map_or(0, |s| s.iter().filter(|(a, _)| *a).count()) as u32;
            let active = set.map_or(0, BTreeSet::len) as u32;
            DauDay {
                day: format_day(d),
                active,
                accounts,
                visitors: active - accounts,
            }
        })
        .collect()
}

/// One step of the funnel.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunnelStep {
    /// `visit`, `sign_up`, `first_generation`, `purchase`.
    pub step: String,
    pub count: u32,
    /// `count` over the previous step's (1 for the first; 0 when it had none).
    pub rate: f64,
}

/// The funnel of a cohort window.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Funnel {
    pub from: String,
    pub to: String,
    pub window_days: i32,
    pub steps: Vec<FunnelStep>,
}

/// The funnel of the people whose first page view falls in `from..=to`:
/// of them, who signed up, then generated, then paid, each step after the
/// previous one and within `window_days` days of that first view. Reads
/// facts of `from..=to + window_days`.
pub fn funnel(facts: &[Fact], from: i32, to: i32, window_days: i32) -> Funnel {
    let persons = Persons::new(facts);
    let window_ms = i64::from(window_days) * DAY_MS;
    let mut first_visit: HashMap<(bool, &str), i64> = HashMap::new();
    let mut times: HashMap<(&str, (bool, &str)), Vec<i64>> = HashMap::new();
    for f in facts {
        let Some(p) = persons.of(f) else { continue };
        if f.name == PAGE_VIEW && f.day >= from && f.day <= to {
            let t = first_visit.entry(p).or_insert(f.ts);
            *t = (*t).min(f.ts);
        } else if [SIGN_UP, GENERATION, PURCHASE].contains(&f.name.as_str()) {
            times.entry((step_name(&f.name), p)).or_default().push(f.ts);
        }
    }
    let next = |step, p, after: i64, until: i64| -> Option<i64> {
        times
            .get(&(step, p))?
            .iter()
            .copied()
            .filter(|t| *t >= after && *t <= until)
            .min()
    };
    let (mut visits, mut signs, mut gens, mut buys) = (0u32, 0u32, 0u32, 0u32);
    for (p, visit) in &first_visit {
        visits += 1;
        let until = visit + window_ms;
        let Some(s) = next(SIGN_UP, *p, *visit, until) else {
            continue;
        };
        signs += 1;
        let Some(g) = next(GENERATION, *p, s, until) else {
            continue;
        };
        gens += 1;
        if next(PURCHASE, *p, g, until).is_some() {
            buys += 1;
        }
    }
    let counts = [visits, signs, gens, buys];
    let names = ["visit", "sign_up", "first_generation", "purchase"];
    let mut steps = Vec::new();
    let mut prev: Option<u32> = None;
    for (name, count) in names.iter().zip(counts) {
        let rate = match prev {
            None => 1.0,
            Some(0) => 0.0,
            Some(p) => f64::from(count) / f64::from(p),
        };
        steps.push(FunnelStep {
            step: (*name).to_owned(),
            count,
            rate,
        });
        prev = Some(count);
    }
    Funnel {
        from: format_day(from),
        to: format_day(to),
        window_days,
        steps,
    }
}

fn step_name(name: &str) -> &'static str {
    match name {
        SIGN_UP => SIGN_UP,
        GENERATION => GENERATION,
        _ => PURCHASE,
    }
}

/// One sign-up week's cohort.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cohort {
    /// The Monday starting the sign-up week, `YYYY-MM-DD`.
    pub week: String,
    /// Accounts that signed up that week.
    pub size: u32,
    /// `retained[n]`: of them, active in week n after it (n = 0 is the
    /// sign-up week); only weeks that have begun by `today` are listed.
    pub retained: Vec<u32>,
}

/// Weekly retention of the accounts that signed up in the weeks of
/// `from..=to`, up to `today`'s week. Reads facts of `week_start(from)..=today`.
pub fn retention(facts: &[Fact], from: i32, to: i32, today: i32) -> Vec<Cohort> {
    let persons = Persons::new(facts);
    let last_week = week_start(today);
    let mut signed: BTreeMap<&str, i32> = BTreeMap::new();
    for f in facts {
        if f.name != SIGN_UP || f.day < week_start(from) || f.day > to {
            continue;
        }
        if let Some(a) = f.account.as_deref() {
            let w = signed.entry(a).or_insert(week_start(f.day));
            *w = (*w).min(week_start(f.day));
        }
    }
    let mut active: HashMap<&str, BTreeSet<i32>> = HashMap::new();
    for f in facts {
        if !is_activity(&f.name) {
            continue;
        }
        if let Some((true, a)) = persons.of(f) {
            active.entry(a).or_default().insert(week_start(f.day));
        }
    }
    let mut cohorts: BTreeMap<i32, Vec<&str>> = BTreeMap::new();
    for (a, w) in &signed {
        cohorts.entry(*w).or_default().push(*a);
    }
    cohorts
        .into_iter()
        .map(|(w, members)| {
            let weeks = ((last_week - w) / 7).max(0);
            let retained = (0..=weeks)
                .map(|n| {
                    let wk = w + n * 7;
                    members
                        .iter()
                        .filter(|a| active.get(*a).is_some_and(|s| s.contains(&wk)))
                        .count() as u32
                })
                .collect();
            Cohort {
                week: format_day(w),
                size: members.len() as u32,
                retained,
            }
        })
        .collect()
}

/// Errors of one release.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseErrors {
    /// The release, or `unknown`.
    pub release: String,
    pub errors: u32,
    /// Distinct people who hit one.
    pub people: u32,
    /// The most frequent messages, most first (at most 5).
    pub top: Vec<ErrorMessageCount>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorMessageCount {
    pub message: String,
    pub count: u32,
}

/// Client errors of `from..=to` by release, the most errors first (ties by
/// release name).
pub fn errors_by_release(facts: &[Fact], from: i32, to: i32) -> Vec<ReleaseErrors> {
    let persons = Persons::new(facts);
    #[derive(Default)]
    struct Acc<'a> {
        n: u32,
        people: BTreeSet<(bool, &'a str)>,
        messages: BTreeMap<&'a str, u32>,
    }
    let mut by: BTreeMap<&str, Acc> = BTreeMap::new();
    for f in facts {
        if f.name != ERROR || f.day < from || f.day > to {
            continue;
        }
        let acc = by
            .entry(f.release.as_deref().unwrap_or("unknown"))
            .or_default();
        acc.n += 1;
        if let Some(p) = persons.of(f) {
            acc.people.insert(p);
        }
        *acc.messages
            .entry(f.message.as_deref().unwrap_or(""))
            .or_default() += 1;
    }
    let mut out: Vec<ReleaseErrors> = by
        .into_iter()
        .map(|(release, acc)| {
            let mut top: Vec<ErrorMessageCount> = acc
                .messages
                .into_iter()
                .map(|(m, c)| ErrorMessageCount {
                    message: m.to_owned(),
                    count: c,
                })
                .collect();
            top.sort_by(|a, b| b.count.cmp(&a.count).then(a.message.cmp(&b.message)));
            top.truncate(5);
            ReleaseErrors {
                release: release.to_owned(),
                errors: acc.n,
                people: acc.people.len() as u32,
                top,
            }
        })
        .collect();
    out.sort_by(|a, b| b.errors.cmp(&a.errors).then(a.release.cmp(&b.release)));
    out
}

#[cfg(test)]
mod tests;
