//! The in-memory buffer between ingest and the sink. Events wait here until
//! the buffer holds `batch_rows` of them or `flush_every` has passed, then go
//! to the sink as one batch with a fresh id. A batch the sink refused stays
//! pending with its id and rows, and is retried first, after a delay that
//! doubles per failure (from `retry_base` up to 60 s): nothing is lost while
//! the sink is down, up to `buffer_max` events, past which new events are
//! shed and counted. What a crash loses is the buffer: at most `flush_every`
//! of events (a clean stop flushes).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::row::EventRow;
use super::sink::{EventSink, SinkError};

/// The longest wait between retries of a failing sink.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

#[derive(Default)]
struct State {
    rows: Vec<EventRow>,
    /// A batch the sink refused, retried before anything newer.
    pending: Option<(String, Vec<EventRow>)>,
    failures: u32,
    retry_at: Option<Instant>,
}

pub struct Batcher {
    batch_rows: usize,
    buffer_max: usize,
    retry_base: Duration,
    /// A std mutex: held for pushes and swaps only, never across an await.
    state: Mutex<State>,
    /// One flush at a time (the loop, a query, shutdown).
    flushing: tokio::sync::Mutex<()>,
    /// Wakes the loop when the buffer reaches `batch_rows`.
    pub wake: tokio::sync::Notify,
}

/// Counts of one push.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pushed {
    pub kept: u32,
    pub shed: u32,
}

impl Batcher {
    pub fn new(batch_rows: usize, buffer_max: usize, retry_base: Duration) -> Batcher {
        Batcher {
            batch_rows,
            buffer_max,
            retry_base,
            state: Mutex::new(State::default()),
            flushing: tokio::sync::Mutex::new(()),
            wake: tokio::sync::Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock still holds consistent rows (every critical
        // section is a push or a swap): keep using it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Buffers rows; those past `buffer_max` are shed.
    pub fn push(&self, rows: Vec<EventRow>) -> Pushed {
        let mut out = Pushed::default();
        let full = {
            let mut s = self.lock();
            let held = s.pending.as_ref().map_or(0, |(_, r)| r.len());
            for r in rows {
                if s.rows.len() + held >= self.buffer_max {
                    out.shed += 1;
                } else {
                    s.rows.push(r);
                    out.kept += 1;
                }
            }
            s.rows.len() >= self.batch_rows
        };
        if full {
            self.wake.notify_one();
        }
        out
    }

    /// Events waiting (buffered and pending).
    pub fn waiting(&self) -> usize {
        let s = self.lock();
        s.rows.len() + s.pending.as_ref().map_or(0, |(_, r)| r.len())
    }

    /// How long the loop should wait before its next flush.
    pub fn next_delay(&self, flush_every: Duration) -> Duration {
        let s = self.lock();
        match s.retry_at {
            Some(at) => at.saturating_duration_since(Instant::now()),
            None => flush_every,
        }
    }

    /// Whether a failed batch is waiting for its retry time.
    pub fn backing_off(&self) -> bool {
        self.lock().retry_at.is_some_and(|at| Instant::now() < at)
    }

    /// Writes everything buffered, a batch at a time; stops at the first
    /// failure, keeping that batch pending. Answers the rows written.
    pub async fn flush(&self, sink: &dyn EventSink) -> Result<usize, SinkError> {
        let _one = self.flushing.lock().await;
        let mut written = 0;
        loop {
            let (id, rows) = {
                let mut s = self.lock();
                match s.pending.take() {
                    Some(p) => p,
                    None if s.rows.is_empty() => return Ok(written),
                    None => {
                        let n = s.rows.len().min(self.batch_rows);
                        let rest = s.rows.split_off(n);
                        let batch = std::mem::replace(&mut s.rows, rest);
                        (uuid::Uuid::now_v7().simple().to_string(), batch)
                    }
                }
            };
            match sink.write(&id, &rows).await {
                Ok(()) => {
                    written += rows.len();
                    let mut s = self.lock();
                    s.failures = 0;
                    s.retry_at = None;
                }
                Err(e) => {
                    let mut s = self.lock();
                    s.failures = s.failures.saturating_add(1);
                    let delay = self
                        .retry_base
                        .saturating_mul(1u32 << (s.failures - 1).min(16))
                        .min(MAX_BACKOFF);
                    s.retry_at = Some(Instant::now() + delay);
                    s.pending = Some((id, rows));
                    return Err(e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use async_trait::async_trait;
    use protocol::analytics::query::Fact;

    use crate::analytics::row::Column;

    /// Fails the first `fail` writes, then keeps what it is given.
    #[derive(Default)]
    struct Flaky {
        fail: Mutex<u32>,
        got: Mutex<Vec<(String, usize)>>,
    }

    #[async_trait]
    impl EventSink for Flaky {
        fn name(&self) -> &'static str {
            "flaky"
        }
        async fn write(&self, id: &str, rows: &[EventRow]) -> Result<(), SinkError> {
            let mut f = self.fail.lock().unwrap();
            if *f > 0 {
                *f -= 1;
                return Err(SinkError::Other("down".into()));
            }
            self.got.lock().unwrap().push((id.to_owned(), rows.len()));
            Ok(())
        }
        async fn read(&self, _: i32, _: i32, _: &[Column]) -> Result<Vec<Fact>, SinkError> {
            Ok(vec![])
        }
        async fn purge_before(&self, _: i32) -> Result<usize, SinkError> {
            Ok(0)
        }
    }

    fn row(i: i64) -> EventRow {
        EventRow {
            day: 0,
            ts: i,
            name: "page_view".into(),
            account: None,
            visitor: None,
            session: None,
            page: None,
            release: None,
            browser: "Other".into(),
            ip: "127.0.0.0".into(),
            client_ts: None,
            props: "{}".into(),
            message: None,
        }
    }

    #[tokio::test]
    async fn a_failed_batch_is_kept_and_retried_with_its_id() {
        let sink = Flaky {
            fail: Mutex::new(2),
            ..Default::default()
        };
        let b = Batcher::new(3, 100, Duration::from_millis(10));
        b.push((0..5).map(row).collect());
        assert!(b.flush(&sink).await.is_err());
        assert!(b.backing_off());
        assert_eq!(b.waiting(), 5);
        assert!(b.flush(&sink).await.is_err());
        b.push(vec![row(9)]);
        assert_eq!(b.flush(&sink).await.unwrap(), 6);
        let got = sink.got.lock().unwrap().clone();
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), vec![3, 3]);
        assert_eq!(b.waiting(), 0);
        assert!(!b.backing_off());
        assert_eq!(b.next_delay(Duration::from_secs(7)), Duration::from_secs(7));
    }

    #[tokio::test]
    async fn the_retried_batch_keeps_its_id() {
        struct Ids(Mutex<Vec<String>>);
        #[async_trait]
        impl EventSink for Ids {
            fn name(&self) -> &'static str {
                "ids"
            }
            async fn write(&self, id: &str, _: &[EventRow]) -> Result<(), SinkError> {
                let mut v = self.0.lock().unwrap();
                v.push(id.to_owned());
                if v.len() == 1 {
                    Err(SinkError::Other("timeout".into()))
                } else {
                    Ok(())
                }
            }
            async fn read(&self, _: i32, _: i32, _: &[Column]) -> Result<Vec<Fact>, SinkError> {
                Ok(vec![])
            }
            async fn purge_before(&self, _: i32) -> Result<usize, SinkError> {
                Ok(0)
            }
        }
        let sink = Ids(Mutex::new(vec![]));
        let b = Batcher::new(10, 100, Duration::from_millis(1));
        b.push(vec![row(1)]);
        let _ = b.flush(&sink).await;
        b.flush(&sink).await.unwrap();
        let ids = sink.0.lock().unwrap().clone();
        assert_eq!(ids.len(), 2);
        assert_eq!(ids[0], ids[1]);
    }

    #[test]
    fn a_full_buffer_sheds_and_counts() {
        let b = Batcher::new(100, 4, Duration::from_millis(1));
        assert_eq!(
            b.push((0..6).map(row).collect()),
            Pushed { kept: 4, shed: 2 }
        );
    }
}
