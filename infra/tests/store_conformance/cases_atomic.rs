//! The conformance cases of compare-and-set, counters, table kinds,
//! partitions, whole-table walks and typed tables (see `main.rs`).

use super::*;

pub(crate) async fn cas_insert_if_absent(store: DynStore) {
    let (pk, ck) = (Key::of("cas-insert"), Key::empty());
    let first = store
        .cas(T, &pk, &ck, None, Some(b"first".to_vec()))
        .await
        .unwrap();
    assert!(first.applied);
    let second = store
        .cas(T, &pk, &ck, None, Some(b"second".to_vec()))
        .await
        .unwrap();
    assert!(!second.applied);
    assert_eq!(
        second.current.as_deref(),
        Some(&b"first"[..]),
        "a failed insert reports the present value"
    );
    assert_eq!(
        store.get(T, &pk, &ck).await.unwrap().as_deref(),
        Some(&b"first"[..])
    );
}

pub(crate) async fn cas_replace(store: DynStore) {
    let (pk, ck) = (Key::of("cas-replace"), Key::of("row"));
    store.put(T, &pk, &ck, b"v1".to_vec()).await.unwrap();
    let wrong = store
        .cas(T, &pk, &ck, Some(b"nope"), Some(b"v2".to_vec()))
        .await
        .unwrap();
    assert!(!wrong.applied);
    assert_eq!(wrong.current.as_deref(), Some(&b"v1"[..]));
    assert_eq!(
        store.get(T, &pk, &ck).await.unwrap().as_deref(),
        Some(&b"v1"[..])
    );
    let right = store
        .cas(T, &pk, &ck, Some(b"v1"), Some(b"v2".to_vec()))
        .await
        .unwrap();
    assert!(right.applied);
    assert_eq!(
        store.get(T, &pk, &ck).await.unwrap().as_deref(),
        Some(&b"v2"[..])
    );
    // Expecting a value on a missing row fails and reports no row.
    let missing = store
        .cas(
            T,
            &pk,
            &Key::of("absent"),
            Some(b"v1"),
            Some(b"v2".to_vec()),
        )
        .await
        .unwrap();
    assert!(!missing.applied);
    assert_eq!(missing.current, None);
    assert_eq!(store.get(T, &pk, &Key::of("absent")).await.unwrap(), None);
}

pub(crate) async fn cas_delete(store: DynStore) {
    let (pk, ck) = (Key::of("cas-delete"), Key::of("row"));
    store.put(T, &pk, &ck, b"keep".to_vec()).await.unwrap();
    let wrong = store.cas(T, &pk, &ck, Some(b"other"), None).await.unwrap();
    assert!(!wrong.applied);
    assert_eq!(wrong.current.as_deref(), Some(&b"keep"[..]));
    assert!(store.get(T, &pk, &ck).await.unwrap().is_some());
    let right = store.cas(T, &pk, &ck, Some(b"keep"), None).await.unwrap();
    assert!(right.applied);
    assert_eq!(store.get(T, &pk, &ck).await.unwrap(), None);
    let again = store.cas(T, &pk, &ck, Some(b"keep"), None).await.unwrap();
    assert!(!again.applied);
    assert_eq!(again.current, None);
    // Once deleted, insert-if-absent succeeds again.
    assert!(
        store
            .cas(T, &pk, &ck, None, Some(b"back".to_vec()))
            .await
            .unwrap()
            .applied
    );
}

pub(crate) async fn cas_has_no_lost_updates(store: DynStore) {
    let (pk, ck) = (Key::of("cas-race"), Key::empty());
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let store = store.clone();
            let (pk, ck) = (pk.clone(), ck.clone());
            tokio::spawn(async move {
                for attempt in 0.. {
                    assert!(attempt < 1000, "cas never succeeded");
                    let current = store.get(T, &pk, &ck).await.unwrap();
                    let now = current
                        .as_deref()
                        .map_or(0, |b| u64::from_be_bytes(b.try_into().unwrap()));
                    let next = (now + 1).to_be_bytes().to_vec();
                    let out = store
                        .cas(T, &pk, &ck, current.as_deref(), Some(next))
                        .await
                        .unwrap();
                    if out.applied {
                        return;
                    }
                    assert_ne!(
                        out.current, current,
                        "a refused cas reports the value it lost to"
                    );
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let end = store.get(T, &pk, &ck).await.unwrap().unwrap();
    assert_eq!(u64::from_be_bytes(end.try_into().unwrap()), 20);
}

pub(crate) async fn counters_add_and_read(store: DynStore) {
    let pk = Key::of("counters");
    assert_eq!(store.counter_get(C, &pk, &Key::of("x")).await.unwrap(), 0);
    store.counter_add(C, &pk, &Key::of("x"), 5).await.unwrap();
    store.counter_add(C, &pk, &Key::of("x"), -8).await.unwrap();
    store.counter_add(C, &pk, &Key::of("y"), 1).await.unwrap();
    assert_eq!(store.counter_get(C, &pk, &Key::of("x")).await.unwrap(), -3);
    assert_eq!(store.counter_get(C, &pk, &Key::of("y")).await.unwrap(), 1);
    assert_eq!(
        store
            .counter_get(C, &Key::of("counters-other"), &Key::of("x"))
            .await
            .unwrap(),
        0
    );
    store
        .counter_add(C, &pk, &Key::of("x"), 1 << 40)
        .await
        .unwrap();
    assert_eq!(
        store.counter_get(C, &pk, &Key::of("x")).await.unwrap(),
        (1 << 40) - 3
    );
}

pub(crate) async fn counters_concurrent_adds_sum(store: DynStore) {
    let (pk, ck) = (Key::of("counter-race"), Key::empty());
    let tasks: Vec<_> = (1..=10i64)
        .map(|i| {
            let store = store.clone();
            let (pk, ck) = (pk.clone(), ck.clone());
            tokio::spawn(async move {
                for _ in 0..5 {
                    store.counter_add(C, &pk, &ck, i).await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(store.counter_get(C, &pk, &ck).await.unwrap(), 5 * 55);
}

pub(crate) async fn wrong_kind_is_refused(store: DynStore) {
    let (pk, ck) = (Key::of("kind"), Key::empty());
    let counter_table = |r: Result<_, StoreError>| match r {
        Err(StoreError::WrongKind(name, TableKind::Regular)) => assert_eq!(name, C.name),
        other => panic!("expected WrongKind(.., Regular), got {other:?}"),
    };
    counter_table(store.get(C, &pk, &ck).await.map(|_| ()));
    counter_table(store.put(C, &pk, &ck, b"x".to_vec()).await);
    counter_table(store.delete(C, &pk, &ck).await);
    counter_table(store.scan(C, &pk, &ScanRange::all(1)).await.map(|_| ()));
    counter_table(
        store
            .cas(C, &pk, &ck, None, Some(b"x".to_vec()))
            .await
            .map(|_| ()),
    );
    let regular_table = |r: Result<_, StoreError>| match r {
        Err(StoreError::WrongKind(name, TableKind::Counter)) => assert_eq!(name, T.name),
        other => panic!("expected WrongKind(.., Counter), got {other:?}"),
    };
    regular_table(store.counter_add(T, &pk, &ck, 1).await);
    regular_table(store.counter_get(T, &pk, &ck).await.map(|_| ()));
    // Nothing was written by the refused calls.
    assert_eq!(store.get(T, &pk, &ck).await.unwrap(), None);
    assert_eq!(store.counter_get(C, &pk, &ck).await.unwrap(), 0);
}

pub(crate) async fn delete_partition_removes_only_it(store: DynStore) {
    let a = Key::of("dp");
    let b = Key::of("dp").str("x");
    let c = Key::of("do");
    for pk in [&a, &b, &c] {
        fill(&store, pk, 0..20).await;
    }
    store.delete_partition(T, &a).await.unwrap();
    assert!(store
        .scan(T, &a, &ScanRange::all(100))
        .await
        .unwrap()
        .rows
        .is_empty());
    assert_eq!(store.get(T, &a, &n(5)).await.unwrap(), None);
    assert_eq!(
        scan_all(&store, &b, ScanRange::all(100)).await,
        (0..20).collect::<Vec<_>>()
    );
    assert_eq!(
        scan_all(&store, &c, ScanRange::all(100)).await,
        (0..20).collect::<Vec<_>>()
    );
    // An emptied partition takes new rows; deleting a missing one is fine.
    fill(&store, &a, [7]).await;
    assert_eq!(scan_all(&store, &a, ScanRange::all(100)).await, vec![7]);
    store
        .delete_partition(T, &Key::of("dp-never"))
        .await
        .unwrap();
}

/// A walk over the whole table sees every row once, page by page from any
/// row, with its partition and clustering keys (other cases' rows in the
/// shared table are walked too, and ignored here).
pub(crate) async fn table_walk_visits_every_row_once(store: DynStore) {
    let mut want = Vec::new();
    for p in 0..7u64 {
        let pk = Key::of("walk").u64(p);
        fill(&store, &pk, 0..(p * 3)).await;
        want.extend((0..(p * 3)).map(|i| (p, i)));
    }
    for limit in [1u32, 4, 50, 10_000] {
        let mut got = Vec::new();
        let mut after: Option<(Key, Key)> = None;
        for _ in 0..100_000 {
            let page = store
                .scan_table(T, after.as_ref().map(|(p, c)| (p, c)), limit)
                .await
                .unwrap();
            assert!(page.len() <= limit as usize, "page larger than limit");
            for (pk, ck, v) in &page {
                let mut r = pk.reader();
                if r.str().as_deref() != Some("walk") {
                    continue;
                }
                let p = r.u64().unwrap();
                let i = ck.reader().u64().unwrap();
                assert_eq!(v, format!("v{i}").as_bytes());
                got.push((p, i));
            }
            let last = page.last().map(|(p, c, _)| (p.clone(), c.clone()));
            if page.len() < limit as usize {
                break;
            }
            after = last;
        }
        got.sort_unstable();
        assert_eq!(got, want, "limit {limit}");
    }
    // Counter tables are not walked.
    assert!(matches!(
        store.scan_table(C, None, 10).await,
        Err(StoreError::WrongKind(_, TableKind::Regular))
    ));
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Wallet {
    pub(crate) owner: String,
    pub(crate) balance: i64,
    pub(crate) tags: Vec<String>,
    pub(crate) note: Option<String>,
}

pub(crate) async fn typed_update_retries_until_applied(store: DynStore) {
    let wallets: Table<Wallet> = Table::new(store.clone(), &tables::CONFORMANCE);
    let pk = Key::of("typed-update");
    let start = Wallet {
        owner: "ann".into(),
        balance: 0,
        tags: vec![],
        note: None,
    };
    wallets.put(&pk, &n(1), &start).await.unwrap();
    // Concurrent read-modify-writes, some starting from a stale copy: none is lost.
    let tasks: Vec<_> = (0..12)
        .map(|i| {
            let (wallets, pk, stale) = (wallets.clone(), pk.clone(), start.clone());
            tokio::spawn(async move {
                let known = (i % 2 == 0).then_some(stale);
                wallets
                    .update(&pk, &n(1), known, |w| w.balance += 1)
                    .await
                    .unwrap()
            })
        })
        .collect();
    for t in tasks {
        assert!(t.await.unwrap().is_some());
    }
    assert_eq!(wallets.get(&pk, &n(1)).await.unwrap().unwrap().balance, 12);
    assert_eq!(
        wallets
            .update(&pk, &n(404), None, |w| w.balance += 1)
            .await
            .unwrap(),
        None
    );
}

pub(crate) async fn typed_table_round_trip(store: DynStore) {
    let wallets: Table<Wallet> = Table::new(store.clone(), &tables::CONFORMANCE);
    let pk = Key::of("typed");
    let w = |owner: &str, balance| Wallet {
        owner: owner.into(),
        balance,
        tags: vec!["t".into()],
        note: None,
    };

    assert_eq!(wallets.get(&pk, &n(1)).await.unwrap(), None);
    wallets.put(&pk, &n(1), &w("ann", 10)).await.unwrap();
    assert_eq!(wallets.get(&pk, &n(1)).await.unwrap(), Some(w("ann", 10)));

    assert_eq!(
        wallets
            .insert_if_absent(&pk, &n(2), &w("bob", 5))
            .await
            .unwrap(),
        Ok(())
    );
    assert_eq!(
        wallets
            .insert_if_absent(&pk, &n(2), &w("eve", 99))
            .await
            .unwrap(),
        Err(w("bob", 5))
    );

    // Compare-and-set: right, wrong, against a missing row, and delete.
    assert_eq!(
        wallets
            .compare_and_set(&pk, &n(2), &w("bob", 5), Some(&w("bob", 7)))
            .await
            .unwrap(),
        Ok(())
    );
    assert_eq!(
        wallets
            .compare_and_set(&pk, &n(2), &w("bob", 5), Some(&w("bob", 0)))
            .await
            .unwrap(),
        Err(Some(w("bob", 7)))
    );
    assert_eq!(
        wallets
            .compare_and_set(&pk, &n(3), &w("x", 1), Some(&w("x", 2)))
            .await
            .unwrap(),
        Err(None)
    );
    let page = wallets.scan(&pk, &ScanRange::all(10)).await.unwrap();
    let got: Vec<(u64, Wallet)> = page
        .rows
        .into_iter()
        .map(|(k, v)| (k.reader().u64().unwrap(), v))
        .collect();
    assert_eq!(got, vec![(1, w("ann", 10)), (2, w("bob", 7))]);
    assert_eq!(page.paging, None);
    assert_eq!(
        wallets
            .compare_and_set(&pk, &n(2), &w("bob", 7), None)
            .await
            .unwrap(),
        Ok(())
    );
    assert_eq!(wallets.get(&pk, &n(2)).await.unwrap(), None);

    wallets.delete(&pk, &n(1)).await.unwrap();
    assert_eq!(wallets.get(&pk, &n(1)).await.unwrap(), None);
    wallets.put(&pk, &n(4), &w("cy", 1)).await.unwrap();
    wallets.delete_partition(&pk).await.unwrap();
    assert!(wallets
        .scan(&pk, &ScanRange::all(10))
        .await
        .unwrap()
        .rows
        .is_empty());

    // A stored value of another shape is a codec error, not a panic.
    store
        .put(T, &pk, &n(9), b"\xc1 not msgpack".to_vec())
        .await
        .unwrap();
    assert!(matches!(
        wallets.get(&pk, &n(9)).await,
        Err(StoreError::Codec(_))
    ));

    let counters = Counters::new(store, &tables::CONFORMANCE_COUNTERS);
    counters.add(&pk, &Key::of("hits"), 2).await.unwrap();
    counters.add(&pk, &Key::of("hits"), 3).await.unwrap();
    assert_eq!(counters.get(&pk, &Key::of("hits")).await.unwrap(), 5);
}
