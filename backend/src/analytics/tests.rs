//! The whole path on a fixture with a fixed clock: ingest (client and
//! server events) → buffer → Parquet files → the questions, with figures
//! worked out by hand; what is stored (truncated address, no device id);
//! opt-outs; daily salts.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use arrow_array::{Array, StringArray};
use infra::objects::{LocalObjects, ObjectKey};
use infra::store::embedded::EmbeddedStore;
use protocol::analytics::query::{self, day_start_ms, parse_day};
use protocol::analytics::validate::{parse_batch, Call};
use protocol::analytics::Origin;
use serde_json::json;

use super::parquet_sink::{decode_all, ParquetSink};
use super::privacy::RequestFacts;
use super::row::{ERRORS, PEOPLE};
use super::settings::AnalyticsSettings;
use super::*;

struct FixedClock(AtomicI64);

impl Clock for FixedClock {
    fn now_millis(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

struct Fixture {
    a: Analytics,
    clock: Arc<FixedClock>,
    store: DynStore,
    objects: DynObjects,
    sink: Arc<ParquetSink>,
    _dir: tempfile::TempDir,
}

const H: i64 = 3_600_000;

fn d0() -> i32 {
    parse_day("2026-11-02").unwrap()
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("store")).unwrap());
        let objects: DynObjects = Arc::new(LocalObjects::new(dir.path().join("objects")).unwrap());
        let sink = Arc::new(ParquetSink::new(store.clone(), objects.clone()));
        let clock = Arc::new(FixedClock(AtomicI64::new(day_start_ms(d0()))));
        let a = Analytics::new(
            store.clone(),
            sink.clone(),
            AnalyticsSettings::default(),
            clock.clone(),
        );
        Fixture {
            a,
            clock,
            store,
            objects,
            sink,
            _dir: dir,
        }
    }

    fn at(&self, day_off: i32, hour: f64) {
        self.clock.0.store(
            day_start_ms(d0() + day_off) + (hour * H as f64) as i64,
            Ordering::SeqCst,
        );
    }

    async fn client(
        &self,
        device: &str,
        account: Option<&str>,
        body: serde_json::Value,
        call: Call,
    ) {
        let batch = parse_batch(&body, call, Origin::Client).unwrap();
        let r = self
            .a
            .ingest(&device_facts(device), account, batch)
            .await
            .unwrap();
        assert_eq!(r.dropped, 0, "{body}");
    }

    async fn view(&self, device: &str, account: Option<&str>) {
        self.client(
            device,
            account,
            json!({"name": "page_view", "page": "/en/"}),
            Call::Events,
        )
        .await;
    }

    async fn server(&self, device: &str, account: &str, name: &'static str) {
        self.a
            .emit(&device_facts(device), Some(account), name, json!({}))
            .await;
    }
}

fn device_facts(device: &str) -> RequestFacts {
    RequestFacts {
        ip: Some("203.0.113.77".parse().unwrap()),
        user_agent: Some(
            "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0".into(),
        ),
        device: Some(device.into()),
        do_not_track: false,
    }
}

/// The story of `protocol::analytics::query::tests::fixture`, told through
/// the real ingest path.
async fn story(f: &Fixture) {
    f.at(0, 10.0);
    f.view("device-v1", None).await;
    f.at(0, 10.1);
    f.server("device-v1", "A", "sign_up").await;
    f.at(0, 11.0);
    f.server("device-v1", "A", "generation").await;
    f.at(0, 12.0);
    f.view("device-v2", None).await;
    f.at(0, 13.0);
    f.view("device-v3", None).await;
    f.at(0, 13.2);
    f.server("device-v3", "B", "sign_up").await;
    f.at(0, 13.8);
    f.view("device-v4", None).await;
    f.at(0, 14.0);
    f.view("device-v4", Some("C")).await;
    f.at(0, 15.0);
    f.server("device-v4", "C", "generation").await;
    f.at(0, 16.0);
    f.view("device-v5", None).await;
    f.at(0, 16.5);
    f.server("device-v5", "E", "sign_up").await;
    f.a.flush().await.unwrap();
    f.at(1, 8.0);
    f.view("device-w1", Some("A")).await;
    f.at(1, 9.0);
    f.a.purchase("A", protocol::mall::OrderKind::Credits, 990, "USD")
        .await;
    f.at(1, 10.0);
    f.view("device-w2", None).await;
    f.at(1, 18.0);
    let boom = json!({"errors": [
        {"message": "boom", "release": "1.0.0"},
        {"message": "boom", "release": "1.0.0"},
    ]});
    f.client("device-w1", Some("A"), boom, Call::Errors).await;
    let bad = json!([{"message": "bad", "release": "1.1.0"}, {"message": "bad"}]);
    f.client("device-w2", None, bad, Call::Errors).await;
    f.a.flush().await.unwrap();
    f.at(8, 9.0);
    f.view("device-x1", Some("A")).await;
    f.view("device-x2", Some("B")).await;
    f.at(9, 9.0);
    f.server("device-x3", "E", "generation").await;
    f.at(15, 9.0);
    f.view("device-y1", Some("A")).await;
}

#[tokio::test]
async fn the_questions_answer_exactly_on_the_fixture() {
    let f = Fixture::new();
    story(&f).await;
    let d = d0();
    let people = f.a.facts(d, d + 15, PEOPLE).await.unwrap();
    let days = query::dau(&people, d, d + 2);
    let figures: Vec<(u32, u32, u32)> = days
        .iter()
        .map(|x| (x.active, x.accounts, x.visitors))
        .collect();
    assert_eq!(figures, vec![(5, 4, 1), (2, 1, 1), (0, 0, 0)]);
    let funnel = query::funnel(&people, d, d + 1, 7);
    let counts: Vec<u32> = funnel.steps.iter().map(|s| s.count).collect();
    assert_eq!(counts, vec![6, 3, 1, 1]);
    let cohorts = query::retention(&people, d, d + 6, f.a.today());
    assert_eq!(cohorts.len(), 1);
    assert_eq!(
        (cohorts[0].size, cohorts[0].retained.clone()),
        (3, vec![3, 3, 1])
    );
    let errors = query::errors_by_release(&f.a.facts(d, d + 1, ERRORS).await.unwrap(), d, d + 1);
    let rows: Vec<(String, u32)> = errors
        .iter()
        .map(|r| (r.release.clone(), r.errors))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("1.0.0".into(), 2),
            ("1.1.0".into(), 1),
            ("unknown".into(), 1)
        ]
    );
    // People questions read only their columns: no release, no message.
    assert!(people
        .iter()
        .all(|p| p.release.is_none() && p.message.is_none()));
    // One file per day and flush.
    assert_eq!(f.sink.files_of(d).await.unwrap().len(), 1);
    assert_eq!(f.sink.files_of(d + 1).await.unwrap().len(), 1);
}

#[tokio::test]
async fn storage_keeps_a_truncated_address_and_no_device_id() {
    let f = Fixture::new();
    f.at(0, 9.0);
    f.view("device-secret-123", None).await;
    f.a.flush().await.unwrap();
    let files = f.sink.files_of(d0()).await.unwrap();
    assert_eq!(files.len(), 1);
    let bytes = f
        .objects
        .get(&ObjectKey::parse(&files[0].key).unwrap())
        .await
        .unwrap()
        .unwrap()
        .bytes;
    assert_eq!(&bytes[..4], b"PAR1");
    let batches = decode_all(bytes).unwrap();
    let b = &batches[0];
    let ip = b
        .column_by_name("ip")
        .unwrap()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(ip.value(0), "203.0.113.0");
    let browser = b
        .column_by_name("browser")
        .unwrap()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(browser.value(0), "Firefox");
    for col in b.columns() {
        if let Some(s) = col.as_any().downcast_ref::<StringArray>() {
            for i in 0..s.len() {
                if s.is_valid(i) {
                    assert!(!s.value(i).contains("device-secret-123"), "{}", s.value(i));
                    assert!(!s.value(i).contains("203.0.113.77"), "{}", s.value(i));
                }
            }
        }
    }
}

#[tokio::test]
async fn opt_outs_store_nothing() {
    let f = Fixture::new();
    let batch =
        || parse_batch(&json!({"name": "page_view"}), Call::Events, Origin::Client).unwrap();
    let mut dnt = device_facts("device-dnt-1");
    dnt.do_not_track = true;
    let r = f.a.ingest(&dnt, None, batch()).await.unwrap();
    assert!(r.opted_out);
    assert_eq!((r.accepted, r.dropped), (0, 1));
    f.a.set_opt_out("Z", true).await.unwrap();
    let r =
        f.a.ingest(&device_facts("device-z-1"), Some("Z"), batch())
            .await
            .unwrap();
    assert!(r.opted_out);
    // Server events of an opted-out account are dropped too.
    f.a.emit(&device_facts("device-z-1"), Some("Z"), "sign_up", json!({}))
        .await;
    assert_eq!(f.a.flush().await.unwrap(), 0);
    f.a.set_opt_out("Z", false).await.unwrap();
    let r =
        f.a.ingest(&device_facts("device-z-1"), Some("Z"), batch())
            .await
            .unwrap();
    assert_eq!((r.accepted, r.opted_out), (1, false));
    // Crawlers are dropped with their reason.
    let bot = RequestFacts {
        user_agent: Some("Googlebot/2.1".into()),
        ..device_facts("device-bot-1")
    };
    let r = f.a.ingest(&bot, None, batch()).await.unwrap();
    assert_eq!(r.reasons, vec![(protocol::analytics::DropReason::Bot, 1)]);
    assert_eq!(f.a.flush().await.unwrap(), 1);
}

#[tokio::test]
async fn the_visitor_hash_changes_with_the_day_and_old_salts_are_forgotten() {
    let f = Fixture::new();
    f.at(0, 9.0);
    f.view("device-same-1", None).await;
    f.at(1, 9.0);
    f.view("device-same-1", None).await;
    f.a.flush().await.unwrap();
    let facts = f.a.facts(d0(), d0() + 1, PEOPLE).await.unwrap();
    assert_eq!(facts.len(), 2);
    assert_ne!(facts[0].visitor, facts[1].visitor);
    let salts: Table<SaltRow> = Table::new(f.store.clone(), &tables::ANALYTICS_SALTS);
    let page = salts
        .scan(&Key::of("salt"), &ScanRange::all(10))
        .await
        .unwrap();
    assert_eq!(page.rows.len(), 1, "only today's salt is kept");
}

#[tokio::test]
async fn compaction_makes_one_file_of_a_past_day_and_changes_no_figure() {
    let f = Fixture::new();
    story(&f).await;
    f.a.flush().await.unwrap();
    // Day 0 in three more files.
    for (h, device) in [
        (20.0, "device-late-1"),
        (21.0, "device-late-2"),
        (22.0, "device-late-3"),
    ] {
        f.at(0, h);
        f.view(device, None).await;
        f.a.flush().await.unwrap();
    }
    let d = d0();
    assert_eq!(f.sink.files_of(d).await.unwrap().len(), 4);
    f.at(15, 12.0);
    let before = f.a.facts(d, d + 15, ERRORS).await.unwrap();
    let n = f.sink.compact_past(f.a.today(), 0).await.unwrap();
    assert_eq!(n, 4, "only day 0 had several files");
    let files = f.sink.files_of(d).await.unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].replaces.len(), 4);
    let mut after = f.a.facts(d, d + 15, ERRORS).await.unwrap();
    let mut before = before;
    before.sort_by_key(|x| (x.ts, x.name.clone()));
    after.sort_by_key(|x| (x.ts, x.name.clone()));
    assert_eq!(before, after);
    // Claimed once: a second pass does nothing.
    assert_eq!(f.sink.compact_past(f.a.today(), 0).await.unwrap(), 0);
    // The rewritten file keeps every column.
    let bytes = f
        .objects
        .get(&ObjectKey::parse(&files[0].key).unwrap())
        .await
        .unwrap()
        .unwrap()
        .bytes;
    let batches = decode_all(bytes).unwrap();
    let ip = batches[0]
        .column_by_name("ip")
        .unwrap()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(ip.value(0), "203.0.113.0");
    let props = batches[0]
        .column_by_name("props")
        .unwrap()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert!(props.iter().flatten().all(|p| p.starts_with('{')));
}

#[tokio::test]
async fn retention_deletes_the_days_past_it_once_and_keeps_the_rest() {
    let f = Fixture::new();
    let d = d0();
    for (day, device) in [(0, "device-old"), (100, "device-mid"), (185, "device-new")] {
        f.at(day, 10.0);
        f.view(device, None).await;
        f.a.flush().await.unwrap();
    }
    let old_key = f.sink.files_of(d).await.unwrap()[0].key.clone();
    let all = |f: &Fixture| {
        let a = f.a.clone();
        async move { a.facts(d, d + 400, PEOPLE).await.unwrap().len() }
    };
    assert_eq!(all(&f).await, 3);

    // Day 185 with 180 days kept: the cutoff is day 5, so day 0 goes.
    assert_eq!(f.a.sweep_retention().await.unwrap(), Some(1));
    assert!(f.sink.files_of(d).await.unwrap().is_empty());
    assert!(f
        .objects
        .get(&ObjectKey::parse(&old_key).unwrap())
        .await
        .unwrap()
        .is_none());
    assert_eq!(all(&f).await, 2);
    assert_eq!(f.sink.files_of(d + 100).await.unwrap().len(), 1);
    // Once per cutoff day.
    assert_eq!(f.a.sweep_retention().await.unwrap(), None);

    // 181 days after day 100: it goes too, day 185 stays.
    f.at(281, 0.5);
    assert_eq!(f.a.sweep_retention().await.unwrap(), Some(1));
    assert!(f.sink.files_of(d + 100).await.unwrap().is_empty());
    assert_eq!(f.sink.files_of(d + 185).await.unwrap().len(), 1);
    assert_eq!(all(&f).await, 1);

    // Retention 0 keeps everything.
    let keep = Analytics::new(
        f.store.clone(),
        f.sink.clone(),
        AnalyticsSettings {
            retention_days: 0,
            ..AnalyticsSettings::default()
        },
        f.clock.clone(),
    );
    f.at(2000, 0.0);
    assert_eq!(keep.sweep_retention().await.unwrap(), None);
    assert_eq!(f.sink.files_of(d + 185).await.unwrap().len(), 1);
}
