//! Product analytics (issue 22 part 5), privacy first: events arrive through
//! the five ingest calls (`routes/analytics.rs`) or are emitted by the server
//! where sign-ups, generations and payments happen; each is validated
//! against `protocol::analytics`'s schema, stripped (`privacy.rs`), buffered
//! (`batcher.rs`) and flushed in batches to a columnar sink (`sink.rs`:
//! Parquet files by default, ClickHouse by configuration), from which the
//! operator's questions (`protocol::analytics::query`) read only the columns
//! they need.
//!
//! Events older than `EASEL_ANALYTICS_RETENTION_DAYS` are deleted by the
//! upkeep (`retention.rs`).
//!
//! Opt-out is honoured before anything else: a request with `DNT: 1` or
//! `Sec-GPC: 1`, or from an account that turned `analytics_opt_out` on,
//! stores nothing (server-side events included).

pub mod batcher;
pub mod clickhouse;
pub mod compaction;
pub mod hooks;
pub mod parquet_sink;
pub mod privacy;
pub mod retention;
pub mod row;
pub mod settings;
pub mod sink;

#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::HttpRequest;
use infra::objects::DynObjects;
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::analytics::query::{day_of_ms, Fact};
use protocol::analytics::validate::{parse_batch, Batch, Call};
use protocol::analytics::{DropReason, IngestReport, Origin};
use serde::{Deserialize, Serialize};

use crate::accounts::lockout::{Clock, SystemClock};
use crate::error::ApiError;
use crate::ratelimit::{RateLimiter, RateLimits};

use self::batcher::Batcher;
use self::privacy::{browser_family, truncate_ip, RequestFacts};
use self::row::{Column, EventRow};
use self::settings::AnalyticsSettings;
use self::sink::EventSink;

/// A day's visitor-hash salt (`analytics_salts`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SaltRow {
    salt: String,
}

/// An account's opt-out (`analytics_opt_outs`); absent means counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct OptOutRow {
    at: i64,
}

struct Inner {
    settings: AnalyticsSettings,
    clock: Arc<dyn Clock>,
    sink: Arc<dyn EventSink>,
    batcher: Batcher,
    salts: Table<SaltRow>,
    opt_outs: Table<OptOutRow>,
    /// Today's salt, so a request costs no Store read.
    salt_cache: Mutex<Option<(i32, Vec<u8>)>>,
    /// Ingest calls per client address.
    limiter: RateLimiter,
    /// The retention cutoff this node last purged to (one sweep a day).
    purged_to: Mutex<Option<i32>>,
}

#[derive(Clone)]
pub struct Analytics {
    inner: Arc<Inner>,
}

impl Analytics {
    /// The service with the sink the settings name; `limits`: where the
    /// ingest limit counts (see `crate::ratelimit`).
    pub fn from_settings(
        store: DynStore,
        objects: DynObjects,
        settings: AnalyticsSettings,
        limits: &RateLimits,
    ) -> anyhow::Result<Analytics> {
        let sink: Arc<dyn EventSink> = match &settings.clickhouse {
            Some(c) => Arc::new(clickhouse::ClickHouseSink::new(
                &c.url,
                &c.table,
                c.user.clone(),
                c.password.clone(),
                c.timeout,
            )?),
            None => Arc::new(parquet_sink::ParquetSink::new(store.clone(), objects)),
        };
        Ok(Analytics::with_limits(
            store,
            sink,
            settings,
            Arc::new(SystemClock),
            limits,
        ))
    }

    /// With the ingest limit counted in process (tests).
    pub fn new(
        store: DynStore,
        sink: Arc<dyn EventSink>,
        settings: AnalyticsSettings,
        clock: Arc<dyn Clock>,
    ) -> Analytics {
        Analytics::with_limits(store, sink, settings, clock, &RateLimits::local())
    }

    fn with_limits(
        store: DynStore,
        sink: Arc<dyn EventSink>,
        settings: AnalyticsSettings,
        clock: Arc<dyn Clock>,
        limits: &RateLimits,
    ) -> Analytics {
        Analytics {
            inner: Arc::new(Inner {
                batcher: Batcher::new(
                    settings.batch_rows,
                    settings.buffer_max,
                    settings.retry_base,
                ),
                limiter: limits.limiter("analytics", settings.per_minute, Duration::from_secs(60)),
                settings,
                clock,
                sink,
                salts: Table::new(store.clone(), &tables::ANALYTICS_SALTS),
                opt_outs: Table::new(store, &tables::ANALYTICS_OPT_OUTS),
                salt_cache: Mutex::new(None),
                purged_to: Mutex::new(None),
            }),
        }
    }

    pub fn sink_name(&self) -> &'static str {
        self.inner.sink.name()
    }

    /// Today (UTC) by the service's clock.
    pub fn today(&self) -> i32 {
        day_of_ms(self.inner.clock.now_millis())
    }

    /// Counts one ingest call from `key`; false when over the limit.
    pub async fn admit(&self, key: &str) -> bool {
        self.inner.limiter.check(key).await
    }

    /// Starts the flush loop; it flushes a last time when `stop` turns true.
    pub fn start(&self, mut stop: tokio::sync::watch::Receiver<bool>) {
        let this = self.clone();
        actix_web::rt::spawn(async move {
            loop {
                let delay = this
                    .inner
                    .batcher
                    .next_delay(this.inner.settings.flush_every);
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = this.inner.batcher.wake.notified() => {}
                    _ = stop.changed() => {
                        let _ = this.flush().await;
                        return;
                    }
                }
                if this.inner.batcher.backing_off() {
                    continue;
                }
                let _ = this.flush().await;
            }
        });
    }

    /// Starts the upkeep (retention, then Parquet compaction): a minute
    /// after start (or `EASEL_ANALYTICS_UPKEEP_MS` if shorter), then every
    /// `EASEL_ANALYTICS_UPKEEP_MS`.
    pub fn start_upkeep(&self, mut stop: tokio::sync::watch::Receiver<bool>) {
        let this = self.clone();
        actix_web::rt::spawn(async move {
            let every = this.inner.settings.upkeep_every;
            let mut wait = every.min(Duration::from_secs(60));
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = stop.changed() => return,
                }
                wait = every;
                match this.sweep_retention().await {
                    Ok(None | Some(0)) => {}
                    Ok(Some(n)) => {
                        tracing::info!(removed = n, "analytics: old events deleted (retention)")
                    }
                    Err(e) => tracing::warn!(error = %e, "analytics: retention sweep failed"),
                }
                let now = this.inner.clock.now_millis();
                match this.inner.sink.maintain(day_of_ms(now), now).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(files = n, "analytics: compacted past days"),
                    Err(e) => tracing::warn!(error = %e, "analytics: upkeep failed"),
                }
            }
        });
    }

    /// Deletes the events of the days before today minus the retention, at
    /// most once per cutoff day on this node (`None`: nothing to do, the
    /// retention is off or this cutoff was swept already).
    pub async fn sweep_retention(&self) -> Result<Option<usize>, sink::SinkError> {
        let days = self.inner.settings.retention_days;
        if days == 0 {
            return Ok(None);
        }
        let cutoff = self
            .today()
            .saturating_sub(i32::try_from(days).unwrap_or(i32::MAX));
        let done = self.inner.purged_to.lock().ok().and_then(|g| *g);
        if done.is_some_and(|d| d >= cutoff) {
            return Ok(None);
        }
        let n = self.inner.sink.purge_before(cutoff).await?;
        if let Ok(mut g) = self.inner.purged_to.lock() {
            *g = Some(cutoff);
        }
        Ok(Some(n))
    }

    /// Writes what is buffered; a failure is logged and the batch kept.
    pub async fn flush(&self) -> Result<usize, sink::SinkError> {
        let r = self.inner.batcher.flush(self.inner.sink.as_ref()).await;
        if let Err(e) = &r {
            tracing::warn!(
                sink = self.inner.sink.name(),
                waiting = self.inner.batcher.waiting(),
                error = %e,
                "analytics: flush failed; the batch is kept and retried"
            );
        }
        r
    }

    /// Whether the account opted out.
    pub async fn opted_out(&self, account: &str) -> Result<bool, ApiError> {
        Ok(self
            .inner
            .opt_outs
            .get(&Key::of(account), &Key::empty())
            .await?
            .is_some())
    }

    /// Turns the account's opt-out on or off.
    pub async fn set_opt_out(&self, account: &str, on: bool) -> Result<(), ApiError> {
        let pk = Key::of(account);
        if on {
            let row = OptOutRow {
                at: self.inner.clock.now_millis(),
            };
            self.inner.opt_outs.put(&pk, &Key::empty(), &row).await?;
        } else {
            self.inner.opt_outs.delete(&pk, &Key::empty()).await?;
        }
        Ok(())
    }

    /// Today's salt: made once per day by whichever node asks first
    /// (insert-if-absent, so all nodes agree), earlier days' salts deleted.
    async fn salt(&self) -> Result<Vec<u8>, ApiError> {
        let today = self.today();
        if let Ok(c) = self.inner.salt_cache.lock() {
            if let Some((d, s)) = c.as_ref() {
                if *d == today {
                    return Ok(s.clone());
                }
            }
        }
        let pk = Key::of("salt");
        let ck = Key::empty().i64(i64::from(today));
        let fresh = SaltRow {
            salt: hex::encode(rand::random::<[u8; 32]>()),
        };
        let row = match self.inner.salts.insert_if_absent(&pk, &ck, &fresh).await? {
            Ok(()) => {
                self.forget_old_salts(today).await?;
                fresh
            }
            Err(existing) => existing,
        };
        let salt = hex::decode(&row.salt).map_err(|_| ApiError::internal("bad analytics salt"))?;
        if let Ok(mut c) = self.inner.salt_cache.lock() {
            *c = Some((today, salt.clone()));
        }
        Ok(salt)
    }

    async fn forget_old_salts(&self, today: i32) -> Result<(), ApiError> {
        let pk = Key::of("salt");
        let page = self.inner.salts.scan(&pk, &ScanRange::all(100)).await?;
        let keep = Key::empty().i64(i64::from(today));
        for (ck, _) in page.rows {
            if ck != keep {
                self.inner.salts.delete(&pk, &ck).await?;
            }
        }
        Ok(())
    }

    /// Stores a validated batch from a request (opt-outs and crawlers first).
    pub async fn ingest(
        &self,
        facts: &RequestFacts,
        account: Option<&str>,
        batch: Batch,
    ) -> Result<IngestReport, ApiError> {
        let total = (batch.events.len() + batch.dropped.len()) as u32;
        let opted_out = facts.do_not_track
            || match account {
                Some(a) => self.opted_out(a).await?,
                None => false,
            };
        if opted_out {
            return Ok(IngestReport {
                dropped: total,
                opted_out: true,
                ..Default::default()
            });
        }
        let mut reasons = batch.dropped.clone();
        let (rows, not_kept) = self.rows(facts, account, &batch).await?;
        if let Some(r) = not_kept {
            reasons.extend(std::iter::repeat_n(r, batch.events.len()));
        }
        let pushed = self.inner.batcher.push(rows);
        reasons.extend(std::iter::repeat_n(
            DropReason::Overloaded,
            pushed.shed as usize,
        ));
        let report_batch = Batch {
            events: vec![],
            dropped: reasons,
            stripped: batch.stripped,
        };
        Ok(IngestReport {
            accepted: pushed.kept,
            dropped: report_batch.dropped.len() as u32,
            stripped: batch.stripped,
            reasons: report_batch.reasons(),
            opted_out: false,
        })
    }

    /// The stored rows of a batch, or why none are kept.
    async fn rows(
        &self,
        facts: &RequestFacts,
        account: Option<&str>,
        batch: &Batch,
    ) -> Result<(Vec<EventRow>, Option<DropReason>), ApiError> {
        if !self.inner.settings.enabled {
            return Ok((vec![], Some(DropReason::Disabled)));
        }
        let browser = browser_family(facts.user_agent.as_deref());
        if browser == "Bot" {
            return Ok((vec![], Some(DropReason::Bot)));
        }
        let salt = self.salt().await?;
        let visitor = facts.visitor(&salt);
        let ip = facts.ip.map(truncate_ip).unwrap_or_default();
        let ts = self.inner.clock.now_millis();
        let rows = batch
            .events
            .iter()
            .map(|e| EventRow {
                day: day_of_ms(ts),
                ts,
                name: e.name.to_owned(),
                account: account.map(str::to_owned),
                visitor: visitor.clone(),
                session: e.session.clone(),
                page: e.page.clone(),
                release: e.release.clone(),
                browser: browser.to_owned(),
                ip: ip.clone(),
                client_ts: e.client_ts,
                props: e.props_json(),
                message: e.str_prop("message").map(str::to_owned),
            })
            .collect();
        Ok((rows, None))
    }

    /// A server-side event (sign-up, generation, purchase), emitted where
    /// the fact happens. Never fails its caller: problems are logged.
    pub async fn server_event(
        &self,
        req: Option<&HttpRequest>,
        account: Option<&str>,
        name: &'static str,
        props: serde_json::Value,
    ) {
        let facts = req.map(RequestFacts::of).unwrap_or_default();
        self.emit(&facts, account, name, props).await;
    }

    /// [`Analytics::server_event`] with the request's facts already taken.
    pub async fn emit(
        &self,
        facts: &RequestFacts,
        account: Option<&str>,
        name: &'static str,
        props: serde_json::Value,
    ) {
        let body = serde_json::json!({"name": name, "props": props});
        let batch = match parse_batch(&body, Call::Events, Origin::Server) {
            Ok(b) if b.dropped.is_empty() => b,
            other => {
                tracing::error!(event = name, outcome = ?other, "analytics: a server event failed its schema");
                return;
            }
        };
        if let Err(e) = self.ingest(facts, account, batch).await {
            tracing::warn!(event = name, error = %e, "analytics: server event not recorded");
        }
    }

    /// The facts of `from..=to` (what is buffered is flushed first, so an
    /// operator sees this node's latest events; other nodes' buffers reach
    /// the sink within their flush interval).
    pub async fn facts(
        &self,
        from: i32,
        to: i32,
        columns: &[Column],
    ) -> Result<Vec<Fact>, ApiError> {
        let _ = self.flush().await;
        self.inner.sink.read(from, to, columns).await.map_err(|e| {
            tracing::error!(error = %e, "analytics: reading the sink failed");
            ApiError::from(protocol::ErrorCode::Unavailable)
        })
    }
}

impl Analytics {
    /// An order was marked paid (the mall calls this once per order).
    pub async fn purchase(
        &self,
        account: &str,
        kind: protocol::mall::order::OrderKind,
        amount: i64,
        currency: &str,
    ) {
        let kind = serde_json::to_value(kind).unwrap_or_default();
        let currency: String = currency.chars().take(8).collect();
        self.server_event(
            None,
            Some(account),
            protocol::analytics::PURCHASE,
            serde_json::json!({"kind": kind, "amount": amount.max(0), "currency": currency}),
        )
        .await;
    }
}
