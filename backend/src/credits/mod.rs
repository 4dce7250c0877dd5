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
    /// Credits of an earlier grant taken back (a refund or a dispute):
    /// `delta` is what the available credits covered, `amount` what became
    /// debt.
    Reverse,
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
    /// Grant and reversal keys applied (sign-up, operator grants, orders,
    /// plan periods, refunds), for idempotency.
    pub grants: Vec<String>,
    /// Credits owed: what a reversal could not take because they were
    /// spent. Later grants pay it first. Omitted when 0 so that rows
    /// written before this field re-encode unchanged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub debt: i64,
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
            EntryKind::Grant | EntryKind::Reverse => {}
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

    /// Gives credits once per `key`. A debt is paid first: the entry's
    /// `amount` is the part of the grant that paid it, `delta` the rest.
    pub async fn grant(&self, account: &str, key: &str, amount: i64) -> Result<bool, ApiError> {
        let out = self
            .change(account, None, |row, _| {
                if row.grants.iter().any(|k| k == key) {
                    return Ok(None);
                }
                row.grants.push(key.to_owned());
                let pays = row.debt.min(amount.max(0));
                row.debt -= pays;
                Ok(Some(Change {
                    kind: EntryKind::Grant,
                    key: key.to_owned(),
                    delta: amount - pays,
                    amount: pays,
                    resolves: None,
                }))
            })
            .await?;
        Ok(out.is_some())
    }

    /// Takes back `amount` credits once per `key` (a refund or a dispute of
    /// what an order granted). The balance never goes negative and open
    /// holds stay covered: what the available credits do not cover becomes
    /// [`BalanceRow::debt`], which later grants pay first. Answers whether
    /// this call did it, and how much became debt.
    pub async fn reverse(
        &self,
        account: &str,
        key: &str,
        amount: i64,
    ) -> Result<Option<i64>, ApiError> {
        let out = self
            .change(account, None, |row, _| {
                if row.grants.iter().any(|k| k == key) {
                    return Ok(None);
                }
                row.grants.push(key.to_owned());
                let amount = amount.max(0);
                let takes = amount.min(row.available().max(0));
                row.debt += amount - takes;
                Ok(Some(Change {
                    kind: EntryKind::Reverse,
                    key: key.to_owned(),
                    delta: -takes,
                    amount: amount - takes,
                    resolves: None,
                }))
            })
            .await?;
        Ok(out.map(|e| e.amount))
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
mod debt_tests;
#[cfg(test)]
mod legacy_tests;
#[cfg(test)]
mod tests;
