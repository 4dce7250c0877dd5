//! The ScyllaDB store: one CQL table per [`TableDef`], prepared statements
//! cached once per CQL text, lightweight transactions for compare-and-set and
//! CQL counters for counter tables. Also owns the schema (`easel migrate`).
//!
//! Schema: regular tables are `(pk blob, ck blob, v blob, PRIMARY KEY ((pk), ck))`
//! clustered by `ck ASC`; counter tables hold `n counter` instead of `v`.
//! Every stored `pk`/`ck` is the [`Key`] bytes behind one tag byte
//! ([`KEY_TAG`]): CQL rejects an empty partition key and Easel's single-row
//! tables use the empty clustering key, and a constant first byte keeps
//! `blob` order identical to the key order. Scans page exactly like the
//! embedded store: `LIMIT limit + 1` to learn whether more rows follow, and
//! the paging state is the last clustering key returned.

use std::collections::HashMap;
use std::ops::Bound;
use std::sync::{PoisonError, RwLock};
use std::time::Duration;

use futures_util::StreamExt;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::errors::{DbError, ExecutionError, RequestAttemptError};
use scylla::response::query_result::QueryResult;
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::Consistency;
use scylla::value::{Counter, CqlValue, Row};

use super::{
    effective_bounds, CasOutcome, Key, Order, PagingState, RawPage, ScanRange, Store, StoreError,
    StoreResult, TableDef, TableKind, TableRow,
};

/// The byte stored before every partition and clustering key.
pub const KEY_TAG: u8 = 0x01;

/// A [`Store`] over a ScyllaDB (or Cassandra) cluster.
pub struct ScyllaStore {
    session: Session,
    keyspace: String,
    prepared: RwLock<HashMap<String, PreparedStatement>>,
}

impl std::fmt::Debug for ScyllaStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScyllaStore")
            .field("keyspace", &self.keyspace)
            .finish_non_exhaustive()
    }
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// Maps a driver error, telling "the cluster cannot be reached or cannot
/// serve this now" ([`StoreError::Unavailable`]) from everything else.
fn exec_err(e: ExecutionError) -> StoreError {
    let unavailable = match &e {
        ExecutionError::EmptyPlan
        | ExecutionError::ConnectionPoolError(_)
        | ExecutionError::RequestTimeout(_) => true,
        ExecutionError::LastAttemptError(attempt) => attempt_unavailable(attempt),
        _ => false,
    };
    if unavailable {
        StoreError::Unavailable(e.to_string())
    } else {
        StoreError::Backend(e.to_string())
    }
}

fn attempt_unavailable(e: &RequestAttemptError) -> bool {
    match e {
        RequestAttemptError::BrokenConnectionError(_)
        | RequestAttemptError::UnableToAllocStreamId => true,
        RequestAttemptError::DbError(db, _) => matches!(
            db,
            DbError::Unavailable { .. }
                | DbError::Overloaded
                | DbError::IsBootstrapping
                | DbError::ReadTimeout { .. }
                | DbError::WriteTimeout { .. }
                | DbError::RateLimitReached { .. }
        ),
        _ => false,
    }
}

fn pager_err(e: scylla::errors::PagerExecutionError) -> StoreError {
    use scylla::errors::{NextPageError, PagerExecutionError};
    match e {
        PagerExecutionError::NextPageError(NextPageError::RequestFailure(r)) => {
            exec_err(r.into_execution_error())
        }
        PagerExecutionError::PrepareError(p) => exec_err(ExecutionError::PrepareError(p)),
        other => backend(other),
    }
}

fn row_err(e: scylla::errors::NextRowError) -> StoreError {
    use scylla::errors::{NextPageError, NextRowError};
    match e {
        NextRowError::NextPageError(NextPageError::RequestFailure(r)) => {
            exec_err(r.into_execution_error())
        }
        other => backend(other),
    }
}

/// A key as stored: tag byte, then the key bytes.
fn blob(k: &Key) -> Vec<u8> {
    tagged(k.as_bytes())
}

fn tagged(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 1);
    out.push(KEY_TAG);
    out.extend_from_slice(bytes);
    out
}

fn untagged(stored: Vec<u8>) -> StoreResult<Vec<u8>> {
    match stored.split_first() {
        Some((&KEY_TAG, rest)) => Ok(rest.to_vec()),
        _ => Err(StoreError::Codec(
            "stored clustering key lacks its tag byte".into(),
        )),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
        && s.len() <= 48
}

/// The CQL that creates `keyspace` and `tables`, one statement per entry,
/// without trailing semicolons. `easel migrate` runs exactly these; the
/// checked-in `infra/schema/scylla.cql` is their text for keyspace `easel`.
pub fn schema_statements(
    keyspace: &str,
    tables: &[TableDef],
    replication_factor: u32,
) -> Vec<String> {
    let mut out = vec![format!(
        "{} AND tablets = {{'enabled': false}}",
        create_keyspace(keyspace, replication_factor)
    )];
    out.extend(tables.iter().map(|t| create_table(keyspace, t)));
    out
}

/// Keyspace DDL. Tablets are disabled because ScyllaDB versions that have
/// them do not (or not yet fully) support LWT and counters on them.
fn create_keyspace(keyspace: &str, replication_factor: u32) -> String {
    format!(
        "CREATE KEYSPACE IF NOT EXISTS {keyspace} WITH replication = \
         {{'class': 'SimpleStrategy', 'replication_factor': {replication_factor}}}"
    )
}

fn create_table(keyspace: &str, t: &TableDef) -> String {
    match t.kind {
        TableKind::Regular => format!(
            "CREATE TABLE IF NOT EXISTS {keyspace}.{} (pk blob, ck blob, v blob, PRIMARY KEY ((pk), ck)) \
             WITH CLUSTERING ORDER BY (ck ASC)",
            t.name
        ),
        TableKind::Counter => format!(
            "CREATE TABLE IF NOT EXISTS {keyspace}.{} (pk blob, ck blob, n counter, PRIMARY KEY ((pk), ck)) \
             WITH CLUSTERING ORDER BY (ck ASC)",
            t.name
        ),
    }
}

fn regular(t: &TableDef) -> StoreResult<()> {
    match t.kind {
        TableKind::Regular => Ok(()),
        TableKind::Counter => Err(StoreError::WrongKind(t.name, TableKind::Regular)),
    }
}

fn counter(t: &TableDef) -> StoreResult<()> {
    match t.kind {
        TableKind::Counter => Ok(()),
        TableKind::Regular => Err(StoreError::WrongKind(t.name, TableKind::Counter)),
    }
}

/// Reads a conditional statement's result: `[applied]`, and on failure the
/// present `v` (ScyllaDB returns the columns of the row it compared against;
/// a missing row reads as null). Columns are found by name, so this does not
/// depend on which other columns the server chooses to include.
fn lwt_outcome(res: QueryResult) -> StoreResult<CasOutcome> {
    let rows = res.into_rows_result().map_err(backend)?;
    let specs = rows.column_specs();
    let applied_at = specs
        .get_by_name("[applied]")
        .map(|(i, _)| i)
        .ok_or_else(|| backend("LWT result without [applied]"))?;
    let v_at = specs.get_by_name("v").map(|(i, _)| i);
    let row: Row = rows
        .maybe_first_row::<Row>()
        .map_err(backend)?
        .ok_or_else(|| backend("LWT result without a row"))?;
    let applied = match row.columns.get(applied_at) {
        Some(Some(CqlValue::Boolean(b))) => *b,
        other => {
            return Err(backend(format!(
                "LWT [applied] is not a boolean: {other:?}"
            )))
        }
    };
    if applied {
        return Ok(CasOutcome {
            applied: true,
            current: None,
        });
    }
    let current = match v_at.and_then(|i| row.columns.get(i)) {
        Some(Some(CqlValue::Blob(b))) => Some(b.clone()),
        _ => None,
    };
    Ok(CasOutcome {
        applied: false,
        current,
    })
}

impl ScyllaStore {
    /// Connects to the cluster. The keyspace need not exist yet (see [`ScyllaStore::migrate`]);
    /// every statement names it explicitly.
    pub async fn connect(nodes: &[String], keyspace: &str) -> StoreResult<ScyllaStore> {
        if !is_identifier(keyspace) {
            return Err(backend(format!(
                "keyspace {keyspace:?} is not a lower-case CQL identifier"
            )));
        }
        if nodes.is_empty() {
            return Err(StoreError::Unavailable(
                "no ScyllaDB contact points given".into(),
            ));
        }
        let session = SessionBuilder::new()
            .known_nodes(nodes)
            .connection_timeout(Duration::from_secs(10))
            .build()
            .await
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        Ok(ScyllaStore {
            session,
            keyspace: keyspace.to_owned(),
            prepared: RwLock::new(HashMap::new()),
        })
    }

    pub fn keyspace(&self) -> &str {
        &self.keyspace
    }

    /// Creates the keyspace (SimpleStrategy) and every table in `tables`, if absent.
    pub async fn migrate(&self, tables: &[TableDef], replication_factor: u32) -> StoreResult<()> {
        let ks = &self.keyspace;
        let with_tablets_off = format!(
            "{} AND tablets = {{'enabled': false}}",
            create_keyspace(ks, replication_factor)
        );
        if let Err(e) = self.session.query_unpaged(with_tablets_off, ()).await {
            // Servers without tablets (older ScyllaDB, Cassandra) reject the option.
            let rejected_option = matches!(
                &e,
                ExecutionError::LastAttemptError(RequestAttemptError::DbError(
                    DbError::SyntaxError | DbError::Invalid | DbError::ConfigError,
                    _
                ))
            );
            if !rejected_option {
                return Err(exec_err(e));
            }
            tracing::info!(error = %e, "keyspace option tablets rejected; creating keyspace without it");
            self.session
                .query_unpaged(create_keyspace(ks, replication_factor), ())
                .await
                .map_err(exec_err)?;
        }
        for t in tables {
            self.session
                .query_unpaged(create_table(ks, t), ())
                .await
                .map_err(exec_err)?;
        }
        Ok(())
    }

    /// Drops the whole keyspace. For test suites that migrate a throw-away
    /// keyspace; never called by the server.
    pub async fn drop_keyspace(&self) -> StoreResult<()> {
        self.session
            .query_unpaged(format!("DROP KEYSPACE IF EXISTS {}", self.keyspace), ())
            .await
            .map_err(exec_err)?;
        Ok(())
    }

    /// The prepared statement for `cql`, prepared on first use and then kept.
    async fn stmt(&self, cql: String, idempotent: bool) -> StoreResult<PreparedStatement> {
        if let Some(p) = self
            .prepared
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&cql)
        {
            return Ok(p.clone());
        }
        let mut p = self
            .session
            .prepare(cql.as_str())
            .await
            .map_err(|e| exec_err(ExecutionError::PrepareError(e)))?;
        p.set_is_idempotent(idempotent);
        self.prepared
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(cql, p.clone());
        Ok(p)
    }

    fn table(&self, t: &TableDef) -> String {
        format!("{}.{}", self.keyspace, t.name)
    }

    async fn run(
        &self,
        cql: String,
        idempotent: bool,
        values: Vec<CqlValue>,
    ) -> StoreResult<QueryResult> {
        let p = self.stmt(cql, idempotent).await?;
        self.session
            .execute_unpaged(&p, values)
            .await
            .map_err(exec_err)
    }

    /// Reads one column of one row; `serial` makes it a linearizable read.
    async fn select_point(
        &self,
        t: &TableDef,
        column: &str,
        pk: &Key,
        ck: &Key,
        serial: bool,
    ) -> StoreResult<QueryResult> {
        let cql = format!(
            "SELECT {column} FROM {} WHERE pk = ? AND ck = ?",
            self.table(t)
        );
        let mut p = self.stmt(cql, true).await?;
        if serial {
            p.set_consistency(Consistency::Serial);
        }
        self.session
            .execute_unpaged(&p, (blob(pk), blob(ck)))
            .await
            .map_err(exec_err)
    }

    /// A linearizable (SERIAL) read of one row's value, for the one
    /// compare-and-set that writes nothing: "delete if absent".
    async fn serial_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
        first_blob(self.select_point(t, "v", pk, ck, true).await?)
    }
}

fn first_blob(res: QueryResult) -> StoreResult<Option<Vec<u8>>> {
    let rows = res.into_rows_result().map_err(backend)?;
    let row = rows
        .maybe_first_row::<(Option<Vec<u8>>,)>()
        .map_err(backend)?;
    Ok(row.and_then(|(v,)| v))
}

#[async_trait::async_trait]
impl Store for ScyllaStore {
    async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
        regular(t)?;
        first_blob(self.select_point(t, "v", pk, ck, false).await?)
    }

    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
        regular(t)?;
        let cql = format!("INSERT INTO {} (pk, ck, v) VALUES (?, ?, ?)", self.table(t));
        self.run(
            cql,
            true,
            vec![
                CqlValue::Blob(blob(pk)),
                CqlValue::Blob(blob(ck)),
                CqlValue::Blob(value),
            ],
        )
        .await?;
        Ok(())
    }

    async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()> {
        regular(t)?;
        let cql = format!("DELETE FROM {} WHERE pk = ? AND ck = ?", self.table(t));
        self.run(
            cql,
            true,
            vec![CqlValue::Blob(blob(pk)), CqlValue::Blob(blob(ck))],
        )
        .await?;
        Ok(())
    }

    /// On a counter table this deletes the counters too; CQL does not allow
    /// a deleted counter to be reliably incremented again.
    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
        let cql = format!("DELETE FROM {} WHERE pk = ?", self.table(t));
        self.run(cql, true, vec![CqlValue::Blob(blob(pk))]).await?;
        Ok(())
    }

    async fn scan(&self, t: &TableDef, pk: &Key, range: &ScanRange) -> StoreResult<RawPage> {
        regular(t)?;
        let Some((from, to)) = effective_bounds(range) else {
            return Ok(RawPage::default());
        };
        // Bounded so that `limit + 1` fits CQL's `int`.
        let limit = range.limit.clamp(1, 1 << 30);
        let mut cql = format!("SELECT ck, v FROM {} WHERE pk = ?", self.table(t));
        let mut values = vec![CqlValue::Blob(blob(pk))];
        match from {
            Bound::Included(ck) => {
                cql.push_str(" AND ck >= ?");
                values.push(CqlValue::Blob(tagged(&ck)));
            }
            Bound::Excluded(ck) => {
                cql.push_str(" AND ck > ?");
                values.push(CqlValue::Blob(tagged(&ck)));
            }
            Bound::Unbounded => {}
        }
        match to {
            Bound::Included(ck) => {
                cql.push_str(" AND ck <= ?");
                values.push(CqlValue::Blob(tagged(&ck)));
            }
            Bound::Excluded(ck) => {
                cql.push_str(" AND ck < ?");
                values.push(CqlValue::Blob(tagged(&ck)));
            }
            Bound::Unbounded => {}
        }
        cql.push_str(match range.order {
            Order::Asc => " ORDER BY ck ASC LIMIT ?",
            Order::Desc => " ORDER BY ck DESC LIMIT ?",
        });
        let fetch = i32::try_from(limit + 1).map_err(backend)?;
        values.push(CqlValue::Int(fetch));

        let p = self.stmt(cql, true).await?;
        let pager = self
            .session
            .execute_iter(p, values)
            .await
            .map_err(pager_err)?;
        let mut stream = pager
            .rows_stream::<(Vec<u8>, Option<Vec<u8>>)>()
            .map_err(backend)?;
        let wanted = usize::try_from(limit).map_err(backend)?;
        let mut rows = Vec::new();
        let mut more = false;
        while let Some(row) = stream.next().await {
            let (ck, v) = row.map_err(row_err)?;
            if rows.len() == wanted {
                more = true;
                break;
            }
            rows.push((untagged(ck)?, v.unwrap_or_default()));
        }
        let paging = if more {
            rows.last().map(|(ck, _)| PagingState(ck.clone()))
        } else {
            None
        };
        Ok(RawPage { rows, paging })
    }

    async fn scan_table(
        &self,
        t: &TableDef,
        after: Option<(&Key, &Key)>,
        limit: u32,
    ) -> StoreResult<Vec<TableRow>> {
        regular(t)?;
        let limit = limit.clamp(1, 1 << 30);
        let wanted = usize::try_from(limit).map_err(backend)?;
        let table = self.table(t);
        let mut rows: Vec<TableRow> = Vec::new();
        // The rest of the partition `after` is in, then the partitions
        // whose token follows its token.
        let (cql, values) = match after {
            Some((pk, ck)) => {
                let cql = format!("SELECT ck, v FROM {table} WHERE pk = ? AND ck > ? LIMIT ?");
                let p = self.stmt(cql, true).await?;
                let pager = self
                    .session
                    .execute_iter(
                        p,
                        vec![
                            CqlValue::Blob(blob(pk)),
                            CqlValue::Blob(blob(ck)),
                            CqlValue::Int(i32::try_from(limit).map_err(backend)?),
                        ],
                    )
                    .await
                    .map_err(pager_err)?;
                let mut stream = pager
                    .rows_stream::<(Vec<u8>, Option<Vec<u8>>)>()
                    .map_err(backend)?;
                while let Some(row) = stream.next().await {
                    let (c, v) = row.map_err(row_err)?;
                    rows.push((
                        pk.clone(),
                        Key::from_bytes(untagged(c)?),
                        v.unwrap_or_default(),
                    ));
                    if rows.len() == wanted {
                        return Ok(rows);
                    }
                }
                (
                    format!("SELECT pk, ck, v FROM {table} WHERE token(pk) > token(?) LIMIT ?"),
                    vec![CqlValue::Blob(blob(pk))],
                )
            }
            None => (format!("SELECT pk, ck, v FROM {table} LIMIT ?"), Vec::new()),
        };
        let mut values = values;
        let left = i32::try_from(wanted - rows.len()).map_err(backend)?;
        values.push(CqlValue::Int(left));
        let p = self.stmt(cql, true).await?;
        let pager = self
            .session
            .execute_iter(p, values)
            .await
            .map_err(pager_err)?;
        let mut stream = pager
            .rows_stream::<(Vec<u8>, Vec<u8>, Option<Vec<u8>>)>()
            .map_err(backend)?;
        while let Some(row) = stream.next().await {
            let (p, c, v) = row.map_err(row_err)?;
            rows.push((
                Key::from_bytes(untagged(p)?),
                Key::from_bytes(untagged(c)?),
                v.unwrap_or_default(),
            ));
            if rows.len() == wanted {
                break;
            }
        }
        Ok(rows)
    }

    async fn cas(
        &self,
        t: &TableDef,
        pk: &Key,
        ck: &Key,
        expected: Option<&[u8]>,
        new: Option<Vec<u8>>,
    ) -> StoreResult<CasOutcome> {
        regular(t)?;
        if expected.is_none() && new.is_none() {
            // "Delete if absent" writes nothing: it applies iff the row is absent.
            let current = self.serial_get(t, pk, ck).await?;
            return Ok(CasOutcome {
                applied: current.is_none(),
                current,
            });
        }
        let table = self.table(t);
        let (pk, ck) = (CqlValue::Blob(blob(pk)), CqlValue::Blob(blob(ck)));
        let res = match (expected, new) {
            (None, Some(v)) => {
                let cql = format!("INSERT INTO {table} (pk, ck, v) VALUES (?, ?, ?) IF NOT EXISTS");
                self.run(cql, false, vec![pk, ck, CqlValue::Blob(v)])
                    .await?
            }
            (Some(old), Some(v)) => {
                let cql = format!("UPDATE {table} SET v = ? WHERE pk = ? AND ck = ? IF v = ?");
                self.run(
                    cql,
                    false,
                    vec![CqlValue::Blob(v), pk, ck, CqlValue::Blob(old.to_vec())],
                )
                .await?
            }
            (Some(old), None) => {
                let cql = format!("DELETE FROM {table} WHERE pk = ? AND ck = ? IF v = ?");
                self.run(cql, false, vec![pk, ck, CqlValue::Blob(old.to_vec())])
                    .await?
            }
            (None, None) => return Err(backend("unreachable: handled above")),
        };
        lwt_outcome(res)
    }

    async fn counter_add(&self, t: &TableDef, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()> {
        counter(t)?;
        let cql = format!(
            "UPDATE {} SET n = n + ? WHERE pk = ? AND ck = ?",
            self.table(t)
        );
        let p = self.stmt(cql, false).await?;
        self.session
            .execute_unpaged(&p, (Counter(delta), blob(pk), blob(ck)))
            .await
            .map_err(exec_err)?;
        Ok(())
    }

    async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64> {
        counter(t)?;
        let res = self.select_point(t, "n", pk, ck, false).await?;
        let rows = res.into_rows_result().map_err(backend)?;
        let row = rows
            .maybe_first_row::<(Option<Counter>,)>()
            .map_err(backend)?;
        Ok(row.and_then(|(n,)| n).map_or(0, |Counter(n)| n))
    }

    fn backend_name(&self) -> &'static str {
        "scylla"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tables;

    #[test]
    fn checked_in_schema_matches_the_code() {
        let file = include_str!("../../schema/scylla.cql");
        let statements: Vec<String> = file
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n")
            .split(';')
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(
            statements,
            schema_statements("easel", tables::ALL, 1),
            "infra/schema/scylla.cql is stale: regenerate it from schema_statements()"
        );
    }

    #[test]
    fn keys_round_trip_through_the_tag() {
        let k = Key::of("x").u64(3);
        assert_eq!(untagged(blob(&k)).unwrap(), k.as_bytes());
        assert_eq!(untagged(blob(&Key::empty())).unwrap(), Vec::<u8>::new());
        assert!(untagged(Vec::new()).is_err());
        assert!(blob(&Key::of("a")) < blob(&Key::of("b")));
    }

    #[test]
    fn keyspace_names_are_checked() {
        assert!(is_identifier("easel_test_42"));
        assert!(!is_identifier("Easel"));
        assert!(!is_identifier("1easel"));
        assert!(!is_identifier("easel; DROP"));
    }
}
