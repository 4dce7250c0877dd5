#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The embedded store under many concurrent writers (group commit): every
//! acknowledged write is durable and visible after a reopen, writes were
//! really shared among commits, and compare-and-set and counters keep their
//! one-at-a-time semantics when their calls land in the same batch.

use std::sync::Arc;

use easel_infra::store::embedded::EmbeddedStore;
use easel_infra::store::{tables, Counters, DynStore, Key, ScanRange, Table, TableDef};

const T: &TableDef = &tables::CONFORMANCE;
const C: &TableDef = &tables::CONFORMANCE_COUNTERS;

const TASKS: u64 = 64;
const PUTS_PER_TASK: u64 = 2000 / TASKS + 1;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_are_all_durable_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let dyn_store: DynStore = Arc::new(store.clone());
    let mut handles = Vec::new();
    for t in 0..TASKS {
        let s = dyn_store.clone();
        handles.push(tokio::spawn(async move {
            for i in 0..PUTS_PER_TASK {
                s.put(
                    T,
                    &Key::of("many"),
                    &Key::empty().u64(t).u64(i),
                    format!("{t}/{i}").into_bytes(),
                )
                .await
                .unwrap();
                s.counter_add(C, &Key::of("many"), &Key::empty(), 1)
                    .await
                    .unwrap();
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    let stats = store.write_stats();
    let total = TASKS * PUTS_PER_TASK;
    assert_eq!(stats.ops, 2 * total);
    assert_eq!(stats.split_batches, 0);
    eprintln!(
        "{} writes in {} commits ({:.1} per commit)",
        stats.ops,
        stats.commits,
        stats.ops as f64 / stats.commits as f64
    );
    assert!(
        stats.commits < stats.ops / 2,
        "64 concurrent writers should share commits: {stats:?}"
    );
    drop(dyn_store);
    drop(store);

    let store: DynStore = Arc::new(EmbeddedStore::open(dir.path()).unwrap());
    let mut seen = 0u64;
    let mut paging = None;
    loop {
        let page = store
            .scan(T, &Key::of("many"), &ScanRange::all(500).after(paging))
            .await
            .unwrap();
        for (ck, v) in &page.rows {
            let k = Key::from_bytes(ck.clone());
            let mut r = k.reader();
            let (t, i) = (r.u64().unwrap(), r.u64().unwrap());
            assert_eq!(v, &format!("{t}/{i}").into_bytes());
            seen += 1;
        }
        paging = page.paging;
        if paging.is_none() {
            break;
        }
    }
    assert_eq!(seen, total);
    assert_eq!(
        store
            .counter_get(C, &Key::of("many"), &Key::empty())
            .await
            .unwrap(),
        total as i64
    );
}

/// Many tasks increment one row by compare-and-set (read, then CAS, retried
/// when lost): under batching, losers see the winner's write and retry, so
/// no increment is lost and none is applied twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cas_increments_under_contention_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let store: DynStore = Arc::new(EmbeddedStore::open(dir.path()).unwrap());
    let table: Table<u64> = Table::new(store.clone(), &tables::CONFORMANCE);
    let counters = Counters::new(store.clone(), &tables::CONFORMANCE_COUNTERS);
    let pk = Key::of("contended");
    table
        .insert_if_absent(&pk, &Key::empty(), &0)
        .await
        .unwrap()
        .unwrap();
    let mut handles = Vec::new();
    for _ in 0..32 {
        let table = table.clone();
        let counters = counters.clone();
        let pk = pk.clone();
        handles.push(tokio::spawn(async move {
            for _ in 0..10 {
                table
                    .update(&pk, &Key::empty(), None, |v| *v += 1)
                    .await
                    .unwrap()
                    .unwrap();
                counters.add(&pk, &Key::empty(), 3).await.unwrap();
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    assert_eq!(table.get(&pk, &Key::empty()).await.unwrap(), Some(320));
    assert_eq!(counters.get(&pk, &Key::empty()).await.unwrap(), 960);
}
