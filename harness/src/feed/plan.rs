//! What the `feed` scenario sends next: which read (a first page of an
//! order, or the next page of one read before) and which kind of write
//! (the likes/comments/publishes mix), decided deterministically.

use std::collections::VecDeque;
use std::str::FromStr;

/// The feed orders of the contract (`order_by`).
pub const ORDERS: [&str; 4] = ["recommend", "follows", "hot", "new"];
/// Cursors kept for next-page reads; beyond it the oldest are dropped.
pub const MAX_PENDING_CURSORS: usize = 1024;

/// A deterministic 64-bit mix (splitmix64's finaliser): spreads consecutive
/// numbers over accounts and works without a random-number generator, so a
/// run's choices are the same every time and uncorrelated with `i % 4`.
pub fn mix64(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `mix64(i)` reduced to `0..n` (0 when `n` is 0).
pub fn pick(i: u64, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    usize::try_from(mix64(i) % n as u64).unwrap_or(0)
}

/// What one write does, as the mix chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WriteKind {
    Like,
    Comment,
    Publish,
}

impl WriteKind {
    pub const ALL: [WriteKind; 3] = [WriteKind::Like, WriteKind::Comment, WriteKind::Publish];
}

/// The share of likes, comments and publishes among the writes, as
/// weights (`--write-mix 70,20,10`). At least one weight is positive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteMix {
    pub likes: u32,
    pub comments: u32,
    pub publishes: u32,
}

impl Default for WriteMix {
    fn default() -> Self {
        WriteMix {
            likes: 70,
            comments: 20,
            publishes: 10,
        }
    }
}

impl WriteMix {
    pub fn weight(&self, k: WriteKind) -> u32 {
        match k {
            WriteKind::Like => self.likes,
            WriteKind::Comment => self.comments,
            WriteKind::Publish => self.publishes,
        }
    }

    pub fn total(&self) -> u32 {
        WriteKind::ALL.iter().map(|k| self.weight(*k)).sum()
    }

    /// The share of `k` among all writes, 0..=1.
    pub fn share(&self, k: WriteKind) -> f64 {
        f64::from(self.weight(k)) / f64::from(self.total().max(1))
    }
}

impl FromStr for WriteMix {
    type Err = String;

    /// `likes,comments,publishes` as whole-number weights, like `70,20,10`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let [l, c, p] = parts.as_slice() else {
            return Err(format!(
                "{s:?}: expected three weights likes,comments,publishes (like 70,20,10)"
            ));
        };
        let num = |v: &str| {
            v.parse::<u32>()
                .map_err(|_| format!("{s:?}: {v:?} is not a whole number"))
        };
        let mix = WriteMix {
            likes: num(l)?,
            comments: num(c)?,
            publishes: num(p)?,
        };
        if mix.total() == 0 {
            return Err(format!("{s:?}: at least one weight must be positive"));
        }
        Ok(mix)
    }
}

impl std::fmt::Display for WriteMix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{}", self.likes, self.comments, self.publishes)
    }
}

/// Picks the kind of each write by smooth weighted round robin: over any
/// run of `total()` writes each kind comes exactly its weight of times,
/// spread out rather than in blocks.
#[derive(Debug, Clone)]
pub struct MixPicker {
    mix: WriteMix,
    current: [i64; 3],
}

impl MixPicker {
    pub fn new(mix: WriteMix) -> MixPicker {
        MixPicker {
            mix,
            current: [0; 3],
        }
    }

    pub fn next_kind(&mut self) -> WriteKind {
        let total = i64::from(self.mix.total());
        let mut best = 0;
        for (n, k) in WriteKind::ALL.iter().enumerate() {
            if let Some(c) = self.current.get_mut(n) {
                *c += i64::from(self.mix.weight(*k));
            }
            if self.current.get(n) > self.current.get(best) {
                best = n;
            }
        }
        if let Some(c) = self.current.get_mut(best) {
            *c -= total;
        }
        WriteKind::ALL.get(best).copied().unwrap_or(WriteKind::Like)
    }
}

/// One page read: which feed call, which order, as which account, from
/// which cursor (`None`: the first page) and how deep (1 = first page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRead {
    pub path: usize,
    pub order: usize,
    pub account: usize,
    pub cursor: Option<String>,
    pub depth: u32,
}

/// Chooses every read: read `i` is a next page for the given share of
/// reads (evenly spaced), taken from the cursors earlier pages answered
/// (the freshest first, read by the account that got it: a cursor of a
/// personal feed is that viewer's); otherwise, or when no cursor waits, a
/// first page, the orders and feed calls in rotation and the account
/// spread by [`pick`].
#[derive(Debug)]
pub struct ReadPlanner {
    paths: usize,
    orders: Vec<usize>,
    accounts: usize,
    next_share: f64,
    max_depth: u32,
    pending: VecDeque<PageRead>,
    first_pages: u64,
    /// Reads that were due as next pages but found no cursor waiting.
    pub next_unavailable: u64,
}

impl ReadPlanner {
    /// `orders` are indices into [`ORDERS`]; `next_pct` the percentage of
    /// reads that follow a cursor; `max_depth` the deepest page read.
    pub fn new(
        paths: usize,
        orders: Vec<usize>,
        accounts: usize,
        next_pct: f64,
        max_depth: u32,
    ) -> ReadPlanner {
        ReadPlanner {
            paths: paths.max(1),
            orders: if orders.is_empty() { vec![0] } else { orders },
            accounts: accounts.max(1),
            next_share: (next_pct / 100.0).clamp(0.0, 1.0),
            max_depth: max_depth.max(1),
            pending: VecDeque::new(),
            first_pages: 0,
            next_unavailable: 0,
        }
    }

    /// Read `i` is due as a next page: `floor((i+1)·s) > floor(i·s)`,
    /// which makes exactly the share `s` of any long run, evenly spaced.
    pub fn wants_next(&self, i: u64) -> bool {
        let s = self.next_share;
        ((i + 1) as f64 * s).floor() > (i as f64 * s).floor()
    }

    /// The read to send as read `i`.
    pub fn next_read(&mut self, i: u64) -> PageRead {
        if self.wants_next(i) {
            if let Some(r) = self.pending.pop_back() {
                return r;
            }
            self.next_unavailable += 1;
        }
        let f = self.first_pages;
        self.first_pages += 1;
        let n_orders = self.orders.len() as u64;
        let order = usize::try_from(f % n_orders)
            .ok()
            .and_then(|k| self.orders.get(k))
            .copied()
            .unwrap_or(0);
        let path = usize::try_from((f / n_orders) % self.paths as u64).unwrap_or(0);
        PageRead {
            path,
            order,
            account: pick(f, self.accounts),
            cursor: None,
            depth: 1,
        }
    }

    /// A page answered `next_cursor`: its next page may be read later, if
    /// not past the deepest page.
    pub fn answered(&mut self, read: &PageRead, next_cursor: Option<String>) {
        let Some(cursor) = next_cursor else {
            return;
        };
        if read.depth >= self.max_depth {
            return;
        }
        if self.pending.len() >= MAX_PENDING_CURSORS {
            self.pending.pop_front();
        }
        self.pending.push_back(PageRead {
            cursor: Some(cursor),
            depth: read.depth + 1,
            ..read.clone()
        });
    }

    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_mix_parses_and_keeps_its_shares_exactly() {
        let mix: WriteMix = "70,20,10".parse().unwrap();
        assert_eq!(mix, WriteMix::default());
        assert_eq!(mix.to_string(), "70,20,10");
        assert!((mix.share(WriteKind::Publish) - 0.1).abs() < 1e-12);
        assert_eq!(" 3, 1 ,0".parse::<WriteMix>().unwrap().total(), 4);
        for bad in ["70,20", "a,b,c", "0,0,0", "70,20,10,1", "-1,2,3"] {
            assert!(bad.parse::<WriteMix>().is_err(), "{bad}");
        }
        let mut p = MixPicker::new(mix);
        let kinds: Vec<WriteKind> = (0..1000).map(|_| p.next_kind()).collect();
        let count = |k| kinds.iter().filter(|x| **x == k).count();
        assert_eq!(
            (
                count(WriteKind::Like),
                count(WriteKind::Comment),
                count(WriteKind::Publish)
            ),
            (700, 200, 100)
        );
        // Spread out: every window of 10 writes holds exactly one publish.
        for w in kinds.chunks(10) {
            assert_eq!(w.iter().filter(|k| **k == WriteKind::Publish).count(), 1);
        }
        // A zero weight never comes.
        let mut only = MixPicker::new("0,1,0".parse().unwrap());
        assert!((0..50).all(|_| only.next_kind() == WriteKind::Comment));
    }

    #[test]
    fn a_quarter_of_reads_follow_a_cursor_when_one_waits() {
        let mut p = ReadPlanner::new(2, vec![0, 1, 2, 3], 10, 25.0, 3);
        let due: Vec<u64> = (0..12).filter(|i| p.wants_next(*i)).collect();
        assert_eq!(due, [3, 7, 11]);
        // No cursor yet: reads 0..4 are all first pages, rotating orders.
        let reads: Vec<PageRead> = (0..4).map(|i| p.next_read(i)).collect();
        assert_eq!(
            reads.iter().map(|r| r.order).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert!(reads.iter().all(|r| r.cursor.is_none() && r.depth == 1));
        assert_eq!(p.next_unavailable, 1);
        // The next four first pages go to the second feed call.
        let r4 = p.next_read(4);
        assert_eq!((r4.path, r4.order), (1, 0));
        // A page answers a cursor: the next due read follows it, as the
        // same account and feed call, one page deeper.
        p.answered(&r4, Some("c1".into()));
        p.answered(&reads[1], None);
        assert_eq!(p.pending(), 1);
        let r5 = p.next_read(5);
        assert!(r5.cursor.is_none(), "read 5 is not due as a next page");
        let r7 = p.next_read(7);
        assert_eq!(
            r7,
            PageRead {
                cursor: Some("c1".into()),
                depth: 2,
                ..r4.clone()
            }
        );
        // Depth 3 is the deepest: its cursor is not kept.
        p.answered(&r7, Some("c2".into()));
        let r11 = p.next_read(11);
        assert_eq!(r11.depth, 3);
        p.answered(&r11, Some("c3".into()));
        assert_eq!(p.pending(), 0);
        // The freshest cursor goes first; the queue is bounded.
        for n in 0..(MAX_PENDING_CURSORS + 5) {
            p.answered(&reads[0], Some(format!("k{n}")));
        }
        assert_eq!(p.pending(), MAX_PENDING_CURSORS);
        let last = format!("k{}", MAX_PENDING_CURSORS + 4);
        assert_eq!(p.next_read(15).cursor.as_deref(), Some(last.as_str()));
    }

    #[test]
    fn no_next_pages_when_the_share_is_zero_and_accounts_are_spread() {
        let mut p = ReadPlanner::new(1, vec![3], 7, 0.0, 5);
        let mut seen = HashSet::new();
        for i in 0..200 {
            let r = p.next_read(i);
            assert_eq!((r.order, r.path, r.depth), (3, 0, 1));
            p.answered(&r, Some(format!("c{i}")));
            seen.insert(r.account);
        }
        assert_eq!(p.next_unavailable, 0);
        assert_eq!(seen.len(), 7, "every account reads");
        let mut all = ReadPlanner::new(1, vec![0], 1, 100.0, 2);
        let first = all.next_read(0);
        all.answered(&first, Some("x".into()));
        assert_eq!(all.next_read(1).cursor.as_deref(), Some("x"));
        assert_eq!(all.next_unavailable, 1);
    }

    #[test]
    fn mixing_is_deterministic_and_in_range() {
        assert_eq!(mix64(1), mix64(1));
        assert_ne!(mix64(1), mix64(2));
        assert!((0..1000).all(|i| pick(i, 13) < 13));
        assert_eq!(pick(5, 0), 0);
    }
}
