//! The ranking service against an embedded store: events of three models
//! over days give each window's boards in the documented order; keyed
//! events count once; likes are idempotent; recommend prefers the viewer's
//! family; packs, categories and creators.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::sync::Arc;

use infra::store::embedded::EmbeddedStore;
use infra::store::{DynStore, Key};
use protocol::models::rank::{Board, Window, DAY_MS};
use protocol::models::{ModelType, PublishStatus};

use super::*;
use crate::models::ModelRow;

struct Fixture {
    _dir: tempfile::TempDir,
    ranks: ModelRanks,
    models: ModelService,
    now: i64,
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("store")).unwrap());
    Fixture {
        ranks: ModelRanks::new(
            store.clone(),
            RankSettings {
                cache_ms: 0,
                ..RankSettings::default()
            },
        ),
        models: ModelService::new(store),
        now: crate::accounts::now_millis(),
        _dir: dir,
    }
}

impl Fixture {
    async fn model(&self, id: &str, owner: &str, family: &str, age_days: i64, tags: &[&str]) {
        let at = self.now - age_days * DAY_MS;
        let m = ModelRow {
            id: id.into(),
            owner: owner.into(),
            owner_name: owner.into(),
            name: format!("Model {id}"),
            model_type: ModelType::Lora,
            family: family.into(),
            variant: family.to_uppercase(),
            description: String::new(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            publish_status: PublishStatus::Published,
            nsfw: false,
            allow_download: true,
            agency_fee: 0,
            versions: Vec::new(),
            create_at: at,
            update_at: at,
            published_at: Some(at),
        };
        self.models
            .models
            .put(&Key::of(id), &Key::empty(), &m)
            .await
            .unwrap();
        self.models.index_public(&m).await.unwrap();
    }

    async fn events(&self, id: &str, owner: &str, days_ago: i64, ev: ModelEvent, n: usize) {
        for _ in 0..n {
            let counted = self
                .ranks
                .record(id, owner, ev, self.now - days_ago * DAY_MS, None)
                .await
                .unwrap();
            assert!(counted);
        }
    }

    async fn order(&self, board: Board, w: Window) -> Vec<String> {
        let page = self
            .ranks
            .board(board, w, &ModelFilter::default(), None, 0, 50, self.now)
            .await
            .unwrap();
        assert_eq!(page.total as usize, page.items.len());
        for (n, it) in page.items.iter().enumerate() {
            assert_eq!(it.rank as usize, n + 1);
        }
        page.items.into_iter().map(|i| i.model.model_id).collect()
    }
}

/// The fixture of the module doc of `protocol::models::rank`'s API test:
/// A (SD, 40 days old), B (SDXL, 3 days), C (SD, 10 days).
async fn three_models() -> Fixture {
    let f = fixture().await;
    f.model("A", "ann", "sd", 40, &["style", "anime"]).await;
    f.model("B", "bob", "sdxl", 3, &["anime character"]).await;
    f.model("C", "cat", "sd", 10, &["Landscape"]).await;
    use ModelEvent::*;
    // A: 1 use today, 20 five days ago, 50 twenty days ago, 10 downloads 35 days ago.
    f.events("A", "ann", 0, Use, 1).await;
    f.events("A", "ann", 5, Use, 20).await;
    f.events("A", "ann", 20, Use, 50).await;
    f.events("A", "ann", 35, Download, 10).await;
    // B: 2 downloads today, 3 uses two days ago.
    f.events("B", "bob", 0, Download, 2).await;
    f.events("B", "bob", 2, Use, 3).await;
    // C: 4 uses and a like today, 10 credits eight days ago.
    f.events("C", "cat", 0, Use, 4).await;
    f.events("C", "cat", 0, Like(1), 1).await;
    f.events("C", "cat", 8, Earning(10), 1).await;
    f
}

fn ids(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn boards_follow_the_formula_per_window() {
    let f = three_models().await;
    // Day: A score 1, B 6 (2 downloads), C 6 (4 uses + 1 like).
    // hot: B 600/5^1.5 = 53.7, C 600/12^1.5 = 14.4, A 100/42^1.5 = 0.37.
    assert_eq!(
        f.order(Board::Hottest, Window::Day).await,
        ids(&["B", "C", "A"])
    );
    assert_eq!(
        f.order(Board::MostUsed, Window::Day).await,
        ids(&["C", "A"])
    );
    assert_eq!(
        f.order(Board::MostDownloaded, Window::Day).await,
        ids(&["B"])
    );
    // Week: A 21 uses, B 9, C 6.
    assert_eq!(
        f.order(Board::MostUsed, Window::Week).await,
        ids(&["A", "C", "B"])
    );
    assert_eq!(
        f.order(Board::Hottest, Window::Week).await,
        ids(&["B", "C", "A"])
    );
    assert_eq!(
        f.order(Board::NewRising, Window::Week).await,
        ids(&["B", "C"])
    );
    assert!(f.order(Board::TopEarning, Window::Week).await.is_empty());
    // Month: A 71, B 9, C 11 (with 10 credits): hot C 1100/41.57 = 26.46
    // just above A 7100/272.19 = 26.08.
    assert_eq!(
        f.order(Board::Hottest, Window::Month).await,
        ids(&["B", "C", "A"])
    );
    assert_eq!(f.order(Board::TopEarning, Window::Month).await, ids(&["C"]));
    assert_eq!(
        f.order(Board::NewRising, Window::Month).await,
        ids(&["C", "B"])
    );
    // All: A gains its 10 old downloads (101): 37.1 above C.
    assert_eq!(
        f.order(Board::Hottest, Window::All).await,
        ids(&["B", "A", "C"])
    );
    assert_eq!(
        f.order(Board::MostDownloaded, Window::All).await,
        ids(&["A", "B"])
    );

    // The page carries window figures, score and all-time stats.
    let page = f
        .ranks
        .board(
            Board::MostUsed,
            Window::Week,
            &ModelFilter::default(),
            None,
            0,
            1,
            f.now,
        )
        .await
        .unwrap();
    assert_eq!(page.total, 3);
    assert_eq!(page.next_cursor.as_deref(), Some("1"));
    let top = &page.items[0];
    assert_eq!(top.window_stats.uses, 21);
    assert!((top.score - 21.0).abs() < 1e-9);
    assert_eq!(top.model.stats.uses, 71);
    assert_eq!(top.model.stats.downloads, 10);
    // Paging on: the second place.
    let next = f
        .ranks
        .board(
            Board::MostUsed,
            Window::Week,
            &ModelFilter::default(),
            None,
            1,
            1,
            f.now,
        )
        .await
        .unwrap();
    assert_eq!(next.items[0].model.model_id, "C");
    assert_eq!(next.items[0].rank, 2);

    // Filters: SDXL only.
    let sdxl = ModelFilter {
        types: vec![],
        families: vec!["sdxl".into()],
    };
    let page = f
        .ranks
        .board(Board::MostUsed, Window::Month, &sdxl, None, 0, 10, f.now)
        .await
        .unwrap();
    let got: Vec<&str> = page
        .items
        .iter()
        .map(|i| i.model.model_id.as_str())
        .collect();
    assert_eq!(got, ["B"]);

    // A delisted model leaves every board.
    let mut c = f
        .models
        .models
        .get(&Key::of("C"), &Key::empty())
        .await
        .unwrap()
        .unwrap();
    c.publish_status = PublishStatus::Delisted;
    f.models
        .models
        .put(&Key::of("C"), &Key::empty(), &c)
        .await
        .unwrap();
    f.models.index_public(&c).await.unwrap();
    assert_eq!(
        f.order(Board::MostUsed, Window::Week).await,
        ids(&["A", "B"])
    );

    // Creators: ann 101 all time, cat 11, bob 9.
    let (creators, total) = f
        .ranks
        .portfolio_star(Window::All, 0, 10, f.now)
        .await
        .unwrap();
    assert_eq!(total, 3);
    let got: Vec<&str> = creators.iter().map(|c| c.account.id.as_str()).collect();
    assert_eq!(got, ["ann", "cat", "bob"]);
}

#[tokio::test]
async fn keyed_events_and_likes_count_once() {
    let f = fixture().await;
    f.model("M", "meg", "sd", 1, &[]).await;
    let at = f.now;
    let r = &f.ranks;
    assert!(r
        .record("M", "meg", ModelEvent::Use, at, Some("task-1"))
        .await
        .unwrap());
    assert!(!r
        .record("M", "meg", ModelEvent::Use, at, Some("task-1"))
        .await
        .unwrap());
    // The same key for another kind of event is another event.
    assert!(r
        .record("M", "meg", ModelEvent::Earning(5), at, Some("task-1"))
        .await
        .unwrap());
    assert!(!r
        .record("M", "meg", ModelEvent::Earning(5), at, Some("task-1"))
        .await
        .unwrap());
    let s = r.stats("M").await.unwrap();
    assert_eq!((s.uses, s.earnings), (1, 5));

    // Concurrent events lose nothing (compare-and-set).
    let mut joins = Vec::new();
    for n in 0..20 {
        let r = r.clone();
        joins.push(tokio::spawn(async move {
            r.record(
                "M",
                "meg",
                ModelEvent::Download,
                at,
                Some(&format!("dl-{n}")),
            )
            .await
            .unwrap()
        }));
    }
    for j in joins {
        assert!(j.await.unwrap());
    }
    assert_eq!(r.stats("M").await.unwrap().downloads, 20);

    // Likes: twice is once, undo twice is once.
    let like = |on| r.react("uma", "M", ModelReaction::Like, on, at);
    assert!(like(true).await.unwrap().liked);
    assert!(like(true).await.unwrap().liked);
    assert_eq!(r.stats("M").await.unwrap().likes, 1);
    assert!(!like(false).await.unwrap().liked);
    assert!(!like(false).await.unwrap().liked);
    assert_eq!(r.stats("M").await.unwrap().likes, 0);
    // Someone else's draft answers NotFound and counts nothing.
    let mut d = f
        .models
        .models
        .get(&Key::of("M"), &Key::empty())
        .await
        .unwrap()
        .unwrap();
    d.id = "D".into();
    d.publish_status = PublishStatus::Draft;
    f.models
        .models
        .put(&Key::of("D"), &Key::empty(), &d)
        .await
        .unwrap();
    let e = r
        .react("uma", "D", ModelReaction::Collect, true, at)
        .await
        .unwrap_err();
    assert_eq!(e.code, protocol::ErrorCode::NotFound);
    assert_eq!(r.stats("D").await.unwrap(), ModelStats::default());
}

#[tokio::test]
async fn recommend_prefers_the_viewers_family() {
    let f = three_models().await;
    // D: a new SDXL model nobody used; E: the viewer's own SDXL model.
    f.model("D", "dan", "sdxl", 1, &[]).await;
    f.model("E", "uma", "sdxl", 1, &[]).await;
    // Visitors get the weekly hottest.
    let got: Vec<String> = f
        .ranks
        .recommend(None, 10, f.now)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.model.model_id)
        .collect();
    assert_eq!(got, ids(&["B", "C", "A"]));
    // uma uses the SDXL LoRA B in a task (reported twice: counted once).
    for _ in 0..2 {
        f.ranks
            .task_used("t1", Some("uma"), &[("B".into(), "bob".into())], f.now)
            .await
            .unwrap();
    }
    let marks = f.ranks.marks_of("uma", 10).await.unwrap();
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].1.uses, 1);
    // uma's marks are all SDXL: D (SDXL, no figures) comes first, then the
    // others by weekly hot (C 14.4, A 7.7); her own E and the used B are
    // left out.
    let got: Vec<String> = f
        .ranks
        .recommend(Some("uma"), 10, f.now)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.model.model_id)
        .collect();
    assert_eq!(got, ids(&["D", "C", "A"]));

    // Packs: A with B twice (t2, t4), with C once (t3); t2 reported twice.
    for (t, other, owner) in [
        ("t2", "B", "bob"),
        ("t2", "B", "bob"),
        ("t4", "B", "bob"),
        ("t3", "C", "cat"),
    ] {
        f.ranks
            .task_used(
                t,
                None,
                &[("A".into(), "ann".into()), (other.into(), owner.into())],
                f.now,
            )
            .await
            .unwrap();
    }
    let pack = f.ranks.pack("A", None, 10, f.now).await.unwrap();
    let got: Vec<(&str, f64)> = pack
        .iter()
        .map(|r| (r.model.model_id.as_str(), r.value))
        .collect();
    assert_eq!(got, [("B", 2.0), ("C", 1.0)]);
    // Uses were counted once per task.
    assert_eq!(f.ranks.stats("B").await.unwrap().uses, 3 + 1 + 2);
}

#[tokio::test]
async fn categories_count_published_models() {
    let f = three_models().await;
    let all = f.ranks.categories(None, f.now).await.unwrap();
    let get = |k: &str| all.iter().find(|c| c.key == k).unwrap();
    // A: style + anime; B: "anime character"; C: "Landscape".
    assert_eq!(get("style").count, 1);
    assert_eq!(get("character").count, 1);
    assert_eq!(get("background").count, 1);
    assert_eq!(get("vehicle").count, 0);
    let subs = f.ranks.categories(Some("style"), f.now).await.unwrap();
    assert_eq!(subs.iter().find(|c| c.key == "anime").unwrap().count, 1);
    assert_eq!(subs.iter().find(|c| c.key == "realistic").unwrap().count, 0);
    assert!(f.ranks.categories(Some("nope"), f.now).await.is_err());
    // Live: a new model tagged with a vehicle counts at once.
    f.model("V", "vic", "sd", 0, &["car"]).await;
    let all = f.ranks.categories(None, f.now).await.unwrap();
    assert_eq!(all.iter().find(|c| c.key == "vehicle").unwrap().count, 1);
}

/// Claims of keyed events: days past the retention are pruned as whole
/// partitions, recent ones stay, and a replay of a recent event still
/// counts once; a keyed event older than the retention is not counted.
#[tokio::test]
async fn seen_claims_are_pruned_after_the_retention() {
    let f = fixture().await;
    f.model("M", "meg", "sd", 20, &[]).await;
    let r = &f.ranks;
    let kept = r.inner.settings.seen_retention_days;
    assert_eq!(kept, 8);
    let old_at = f.now - (kept + 2) * DAY_MS;
    let edge_at = f.now - kept * DAY_MS;
    // Claims made back then (their own "now"), one per old day.
    assert!(r.claim("use:old-task:M", old_at, old_at).await.unwrap());
    assert!(r.claim("dl:v1:ann:x:M", old_at, old_at).await.unwrap());
    assert!(r.claim("use:edge-task:M", edge_at, edge_at).await.unwrap());
    assert!(r
        .record("M", "meg", ModelEvent::Use, f.now, Some("task-now"))
        .await
        .unwrap());
    let rows_of = |day: i64| {
        let r = r.clone();
        async move {
            let mut n = 0;
            for shard in 0..seen::SEEN_SHARDS {
                let pk = Key::empty().i64(day).i64(shard as i64);
                n += scan_all(&r.inner.seen, &pk, 1000).await.unwrap().len();
            }
            n
        }
    };
    let (old_day, edge_day, today) = (utc_day(old_at), utc_day(edge_at), utc_day(f.now));
    assert_eq!(rows_of(old_day).await, 2);
    assert_eq!(rows_of(edge_day).await, 1);
    assert_eq!(rows_of(today).await, 1);

    assert_eq!(r.prune_seen(f.now).await.unwrap(), 1);
    assert_eq!(rows_of(old_day).await, 0);
    assert_eq!(rows_of(edge_day).await, 1);
    assert_eq!(rows_of(today).await, 1);
    // The index lists only the kept days; a second sweep has nothing to do.
    let index: Vec<i64> = scan_all(&r.inner.seen, &Key::empty().i64(-1).i64(0), 100)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|(ck, _)| ck.reader().i64())
        .collect();
    assert_eq!(index, vec![edge_day, today]);
    assert_eq!(r.prune_seen(f.now).await.unwrap(), 0);

    // A replay of a recent event still counts once.
    assert!(!r
        .record("M", "meg", ModelEvent::Use, f.now, Some("task-now"))
        .await
        .unwrap());
    assert!(!r.claim("use:edge-task:M", edge_at, f.now).await.unwrap());
    assert_eq!(r.stats("M").await.unwrap().uses, 1);
    // A keyed event older than the retention is not counted (its claim is gone).
    assert!(!r
        .record("M", "meg", ModelEvent::Use, old_at, Some("old-task"))
        .await
        .unwrap());
    assert_eq!(r.stats("M").await.unwrap().uses, 1);
    assert_eq!(rows_of(old_day).await, 0);
    // Co-use claims follow the same rule.
    let pair = ["M".to_owned(), "N".to_owned()];
    r.record_co_use(&pair, Some("task-now"), f.now)
        .await
        .unwrap();
    r.record_co_use(&pair, Some("task-now"), f.now)
        .await
        .unwrap();
    assert_eq!(
        r.inner
            .co_use
            .get(&Key::of("M"), &Key::of("N"))
            .await
            .unwrap(),
        Some(1)
    );
}
