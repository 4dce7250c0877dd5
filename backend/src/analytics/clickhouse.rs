//! The ClickHouse sink, over ClickHouse's HTTP interface (port 8123) as its
//! documentation describes it: a batch is one `POST /?query=INSERT INTO
//! {table} FORMAT JSONEachRow` whose body is one JSON object per line, with
//! the `insert_deduplication_token` setting set to the batch id so that a
//! retry after an ambiguous failure (a timeout after the insert landed) is
//! dropped by ClickHouse's insert deduplication; questions are one
//! `SELECT ... FORMAT JSON` each, reading only the needed columns, with
//! `output_format_json_quote_64bit_integers=0` so 64-bit numbers come back
//! as numbers. Credentials go in the `X-ClickHouse-User` and
//! `X-ClickHouse-Key` headers. Any answer but 200, a timeout or an
//! unreadable body is an error: the batcher keeps the batch and retries.
//!
//! The table is created on first use:
//! `CREATE TABLE IF NOT EXISTS {table} (...) ENGINE = MergeTree
//! PARTITION BY toYYYYMM(day) ORDER BY (day, name, ts)
//! SETTINGS non_replicated_deduplication_window = 1000`.
//!
//! Retention is ClickHouse's lightweight delete, `DELETE FROM {table} WHERE
//! day < toDate('YYYY-MM-DD')`, sent by the upkeep once a day: the rows
//! are hidden at once and dropped by later merges.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use protocol::analytics::query::{format_day, parse_day, Fact};
use serde::Deserialize;

use super::row::{Column, EventRow};
use super::sink::{EventSink, SinkError};

pub struct ClickHouseSink {
    http: reqwest::Client,
    /// Base URL, e.g. `http://clickhouse:8123`.
    url: String,
    table: String,
    user: Option<String>,
    password: Option<String>,
    created: AtomicBool,
}

/// The columns, in the table's order, with their ClickHouse types.
const DDL_COLUMNS: &str = "day Date, ts Int64, name LowCardinality(String), \
account Nullable(String), visitor Nullable(String), session Nullable(String), \
page Nullable(String), release Nullable(String), browser LowCardinality(String), \
ip String, client_ts Nullable(Int64), props String, message Nullable(String)";

impl ClickHouseSink {
    pub fn new(
        url: &str,
        table: &str,
        user: Option<String>,
        password: Option<String>,
        timeout: Duration,
    ) -> anyhow::Result<ClickHouseSink> {
        if table.is_empty()
            || !table
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            anyhow::bail!("EASEL_ANALYTICS_CLICKHOUSE_TABLE must be [A-Za-z0-9_.]: {table:?}");
        }
        Ok(ClickHouseSink {
            http: reqwest::Client::builder().timeout(timeout).build()?,
            url: url.trim_end_matches('/').to_owned(),
            table: table.to_owned(),
            user,
            password,
            created: AtomicBool::new(false),
        })
    }

    async fn post(&self, params: &[(&str, &str)], body: String) -> Result<String, SinkError> {
        let qs = serde_urlencoded::to_string(params)
            .map_err(|e| SinkError::ClickHouse(format!("query string: {e}")))?;
        let url = if qs.is_empty() {
            format!("{}/", self.url)
        } else {
            format!("{}/?{qs}", self.url)
        };
        let mut req = self.http.post(url).body(body);
        if let Some(u) = &self.user {
            req = req.header("X-ClickHouse-User", u);
        }
        if let Some(p) = &self.password {
            req = req.header("X-ClickHouse-Key", p);
        }
        let res = req
            .send()
            .await
            .map_err(|e| SinkError::ClickHouse(format!("request failed: {e}")))?;
        let status = res.status();
        let text = res
            .text()
            .await
            .map_err(|e| SinkError::ClickHouse(format!("reading the answer: {e}")))?;
        if !status.is_success() {
            let head: String = text.chars().take(300).collect();
            return Err(SinkError::ClickHouse(format!("HTTP {status}: {head}")));
        }
        Ok(text)
    }

    async fn ensure_table(&self) -> Result<(), SinkError> {
        if self.created.load(Ordering::Relaxed) {
            return Ok(());
        }
        let ddl = format!(
            "CREATE TABLE IF NOT EXISTS {} ({DDL_COLUMNS}) ENGINE = MergeTree \
             PARTITION BY toYYYYMM(day) ORDER BY (day, name, ts) \
             SETTINGS non_replicated_deduplication_window = 1000",
            self.table
        );
        self.post(&[], ddl).await?;
        self.created.store(true, Ordering::Relaxed);
        Ok(())
    }
}

/// A 64-bit number ClickHouse may send quoted.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Num {
    N(i64),
    S(String),
}

impl Num {
    fn get(&self) -> Option<i64> {
        match self {
            Num::N(n) => Some(*n),
            Num::S(s) => s.parse().ok(),
        }
    }
}

#[derive(Debug, Deserialize)]
struct JsonAnswer {
    data: Vec<AnswerRow>,
}

#[derive(Debug, Deserialize)]
struct AnswerRow {
    day: Option<String>,
    ts: Option<Num>,
    name: Option<String>,
    account: Option<String>,
    visitor: Option<String>,
    release: Option<String>,
    message: Option<String>,
}

#[async_trait]
impl EventSink for ClickHouseSink {
    fn name(&self) -> &'static str {
        "clickhouse"
    }

    async fn write(&self, batch_id: &str, rows: &[EventRow]) -> Result<(), SinkError> {
        self.ensure_table().await?;
        let mut body = String::new();
        for r in rows {
            body.push_str(&serde_json::to_string(r).map_err(|e| SinkError::Other(e.to_string()))?);
            body.push('\n');
        }
        let query = format!("INSERT INTO {} FORMAT JSONEachRow", self.table);
        self.post(
            &[
                ("query", query.as_str()),
                ("insert_deduplication_token", batch_id),
            ],
            body,
        )
        .await?;
        Ok(())
    }

    async fn purge_before(&self, day: i32) -> Result<usize, SinkError> {
        self.ensure_table().await?;
        let sql = format!(
            "DELETE FROM {} WHERE day < toDate('{}')",
            self.table,
            format_day(day)
        );
        self.post(&[], sql).await?;
        Ok(1)
    }

    async fn read(&self, from: i32, to: i32, columns: &[Column]) -> Result<Vec<Fact>, SinkError> {
        self.ensure_table().await?;
        let cols: Vec<&str> = columns.iter().map(|c| c.name()).collect();
        let sql = format!(
            "SELECT {} FROM {} WHERE day >= toDate('{}') AND day <= toDate('{}') FORMAT JSON",
            cols.join(", "),
            self.table,
            format_day(from),
            format_day(to)
        );
        let text = self
            .post(&[("output_format_json_quote_64bit_integers", "0")], sql)
            .await?;
        let answer: JsonAnswer = serde_json::from_str(&text)
            .map_err(|e| SinkError::ClickHouse(format!("unreadable answer: {e}")))?;
        Ok(answer
            .data
            .into_iter()
            .map(|r| Fact {
                day: r.day.as_deref().and_then(parse_day).unwrap_or_default(),
                ts: r.ts.as_ref().and_then(Num::get).unwrap_or_default(),
                name: r.name.unwrap_or_default(),
                account: r.account,
                visitor: r.visitor,
                release: r.release,
                message: r.message,
            })
            .collect())
    }
}
