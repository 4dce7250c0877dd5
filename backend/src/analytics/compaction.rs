//! Compaction of the Parquet sink: a flush every few seconds makes many
//! small files a day; once a day is over (two days back, so no buffered or
//! retried batch of it is still on its way), one node claims it
//! (`analytics_compactions`, insert-if-absent) and rewrites its files as one.
//! The compacted file's listing names the batches it replaces and readers
//! skip those, so a crash anywhere leaves the day readable and counted once;
//! the replaced files and listings are deleted last. A batch of that day
//! arriving later still (a sink that was down for days) is simply one more
//! file.

use infra::objects::ObjectKey;
use infra::store::Key;
use serde::{Deserialize, Serialize};

use super::parquet_sink::{encode, object_key, read_rows, FileRow, ParquetSink};
use super::sink::SinkError;

/// Who compacts a day (one node, once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimRow {
    pub at: i64,
}

/// Days this far back are looked at by each maintenance pass.
pub const LOOK_BACK_DAYS: i32 = 30;

impl ParquetSink {
    /// Rewrites a day's live files as one. Answers the files replaced.
    pub async fn compact(&self, day: i32, now_ms: i64) -> Result<usize, SinkError> {
        let live = self.live_files(day).await?;
        if live.len() < 2 {
            return Ok(0);
        }
        let pk = Key::empty().i64(i64::from(day));
        if self
            .claims
            .insert_if_absent(&pk, &Key::empty(), &ClaimRow { at: now_ms })
            .await?
            .is_err()
        {
            return Ok(0);
        }
        let mut rows = Vec::new();
        for f in &live {
            rows.extend(read_rows(&self.objects, ObjectKey::parse(&f.key)?, f.bytes).await?);
        }
        rows.sort_by_key(|r| r.ts);
        let batch = format!("c{}", uuid::Uuid::now_v7().simple());
        let bytes = encode(&rows)?;
        let key = object_key(day, &batch)?;
        let size = bytes.len() as u64;
        self.objects
            .put(&key, bytes, "application/vnd.apache.parquet")
            .await?;
        self.files
            .put(
                &pk,
                &Key::of(&batch),
                &FileRow {
                    key: key.as_str().to_owned(),
                    rows: rows.len() as u64,
                    bytes: size,
                    at: rows.last().map(|r| r.ts).unwrap_or_default(),
                    batch: batch.clone(),
                    replaces: live.iter().map(|f| f.batch.clone()).collect(),
                },
            )
            .await?;
        for f in &live {
            self.forget(day, f).await?;
        }
        Ok(live.len())
    }

    async fn forget(&self, day: i32, f: &FileRow) -> Result<(), SinkError> {
        self.objects.delete(&ObjectKey::parse(&f.key)?).await?;
        self.files
            .delete(&Key::empty().i64(i64::from(day)), &Key::of(&f.batch))
            .await?;
        Ok(())
    }

    /// Compacts the finished days of the last [`LOOK_BACK_DAYS`].
    pub async fn compact_past(&self, today: i32, now_ms: i64) -> Result<usize, SinkError> {
        let mut n = 0;
        for day in (today - LOOK_BACK_DAYS)..=(today - 2) {
            let claimed = self
                .claims
                .get(&Key::empty().i64(i64::from(day)), &Key::empty())
                .await?
                .is_some();
            if !claimed {
                n += self.compact(day, now_ms).await?;
            }
        }
        Ok(n)
    }
}
