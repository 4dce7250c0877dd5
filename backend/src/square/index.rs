//! The feed index: every work's card fields and counters in memory, ordered
//! by time and by author, with hot snapshots. Feeds are read from here
//! (no store read per card); the Store stays the truth: the index is filled
//! from it at start, changed by this node's writes as they are made, by
//! other nodes' writes through the bus (`square` topic, see `mod.rs`), and
//! can always be rebuilt.
//!
//! Stable paging: `new` and `follows` page on (time, id), which later
//! publishes cannot shift. `hot` and `recommend` page through a *snapshot*
//! of the ranking, taken every `rank_ms` and kept for [`KEPT_SNAPSHOTS`]
//! periods, or while a cursor reads it (up to [`CURSOR_GRACE_MS`] after its
//! last read, and [`MAX_SNAPSHOTS`] in all); a cursor names its snapshot, so paging while others like and
//! publish neither repeats nor skips a work. A work deleted or hidden
//! meanwhile is left out when its page is read.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use protocol::square::rank;
use protocol::square::work::{tag_key, WorkImage};
use protocol::square::{PostKind, Visibility};

use super::row::WorkRow;

/// Hot snapshots kept, so cursors of earlier snapshots keep working.
pub const KEPT_SNAPSHOTS: usize = 10;
/// A snapshot a cursor read within this long (ms, by the snapshots' own
/// clock) is kept past [`KEPT_SNAPSHOTS`], so someone paging slowly while
/// ranks are taken often never falls back to a newer order...
pub const CURSOR_GRACE_MS: i64 = 120_000;
/// ...up to this many snapshots in all (memory: each lists every public work).
pub const MAX_SNAPSHOTS: usize = 2 * KEPT_SNAPSHOTS;
/// Length of a viewer's personal recommend list; past it, recommend goes on
/// in hot order (without the works already shown).
pub const PERSONAL_LEN: usize = 1000;
/// The hottest works a personal order is drawn from, with
/// [`FOLLOWED_CANDIDATES`] newest works of each followed account.
pub const CANDIDATES: usize = 4000;
pub const FOLLOWED_CANDIDATES: usize = 200;

/// What the index keeps of a work.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: Arc<str>,
    pub author: Arc<str>,
    pub kind: PostKind,
    pub visibility: Visibility,
    pub nsfw: bool,
    pub create_at: i64,
    pub title: String,
    pub tags: Vec<String>,
    pub tag_keys: Vec<String>,
    pub cover: Option<WorkImage>,
    pub image_count: u32,
    pub video_url: Option<String>,
    pub counts: Counts,
    /// A moderator hid it: its author alone sees it.
    pub hidden: bool,
    /// A moderator took it out of feeds (it still opens by its link).
    pub feed_banned: bool,
    /// The classifier's highest score of its pictures, when scored.
    pub score: Option<f32>,
}

/// A work's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub likes: i64,
    pub collects: i64,
    pub comments: i64,
    pub views: i64,
}

impl Counts {
    pub fn points(&self) -> f64 {
        rank::points(self.likes, self.collects, self.comments, self.views)
    }
}

impl Entry {
    pub fn from_row(w: &WorkRow, counts: Counts) -> Entry {
        Entry {
            id: Arc::from(w.id.as_str()),
            author: Arc::from(w.author.as_str()),
            kind: w.kind,
            visibility: w.visibility,
            nsfw: w.nsfw,
            create_at: w.create_at,
            title: w.title.clone(),
            tag_keys: w.tags.iter().map(|t| tag_key(t)).collect(),
            tags: w.tags.clone(),
            cover: w.cover().cloned(),
            image_count: w.images.len() as u32,
            video_url: w.video_url.clone(),
            counts,
            hidden: w.hidden(),
            feed_banned: w.moderation.is_some() && !w.hidden(),
            score: w.classified.as_ref().map(|c| c.score),
        }
    }
}

/// An author as cards show them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Author {
    pub name: String,
    pub avatar: Option<String>,
    /// Disabled accounts' works leave every feed.
    pub banned: bool,
}

/// What a feed keeps.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these post kinds (empty: all).
    pub kinds: Vec<PostKind>,
    /// Only works with this tag key.
    pub tag: Option<String>,
    /// Only works published at or after this time.
    pub since: Option<i64>,
    /// The viewer's NSFW view (hide leaves NSFW works out).
    pub nsfw: Option<super::nsfw_view::NsfwView>,
}

impl Filter {
    fn keeps(&self, e: &Entry) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&e.kind))
            && self.tag.as_ref().is_none_or(|t| e.tag_keys.contains(t))
            && self.since.is_none_or(|s| e.create_at >= s)
            && self.nsfw.as_ref().is_none_or(|v| v.keeps(e))
    }
}

/// A ranking frozen at `epoch` (ms): public works, best first.
#[derive(Debug)]
pub struct Snapshot {
    pub epoch: i64,
    pub ranked: Vec<(Arc<str>, f64)>,
    /// When a cursor last read it (the newest snapshot's epoch then; `i64::MIN`: never).
    pub last_used: AtomicI64,
}

impl Snapshot {
    pub fn new(epoch: i64, ranked: Vec<(Arc<str>, f64)>) -> Snapshot {
        Snapshot {
            epoch,
            ranked,
            last_used: AtomicI64::new(i64::MIN),
        }
    }
}

/// A viewer's recommend order for one snapshot.
#[derive(Debug)]
pub struct Personal {
    pub epoch: i64,
    pub head: Vec<Arc<str>>,
    pub in_head: HashSet<Arc<str>>,
}

#[derive(Default)]
pub struct Index {
    works: HashMap<Arc<str>, Entry>,
    by_time: BTreeSet<(i64, Arc<str>)>,
    by_author: HashMap<Arc<str>, BTreeSet<(i64, Arc<str>)>>,
    authors: HashMap<Arc<str>, Author>,
    snapshots: VecDeque<Arc<Snapshot>>,
    /// Public works per tag key (with the first spelling seen), kept as
    /// works come and go, so tag lists never scan every work.
    tag_totals: HashMap<String, (i64, String)>,
}

/// Where a time-ordered page starts: strictly before (ms, id).
pub type TimeCursor = Option<(i64, String)>;

impl Index {
    pub fn len(&self) -> usize {
        self.works.len()
    }

    pub fn is_empty(&self) -> bool {
        self.works.is_empty()
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.works.get(id)
    }

    pub fn author(&self, id: &str) -> Option<&Author> {
        self.authors.get(id)
    }

    pub fn set_author(&mut self, id: &str, a: Author) {
        self.authors.insert(Arc::from(id), a);
    }

    pub fn has_author(&self, id: &str) -> bool {
        self.authors.contains_key(id)
    }

    fn count_tags(&mut self, e: &Entry, delta: i64) {
        if e.visibility != Visibility::Public {
            return;
        }
        for (k, t) in e.tag_keys.iter().zip(&e.tags) {
            let slot = self
                .tag_totals
                .entry(k.clone())
                .or_insert_with(|| (0, t.clone()));
            slot.0 += delta;
            if slot.0 <= 0 {
                self.tag_totals.remove(k);
            }
        }
    }

    /// Adds or replaces a work.
    pub fn upsert(&mut self, e: Entry) {
        self.remove(&e.id);
        self.count_tags(&e, 1);
        self.by_time.insert((e.create_at, e.id.clone()));
        self.by_author
            .entry(e.author.clone())
            .or_default()
            .insert((e.create_at, e.id.clone()));
        self.works.insert(e.id.clone(), e);
    }

    pub fn remove(&mut self, id: &str) -> Option<Entry> {
        let e = self.works.remove(id)?;
        self.count_tags(&e, -1);
        self.by_time.remove(&(e.create_at, e.id.clone()));
        if let Some(set) = self.by_author.get_mut(&e.author) {
            set.remove(&(e.create_at, e.id.clone()));
        }
        Some(e)
    }

    /// Changes a work's counters in place.
    pub fn counts_mut(&mut self, id: &str) -> Option<&mut Counts> {
        self.works.get_mut(id).map(|e| &mut e.counts)
    }

    /// Public and not banned: what shared feeds may show anyone.
    fn shared(&self, e: &Entry) -> bool {
        e.visibility == Visibility::Public && !self.banned(&e.author) && !e.hidden && !e.feed_banned
    }

    fn banned(&self, author: &str) -> bool {
        self.authors.get(author).is_some_and(|a| a.banned)
    }

    /// May `viewer` (following `follows`) see this work at all?
    pub fn visible(&self, e: &Entry, viewer: Option<&str>, follows_author: bool) -> bool {
        if viewer == Some(&*e.author) {
            return true;
        }
        if self.banned(&e.author) || e.hidden {
            return false;
        }
        match e.visibility {
            Visibility::Public => true,
            Visibility::Followers => follows_author,
            Visibility::Private => false,
        }
    }

    /// `new`: public works by time, newest first.
    pub fn page_new(
        &self,
        f: &Filter,
        after: &TimeCursor,
        n: usize,
    ) -> (Vec<Arc<str>>, TimeCursor) {
        let iter = self.by_time.iter().rev();
        let iter: Box<dyn Iterator<Item = &(i64, Arc<str>)>> = match after {
            Some((ms, id)) => {
                Box::new(iter.skip_while(move |(m, i)| (*m, &**i) >= (*ms, id.as_str())))
            }
            None => Box::new(iter),
        };
        take_page(
            iter.filter_map(|(_, id)| self.works.get(id))
                .filter(|e| self.shared(e) && f.keeps(e)),
            n,
        )
    }

    /// Works of `authors` by time, newest first; `viewer` sees
    /// followers-only works of the authors it follows, and all of its own.
    pub fn page_authors(
        &self,
        authors: &HashSet<String>,
        viewer: Option<&str>,
        viewer_follows: &dyn Fn(&str) -> bool,
        f: &Filter,
        after: &TimeCursor,
        n: usize,
    ) -> (Vec<Arc<str>>, TimeCursor) {
        // Merge the authors' time-ordered sets, newest first.
        let mut all: Vec<&(i64, Arc<str>)> = Vec::new();
        for a in authors {
            if let Some(set) = self.by_author.get(a.as_str()) {
                let mut taken = 0;
                for k in set.iter().rev() {
                    if let Some((ms, id)) = after {
                        if (k.0, &*k.1) >= (*ms, id.as_str()) {
                            continue;
                        }
                    }
                    let Some(e) = self.works.get(&k.1) else {
                        continue;
                    };
                    if f.keeps(e) && self.visible(e, viewer, viewer_follows(&e.author)) {
                        all.push(k);
                        taken += 1;
                        if taken > n {
                            break;
                        }
                    }
                }
            }
        }
        all.sort_by(|a, b| b.cmp(a));
        take_page(all.into_iter().filter_map(|(_, id)| self.works.get(id)), n)
    }

    /// Takes a hot snapshot now (public works ranked by [`rank::hot`]).
    pub fn snapshot(&mut self, now: i64) -> Arc<Snapshot> {
        let s = Arc::new(self.rank_now(now));
        self.push_snapshot(s.clone());
        s
    }

    /// Keeps a snapshot made by [`Index::rank_now`] (the newest last).
    /// Past [`KEPT_SNAPSHOTS`] the oldest one no cursor read lately goes;
    /// past [`MAX_SNAPSHOTS`] the oldest goes whatever its use.
    pub fn push_snapshot(&mut self, s: Arc<Snapshot>) {
        let now = s.epoch;
        self.snapshots.push_back(s);
        while self.snapshots.len() > KEPT_SNAPSHOTS {
            let older = self.snapshots.len() - 1;
            let idle = self.snapshots.iter().take(older).position(|x| {
                x.last_used.load(Ordering::Relaxed) < now.saturating_sub(CURSOR_GRACE_MS)
            });
            match idle {
                Some(i) => {
                    self.snapshots.remove(i);
                }
                None if self.snapshots.len() > MAX_SNAPSHOTS => {
                    self.snapshots.pop_front();
                }
                None => break,
            }
        }
    }

    /// The hot ranking now, made under a read lock so feeds go on meanwhile.
    pub fn rank_now(&self, now: i64) -> Snapshot {
        let mut ranked: Vec<(Arc<str>, f64)> = self
            .works
            .values()
            .filter(|e| self.shared(e))
            .map(|e| {
                (
                    e.id.clone(),
                    rank::hot(e.counts.points(), now - e.create_at),
                )
            })
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
        Snapshot::new(now, ranked)
    }

    /// The snapshot of `epoch`, else the newest (a cursor older than every
    /// kept snapshot goes on in the newest: it may then repeat a work).
    pub fn snapshot_at(&self, epoch: Option<i64>) -> Option<Arc<Snapshot>> {
        let found = epoch.and_then(|e| self.snapshots.iter().find(|s| s.epoch == e).cloned());
        if let (Some(s), Some(newest)) = (&found, self.snapshots.back()) {
            s.last_used.store(newest.epoch, Ordering::Relaxed);
        }
        found.or_else(|| self.snapshots.back().cloned())
    }

    pub fn newest_snapshot(&self) -> Option<Arc<Snapshot>> {
        self.snapshots.back().cloned()
    }

    /// A page of a ranked list from `offset`: the works still there and
    /// kept by the filter, and the offset after the last one looked at.
    pub fn page_ranked<'a>(
        &self,
        list: impl Iterator<Item = &'a Arc<str>>,
        offset: usize,
        f: &Filter,
        n: usize,
    ) -> (Vec<Arc<str>>, Option<usize>) {
        let mut out = Vec::new();
        let mut pos = offset;
        let mut more = false;
        for id in list.skip(offset) {
            if out.len() == n {
                more = true;
                break;
            }
            pos += 1;
            if let Some(e) = self.works.get(id) {
                if self.shared(e) && f.keeps(e) {
                    out.push(id.clone());
                }
            }
        }
        (out, more.then_some(pos))
    }

    /// A viewer's recommend order: the snapshot's works by hot × boost
    /// (followed authors, tags of works the viewer liked), best
    /// [`PERSONAL_LEN`] first; the rest follows in hot order.
    pub fn personal(
        &self,
        snap: &Snapshot,
        follows: &HashSet<String>,
        liked_tags: &HashSet<String>,
    ) -> Personal {
        if follows.is_empty() && liked_tags.is_empty() {
            // Nothing to boost by: recommend is the snapshot's hot order.
            return Personal {
                epoch: snap.epoch,
                head: Vec::new(),
                in_head: HashSet::new(),
            };
        }
        // Candidates: the hottest works, and the followed accounts' newest
        // ones (a boost multiplies hot by at most 3.7, so a work far down
        // the ranking by someone not followed cannot reach the head).
        let boosted = |e: &Entry, hot: f64| {
            let shared = e
                .tag_keys
                .iter()
                .filter(|t| liked_tags.contains(*t))
                .count();
            hot * rank::recommend_boost(follows.contains(&*e.author), shared)
        };
        let mut seen: HashSet<&Arc<str>> = HashSet::new();
        let mut scored: Vec<(f64, &Arc<str>)> = Vec::with_capacity(CANDIDATES + 256);
        for (id, hot) in snap.ranked.iter().take(CANDIDATES) {
            if let Some(e) = self.works.get(id) {
                seen.insert(id);
                scored.push((boosted(e, *hot), id));
            }
        }
        for a in follows {
            let Some(set) = self.by_author.get(a.as_str()) else {
                continue;
            };
            for (_, id) in set.iter().rev().take(FOLLOWED_CANDIDATES) {
                let Some(e) = self.works.get(id) else {
                    continue;
                };
                if !self.shared(e) || !seen.insert(id) {
                    continue;
                }
                let hot = rank::hot(e.counts.points(), snap.epoch - e.create_at);
                scored.push((boosted(e, hot), id));
            }
        }
        let by = |a: &(f64, &Arc<str>), b: &(f64, &Arc<str>)| {
            b.0.total_cmp(&a.0).then_with(|| b.1.cmp(a.1))
        };
        if scored.len() > PERSONAL_LEN {
            scored.select_nth_unstable_by(PERSONAL_LEN, by);
            scored.truncate(PERSONAL_LEN);
        }
        scored.sort_by(by);
        let head: Vec<Arc<str>> = scored.into_iter().map(|(_, id)| id.clone()).collect();
        Personal {
            epoch: snap.epoch,
            in_head: head.iter().cloned().collect(),
            head,
        }
    }

    /// Tags with their display spelling and use count over public works
    /// published at or after `since` (all time: from the running totals;
    /// a period: the works of that period only), most used first.
    pub fn tag_counts(&self, since: Option<i64>, limit: usize) -> Vec<(String, i64)> {
        let mut v: Vec<(String, i64)> = match since {
            None => self
                .tag_totals
                .values()
                .map(|(n, t)| (t.clone(), *n))
                .collect(),
            Some(s) => {
                let mut counts: HashMap<&str, (i64, &str)> = HashMap::new();
                let from = (s, Arc::<str>::from(""));
                for (_, id) in self.by_time.range(from..) {
                    let Some(e) = self.works.get(id) else {
                        continue;
                    };
                    if e.visibility != Visibility::Public {
                        continue;
                    }
                    for (k, t) in e.tag_keys.iter().zip(&e.tags) {
                        counts.entry(k.as_str()).or_insert((0, t.as_str())).0 += 1;
                    }
                }
                counts
                    .into_values()
                    .map(|(n, t)| (t.to_owned(), n))
                    .collect()
            }
        };
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(limit);
        v
    }

    /// The public works carrying a tag (all time).
    pub fn tag_total(&self, key: &str) -> i64 {
        self.tag_totals.get(key).map_or(0, |t| t.0)
    }

    /// Every work id, for checks and rebuilds.
    pub fn ids(&self) -> impl Iterator<Item = &Arc<str>> {
        self.works.keys()
    }
}

/// The recommend list of a personal order: its head, then the snapshot's
/// order without the head's works.
pub fn personal_order<'a>(
    p: &'a Personal,
    snap: &'a Snapshot,
) -> impl Iterator<Item = &'a Arc<str>> {
    p.head.iter().chain(
        snap.ranked
            .iter()
            .map(|(id, _)| id)
            .filter(|id| !p.in_head.contains(*id)),
    )
}

fn take_page<'a>(iter: impl Iterator<Item = &'a Entry>, n: usize) -> (Vec<Arc<str>>, TimeCursor) {
    let mut out: Vec<&Entry> = Vec::with_capacity(n);
    let mut more = false;
    for e in iter {
        if out.len() == n {
            more = true;
            break;
        }
        out.push(e);
    }
    let next = if more {
        out.last().map(|e| (e.create_at, e.id.to_string()))
    } else {
        None
    };
    (out.into_iter().map(|e| e.id.clone()).collect(), next)
}

impl Index {
    /// Takes over `old`'s snapshots (after a reload), so their cursors stay valid.
    pub fn adopt_snapshots(&mut self, old: Index) {
        self.snapshots = old.snapshots;
    }
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
