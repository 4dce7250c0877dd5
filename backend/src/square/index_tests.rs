//! The square index's unit tests (`index.rs`).
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

#[test]
fn a_snapshot_a_cursor_reads_outlives_the_count_but_not_the_cap() {
    let mut ix = Index::default();
    let first = ix.snapshot(1_000);
    // Read by a cursor now and then while ranks are taken every 100 ms.
    for k in 1..=(2 * MAX_SNAPSHOTS as i64) {
        if k % 5 == 0 && k < 30 {
            assert_eq!(
                ix.snapshot_at(Some(first.epoch)).unwrap().epoch,
                first.epoch
            );
        }
        ix.snapshot(1_000 + k * 100);
        if k < 30 {
            assert!(
                ix.snapshots.iter().any(|s| s.epoch == first.epoch),
                "the snapshot in use was dropped at {k}"
            );
            assert!(ix.snapshots.len() <= KEPT_SNAPSHOTS + 1);
        }
    }
    // Unread for longer than the grace, it goes; the count is back to normal.
    for k in 0..((CURSOR_GRACE_MS / 100) + 1) {
        ix.snapshot(10_000 + k * 100);
    }
    assert!(ix.snapshots.iter().all(|s| s.epoch != first.epoch));
    assert_eq!(ix.snapshots.len(), KEPT_SNAPSHOTS);
    // Never more than the cap, however many cursors read.
    for k in 0..(3 * MAX_SNAPSHOTS as i64) {
        let s = ix.snapshot(1_000_000 + k * 100);
        ix.snapshot_at(Some(s.epoch));
        assert!(ix.snapshots.len() <= MAX_SNAPSHOTS);
    }
}
