//! The square (spec 3 §1-§3, §7; issue 15): published works, feeds, likes,
//! collects, follows, profiles, notifications and search.
//!
//! The Store is the truth (tables `works*`, `work_likes`, `liked*`,
//! `collected*`, `work_counts`, `follows`, `followers`, `account_counts`,
//! `profiles`, `notifications*`, `search_*`). Two indexes are built from it
//! and can always be rebuilt: the in-memory feed [`index::Index`] (cards
//! and counters, hot snapshots) and the full-text search index on disk.
//! A write goes to the Store first, then to this node's indexes, then on the
//! bus topic [`CHANGES_TOPIC`] so other nodes re-read the work from the
//! Store.

pub mod activity;
pub mod cards;
pub mod cursor;
pub mod detail;
pub mod feeds;
pub mod index;
pub mod markdown;
pub mod model_works;
pub mod moderation;
pub mod notify;
pub mod nsfw_view;
pub mod row;
pub mod search;
pub mod seed;
pub mod social;
pub mod targets;
mod undo;
pub mod works;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use infra::bus::{BusMessage, DynBus, PushContent, Received};
use infra::config::SquareSettings;
use infra::objects::DynObjects;
use infra::store::{tables, Counters, DynStore, Key, ScanRange, Table};
use protocol::account::status;
use protocol::ErrorCode;
use tokio::sync::watch;

use self::index::{Author, Counts, Entry, Index, Personal};
use self::row::{NotificationRow, ProfileRow, WorkRow};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::ratelimit::RateLimiter;
use crate::tasks::row::TaskRow;

/// Bus topic on which nodes announce changed works (`{"id", "node"}`).
pub const CHANGES_TOPIC: &str = "square:changes";
/// Buckets of `works_all`.
pub const WORK_BUCKETS: u64 = 16;
/// Personal recommend orders kept in memory (viewer × snapshot).
const PERSONAL_CACHE: usize = 4096;

pub(crate) fn bucket_of(id: &str) -> u64 {
    id.bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        % WORK_BUCKETS
}

/// The counter names of `work_counts` and `account_counts`.
pub mod count {
    pub const LIKES: &str = "likes";
    pub const COLLECTS: &str = "collects";
    pub const COMMENTS: &str = "comments";
    pub const VIEWS: &str = "views";
    /// Plays of a video post (`ai-video/play`).
    pub const PLAYS: &str = "plays";
    pub const FOLLOWERS: &str = "followers";
    pub const FOLLOWING: &str = "following";
    pub const WORKS: &str = "works";
    pub const LIKES_RECEIVED: &str = "likes_received";
}

/// The tables the square uses.
pub(crate) struct Tables {
    pub works: Table<WorkRow>,
    pub by_author: Table<()>,
    pub all: Table<()>,
    pub work_likes: Table<i64>,
    pub work_collects: Table<i64>,
    pub liked: Table<i64>,
    pub liked_by_time: Table<()>,
    pub collected: Table<i64>,
    pub collected_by_time: Table<()>,
    pub work_counts: Counters,
    pub follows: Table<i64>,
    pub followers: Table<i64>,
    pub account_counts: Counters,
    pub profiles: Table<ProfileRow>,
    pub accounts: Table<AccountRow>,
    pub tasks: Table<TaskRow>,
    pub notifications: Table<NotificationRow>,
    pub notifications_read: Table<i64>,
    pub img_use: Table<row::ImgUseRow>,
    pub model_works: crate::models::works::ModelWorks,
    /// Which notification kinds each account turned off (`account/prefs`).
    pub prefs: Table<crate::accounts::profile::PrefsRow>,
}

impl Tables {
    fn new(store: DynStore) -> Tables {
        Tables {
            works: Table::new(store.clone(), &tables::WORKS),
            by_author: Table::new(store.clone(), &tables::WORKS_BY_AUTHOR),
            all: Table::new(store.clone(), &tables::WORKS_ALL),
            work_likes: Table::new(store.clone(), &tables::WORK_LIKES),
            work_collects: Table::new(store.clone(), &tables::WORK_COLLECTS),
            liked: Table::new(store.clone(), &tables::LIKED),
            liked_by_time: Table::new(store.clone(), &tables::LIKED_BY_TIME),
            collected: Table::new(store.clone(), &tables::COLLECTED),
            collected_by_time: Table::new(store.clone(), &tables::COLLECTED_BY_TIME),
            work_counts: Counters::new(store.clone(), &tables::WORK_COUNTS),
            follows: Table::new(store.clone(), &tables::FOLLOWS),
            followers: Table::new(store.clone(), &tables::FOLLOWERS),
            account_counts: Counters::new(store.clone(), &tables::ACCOUNT_COUNTS),
            profiles: Table::new(store.clone(), &tables::PROFILES),
            accounts: Table::new(store.clone(), &tables::ACCOUNTS),
            tasks: Table::new(store.clone(), &tables::TASKS),
            notifications: Table::new(store.clone(), &tables::NOTIFICATIONS),
            notifications_read: Table::new(store.clone(), &tables::NOTIFICATIONS_READ),
            img_use: Table::new(store.clone(), &tables::IMG_USE),
            model_works: crate::models::works::ModelWorks::new(store.clone()),
            prefs: Table::new(store, &tables::SESS_PREFS),
        }
    }
}

/// Per-kind write limits (likes, collects, follows, publishes, ...).
pub(crate) struct Limits {
    limiter: RateLimiter,
}

impl Limits {
    pub async fn check(&self, account: &str, kind: &str) -> Result<(), ApiError> {
        if self.limiter.check(&format!("{kind}:{account}")).await {
            Ok(())
        } else {
            Err(ApiError::with_msg(
                ErrorCode::TooManyRequests,
                format!("too many {kind} in a minute; try again shortly"),
            ))
        }
    }
}

pub(crate) struct Inner {
    pub t: Tables,
    pub index: RwLock<Index>,
    /// Personal recommend orders by (viewer, snapshot epoch). A std mutex:
    /// a map lookup, never held across an await.
    pub personal: Mutex<HashMap<(String, i64), Arc<Personal>>>,
    pub bus: DynBus,
    pub objects: DynObjects,
    pub limits: Limits,
    pub settings: SquareSettings,
    /// Tells other nodes' messages from this node's own.
    pub node: String,
    /// The full-text index (`None` when it could not be opened: search
    /// then answers nothing and the server says why in its log).
    pub search: Option<::search::SearchIndex>,
    pub search_history: Table<i64>,
    pub search_terms: Table<()>,
    pub search_counts: Counters,
    /// True once the index has been filled from the Store.
    pub ready: watch::Receiver<bool>,
    pub ready_tx: watch::Sender<bool>,
    /// The ornament shop's view (authors' avatar ornaments, works' frames),
    /// when the app hands one over.
    pub decor: std::sync::OnceLock<crate::ornaments::Decor>,
    /// The operator's NSFW thresholds cards are rated with.
    pub nsfw_levels: std::sync::OnceLock<nsfw_view::Levels>,
    /// The theme activities' marks on work cards, when the app hands them over.
    pub activity_marks: std::sync::OnceLock<crate::activities::marks::ActivityMarks>,
}

/// The square service; cheap to clone.
#[derive(Clone)]
pub struct SquareService {
    pub(crate) inner: Arc<Inner>,
}

impl SquareService {
    pub fn new(
        store: DynStore,
        bus: DynBus,
        objects: DynObjects,
        settings: SquareSettings,
        search_dir: &std::path::Path,
        rate_limits: &crate::ratelimit::RateLimits,
    ) -> SquareService {
        let (ready_tx, ready) = watch::channel(false);
        let search = match ::search::SearchIndex::open_with(
            search_dir,
            ::search::SearchOptions {
                commit_interval: Duration::from_millis(settings.search_commit_ms.max(1)),
                ..Default::default()
            },
        ) {
            Ok(ix) => Some(ix),
            Err(e) => {
                tracing::error!(error = %e, dir = %search_dir.display(), "search: the index could not be opened; search is off");
                None
            }
        };
        SquareService {
            inner: Arc::new(Inner {
                search,
                search_history: Table::new(store.clone(), &tables::SEARCH_HISTORY),
                search_terms: Table::new(store.clone(), &tables::SEARCH_TERMS),
                search_counts: Counters::new(store.clone(), &tables::SEARCH_COUNTS),
                t: Tables::new(store),
                index: RwLock::new(Index::default()),
                personal: Mutex::new(HashMap::new()),
                bus,
                objects,
                limits: Limits {
                    limiter: rate_limits.limiter(
                        "square_writes",
                        settings.writes_per_min.max(1),
                        Duration::from_secs(60),
                    ),
                },
                settings,
                node: uuid::Uuid::now_v7().simple().to_string(),
                ready,
                ready_tx,
                decor: std::sync::OnceLock::new(),
                nsfw_levels: std::sync::OnceLock::new(),
                activity_marks: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Shows the ornaments worn on cards, pages and notifications.
    pub fn with_decor(self, decor: crate::ornaments::Decor) -> SquareService {
        let _ = self.inner.decor.set(decor);
        self
    }

    /// Fills the feed index from the Store in the background, then keeps
    /// hot snapshots fresh and listens for other nodes' changes. Feed calls
    /// wait until the index is filled.
    pub fn start(&self) {
        let me = self.clone();
        tokio::spawn(async move {
            if let Err(e) = me.load_index().await {
                tracing::error!(error = %e, "square: filling the feed index failed");
            }
            let _ = me.inner.ready_tx.send(true);
            me.take_snapshot().await;
            let every = Duration::from_millis(me.inner.settings.rank_ms.max(10));
            loop {
                tokio::time::sleep(every).await;
                me.take_snapshot().await;
            }
        });
        if !self.shared_bus() {
            return;
        }
        let me = self.clone();
        let mut sub = self.inner.bus.subscribe(CHANGES_TOPIC);
        tokio::spawn(async move {
            let mut last_reload = std::time::Instant::now();
            loop {
                match sub.recv().await {
                    Received::Message(m) | Received::Numbered(_, m) => {
                        if let BusMessage::Push { content, .. } = &*m {
                            me.on_change_message(content.as_str()).await;
                        }
                    }
                    Received::Lagged(n) => {
                        // Messages were lost: refill from the Store, at most
                        // once a minute however often the bus lags.
                        tracing::warn!(lost = n, "square: change messages lost");
                        if last_reload.elapsed() >= Duration::from_secs(60) {
                            last_reload = std::time::Instant::now();
                            let _ = me.load_index().await;
                        }
                    }
                    Received::Closed => break,
                }
            }
        });
    }

    /// Whether other nodes share this node's bus (Redis): only then are
    /// changes announced and listened for.
    fn shared_bus(&self) -> bool {
        self.inner.bus.backend_name() != "local"
    }

    async fn on_change_message(&self, text: &str) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
            return;
        };
        if v.get("node").and_then(|n| n.as_str()) == Some(self.inner.node.as_str()) {
            return;
        }
        if let Some(id) = v.get("id").and_then(|i| i.as_str()) {
            if let Err(e) = self.reload_work(id).await {
                tracing::warn!(work = id, error = %e, "square: could not reload a changed work");
            }
            // Each node has its own search index: another node's publish,
            // edit, hide or delete reaches this one's here.
            match self.inner.t.works.get(&Key::of(id), &Key::empty()).await {
                Ok(Some(w)) => self.search_upsert_work(&w).await,
                Ok(None) => self.search_delete_work(id).await,
                Err(e) => tracing::warn!(work = id, error = %e, "square: search not refreshed"),
            }
        }
        if let Some(a) = v.get("author").and_then(|i| i.as_str()) {
            let _ = self.reload_author(a).await;
            self.search_upsert_account(a).await;
        }
    }

    /// Waits until the index is filled.
    pub(crate) async fn ready(&self) {
        let mut r = self.inner.ready.clone();
        let _ = r.wait_for(|v| *v).await;
    }

    /// Ranks on a blocking thread under the read lock (feeds go on), then
    /// keeps the snapshot under a short write lock.
    async fn take_snapshot(&self) {
        let me = self.clone();
        let made = tokio::task::spawn_blocking(move || {
            me.inner
                .index
                .read()
                .ok()
                .map(|ix| Arc::new(ix.rank_now(now_millis())))
        })
        .await;
        if let (Ok(Some(s)), Ok(mut ix)) = (made, self.inner.index.write()) {
            ix.push_snapshot(s);
        }
        if let Ok(mut p) = self.inner.personal.lock() {
            let keep: HashSet<i64> = self
                .inner
                .index
                .read()
                .map(|ix| ix.newest_snapshot().map(|s| s.epoch).into_iter().collect())
                .unwrap_or_default();
            if p.len() > PERSONAL_CACHE / 2 {
                p.retain(|(_, e), _| keep.contains(e));
            }
        }
    }

    /// Reads every work from the Store into a fresh index.
    pub async fn load_index(&self) -> Result<usize, ApiError> {
        use futures_util::stream::{self, StreamExt, TryStreamExt};
        let ids = self.all_work_ids().await?;
        // Many reads in flight: the store batches them (and a remote one
        // overlaps its round trips).
        let works: Vec<(WorkRow, Counts)> = stream::iter(ids)
            .map(|id: String| {
                let me = self.clone();
                async move {
                    match me.inner.t.works.get(&Key::of(&id), &Key::empty()).await? {
                        Some(w) => Ok::<_, ApiError>(Some((w, me.counts(&id).await?))),
                        None => Ok(None),
                    }
                }
            })
            .buffer_unordered(64)
            .try_filter_map(|x| std::future::ready(Ok(x)))
            .try_collect()
            .await?;
        let authors: HashSet<String> = works.iter().map(|(w, _)| w.author.clone()).collect();
        let authors: Vec<(String, Author)> = stream::iter(authors)
            .map(|a: String| {
                let me = self.clone();
                async move {
                    let author = me.author_from_store(&a).await?;
                    Ok::<_, ApiError>((a, author))
                }
            })
            .buffer_unordered(64)
            .try_collect()
            .await?;
        let mut fresh = Index::default();
        for (id, a) in authors {
            fresh.set_author(&id, a);
        }
        for (w, counts) in &works {
            fresh.upsert(Entry::from_row(w, *counts));
        }
        let n = fresh.len();
        if let Ok(mut ix) = self.inner.index.write() {
            // Keep the snapshots already taken: their cursors stay valid.
            let old = std::mem::take(&mut *ix);
            *ix = fresh;
            ix.adopt_snapshots(old);
        }
        tracing::info!(works = n, "square: feed index filled from the store");
        Ok(n)
    }

    /// A work's counters from the Store.
    pub(crate) async fn counts(&self, id: &str) -> Result<Counts, ApiError> {
        let c = &self.inner.t.work_counts;
        let pk = Key::of(id);
        Ok(Counts {
            likes: c.get(&pk, &Key::of(count::LIKES)).await?,
            collects: c.get(&pk, &Key::of(count::COLLECTS)).await?,
            comments: c.get(&pk, &Key::of(count::COMMENTS)).await?,
            views: c.get(&pk, &Key::of(count::VIEWS)).await?,
        })
    }

    pub(crate) async fn author_from_store(&self, id: &str) -> Result<Author, ApiError> {
        let acc = self
            .inner
            .t
            .accounts
            .get(&Key::of(id), &Key::empty())
            .await?;
        let prof = self
            .inner
            .t
            .profiles
            .get(&Key::of(id), &Key::empty())
            .await?;
        Ok(match acc {
            Some(a) => Author {
                name: a.name,
                avatar: prof.and_then(|p| p.avatar),
                banned: a.status == status::DISABLED,
            },
            None => Author {
                name: String::new(),
                avatar: None,
                banned: true,
            },
        })
    }

    /// Re-reads an author (after a ban, an unban, a name or avatar change).
    pub async fn reload_author(&self, id: &str) -> Result<(), ApiError> {
        let a = self.author_from_store(id).await?;
        if let Ok(mut ix) = self.inner.index.write() {
            ix.set_author(id, a);
        }
        Ok(())
    }

    /// Re-reads a work from the Store into the index (gone: removed).
    pub async fn reload_work(&self, id: &str) -> Result<(), ApiError> {
        let row = self.inner.t.works.get(&Key::of(id), &Key::empty()).await?;
        match row {
            Some(w) => self.put_in_index(&w).await?,
            None => {
                if let Ok(mut ix) = self.inner.index.write() {
                    ix.remove(id);
                }
            }
        }
        Ok(())
    }

    /// Puts a work as stored (with its counters, and its author when the
    /// index does not know them yet) into this node's feed index.
    pub(crate) async fn put_in_index(&self, w: &WorkRow) -> Result<(), ApiError> {
        let counts = self.counts(&w.id).await?;
        let need_author = self
            .inner
            .index
            .read()
            .map(|ix| !ix.has_author(&w.author))
            .unwrap_or(true);
        if need_author {
            self.reload_author(&w.author).await?;
        }
        if let Ok(mut ix) = self.inner.index.write() {
            ix.upsert(Entry::from_row(w, counts));
        }
        Ok(())
    }

    /// The ids of every work in the Store (from `works_all`).
    pub(crate) async fn all_work_ids(&self) -> Result<Vec<String>, ApiError> {
        let mut ids = Vec::new();
        for b in 0..WORK_BUCKETS {
            let mut paging = None;
            loop {
                let page = self
                    .inner
                    .t
                    .all
                    .scan(&Key::empty().u64(b), &ScanRange::all(1000).after(paging))
                    .await?;
                ids.extend(page.rows.iter().filter_map(|(k, ())| k.reader().str()));
                match page.paging {
                    Some(p) => paging = Some(p),
                    None => break,
                }
            }
        }
        Ok(ids)
    }

    /// Tells other nodes that a work (or an author) changed.
    pub(crate) async fn announce(&self, work: Option<&str>, author: Option<&str>) {
        if !self.shared_bus() {
            return;
        }
        let content = PushContent::from_value(&serde_json::json!({
            "id": work,
            "author": author,
            "node": self.inner.node,
        }));
        self.inner
            .bus
            .publish(
                CHANGES_TOPIC,
                BusMessage::Push {
                    frame_type: 0,
                    content,
                },
            )
            .await;
    }

    /// Changes a counter of a work in the Store and in the index.
    pub(crate) async fn bump(&self, id: &str, name: &str, delta: i64) -> Result<(), ApiError> {
        self.inner
            .t
            .work_counts
            .add(&Key::of(id), &Key::of(name), delta)
            .await?;
        if let Ok(mut ix) = self.inner.index.write() {
            if let Some(c) = ix.counts_mut(id) {
                match name {
                    count::LIKES => c.likes += delta,
                    count::COLLECTS => c.collects += delta,
                    count::COMMENTS => c.comments += delta,
                    count::VIEWS => c.views += delta,
                    _ => {}
                }
            }
        }
        Ok(())
    }

    pub(crate) async fn bump_account(
        &self,
        id: &str,
        name: &str,
        delta: i64,
    ) -> Result<(), ApiError> {
        Ok(self
            .inner
            .t
            .account_counts
            .add(&Key::of(id), &Key::of(name), delta)
            .await?)
    }

    pub(crate) async fn account_count(&self, id: &str, name: &str) -> Result<i64, ApiError> {
        Ok(self
            .inner
            .t
            .account_counts
            .get(&Key::of(id), &Key::of(name))
            .await?
            .max(0))
    }
}
