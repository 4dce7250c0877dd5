//! Model ranking facts (issue 19 item 3; spec 3 §7 Model ranking): what
//! happened to each model, per UTC day and all time, per model and per
//! creator, written by [`ModelRanks::record`]; what each account did with
//! which model ([`UserMark`], for recommend and idempotent likes); which
//! models tasks use together (`recommend/pack`). The boards are computed
//! from these rows in `boards.rs` with the formula of
//! `protocol::models::rank`; creators' and post heroes' leaderboards are in
//! `leaders.rs`, the ranking survey in `survey.rs`.
//!
//! Every figure row is a value updated by compare-and-set (`Table::update`),
//! so concurrent events never lose a count. An event that carries a key (a
//! task id, a download id) is counted once: a `model_events_seen` row is
//! claimed first (insert-if-absent, kept for a retention: `seen.rs`). A
//! crash between the claim and the figures leaves that one event uncounted
//! (best effort, never doubled).

mod boards;
pub mod feed_order;
#[cfg(test)]
mod feed_tests;
mod leaders;
pub mod seen;
mod survey;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use infra::store::{tables, Counters, DynStore, Key, ScanRange, StoreResult, Table};
use protocol::models::rank::{utc_day, Window};
use protocol::models::survey::SurveyDef;
use protocol::models::{ModelStats, ModelView};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{model_view, ModelRow, ModelService};
use crate::accounts::now_millis;
use crate::error::ApiError;

pub use boards::{ModelFilter, WindowFigures};
pub use leaders::{CreatorRank, PostHero};
pub use survey::SurveyAnswerRow;

/// The environment variable of [`RankSettings::cache_ms`].
pub const CACHE_MS_ENV: &str = "EASEL_MODEL_RANK_CACHE_MS";
/// Models one task counts as used together at most (`record_co_use`).
pub const MAX_CO_USE: usize = 8;

/// How long computed boards are reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankSettings {
    /// Boards, leaderboards and category counts are recomputed when older
    /// than this (ms); figures also as soon as this node records an event,
    /// once they are a second old. 0: always recomputed.
    pub cache_ms: i64,
    /// Days before today whose keyed-event claims are kept (`seen.rs`).
    pub seen_retention_days: i64,
}

impl Default for RankSettings {
    fn default() -> Self {
        RankSettings {
            cache_ms: 10_000,
            seen_retention_days: seen::DEFAULT_RETENTION_DAYS,
        }
    }
}

impl RankSettings {
    /// From `EASEL_MODEL_RANK_CACHE_MS` (default 10000) and
    /// `EASEL_MODEL_EVENTS_RETENTION_DAYS` (default 8, at least 1); a value
    /// that is not a whole number is a start-up error.
    pub fn from_env() -> anyhow::Result<RankSettings> {
        let mut s = RankSettings::default();
        if let Ok(v) = std::env::var(CACHE_MS_ENV) {
            s.cache_ms = v
                .trim()
                .parse::<u32>()
                .map_err(|_| anyhow::anyhow!("{CACHE_MS_ENV} must be a whole number of ms"))?
                .into();
        }
        if let Ok(v) = std::env::var(seen::RETENTION_ENV) {
            s.seen_retention_days = v
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|d| *d >= 1)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{} must be a whole number of days (1 or more)",
                        seen::RETENTION_ENV
                    )
                })?
                .into();
        }
        Ok(s)
    }
}

/// What happened to a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelEvent {
    /// A task used it.
    Use,
    /// Its file was downloaded.
    Download,
    /// A like (+1) or its undo (-1).
    Like(i64),
    /// A collect (+1) or its undo (-1).
    Collect(i64),
    /// Its creator earned these credits from it.
    Earning(i64),
    /// Comments written (+n) or deleted (-n) on it.
    Comment(i64),
}

impl ModelEvent {
    fn apply(self, s: &mut ModelStats) {
        match self {
            ModelEvent::Use => s.uses += 1,
            ModelEvent::Download => s.downloads += 1,
            ModelEvent::Like(d) => s.likes += d,
            ModelEvent::Collect(d) => s.collects += d,
            ModelEvent::Earning(c) => s.earnings += c,
            ModelEvent::Comment(d) => s.comments += d,
        }
    }

    fn name(self) -> &'static str {
        match self {
            ModelEvent::Use => "use",
            ModelEvent::Download => "download",
            ModelEvent::Like(_) => "like",
            ModelEvent::Collect(_) => "collect",
            ModelEvent::Earning(_) => "earning",
            ModelEvent::Comment(_) => "comment",
        }
    }
}

/// What an account did with a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UserMark {
    pub uses: i64,
    pub liked: bool,
    pub collected: bool,
    pub last_at: i64,
}

/// Which reaction of [`ModelRanks::react`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelReaction {
    Like,
    Collect,
}

pub(crate) struct Inner {
    pub day: Table<ModelStats>,
    pub totals: Table<ModelStats>,
    pub creator_day: Table<ModelStats>,
    pub creator_totals: Table<ModelStats>,
    pub seen: Table<i64>,
    pub marks: Table<UserMark>,
    pub co_use: Table<i64>,
    pub surveys: Table<SurveyDef>,
    pub answers: Table<SurveyAnswerRow>,
    pub tallies: Counters,
    pub accounts: Table<crate::accounts::AccountRow>,
    pub models: ModelService,
    pub settings: RankSettings,
    /// Bumped by every event this node records (figures caches compare it).
    pub version: AtomicU64,
    pub figures: Mutex<HashMap<Window, (u64, Arc<WindowFigures>)>>,
    pub catalogue: Mutex<Option<Arc<boards::Catalogue>>>,
    pub heroes: Mutex<HashMap<Window, Arc<leaders::HeroBoard>>>,
    /// Days this node has listed in the claims' index (`seen.rs`).
    pub seen_days: Mutex<HashSet<i64>>,
    /// Ranked model feed orders being paged (`feed_order.rs`).
    pub feeds: feed_order::Snapshots,
}

/// The ranking service; cheap to clone.
#[derive(Clone)]
pub struct ModelRanks {
    pub(crate) inner: Arc<Inner>,
}

/// The bucket of the all-time partitions.
pub const ALL_TIME: i64 = 0;

/// Adds `ev` to a figures row, creating it when absent.
async fn add(t: &Table<ModelStats>, pk: &Key, ck: &Key, ev: ModelEvent) -> StoreResult<()> {
    let mut first = ModelStats::default();
    ev.apply(&mut first);
    if let Err(current) = t.insert_if_absent(pk, ck, &first).await? {
        t.update(pk, ck, Some(current), |s| ev.apply(s)).await?;
    }
    Ok(())
}

/// Every row of a partition, page by page (at most `max` rows).
pub(crate) async fn scan_all<V: Serialize + DeserializeOwned>(
    t: &Table<V>,
    pk: &Key,
    max: usize,
) -> StoreResult<Vec<(Key, V)>> {
    let mut out = Vec::new();
    let mut paging = None;
    loop {
        let page = t.scan(pk, &ScanRange::all(500).after(paging)).await?;
        out.extend(page.rows);
        match page.paging {
            Some(p) if out.len() < max => paging = Some(p),
            _ => return Ok(out),
        }
    }
}

impl ModelRanks {
    pub fn new(store: DynStore, settings: RankSettings) -> ModelRanks {
        ModelRanks {
            inner: Arc::new(Inner {
                day: Table::new(store.clone(), &tables::MODEL_DAY_FIGURES),
                totals: Table::new(store.clone(), &tables::MODEL_TOTALS),
                creator_day: Table::new(store.clone(), &tables::CREATOR_DAY_FIGURES),
                creator_totals: Table::new(store.clone(), &tables::CREATOR_TOTALS),
                seen: Table::new(store.clone(), &tables::MODEL_EVENTS_SEEN),
                marks: Table::new(store.clone(), &tables::MODEL_USER_MARKS),
                co_use: Table::new(store.clone(), &tables::MODEL_CO_USE),
                surveys: Table::new(store.clone(), &tables::RANK_SURVEYS),
                answers: Table::new(store.clone(), &tables::RANK_SURVEY_ANSWERS),
                tallies: Counters::new(store.clone(), &tables::RANK_SURVEY_TALLIES),
                accounts: Table::new(store.clone(), &tables::ACCOUNTS),
                models: ModelService::new(store),
                settings,
                version: AtomicU64::new(0),
                figures: Mutex::new(HashMap::new()),
                catalogue: Mutex::new(None),
                heroes: Mutex::new(HashMap::new()),
                seen_days: Mutex::new(HashSet::new()),
                feeds: feed_order::Snapshots::default(),
            }),
        }
    }

    /// Counts one event of `model_id` (created by `creator_id`) at `at_ms`:
    /// its day's and all-time figures and its creator's. With a `key` (a
    /// task id, a download id, a ledger entry) the same event is counted
    /// once however often it is recorded (within the retention of
    /// `seen.rs`; an older keyed event is not counted); answers whether it
    /// was counted now.
    pub async fn record(
        &self,
        model_id: &str,
        creator_id: &str,
        event: ModelEvent,
        at_ms: i64,
        key: Option<&str>,
    ) -> Result<bool, ApiError> {
        if let Some(k) = key {
            let seen = format!("{}:{k}:{model_id}", event.name());
            if !self.claim(&seen, at_ms, now_millis()).await? {
                return Ok(false);
            }
        }
        let i = &self.inner;
        let day = Key::empty().i64(utc_day(at_ms));
        let all = Key::empty().i64(ALL_TIME);
        let (m, c) = (Key::of(model_id), Key::of(creator_id));
        let (a, b, x, y) = tokio::join!(
            add(&i.day, &day, &m, event),
            add(&i.totals, &all, &m, event),
            add(&i.creator_day, &day, &c, event),
            add(&i.creator_totals, &all, &c, event),
        );
        a?;
        b?;
        x?;
        y?;
        i.version.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }

    /// [`Self::record`] in the background, failures logged: for callers on
    /// a hot path (task settlement, downloads) that must not wait or fail.
    pub fn record_soon(
        &self,
        model_id: &str,
        creator_id: &str,
        event: ModelEvent,
        at_ms: i64,
        key: Option<&str>,
    ) {
        let me = self.clone();
        let (m, c, k) = (
            model_id.to_owned(),
            creator_id.to_owned(),
            key.map(str::to_owned),
        );
        tokio::spawn(async move {
            if let Err(e) = me.record(&m, &c, event, at_ms, k.as_deref()).await {
                tracing::warn!(model = %m, error = %e, "model ranking event not counted");
            }
        });
    }

    /// A task used these models (`(model id, creator id)`): one use each
    /// (keyed by the task, so counted once), the account's marks (for
    /// recommend) and the pairs used together (`recommend/pack`).
    pub async fn task_used(
        &self,
        task_id: &str,
        account: Option<&str>,
        models: &[(String, String)],
        at_ms: i64,
    ) -> Result<(), ApiError> {
        let mut ids: Vec<String> = Vec::new();
        for (m, creator) in models {
            if ids.contains(m) {
                continue;
            }
            ids.push(m.clone());
            let counted = self
                .record(m, creator, ModelEvent::Use, at_ms, Some(task_id))
                .await?;
            if let (true, Some(a)) = (counted, account) {
                self.mark(a, m, at_ms, |k| k.uses += 1).await?;
            }
        }
        self.record_co_use(&ids, Some(task_id), at_ms).await
    }

    /// Models used together by one task at `at_ms`: each ordered pair
    /// counts one (at most [`MAX_CO_USE`] models; with a key, once).
    pub async fn record_co_use(
        &self,
        model_ids: &[String],
        key: Option<&str>,
        at_ms: i64,
    ) -> Result<(), ApiError> {
        let mut ids: Vec<&String> = Vec::new();
        for m in model_ids.iter().take(MAX_CO_USE) {
            if !ids.contains(&m) {
                ids.push(m);
            }
        }
        if ids.len() < 2 {
            return Ok(());
        }
        if let Some(k) = key {
            if !self.claim(&format!("co:{k}"), at_ms, now_millis()).await? {
                return Ok(());
            }
        }
        for a in &ids {
            for b in &ids {
                if a == b {
                    continue;
                }
                let (pk, ck) = (Key::of(a), Key::of(b));
                let t = &self.inner.co_use;
                if let Err(n) = t.insert_if_absent(&pk, &ck, &1).await? {
                    t.update(&pk, &ck, Some(n), |n| *n += 1).await?;
                }
            }
        }
        Ok(())
    }

    /// Changes an account's mark of a model (created when absent).
    async fn mark(
        &self,
        account: &str,
        model_id: &str,
        at_ms: i64,
        f: impl Fn(&mut UserMark),
    ) -> Result<UserMark, ApiError> {
        let (pk, ck) = (Key::of(account), Key::of(model_id));
        let mut first = UserMark::default();
        f(&mut first);
        first.last_at = at_ms;
        match self.inner.marks.insert_if_absent(&pk, &ck, &first).await? {
            Ok(()) => Ok(first),
            Err(cur) => Ok(self
                .inner
                .marks
                .update(&pk, &ck, Some(cur), |m| {
                    f(m);
                    m.last_at = m.last_at.max(at_ms);
                })
                .await?
                .unwrap_or(first)),
        }
    }

    /// A like or collect of a published model by `account` (`on`), or its
    /// undo: counted only when it changes the account's mark, so a double
    /// like counts once and an undo without a like counts nothing.
    /// Answers the account's mark after it.
    pub async fn react(
        &self,
        account: &str,
        model_id: &str,
        kind: ModelReaction,
        on: bool,
        at_ms: i64,
    ) -> Result<UserMark, ApiError> {
        let m = self.inner.models.model_for(model_id, Some(account)).await?;
        let (pk, ck) = (Key::of(account), Key::of(model_id));
        let flag = |k: &UserMark| match kind {
            ModelReaction::Like => k.liked,
            ModelReaction::Collect => k.collected,
        };
        let set = |k: &mut UserMark| match kind {
            ModelReaction::Like => k.liked = on,
            ModelReaction::Collect => k.collected = on,
        };
        let t = &self.inner.marks;
        let changed_to = loop {
            match t.get(&pk, &ck).await? {
                None => {
                    if !on {
                        return Ok(UserMark::default());
                    }
                    let mut k = UserMark {
                        last_at: at_ms,
                        ..UserMark::default()
                    };
                    set(&mut k);
                    if t.insert_if_absent(&pk, &ck, &k).await?.is_ok() {
                        break k;
                    }
                }
                Some(cur) => {
                    if flag(&cur) == on {
                        return Ok(cur);
                    }
                    let mut k = cur.clone();
                    set(&mut k);
                    k.last_at = k.last_at.max(at_ms);
                    if t.compare_and_set(&pk, &ck, &cur, Some(&k)).await?.is_ok() {
                        break k;
                    }
                }
            }
        };
        let d = if on { 1 } else { -1 };
        let ev = match kind {
            ModelReaction::Like => ModelEvent::Like(d),
            ModelReaction::Collect => ModelEvent::Collect(d),
        };
        self.record(&m.id, &m.owner, ev, at_ms, None).await?;
        Ok(changed_to)
    }

    /// A model's all-time figures (`ModelView.stats`).
    pub async fn stats(&self, model_id: &str) -> Result<ModelStats, ApiError> {
        Ok(self
            .inner
            .totals
            .get(&Key::empty().i64(ALL_TIME), &Key::of(model_id))
            .await?
            .unwrap_or_default())
    }

    /// Several models' all-time figures in one batched read (a model with
    /// none answers zeros): what [`Self::stats`] answers for each.
    pub async fn stats_many(&self, ids: &[&str]) -> Result<HashMap<String, ModelStats>, ApiError> {
        let all = Key::empty().i64(ALL_TIME);
        let keys: Vec<(Key, Key)> = ids.iter().map(|id| (all.clone(), Key::of(id))).collect();
        let rows = self.inner.totals.get_many(&keys).await?;
        Ok(ids
            .iter()
            .zip(rows)
            .map(|(id, s)| ((*id).to_owned(), s.unwrap_or_default()))
            .collect())
    }

    /// Models as `viewer` sees them with their live all-time figures, for
    /// lists: one batched read of their versions and one of their figures,
    /// however many models (the same answers as one `model_view` each).
    pub async fn views_of(
        &self,
        rows: &[ModelRow],
        viewer: Option<&str>,
    ) -> Result<Vec<ModelView>, ApiError> {
        let versions = self.inner.models.versions_of_many(rows).await?;
        let ids: Vec<&str> = rows.iter().map(|m| m.id.as_str()).collect();
        let stats = self.stats_many(&ids).await?;
        Ok(rows
            .iter()
            .zip(versions)
            .map(|(m, v)| {
                let s = stats.get(&m.id).copied().unwrap_or_default();
                model_view(m, &v, s, viewer)
            })
            .collect())
    }

    /// An account's marks, most recent first (at most `max`).
    pub async fn marks_of(
        &self,
        account: &str,
        max: usize,
    ) -> Result<Vec<(String, UserMark)>, ApiError> {
        let rows = scan_all(&self.inner.marks, &Key::of(account), max).await?;
        let mut out: Vec<(String, UserMark)> = rows
            .into_iter()
            .filter_map(|(ck, m)| ck.reader().str().map(|id| (id, m)))
            .collect();
        out.sort_by_key(|b| std::cmp::Reverse(b.1.last_at));
        out.truncate(max);
        Ok(out)
    }

    /// Drops every cached board (after a change a test must see at once).
    pub fn invalidate(&self) {
        self.inner.version.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut f) = self.inner.figures.lock() {
            f.clear();
        }
        if let Ok(mut c) = self.inner.catalogue.lock() {
            *c = None;
        }
        if let Ok(mut h) = self.inner.heroes.lock() {
            h.clear();
        }
    }
}
