//! Credits: a ledger, not a balance that code edits (DESIGN.md "Credits").
//!
//! # Rows
//!
//! - The balance row (`BALANCES`, one per account): the settled balance,
//!   `held` (the total of the open holds), the sequence number of the latest
//!   change and that change's ledger entry (`last`), and the grant keys
//!   applied. It does not list the holds: its size does not depend on how
//!   many tasks an account has open, so a create does not rewrite an
//!   ever-growing row (issue 8).
//! - One hold row per hold (`HOLDS`, pk account, ck hold key = task id):
//!   its amount, the seq of its `Hold` entry, and once resolved the kind and
//!   seq of the resolving entry. Resolved rows are never deleted: like
//!   ledger entries they are history, and they are what makes a second
//!   settle, void or hold of the same key a no-op.
//! - The ledger (`LEDGER`, pk account, ck seq): one entry per change.
//!
//! Every change (grant, hold, settle, void) is one compare-and-set of the
//! balance row, so the balance never goes negative under concurrent
//! requests. The other writes of a change cannot share that CAS (an LWT on
//! ScyllaDB covers one partition, and the hold rows and entries are other
//! rows), so the row's `last` entry is a write-ahead record: a change is
//! 1. the CAS (seq + 1, `last` = its entry),
//! 2. its *effect* on the hold row: `Hold` inserts the open row if absent
//!    (`insert_if_absent`, never `put`); `Settle`/`Void` put the row with
//!    `resolved` set (the same bytes whoever writes them: the open row's
//!    amount and seq, which never change, plus the entry's kind and seq),
//! 3. the ledger entry.
//!
//! Steps 2 and 3 are done by the process that made the change
//! ([`Ledger::record`]), and by anyone who finds the row's `last` entry
//! missing from the ledger (`flush_last`, run before every change and on
//! every read of the balance or the ledger), always in that order. So an
//! entry in the ledger implies that its effect was applied, and
//! `flush_last` may skip when the entry is there.
//!
//! # Why it is right, crash or not
//!
//! (a) *Every earlier change is applied.* A CAS from row `r` applies only
//! if the row is still `r` (bytes; seq rises on every change, so no ABA),
//! and the process flushed `r.last` before: so when a row has `last` = the
//! entry of seq `n`, the effects and entries of all seqs `< n` are written.
//! A crash between any two of the three writes leaves at most the `last`
//! entry of the current row unapplied, which the next change or read
//! applies before doing anything else.
//!
//! (b) *A key is held at most once, and resolved at most once.* A hold and
//! a resolution decide on the hold row read *after* the flush, within the
//! CAS loop: by (a), every earlier entry of that key has its effect written
//! by then, so an earlier hold shows as a row (hold: no-op) and an earlier
//! resolution shows as a resolved row (resolve: `Already`). Two concurrent
//! calls read the same row `r`: one CAS wins, the other re-reads, re-flushes
//! (applying the winner's effect) and re-decides. A resolved row never
//! reopens: the only other write to it is `insert_if_absent`, so a slow
//! process flushing a stale `Hold` entry, or recording its own late, cannot
//! overwrite it.
//!
//! (c) *`held` equals the sum of the open hold rows after a flush.* A `Hold`
//! change adds its amount to `held` and its effect opens a row with that
//! amount; a resolution subtracts the amount of the open row it read (which
//! is its entry's amount) and its effect closes that row. By (b) each open
//! row is added once and subtracted at most once, and by (a) all effects
//! up to the row's seq are applied after the flush. Between the CAS and
//! its effect, the row is ahead of the hold rows by exactly the `last`
//! entry, never more. `held` never goes below zero and every hold resolves
//! exactly once: resolutions are caused by the task state machine, which
//! settles or voids each ended task until the ledger answers.
//!
//! (d) *Entries sum to the balance*: each change's entry carries its delta
//! and, by (a), is written before the next change applies.
//!
//! # Rows written before hold rows existed
//!
//! Older balance rows kept the open holds in a `holds` map. Those are still
//! read (`legacy_holds`): they count in `held()` and `available()`, holding
//! such a key again is a no-op, and resolving one removes it from the map
//! in the resolving CAS (its resolved hold row gets seq 0: the seq of such a
//! hold was not kept). The map never receives new holds and disappears when
//! it empties. A legacy row's unflushed `Hold` entry of a key still in the
//! map has no hold-row effect (the map carries that hold). A legacy row
//! re-encodes to its stored bytes (`held` omitted when 0, the map kept
//! even when empty until the row changes), which the first CAS on it needs.
//! Old and new binaries must not run side by side: the old one cannot
//! decode a row without `holds`.

use std::collections::BTreeMap;

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// Credits given (sign-up grant, purchase, operator).
    Grant,
    /// Credits reserved for a task; the balance is unchanged, `available` drops.
    Hold,
    /// A hold charged: the balance drops by its amount.
    Settle,
    /// A hold released without charge.
    Void,
}

/// One ledger entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub seq: u64,
    pub kind: EntryKind,
    /// Idempotency key: task id, order id, `signup`, ...
    pub key: String,
    /// Change of the settled balance (positive grant, negative settle; 0 for hold and void).
    pub delta: i64,
    /// Amount held or released (hold, settle, void).
    pub amount: i64,
    pub balance_after: i64,
    pub at: i64,
}

/// The balance row. Field order and the skipped defaults are part of the
/// stored format: a row written before `held` existed must re-encode to
/// its stored bytes, because compare-and-set compares bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct BalanceRow {
    /// Settled credits.
    pub balance: i64,
    /// Total of the open holds kept as hold rows (see the module doc).
    /// Private: [`BalanceRow::held`] also counts the legacy map. Omitted
    /// when 0 so that rows written before this field re-encode unchanged.
    #[serde(default, skip_serializing_if = "is_zero")]
    held: i64,
    /// Open holds of rows written before hold rows existed (the old
    /// `holds` map). `Some` even when empty as long as the stored row had
    /// the map, for the same byte-for-byte reason; dropped on the next change
    /// once empty. Never receives a new hold.
    #[serde(rename = "holds", default, skip_serializing_if = "Option::is_none")]
    legacy_holds: Option<BTreeMap<String, i64>>,
    /// Sequence number of the latest entry.
    pub seq: u64,
    /// The latest entry, until it is surely in the ledger table: the
    /// write-ahead record of the hold-row effect and entry of the last change.
    pub last: Option<LedgerEntry>,
    /// Grant keys applied (sign-up, operator grants), for idempotency.
    pub grants: Vec<String>,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

impl BalanceRow {
    /// Credits reserved by open holds.
    pub fn held(&self) -> i64 {
        self.held
            + self
                .legacy_holds
                .iter()
                .flat_map(|m| m.values())
                .sum::<i64>()
    }
    /// What new holds may take.
    pub fn available(&self) -> i64 {
        self.balance - self.held()
    }
    fn legacy_holds(&self, key: &str) -> bool {
        self.legacy_holds
            .as_ref()
            .is_some_and(|m| m.contains_key(key))
    }
}

/// One hold (`HOLDS`, pk account id, ck hold key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldRow {
    /// Credits reserved.
    pub amount: i64,
    /// Ledger seq of the `Hold` entry; 0 for a hold made before hold rows
    /// existed (resolved from the legacy map; its seq was not kept).
    pub seq: u64,
    /// Kind (`Settle` or `Void`) and ledger seq of the entry that resolved
    /// it; `None` while open.
    pub resolved: Option<(EntryKind, u64)>,
}

/// Outcome of resolving a hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// This call resolved it, for this many credits.
    Now(i64),
    /// It was resolved before (or never held): nothing changed.
    Already,
}

/// What a change does to the balance row, decided in the CAS loop.
struct Change {
    kind: EntryKind,
    key: String,
    delta: i64,
    amount: i64,
    /// For a resolution of a hold row (not of the legacy map): the open
    /// row it resolves, so that the effect needs no second read.
    resolves: Option<HoldRow>,
}

/// A change this process made: its entry, and what [`Change::resolves`].
struct Made {
    entry: LedgerEntry,
    resolves: Option<HoldRow>,
}

#[derive(Clone)]
pub struct Ledger {
    balances: Table<BalanceRow>,
    entries: Table<LedgerEntry>,
    holds: Table<HoldRow>,
}

impl Ledger {
    pub fn new(store: DynStore) -> Ledger {
        Ledger {
            balances: Table::new(store.clone(), &tables::BALANCES),
            entries: Table::new(store.clone(), &tables::LEDGER),
            holds: Table::new(store, &tables::HOLDS),
        }
    }

    /// Writes the effect then the entry of `row.last` when the entry is not
    /// in the ledger yet (a change whose process did not finish, or has not
    /// yet).
    async fn flush_last(&self, account: &str, row: &BalanceRow) -> Result<(), ApiError> {
        if let Some(e) = &row.last {
            let pk = Key::of(account);
            let ck = Key::empty().u64(e.seq);
            if self.entries.get(&pk, &ck).await?.is_none() {
                // A `Hold` of a key in the legacy map was made by the old
                // code: the map carries it, it gets no hold row.
                let legacy = e.kind == EntryKind::Hold && row.legacy_holds(&e.key);
                if !legacy {
                    self.apply_effect(account, e, None).await?;
                }
                self.entries.put(&pk, &ck, e).await?;
            }
        }
        Ok(())
    }

    /// The hold-row effect of `entry` (see the module doc). `known`: the
    /// open hold row a resolution resolved, when this process made it.
    async fn apply_effect(
        &self,
        account: &str,
        entry: &LedgerEntry,
        known: Option<&HoldRow>,
    ) -> Result<(), ApiError> {
        let pk = Key::of(account);
        let ck = Key::of(&entry.key);
        match entry.kind {
            EntryKind::Grant => {}
            EntryKind::Hold => {
                let open = HoldRow {
                    amount: entry.amount,
                    seq: entry.seq,
                    resolved: None,
                };
                // Present: applied before, or resolved since; either way
                // it must stay as it is.
                let _ = self.holds.insert_if_absent(&pk, &ck, &open).await?;
            }
            EntryKind::Settle | EntryKind::Void => {
                let open = match known {
                    Some(h) => h.clone(),
                    None => match self.holds.get(&pk, &ck).await? {
                        Some(h) => match h.resolved {
                            Some(r) => {
                                if r != (entry.kind, entry.seq) {
                                    tracing::error!(
                                        account,
                                        key = %entry.key,
                                        seq = entry.seq,
                                        resolved = ?r,
                                        "hold resolved by another entry"
                                    );
                                }
                                return Ok(());
                            }
                            None => h,
                        },
                        // A hold from the legacy map: it never had a row.
                        None => HoldRow {
                            amount: entry.amount,
                            seq: 0,
                            resolved: None,
                        },
                    },
                };
                let closed = HoldRow {
                    resolved: Some((entry.kind, entry.seq)),
                    ..open
                };
                self.holds.put(&pk, &ck, &closed).await?;
            }
        }
        Ok(())
    }

    /// Applies `change` to the row by compare-and-set, retried on contention,
    /// then writes the effect and the ledger entry of the change. `change`
    /// returns `Ok(None)` to leave the row as it is.
    async fn change(
        &self,
        account: &str,
        hold_key: Option<&str>,
        change: impl FnMut(&mut BalanceRow, Option<&HoldRow>) -> Result<Option<Change>, ErrorCode>,
    ) -> Result<Option<LedgerEntry>, ApiError> {
        let Some(made) = self.change_row(account, hold_key, change).await? else {
            return Ok(None);
        };
        self.apply_effect(account, &made.entry, made.resolves.as_ref())
            .await?;
        self.write_entry(account, &made.entry).await?;
        Ok(Some(made.entry))
    }

    /// Writes the hold-row effect and the ledger entry of a change this
    /// process made (an entry from [`Ledger::hold_unrecorded`]), in that
    /// order. Without it both are still written, by the next change or
    /// read of the account (the row carries the entry as `last`); with it,
    /// at once. Calling it late (after others flushed the entry, or even
    /// resolved the hold) changes nothing.
    pub async fn record(&self, account: &str, entry: &LedgerEntry) -> Result<(), ApiError> {
        self.apply_effect(account, entry, None).await?;
        self.write_entry(account, entry).await
    }

    async fn write_entry(&self, account: &str, entry: &LedgerEntry) -> Result<(), ApiError> {
        // This process made entry `seq` (one compare-and-set made it), so no
        // other entry `seq` can exist: written without first reading whether
        // it is there (a concurrent flush writes the same bytes).
        self.entries
            .put(&Key::of(account), &Key::empty().u64(entry.seq), entry)
            .await?;
        Ok(())
    }

    /// The compare-and-set loop of [`Ledger::change`], without the effect
    /// and the entry. With `hold_key`, the hold row of that key is read
    /// after the flush in every attempt and given to `change`.
    async fn change_row(
        &self,
        account: &str,
        hold_key: Option<&str>,
        mut change: impl FnMut(&mut BalanceRow, Option<&HoldRow>) -> Result<Option<Change>, ErrorCode>,
    ) -> Result<Option<Made>, ApiError> {
        let pk = Key::of(account);
        let ck = Key::empty();
        loop {
            let current = self.balances.get(&pk, &ck).await?;
            let mut next = current.clone().unwrap_or_default();
            // Every earlier change's effect is in place before deciding.
            self.flush_last(account, &next).await?;
            let hold = match hold_key {
                Some(key) => self.holds.get(&pk, &Key::of(key)).await?,
                None => None,
            };
            let Some(c) = change(&mut next, hold.as_ref())? else {
                return Ok(None);
            };
            next.balance += c.delta;
            next.seq += 1;
            if next.legacy_holds.as_ref().is_some_and(BTreeMap::is_empty) {
                next.legacy_holds = None;
            }
            let entry = LedgerEntry {
                seq: next.seq,
                kind: c.kind,
                key: c.key,
                delta: c.delta,
                amount: c.amount,
                balance_after: next.balance,
                at: now_millis(),
            };
            next.last = Some(entry.clone());
            let applied = match &current {
                None => self
                    .balances
                    .insert_if_absent(&pk, &ck, &next)
                    .await?
                    .is_ok(),
                Some(cur) => self
                    .balances
                    .compare_and_set(&pk, &ck, cur, Some(&next))
                    .await?
                    .is_ok(),
            };
            if applied {
                return Ok(Some(Made {
                    entry,
                    resolves: c.resolves,
                }));
            }
        }
    }

    /// Gives credits once per `key`.
    pub async fn grant(&self, account: &str, key: &str, amount: i64) -> Result<bool, ApiError> {
        let out = self
            .change(account, None, |row, _| {
                if row.grants.iter().any(|k| k == key) {
                    return Ok(None);
                }
                row.grants.push(key.to_owned());
                Ok(Some(Change {
                    kind: EntryKind::Grant,
                    key: key.to_owned(),
                    delta: amount,
                    amount: 0,
                    resolves: None,
                }))
            })
            .await?;
        Ok(out.is_some())
    }

    /// Reserves `amount` for `key` (a task id); CoinsNotEnough when the
    /// available credits do not cover it. Holding a key that was ever held
    /// (open or resolved) is a no-op.
    pub async fn hold(&self, account: &str, key: &str, amount: i64) -> Result<(), ApiError> {
        if let Some(entry) = self.hold_unrecorded(account, key, amount).await? {
            self.record(account, &entry).await?;
        }
        Ok(())
    }

    /// [`Ledger::hold`] up to the balance row's compare-and-set: the hold is
    /// in force when this returns. Answers the new ledger entry (`None` when
    /// the key was already held), which the caller should [`Ledger::record`],
    /// typically together with its own writes so that they share a commit.
    pub async fn hold_unrecorded(
        &self,
        account: &str,
        key: &str,
        amount: i64,
    ) -> Result<Option<LedgerEntry>, ApiError> {
        let made = self
            .change_row(account, Some(key), |row, hold| {
                if hold.is_some() || row.legacy_holds(key) {
                    return Ok(None);
                }
                if amount > row.available() {
                    return Err(ErrorCode::CoinsNotEnough);
                }
                row.held += amount;
                Ok(Some(Change {
                    kind: EntryKind::Hold,
                    key: key.to_owned(),
                    delta: 0,
                    amount,
                    resolves: None,
                }))
            })
            .await?;
        Ok(made.map(|m| m.entry))
    }

    /// Charges the hold of `key`, exactly once.
    pub async fn settle(&self, account: &str, key: &str) -> Result<Resolved, ApiError> {
        self.resolve(account, key, EntryKind::Settle).await
    }

    /// Releases the hold of `key` without charge, exactly once.
    pub async fn void(&self, account: &str, key: &str) -> Result<Resolved, ApiError> {
        self.resolve(account, key, EntryKind::Void).await
    }

    async fn resolve(
        &self,
        account: &str,
        key: &str,
        kind: EntryKind,
    ) -> Result<Resolved, ApiError> {
        let out = self
            .change(account, Some(key), |row, hold| {
                let legacy = row.legacy_holds.as_mut().and_then(|m| m.remove(key));
                let (amount, resolves) = match (legacy, hold) {
                    (Some(amount), _) => (amount, None),
                    (None, Some(h)) if h.resolved.is_none() => {
                        row.held -= h.amount;
                        (h.amount, Some(h.clone()))
                    }
                    (None, _) => return Ok(None),
                };
                let delta = if kind == EntryKind::Settle {
                    -amount
                } else {
                    0
                };
                Ok(Some(Change {
                    kind,
                    key: key.to_owned(),
                    delta,
                    amount,
                    resolves,
                }))
            })
            .await?;
        Ok(match out {
            Some(e) => Resolved::Now(e.amount),
            None => Resolved::Already,
        })
    }

    /// The balance row, after writing its latest change's effect and entry
    /// if they are missing.
    pub async fn balance(&self, account: &str) -> Result<BalanceRow, ApiError> {
        let row = self
            .balances
            .get(&Key::of(account), &Key::empty())
            .await?
            .unwrap_or_default();
        self.flush_last(account, &row).await?;
        Ok(row)
    }

    /// The newest entries first.
    pub async fn entries(&self, account: &str, limit: u32) -> Result<Vec<LedgerEntry>, ApiError> {
        // Make sure the latest entry is written before listing.
        self.balance(account).await?;
        let page = self
            .entries
            .scan(&Key::of(account), &ScanRange::all(limit).desc())
            .await?;
        Ok(page.rows.into_iter().map(|(_, e)| e).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use infra::store::embedded::EmbeddedStore;
    use infra::store::{CasOutcome, RawPage, Store, StoreError, StoreResult, TableDef};
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeSet;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// A store that fails one chosen write, as if the process died just
    /// before it: what that call would have written next is never written.
    struct Crashing {
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
        async fn counter_add(
            &self,
            t: &TableDef,
            pk: &Key,
            ck: &Key,
            delta: i64,
        ) -> StoreResult<()> {
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

    struct Fixture {
        _dir: tempfile::TempDir,
        store: Arc<Crashing>,
        l: Ledger,
    }

    fn fixture() -> Fixture {
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

    fn ledger() -> (tempfile::TempDir, Ledger) {
        let f = fixture();
        (f._dir, f.l)
    }

    async fn hold_rows(l: &Ledger, account: &str) -> BTreeMap<String, HoldRow> {
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

    async fn all_entries(l: &Ledger, account: &str) -> Vec<LedgerEntry> {
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
    async fn audit(l: &Ledger, account: &str) -> BalanceRow {
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
        let mut held_keys = BTreeSet::new();
        let mut resolved_keys = BTreeSet::new();
        for e in &entries {
            let row = holds.get(&e.key);
            match e.kind {
                EntryKind::Grant => assert!(row.is_none()),
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

    /// The balance row as written before hold rows existed.
    #[derive(Debug, Serialize, Deserialize)]
    struct OldBalanceRow {
        balance: i64,
        holds: BTreeMap<String, i64>,
        seq: u64,
        last: Option<LedgerEntry>,
        grants: Vec<String>,
    }

    fn entry(
        seq: u64,
        kind: EntryKind,
        key: &str,
        delta: i64,
        amount: i64,
        after: i64,
    ) -> LedgerEntry {
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
}
