//! The typed table abstraction, in CQL's own terms.
//!
//! A table is declared once ([`TableDef`]) and holds rows addressed by a
//! partition key and a clustering key. Within a partition, rows are ordered
//! by their clustering key; [`Store::scan`] reads a range of them in either
//! order, a page at a time. Compare-and-set ([`Store::cas`]) is the one
//! conditional write (LWT on ScyllaDB, a write transaction on redb), and
//! counter tables hold `i64` counters changed only by [`Store::counter_add`].
//!
//! Keys are built with [`Key`], an order-preserving tuple encoding, so the
//! byte order both backends sort by (redb's `&[u8]` order, Scylla's `blob`
//! order) is the logical order of the key's components. Values are
//! serialised by [`Table`] with MessagePack; they must serialise
//! deterministically (no hash maps) because compare-and-set compares bytes.
//!
//! Implementations: [`embedded::EmbeddedStore`] (default, durable on disk),
//! [`remote::RemoteStore`] (an embedded store served by one store server to
//! several nodes) and, behind the `scylla` feature, [`scylla::ScyllaStore`].
//! The conformance suite in `tests/store_conformance/` runs against all three.

use std::marker::PhantomData;
use std::ops::Bound;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub mod embedded;
pub mod fault;
mod key;
pub mod remote;
#[cfg(feature = "scylla")]
pub mod scylla;
pub mod tables;

pub use key::Key;

/// Whether a table holds values or counters (Scylla cannot mix the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Regular,
    Counter,
}

/// A table's declaration. All tables are listed in [`tables::ALL`] so that
/// `easel migrate` can create them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDef {
    /// Lower-case identifier, valid in CQL and redb.
    pub name: &'static str,
    pub kind: TableKind,
}

/// Scan direction over the clustering key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    #[default]
    Asc,
    Desc,
}

/// A clustering-key range read, one page at a time.
#[derive(Debug, Clone)]
pub struct ScanRange {
    pub from: Bound<Key>,
    pub to: Bound<Key>,
    pub order: Order,
    /// At most this many rows per page (at least 1).
    pub limit: u32,
    /// Where the previous page stopped; `None` for the first page.
    pub paging: Option<PagingState>,
}

impl ScanRange {
    /// The whole partition in clustering order.
    pub fn all(limit: u32) -> ScanRange {
        ScanRange {
            from: Bound::Unbounded,
            to: Bound::Unbounded,
            order: Order::Asc,
            limit,
            paging: None,
        }
    }

    pub fn desc(mut self) -> ScanRange {
        self.order = Order::Desc;
        self
    }

    pub fn after(mut self, paging: Option<PagingState>) -> ScanRange {
        self.paging = paging;
        self
    }
}

/// Opaque resume point of a scan: the clustering key of the last row
/// returned. Clients may carry it as hex (see [`PagingState::to_hex`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagingState(pub Vec<u8>);

impl PagingState {
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn from_hex(s: &str) -> Option<PagingState> {
        if s.len() % 2 == 1 || s.len() > 2048 {
            return None;
        }
        (0..s.len())
            .step_by(2)
            .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
            .collect::<Option<Vec<u8>>>()
            .map(PagingState)
    }
}

/// One page of raw rows.
#[derive(Debug, Clone, Default)]
pub struct RawPage {
    /// `(clustering key bytes, value bytes)` in scan order.
    pub rows: Vec<(Vec<u8>, Vec<u8>)>,
    /// Set when more rows may follow.
    pub paging: Option<PagingState>,
}

/// One row of a table walk: (partition key, clustering key, value bytes).
pub type TableRow = (Key, Key, Vec<u8>);

/// The outcome of a compare-and-set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CasOutcome {
    pub applied: bool,
    /// The value present when the condition failed (what the caller lost to).
    pub current: Option<Vec<u8>>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store backend: {0}")]
    Backend(String),
    #[error("stored value could not be decoded: {0}")]
    Codec(String),
    #[error("table {0} is not a {1:?} table")]
    WrongKind(&'static str, TableKind),
    #[error("store unavailable: {0}")]
    Unavailable(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// The storage port. Byte-level on purpose *only* at this seam: everything
/// above it goes through [`Table`] and [`Counters`], which speak typed rows.
///
/// Durability: a call that returned `Ok` survives a restart and a kill -9.
#[async_trait::async_trait]
pub trait Store: Send + Sync + 'static {
    async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>>;
    /// Several rows of one table at once, in the order asked. The default
    /// reads them concurrently; the embedded store reads them in one read
    /// transaction on one blocking thread (one hand-off, not one per row).
    async fn get_many(
        &self,
        t: &TableDef,
        keys: &[(Key, Key)],
    ) -> StoreResult<Vec<Option<Vec<u8>>>> {
        futures_util::future::try_join_all(keys.iter().map(|(pk, ck)| self.get(t, pk, ck))).await
    }
    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()>;
    async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()>;
    /// Deletes every row of a partition.
    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()>;
    async fn scan(&self, t: &TableDef, pk: &Key, range: &ScanRange) -> StoreResult<RawPage>;
    /// Every row of a table, `limit` at a time, from after the row `after`
    /// ((pk, ck)); fewer than `limit` rows means the end. The order is the
    /// backend's (the embedded store: key order; ScyllaDB: token order,
    /// then clustering order), stable while rows are added elsewhere. For
    /// maintenance walks over a whole table (backfills), never a request.
    /// Stores that cannot walk a table answer `Unavailable`.
    async fn scan_table(
        &self,
        t: &TableDef,
        after: Option<(&Key, &Key)>,
        limit: u32,
    ) -> StoreResult<Vec<TableRow>> {
        let _ = (after, limit);
        Err(StoreError::Unavailable(format!(
            "{}: table walks are not supported by this store",
            t.name
        )))
    }
    /// Writes `new` (or deletes, when `None`) only if the present value equals
    /// `expected` (`None`: the row must not exist).
    async fn cas(
        &self,
        t: &TableDef,
        pk: &Key,
        ck: &Key,
        expected: Option<&[u8]>,
        new: Option<Vec<u8>>,
    ) -> StoreResult<CasOutcome>;
    /// Adds `delta` to a counter (missing counters are 0).
    async fn counter_add(&self, t: &TableDef, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()>;
    async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64>;
    /// Short name for logs and the health endpoint ("embedded", "scylla").
    fn backend_name(&self) -> &'static str;
    /// The write path's counters, where the backend keeps them (the
    /// embedded store's group commit); `None` elsewhere.
    fn write_stats(&self) -> Option<WriteStats> {
        None
    }
}

/// Counts of a store's write work since it was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct WriteStats {
    /// Write operations answered.
    pub ops: u64,
    /// Durable commits made (one fsync each): batches plus operations
    /// re-run alone after their batch failed.
    pub commits: u64,
    /// Batches that failed and were split into one transaction per operation.
    pub split_batches: u64,
}

pub type DynStore = Arc<dyn Store>;

fn encode<V: Serialize>(v: &V) -> StoreResult<Vec<u8>> {
    rmp_serde::to_vec_named(v).map_err(|e| StoreError::Codec(e.to_string()))
}

/// Reads a stored value (what [`Table`] does for each row); for raw walks.
pub fn decode<V: DeserializeOwned>(b: &[u8]) -> StoreResult<V> {
    rmp_serde::from_slice(b).map_err(|e| StoreError::Codec(e.to_string()))
}

/// A typed view of one regular table whose rows are `V`.
pub struct Table<V> {
    def: &'static TableDef,
    store: DynStore,
    _row: PhantomData<fn() -> V>,
}

impl<V> Clone for Table<V> {
    fn clone(&self) -> Self {
        Table {
            def: self.def,
            store: self.store.clone(),
            _row: PhantomData,
        }
    }
}

/// One page of typed rows.
#[derive(Debug, Clone)]
pub struct Page<V> {
    pub rows: Vec<(Key, V)>,
    pub paging: Option<PagingState>,
}

impl<V: Serialize + DeserializeOwned> Table<V> {
    pub fn new(store: DynStore, def: &'static TableDef) -> Table<V> {
        debug_assert_eq!(def.kind, TableKind::Regular);
        Table {
            def,
            store,
            _row: PhantomData,
        }
    }

    pub async fn get(&self, pk: &Key, ck: &Key) -> StoreResult<Option<V>> {
        match self.store.get(self.def, pk, ck).await? {
            Some(b) => decode(&b).map(Some),
            None => Ok(None),
        }
    }

    /// Several rows at once, in the order asked (see [`Store::get_many`]).
    pub async fn get_many(&self, keys: &[(Key, Key)]) -> StoreResult<Vec<Option<V>>> {
        self.store
            .get_many(self.def, keys)
            .await?
            .into_iter()
            .map(|v| v.map(|b| decode(&b)).transpose())
            .collect()
    }

    pub async fn put(&self, pk: &Key, ck: &Key, v: &V) -> StoreResult<()> {
        self.store.put(self.def, pk, ck, encode(v)?).await
    }

    pub async fn delete(&self, pk: &Key, ck: &Key) -> StoreResult<()> {
        self.store.delete(self.def, pk, ck).await
    }

    pub async fn delete_partition(&self, pk: &Key) -> StoreResult<()> {
        self.store.delete_partition(self.def, pk).await
    }

    pub async fn scan(&self, pk: &Key, range: &ScanRange) -> StoreResult<Page<V>> {
        let raw = self.store.scan(self.def, pk, range).await?;
        let rows = raw
            .rows
            .into_iter()
            .map(|(k, v)| Ok((Key::from_bytes(k), decode(&v)?)))
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Page {
            rows,
            paging: raw.paging,
        })
    }

    /// One page of a walk over the whole table ([`Store::scan_table`]).
    pub async fn scan_table(
        &self,
        after: Option<(&Key, &Key)>,
        limit: u32,
    ) -> StoreResult<Vec<(Key, Key, V)>> {
        self.store
            .scan_table(self.def, after, limit)
            .await?
            .into_iter()
            .map(|(pk, ck, v)| Ok((pk, ck, decode(&v)?)))
            .collect()
    }

    /// Inserts only if absent. Returns the present row when it was not.
    pub async fn insert_if_absent(&self, pk: &Key, ck: &Key, v: &V) -> StoreResult<Result<(), V>> {
        let out = self
            .store
            .cas(self.def, pk, ck, None, Some(encode(v)?))
            .await?;
        self.outcome(out)
    }

    /// Replaces `expected` by `new` (or deletes it when `new` is `None`) only
    /// if the row still equals `expected`. Returns the present row when not.
    pub async fn compare_and_set(
        &self,
        pk: &Key,
        ck: &Key,
        expected: &V,
        new: Option<&V>,
    ) -> StoreResult<Result<(), Option<V>>> {
        let new = new.map(encode).transpose()?;
        let out = self
            .store
            .cas(self.def, pk, ck, Some(&encode(expected)?), new)
            .await?;
        if out.applied {
            Ok(Ok(()))
        } else {
            Ok(Err(out.current.map(|b| decode(&b)).transpose()?))
        }
    }

    /// Read-modify-write by compare-and-set, retried until it applies: `f`
    /// changes the latest row each time. Starts from `known` (a row the
    /// caller already read) or reads the row first. `None` when the row does
    /// not exist (or was deleted meanwhile).
    pub async fn update(
        &self,
        pk: &Key,
        ck: &Key,
        known: Option<V>,
        mut f: impl FnMut(&mut V),
    ) -> StoreResult<Option<V>>
    where
        V: Clone,
    {
        let mut current = match known {
            Some(v) => v,
            None => match self.get(pk, ck).await? {
                Some(v) => v,
                None => return Ok(None),
            },
        };
        loop {
            let mut next = current.clone();
            f(&mut next);
            match self.compare_and_set(pk, ck, &current, Some(&next)).await? {
                Ok(()) => return Ok(Some(next)),
                Err(Some(latest)) => current = latest,
                Err(None) => return Ok(None),
            }
        }
    }

    fn outcome(&self, out: CasOutcome) -> StoreResult<Result<(), V>> {
        match (out.applied, out.current) {
            (true, _) => Ok(Ok(())),
            (false, Some(b)) => Ok(Err(decode(&b)?)),
            (false, None) => Err(StoreError::Backend(format!(
                "{}: cas refused without a current row",
                self.def.name
            ))),
        }
    }
}

/// A typed view of one counter table.
#[derive(Clone)]
pub struct Counters {
    def: &'static TableDef,
    store: DynStore,
}

impl Counters {
    pub fn new(store: DynStore, def: &'static TableDef) -> Counters {
        debug_assert_eq!(def.kind, TableKind::Counter);
        Counters { def, store }
    }

    pub async fn add(&self, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()> {
        self.store.counter_add(self.def, pk, ck, delta).await
    }

    pub async fn get(&self, pk: &Key, ck: &Key) -> StoreResult<i64> {
        self.store.counter_get(self.def, pk, ck).await
    }
}

/// Lower and upper bound on clustering-key bytes.
pub(crate) type CkBounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// The clustering-key bounds a scan actually reads: the range's own bounds,
/// narrowed past the paging state in scan order. `None` when the result is
/// empty (so backends need not handle inverted ranges). Shared by both
/// backends so that they page identically.
pub(crate) fn effective_bounds(range: &ScanRange) -> Option<CkBounds> {
    let mut lower = range.from.as_ref().map(|k| k.as_bytes().to_vec());
    let mut upper = range.to.as_ref().map(|k| k.as_bytes().to_vec());
    if let Some(PagingState(last)) = &range.paging {
        let resume = Bound::Excluded(last.clone());
        match range.order {
            Order::Asc => lower = tighter(lower, resume, std::cmp::Ordering::Greater),
            Order::Desc => upper = tighter(upper, resume, std::cmp::Ordering::Less),
        }
    }
    let empty = match (&lower, &upper) {
        (Bound::Included(lo), Bound::Included(hi)) => lo > hi,
        (Bound::Included(lo) | Bound::Excluded(lo), Bound::Included(hi) | Bound::Excluded(hi)) => {
            lo >= hi
        }
        _ => false,
    };
    if empty {
        None
    } else {
        Some((lower, upper))
    }
}

/// Of two bounds on the same side, the one that admits less: the key that
/// compares `wins` against the other, or the exclusive one when they are equal.
fn tighter(a: Bound<Vec<u8>>, b: Bound<Vec<u8>>, wins: std::cmp::Ordering) -> Bound<Vec<u8>> {
    let key = |x: &Bound<Vec<u8>>| match x {
        Bound::Included(k) | Bound::Excluded(k) => Some(k.clone()),
        Bound::Unbounded => None,
    };
    match (key(&a), key(&b)) {
        (None, _) => b,
        (_, None) => a,
        (Some(ka), Some(kb)) => match ka.cmp(&kb) {
            o if o == wins => a,
            std::cmp::Ordering::Equal if matches!(a, Bound::Excluded(_)) => a,
            std::cmp::Ordering::Equal => b,
            _ => b,
        },
    }
}
