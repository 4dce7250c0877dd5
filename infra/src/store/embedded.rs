//! The embedded store: every table in one `redb` file (`easel.redb`), one redb
//! table per [`TableDef`], each commit durable before the call returns.
//!
//! Layout: a row's redb key is the partition key, length-prefixed (`u32`
//! big-endian, then the bytes), followed by the clustering key. The prefix
//! makes a partition one contiguous key range, and within it rows sort by
//! clustering key exactly as CQL's `blob` clustering order does. Regular
//! tables map that key to the value bytes, counter tables to an `i64`.
//!
//! redb is blocking, so every call runs on tokio's blocking pool. redb
//! serialises write transactions, which is what makes [`Store::cas`] and
//! [`Store::counter_add`] atomic here.

use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

use redb::{Database, Durability, ReadableDatabase, ReadableTable, TableDefinition, TableError};

use super::{
    effective_bounds, CasOutcome, CkBounds, Key, Order, PagingState, RawPage, ScanRange, Store,
    StoreError, StoreResult, TableDef, TableKind,
};

/// File name of the database inside the data directory.
pub const FILE_NAME: &str = "easel.redb";

type Bytes = &'static [u8];

/// A [`Store`] over one redb file.
#[derive(Clone)]
pub struct EmbeddedStore {
    db: Arc<Database>,
}

impl std::fmt::Debug for EmbeddedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EmbeddedStore")
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
    /// Opens (creating if needed) `dir/easel.redb`.
    pub fn open(dir: &Path) -> StoreResult<EmbeddedStore> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", dir.display())))?;
        let path = dir.join(FILE_NAME);
        let db = Database::create(&path)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display())))?;
        Ok(EmbeddedStore { db: Arc::new(db) })
    }

    /// Runs `f` on the blocking pool with the database.
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

    /// Runs `f` in one durable write transaction and commits it.
    async fn write<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&redb::WriteTransaction) -> StoreResult<T> + Send + 'static,
    {
        self.blocking(move |db| {
            let mut txn = db.begin_write().map_err(backend)?;
            txn.set_durability(Durability::Immediate).map_err(backend)?;
            let out = f(&txn)?;
            txn.commit().map_err(backend)?;
            Ok(out)
        })
        .await
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

    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
        let def = regular_def(t)?;
        let key = row_key(pk, ck)?;
        self.write(move |txn| {
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
        self.write(move |txn| {
            let mut table = txn.open_table(def).map_err(backend)?;
            table.remove(key.as_slice()).map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
        let t = *t;
        let prefix = partition_prefix(pk)?;
        self.write(move |txn| {
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
        self.write(move |txn| {
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
            match new {
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
        self.write(move |txn| {
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
}

#[cfg(test)]
mod tests {
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
}
