//! What feeds, pages and comments show of the ornament shop, cheaply: the
//! catalogue (ornament id → image URL), what each account wears and the
//! frame each work wears, kept in memory on this node.
//!
//! A page of cards costs no store read when every author and work on it
//! was seen in the last minute, and at most two batched reads (`get_many`)
//! for those that were not; with an empty catalogue (no ornament exists)
//! nothing is read at all. This node's wears and frames update the maps at
//! once; other nodes' are seen within [`TTL`].

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::ornament::{Ornament, Slot};
use protocol::square::card::{Card, ObjType};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// How long a cached entry (and the catalogue) is trusted.
pub const TTL: Duration = Duration::from_secs(60);
/// Entries per map before it is emptied (a bound on memory, not an LRU).
const CAP: usize = 100_000;
/// The catalogue's partition.
pub(crate) const BUCKET: &str = "0";

/// `ORNAMENTS_WORN` (pk account, ck slot).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WornRow {
    pub ornament_id: String,
    pub at: i64,
}

/// `WORK_FRAMES` (pk work, ck ()).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkFrameRow {
    pub ornament_id: String,
    /// The work's author, who set it.
    pub account: String,
    pub at: i64,
}

/// The ornament ids an account wears.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountWear {
    pub avatar: Option<String>,
    pub work_frame: Option<String>,
}

impl AccountWear {
    pub fn get(&self, slot: Slot) -> Option<&String> {
        match slot {
            Slot::Avatar => self.avatar.as_ref(),
            Slot::WorkFrame => self.work_frame.as_ref(),
        }
    }
    fn set(&mut self, slot: Slot, id: Option<String>) {
        match slot {
            Slot::Avatar => self.avatar = id,
            Slot::WorkFrame => self.work_frame = id,
        }
    }
}

struct Cached<T> {
    v: T,
    at: Instant,
}

#[derive(Default)]
struct Catalogue {
    by_id: HashMap<String, Ornament>,
    loaded: Option<Instant>,
}

struct Inner {
    ornaments: Table<Ornament>,
    worn: Table<WornRow>,
    frames: Table<WorkFrameRow>,
    catalogue: RwLock<Catalogue>,
    accounts: Mutex<HashMap<String, Cached<AccountWear>>>,
    works: Mutex<HashMap<String, Cached<Option<String>>>>,
}

/// The in-memory view; cheap to clone.
#[derive(Clone)]
pub struct Decor {
    inner: Arc<Inner>,
}

impl Decor {
    pub fn new(store: DynStore) -> Decor {
        Decor {
            inner: Arc::new(Inner {
                ornaments: Table::new(store.clone(), &tables::ORNAMENTS),
                worn: Table::new(store.clone(), &tables::ORNAMENTS_WORN),
                frames: Table::new(store, &tables::WORK_FRAMES),
                catalogue: RwLock::new(Catalogue::default()),
                accounts: Mutex::new(HashMap::new()),
                works: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Every ornament, read from the Store (the catalogue is small).
    pub async fn read_catalogue(&self) -> Result<Vec<Ornament>, ApiError> {
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .inner
                .ornaments
                .scan(&Key::of(BUCKET), &ScanRange::all(500).after(paging))
                .await?;
            out.extend(page.rows.into_iter().map(|(_, o)| o));
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok(out),
            }
        }
    }

    /// Reloads the catalogue now (after an operator's change on this node).
    pub async fn reload(&self) -> Result<Vec<Ornament>, ApiError> {
        let all = self.read_catalogue().await?;
        if let Ok(mut c) = self.inner.catalogue.write() {
            c.by_id = all
                .iter()
                .map(|o| (o.ornament_id.clone(), o.clone()))
                .collect();
            c.loaded = Some(Instant::now());
        }
        Ok(all)
    }

    /// The catalogue, reloaded when older than [`TTL`].
    async fn fresh(&self) {
        let stale = self
            .inner
            .catalogue
            .read()
            .map(|c| c.loaded.is_none_or(|t| t.elapsed() > TTL))
            .unwrap_or(true);
        if stale {
            if let Err(e) = self.reload().await {
                tracing::warn!(error = %e, "ornaments: reading the catalogue failed");
            }
        }
    }

    fn catalogue_empty(&self) -> bool {
        self.inner
            .catalogue
            .read()
            .map(|c| c.by_id.is_empty())
            .unwrap_or(true)
    }

    /// An ornament of the (cached) catalogue.
    pub async fn ornament(&self, id: &str) -> Option<Ornament> {
        self.fresh().await;
        self.inner
            .catalogue
            .read()
            .ok()
            .and_then(|c| c.by_id.get(id).cloned())
    }

    fn url(&self, id: Option<&String>) -> Option<String> {
        let id = id?;
        self.inner
            .catalogue
            .read()
            .ok()
            .and_then(|c| c.by_id.get(id).map(|o| o.image.url.clone()))
    }

    /// What `ids` wear (ornament ids), from the cache or one batched read.
    pub async fn wear_of(&self, ids: &[&str]) -> HashMap<String, AccountWear> {
        let mut out = HashMap::new();
        let mut missing: Vec<&str> = Vec::new();
        if let Ok(m) = self.inner.accounts.lock() {
            for id in ids {
                match m.get(*id) {
                    Some(c) if c.at.elapsed() <= TTL => {
                        out.insert((*id).to_owned(), c.v.clone());
                    }
                    _ => missing.push(id),
                }
            }
        }
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return out;
        }
        let keys: Vec<(Key, Key)> = missing
            .iter()
            .flat_map(|a| {
                Slot::ALL
                    .into_iter()
                    .map(|s| (Key::of(a), Key::of(s.as_str())))
            })
            .collect();
        let rows = match self.inner.worn.get_many(&keys).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "ornaments: reading what accounts wear failed");
                return out;
            }
        };
        let mut rows = rows.into_iter();
        let now = Instant::now();
        let mut fetched = Vec::with_capacity(missing.len());
        for a in &missing {
            let mut w = AccountWear::default();
            for s in Slot::ALL {
                if let Some(Some(r)) = rows.next() {
                    w.set(s, Some(r.ornament_id));
                }
            }
            out.insert((*a).to_owned(), w.clone());
            fetched.push(((*a).to_owned(), w));
        }
        if let Ok(mut m) = self.inner.accounts.lock() {
            if m.len() + fetched.len() > CAP {
                m.clear();
            }
            for (a, v) in fetched {
                m.insert(a, Cached { v, at: now });
            }
        }
        out
    }

    /// The frame ids `works` wear themselves, from the cache or one batched read.
    async fn frames_of(&self, works: &[&str]) -> HashMap<String, Option<String>> {
        let mut out = HashMap::new();
        let mut missing: Vec<&str> = Vec::new();
        if let Ok(m) = self.inner.works.lock() {
            for id in works {
                match m.get(*id) {
                    Some(c) if c.at.elapsed() <= TTL => {
                        out.insert((*id).to_owned(), c.v.clone());
                    }
                    _ => missing.push(id),
                }
            }
        }
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return out;
        }
        let keys: Vec<(Key, Key)> = missing.iter().map(|w| (Key::of(w), Key::empty())).collect();
        let rows = match self.inner.frames.get_many(&keys).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "ornaments: reading work frames failed");
                return out;
            }
        };
        let now = Instant::now();
        let fetched: Vec<(String, Option<String>)> = missing
            .iter()
            .zip(rows)
            .map(|(w, r)| ((*w).to_owned(), r.map(|r| r.ornament_id)))
            .collect();
        if let Ok(mut m) = self.inner.works.lock() {
            if m.len() + fetched.len() > CAP {
                m.clear();
            }
            for (w, v) in &fetched {
                m.insert(
                    w.clone(),
                    Cached {
                        v: v.clone(),
                        at: now,
                    },
                );
            }
        }
        out.extend(fetched);
        out
    }

    /// The image URL of the avatar ornament `account` wears.
    pub async fn avatar_url(&self, account: &str) -> Option<String> {
        self.fresh().await;
        if self.catalogue_empty() {
            return None;
        }
        let w = self.wear_of(&[account]).await;
        self.url(w.get(account).and_then(|w| w.avatar.as_ref()))
    }

    /// The frame id `work` wears: its own, else its author's default.
    pub async fn frame_id(&self, work: &str, author: &str) -> Option<String> {
        self.fresh().await;
        if self.catalogue_empty() {
            return None;
        }
        let own = self.frames_of(&[work]).await.remove(work).flatten();
        match own {
            Some(id) => Some(id),
            None => self
                .wear_of(&[author])
                .await
                .remove(author)
                .and_then(|w| w.work_frame),
        }
    }

    /// The image URL of the frame `work` wears.
    pub async fn frame_url(&self, work: &str, author: &str) -> Option<String> {
        let id = self.frame_id(work, author).await;
        self.url(id.as_ref())
    }

    /// Fills the authors' ornaments and the works' frames of `cards`.
    pub async fn decorate_cards(&self, cards: &mut [Card]) {
        self.fresh().await;
        if cards.is_empty() || self.catalogue_empty() {
            return;
        }
        let authors: HashSet<&str> = cards
            .iter()
            .map(|c| c.author.id.as_str())
            .filter(|a| !a.is_empty())
            .collect();
        let authors: Vec<&str> = authors.into_iter().collect();
        let works: Vec<&str> = cards
            .iter()
            .filter(|c| c.obj_type == ObjType::POST)
            .map(|c| c.id.as_str())
            .collect();
        let (wear, frames) = tokio::join!(self.wear_of(&authors), self.frames_of(&works));
        for c in cards.iter_mut() {
            let w = wear.get(&c.author.id);
            c.author.ornament = self.url(w.and_then(|w| w.avatar.as_ref()));
            if c.obj_type == ObjType::POST {
                let own = frames.get(&c.id).and_then(Option::as_ref);
                c.frame = self.url(own.or_else(|| w.and_then(|w| w.work_frame.as_ref())));
            }
        }
    }

    /// This node's change of what `account` wears in `slot`.
    pub fn set_worn(&self, account: &str, slot: Slot, id: Option<String>) {
        if let Ok(mut m) = self.inner.accounts.lock() {
            if let Some(c) = m.get_mut(account) {
                c.v.set(slot, id);
            }
            // An account not cached is read on its next use.
        }
    }

    /// Forgets what `account` wears (read again on next use).
    pub fn forget(&self, account: &str) {
        if let Ok(mut m) = self.inner.accounts.lock() {
            m.remove(account);
        }
    }

    /// This node's change of the frame `work` wears.
    pub fn set_frame(&self, work: &str, id: Option<String>) {
        if let Ok(mut m) = self.inner.works.lock() {
            if m.len() >= CAP {
                m.clear();
            }
            m.insert(
                work.to_owned(),
                Cached {
                    v: id,
                    at: Instant::now(),
                },
            );
        }
    }

    pub(crate) fn worn_table(&self) -> &Table<WornRow> {
        &self.inner.worn
    }

    pub(crate) fn frames_table(&self) -> &Table<WorkFrameRow> {
        &self.inner.frames
    }

    pub(crate) fn ornaments_table(&self) -> &Table<Ornament> {
        &self.inner.ornaments
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use infra::store::embedded::EmbeddedStore;
    use protocol::ornament::OrnamentImage;
    use protocol::square::card::{CardAuthor, Cover};

    fn orn(id: &str, slot: Slot) -> Ornament {
        Ornament {
            ornament_id: id.into(),
            slot,
            name: id.into(),
            description: String::new(),
            price: 1,
            image: OrnamentImage {
                url: format!("/files/{id}.png"),
            },
            active: true,
            sort: 0,
            limited: None,
            sold: 0,
        }
    }

    fn card(id: &str, author: &str, obj_type: u8) -> Card {
        Card {
            obj_type,
            sub_obj_type: None,
            content_sub_type: None,
            channel: None,
            sub_channel: None,
            id: id.into(),
            title: String::new(),
            cover: Cover::default(),
            stream: None,
            image_count: 1,
            author: CardAuthor {
                id: author.into(),
                ..CardAuthor::default()
            },
            tags: Vec::new(),
            nsfw: false,
            likes: 0,
            collects: 0,
            comments: 0,
            views: 0,
            liked: false,
            collected: false,
            create_at: 0,
            frame: None,
            rating: "safe".into(),
            activity_mark: None,
        }
    }

    async fn worn(d: &Decor, account: &str, slot: Slot, id: &str) {
        d.worn_table()
            .put(
                &Key::of(account),
                &Key::of(slot.as_str()),
                &WornRow {
                    ornament_id: id.into(),
                    at: 1,
                },
            )
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn cards_get_authors_ornaments_and_frames_own_frame_first() {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("s")).unwrap());
        let d = Decor::new(store);
        // No ornament exists: nothing is filled (and nothing read).
        let mut cards = vec![card("w1", "ann", ObjType::POST)];
        d.decorate_cards(&mut cards).await;
        assert_eq!(
            (
                cards[0].author.ornament.as_deref(),
                cards[0].frame.as_deref()
            ),
            (None, None)
        );

        for o in [
            orn("halo", Slot::Avatar),
            orn("gilt", Slot::WorkFrame),
            orn("oak", Slot::WorkFrame),
        ] {
            d.ornaments_table()
                .put(&Key::of(BUCKET), &Key::of(&o.ornament_id), &o)
                .await
                .unwrap();
        }
        d.reload().await.unwrap();
        worn(&d, "ann", Slot::Avatar, "halo").await;
        worn(&d, "ann", Slot::WorkFrame, "oak").await;
        d.frames_table()
            .put(
                &Key::of("w2"),
                &Key::empty(),
                &WorkFrameRow {
                    ornament_id: "gilt".into(),
                    account: "ann".into(),
                    at: 1,
                },
            )
            .await
            .unwrap();
        // "ann" was not cached (the empty catalogue skipped the read).
        let mut cards = vec![
            card("w1", "ann", ObjType::POST),
            card("w2", "ann", ObjType::POST),
            card("w3", "bob", ObjType::POST),
            card("c1", "ann", ObjType::CHARACTER),
        ];
        d.decorate_cards(&mut cards).await;
        let got: Vec<(Option<&str>, Option<&str>)> = cards
            .iter()
            .map(|c| (c.author.ornament.as_deref(), c.frame.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (Some("/files/halo.png"), Some("/files/oak.png")),
                (Some("/files/halo.png"), Some("/files/gilt.png")),
                (None, None),
                (Some("/files/halo.png"), None),
            ]
        );
        assert_eq!(
            d.frame_url("w2", "ann").await.as_deref(),
            Some("/files/gilt.png")
        );
        assert_eq!(d.frame_url("w9", "bob").await, None);

        // This node's take-off shows at once, from the cache.
        d.set_worn("ann", Slot::Avatar, None);
        assert_eq!(d.avatar_url("ann").await, None);
        d.set_frame("w2", None);
        assert_eq!(
            d.frame_url("w2", "ann").await.as_deref(),
            Some("/files/oak.png")
        );
        // A cached account is not read again: a store change is seen after the TTL only.
        worn(&d, "ann", Slot::Avatar, "halo").await;
        assert_eq!(d.avatar_url("ann").await, None);
        d.forget("ann");
        assert_eq!(
            d.avatar_url("ann").await.as_deref(),
            Some("/files/halo.png")
        );
    }
}
