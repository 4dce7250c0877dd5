//! The pure rules of activities: what an operator may define or change,
//! which period is live at an instant (start inclusive, end exclusive, an
//! operator's early close moving the end), what a contribution and a vote
//! need, how an excellent list is ranked or picked, and the ids and ledger
//! keys. Every function takes `now` instead of reading a clock.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::{
    ActivityDef, ActivityMark, ActivityStatus, ContributionType, Judging, Period, PeriodStatus,
    UpsertRequest,
};
use crate::ErrorCode;

pub const MAX_TITLE_CHARS: usize = 100;
pub const MAX_RULES_CHARS: usize = 20_000;
pub const MAX_PERIODS: usize = 100;
pub const MAX_PRIZES: usize = 50;
pub const MAX_PRIZE: i64 = 1_000_000;
pub const DEFAULT_MAX_ENTRIES: u32 = 3;
pub const MAX_MAX_ENTRIES: u32 = 100;
pub const MAX_EXCELLENT: u32 = 100;
/// A daily challenge's one period lasts at most this long.
pub const DAY_MS: i64 = 86_400_000;
/// Spec 1 §2/§3: the obj_type of activity and daily-challenge cards.
pub const CARD_OBJ_TYPE: u8 = 61;
/// A contribution needs at least this many votes to be placed by votes.
pub const MIN_VOTES: i64 = 1;
/// The marker's activity part in the entry id of a contribution made
/// without an activity.
pub const NO_ACTIVITY: &str = "publish";

fn has_control(s: &str, allow_newlines: bool) -> bool {
    s.chars()
        .any(|c| c.is_control() && !(allow_newlines && matches!(c, '\n' | '\r' | '\t')))
}

/// An operator's definition, checked and normalised; the error names the field.
pub fn validate(r: &UpsertRequest) -> Result<ActivityDef, String> {
    let title = r.title.trim().to_owned();
    let n = title.chars().count();
    if n == 0 || n > MAX_TITLE_CHARS || has_control(&title, false) {
        return Err(format!(
            "title: 1 to {MAX_TITLE_CHARS} printable characters"
        ));
    }
    if r.rules.chars().count() > MAX_RULES_CHARS || has_control(&r.rules, true) {
        return Err(format!(
            "rules: at most {MAX_RULES_CHARS} characters of Markdown"
        ));
    }
    let cover = r
        .cover
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned);
    check_periods(&r.periods)?;
    if r.types.is_empty() {
        return Err("types: allow at least one contribution type".into());
    }
    let mut types = Vec::new();
    for t in &r.types {
        let t = ContributionType::parse(t).ok_or_else(|| {
            format!(
                "types: {t:?} is not one of work, local_video, article, character, model_Checkpoint, model_LORA"
            )
        })?;
        if types.contains(&t) {
            return Err(format!("types: {} is listed twice", t.as_str()));
        }
        types.push(t);
    }
    if r.prizes.len() > MAX_PRIZES {
        return Err(format!("prizes: at most {MAX_PRIZES} ranks"));
    }
    if r.prizes.iter().any(|p| !(0..=MAX_PRIZE).contains(p)) {
        return Err(format!("prizes: each 0 to {MAX_PRIZE} credits"));
    }
    let judging = match r.judging.as_deref().map(str::trim) {
        None | Some("") => Judging::Votes,
        Some(j) => Judging::parse(j).ok_or("judging: votes or picks")?,
    };
    if r.daily {
        let one_day = matches!(r.periods.as_slice(), [p] if p.end - p.start <= DAY_MS);
        if !one_day {
            return Err("periods: a daily challenge has one period of at most 24 hours".into());
        }
    }
    let max_entries = r.max_entries.unwrap_or(DEFAULT_MAX_ENTRIES);
    if !(1..=MAX_MAX_ENTRIES).contains(&max_entries) {
        return Err(format!("max_entries: 1 to {MAX_MAX_ENTRIES}"));
    }
    let prize_ranks = u32::try_from(r.prizes.len()).unwrap_or(u32::MAX);
    let excellent_count = r.excellent_count.unwrap_or(prize_ranks.max(1));
    if !(1..=MAX_EXCELLENT).contains(&excellent_count) {
        return Err(format!("excellent_count: 1 to {MAX_EXCELLENT}"));
    }
    if excellent_count < prize_ranks {
        return Err("excellent_count: must cover every prized rank".into());
    }
    Ok(ActivityDef {
        title,
        rules: r.rules.clone(),
        cover,
        periods: r.periods.clone(),
        types,
        prizes: r.prizes.clone(),
        judging,
        daily: r.daily,
        max_entries,
        excellent_count,
    })
}

fn check_periods(periods: &[Period]) -> Result<(), String> {
    if periods.is_empty() || periods.len() > MAX_PERIODS {
        return Err(format!("periods: 1 to {MAX_PERIODS}"));
    }
    let mut last_end = i64::MIN;
    for (i, p) in periods.iter().enumerate() {
        if p.start < 0 || p.start >= p.end {
            return Err(format!("periods[{i}]: start must be before end"));
        }
        if p.start < last_end {
            return Err(format!(
                "periods[{i}]: periods must be in order and not overlap"
            ));
        }
        last_end = p.end;
    }
    Ok(())
}

/// The end in force: an operator's early close (never outside the period).
pub fn effective_end(p: &Period, closed_at: Option<i64>) -> i64 {
    closed_at.map_or(p.end, |c| c.clamp(p.start, p.end))
}

/// One period's status at `now`.
pub fn period_status(p: &Period, closed_at: Option<i64>, judged: bool, now: i64) -> PeriodStatus {
    if judged {
        return PeriodStatus::Judged;
    }
    // Closed from the operator's close on, even before its start.
    if now >= effective_end(p, closed_at) || closed_at.is_some_and(|c| now >= c) {
        return PeriodStatus::Closed;
    }
    if now < p.start {
        PeriodStatus::Upcoming
    } else {
        PeriodStatus::Live
    }
}

fn closed_of(closed: &[Option<i64>], i: usize) -> Option<i64> {
    closed.get(i).copied().flatten()
}

/// The period open for contributions and votes at `now`, if any.
pub fn live_period(def: &ActivityDef, closed: &[Option<i64>], now: i64) -> Option<u32> {
    def.periods.iter().enumerate().find_map(|(i, p)| {
        (period_status(p, closed_of(closed, i), false, now) == PeriodStatus::Live)
            .then(|| u32::try_from(i).ok())
            .flatten()
    })
}

/// The first start and the last end in force.
pub fn span(def: &ActivityDef, closed: &[Option<i64>]) -> (i64, i64) {
    let start = def.periods.first().map_or(0, |p| p.start);
    let end = def
        .periods
        .iter()
        .enumerate()
        .map(|(i, p)| effective_end(p, closed_of(closed, i)))
        .max()
        .unwrap_or(0);
    (start, end)
}

/// The activity's status at `now`.
pub fn activity_status(def: &ActivityDef, closed: &[Option<i64>], now: i64) -> ActivityStatus {
    let statuses: Vec<PeriodStatus> = def
        .periods
        .iter()
        .enumerate()
        .map(|(i, p)| period_status(p, closed_of(closed, i), false, now))
        .collect();
    if statuses.iter().all(|s| *s == PeriodStatus::Closed) {
        ActivityStatus::Ended
    } else if statuses.iter().all(|s| *s == PeriodStatus::Upcoming) {
        ActivityStatus::Upcoming
    } else {
        ActivityStatus::Live
    }
}

/// The period lists show by default: the live one, else the last that
/// started (or was closed), else the first.
pub fn default_period(def: &ActivityDef, closed: &[Option<i64>], now: i64) -> u32 {
    if let Some(p) = live_period(def, closed, now) {
        return p;
    }
    let last = def
        .periods
        .iter()
        .enumerate()
        .filter(|(i, p)| p.start <= now || closed_of(closed, *i).is_some())
        .map(|(i, _)| i)
        .last()
        .unwrap_or(0);
    u32::try_from(last).unwrap_or(0)
}

/// What a contribution to an activity needs (the object's ownership and
/// type are the backend's to check): an allowed type, a live period, and
/// room under the per-account limit. Answers the live period.
pub fn check_commit(
    def: &ActivityDef,
    closed: &[Option<i64>],
    kind: ContributionType,
    now: i64,
    mine_in_period: impl FnOnce(u32) -> u32,
) -> Result<u32, ErrorCode> {
    if !def.types.contains(&kind) {
        return Err(ErrorCode::ActivityTypeNotAllowed);
    }
    let period = live_period(def, closed, now).ok_or(ErrorCode::ActivityPeriodClosed)?;
    if mine_in_period(period) >= def.max_entries {
        return Err(ErrorCode::ActivityEntryLimit);
    }
    Ok(period)
}

/// What a vote needs: voting judges the activity, it is not one's own
/// contribution, and the contribution's period is live.
pub fn check_vote(
    def: &ActivityDef,
    closed: &[Option<i64>],
    period: u32,
    now: i64,
    voter: &str,
    author: &str,
) -> Result<(), ErrorCode> {
    if def.judging != Judging::Votes {
        return Err(ErrorCode::ActivityVotingOff);
    }
    if voter == author {
        return Err(ErrorCode::ActivityVoteSelf);
    }
    let i = period as usize;
    let p = def.periods.get(i).ok_or(ErrorCode::NotFound)?;
    if period_status(p, closed_of(closed, i), false, now) != PeriodStatus::Live {
        return Err(ErrorCode::ActivityPeriodClosed);
    }
    Ok(())
}

/// May the period be judged now: it ended or was closed (not upcoming or live).
pub fn judgeable(p: &Period, closed_at: Option<i64>, now: i64) -> bool {
    period_status(p, closed_at, false, now) == PeriodStatus::Closed
}

/// A contribution competing in a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its entry id.
    pub key: String,
    pub account: String,
    pub votes: i64,
    /// When it was committed (ms).
    pub at: i64,
}

/// The vote order: most votes first, ties to the earlier contribution,
/// then to the smaller entry id (so the order is total).
pub fn vote_order(a: &Candidate, b: &Candidate) -> Ordering {
    b.votes
        .cmp(&a.votes)
        .then(a.at.cmp(&b.at))
        .then_with(|| a.key.cmp(&b.key))
}

/// The excellent list by votes: indexes into `cands`, best first, at most
/// `count`, each with at least [`MIN_VOTES`], one place per account (its
/// best contribution).
pub fn rank_by_votes(cands: &[Candidate], count: u32) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by(|&a, &b| match (cands.get(a), cands.get(b)) {
        (Some(x), Some(y)) => vote_order(x, y),
        _ => Ordering::Equal,
    });
    let mut placed: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for i in order {
        if out.len() >= count as usize {
            break;
        }
        let Some(c) = cands.get(i) else { continue };
        if c.votes < MIN_VOTES || !placed.insert(c.account.as_str()) {
            continue;
        }
        out.push(i);
    }
    out
}

/// Operators' picks, in rank order: 1 to `count` distinct contributions of
/// the period. Answers indexes into `cands`.
pub fn check_picks(picks: &[String], cands: &[Candidate], count: u32) -> Result<Vec<usize>, String> {
    if picks.is_empty() || picks.len() > count as usize {
        return Err(format!("picks: 1 to {count} contributions"));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for p in picks {
        if !seen.insert(p.as_str()) {
            return Err(format!("picks: {p} is picked twice"));
        }
        let i = cands
            .iter()
            .position(|c| &c.key == p)
            .ok_or_else(|| format!("picks: {p} is not a contribution of this period"))?;
        out.push(i);
    }
    Ok(out)
}

/// The prize of a rank (1-based); 0 past the prized ranks.
pub fn prize(prizes: &[i64], rank: u32) -> i64 {
    rank.checked_sub(1)
        .and_then(|i| prizes.get(i as usize))
        .copied()
        .unwrap_or(0)
        .max(0)
}

/// The ledger key of a prize: paid once whatever repeats the judging.
pub fn prize_key(activity: &str, period: u32, rank: u32) -> String {
    format!("activity:{activity}:{period}:{rank}")
}

/// Spec 1 §3's card id: `event-center/{activity}/{period}`, the daily
/// challenge's `event-center/daily/{activity}`.
pub fn card_id(activity: &str, period: u32, daily: bool) -> String {
    if daily {
        format!("event-center/daily/{activity}")
    } else {
        format!("event-center/{activity}/{period}")
    }
}

/// The mark on the card of a work committed to an activity.
pub fn mark(activity: &str, title: &str, period: u32, daily: bool) -> ActivityMark {
    ActivityMark {
        id: card_id(activity, period, daily),
        obj_type: CARD_OBJ_TYPE,
        title: title.to_owned(),
        activity_id: activity.to_owned(),
        period,
        daily,
    }
}

/// Spec 1 §3: a daily-challenge card id contains `event-center/daily`.
pub fn is_daily_card(id: &str) -> bool {
    id.contains("event-center/daily")
}

/// Spec 1 §3: an activity mark's id has three segments, the first
/// `event-center` (with obj_type 61).
pub fn is_activity_card(id: &str, obj_type: u8) -> bool {
    let parts: Vec<&str> = id.split('/').collect();
    obj_type == CARD_OBJ_TYPE
        && parts.len() == 3
        && parts.first() == Some(&"event-center")
        && parts.iter().all(|p| !p.is_empty())
}

/// A contribution's id: `{activity}:{type}:{object}` (`publish` for the
/// activity part of a marker without activity).
pub fn entry_id(activity: Option<&str>, kind: ContributionType, obj: &str) -> String {
    format!(
        "{}:{}:{obj}",
        activity.unwrap_or(NO_ACTIVITY),
        kind.as_str()
    )
}

/// The parts of an entry id, `None` when it is not one.
pub fn parse_entry_id(s: &str) -> Option<(Option<String>, ContributionType, String)> {
    let mut it = s.splitn(3, ':');
    let (a, t, o) = (it.next()?, it.next()?, it.next()?);
    let kind = ContributionType::parse(t)?;
    if a.is_empty() || o.is_empty() || !is_id(a) || !is_id(o) {
        return None;
    }
    let activity = (a != NO_ACTIVITY).then(|| a.to_owned());
    Some((activity, kind, o.to_owned()))
}

/// Ids of activities and objects: 1 to 64 ASCII letters, digits, `-`, `_`.
pub fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Two daily challenges whose days overlap (only one a day).
pub fn daily_overlap(a: &ActivityDef, b: &ActivityDef) -> bool {
    a.daily
        && b.daily
        && a.periods
            .iter()
            .any(|p| b.periods.iter().any(|q| p.start < q.end && q.start < p.end))
}

/// What an edit may change: a period that started keeps its start; one
/// that ended (or was judged) does not change; a live period's end may
/// move but not to `now` or before; started periods cannot be removed; new
/// periods end in the future; judging does not change once a period was
/// judged.
pub fn check_edit(
    old: &ActivityDef,
    closed: &[Option<i64>],
    judged: &[bool],
    new: &ActivityDef,
    now: i64,
) -> Result<(), String> {
    let judged_any = judged.iter().any(|j| *j);
    if judged_any && old.judging != new.judging {
        return Err("judging: cannot change after a period was judged".into());
    }
    for (i, o) in old.periods.iter().enumerate() {
        let status = period_status(o, closed_of(closed, i), judged.get(i).copied().unwrap_or(false), now);
        let started = status != PeriodStatus::Upcoming;
        let Some(n) = new.periods.get(i) else {
            if started {
                return Err(format!("periods[{i}]: a period that started cannot be removed"));
            }
            continue;
        };
        match status {
            PeriodStatus::Upcoming => {}
            PeriodStatus::Live => {
                if n.start != o.start {
                    return Err(format!("periods[{i}]: a live period keeps its start"));
                }
                if n.end <= now {
                    return Err(format!(
                        "periods[{i}]: a live period's end must stay in the future (close it instead)"
                    ));
                }
            }
            PeriodStatus::Closed | PeriodStatus::Judged => {
                if n != o {
                    return Err(format!("periods[{i}]: an ended period cannot change"));
                }
            }
        }
    }
    for (i, n) in new.periods.iter().enumerate().skip(old.periods.len()) {
        if n.end <= now {
            return Err(format!("periods[{i}]: a new period must end in the future"));
        }
    }
    Ok(())
}

/// Which activities a list asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFilter {
    All,
    Only(ActivityStatus),
}

impl ListFilter {
    pub fn parse(s: Option<&str>) -> Option<ListFilter> {
        match s.map(str::trim) {
            None | Some("") | Some("all") => Some(ListFilter::All),
            Some("live") => Some(ListFilter::Only(ActivityStatus::Live)),
            Some("upcoming") => Some(ListFilter::Only(ActivityStatus::Upcoming)),
            Some("ended") => Some(ListFilter::Only(ActivityStatus::Ended)),
            Some(_) => None,
        }
    }

    pub fn admits(self, s: ActivityStatus) -> bool {
        match self {
            ListFilter::All => true,
            ListFilter::Only(x) => x == s,
        }
    }
}

/// The list's order: live (ending soonest first), upcoming (starting
/// soonest first), ended (latest end first); then by id.
pub fn list_order(
    a: (ActivityStatus, i64, i64, &str),
    b: (ActivityStatus, i64, i64, &str),
) -> Ordering {
    let group = |s: ActivityStatus| match s {
        ActivityStatus::Live => 0,
        ActivityStatus::Upcoming => 1,
        ActivityStatus::Ended => 2,
    };
    group(a.0)
        .cmp(&group(b.0))
        .then_with(|| match a.0 {
            ActivityStatus::Live => a.2.cmp(&b.2),
            ActivityStatus::Upcoming => a.1.cmp(&b.1),
            ActivityStatus::Ended => b.2.cmp(&a.2),
        })
        .then_with(|| a.3.cmp(b.3))
}

/// Page sizes: 20 by default, 1 to 50.
pub fn page_size(n: Option<u32>) -> usize {
    n.unwrap_or(20).clamp(1, 50) as usize
}

/// An offset cursor (`"40"`); a malformed one is `InvalidParams`.
pub fn parse_offset(cursor: Option<&str>) -> Result<usize, ErrorCode> {
    match cursor.map(str::trim) {
        None | Some("") => Ok(0),
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= 1_000_000)
            .ok_or(ErrorCode::InvalidParams),
    }
}
