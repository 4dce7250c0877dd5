//! Where flushed batches go and where the questions read them back: the
//! [`EventSink`] trait, with `ParquetSink` (default: Parquet files in the
//! object store, listed in the Store) and `ClickHouseSink` (its HTTP
//! interface, when `EASEL_ANALYTICS_CLICKHOUSE_URL` is set).

use async_trait::async_trait;
use protocol::analytics::query::Fact;

use super::row::{Column, EventRow};

#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("store: {0}")]
    Store(#[from] infra::store::StoreError),
    #[error("objects: {0}")]
    Objects(#[from] infra::objects::ObjectError),
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    #[error("clickhouse: {0}")]
    ClickHouse(String),
    #[error("{0}")]
    Other(String),
}

#[async_trait]
pub trait EventSink: Send + Sync + 'static {
    fn name(&self) -> &'static str;
    /// Stores one batch. `batch_id` is the same when a failed batch is
    /// retried, so a sink can make the retry a no-op when the first attempt
    /// did land (a timeout after the write).
    async fn write(&self, batch_id: &str, rows: &[EventRow]) -> Result<(), SinkError>;
    /// The rows of the days `from..=to`, reading only `columns` (the others
    /// are left empty in the answer).
    async fn read(&self, from: i32, to: i32, columns: &[Column]) -> Result<Vec<Fact>, SinkError>;
    /// Periodic upkeep (the Parquet sink compacts finished days); answers
    /// how much it did.
    async fn maintain(&self, _today: i32, _now_ms: i64) -> Result<usize, SinkError> {
        Ok(0)
    }
    /// Deletes the events of every day before `day` (retention); answers
    /// how much it removed, in the sink's own unit (files, or 1 for a
    /// delete statement sent).
    async fn purge_before(&self, day: i32) -> Result<usize, SinkError>;
}
