//! Analytics settings, from the environment (defaults in brackets):
//! - `EASEL_ANALYTICS` (`on`): `off` drops every event (answers still succeed);
//! - `EASEL_ANALYTICS_FLUSH_MS` (10000): the longest an event waits in memory,
//!   which is also what a crash can lose (a clean stop flushes);
//! - `EASEL_ANALYTICS_BATCH_ROWS` (5000): a buffer this full is flushed at once;
//! - `EASEL_ANALYTICS_BUFFER_MAX` (200000): while the sink fails, events past
//!   this many are shed (counted as `overloaded`);
//! - `EASEL_ANALYTICS_RETRY_MS` (1000): the first retry delay of a failed
//!   batch, doubled per failure up to 60 s;
//! - `EASEL_ANALYTICS_PER_MINUTE` (120): ingest calls per client address per minute;
//! - `EASEL_ANALYTICS_RETENTION_DAYS` (180): events of days older than this
//!   are deleted by the upkeep (`0` keeps them for ever);
//! - `EASEL_ANALYTICS_UPKEEP_MS` (3600000): how often the upkeep (retention,
//!   Parquet compaction) runs; its first run is after a minute, or this if shorter;
//! - `EASEL_ANALYTICS_CLICKHOUSE_URL` (unset: Parquet files): ClickHouse's HTTP
//!   interface, with `EASEL_ANALYTICS_CLICKHOUSE_TABLE` (`easel_events`),
//!   `EASEL_ANALYTICS_CLICKHOUSE_USER`, `EASEL_ANALYTICS_CLICKHOUSE_PASSWORD`,
//!   `EASEL_ANALYTICS_CLICKHOUSE_TIMEOUT_MS` (10000).

use std::time::Duration;

use anyhow::Context;

#[derive(Debug, Clone)]
pub struct ClickHouseSettings {
    pub url: String,
    pub table: String,
    pub user: Option<String>,
    pub password: Option<String>,
    pub timeout: Duration,
}

#[derive(Debug, Clone)]
pub struct AnalyticsSettings {
    pub enabled: bool,
    pub flush_every: Duration,
    pub batch_rows: usize,
    pub buffer_max: usize,
    pub retry_base: Duration,
    pub per_minute: u32,
    /// Days of events kept (0: for ever).
    pub retention_days: u32,
    pub upkeep_every: Duration,
    pub clickhouse: Option<ClickHouseSettings>,
}

impl Default for AnalyticsSettings {
    fn default() -> Self {
        AnalyticsSettings {
            enabled: true,
            flush_every: Duration::from_secs(10),
            batch_rows: 5000,
            buffer_max: 200_000,
            retry_base: Duration::from_secs(1),
            per_minute: 120,
            retention_days: 180,
            upkeep_every: Duration::from_secs(3600),
            clickhouse: None,
        }
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn num<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match var(name) {
        Some(v) => v.parse().with_context(|| format!("{name}={v}")),
        None => Ok(default),
    }
}

impl AnalyticsSettings {
    pub fn from_env() -> anyhow::Result<AnalyticsSettings> {
        let d = AnalyticsSettings::default();
        let enabled = match var("EASEL_ANALYTICS").as_deref() {
            None | Some("on" | "1" | "true") => true,
            Some("off" | "0" | "false") => false,
            Some(v) => anyhow::bail!("EASEL_ANALYTICS must be on or off, not {v:?}"),
        };
        let ms = |name: &str, default: Duration| -> anyhow::Result<Duration> {
            let v: u64 = num(name, default.as_millis() as u64)?;
            anyhow::ensure!(v > 0, "{name} must be above 0");
            Ok(Duration::from_millis(v))
        };
        let clickhouse = match var("EASEL_ANALYTICS_CLICKHOUSE_URL") {
            None => None,
            Some(url) => {
                anyhow::ensure!(
                    url.starts_with("http://") || url.starts_with("https://"),
                    "EASEL_ANALYTICS_CLICKHOUSE_URL must be an http(s) URL"
                );
                Some(ClickHouseSettings {
                    url,
                    table: var("EASEL_ANALYTICS_CLICKHOUSE_TABLE")
                        .unwrap_or_else(|| "easel_events".into()),
                    user: var("EASEL_ANALYTICS_CLICKHOUSE_USER"),
                    password: var("EASEL_ANALYTICS_CLICKHOUSE_PASSWORD"),
                    timeout: ms(
                        "EASEL_ANALYTICS_CLICKHOUSE_TIMEOUT_MS",
                        Duration::from_secs(10),
                    )?,
                })
            }
        };
        Ok(AnalyticsSettings {
            enabled,
            flush_every: ms("EASEL_ANALYTICS_FLUSH_MS", d.flush_every)?,
            batch_rows: num("EASEL_ANALYTICS_BATCH_ROWS", d.batch_rows)?.max(1),
            buffer_max: num("EASEL_ANALYTICS_BUFFER_MAX", d.buffer_max)?.max(1),
            retry_base: ms("EASEL_ANALYTICS_RETRY_MS", d.retry_base)?,
            per_minute: num("EASEL_ANALYTICS_PER_MINUTE", d.per_minute)?,
            retention_days: retention_days()?,
            upkeep_every: ms("EASEL_ANALYTICS_UPKEEP_MS", d.upkeep_every)?,
            clickhouse,
        })
    }
}

/// `EASEL_ANALYTICS_RETENTION_DAYS`: 0 (for ever) or 1 to 36500 days.
fn retention_days() -> anyhow::Result<u32> {
    let days: u32 = num(
        "EASEL_ANALYTICS_RETENTION_DAYS",
        AnalyticsSettings::default().retention_days,
    )?;
    anyhow::ensure!(
        days <= 36_500,
        "EASEL_ANALYTICS_RETENTION_DAYS must be 0 (keep for ever) to 36500, not {days}"
    );
    Ok(days)
}
