//! The `feed` scenario: feed pages read on a fixed timetable (`--rate`,
//! default 1,000 pages/s) while writes go on at `--write-rate` (default
//! 200/s: likes, their undos, comments and publishes in the `--write-mix`),
//! against a square already filled (`easel seed-square`).
//!
//! Set-up, outside the measured window: `--accounts` accounts sign up; a
//! few pages of every order are read to learn works and authors; each
//! account follows `--follows` authors (so its "follows" feed has pages);
//! enough tasks for the window's publishes are created, spread over the
//! accounts (task creation is limited per account), and waited for until
//! they finish. Then both timetables start together. A read is a first page
//! (orders and feed calls in rotation) or, for `--next-page-pct` of reads,
//! the next page of one read before, by the same account; the works on the
//! pages read are what likes and comments are about. Latency is measured
//! from each call's intended send time; the server's CPU over the window
//! is divided by the pages read.

mod book;
mod plan;
mod setup;
mod writes;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use protocol::client::RestClient;
use serde_json::{json, Value};

use self::book::{ErrorKind, FeedBook, Page};
use self::plan::{ReadPlanner, ORDERS};
use self::setup::set_up;
use self::writes::{WriteOp, WritePlanner};
use crate::procfs;
use crate::scenarios::{counts, ms, Target, ANSWER_TIMEOUT, MAX_IN_FLIGHT, MAX_SENDS};
use crate::timetable::{SendLog, Timetable};
use crate::{HarnessArgs, HarnessError, Protocol, Report};

pub use self::plan::WriteMix;
pub use self::setup::{publishes_needed, TASK_WAIT};

/// The feed calls read by default (both take the same body and answer the
/// same page).
pub const DEFAULT_FEED_PATHS: [&str; 2] = [
    "/api/v1/square/v3/recommend",
    "/api/v1/square/v3/artwork/list",
];

/// The state both senders decide from and every answer updates. A std
/// mutex: held for a decision or a record, never across an await.
struct Shared {
    reads: ReadPlanner,
    writes: WritePlanner,
    book: FeedBook,
}

type SharedState = Arc<Mutex<Shared>>;

fn lock(s: &SharedState) -> Result<MutexGuard<'_, Shared>, HarnessError> {
    s.lock().map_err(|e| HarnessError::Stats(e.to_string()))
}

/// The body of a feed call.
pub(crate) fn page_body(order: usize, page_size: u32, cursor: Option<&str>) -> Value {
    json!({
        "order_by": ORDERS.get(order).copied().unwrap_or("new"),
        "time_type": "all",
        "page_size": page_size,
        "cursor": cursor,
    })
}

/// Reads one page and parses it.
pub(crate) async fn read_page(
    client: &RestClient,
    path: &str,
    body: &Value,
) -> Result<Page, (ErrorKind, String)> {
    match tokio::time::timeout(ANSWER_TIMEOUT, client.post::<_, Value>(path, body)).await {
        Err(_) => Err((ErrorKind::TimedOut, format!("{path}: no answer"))),
        Ok(Err(e)) => Err((ErrorKind::of(&e), format!("{path}: {e}"))),
        Ok(Ok(data)) => {
            Page::parse(&data).map_err(|m| (ErrorKind::BadAnswer, format!("{path}: {m}")))
        }
    }
}

/// Sends on `tt` until `until`: `launch(i, intended)` makes send `i` (or
/// `None` when there is nothing to send), which runs as its own task, at
/// most [`MAX_IN_FLIGHT`] at once. Answers the lateness of the sends and
/// how many due sends the deadline left unsent.
async fn on_timetable<F, Fut>(
    tt: Timetable,
    until: Instant,
    count: u64,
    mut launch: F,
) -> Result<(SendLog, u64), HarnessError>
where
    F: FnMut(u64, Instant) -> Result<Option<Fut>, HarnessError>,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let sem = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let mut set = tokio::task::JoinSet::new();
    let mut log = SendLog::default();
    let count = count.min(MAX_SENDS);
    let mut unsent = 0;
    for i in 0..count {
        let intended = tt.intended(i);
        if intended >= until {
            unsent = count - i;
            break;
        }
        tokio::time::sleep_until(tokio::time::Instant::from_std(intended)).await;
        let deadline = tokio::time::Instant::from_std(until);
        let permit = match tokio::time::timeout_at(deadline, sem.clone().acquire_owned()).await {
            Ok(p) => p.map_err(|e| HarnessError::Setup(e.to_string()))?,
            Err(_) => {
                unsent = count - i;
                break;
            }
        };
        if let Some(fut) = launch(i, intended)? {
            log.note(intended, Instant::now());
            set.spawn(async move {
                fut.await;
                drop(permit);
            });
        }
        while set.try_join_next().is_some() {}
    }
    while set.join_next().await.is_some() {}
    Ok((log, unsent))
}

/// Launches read `i`: the planner's choice, its answer recorded.
fn launch_read(
    shared: &SharedState,
    accounts: &Arc<Vec<RestClient>>,
    paths: &Arc<Vec<String>>,
    page_size: u32,
    i: u64,
    intended: Instant,
) -> Result<Option<impl std::future::Future<Output = ()> + Send + 'static>, HarnessError> {
    let read = lock(shared)?.reads.next_read(i);
    let (shared, accounts, paths) = (shared.clone(), accounts.clone(), paths.clone());
    Ok(Some(async move {
        let (Some(client), Some(path)) = (accounts.get(read.account), paths.get(read.path)) else {
            return;
        };
        let body = page_body(read.order, page_size, read.cursor.as_deref());
        let res = read_page(client, path, &body).await;
        let at = Instant::now();
        let Ok(mut s) = shared.lock() else {
            return;
        };
        match res {
            Ok(page) => {
                s.book.read_ok(&read, intended, at, &page);
                for w in &page.works {
                    s.writes.works.add(w);
                }
                s.reads.answered(&read, page.next_cursor);
            }
            Err((kind, m)) => s.book.read_failed(kind, || m),
        }
    }))
}

/// Launches write `j`, or records why the mix's choice was skipped.
fn launch_write(
    shared: &SharedState,
    accounts: &Arc<Vec<RestClient>>,
    j: u64,
    intended: Instant,
) -> Result<Option<impl std::future::Future<Output = ()> + Send + 'static>, HarnessError> {
    let op: WriteOp = {
        let mut s = lock(shared)?;
        match s.writes.next_write(j) {
            Ok(op) => op,
            Err(kind) => {
                s.book.write_skipped(kind);
                return Ok(None);
            }
        }
    };
    let (shared, accounts) = (shared.clone(), accounts.clone());
    Ok(Some(async move {
        let Some(client) = accounts.get(op.account()) else {
            return;
        };
        let res = tokio::time::timeout(
            ANSWER_TIMEOUT,
            client.post::<_, Value>(op.path(), &op.body()),
        )
        .await;
        let at = Instant::now();
        let Ok(mut s) = shared.lock() else {
            return;
        };
        match res {
            Ok(Ok(data)) => {
                s.book.write_ok(op.name(), intended, at);
                // A new work: likes and comments may land on it too.
                if let (WriteOp::Publish { .. }, Some(id)) =
                    (&op, data.get("id").and_then(Value::as_str))
                {
                    s.writes.works.add(id);
                }
            }
            Ok(Err(e)) => {
                s.writes.failed(&op);
                s.book
                    .write_failed(op.name(), ErrorKind::of(&e), || e.to_string());
            }
            Err(_) => {
                s.writes.failed(&op);
                s.book
                    .write_failed(op.name(), ErrorKind::TimedOut, || "no answer".into());
            }
        }
    }))
}

/// Every order's name, the default of `--orders`.
pub fn plan_orders() -> Vec<String> {
    ORDERS.iter().map(|o| (*o).to_owned()).collect()
}

/// The `--orders` names as indices into [`ORDERS`].
pub fn order_indices(names: &[String]) -> Result<Vec<usize>, HarnessError> {
    names
        .iter()
        .map(|n| {
            ORDERS.iter().position(|o| o == n).ok_or_else(|| {
                HarnessError::Setup(format!(
                    "--orders: {n:?} is not one of {}",
                    ORDERS.join(", ")
                ))
            })
        })
        .collect()
}

pub(crate) async fn feed(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    if args.protocol != Protocol::Easel {
        return Err(HarnessError::Setup(
            "feed drives Easel's square: it needs --protocol easel".into(),
        ));
    }
    if args.feed_paths.is_empty() {
        return Err(HarnessError::Setup("--feed-paths is empty".into()));
    }
    let orders = order_indices(&args.orders)?;
    let target = Target::parse(&args.target, args.protocol)?;
    let mut writes = WritePlanner::new(args.write_mix, usize::try_from(args.accounts).unwrap_or(1));
    let setup = set_up(args, &target, &mut writes).await?;
    let n_accounts = setup.accounts.len();
    let accounts = Arc::new(setup.accounts);
    let paths = Arc::new(args.feed_paths.clone());

    let started = Instant::now();
    let window = Duration::from_secs_f64(args.duration_secs);
    let until = started + window;
    let read_tt = Timetable::new(started, rate)
        .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
    let write_tt = Timetable::new(started, args.write_rate)
        .ok_or_else(|| HarnessError::Setup("--write-rate must be positive".into()))?;
    let shared: SharedState = Arc::new(Mutex::new(Shared {
        reads: ReadPlanner::new(
            paths.len(),
            orders,
            n_accounts,
            args.next_page_pct,
            args.max_pages,
        ),
        writes,
        book: FeedBook::new(started)?,
    }));
    let cpu = procfs::CpuWindow::start(target.server_pid(args.server_pid)).with(&args.also_pid);
    let page_size = args.page_size;
    let (reads_offered, writes_offered) =
        (read_tt.count_within(window), write_tt.count_within(window));
    let readers = on_timetable(read_tt, until, reads_offered, |i, intended| {
        launch_read(&shared, &accounts, &paths, page_size, i, intended)
    });
    let writers = on_timetable(write_tt, until, writes_offered, |j, intended| {
        launch_write(&shared, &accounts, j, intended)
    });
    let (r, w) = tokio::join!(readers, writers);
    let ((read_log, reads_unsent), (write_log, writes_unsent)) = (r?, w?);
    let cpu_used = cpu.used();
    let elapsed = started.elapsed();

    let s = lock(&shared)?;
    let b = &s.book;
    let mut extra = serde_json::Map::new();
    extra.insert("reads_per_sec".into(), json!(b.reads_per_sec(window)));
    extra.insert("writes_per_sec".into(), json!(b.writes_per_sec(window)));
    extra.insert("write_rate".into(), json!(args.write_rate));
    extra.insert("write_mix".into(), json!(args.write_mix.to_string()));
    extra.insert("server_cpu_secs".into(), json!(cpu_used));
    extra.insert(
        "cpu_us_per_page".into(),
        json!(cpu_used
            .filter(|_| b.reads_ok > 0)
            .map(|c| c * 1e6 / b.reads_ok as f64)),
    );
    extra.insert("write_latency_ms".into(), json!(b.write.summary()));
    let by_order: serde_json::Map<String, Value> = ORDERS
        .iter()
        .zip(&b.by_order)
        .filter(|(_, h)| h.count() > 0)
        .map(|(o, h)| ((*o).to_owned(), json!(h.summary())))
        .collect();
    extra.insert("order_latency_ms".into(), Value::Object(by_order));
    let mut errors = setup.errors.by_kind.clone();
    for t in [&b.read_errors, &b.write_errors] {
        for (k, v) in &t.by_kind {
            *errors.entry(k.clone()).or_insert(0) += v;
        }
    }
    extra.insert("errors".into(), json!(errors));
    let mut first_errors = setup.errors.first.clone();
    first_errors.extend(b.read_errors.first.clone());
    first_errors.extend(b.write_errors.first.clone());
    if !first_errors.is_empty() {
        extra.insert("first_errors".into(), json!(first_errors));
    }
    extra.insert("writes_ok".into(), json!(b.writes_ok));
    extra.insert("writes_skipped".into(), json!(b.skipped));
    // Finished tasks the window did not need.
    extra.insert("publish_tasks_left".into(), json!(s.writes.tasks.len()));
    extra.insert("setup".into(), Value::Object(setup.figures));
    extra.insert("feed_paths".into(), json!(*paths));
    extra.insert("page_size".into(), json!(args.page_size));
    extra.insert(
        "max_send_lateness_ms".into(),
        json!(ms(read_log.max_late.max(write_log.max_late))),
    );
    let ok = |k: &str| b.writes_ok.get(k).copied().unwrap_or(0);
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: n_accounts as u64,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: elapsed.as_secs_f64(),
        counts: counts(&[
            ("reads_offered", reads_offered),
            ("reads_sent", read_log.sent),
            ("reads_unsent", reads_unsent),
            ("reads_ok", b.reads_ok),
            ("read_errors", b.read_errors.total()),
            ("first_pages", b.first_pages),
            ("next_pages", b.next_pages),
            ("next_page_fallbacks", s.reads.next_unavailable),
            ("last_pages", b.last_pages),
            ("empty_pages", b.empty_pages),
            ("cards", b.cards),
            ("writes_offered", writes_offered),
            ("writes_sent", write_log.sent),
            ("writes_unsent", writes_unsent),
            ("writes_ok", b.writes_ok_total()),
            ("write_errors", b.write_errors.total()),
            ("writes_skipped", b.skipped.values().sum::<u64>()),
            ("likes", ok("like")),
            ("like_cancels", ok("like_cancel")),
            ("comments", ok("comment")),
            ("publishes", ok("publish")),
            ("late_sends", read_log.late + write_log.late),
        ]),
        latency_ms: b.page.summary(),
        extra,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn page_bodies_follow_the_contract() {
        assert_eq!(
            page_body(1, 20, None),
            json!({"order_by": "follows", "time_type": "all", "page_size": 20, "cursor": null})
        );
        assert_eq!(page_body(3, 5, Some("c"))["cursor"], "c");
    }

    #[test]
    fn publishes_cover_the_mix_share_of_the_window() {
        // 200 writes/s for 15 s, a tenth publishes: 300, plus a tenth.
        assert_eq!(publishes_needed(WriteMix::default(), 200.0, 15.0), 330);
        assert_eq!(publishes_needed("1,1,0".parse().unwrap(), 200.0, 15.0), 0);
    }

    #[test]
    fn orders_are_named_as_the_contract_names_them() {
        let names: Vec<String> = ["new", "hot"].iter().map(|s| s.to_string()).collect();
        assert_eq!(order_indices(&names).unwrap(), [3, 2]);
        assert!(order_indices(&["newest".to_string()]).is_err());
    }
}
