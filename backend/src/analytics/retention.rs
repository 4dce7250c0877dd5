//! Retention (`EASEL_ANALYTICS_RETENTION_DAYS`, 180 by default): the upkeep
//! deletes the events of every day older than that, once per day per node.
//!
//! Parquet sink: a day's events are its files, so a day is purged by
//! deleting its objects, their listings and its compaction claim. The Store
//! cannot list the days that have files, so `analytics_retention` keeps a
//! watermark: every day before `before` is purged. A sweep purges the days
//! from the watermark to the cutoff, then moves the watermark (the first
//! sweep of an instance starts [`FIRST_SWEEP_DAYS`] before the cutoff).
//! Nodes sweeping at once delete the same files, which is harmless. Each
//! file's object is deleted before its listing, and the watermark moves
//! only after the whole range, so a crash mid-sweep leaves listings that
//! the next sweep finds and finishes (never an object nobody lists).
//!
//! ClickHouse sink: one documented lightweight delete,
//! `DELETE FROM {table} WHERE day < toDate('YYYY-MM-DD')` (rows are hidden
//! at once and removed by later merges).

use infra::objects::ObjectKey;
use infra::store::Key;
use serde::{Deserialize, Serialize};

use super::parquet_sink::ParquetSink;
use super::sink::SinkError;

/// How far before the cutoff the first sweep of an instance looks.
pub const FIRST_SWEEP_DAYS: i32 = 3660;

/// The watermark (`analytics_retention`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweptRow {
    /// Every day before this one has been purged.
    pub before: i32,
}

fn watermark_pk() -> Key {
    Key::of("parquet")
}

impl ParquetSink {
    /// Deletes one day's files, listings and compaction claim; answers the files deleted.
    pub async fn purge_day(&self, day: i32) -> Result<usize, SinkError> {
        let files = self.files_of(day).await?;
        let pk = Key::empty().i64(i64::from(day));
        for f in &files {
            // The object first: a crash leaves a listing the next sweep retries.
            self.objects.delete(&ObjectKey::parse(&f.key)?).await?;
            self.files.delete(&pk, &Key::of(&f.batch)).await?;
        }
        self.claims.delete(&pk, &Key::empty()).await?;
        Ok(files.len())
    }

    /// Purges every day before `cutoff` not purged yet; answers the files deleted.
    pub async fn purge_days_before(&self, cutoff: i32) -> Result<usize, SinkError> {
        let from = match self.swept.get(&watermark_pk(), &Key::empty()).await? {
            Some(w) => w.before,
            None => cutoff.saturating_sub(FIRST_SWEEP_DAYS),
        };
        let mut n = 0;
        for day in from..cutoff {
            n += self.purge_day(day).await?;
        }
        if cutoff > from {
            self.swept
                .put(&watermark_pk(), &Key::empty(), &SweptRow { before: cutoff })
                .await?;
        }
        Ok(n)
    }
}
