//! Tests of `embedded.rs`.
use super::*;

#[test]
fn prefix_end_skips_trailing_ff() {
    assert_eq!(prefix_end(&[1, 2]), Some(vec![1, 3]));
    assert_eq!(prefix_end(&[1, 0xFF]), Some(vec![2]));
    assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
}

#[test]
fn partitions_do_not_overlap() {
    // "a" + ck "b..." must never fall inside partition "ab": the length prefix separates them.
    let a = partition_prefix(&Key::from_bytes(b"a".to_vec())).unwrap();
    let ab = partition_prefix(&Key::from_bytes(b"ab".to_vec())).unwrap();
    let row = row_key(
        &Key::from_bytes(b"a".to_vec()),
        &Key::from_bytes(b"b".to_vec()),
    )
    .unwrap();
    assert!(row.starts_with(&a));
    assert!(!row.starts_with(&ab));
}

use std::time::Duration;

const T: &TableDef = &super::super::tables::CONFORMANCE;
const C: &TableDef = &super::super::tables::CONFORMANCE_COUNTERS;

fn store() -> (tempfile::TempDir, EmbeddedStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    (dir, store)
}

/// Occupies the writer for `ms`, so that what is sent meanwhile queues
/// up and is taken as one batch. Answers once the writer is busy.
async fn hold_writer(store: &EmbeddedStore, ms: u64) -> tokio::task::JoinHandle<()> {
    let (started_tx, started) = std::sync::mpsc::channel::<()>();
    let started_tx = std::sync::Mutex::new(started_tx);
    let s = store.clone();
    let h = tokio::spawn(async move {
        s.write(0, move |_| {
            let _ = started_tx.lock().unwrap().send(());
            std::thread::sleep(Duration::from_millis(ms));
            Ok(())
        })
        .await
        .unwrap();
    });
    tokio::task::spawn_blocking(move || started.recv().unwrap())
        .await
        .unwrap();
    h
}

fn k(i: u64) -> Key {
    Key::empty().u64(i)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_writes_share_one_commit() {
    let (_d, store) = store();
    let blocker = hold_writer(&store, 300).await;
    let mut handles = Vec::new();
    for i in 0..100 {
        let s = store.clone();
        handles.push(tokio::spawn(async move {
            s.put(T, &Key::of("g"), &k(i), vec![1; 16]).await.unwrap();
            s.counter_add(C, &Key::of("g"), &Key::empty(), 1)
                .await
                .unwrap();
        }));
    }
    blocker.await.unwrap();
    for h in handles {
        h.await.unwrap();
    }
    let stats = store.write_stats();
    assert_eq!(stats.ops, 201);
    assert_eq!(stats.split_batches, 0);
    // The blocker, the batch of 100 puts queued behind it, then the
    // counter adds (sent as each put was answered): far fewer commits
    // than operations.
    assert!(stats.commits <= 10, "{stats:?}");
    assert_eq!(
        store
            .counter_get(C, &Key::of("g"), &Key::empty())
            .await
            .unwrap(),
        100
    );
    for i in 0..100 {
        assert!(store.get(T, &Key::of("g"), &k(i)).await.unwrap().is_some());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_or_panicking_write_fails_alone() {
    let (_d, store) = store();
    let blocker = hold_writer(&store, 300).await;
    let mut puts = Vec::new();
    for i in 0..20 {
        let s = store.clone();
        puts.push(tokio::spawn(async move {
            s.put(T, &Key::of("f"), &k(i), vec![2; 8]).await
        }));
    }
    let s = store.clone();
    let failing = tokio::spawn(async move {
        s.write(0, |txn| {
            // Writes, then fails: its write must not survive.
            let mut t = txn.open_table(regular_def(T)?).map_err(backend)?;
            t.insert(row_key(&Key::of("f"), &k(999))?.as_slice(), &b"x"[..])
                .map_err(backend)?;
            Err::<(), _>(StoreError::Backend("refused".into()))
        })
        .await
    });
    let s = store.clone();
    let panicking =
        tokio::spawn(async move { s.write(0, |_| -> StoreResult<()> { panic!("boom") }).await });
    // Two inserts of one row in the same batch: exactly one applies,
    // the other sees the first's write, as if run one after the other.
    let mut inserts = Vec::new();
    for v in [b"a", b"b"] {
        let s = store.clone();
        inserts.push(tokio::spawn(async move {
            s.cas(T, &Key::of("f-cas"), &Key::empty(), None, Some(v.to_vec()))
                .await
                .unwrap()
        }));
    }
    blocker.await.unwrap();
    for p in puts {
        p.await.unwrap().unwrap();
    }
    assert!(matches!(
        failing.await.unwrap(),
        Err(StoreError::Backend(m)) if m == "refused"
    ));
    assert!(matches!(
        panicking.await.unwrap(),
        Err(StoreError::Backend(_))
    ));
    let mut outcomes = Vec::new();
    for i in inserts {
        outcomes.push(i.await.unwrap());
    }
    assert_eq!(outcomes.iter().filter(|o| o.applied).count(), 1);
    let loser = outcomes.iter().find(|o| !o.applied).unwrap();
    let stored = store
        .get(T, &Key::of("f-cas"), &Key::empty())
        .await
        .unwrap();
    assert_eq!(loser.current, stored);

    assert!(store.write_stats().split_batches >= 1);
    assert_eq!(store.get(T, &Key::of("f"), &k(999)).await.unwrap(), None);
    for i in 0..20 {
        assert!(store.get(T, &Key::of("f"), &k(i)).await.unwrap().is_some());
    }
    // The writer lives on.
    store.put(T, &Key::of("f"), &k(500), vec![3]).await.unwrap();
    assert_eq!(
        store.get(T, &Key::of("f"), &k(500)).await.unwrap(),
        Some(vec![3])
    );
}

#[tokio::test]
async fn dropping_the_store_closes_the_file() {
    let (dir, store) = store();
    store.put(T, &Key::of("d"), &k(1), vec![1]).await.unwrap();
    drop(store);
    // The writer has let go of the database: it opens again at once.
    let again = EmbeddedStore::open(dir.path()).unwrap();
    assert_eq!(
        again.get(T, &Key::of("d"), &k(1)).await.unwrap(),
        Some(vec![1])
    );
}
