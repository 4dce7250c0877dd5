//! Theme activities and contributions (issue 22 part 1; spec 3 §3, §5,
//! §7 "Activities and posts"; spec 1 §3's marks): operators define
//! activities (`admin.rs`), users contribute objects they own
//! (`commit.rs`) and vote (`votes.rs`), lists and pages read them
//! (`lists.rs`, `views.rs`), periods are judged by votes or operators'
//! picks and prizes paid through the ledger exactly once (`judging.rs`,
//! also run by a background sweep when a period ends), and work cards carry
//! the marks (`marks.rs`). The pure rules are `protocol::activity::rules`.
//!
//! Tables (prefix `activity_`, see `infra::store::tables`): the
//! definitions in one partition (operators make few), contributions by
//! (activity, object) with insert-if-absent so an object enters an
//! activity once, by period and time, and by account; per-period quotas by
//! compare-and-set; votes by insert-if-absent; results by insert-if-absent
//! so the first judging's list stands; marks by work.
//!
//! Time comes from an injected [`Clock`], so tests fix it.

pub mod admin;
pub mod commit;
mod forget;
pub mod judging;
pub mod lists;
pub mod marks;
pub mod objects;
#[cfg(test)]
mod tests;
mod views;
pub mod votes;

use std::sync::Arc;
use std::time::Duration;

use infra::store::{tables, Counters, DynStore, Key, ScanRange, Table};
use protocol::activity::{ActivityDef, ContributionType, Judging};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

pub use crate::accounts::lockout::{Clock, SystemClock};
use crate::credits::Ledger;
use crate::error::ApiError;
use marks::ActivityMarks;
use objects::Contributions;

/// The one partition of `activity_defs`.
const DEFS_PK: &str = "all";
/// Activities read at most (operators make few).
const DEFS_MAX: u32 = 2_000;
/// Contributions of one period read at most (judging, `top`).
const PERIOD_MAX: usize = 20_000;

/// An operator's activity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityRow {
    pub id: String,
    pub def: ActivityDef,
    /// The rules rendered and sanitised once, when saved.
    pub rules_html: String,
    /// Per period: when an operator closed it early.
    #[serde(default)]
    pub closed: Vec<Option<i64>>,
    /// Per period: its result is stored and its prizes are paid.
    #[serde(default)]
    pub judged: Vec<bool>,
    /// The operator who made it (the sender of winners' notifications).
    pub creator: String,
    pub create_at: i64,
    pub update_at: i64,
}

impl ActivityRow {
    pub fn closed_at(&self, period: u32) -> Option<i64> {
        self.closed.get(period as usize).copied().flatten()
    }

    pub fn is_judged(&self, period: u32) -> bool {
        self.judged.get(period as usize).copied().unwrap_or(false)
    }

    /// `closed` and `judged` padded to the periods' count.
    fn pad(&mut self) {
        let n = self.def.periods.len();
        self.closed.resize(n, None);
        self.judged.resize(n, false);
    }
}

/// A contribution (or a marker without activity).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryRow {
    pub entry_id: String,
    pub activity: Option<String>,
    pub period: Option<u32>,
    pub kind: ContributionType,
    pub obj_id: String,
    pub account: String,
    /// Committed at (ms).
    pub at: i64,
    /// The object's title and cover when it was committed.
    pub title: String,
    #[serde(default)]
    pub cover: Option<String>,
    /// Votes, kept by compare-and-set for lists; judging counts the vote rows.
    #[serde(default)]
    pub votes: i64,
}

/// The entry ids an account committed in one period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct QuotaRow {
    pub entries: Vec<String>,
}

/// A period's excellent list, stored once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    pub judged_at: i64,
    pub judging: Judging,
    pub winners: Vec<WinnerRow>,
    /// The operator who judged; `None` for the sweep.
    #[serde(default)]
    pub by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WinnerRow {
    pub rank: u32,
    pub entry_id: String,
    pub account: String,
    pub votes: i64,
    pub prize: i64,
}

pub(crate) struct Tables {
    pub defs: Table<ActivityRow>,
    pub entries: Table<EntryRow>,
    pub by_time: Table<()>,
    pub mine: Table<()>,
    pub quotas: Table<QuotaRow>,
    pub votes: Table<i64>,
    pub results: Table<ResultRow>,
    pub counts: Counters,
}

pub(crate) struct Inner {
    pub t: Tables,
    pub ledger: Ledger,
    pub objects: Arc<dyn Contributions>,
    pub clock: Arc<dyn Clock>,
    pub marks: ActivityMarks,
    /// For `acct_owned` (votes listed under their voter).
    pub store: DynStore,
}

/// The activities service; cheap to clone.
#[derive(Clone)]
pub struct ActivityService {
    pub(crate) inner: Arc<Inner>,
}

/// The partition of a contribution: its activity, or the account's markers.
pub(crate) fn entry_pk(activity: Option<&str>, account: &str) -> Key {
    match activity {
        Some(a) => Key::of(a),
        None => Key::of(&format!("publish:{account}")),
    }
}

pub(crate) fn entry_ck(kind: ContributionType, obj: &str) -> Key {
    Key::of(kind.as_str()).str(obj)
}

pub(crate) fn period_pk(activity: &str, period: u32) -> Key {
    Key::of(activity).u64(u64::from(period))
}

/// The counter of all periods in `activity_counts`.
pub(crate) fn all_periods_ck() -> Key {
    Key::of("all")
}

pub(crate) fn period_ck(period: u32) -> Key {
    Key::of("p").u64(u64::from(period))
}

impl ActivityService {
    pub fn new(
        store: DynStore,
        ledger: Ledger,
        objects: Arc<dyn Contributions>,
        clock: Arc<dyn Clock>,
        marks: ActivityMarks,
    ) -> ActivityService {
        ActivityService {
            inner: Arc::new(Inner {
                t: Tables {
                    defs: Table::new(store.clone(), &tables::ACTIVITY_DEFS),
                    entries: Table::new(store.clone(), &tables::ACTIVITY_ENTRIES),
                    by_time: Table::new(store.clone(), &tables::ACTIVITY_ENTRIES_BY_TIME),
                    mine: Table::new(store.clone(), &tables::ACTIVITY_MINE),
                    quotas: Table::new(store.clone(), &tables::ACTIVITY_QUOTAS),
                    votes: Table::new(store.clone(), &tables::ACTIVITY_VOTES),
                    results: Table::new(store.clone(), &tables::ACTIVITY_RESULTS),
                    counts: Counters::new(store.clone(), &tables::ACTIVITY_COUNTS),
                },
                store,
                ledger,
                objects,
                clock,
                marks,
            }),
        }
    }

    pub fn now(&self) -> i64 {
        self.inner.clock.now_millis()
    }

    pub fn marks(&self) -> &ActivityMarks {
        &self.inner.marks
    }

    /// Loads the card marks, then keeps them fresh (`reload_every`, when
    /// other nodes share the bus) and judges ended periods every
    /// `sweep_every`.
    pub fn start(&self, sweep_every: Duration, reload_every: Option<Duration>) {
        let marks = self.inner.marks.clone();
        tokio::spawn(async move {
            if let Err(e) = marks.load().await {
                tracing::error!(error = %e, "activities: loading the card marks failed");
            }
            let Some(every) = reload_every else { return };
            loop {
                tokio::time::sleep(every).await;
                if let Err(e) = marks.load().await {
                    tracing::warn!(error = %e, "activities: reloading the card marks failed");
                }
            }
        });
        judging::start_sweeper(self.clone(), sweep_every);
    }

    /// An activity by id; unknown (or a malformed id): `activityNotFound`.
    pub async fn activity(&self, id: &str) -> Result<ActivityRow, ApiError> {
        if !protocol::activity::rules::is_id(id) {
            return Err(ErrorCode::ActivityNotFound.into());
        }
        self.inner
            .t
            .defs
            .get(&Key::of(DEFS_PK), &Key::of(id))
            .await?
            .ok_or_else(|| ErrorCode::ActivityNotFound.into())
    }

    /// Every activity (at most [`DEFS_MAX`]).
    pub async fn all(&self) -> Result<Vec<ActivityRow>, ApiError> {
        let page = self
            .inner
            .t
            .defs
            .scan(&Key::of(DEFS_PK), &ScanRange::all(DEFS_MAX))
            .await?;
        Ok(page.rows.into_iter().map(|(_, r)| r).collect())
    }

    /// Every contribution of a period in commit order (at most [`PERIOD_MAX`]).
    pub(crate) async fn period_entries(
        &self,
        activity: &str,
        period: u32,
    ) -> Result<Vec<EntryRow>, ApiError> {
        let pk = period_pk(activity, period);
        let mut keys = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .inner
                .t
                .by_time
                .scan(&pk, &ScanRange::all(1000).after(paging))
                .await?;
            for (k, _) in page.rows {
                let mut r = k.reader();
                let (Some(_at), Some(id)) = (r.i64(), r.str()) else {
                    continue;
                };
                keys.push(id);
            }
            match page.paging {
                Some(p) if keys.len() < PERIOD_MAX => paging = Some(p),
                _ => break,
            }
        }
        self.entries_by_ids(&keys, None).await
    }

    /// Contributions by entry id, in order, those gone left out. Markers
    /// (no activity) need their account: `account`.
    pub(crate) async fn entries_by_ids(
        &self,
        ids: &[String],
        account: Option<&str>,
    ) -> Result<Vec<EntryRow>, ApiError> {
        let keys: Vec<(Key, Key)> = ids
            .iter()
            .filter_map(|id| {
                let (activity, kind, obj) = protocol::activity::rules::parse_entry_id(id)?;
                let pk = match (&activity, account) {
                    (Some(a), _) => entry_pk(Some(a.as_str()), ""),
                    (None, Some(acc)) => entry_pk(None, acc),
                    (None, None) => return None,
                };
                Some((pk, entry_ck(kind, &obj)))
            })
            .collect();
        let mut out = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(500) {
            out.extend(
                self.inner
                    .t
                    .entries
                    .get_many(chunk)
                    .await?
                    .into_iter()
                    .flatten(),
            );
        }
        Ok(out)
    }

    /// One contribution to an activity by entry id, else NotFound.
    pub(crate) async fn entry(&self, entry_id: &str) -> Result<(ActivityRow, EntryRow), ApiError> {
        let (activity, kind, obj) =
            protocol::activity::rules::parse_entry_id(entry_id).ok_or(ErrorCode::NotFound)?;
        let activity = activity.ok_or(ErrorCode::NotFound)?;
        let row = self
            .activity(&activity)
            .await
            .map_err(|_| ApiError::from(ErrorCode::NotFound))?;
        let e = self
            .inner
            .t
            .entries
            .get(&entry_pk(Some(&activity), ""), &entry_ck(kind, &obj))
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok((row, e))
    }

    /// Which of `entries` still show in shared lists.
    pub(crate) async fn shown(&self, entries: &[EntryRow]) -> Result<Vec<bool>, ApiError> {
        let objs: Vec<(ContributionType, &str)> = entries
            .iter()
            .map(|e| (e.kind, e.obj_id.as_str()))
            .collect();
        self.inner.objects.shown(&objs).await
    }
}

/// `EASEL_ACTIVITY_SWEEP_SECS` (60): how often ended periods are judged.
pub fn sweep_every_from_env() -> anyhow::Result<Duration> {
    let secs = match std::env::var("EASEL_ACTIVITY_SWEEP_SECS") {
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|s| *s >= 1)
            .ok_or_else(|| {
                anyhow::anyhow!("EASEL_ACTIVITY_SWEEP_SECS: a whole number of seconds, at least 1")
            })?,
        Err(_) => 60,
    };
    Ok(Duration::from_secs(secs))
}
