//! The embedded store: every table in one `redb` file (`easel.redb`), one redb
//! table per [`TableDef`], each write durable before the call returns.
//!
//! Layout: a row's redb key is the partition key, length-prefixed (`u32`
//! big-endian, then the bytes), followed by the clustering key. The prefix
//! makes a partition one contiguous key range, and within it rows sort by
//! clustering key exactly as CQL's `blob` clustering order does. Regular
//! tables map that key to the value bytes, counter tables to an `i64`.
//!
//! Reads run on tokio's blocking pool, each in its own read transaction.
//!
//! Writes go through **group commit**: one writer thread owns the write
//! side. A write call sends its operation (a closure over the write
//! transaction) and a reply channel to it; the writer takes everything
//! queued (up to [`MAX_BATCH_OPS`] operations or [`MAX_BATCH_BYTES`]),
//! runs the operations in arrival order in *one* write transaction, commits
//! it once with [`Durability::Immediate`] (one fsync for the whole batch),
//! and only then answers every caller. So a call that returned `Ok` is on
//! disk, as the [`Store`] contract demands, while the fsync cost is shared
//! by everything that arrived during the previous commit.
//!
//! The result is the same as running the operations one by one in arrival
//! order: each sees the writes of those before it (same transaction, same
//! order), which is what makes [`Store::cas`] and [`Store::counter_add`]
//! atomic. When any operation of a batch fails (an error, or a panic), or
//! the commit fails, the batch's transaction is aborted and each of its
//! operations is run again alone in its own transaction, so every caller
//! gets exactly the answer it would have had without batching and one
//! failing call never fails another. Operations are therefore `Fn`, not
//! `FnOnce`: they must be re-runnable.

use std::ops::Bound;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

use redb::{Database, Durability, ReadableDatabase, ReadableTable, TableDefinition, TableError};
use tokio::sync::oneshot;

pub use super::WriteStats;
use super::{
    effective_bounds, CasOutcome, CkBounds, Key, Order, PagingState, RawPage, ScanRange, Store,
    StoreError, StoreResult, TableDef, TableKind, TableRow,
};

/// File name of the database inside the data directory.
pub const FILE_NAME: &str = "easel.redb";

/// At most this many operations share one write transaction. Bounds how
/// long the first caller of a batch waits for the rest to run (a few µs
/// each) and the work redone when the batch has to be split.
pub const MAX_BATCH_OPS: usize = 512;

/// A batch stops growing once its operations carry this many bytes (keys
/// and values), so a burst of large rows is not held in one transaction.
pub const MAX_BATCH_BYTES: usize = 4 << 20;

type Bytes = &'static [u8];

/// A [`Store`] over one redb file.
#[derive(Clone)]
pub struct EmbeddedStore {
    db: Arc<Database>,
    writer: Arc<Writer>,
}

impl std::fmt::Debug for EmbeddedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EmbeddedStore")
    }
}

/// Shared counters behind [`WriteStats`]: written by the writer thread,
/// read by anyone (relaxed: they are statistics, not synchronisation).
#[derive(Default)]
struct Stats {
    ops: AtomicU64,
    commits: AtomicU64,
    split_batches: AtomicU64,
}

/// One write operation on its way to the writer thread, type-erased so that
/// operations with different answers share one channel.
trait WriteJob: Send {
    /// Runs the operation in `txn` and keeps its answer; false when it
    /// failed (an error or a panic).
    fn run(&mut self, txn: &redb::WriteTransaction) -> bool;
    /// Replaces the kept answer by `e` (the commit failed).
    fn fail(&mut self, e: StoreError);
    /// Bytes of keys and values the operation carries, for the batch bound.
    fn weight(&self) -> usize;
    /// Sends the kept answer to the caller (who may have gone: then nothing).
    fn reply(self: Box<Self>);
}

struct Job<T, F> {
    op: F,
    weight: usize,
    /// The answer of the latest run; `None` until run.
    answer: Option<StoreResult<T>>,
    reply: oneshot::Sender<StoreResult<T>>,
}

impl<T, F> WriteJob for Job<T, F>
where
    T: Send,
    F: Fn(&redb::WriteTransaction) -> StoreResult<T> + Send,
{
    fn run(&mut self, txn: &redb::WriteTransaction) -> bool {
        let op = &self.op;
        // A panicking operation must not take the writer (and with it every
        // later write) down: it fails alone, as a panic on the blocking pool did.
        let answer = match catch_unwind(AssertUnwindSafe(|| op(txn))) {
            Ok(answer) => answer,
            Err(_) => Err(backend("store write operation panicked")),
        };
        let ok = answer.is_ok();
        self.answer = Some(answer);
        ok
    }

    fn fail(&mut self, e: StoreError) {
        self.answer = Some(Err(e));
    }

    fn weight(&self) -> usize {
        self.weight
    }

    fn reply(self: Box<Self>) {
        let answer = self
            .answer
            .unwrap_or_else(|| Err(backend("store write was never run")));
        // The caller may have stopped waiting; the write stands regardless.
        let _ = self.reply.send(answer);
    }
}

type BoxedJob = Box<dyn WriteJob>;

/// The handle on the writer thread. Dropping the last one (with the last
/// [`EmbeddedStore`] clone) closes the channel; the writer finishes what is
/// queued, and the drop waits for it so that the database file is closed
/// (and can be opened again) once the store is gone.
struct Writer {
    /// `None` only during drop, when it is taken to close the channel.
    jobs: Option<mpsc::Sender<BoxedJob>>,
    thread: Option<JoinHandle<()>>,
    stats: Arc<Stats>,
}

impl Drop for Writer {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the embedded store's writer thread panicked");
            }
        }
    }
}

/// The writer thread's loop: batch, run, commit, answer; until the channel closes.
fn writer_loop(db: &Database, jobs: &mpsc::Receiver<BoxedJob>, stats: &Stats) {
    // For a debug line every 10 s of activity: how well writes are grouped.
    let mut since = (std::time::Instant::now(), 0u64, 0u64);
    while let Ok(first) = jobs.recv() {
        let mut weight = first.weight();
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH_OPS && weight < MAX_BATCH_BYTES {
            match jobs.try_recv() {
                Ok(job) => {
                    weight = weight.saturating_add(job.weight());
                    batch.push(job);
                }
                Err(_) => break,
            }
        }
        if batch.len() == 1 {
            for job in &mut batch {
                run_alone(db, job.as_mut(), stats);
            }
        } else if !run_together(db, &mut batch, stats) {
            stats.split_batches.fetch_add(1, AtomicOrdering::Relaxed);
            for job in &mut batch {
                run_alone(db, job.as_mut(), stats);
            }
        }
        stats
            .ops
            .fetch_add(batch.len() as u64, AtomicOrdering::Relaxed);
        for job in batch {
            job.reply();
        }
        if since.0.elapsed() >= std::time::Duration::from_secs(10) {
            let ops = stats.ops.load(AtomicOrdering::Relaxed);
            let commits = stats.commits.load(AtomicOrdering::Relaxed);
            tracing::debug!(
                ops = ops - since.1,
                commits = commits - since.2,
                secs = since.0.elapsed().as_secs_f64(),
                "store writer"
            );
            since = (std::time::Instant::now(), ops, commits);
        }
    }
}

fn begin(db: &Database) -> StoreResult<redb::WriteTransaction> {
    let mut txn = db.begin_write().map_err(backend)?;
    txn.set_durability(Durability::Immediate).map_err(backend)?;
    Ok(txn)
}

/// Runs the whole batch in one transaction and commits it; false (with the
/// transaction aborted) when any operation or the commit failed.
fn run_together(db: &Database, batch: &mut [BoxedJob], stats: &Stats) -> bool {
    let Ok(txn) = begin(db) else {
        return false;
    };
    for job in batch.iter_mut() {
        if !job.run(&txn) {
            if let Err(e) = txn.abort() {
                tracing::warn!(error = %e, "aborting a failed write batch");
            }
            return false;
        }
    }
    match txn.commit() {
        Ok(()) => {
            stats.commits.fetch_add(1, AtomicOrdering::Relaxed);
            true
        }
        Err(e) => {
            tracing::warn!(error = %e, "a write batch did not commit; retrying its writes one by one");
            false
        }
    }
}

/// Runs one operation in its own transaction, committing it when it succeeded.
fn run_alone(db: &Database, job: &mut dyn WriteJob, stats: &Stats) {
    let txn = match begin(db) {
        Ok(txn) => txn,
        Err(e) => return job.fail(e),
    };
    if !job.run(&txn) {
        if let Err(e) = txn.abort() {
            tracing::warn!(error = %e, "aborting a failed write");
        }
        return;
    }
    match txn.commit() {
        Ok(()) => {
            stats.commits.fetch_add(1, AtomicOrdering::Relaxed);
        }
        Err(e) => job.fail(backend(e)),
    }
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

fn regular_def(t: &TableDef) -> StoreResult<TableDefinition<'static, Bytes, Bytes>> {
    match t.kind {
        TableKind::Regular => Ok(TableDefinition::new(t.name)),
        TableKind::Counter => Err(StoreError::WrongKind(t.name, TableKind::Regular)),
    }
}

fn counter_def(t: &TableDef) -> StoreResult<TableDefinition<'static, Bytes, i64>> {
    match t.kind {
        TableKind::Counter => Ok(TableDefinition::new(t.name)),
        TableKind::Regular => Err(StoreError::WrongKind(t.name, TableKind::Counter)),
    }
}

/// The length-prefixed partition key: every row key of the partition starts
/// with it, and nothing else does.
fn partition_prefix(pk: &Key) -> StoreResult<Vec<u8>> {
    let pk = pk.as_bytes();
    let len = u32::try_from(pk.len()).map_err(|_| backend("partition key longer than 4 GiB"))?;
    let mut out = Vec::with_capacity(4 + pk.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(pk);
    Ok(out)
}

fn row_key(pk: &Key, ck: &Key) -> StoreResult<Vec<u8>> {
    let mut out = partition_prefix(pk)?;
    out.extend_from_slice(ck.as_bytes());
    Ok(out)
}

/// A row key's partition and clustering keys ([`row_key`] undone).
fn split_row_key(k: &[u8]) -> StoreResult<(Key, Key)> {
    let (len, rest) = k
        .split_first_chunk::<4>()
        .ok_or_else(|| backend("row key shorter than its length prefix"))?;
    let len = usize::try_from(u32::from_be_bytes(*len)).map_err(backend)?;
    if rest.len() < len {
        return Err(backend("row key shorter than its partition key"));
    }
    let (pk, ck) = rest.split_at(len);
    Ok((Key::from_bytes(pk.to_vec()), Key::from_bytes(ck.to_vec())))
}

/// The first key after every key starting with `prefix`, if there is one.
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// The whole partition, as a redb key range.
fn partition_range(prefix: &[u8]) -> CkBounds {
    let upper = match prefix_end(prefix) {
        Some(end) => Bound::Excluded(end),
        None => Bound::Unbounded,
    };
    (Bound::Included(prefix.to_vec()), upper)
}

fn as_slices(range: &CkBounds) -> (Bound<&[u8]>, Bound<&[u8]>) {
    (
        range.0.as_ref().map(Vec::as_slice),
        range.1.as_ref().map(Vec::as_slice),
    )
}

impl EmbeddedStore {
    /// Opens (creating if needed) `dir/easel.redb` and starts its writer thread.
    pub fn open(dir: &Path) -> StoreResult<EmbeddedStore> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", dir.display())))?;
        let path = dir.join(FILE_NAME);
        let db = Arc::new(
            Database::create(&path)
                .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display())))?,
        );
        let (tx, rx) = mpsc::channel::<BoxedJob>();
        let stats = Arc::new(Stats::default());
        let thread = {
            let db = db.clone();
            let stats = stats.clone();
            std::thread::Builder::new()
                .name("easel-store-writer".into())
                .spawn(move || writer_loop(&db, &rx, &stats))
                .map_err(|e| StoreError::Unavailable(format!("starting the store writer: {e}")))?
        };
        Ok(EmbeddedStore {
            db,
            writer: Arc::new(Writer {
                jobs: Some(tx),
                thread: Some(thread),
                stats,
            }),
        })
    }

    /// What the writer has done so far: operations, commits (fsyncs), splits.
    pub fn write_stats(&self) -> WriteStats {
        let s = &self.writer.stats;
        WriteStats {
            ops: s.ops.load(AtomicOrdering::Relaxed),
            commits: s.commits.load(AtomicOrdering::Relaxed),
            split_batches: s.split_batches.load(AtomicOrdering::Relaxed),
        }
    }

    /// Runs `f` on the blocking pool with the database (reads).
    async fn blocking<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Database) -> StoreResult<T> + Send + 'static,
    {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| backend(format!("store task failed: {e}")))?
    }

    /// Runs `f` on the writer thread in a durable write transaction (shared
    /// with whatever else is queued) and answers once it is committed. `f`
    /// may run more than once (see the module docs), each time in a fresh
    /// transaction; `weight` is the bytes it writes, for the batch bound.
    async fn write<T, F>(&self, weight: usize, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: Fn(&redb::WriteTransaction) -> StoreResult<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: BoxedJob = Box::new(Job {
            op: f,
            weight,
            answer: None,
            reply,
        });
        let jobs = self
            .writer
            .jobs
            .as_ref()
            .ok_or_else(|| StoreError::Unavailable("the store is closing".into()))?;
        jobs.send(job)
            .map_err(|_| StoreError::Unavailable("the store's writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| backend("the store's writer dropped a write"))?
    }
}

/// Opens a table for reading; a table never written to reads as empty (`None`).
fn read_table<K: redb::Key + 'static, V: redb::Value + 'static>(
    txn: &redb::ReadTransaction,
    def: TableDefinition<'static, K, V>,
) -> StoreResult<Option<redb::ReadOnlyTable<K, V>>> {
    match txn.open_table(def) {
        Ok(t) => Ok(Some(t)),
        Err(TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(backend(e)),
    }
}

#[async_trait::async_trait]
impl Store for EmbeddedStore {
    async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
        let def = regular_def(t)?;
        let key = row_key(pk, ck)?;
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(table) = read_table(&txn, def)? else {
                return Ok(None);
            };
            let value = table.get(key.as_slice()).map_err(backend)?;
            Ok(value.map(|v| v.value().to_vec()))
        })
        .await
    }

    async fn get_many(
        &self,
        t: &TableDef,
        keys: &[(Key, Key)],
    ) -> StoreResult<Vec<Option<Vec<u8>>>> {
        let def = regular_def(t)?;
        let keys = keys
            .iter()
            .map(|(pk, ck)| row_key(pk, ck))
            .collect::<StoreResult<Vec<_>>>()?;
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(table) = read_table(&txn, def)? else {
                return Ok(vec![None; keys.len()]);
            };
            keys.iter()
                .map(|k| {
                    let v = table.get(k.as_slice()).map_err(backend)?;
                    Ok(v.map(|v| v.value().to_vec()))
                })
                .collect()
        })
        .await
    }

    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
        let def = regular_def(t)?;
        let key = row_key(pk, ck)?;
        self.write(key.len() + value.len(), move |txn| {
            let mut table = txn.open_table(def).map_err(backend)?;
            table
                .insert(key.as_slice(), value.as_slice())
                .map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()> {
        let def = regular_def(t)?;
        let key = row_key(pk, ck)?;
        self.write(key.len(), move |txn| {
            let mut table = txn.open_table(def).map_err(backend)?;
            table.remove(key.as_slice()).map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
        let t = *t;
        let prefix = partition_prefix(pk)?;
        self.write(prefix.len(), move |txn| {
            let range = partition_range(&prefix);
            let (lo, hi) = as_slices(&range);
            match t.kind {
                TableKind::Regular => {
                    let mut table = txn.open_table(regular_def(&t)?).map_err(backend)?;
                    table
                        .retain_in::<&[u8], _>((lo, hi), |_, _| false)
                        .map_err(backend)?;
                }
                TableKind::Counter => {
                    let mut table = txn.open_table(counter_def(&t)?).map_err(backend)?;
                    table
                        .retain_in::<&[u8], _>((lo, hi), |_, _| false)
                        .map_err(backend)?;
                }
            }
            Ok(())
        })
        .await
    }

    async fn scan(&self, t: &TableDef, pk: &Key, range: &ScanRange) -> StoreResult<RawPage> {
        let def = regular_def(t)?;
        let Some((from, to)) = effective_bounds(range) else {
            return Ok(RawPage::default());
        };
        let prefix = partition_prefix(pk)?;
        let order = range.order;
        let limit = usize::try_from(range.limit.max(1)).unwrap_or(usize::MAX);
        self.blocking(move |db| {
            let with_prefix = |ck: Vec<u8>| {
                let mut k = prefix.clone();
                k.extend_from_slice(&ck);
                k
            };
            let lower = match from {
                Bound::Included(ck) => Bound::Included(with_prefix(ck)),
                Bound::Excluded(ck) => Bound::Excluded(with_prefix(ck)),
                Bound::Unbounded => Bound::Included(prefix.clone()),
            };
            let upper = match to {
                Bound::Included(ck) => Bound::Included(with_prefix(ck)),
                Bound::Excluded(ck) => Bound::Excluded(with_prefix(ck)),
                Bound::Unbounded => partition_range(&prefix).1,
            };
            let txn = db.begin_read().map_err(backend)?;
            let Some(table) = read_table(&txn, def)? else {
                return Ok(RawPage::default());
            };
            let bounds = (lower, upper);
            let iter = table.range::<&[u8]>(as_slices(&bounds)).map_err(backend)?;
            let iter: Box<dyn Iterator<Item = _>> = match order {
                Order::Asc => Box::new(iter),
                Order::Desc => Box::new(iter.rev()),
            };
            let mut rows = Vec::new();
            let mut more = false;
            for entry in iter {
                let (k, v) = entry.map_err(backend)?;
                if rows.len() == limit {
                    more = true;
                    break;
                }
                let ck = k.value().get(prefix.len()..).unwrap_or_default().to_vec();
                rows.push((ck, v.value().to_vec()));
            }
            let paging = if more {
                rows.last().map(|(ck, _)| PagingState(ck.clone()))
            } else {
                None
            };
            Ok(RawPage { rows, paging })
        })
        .await
    }

    async fn scan_table(
        &self,
        t: &TableDef,
        after: Option<(&Key, &Key)>,
        limit: u32,
    ) -> StoreResult<Vec<TableRow>> {
        let def = regular_def(t)?;
        let lower = match after {
            Some((pk, ck)) => Bound::Excluded(row_key(pk, ck)?),
            None => Bound::Unbounded,
        };
        let limit = usize::try_from(limit.max(1)).unwrap_or(usize::MAX);
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(table) = read_table(&txn, def)? else {
                return Ok(Vec::new());
            };
            let bounds = (lower, Bound::Unbounded);
            let mut rows = Vec::new();
            for entry in table.range::<&[u8]>(as_slices(&bounds)).map_err(backend)? {
                if rows.len() == limit {
                    break;
                }
                let (k, v) = entry.map_err(backend)?;
                let (pk, ck) = split_row_key(k.value())?;
                rows.push((pk, ck, v.value().to_vec()));
            }
            Ok(rows)
        })
        .await
    }

    async fn cas(
        &self,
        t: &TableDef,
        pk: &Key,
        ck: &Key,
        expected: Option<&[u8]>,
        new: Option<Vec<u8>>,
    ) -> StoreResult<CasOutcome> {
        let def = regular_def(t)?;
        let key = row_key(pk, ck)?;
        let expected = expected.map(<[u8]>::to_vec);
        let weight =
            key.len() + expected.as_ref().map_or(0, Vec::len) + new.as_ref().map_or(0, Vec::len);
        self.write(weight, move |txn| {
            let mut table = txn.open_table(def).map_err(backend)?;
            let current = table
                .get(key.as_slice())
                .map_err(backend)?
                .map(|v| v.value().to_vec());
            if current != expected {
                return Ok(CasOutcome {
                    applied: false,
                    current,
                });
            }
            match &new {
                Some(v) => {
                    table
                        .insert(key.as_slice(), v.as_slice())
                        .map_err(backend)?;
                }
                None => {
                    table.remove(key.as_slice()).map_err(backend)?;
                }
            }
            Ok(CasOutcome {
                applied: true,
                current: None,
            })
        })
        .await
    }

    async fn counter_add(&self, t: &TableDef, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()> {
        let def = counter_def(t)?;
        let key = row_key(pk, ck)?;
        self.write(key.len() + 8, move |txn| {
            let mut table = txn.open_table(def).map_err(backend)?;
            let now = table
                .get(key.as_slice())
                .map_err(backend)?
                .map(|v| v.value())
                .unwrap_or(0);
            // CQL counters wrap on overflow; so do these.
            table
                .insert(key.as_slice(), now.wrapping_add(delta))
                .map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64> {
        let def = counter_def(t)?;
        let key = row_key(pk, ck)?;
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(table) = read_table(&txn, def)? else {
                return Ok(0);
            };
            let value = table.get(key.as_slice()).map_err(backend)?;
            Ok(value.map(|v| v.value()).unwrap_or(0))
        })
        .await
    }

    fn backend_name(&self) -> &'static str {
        "embedded"
    }

    fn write_stats(&self) -> Option<WriteStats> {
        Some(EmbeddedStore::write_stats(self))
    }
}

#[cfg(test)]
mod tests;
