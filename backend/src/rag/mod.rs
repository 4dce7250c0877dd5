//! Documents become datacards (issue 22 part 7; spec 3 §7 `langflow/parse-rag-file`
//! and `langflow/progress`): the job rows, the service the routes call
//! (submit, progress, a character's imported cards), and the sweeper that
//! resumes jobs a stopped server left running.
//!
//! A submitted document is stored as an object (`rag/{job}/source`) and a
//! job row written (`rag_jobs`, listed in `rag_jobs_open` until it ends)
//! before the call answers; the work runs in a background task (see
//! [`job`]). Every step is recorded in the row, and the datacards get ids
//! made from the job's id and the part's number, created only if absent,
//! so a job run again after a crash continues where it stopped without
//! making a card twice. Jobs whose row has not moved for `stale` are taken
//! up again by the sweeper (at start and every `sweep_every`); after
//! [`MAX_ATTEMPTS`] runs, or past the job timeout (600 s, spec 3 §9), a job
//! fails with `ragJobInterrupted` and its reason.
//!
//! Only the owner sees a job; another account's job, or character, answers
//! like a missing one.

pub mod job;
pub mod parse;
pub mod retrieve;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use infra::bus::{DynBus, PushContent};
use infra::objects::DynObjects;
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::character::DatacardView;
use protocol::frame::FrameType;
use protocol::rag::{
    clean_file_name, DocKind, RagErrorView, RagJobView, RagState, MAX_RAG_FILE_BYTES,
    PROGRESS_TIMEOUT_SECS,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::accounts::now_millis;
use crate::characters::CharacterService;
use crate::error::{object_key, ApiError};
use crate::textfilter::TextFilterService;

/// Runs of one job before it is failed as interrupted.
pub const MAX_ATTEMPTS: u32 = 3;
/// Imported cards a new chat message brings into the prompt (besides the
/// session's own).
pub const RETRIEVED_PER_MESSAGE: usize = 3;
/// Jobs one account may have queued or running at once.
pub const MAX_OPEN_JOBS_PER_ACCOUNT: usize = 3;
/// The one partition of the open-jobs index.
const OPEN: &str = "open";

/// `rag_jobs` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RagJobRow {
    pub id: String,
    pub owner: String,
    pub character_id: Option<String>,
    pub file_name: String,
    /// The stored document (deleted when the job ends).
    pub source_key: String,
    pub size: u64,
    pub kind: Option<DocKind>,
    pub state: RagState,
    pub percent: u8,
    pub cards_made: u32,
    pub cards_total: u32,
    pub card_ids: Vec<String>,
    pub cards_refused: u32,
    pub truncated: bool,
    pub error: Option<RagErrorView>,
    pub attempts: u32,
    pub create_at: i64,
    pub update_at: i64,
}

impl RagJobRow {
    pub fn view(&self) -> RagJobView {
        RagJobView {
            id: self.id.clone(),
            state: self.state,
            percent: self.percent,
            cards_made: self.cards_made,
            cards_total: self.cards_total,
            card_ids: self.card_ids.clone(),
            cards_refused: self.cards_refused,
            character_id: self.character_id.clone(),
            file_name: self.file_name.clone(),
            kind: self.kind,
            truncated: self.truncated,
            error: self.error.clone(),
            create_at: self.create_at,
            update_at: self.update_at,
        }
    }

    fn open_ck(&self) -> Key {
        Key::empty().i64(self.create_at).str(&self.id)
    }
}

/// The operator's bounds (`EASEL_RAG_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RagSettings {
    /// `EASEL_RAG_MAX_BYTES`: largest document (10 MiB).
    pub max_bytes: usize,
    /// `EASEL_RAG_JOB_TIMEOUT_SECS`: longest run of a job (600).
    pub job_timeout: Duration,
    /// `EASEL_RAG_CONCURRENCY`: documents read at once on this node (1).
    pub concurrency: usize,
    /// `EASEL_RAG_SWEEP_SECS`: how often open jobs are looked at (30).
    pub sweep_every: Duration,
    /// `EASEL_RAG_STALE_SECS`: a job whose row has not moved for this long
    /// is run again (60).
    pub stale: Duration,
}

impl Default for RagSettings {
    fn default() -> Self {
        RagSettings {
            max_bytes: MAX_RAG_FILE_BYTES,
            job_timeout: Duration::from_secs(PROGRESS_TIMEOUT_SECS),
            concurrency: 1,
            sweep_every: Duration::from_secs(30),
            stale: Duration::from_secs(60),
        }
    }
}

impl RagSettings {
    pub fn from_env() -> anyhow::Result<RagSettings> {
        fn num(name: &str, default: u64) -> anyhow::Result<u64> {
            match std::env::var(name) {
                Ok(v) if !v.trim().is_empty() => v
                    .trim()
                    .parse::<u64>()
                    .map_err(|e| anyhow::anyhow!("{name}: {e}")),
                _ => Ok(default),
            }
        }
        let d = RagSettings::default();
        let max_bytes = num("EASEL_RAG_MAX_BYTES", d.max_bytes as u64)?;
        let concurrency = num("EASEL_RAG_CONCURRENCY", 1)?.clamp(1, 64);
        Ok(RagSettings {
            max_bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX),
            job_timeout: Duration::from_millis(num(
                "EASEL_RAG_JOB_TIMEOUT_MS",
                num("EASEL_RAG_JOB_TIMEOUT_SECS", PROGRESS_TIMEOUT_SECS)? * 1000,
            )?),
            concurrency: usize::try_from(concurrency).unwrap_or(1),
            sweep_every: Duration::from_millis(num(
                "EASEL_RAG_SWEEP_MS",
                num("EASEL_RAG_SWEEP_SECS", 30)? * 1000,
            )?),
            stale: Duration::from_millis(num(
                "EASEL_RAG_STALE_MS",
                num("EASEL_RAG_STALE_SECS", 60)? * 1000,
            )?),
        })
    }
}

#[derive(Clone)]
pub struct RagService {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) jobs: Table<RagJobRow>,
    /// pk "open" · ck (create_at, id) → owner.
    pub(crate) open: Table<String>,
    /// pk character · ck datacard id → owner.
    pub(crate) character_cards: Table<String>,
    pub(crate) objects: DynObjects,
    pub(crate) characters: CharacterService,
    pub(crate) text_filter: Option<TextFilterService>,
    pub(crate) bus: DynBus,
    pub(crate) settings: RagSettings,
    pub(crate) permits: Semaphore,
    /// Jobs running on this node (never run twice at once here).
    pub(crate) running: Mutex<HashSet<String>>,
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

impl RagService {
    pub fn new(
        store: DynStore,
        objects: DynObjects,
        characters: CharacterService,
        text_filter: Option<TextFilterService>,
        bus: DynBus,
        settings: RagSettings,
    ) -> RagService {
        RagService {
            inner: Arc::new(Inner {
                jobs: Table::new(store.clone(), &tables::RAG_JOBS),
                open: Table::new(store.clone(), &tables::RAG_JOBS_OPEN),
                character_cards: Table::new(store, &tables::RAG_CHARACTER_CARDS),
                objects,
                characters,
                text_filter,
                bus,
                permits: Semaphore::new(settings.concurrency.max(1)),
                settings,
                running: Mutex::new(HashSet::new()),
            }),
        }
    }

    pub fn settings(&self) -> &RagSettings {
        &self.inner.settings
    }

    /// A character `owner` owns: anything else (unknown, deleted, someone
    /// else's, even published) answers NotFound.
    async fn own_character(&self, owner: &str, id: &str) -> Result<String, ApiError> {
        let row = self.inner.characters.visible(Some(owner), id).await?;
        if row.owner != owner {
            return Err(ErrorCode::NotFound.into());
        }
        Ok(row.id)
    }

    /// `langflow/parse-rag-file`: checks the document (size, kind sniffed
    /// from its bytes) and the character, stores both, and starts the job.
    /// Answers the job's id at once.
    #[tracing::instrument(skip(self, bytes), fields(size = bytes.len()))]
    pub async fn submit(
        &self,
        owner: &str,
        bytes: Vec<u8>,
        file_name: &str,
        character_id: Option<&str>,
    ) -> Result<String, ApiError> {
        if bytes.len() > self.inner.settings.max_bytes {
            return Err(ApiError::with_msg(
                ErrorCode::RagFileTooLarge,
                format!(
                    "the document is too large (at most {} bytes)",
                    self.inner.settings.max_bytes
                ),
            ));
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ErrorCode::RagDocumentEmpty.into());
        }
        let file_name = clean_file_name(file_name);
        let kind = parse::sniff(&bytes, &file_name)
            .map_err(|e| ApiError::with_msg(e.code(), e.to_string()))?;
        let character_id = match character_id.map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => Some(self.own_character(owner, c).await?),
            None => None,
        };
        if self.open_jobs_of(owner).await? >= MAX_OPEN_JOBS_PER_ACCOUNT {
            return Err(ErrorCode::RagTooManyJobs.into());
        }
        let id = uuid::Uuid::now_v7().simple().to_string();
        let source_key = format!("rag/{id}/source");
        let content_type = match kind {
            DocKind::Pdf => "application/pdf",
            DocKind::Html => "text/html",
            DocKind::Markdown => "text/markdown",
            DocKind::Text => "text/plain",
        };
        let size = bytes.len() as u64;
        self.inner
            .objects
            .put(&object_key(&source_key)?, bytes, content_type)
            .await
            .map_err(ApiError::internal)?;
        let now = now_millis();
        let row = RagJobRow {
            id: id.clone(),
            owner: owner.to_owned(),
            character_id,
            file_name,
            source_key,
            size,
            kind: Some(kind),
            state: RagState::Queued,
            percent: 0,
            cards_made: 0,
            cards_total: 0,
            card_ids: Vec::new(),
            cards_refused: 0,
            truncated: false,
            error: None,
            attempts: 0,
            create_at: now,
            update_at: now,
        };
        // Listed as open first: a crash between the two writes leaves an
        // index entry without a row, which the sweeper drops.
        self.inner
            .open
            .put(&Key::of(OPEN), &row.open_ck(), &row.owner)
            .await?;
        self.inner
            .jobs
            .put(&Key::of(&id), &Key::empty(), &row)
            .await?;
        tracing::info!(job = %id, kind = kind.as_str(), size, "rag: document queued");
        self.spawn(id.clone());
        Ok(id)
    }

    /// `langflow/progress`: the owner's job, else NotFound.
    pub async fn progress(&self, owner: &str, id: &str) -> Result<RagJobView, ApiError> {
        Ok(self.own_job(owner, id).await?.view())
    }

    pub(crate) async fn job_row(&self, id: &str) -> Result<Option<RagJobRow>, ApiError> {
        if id.is_empty() || id.len() > 64 {
            return Ok(None);
        }
        Ok(self.inner.jobs.get(&Key::of(id), &Key::empty()).await?)
    }

    async fn own_job(&self, owner: &str, id: &str) -> Result<RagJobRow, ApiError> {
        self.job_row(id.trim())
            .await?
            .filter(|j| j.owner == owner)
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// `langflow/character-datacards`: the datacards documents made for the
    /// owner's character that still exist, oldest first.
    pub async fn character_cards(
        &self,
        owner: &str,
        character_id: &str,
    ) -> Result<Vec<DatacardView>, ApiError> {
        if character_id.trim().is_empty() {
            return Err(invalid("character_id is required"));
        }
        let character = self.own_character(owner, character_id.trim()).await?;
        let mut ids = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .inner
                .character_cards
                .scan(&Key::of(&character), &ScanRange::all(500).after(paging))
                .await?;
            for (ck, who) in page.rows {
                if who == owner {
                    if let Some(id) = ck.reader().str() {
                        ids.push(id);
                    }
                }
            }
            match page.paging {
                Some(p) if ids.len() < 5000 => paging = Some(p),
                _ => break,
            }
        }
        let rows = self.inner.characters.load_datacards(owner, &ids).await?;
        let mut views: Vec<DatacardView> =
            rows.iter().map(crate::characters::datacard_view).collect();
        views.sort_by(|a, b| a.create_at.cmp(&b.create_at).then(a.id.cmp(&b.id)));
        Ok(views)
    }

    /// How many of `owner`'s jobs are open.
    async fn open_jobs_of(&self, owner: &str) -> Result<usize, ApiError> {
        let page = self
            .inner
            .open
            .scan(&Key::of(OPEN), &ScanRange::all(1000))
            .await?;
        Ok(page.rows.iter().filter(|(_, o)| o == owner).count())
    }

    /// Runs the job in the background unless it already runs on this node.
    pub(crate) fn spawn(&self, id: String) {
        {
            let Ok(mut running) = self.inner.running.lock() else {
                return;
            };
            if !running.insert(id.clone()) {
                return;
            }
        }
        let me = self.clone();
        tokio::spawn(async move {
            me.run(&id).await;
            if let Ok(mut running) = me.inner.running.lock() {
                running.remove(&id);
            }
        });
    }

    pub(crate) fn is_running(&self, id: &str) -> bool {
        self.inner
            .running
            .lock()
            .map(|r| r.contains(id))
            .unwrap_or(false)
    }

    /// Publishes the job to its owner's sockets (Notification `rag.progress`).
    pub(crate) async fn publish(&self, row: &RagJobRow) {
        let mut content = serde_json::to_value(row.view()).unwrap_or_default();
        if let Some(o) = content.as_object_mut() {
            o.insert("kind".into(), "rag.progress".into());
            o.insert(
                "doc_kind".into(),
                serde_json::to_value(row.kind).unwrap_or_default(),
            );
        }
        self.inner
            .bus
            .push_to_users(
                std::slice::from_ref(&row.owner),
                FrameType::Notification.as_u16(),
                PushContent::from_value(&content),
            )
            .await;
    }

    /// Looks at every open job once (at `now`): ended ones leave the index,
    /// stale ones run again (or fail when they ran too often or too long).
    /// Answers how many were started.
    pub async fn sweep_once(&self, now: i64) -> Result<usize, ApiError> {
        let stale = i64::try_from(self.inner.settings.stale.as_millis()).unwrap_or(i64::MAX);
        let timeout =
            i64::try_from(self.inner.settings.job_timeout.as_millis()).unwrap_or(i64::MAX);
        let mut started = 0;
        let mut paging = None;
        loop {
            let page = self
                .inner
                .open
                .scan(&Key::of(OPEN), &ScanRange::all(500).after(paging))
                .await?;
            for (ck, _) in page.rows {
                let mut r = ck.reader();
                let (Some(_), Some(id)) = (r.i64(), r.str()) else {
                    self.inner.open.delete(&Key::of(OPEN), &ck).await?;
                    continue;
                };
                let Some(row) = self.job_row(&id).await? else {
                    // An index entry whose row was never written.
                    if now.saturating_sub(ck.reader().i64().unwrap_or(0)) > stale {
                        self.inner.open.delete(&Key::of(OPEN), &ck).await?;
                    }
                    continue;
                };
                if row.state.is_final() {
                    self.inner.open.delete(&Key::of(OPEN), &ck).await?;
                    continue;
                }
                if self.is_running(&id) || now.saturating_sub(row.update_at) < stale {
                    continue;
                }
                if row.attempts >= MAX_ATTEMPTS {
                    self.fail(
                        &id,
                        ErrorCode::RagJobInterrupted,
                        "the server stopped while the document was read, too often",
                    )
                    .await?;
                } else if now.saturating_sub(row.create_at) > timeout.saturating_add(stale) {
                    self.fail(
                        &id,
                        ErrorCode::RagJobInterrupted,
                        "the server stopped while the document was read, and its time is over",
                    )
                    .await?;
                } else {
                    tracing::info!(job = %id, state = ?row.state, "rag: resuming a job");
                    self.spawn(id);
                    started += 1;
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => break,
            }
        }
        Ok(started)
    }

    /// Sweeps at once and then every `sweep_every`, in the background.
    pub fn start(&self) {
        let me = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(me.inner.settings.sweep_every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(e) = me.sweep_once(now_millis()).await {
                    tracing::warn!(error = ?e.code, "rag: sweeping open jobs failed");
                }
            }
        });
    }
}
