//! Lists' live figures in batched reads (the same answers as one read per
//! model, counted on a store that counts reads), and the model feeds' hot
//! and recommend orders with their snapshot paging.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

use infra::store::embedded::EmbeddedStore;
use infra::store::{CasOutcome, DynStore, Key, RawPage, ScanRange, Store, StoreResult, TableDef};
use protocol::models::{ModelType, PublishStatus, VersionSource, VersionStatus};
use protocol::square::feed::FeedRequest;

use super::*;
use crate::models::{model_view, ModelRow, VersionRow};

/// A store that counts single and batched reads.
struct Counting {
    inner: DynStore,
    gets: AtomicUsize,
    batches: AtomicUsize,
}

#[async_trait::async_trait]
impl Store for Counting {
    async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
        self.gets.fetch_add(1, AtomicOrdering::Relaxed);
        self.inner.get(t, pk, ck).await
    }
    async fn get_many(
        &self,
        t: &TableDef,
        keys: &[(Key, Key)],
    ) -> StoreResult<Vec<Option<Vec<u8>>>> {
        self.batches.fetch_add(1, AtomicOrdering::Relaxed);
        self.inner.get_many(t, keys).await
    }
    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
        self.inner.put(t, pk, ck, value).await
    }
    async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()> {
        self.inner.delete(t, pk, ck).await
    }
    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
        self.inner.delete_partition(t, pk).await
    }
    async fn scan(&self, t: &TableDef, pk: &Key, range: &ScanRange) -> StoreResult<RawPage> {
        self.inner.scan(t, pk, range).await
    }
    async fn cas(
        &self,
        t: &TableDef,
        pk: &Key,
        ck: &Key,
        expected: Option<&[u8]>,
        new: Option<Vec<u8>>,
    ) -> StoreResult<CasOutcome> {
        self.inner.cas(t, pk, ck, expected, new).await
    }
    async fn counter_add(&self, t: &TableDef, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()> {
        self.inner.counter_add(t, pk, ck, delta).await
    }
    async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64> {
        self.inner.counter_get(t, pk, ck).await
    }
    fn backend_name(&self) -> &'static str {
        "counting"
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Arc<Counting>,
    ranks: ModelRanks,
    models: ModelService,
    now: i64,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let inner: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("store")).unwrap());
    let store = Arc::new(Counting {
        inner,
        gets: AtomicUsize::new(0),
        batches: AtomicUsize::new(0),
    });
    let dyn_store: DynStore = store.clone();
    let settings = RankSettings {
        cache_ms: 0,
        ..RankSettings::default()
    };
    Fixture {
        ranks: ModelRanks::new(dyn_store.clone(), settings),
        models: ModelService::new(dyn_store),
        store,
        now: crate::accounts::now_millis(),
        _dir: dir,
    }
}

impl Fixture {
    /// A published model with `versions` versions (the last one trained
    /// when `trained`), published `age_hours` ago.
    async fn model(
        &self,
        id: &str,
        family: &str,
        age_hours: i64,
        versions: usize,
        trained: bool,
    ) -> ModelRow {
        let at = self.now - age_hours * 3_600_000;
        let vers: Vec<String> = (0..versions).map(|n| format!("{id}-v{n}")).collect();
        let m = ModelRow {
            id: id.into(),
            owner: "meg".into(),
            owner_name: "Meg".into(),
            name: format!("Model {id}"),
            model_type: ModelType::Lora,
            family: family.into(),
            variant: family.to_uppercase(),
            description: String::new(),
            tags: vec!["ink".into()],
            publish_status: PublishStatus::Published,
            nsfw: false,
            allow_download: true,
            agency_fee: 0,
            versions: vers.clone(),
            create_at: at,
            update_at: at,
            published_at: Some(at),
        };
        for (n, ver) in vers.iter().enumerate() {
            let v = VersionRow {
                ver_no: ver.clone(),
                model_id: id.into(),
                owner: "meg".into(),
                name: format!("v{n}"),
                description: String::new(),
                trained_words: vec![],
                status: VersionStatus::Ready,
                status_msg: String::new(),
                publish_status: if n == 0 {
                    PublishStatus::Published
                } else {
                    PublishStatus::Draft
                },
                source: if trained && n + 1 == versions {
                    VersionSource::Train
                } else {
                    VersionSource::Upload
                },
                file: None,
                images: vec![format!("https://example.com/{ver}.png")],
                weight: 0.8,
                train_task_id: None,
                create_at: at,
            };
            self.models
                .versions
                .put(&Key::of(ver), &Key::empty(), &v)
                .await
                .unwrap();
        }
        self.models
            .models
            .put(&Key::of(id), &Key::empty(), &m)
            .await
            .unwrap();
        self.models.index_public(&m).await.unwrap();
        m
    }

    fn reads(&self) -> (usize, usize) {
        (
            self.store.gets.swap(0, AtomicOrdering::Relaxed),
            self.store.batches.swap(0, AtomicOrdering::Relaxed),
        )
    }

    async fn feed(
        &self,
        body: serde_json::Value,
        viewer: Option<&str>,
    ) -> (Vec<String>, Option<String>) {
        let req: FeedRequest = serde_json::from_value(body).unwrap();
        let page = self
            .ranks
            .model_feed(&req, viewer, false, self.now)
            .await
            .unwrap();
        (
            page.items.into_iter().map(|c| c.id).collect(),
            page.next_cursor,
        )
    }

    /// Every page of a feed, following the cursors.
    async fn all_pages(&self, body: serde_json::Value, viewer: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut b = body.clone();
            if let Some(c) = &cursor {
                b["cursor"] = c.clone().into();
            }
            let (ids, next) = self.feed(b, viewer).await;
            out.extend(ids);
            match next {
                Some(n) => cursor = Some(n),
                None => return out,
            }
        }
    }
}

#[tokio::test]
async fn lists_read_live_figures_in_batches_with_the_same_answers() {
    let f = fixture();
    let mut rows = Vec::new();
    for n in 0..50 {
        rows.push(
            f.model(&format!("m{n:02}"), "sd", n, 1 + n as usize % 3, false)
                .await,
        );
    }
    for (n, m) in rows.iter().enumerate() {
        for k in 0..n % 4 {
            let ev = [ModelEvent::Use, ModelEvent::Download, ModelEvent::Like(1)][k % 3];
            f.ranks.record(&m.id, "meg", ev, f.now, None).await.unwrap();
        }
    }
    f.ranks
        .react("uma", "m07", ModelReaction::Like, true, f.now)
        .await
        .unwrap();
    for viewer in [None, Some("uma"), Some("meg")] {
        // One read per model and version: the path of a model's detail.
        let mut one_by_one = Vec::new();
        for m in &rows {
            let versions = f.models.versions_of(m).await.unwrap();
            let stats = f.ranks.stats(&m.id).await.unwrap();
            one_by_one.push(model_view(m, &versions, stats, viewer));
        }
        assert!(one_by_one
            .iter()
            .any(|v| v.stats.likes > 0 && v.stats.uses > 0));
        f.reads();
        let batched = f.ranks.views_of(&rows, viewer).await.unwrap();
        assert_eq!(f.reads(), (0, 2), "versions and figures: one batch each");
        assert_eq!(batched, one_by_one);

        let cards = f.ranks.cards(&rows, viewer).await.unwrap();
        let batches = if viewer.is_some() { 4 } else { 2 };
        assert_eq!(f.reads(), (0, batches));
        for (c, v) in cards.iter().zip(&one_by_one) {
            assert_eq!(c.id, v.model_id);
            assert_eq!((c.likes, c.collects), (v.stats.likes, v.stats.collects));
            assert_eq!(c.cover.url, v.cover.clone().unwrap_or_default());
            assert_eq!(c.liked, viewer == Some("uma") && c.id == "m07");
        }
    }
}

#[tokio::test]
async fn hot_and_recommend_orders_page_over_a_snapshot() {
    let f = fixture();
    // m0 is the newest, m6 the oldest; m7 is three days old.
    for (n, family) in ["sd", "sd", "sdxl", "sd", "sdxl", "sd", "sdxl"]
        .iter()
        .enumerate()
    {
        f.model(&format!("m{n}"), family, n as i64, 1, n == 4).await;
    }
    f.model("m7", "sd", 72, 1, false).await;
    let ev = |id: &'static str, ev: ModelEvent, n: usize| {
        let r = f.ranks.clone();
        let now = f.now;
        async move {
            for _ in 0..n {
                r.record(id, "meg", ev, now, None).await.unwrap();
            }
        }
    };
    ev("m5", ModelEvent::Use, 3).await;
    ev("m3", ModelEvent::Use, 1).await;
    ev("m7", ModelEvent::Download, 10).await;
    f.ranks
        .react("uma", "m6", ModelReaction::Like, true, f.now)
        .await
        .unwrap();
    let ids = |xs: &[&str]| xs.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();

    // hot: the documented hot value, older models with figures above newer
    // ones without; no figures: newest first.
    let hot = ids(&["m7", "m5", "m6", "m3", "m0", "m1", "m2", "m4"]);
    let body = serde_json::json!({"order_by": "hot", "page_size": 3});
    assert_eq!(f.all_pages(body.clone(), None).await, hot);
    // new is unchanged.
    let new = ids(&["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    assert_eq!(
        f.all_pages(serde_json::json!({"order_by": "new", "page_size": 3}), None)
            .await,
        new
    );
    // Filters apply to every order.
    let xl = serde_json::json!({"order_by": "hot", "base_models": ["sdxl"], "page_size": 2});
    assert_eq!(f.all_pages(xl, None).await, ids(&["m6", "m2", "m4"]));
    let day = serde_json::json!({"order_by": "hot", "time_type": "day", "page_size": 50});
    assert_eq!(
        f.feed(day, None).await.0,
        ids(&["m5", "m6", "m3", "m0", "m1", "m2", "m4"])
    );
    let req: FeedRequest = serde_json::from_value(serde_json::json!({"order_by": "hot"})).unwrap();
    let trained = f.ranks.model_feed(&req, None, true, f.now).await.unwrap();
    assert_eq!(
        trained
            .items
            .iter()
            .map(|c| c.id.clone())
            .collect::<Vec<_>>(),
        ids(&["m4"])
    );

    // Paging is stable: figures that change after the first page do not
    // make later pages repeat or skip a model.
    let (first, cursor) = f.feed(body.clone(), None).await;
    assert_eq!(first, hot[..3].to_vec());
    ev("m4", ModelEvent::Download, 50).await;
    let mut rest = Vec::new();
    let mut cursor = cursor;
    while let Some(c) = cursor {
        let mut b = body.clone();
        b["cursor"] = c.into();
        let (page, next) = f.feed(b, None).await;
        rest.extend(page);
        cursor = next;
    }
    assert_eq!([first, rest].concat(), hot);
    // A fresh first page sees the new figures.
    assert_eq!(f.feed(body.clone(), None).await.0[0], "m4");

    // recommend: uma liked an sdxl model, so the other sdxl models come
    // first; the liked one follows the rest in hot order. Visitors get hot.
    let rec = serde_json::json!({"order_by": "recommend", "page_size": 3});
    let hot_now = f.all_pages(body.clone(), None).await;
    assert_eq!(f.all_pages(rec.clone(), None).await, hot_now);
    let mine = f.all_pages(rec.clone(), Some("uma")).await;
    assert_eq!(mine[..2].to_vec(), ids(&["m4", "m2"]));
    assert_eq!(mine.last().map(String::as_str), Some("m6"));
    let mut sorted = mine.clone();
    sorted.sort();
    assert_eq!(sorted, new);
    // The creator's own models are left out of their recommend list and
    // follow in hot order.
    assert_eq!(f.all_pages(rec, Some("meg")).await, hot_now);

    // Bad cursors answer InvalidParams.
    for c in ["x", "r1.2", "rx.1.abc", "r1.1.a-b", "1.m0"] {
        let req: FeedRequest =
            serde_json::from_value(serde_json::json!({"order_by": "hot", "cursor": c})).unwrap();
        let e = f
            .ranks
            .model_feed(&req, None, false, f.now)
            .await
            .unwrap_err();
        assert_eq!(e.code, protocol::ErrorCode::InvalidParams, "{c}");
    }
    // A cursor whose snapshot is gone ranks again at its own time.
    let req: FeedRequest = serde_json::from_value(
        serde_json::json!({"order_by": "hot", "page_size": 2, "cursor": format!("r2.{}.gone", f.now)}),
    )
    .unwrap();
    let page = f.ranks.model_feed(&req, None, false, f.now).await.unwrap();
    let got: Vec<String> = page.items.into_iter().map(|c| c.id).collect();
    assert_eq!(got, hot_now[2..4].to_vec());
}
