//! The default sink: each flushed batch becomes one Apache Parquet file per
//! UTC day it holds, in the object store (the data folder, or S3) under
//! `analytics/events/{YYYY-MM-DD}/{batch id}.parquet`, and is listed in the
//! Store table `analytics_files` (pk day · ck batch id), so every node finds
//! every node's files without listing the object store. A retried batch
//! keeps its id, so it overwrites its own file instead of adding a copy.
//!
//! Reading asks the object store only for the byte ranges Parquet needs:
//! the footer, then the column chunks of the requested columns (the
//! `AsyncFileReader` below over `Objects::get_range`), so a question about
//! people never reads pages, properties or error messages.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Date32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::{FutureExt, TryStreamExt};
use infra::objects::{DynObjects, ObjectKey};
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use parquet::arrow::arrow_reader::ArrowReaderOptions;
use parquet::arrow::async_reader::{AsyncFileReader, ParquetRecordBatchStreamBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::errors::ParquetError;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use parquet::file::properties::WriterProperties;
use protocol::analytics::query::{format_day, Fact};
use serde::{Deserialize, Serialize};

use super::row::{Column, EventRow};
use super::sink::{EventSink, SinkError};

/// One file of a day (the `analytics_files` row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRow {
    pub key: String,
    pub rows: u64,
    pub bytes: u64,
    pub at: i64,
    /// The batch id (the listing's clustering key).
    #[serde(default)]
    pub batch: String,
    /// A compacted file: the batch ids whose files it replaces (readers skip
    /// those, so a compaction interrupted anywhere never counts a row twice).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<String>,
}

pub struct ParquetSink {
    pub(super) objects: DynObjects,
    pub(super) files: Table<FileRow>,
    pub(super) claims: Table<super::compaction::ClaimRow>,
    pub(super) swept: Table<super::retention::SweptRow>,
}

impl ParquetSink {
    pub fn new(store: DynStore, objects: DynObjects) -> ParquetSink {
        ParquetSink {
            objects,
            files: Table::new(store.clone(), &tables::ANALYTICS_FILES),
            claims: Table::new(store.clone(), &tables::ANALYTICS_COMPACTIONS),
            swept: Table::new(store, &tables::ANALYTICS_RETENTION),
        }
    }

    /// The files of one day that hold its rows (files replaced by a
    /// compacted one are left out).
    pub async fn live_files(&self, day: i32) -> Result<Vec<FileRow>, SinkError> {
        let all = self.files_of(day).await?;
        let replaced: std::collections::HashSet<&str> = all
            .iter()
            .flat_map(|f| f.replaces.iter().map(String::as_str))
            .collect();
        Ok(all
            .iter()
            .filter(|f| !replaced.contains(f.batch.as_str()))
            .cloned()
            .collect())
    }

    /// Every listed file of one day.
    pub async fn files_of(&self, day: i32) -> Result<Vec<FileRow>, SinkError> {
        let pk = Key::empty().i64(i64::from(day));
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .files
                .scan(&pk, &ScanRange::all(500).after(paging))
                .await?;
            out.extend(page.rows.into_iter().map(|(_, v)| v));
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok(out),
            }
        }
    }
}

fn schema() -> SchemaRef {
    let s = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    Arc::new(Schema::new(vec![
        Field::new("day", DataType::Date32, false),
        Field::new("ts", DataType::Int64, false),
        s("name", false),
        s("account", true),
        s("visitor", true),
        s("session", true),
        s("page", true),
        s("release", true),
        s("browser", false),
        s("ip", false),
        Field::new("client_ts", DataType::Int64, true),
        s("props", false),
        s("message", true),
    ]))
}

/// Encodes rows as one Parquet file (Snappy-compressed columns).
pub fn encode(rows: &[EventRow]) -> Result<Vec<u8>, SinkError> {
    let strs = |f: &dyn Fn(&EventRow) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Date32Array::from_iter_values(rows.iter().map(|r| r.day))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.ts))),
        strs(&|r| Some(r.name.as_str())),
        strs(&|r| r.account.as_deref()),
        strs(&|r| r.visitor.as_deref()),
        strs(&|r| r.session.as_deref()),
        strs(&|r| r.page.as_deref()),
        strs(&|r| r.release.as_deref()),
        strs(&|r| Some(r.browser.as_str())),
        strs(&|r| Some(r.ip.as_str())),
        Arc::new(rows.iter().map(|r| r.client_ts).collect::<Int64Array>()),
        strs(&|r| Some(r.props.as_str())),
        strs(&|r| r.message.as_deref()),
    ];
    let batch = RecordBatch::try_new(schema(), columns)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema(), Some(props))?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(out)
}

/// A stored Parquet file read by byte ranges.
struct ObjectFile {
    objects: DynObjects,
    key: ObjectKey,
    size: u64,
}

impl AsyncFileReader for ObjectFile {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        async move {
            let len = range.end.saturating_sub(range.start);
            let got = self
                .objects
                .get_range(&self.key, range.start, len)
                .await
                .map_err(|e| ParquetError::External(Box::new(e)))?
                .ok_or_else(|| ParquetError::General(format!("{} is gone", self.key)))?;
            if got.len() as u64 != len {
                return Err(ParquetError::EOF(format!(
                    "{}: asked {len} bytes at {}, got {}",
                    self.key,
                    range.start,
                    got.len()
                )));
            }
            Ok(Bytes::from(got))
        }
        .boxed()
    }

    fn get_metadata<'a>(
        &'a mut self,
        _options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        async move {
            let size = self.size;
            // One read of the file's last 64 KiB holds the footer of any
            // batch file we write.
            let meta = ParquetMetaDataReader::new()
                .with_prefetch_hint(Some(64 * 1024))
                .load_and_finish(self, size)
                .await?;
            Ok(Arc::new(meta))
        }
        .boxed()
    }
}

/// The record batches of the named columns of one stored file (`None`: all).
async fn read_columns(
    objects: &DynObjects,
    key: ObjectKey,
    size: u64,
    columns: Option<&[&str]>,
) -> Result<Vec<RecordBatch>, SinkError> {
    let file = ObjectFile {
        objects: objects.clone(),
        key,
        size,
    };
    let builder = ParquetRecordBatchStreamBuilder::new(file).await?;
    let builder = match columns {
        None => builder,
        Some(columns) => {
            let descr = builder.parquet_schema();
            let wanted: Vec<usize> = columns
                .iter()
                .filter_map(|c| descr.columns().iter().position(|d| d.name() == *c))
                .collect();
            let mask = ProjectionMask::leaves(descr, wanted);
            builder.with_projection(mask)
        }
    };
    Ok(builder.build()?.try_collect().await?)
}

/// Reads `columns` of one stored file.
async fn read_file(
    objects: &DynObjects,
    key: ObjectKey,
    size: u64,
    columns: &[Column],
) -> Result<Vec<Fact>, SinkError> {
    let names: Vec<&str> = columns.iter().map(|c| c.name()).collect();
    let mut out = Vec::new();
    for b in read_columns(objects, key, size, Some(&names)).await? {
        decode_batch(&b, &mut out)?;
    }
    Ok(out)
}

/// Every row of one stored file, all columns (compaction).
pub(super) async fn read_rows(
    objects: &DynObjects,
    key: ObjectKey,
    size: u64,
) -> Result<Vec<EventRow>, SinkError> {
    let mut out = Vec::new();
    for b in read_columns(objects, key, size, None).await? {
        let s = |name: &str| col::<StringArray>(&b, name);
        let (day, ts, client_ts) = (
            col::<Date32Array>(&b, "day"),
            col::<Int64Array>(&b, "ts"),
            col::<Int64Array>(&b, "client_ts"),
        );
        for i in 0..b.num_rows() {
            out.push(EventRow {
                day: day.map_or(0, |a| a.value(i)),
                ts: ts.map_or(0, |a| a.value(i)),
                name: text(s("name"), i).unwrap_or_default(),
                account: text(s("account"), i),
                visitor: text(s("visitor"), i),
                session: text(s("session"), i),
                page: text(s("page"), i),
                release: text(s("release"), i),
                browser: text(s("browser"), i).unwrap_or_default(),
                ip: text(s("ip"), i).unwrap_or_default(),
                client_ts: client_ts.filter(|a| a.is_valid(i)).map(|a| a.value(i)),
                props: text(s("props"), i).unwrap_or_else(|| "{}".into()),
                message: text(s("message"), i),
            });
        }
    }
    Ok(out)
}

fn col<'a, T: 'static>(b: &'a RecordBatch, name: &str) -> Option<&'a T> {
    b.column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
}

fn text(a: Option<&StringArray>, i: usize) -> Option<String> {
    a.filter(|a| a.is_valid(i)).map(|a| a.value(i).to_owned())
}

/// The facts of a batch read with a projection (absent columns stay empty).
fn decode_batch(b: &RecordBatch, out: &mut Vec<Fact>) -> Result<(), SinkError> {
    let day = col::<Date32Array>(b, "day");
    let ts = col::<Int64Array>(b, "ts");
    let name = col::<StringArray>(b, "name");
    let account = col::<StringArray>(b, "account");
    let visitor = col::<StringArray>(b, "visitor");
    let release = col::<StringArray>(b, "release");
    let message = col::<StringArray>(b, "message");
    for i in 0..b.num_rows() {
        out.push(Fact {
            day: day.map_or(0, |a| a.value(i)),
            ts: ts.map_or(0, |a| a.value(i)),
            name: text(name, i).unwrap_or_default(),
            account: text(account, i),
            visitor: text(visitor, i),
            release: text(release, i),
            message: text(message, i),
        });
    }
    Ok(())
}

/// Decodes a whole file (tests and tools).
pub fn decode_all(bytes: Vec<u8>) -> Result<Vec<RecordBatch>, SinkError> {
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?
            .build()?;
    Ok(reader.collect::<Result<Vec<_>, _>>()?)
}

pub fn object_key(day: i32, batch_id: &str) -> Result<ObjectKey, SinkError> {
    Ok(ObjectKey::parse(&format!(
        "analytics/events/{}/{batch_id}.parquet",
        format_day(day)
    ))?)
}

#[async_trait]
impl EventSink for ParquetSink {
    fn name(&self) -> &'static str {
        "parquet"
    }

    async fn write(&self, batch_id: &str, rows: &[EventRow]) -> Result<(), SinkError> {
        let mut days: Vec<i32> = rows.iter().map(|r| r.day).collect();
        days.sort_unstable();
        days.dedup();
        for day in days {
            let of_day: Vec<EventRow> = rows.iter().filter(|r| r.day == day).cloned().collect();
            let bytes = encode(&of_day)?;
            let key = object_key(day, batch_id)?;
            let size = bytes.len() as u64;
            // The file first, then its listing: a crash between the two
            // leaves an unlisted file that the retry overwrites.
            self.objects
                .put(&key, bytes, "application/vnd.apache.parquet")
                .await?;
            self.files
                .put(
                    &Key::empty().i64(i64::from(day)),
                    &Key::of(batch_id),
                    &FileRow {
                        key: key.as_str().to_owned(),
                        rows: of_day.len() as u64,
                        bytes: size,
                        at: of_day.iter().map(|r| r.ts).max().unwrap_or_default(),
                        batch: batch_id.to_owned(),
                        replaces: vec![],
                    },
                )
                .await?;
        }
        Ok(())
    }

    async fn maintain(&self, today: i32, now_ms: i64) -> Result<usize, SinkError> {
        self.compact_past(today, now_ms).await
    }

    async fn purge_before(&self, day: i32) -> Result<usize, SinkError> {
        self.purge_days_before(day).await
    }

    async fn read(&self, from: i32, to: i32, columns: &[Column]) -> Result<Vec<Fact>, SinkError> {
        let mut out = Vec::new();
        for day in from..=to {
            for f in self.live_files(day).await? {
                let key = ObjectKey::parse(&f.key)?;
                out.extend(read_file(&self.objects, key, f.bytes, columns).await?);
            }
        }
        Ok(out)
    }
}
