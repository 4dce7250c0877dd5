//! The conformance cases of reads, writes, scans and paging, each written
//! once against `DynStore` (see `main.rs`).

use super::*;
// ---------------------------------------------------------------- cases

pub(crate) async fn get_missing_is_none(store: DynStore) {
    let pk = Key::of("missing");
    assert_eq!(store.get(T, &pk, &Key::empty()).await.unwrap(), None);
    assert_eq!(store.get(T, &pk, &n(1)).await.unwrap(), None);
    let page = store.scan(T, &pk, &ScanRange::all(10)).await.unwrap();
    assert!(page.rows.is_empty());
    assert_eq!(page.paging, None);
    assert_eq!(store.counter_get(C, &pk, &Key::empty()).await.unwrap(), 0);
}

pub(crate) async fn get_many_answers_in_order(store: DynStore) {
    let pk = Key::of("many");
    store.put(T, &pk, &n(2), b"two".to_vec()).await.unwrap();
    store.put(T, &pk, &n(5), b"five".to_vec()).await.unwrap();
    let keys: Vec<(Key, Key)> = [5, 1, 2, 5].iter().map(|i| (pk.clone(), n(*i))).collect();
    let got = store.get_many(T, &keys).await.unwrap();
    assert_eq!(
        got,
        vec![
            Some(b"five".to_vec()),
            None,
            Some(b"two".to_vec()),
            Some(b"five".to_vec())
        ]
    );
    assert!(store.get_many(T, &[]).await.unwrap().is_empty());
    let other = [(Key::of("many-none"), n(1))];
    assert_eq!(store.get_many(T, &other).await.unwrap(), vec![None]);
}

pub(crate) async fn put_get_overwrite(store: DynStore) {
    let pk = Key::of("put");
    store
        .put(T, &pk, &Key::of("a"), b"one".to_vec())
        .await
        .unwrap();
    assert_eq!(
        store.get(T, &pk, &Key::of("a")).await.unwrap().as_deref(),
        Some(&b"one"[..])
    );
    store
        .put(T, &pk, &Key::of("a"), b"two".to_vec())
        .await
        .unwrap();
    assert_eq!(
        store.get(T, &pk, &Key::of("a")).await.unwrap().as_deref(),
        Some(&b"two"[..])
    );
    // Overwriting does not add a row.
    assert_eq!(
        store
            .scan(T, &pk, &ScanRange::all(10))
            .await
            .unwrap()
            .rows
            .len(),
        1
    );

    // The empty clustering key (single-row tables) and an empty value.
    store.put(T, &pk, &Key::empty(), Vec::new()).await.unwrap();
    assert_eq!(
        store.get(T, &pk, &Key::empty()).await.unwrap(),
        Some(Vec::new())
    );
    // Binary values with every byte, and a large one.
    let all_bytes: Vec<u8> = (0..=255).collect();
    store
        .put(T, &pk, &Key::of("bytes"), all_bytes.clone())
        .await
        .unwrap();
    assert_eq!(
        store.get(T, &pk, &Key::of("bytes")).await.unwrap(),
        Some(all_bytes)
    );
    let big = vec![0xA5u8; 200 * 1024];
    store
        .put(T, &pk, &Key::of("big"), big.clone())
        .await
        .unwrap();
    assert_eq!(store.get(T, &pk, &Key::of("big")).await.unwrap(), Some(big));
}

pub(crate) async fn delete_removes_row(store: DynStore) {
    let pk = Key::of("delete");
    store.put(T, &pk, &n(1), b"x".to_vec()).await.unwrap();
    store.put(T, &pk, &n(2), b"y".to_vec()).await.unwrap();
    store.delete(T, &pk, &n(1)).await.unwrap();
    assert_eq!(store.get(T, &pk, &n(1)).await.unwrap(), None);
    assert_eq!(
        store.get(T, &pk, &n(2)).await.unwrap().as_deref(),
        Some(&b"y"[..])
    );
    // Deleting a missing row is not an error.
    store.delete(T, &pk, &n(99)).await.unwrap();
    store
        .delete(T, &Key::of("delete-never-written"), &n(1))
        .await
        .unwrap();
    // A deleted row can be written again.
    store.put(T, &pk, &n(1), b"z".to_vec()).await.unwrap();
    assert_eq!(
        store.get(T, &pk, &n(1)).await.unwrap().as_deref(),
        Some(&b"z"[..])
    );
}

pub(crate) async fn partitions_are_isolated(store: DynStore) {
    // The second partition key's bytes start with the first's: a layout that
    // concatenated pk and ck without a boundary would mix them up.
    let a = Key::of("iso");
    let b = Key::of("iso").str("x");
    for (pk, tag) in [(&a, "a"), (&b, "b")] {
        for i in 0..3 {
            store
                .put(T, pk, &n(i), format!("{tag}{i}").into_bytes())
                .await
                .unwrap();
        }
    }
    assert_eq!(
        store.get(T, &a, &n(1)).await.unwrap().as_deref(),
        Some(&b"a1"[..])
    );
    assert_eq!(
        store.get(T, &b, &n(1)).await.unwrap().as_deref(),
        Some(&b"b1"[..])
    );
    for (pk, tag) in [(&a, "a"), (&b, "b")] {
        let page = store.scan(T, pk, &ScanRange::all(100)).await.unwrap();
        let values: Vec<String> = page
            .rows
            .iter()
            .map(|(_, v)| String::from_utf8(v.clone()).unwrap())
            .collect();
        assert_eq!(values, [0, 1, 2].map(|i| format!("{tag}{i}")));
    }
    store.delete(T, &a, &n(1)).await.unwrap();
    assert_eq!(
        store.get(T, &b, &n(1)).await.unwrap().as_deref(),
        Some(&b"b1"[..])
    );
}

pub(crate) async fn scan_orders_numeric_keys(store: DynStore) {
    let pk = Key::of("numeric");
    // Byte-wise these sort as numbers only because the encoding is big-endian.
    let ids = [256u64, 2, 1000, 0, 65_536, 1, u64::MAX, 255, 3];
    fill(&store, &pk, ids).await;
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let asc = store.scan(T, &pk, &ScanRange::all(100)).await.unwrap();
    assert_eq!(numbers(&asc.rows), sorted);
    assert_eq!(asc.paging, None);
    let desc = store
        .scan(T, &pk, &ScanRange::all(100).desc())
        .await
        .unwrap();
    sorted.reverse();
    assert_eq!(numbers(&desc.rows), sorted);
}

pub(crate) async fn scan_orders_string_keys(store: DynStore) {
    let pk = Key::of("strings");
    let words = [
        "b", "a", "", "ab", "a\0", "a\0b", "Z", "\u{e9}", "aa", "a b",
    ];
    for w in words {
        store
            .put(T, &pk, &Key::of(w), w.as_bytes().to_vec())
            .await
            .unwrap();
    }
    let mut sorted = words.to_vec();
    sorted.sort_unstable();
    let read = |rows: Vec<(Vec<u8>, Vec<u8>)>| -> Vec<String> {
        rows.into_iter()
            .map(|(ck, v)| {
                let s = Key::from_bytes(ck).reader().str().unwrap();
                assert_eq!(s.as_bytes(), v.as_slice());
                s
            })
            .collect()
    };
    let asc = store.scan(T, &pk, &ScanRange::all(100)).await.unwrap();
    assert_eq!(read(asc.rows), sorted);
    let desc = store
        .scan(T, &pk, &ScanRange::all(100).desc())
        .await
        .unwrap();
    sorted.reverse();
    assert_eq!(read(desc.rows), sorted);
    // A string-keyed range: every key from "a" (inclusive) to "b" (exclusive).
    let r = range(
        Bound::Included(Key::of("a")),
        Bound::Excluded(Key::of("b")),
        Order::Asc,
        100,
    );
    assert_eq!(
        read(store.scan(T, &pk, &r).await.unwrap().rows),
        ["a", "a\0", "a\0b", "a b", "aa", "ab"]
    );
}

pub(crate) async fn scan_honours_bounds(store: DynStore) {
    let pk = Key::of("bounds");
    fill(&store, &pk, 0..10).await;
    use Bound::{Excluded as Ex, Included as In, Unbounded as Un};
    use Order::{Asc, Desc};
    let cases = vec![
        (In(n(3)), Ex(n(7)), Asc, vec![3, 4, 5, 6]),
        (In(n(3)), Ex(n(7)), Desc, vec![6, 5, 4, 3]),
        (Ex(n(3)), In(n(7)), Asc, vec![4, 5, 6, 7]),
        (Ex(n(3)), In(n(7)), Desc, vec![7, 6, 5, 4]),
        (In(n(3)), In(n(7)), Asc, vec![3, 4, 5, 6, 7]),
        (Ex(n(3)), Ex(n(7)), Desc, vec![6, 5, 4]),
        (Un, In(n(2)), Asc, vec![0, 1, 2]),
        (Un, Ex(n(2)), Desc, vec![1, 0]),
        (Ex(n(7)), Un, Asc, vec![8, 9]),
        (In(n(7)), Un, Desc, vec![9, 8, 7]),
        (Un, Un, Desc, (0..10).rev().collect()),
        // Bounds that fall between and beyond stored keys.
        (In(n(100)), Un, Asc, vec![]),
        (Un, Ex(n(0)), Desc, vec![]),
        (
            In(Key::empty()),
            In(Key::empty().u64(4)),
            Asc,
            vec![0, 1, 2, 3, 4],
        ),
        // Empty and inverted ranges.
        (In(n(5)), Ex(n(5)), Asc, vec![]),
        (Ex(n(5)), In(n(5)), Desc, vec![]),
        (In(n(5)), In(n(5)), Desc, vec![5]),
        (In(n(7)), In(n(3)), Asc, vec![]),
        (In(n(7)), In(n(3)), Desc, vec![]),
    ];
    for (from, to, order, want) in cases {
        let label = format!("{from:?}..{to:?} {order:?}");
        let page = store
            .scan(T, &pk, &range(from.clone(), to.clone(), order, 100))
            .await
            .unwrap();
        assert_eq!(numbers(&page.rows), want, "{label}");
        assert_eq!(page.paging, None, "{label}");
        // The same range paged two rows at a time yields the same rows.
        assert_eq!(
            scan_all(&store, &pk, range(from, to, order, 2)).await,
            want,
            "{label} paged"
        );
    }
}

pub(crate) async fn paging_walks_every_row_once(store: DynStore) {
    let pk = Key::of("paging");
    fill(&store, &pk, 0..250).await;
    let asc = scan_all(&store, &pk, ScanRange::all(7)).await;
    assert_eq!(asc, (0..250).collect::<Vec<_>>());
    let desc = scan_all(&store, &pk, ScanRange::all(7).desc()).await;
    assert_eq!(desc, (0..250).rev().collect::<Vec<_>>());
    // Paging within bounds, both orders.
    let r = range(
        Bound::Excluded(n(10)),
        Bound::Included(n(200)),
        Order::Asc,
        7,
    );
    assert_eq!(
        scan_all(&store, &pk, r.clone()).await,
        (11..=200).collect::<Vec<_>>()
    );
    let r = ScanRange {
        order: Order::Desc,
        ..r
    };
    assert_eq!(
        scan_all(&store, &pk, r).await,
        (11..=200).rev().collect::<Vec<_>>()
    );
    // A paging state never moves backwards past the range's own bound.
    let r = range(Bound::Included(n(100)), Bound::Unbounded, Order::Asc, 5)
        .after(Some(PagingState(n(3).into_bytes())));
    assert_eq!(
        numbers(&store.scan(T, &pk, &r).await.unwrap().rows),
        vec![100, 101, 102, 103, 104]
    );
    // A paging state taken by the first page, while rows are added before
    // and after it, resumes strictly after it.
    let first = store.scan(T, &pk, &ScanRange::all(3)).await.unwrap();
    assert_eq!(numbers(&first.rows), vec![0, 1, 2]);
    store.delete(T, &pk, &n(3)).await.unwrap();
    let next = store
        .scan(T, &pk, &ScanRange::all(3).after(first.paging))
        .await
        .unwrap();
    assert_eq!(numbers(&next.rows), vec![4, 5, 6]);
}

pub(crate) async fn paging_none_when_limit_meets_the_end(store: DynStore) {
    let pk = Key::of("exact");
    fill(&store, &pk, 0..10).await;
    let page = store.scan(T, &pk, &ScanRange::all(10)).await.unwrap();
    assert_eq!(numbers(&page.rows), (0..10).collect::<Vec<_>>());
    assert_eq!(
        page.paging, None,
        "exactly `limit` rows left: no further page"
    );
    let first = store.scan(T, &pk, &ScanRange::all(5).desc()).await.unwrap();
    assert_eq!(numbers(&first.rows), vec![9, 8, 7, 6, 5]);
    assert!(first.paging.is_some());
    let second = store
        .scan(T, &pk, &ScanRange::all(5).desc().after(first.paging))
        .await
        .unwrap();
    assert_eq!(numbers(&second.rows), vec![4, 3, 2, 1, 0]);
    assert_eq!(second.paging, None);
    // Limit 0 reads as 1.
    let one = store.scan(T, &pk, &ScanRange::all(0)).await.unwrap();
    assert_eq!(numbers(&one.rows), vec![0]);
    assert_eq!(one.paging, Some(PagingState(n(0).into_bytes())));
    // Eleven rows asked, ten there.
    let page = store.scan(T, &pk, &ScanRange::all(11)).await.unwrap();
    assert_eq!(page.rows.len(), 10);
    assert_eq!(page.paging, None);
}
