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
//! periods; a cursor names its snapshot, so paging while others like and
//! publish neither repeats nor skips a work. A work deleted or hidden
//! meanwhile is left out when its page is read.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use protocol::square::rank;
use protocol::square::work::{tag_key, WorkImage};
use protocol::square::{PostKind, Visibility};

use super::row::WorkRow;

/// Hot snapshots kept, so cursors of earlier snapshots keep working.
pub const KEPT_SNAPSHOTS: usize = 10;
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
    pub fn push_snapshot(&mut self, s: Arc<Snapshot>) {
        self.snapshots.push_back(s);
        while self.snapshots.len() > KEPT_SNAPSHOTS {
            self.snapshots.pop_front();
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
        Snapshot { epoch: now, ranked }
    }

    /// The snapshot of `epoch`, else the newest (a cursor older than every
    /// kept snapshot goes on in the newest: it may then repeat a work).
    pub fn snapshot_at(&self, epoch: Option<i64>) -> Option<Arc<Snapshot>> {
        epoch
            .and_then(|e| self.snapshots.iter().find(|s| s.epoch == e).cloned())
            .or_else(|| self.snapshots.back().cloned())
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
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    const H: i64 = 3_600_000;

    fn entry(id: &str, author: &str, age_h: i64, likes: i64, tags: &[&str], now: i64) -> Entry {
        Entry {
            id: Arc::from(id),
            author: Arc::from(author),
            kind: PostKind::Picture,
            visibility: Visibility::Public,
            nsfw: false,
            create_at: now - age_h * H,
            title: id.to_owned(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            tag_keys: tags.iter().map(|t| tag_key(t)).collect(),
            cover: None,
            image_count: 1,
            video_url: None,
            counts: Counts {
                likes,
                ..Counts::default()
            },
            hidden: false,
            feed_banned: false,
            score: None,
        }
    }

    /// The fixture of the hot test: (id, age in hours, likes).
    const FIXTURE: &[(&str, i64, i64)] = &[
        ("fresh", 0, 0),
        ("liked-old", 30, 200),
        ("liked-new", 2, 20),
        ("mid", 6, 5),
        ("ancient", 500, 5000),
        ("hour", 1, 1),
    ];

    #[test]
    fn a_hot_snapshot_orders_by_the_documented_formula() {
        let now = 1_000_000 * H;
        let mut ix = Index::default();
        for (id, age, likes) in FIXTURE {
            ix.upsert(entry(id, "a", *age, *likes, &[], now));
        }
        let snap = ix.snapshot(now);
        let got: Vec<&str> = snap.ranked.iter().map(|(id, _)| &**id).collect();
        let mut want: Vec<(f64, &str)> = FIXTURE
            .iter()
            .map(|(id, age, likes)| (rank::hot(rank::points(*likes, 0, 0, 0), age * H), *id))
            .collect();
        want.sort_by(|a, b| b.0.total_cmp(&a.0));
        assert_eq!(got, want.iter().map(|w| w.1).collect::<Vec<_>>());
        // By hand: a new work with no points outranks a 2-hour-old one with 20
        // likes (gravity), and 5,000 likes three weeks ago rank last.
        assert_eq!(
            got,
            ["fresh", "liked-new", "hour", "mid", "liked-old", "ancient"]
        );
    }

    #[test]
    fn private_followers_and_banned_stay_out_of_shared_feeds() {
        let now = 100 * H;
        let mut ix = Index::default();
        ix.upsert(entry("pub", "a", 1, 0, &[], now));
        let mut f = entry("fol", "a", 1, 0, &[], now);
        f.visibility = Visibility::Followers;
        ix.upsert(f);
        let mut p = entry("priv", "a", 1, 0, &[], now);
        p.visibility = Visibility::Private;
        ix.upsert(p);
        ix.upsert(entry("banned", "b", 1, 0, &[], now));
        ix.set_author(
            "b",
            Author {
                banned: true,
                ..Author::default()
            },
        );
        let (ids, _) = ix.page_new(&Filter::default(), &None, 10);
        assert_eq!(ids.iter().map(|i| &**i).collect::<Vec<_>>(), ["pub"]);
        let snap = ix.snapshot(now);
        assert_eq!(snap.ranked.len(), 1);
        // An author's own list shows all three of their works to them.
        let authors: HashSet<String> = ["a".to_owned()].into();
        let (ids, _) = ix.page_authors(
            &authors,
            Some("a"),
            &|_| false,
            &Filter::default(),
            &None,
            10,
        );
        assert_eq!(ids.len(), 3);
        let (ids, _) = ix.page_authors(
            &authors,
            Some("c"),
            &|_| true,
            &Filter::default(),
            &None,
            10,
        );
        assert_eq!(ids.len(), 2, "a follower sees public and followers-only");
    }

    #[test]
    fn time_pages_neither_repeat_nor_skip_when_works_are_added() {
        let now = 1_000 * H;
        let mut ix = Index::default();
        for i in 0..25 {
            ix.upsert(entry(&format!("w{i:02}"), "a", 0, 0, &[], now - i * 1000));
        }
        let mut seen = Vec::new();
        let mut cursor = None;
        let mut k = 0;
        loop {
            let (ids, next) = ix.page_new(&Filter::default(), &cursor, 7);
            seen.extend(ids.iter().map(|i| i.to_string()));
            // Newer works arrive between pages; they are not in this paging.
            ix.upsert(entry(
                &format!("late{k}"),
                "a",
                0,
                0,
                &[],
                now + 1000 * (k + 1),
            ));
            k += 1;
            match next {
                Some(n) => cursor = Some(n),
                None => break,
            }
        }
        let set: HashSet<&String> = seen.iter().collect();
        assert_eq!(seen.len(), 25);
        assert_eq!(set.len(), 25);
    }

    #[test]
    fn recommend_boosts_followed_authors_and_liked_tags() {
        let now = 1_000 * H;
        let mut ix = Index::default();
        ix.upsert(entry("plain", "x", 1, 10, &["sea"], now));
        ix.upsert(entry("followed", "f", 1, 4, &[], now));
        ix.upsert(entry("tagged", "y", 1, 4, &["Cat"], now));
        let snap = ix.snapshot(now);
        let hot: Vec<&str> = snap.ranked.iter().map(|(id, _)| &**id).collect();
        assert_eq!(hot[0], "plain");
        let follows: HashSet<String> = ["f".to_owned()].into();
        let tags: HashSet<String> = ["cat".to_owned()].into();
        let p = ix.personal(&snap, &follows, &tags);
        let order: Vec<&str> = personal_order(&p, &snap).map(|i| &**i).collect();
        assert_eq!(order, ["followed", "tagged", "plain"]);
        // Past the personal head, the snapshot's order goes on without repeats.
        assert_eq!(order.len(), 3);
    }
}
