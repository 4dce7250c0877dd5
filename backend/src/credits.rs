//! Credits: a ledger, not a balance that code edits (DESIGN.md "Credits").
//!
//! Each account has one balance row holding the settled balance and the open
//! holds (task id -> amount). Every change (grant, hold, settle, void) is one
//! compare-and-set on that row, so the balance never goes negative under
//! concurrent requests, and a hold resolves exactly once: settling or voiding
//! a task whose hold is no longer open changes nothing.
//!
//! The ledger entry of a change is written after the row's compare-and-set
//! (an entry cannot be part of the same CAS on ScyllaDB: LWT covers one
//! partition). So the row carries its latest entry (`last`) and its sequence
//! number: before every change, and when the ledger is read, a missing entry
//! for the row's sequence is written first. Entries therefore always sum to
//! the balance, even after a crash between the two writes.

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

/// The balance row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct BalanceRow {
    /// Settled credits.
    pub balance: i64,
    /// Open holds by idempotency key (task id).
    pub holds: BTreeMap<String, i64>,
    /// Sequence number of the latest entry.
    pub seq: u64,
    /// The latest entry, until it is surely in the ledger table.
    pub last: Option<LedgerEntry>,
    /// Grant keys applied (sign-up, operator grants), for idempotency.
    pub grants: Vec<String>,
}

impl BalanceRow {
    pub fn held(&self) -> i64 {
        self.holds.values().sum()
    }
    /// What new holds may take.
    pub fn available(&self) -> i64 {
        self.balance - self.held()
    }
}

/// Outcome of resolving a hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// This call resolved it, for this many credits.
    Now(i64),
    /// It was resolved before (or never held): nothing changed.
    Already,
}

#[derive(Clone)]
pub struct Ledger {
    balances: Table<BalanceRow>,
    entries: Table<LedgerEntry>,
}

impl Ledger {
    pub fn new(store: DynStore) -> Ledger {
        Ledger {
            balances: Table::new(store.clone(), &tables::BALANCES),
            entries: Table::new(store, &tables::LEDGER),
        }
    }

    async fn flush_last(&self, account: &str, row: &BalanceRow) -> Result<(), ApiError> {
        if let Some(e) = &row.last {
            let pk = Key::of(account);
            let ck = Key::empty().u64(e.seq);
            if self.entries.get(&pk, &ck).await?.is_none() {
                self.entries.put(&pk, &ck, e).await?;
            }
        }
        Ok(())
    }

    /// Applies `change` to the row by compare-and-set, retried on contention,
    /// then writes the ledger entry of the change. `change` returns
    /// `Ok(None)` to leave the row as it is.
    async fn change(
        &self,
        account: &str,
        change: impl FnMut(&mut BalanceRow) -> Result<Option<(EntryKind, String, i64, i64)>, ErrorCode>,
    ) -> Result<Option<LedgerEntry>, ApiError> {
        let entry = self.change_row(account, change).await?;
        if let Some(e) = &entry {
            self.record(account, e).await?;
        }
        Ok(entry)
    }

    /// Writes the ledger entry of a change this process made. Without it
    /// the entry is still written, by the next change or read of the
    /// account's ledger (the row carries it as `last`); with it, at once.
    pub async fn record(&self, account: &str, entry: &LedgerEntry) -> Result<(), ApiError> {
        // This process made entry `seq` (one compare-and-set made it), so no
        // other entry `seq` can exist: written without first reading whether
        // it is there (a concurrent flush writes the same bytes).
        self.entries
            .put(&Key::of(account), &Key::empty().u64(entry.seq), entry)
            .await?;
        Ok(())
    }

    /// The compare-and-set loop of [`Ledger::change`], without writing the
    /// entry: answers it for the caller to [`Ledger::record`].
    async fn change_row(
        &self,
        account: &str,
        mut change: impl FnMut(
            &mut BalanceRow,
        ) -> Result<Option<(EntryKind, String, i64, i64)>, ErrorCode>,
    ) -> Result<Option<LedgerEntry>, ApiError> {
        let pk = Key::of(account);
        let ck = Key::empty();
        loop {
            let current = self.balances.get(&pk, &ck).await?;
            let mut next = current.clone().unwrap_or_default();
            self.flush_last(account, &next).await?;
            let Some((kind, key, delta, amount)) = change(&mut next)? else {
                return Ok(None);
            };
            next.balance += delta;
            next.seq += 1;
            let entry = LedgerEntry {
                seq: next.seq,
                kind,
                key,
                delta,
                amount,
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
                return Ok(Some(entry));
            }
        }
    }

    /// Gives credits once per `key`.
    pub async fn grant(&self, account: &str, key: &str, amount: i64) -> Result<bool, ApiError> {
        let out = self
            .change(account, |row| {
                if row.grants.iter().any(|k| k == key) {
                    return Ok(None);
                }
                row.grants.push(key.to_owned());
                Ok(Some((EntryKind::Grant, key.to_owned(), amount, 0)))
            })
            .await?;
        Ok(out.is_some())
    }

    /// Reserves `amount` for `key` (a task id); CoinsNotEnough when the
    /// available credits do not cover it. Holding the same key twice is a no-op.
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
        self.change_row(account, |row| {
            if row.holds.contains_key(key) {
                return Ok(None);
            }
            if amount > row.available() {
                return Err(ErrorCode::CoinsNotEnough);
            }
            row.holds.insert(key.to_owned(), amount);
            Ok(Some((EntryKind::Hold, key.to_owned(), 0, amount)))
        })
        .await
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
            .change(account, |row| {
                let Some(amount) = row.holds.remove(key) else {
                    return Ok(None);
                };
                let delta = if kind == EntryKind::Settle {
                    -amount
                } else {
                    0
                };
                Ok(Some((kind, key.to_owned(), delta, amount)))
            })
            .await?;
        Ok(match out {
            Some(e) => Resolved::Now(e.amount),
            None => Resolved::Already,
        })
    }

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
    use std::sync::Arc;

    fn ledger() -> (tempfile::TempDir, Ledger) {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedStore::open(&dir.path().join("s")).unwrap();
        (dir, Ledger::new(Arc::new(store)))
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
    }
}
