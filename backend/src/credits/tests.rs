//! The ledger's tests: exactly-once holds, concurrency, crashes between
//! the writes of a change, rows of the old shape, debts.
use super::*;
use infra::store::embedded::EmbeddedStore;
use infra::store::{CasOutcome, RawPage, Store, StoreError, StoreResult, TableDef};
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// A store that fails one chosen write, as if the process died just
/// before it: what that call would have written next is never written.
pub(super) struct Crashing {
    inner: DynStore,
    /// (table, n): the n-th next write to that table fails.
    armed: Mutex<Option<(&'static str, u32)>>,
}

impl Crashing {
    fn arm(&self, table: &'static TableDef, nth: u32) {
        *self.armed.lock().unwrap() = Some((table.name, nth));
    }
    fn disarm(&self) {
        *self.armed.lock().unwrap() = None;
    }
    fn fired(&self) -> bool {
        self.armed.lock().unwrap().is_none()
    }
    fn write(&self, t: &TableDef) -> StoreResult<()> {
        let mut armed = self.armed.lock().unwrap();
        if let Some((name, n)) = *armed {
            if name == t.name {
                if n <= 1 {
                    *armed = None;
                    return Err(StoreError::Unavailable("injected crash".into()));
                }
                *armed = Some((name, n - 1));
            }
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl Store for Crashing {
    async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
        self.inner.get(t, pk, ck).await
    }
    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
        self.write(t)?;
        self.inner.put(t, pk, ck, value).await
    }
    async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()> {
        self.write(t)?;
        self.inner.delete(t, pk, ck).await
    }
    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
        self.write(t)?;
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
        self.write(t)?;
        self.inner.cas(t, pk, ck, expected, new).await
    }
    async fn counter_add(&self, t: &TableDef, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()> {
        self.write(t)?;
        self.inner.counter_add(t, pk, ck, delta).await
    }
    async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64> {
        self.inner.counter_get(t, pk, ck).await
    }
    fn backend_name(&self) -> &'static str {
        "crashing"
    }
}

pub(super) struct Fixture {
    pub(super) _dir: tempfile::TempDir,
    pub(super) store: Arc<Crashing>,
    pub(super) l: Ledger,
}

pub(super) fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let inner: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("s")).unwrap());
    let store = Arc::new(Crashing {
        inner,
        armed: Mutex::new(None),
    });
    let l = Ledger::new(store.clone());
    Fixture {
        _dir: dir,
        store,
        l,
    }
}

pub(super) fn ledger() -> (tempfile::TempDir, Ledger) {
    let f = fixture();
    (f._dir, f.l)
}

pub(super) async fn hold_rows(l: &Ledger, account: &str) -> BTreeMap<String, HoldRow> {
    let page = l
        .holds
        .scan(&Key::of(account), &ScanRange::all(100_000))
        .await
        .unwrap();
    assert!(page.paging.is_none());
    page.rows
        .into_iter()
        .map(|(k, h)| (k.reader().str().unwrap(), h))
        .collect()
}

pub(super) async fn all_entries(l: &Ledger, account: &str) -> Vec<LedgerEntry> {
    let page = l
        .entries
        .scan(&Key::of(account), &ScanRange::all(100_000))
        .await
        .unwrap();
    assert!(page.paging.is_none());
    page.rows.into_iter().map(|(_, e)| e).collect()
}

/// Reads the balance (which repairs) and checks every invariant of the
/// module doc against the stored rows of an account without legacy holds.
pub(super) async fn audit(l: &Ledger, account: &str) -> BalanceRow {
    let b = l.balance(account).await.unwrap();
    assert_eq!(b.legacy_holds, None);
    let holds = hold_rows(l, account).await;
    let open: i64 = holds
        .values()
        .filter(|h| h.resolved.is_none())
        .map(|h| h.amount)
        .sum();
    assert_eq!(b.held, open, "held is the sum of the open hold rows");
    assert!(b.held >= 0 && b.available() >= 0, "{b:?}");
    let entries = all_entries(l, account).await;
    let seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=b.seq).collect::<Vec<_>>(), "no entry missing");
    assert_eq!(entries.iter().map(|e| e.delta).sum::<i64>(), b.balance);
    assert_eq!(entries.last(), b.last.as_ref());
    let debt: i64 = entries
        .iter()
        .map(|e| match e.kind {
            EntryKind::Reverse => e.amount,
            EntryKind::Grant => -e.amount,
            _ => 0,
        })
        .sum();
    assert_eq!(
        debt, b.debt,
        "the debt is what reversals left minus what grants paid"
    );
    assert!(b.debt >= 0 && b.balance >= 0);
    let mut held_keys = BTreeSet::new();
    let mut resolved_keys = BTreeSet::new();
    for e in &entries {
        let row = holds.get(&e.key);
        match e.kind {
            EntryKind::Grant | EntryKind::Reverse => assert!(row.is_none()),
            EntryKind::Hold => {
                assert!(held_keys.insert(&e.key), "{} held twice", e.key);
                let row = row.unwrap();
                assert_eq!((row.amount, row.seq), (e.amount, e.seq));
            }
            EntryKind::Settle | EntryKind::Void => {
                assert!(held_keys.contains(&e.key), "{} resolved unheld", e.key);
                assert!(resolved_keys.insert(&e.key), "{} resolved twice", e.key);
                let row = row.unwrap();
                assert_eq!(row.resolved, Some((e.kind, e.seq)));
                assert_eq!(row.amount, e.amount);
                let expected = if e.kind == EntryKind::Settle {
                    -e.amount
                } else {
                    0
                };
                assert_eq!(e.delta, expected);
            }
        }
    }
    for (key, row) in &holds {
        assert!(held_keys.contains(key), "hold row {key} without entry");
        assert_eq!(row.resolved.is_some(), resolved_keys.contains(key));
    }
    b
}

/// Writes the balance row as if a change's CAS applied and the process
/// died before writing anything else.
async fn cas_only(l: &Ledger, account: &str, kind: EntryKind, key: &str, amount: i64) {
    let pk = Key::of(account);
    let mut row = l.balances.get(&pk, &Key::empty()).await.unwrap().unwrap();
    let delta = match kind {
        EntryKind::Grant => amount,
        EntryKind::Reverse => -amount,
        EntryKind::Hold => {
            row.held += amount;
            0
        }
        EntryKind::Settle => {
            row.held -= amount;
            -amount
        }
        EntryKind::Void => {
            row.held -= amount;
            0
        }
    };
    row.balance += delta;
    row.seq += 1;
    row.last = Some(LedgerEntry {
        seq: row.seq,
        kind,
        key: key.into(),
        delta,
        amount,
        balance_after: row.balance,
        at: now_millis(),
    });
    l.balances.put(&pk, &Key::empty(), &row).await.unwrap();
}

#[tokio::test]
async fn holds_resolve_exactly_once_and_entries_sum_to_the_balance() {
    let (_d, l) = ledger();
    assert!(l.grant("a", "signup", 10).await.unwrap());
    assert!(
        !l.grant("a", "signup", 10).await.unwrap(),
        "a grant key applies once"
    );
    l.hold("a", "t1", 4).await.unwrap();
    l.hold("a", "t1", 4).await.unwrap();
    assert_eq!(l.balance("a").await.unwrap().available(), 6);
    let e = l.hold("a", "t2", 7).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::CoinsNotEnough);
    l.hold("a", "t2", 6).await.unwrap();
    assert_eq!(l.settle("a", "t1").await.unwrap(), Resolved::Now(4));
    assert_eq!(l.settle("a", "t1").await.unwrap(), Resolved::Already);
    assert_eq!(l.void("a", "t1").await.unwrap(), Resolved::Already);
    assert_eq!(l.void("a", "t2").await.unwrap(), Resolved::Now(6));
    let b = l.balance("a").await.unwrap();
    assert_eq!((b.balance, b.held(), b.available()), (6, 0, 6));
    let entries = l.entries("a", 100).await.unwrap();
    assert_eq!(entries.iter().map(|e| e.delta).sum::<i64>(), 6);
    assert_eq!(entries.len(), 5, "grant, 2 holds, settle, void");
    // A resolved key stays resolved: holding it again is a no-op.
    l.hold("a", "t1", 4).await.unwrap();
    assert_eq!(l.void("a", "never-held").await.unwrap(), Resolved::Already);
    assert_eq!(audit(&l, "a").await.available(), 6);
    assert_eq!(l.entries("a", 100).await.unwrap().len(), 5);
}

#[tokio::test]
async fn concurrent_holds_never_overdraw() {
    let (_d, l) = ledger();
    l.grant("a", "signup", 10).await.unwrap();
    let mut handles = Vec::new();
    for i in 0..40 {
        let l = l.clone();
        handles.push(tokio::spawn(async move {
            l.hold("a", &format!("t{i}"), 1).await.is_ok()
        }));
    }
    let mut ok = 0;
    for h in handles {
        ok += usize::from(h.await.unwrap());
    }
    assert_eq!(ok, 10);
    assert_eq!(l.balance("a").await.unwrap().available(), 0);
    assert_eq!(audit(&l, "a").await.held(), 10);
}

#[tokio::test]
async fn concurrent_holds_of_one_key_hold_once() {
    let (_d, l) = ledger();
    l.grant("a", "signup", 100).await.unwrap();
    let mut handles = Vec::new();
    for _ in 0..30 {
        let l = l.clone();
        handles.push(tokio::spawn(async move {
            l.hold_unrecorded("a", "t", 3).await.unwrap()
        }));
    }
    let mut made = Vec::new();
    for h in handles {
        made.extend(h.await.unwrap());
    }
    assert_eq!(made.len(), 1, "one caller made the hold");
    for e in &made {
        l.record("a", e).await.unwrap();
    }
    let b = audit(&l, "a").await;
    assert_eq!((b.held(), b.available(), b.seq), (3, 97, 2));
}

#[tokio::test]
async fn concurrent_settles_and_voids_of_one_key_resolve_once() {
    let (_d, l) = ledger();
    let mut voided = 0;
    for round in 0..3 {
        let key = format!("t{round}");
        l.grant("a", &format!("r{round}"), 4).await.unwrap();
        l.hold("a", &key, 4).await.unwrap();
        let mut handles = Vec::new();
        for i in 0..20 {
            let (l, key) = (l.clone(), key.clone());
            handles.push(tokio::spawn(async move {
                if i % 2 == 0 {
                    (EntryKind::Settle, l.settle("a", &key).await.unwrap())
                } else {
                    (EntryKind::Void, l.void("a", &key).await.unwrap())
                }
            }));
        }
        let mut now = Vec::new();
        for h in handles {
            let (kind, r) = h.await.unwrap();
            if r != Resolved::Already {
                now.push((kind, r));
            }
        }
        assert_eq!(now.len(), 1, "{now:?}");
        let (kind, r) = now.first().copied().unwrap();
        assert_eq!(r, Resolved::Now(4));
        voided += i64::from(kind == EntryKind::Void);
        let row = hold_rows(&l, "a").await.remove(&key).unwrap();
        assert_eq!(row.resolved.map(|(k, _)| k), Some(kind));
    }
    let b = audit(&l, "a").await;
    assert_eq!((b.held(), b.balance, b.seq), (0, 4 * voided, 9));
}

#[tokio::test]
async fn a_hold_cas_without_its_other_writes_is_repaired_by_the_next_read() {
    let (_d, l) = ledger();
    l.grant("a", "signup", 10).await.unwrap();
    cas_only(&l, "a", EntryKind::Hold, "t", 4).await;
    assert!(hold_rows(&l, "a").await.is_empty());
    let b = audit(&l, "a").await;
    assert_eq!(b.available(), 6);
    assert_eq!(
        hold_rows(&l, "a").await.get("t"),
        Some(&HoldRow {
            amount: 4,
            seq: 2,
            resolved: None
        })
    );
    // The repaired hold is a real one: held once, resolved once.
    l.hold("a", "t", 4).await.unwrap();
    assert_eq!(l.balance("a").await.unwrap().available(), 6);
    assert_eq!(l.settle("a", "t").await.unwrap(), Resolved::Now(4));
    assert_eq!(l.void("a", "t").await.unwrap(), Resolved::Already);
    assert_eq!(audit(&l, "a").await.balance, 6);
}

#[tokio::test]
async fn a_hold_cas_without_its_other_writes_is_repaired_by_the_next_change() {
    let (_d, l) = ledger();
    l.grant("a", "signup", 10).await.unwrap();
    cas_only(&l, "a", EntryKind::Hold, "t", 4).await;
    // The next change is another account holder's hold of another key.
    l.hold("a", "u", 6).await.unwrap();
    assert_eq!(
        l.hold("a", "v", 1).await.unwrap_err().code,
        ErrorCode::CoinsNotEnough
    );
    assert_eq!(audit(&l, "a").await.held(), 10);
    // And a resolution of the unfinished hold itself, after a CAS-only hold.
    l.grant("a", "op:x", 5).await.unwrap();
    cas_only(&l, "a", EntryKind::Hold, "w", 5).await;
    assert_eq!(l.void("a", "w").await.unwrap(), Resolved::Now(5));
    assert_eq!(l.void("a", "w").await.unwrap(), Resolved::Already);
    assert_eq!(audit(&l, "a").await.available(), 5);
}

#[tokio::test]
async fn a_settle_cas_without_its_other_writes_cannot_be_voided_after() {
    let (_d, l) = ledger();
    l.grant("a", "signup", 10).await.unwrap();
    l.hold("a", "t", 4).await.unwrap();
    cas_only(&l, "a", EntryKind::Settle, "t", 4).await;
    // The hold row still says open: the void must first apply the settle.
    assert!(hold_rows(&l, "a").await["t"].resolved.is_none());
    assert_eq!(l.void("a", "t").await.unwrap(), Resolved::Already);
    assert_eq!(l.settle("a", "t").await.unwrap(), Resolved::Already);
    let b = audit(&l, "a").await;
    assert_eq!((b.balance, b.held()), (6, 0));
    assert_eq!(
        hold_rows(&l, "a").await["t"].resolved,
        Some((EntryKind::Settle, 3))
    );
}

/// Each write of each kind of change fails once (the process dies
/// there); whatever the next call is, the account ends consistent and
/// the hold resolves once.
#[tokio::test]
async fn a_crash_before_any_write_is_repaired() {
    let tables_written = [&tables::BALANCES, &tables::HOLDS, &tables::LEDGER];
    for crash_in in 0..3 {
        for table in tables_written {
            for next in ["read", "settle", "void", "hold"] {
                let f = fixture();
                let l = &f.l;
                l.grant("a", "signup", 10).await.unwrap();
                let what = format!("crash in op {crash_in} at {} then {next}", table.name);
                // op 0: hold, op 1: settle, op 2: void (of another hold).
                if crash_in > 0 {
                    l.hold("a", "t", 4).await.unwrap();
                }
                f.store.arm(table, 1);
                let crashed = match crash_in {
                    0 => l.hold("a", "t", 4).await.map(|()| Resolved::Now(4)),
                    1 => l.settle("a", "t").await,
                    _ => l.void("a", "t").await,
                };
                assert!(crashed.is_err() && f.store.fired(), "{what}");
                f.store.disarm();
                let b = match next {
                    "read" => l.balance("a").await.unwrap(),
                    "settle" => {
                        l.settle("a", "t").await.unwrap();
                        l.balance("a").await.unwrap()
                    }
                    "void" => {
                        l.void("a", "t").await.unwrap();
                        l.balance("a").await.unwrap()
                    }
                    _ => {
                        l.hold("a", "t", 4).await.unwrap();
                        l.balance("a").await.unwrap()
                    }
                };
                let cas_applied = *table != tables::BALANCES;
                let a = audit(l, "a").await;
                assert_eq!(a, b, "{what}");
                let entries = all_entries(l, "a").await;
                let kinds: Vec<EntryKind> = entries.iter().map(|e| e.kind).collect();
                use EntryKind::*;
                let expected: Vec<EntryKind> = match (crash_in, cas_applied, next) {
                    // The hold's CAS did not apply: no hold until the next one.
                    (0, false, "hold") => vec![Grant, Hold],
                    (0, false, _) => vec![Grant],
                    // It applied: the hold stands, once.
                    (0, true, "settle") => vec![Grant, Hold, Settle],
                    (0, true, "void") => vec![Grant, Hold, Void],
                    (0, true, _) => vec![Grant, Hold],
                    // A resolution that applied is the only one.
                    (1, true, _) => vec![Grant, Hold, Settle],
                    (_, true, _) => vec![Grant, Hold, Void],
                    // One that did not leaves the hold to the next call.
                    (_, false, "settle") => vec![Grant, Hold, Settle],
                    (_, false, "void") => vec![Grant, Hold, Void],
                    (_, false, _) => vec![Grant, Hold],
                };
                assert_eq!(kinds, expected, "{what}");
            }
        }
    }
}

#[tokio::test]
async fn a_late_record_or_stale_flush_never_reopens_a_resolved_hold() {
    let (_d, l) = ledger();
    l.grant("a", "signup", 10).await.unwrap();
    let hold = l.hold_unrecorded("a", "t", 4).await.unwrap().unwrap();
    let stale_row = l.balance("a").await.unwrap();
    // Another process flushes the hold (balance read above) and settles it.
    assert_eq!(l.settle("a", "t").await.unwrap(), Resolved::Now(4));
    let settled = hold_rows(&l, "a").await["t"].clone();
    assert_eq!(settled.resolved, Some((EntryKind::Settle, 3)));
    // The creator records its hold late.
    l.record("a", &hold).await.unwrap();
    // A slow process that read the row and found the hold's entry
    // missing before all this applies its effect now.
    assert_eq!(stale_row.last.as_ref(), Some(&hold));
    l.apply_effect("a", &hold, None).await.unwrap();
    l.flush_last("a", &stale_row).await.unwrap();
    assert_eq!(hold_rows(&l, "a").await["t"], settled);
    // And the stale flush of the settle rewrites the same row.
    let settle = l.balance("a").await.unwrap().last.unwrap();
    l.apply_effect("a", &settle, None).await.unwrap();
    assert_eq!(hold_rows(&l, "a").await["t"], settled);
    assert_eq!(l.void("a", "t").await.unwrap(), Resolved::Already);
    assert_eq!(l.settle("a", "t").await.unwrap(), Resolved::Already);
    l.hold("a", "t", 4).await.unwrap();
    let b = audit(&l, "a").await;
    assert_eq!((b.balance, b.held(), b.seq), (6, 0, 3));
}

/// Random holds, settles, voids and grants from three concurrent callers,
/// a quarter of them dying at a random write.
#[tokio::test]
async fn random_changes_with_crashes_stay_consistent() {
    let f = fixture();
    f.l.grant("a", "signup", 12).await.unwrap();
    let mut tasks = Vec::new();
    for worker in 0..3u64 {
        let (l, store) = (f.l.clone(), f.store.clone());
        tasks.push(tokio::spawn(async move {
            let mut rng = rand::rngs::StdRng::seed_from_u64(7 + worker);
            let mut now = Vec::new();
            for i in 0..150 {
                let key = format!("k{}", rng.random_range(0..40));
                if rng.random_bool(0.25) {
                    let table = [&tables::BALANCES, &tables::HOLDS, &tables::LEDGER]
                        [rng.random_range(0..3)];
                    store.arm(table, rng.random_range(1..3));
                }
                match rng.random_range(0..10) {
                    0..=3 => {
                        let _ = l.hold("a", &key, rng.random_range(1..5)).await;
                    }
                    4..=5 => {
                        if let Ok(Resolved::Now(n)) = l.settle("a", &key).await {
                            now.push((key, EntryKind::Settle, n));
                        }
                    }
                    6..=8 => {
                        if let Ok(Resolved::Now(n)) = l.void("a", &key).await {
                            now.push((key, EntryKind::Void, n));
                        }
                    }
                    _ => {
                        let _ = l.grant("a", &format!("g{worker}-{i}"), 2).await;
                    }
                }
            }
            now
        }));
    }
    let mut now = Vec::new();
    for t in tasks {
        now.extend(t.await.unwrap());
    }
    f.store.disarm();
    let b = audit(&f.l, "a").await;
    let rows = hold_rows(&f.l, "a").await;
    let keys: BTreeSet<&String> = now.iter().map(|(k, _, _)| k).collect();
    assert_eq!(keys.len(), now.len(), "a key resolved Now twice: {now:?}");
    for (key, kind, n) in &now {
        let row = &rows[key];
        assert_eq!((row.resolved.map(|r| r.0), row.amount), (Some(*kind), *n));
    }
    assert!(rows.len() > 20, "the run exercised holds: {rows:?}");
    assert!(b.seq > 50 && now.len() > 10, "{b:?} {now:?}");
}

#[tokio::test]
async fn the_balance_row_does_not_grow_with_open_holds() {
    let f = fixture();
    let l = &f.l;
    // Same seq, held and last entry size; 999 open holds against 1.
    l.grant("many", "signup", 100_000).await.unwrap();
    l.grant("one", "signup", 100_000).await.unwrap();
    let many = async {
        for i in 1..=998 {
            l.hold("many", &format!("h{i:04}"), 1).await.unwrap();
        }
    };
    let one = async {
        for i in 1..=499 {
            let key = format!("v{i:04}");
            l.hold("one", &key, 1).await.unwrap();
            l.void("one", &key).await.unwrap();
        }
    };
    // Concurrently, so that the store's group commit shares the syncs.
    tokio::join!(many, one);
    l.hold("many", "h1000", 1000).await.unwrap();
    l.hold("one", "h1000", 1000).await.unwrap();
    let size = |account: &'static str| {
        let store = f.store.clone();
        async move {
            store
                .get(&tables::BALANCES, &Key::of(account), &Key::empty())
                .await
                .unwrap()
                .unwrap()
                .len()
        }
    };
    let (many, one) = (audit(l, "many").await, audit(l, "one").await);
    assert_eq!((many.seq, one.seq), (1000, 1000));
    assert_eq!((many.held(), one.held()), (1998, 1000));
    assert_eq!(size("many").await, size("one").await);
    assert!(size("many").await < 200, "{}", size("many").await);
}
