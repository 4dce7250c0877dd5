//! Balance rows written before hold rows existed (a `holds` map): still
//! read, their holds resolve once, the map goes when it empties.

use super::tests::{all_entries, audit, fixture, hold_rows};
use super::*;
use std::time::Duration;

/// The balance row as written before hold rows existed.
#[derive(Debug, Serialize, Deserialize)]
struct OldBalanceRow {
    balance: i64,
    holds: BTreeMap<String, i64>,
    seq: u64,
    last: Option<LedgerEntry>,
    grants: Vec<String>,
}

fn entry(seq: u64, kind: EntryKind, key: &str, delta: i64, amount: i64, after: i64) -> LedgerEntry {
    LedgerEntry {
        seq,
        kind,
        key: key.into(),
        delta,
        amount,
        balance_after: after,
        at: 1_700_000_000_000 + i64::try_from(seq).unwrap(),
    }
}

#[tokio::test]
async fn rows_of_the_old_shape_keep_their_holds_and_resolve_them_once() {
    let f = fixture();
    let l = &f.l;
    let old: Table<OldBalanceRow> = Table::new(f.store.clone(), &tables::BALANCES);
    let pk = Key::of("a");
    for e in [
        entry(1, EntryKind::Grant, "signup", 10, 0, 10),
        entry(2, EntryKind::Hold, "old1", 0, 3, 10),
    ] {
        l.entries
            .put(&pk, &Key::empty().u64(e.seq), &e)
            .await
            .unwrap();
    }
    // Entry 3 (a hold) never reached the ledger.
    old.put(
        &pk,
        &Key::empty(),
        &OldBalanceRow {
            balance: 10,
            holds: [("old1".to_owned(), 3), ("old2".to_owned(), 2)].into(),
            seq: 3,
            last: Some(entry(3, EntryKind::Hold, "old2", 0, 2, 10)),
            grants: vec!["signup".into()],
        },
    )
    .await
    .unwrap();
    let run = async {
        let b = l.balance("a").await.unwrap();
        assert_eq!((b.held(), b.available()), (5, 5));
        assert_eq!(
            all_entries(l, "a").await.len(),
            3,
            "the old entry is flushed"
        );
        assert!(
            hold_rows(l, "a").await.is_empty(),
            "the map carries old holds"
        );
        l.hold("a", "old1", 3).await.unwrap();
        assert_eq!(l.balance("a").await.unwrap().available(), 5, "held already");
        l.hold("a", "new", 5).await.unwrap();
        assert_eq!(
            l.hold("a", "x", 1).await.unwrap_err().code,
            ErrorCode::CoinsNotEnough
        );
        assert_eq!(l.settle("a", "old1").await.unwrap(), Resolved::Now(3));
        assert_eq!(l.settle("a", "old1").await.unwrap(), Resolved::Already);
        assert_eq!(l.void("a", "old1").await.unwrap(), Resolved::Already);
        let b = l.balance("a").await.unwrap();
        assert_eq!((b.balance, b.held(), b.held), (7, 7, 5));
        assert_eq!(b.legacy_holds, Some([("old2".to_owned(), 2)].into()));
        assert_eq!(l.void("a", "old2").await.unwrap(), Resolved::Now(2));
        assert_eq!(l.void("a", "old2").await.unwrap(), Resolved::Already);
        assert_eq!(l.settle("a", "new").await.unwrap(), Resolved::Now(5));
        l.hold("a", "old1", 1).await.unwrap();
        let b = l.balance("a").await.unwrap();
        assert_eq!(b.legacy_holds, None, "the emptied map is dropped");
        assert_eq!((b.balance, b.held(), b.available()), (2, 0, 2));
        let rows = hold_rows(l, "a").await;
        assert_eq!(rows["old1"].resolved.map(|r| r.0), Some(EntryKind::Settle));
        assert_eq!((rows["old1"].amount, rows["old1"].seq), (3, 0));
        assert_eq!(rows["old2"].resolved.map(|r| r.0), Some(EntryKind::Void));
        assert_eq!(rows["new"].resolved.map(|r| r.0), Some(EntryKind::Settle));
        let entries = all_entries(l, "a").await;
        assert_eq!(entries.iter().map(|e| e.delta).sum::<i64>(), 2);
        assert_eq!(entries.len(), 7);
    };
    tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("a legacy row must not make compare-and-set retry forever");
}

#[tokio::test]
async fn an_old_row_with_an_empty_map_changes_and_loses_the_map() {
    let f = fixture();
    let l = &f.l;
    let old: Table<OldBalanceRow> = Table::new(f.store.clone(), &tables::BALANCES);
    let pk = Key::of("a");
    let grant = entry(1, EntryKind::Grant, "signup", 10, 0, 10);
    l.entries
        .put(&pk, &Key::empty().u64(1), &grant)
        .await
        .unwrap();
    let row = OldBalanceRow {
        balance: 10,
        holds: BTreeMap::new(),
        seq: 1,
        last: Some(grant),
        grants: vec!["signup".into()],
    };
    old.put(&pk, &Key::empty(), &row).await.unwrap();
    // It decodes and re-encodes to the stored bytes, as CAS requires.
    let decoded = l.balances.get(&pk, &Key::empty()).await.unwrap().unwrap();
    assert_eq!(decoded.legacy_holds, Some(BTreeMap::new()));
    assert!(l
        .balances
        .compare_and_set(&pk, &Key::empty(), &decoded, Some(&decoded))
        .await
        .unwrap()
        .is_ok());
    tokio::time::timeout(Duration::from_secs(20), l.hold("a", "t", 4))
        .await
        .expect("no endless compare-and-set")
        .unwrap();
    assert_eq!(l.void("a", "t").await.unwrap(), Resolved::Now(4));
    let b = audit(l, "a").await;
    assert_eq!((b.balance, b.available()), (10, 10));
}
