//! The scenarios: each sets up users and sockets through the reference
//! client, runs its load on a [`Timetable`], and fills a [`Report`].

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use protocol::client::{ClientError, RestClient, Socket};
use protocol::frame::{Codec, Frame, FrameType};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::creates::{create_on_timetable, CreateAnswer, CreatePlan, CreateTally, Outcome};
use crate::procfs;
use crate::stats::Latencies;
use crate::timetable::{SendLog, Timetable};
use crate::{HarnessArgs, HarnessError, Protocol, Report};

/// Sockets being opened at once.
pub(crate) const CONNECT_PARALLEL: usize = 64;
/// Creates in flight at once; beyond it the sender waits (and runs late).
pub(crate) const MAX_IN_FLIGHT: usize = 512;
/// Upper bound on the sends of one run.
pub(crate) const MAX_SENDS: u64 = 2_000_000;
/// How long an ack or an answer may take before it counts as lost.
pub(crate) const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// How far ahead of the first heartbeat the idle sessions' tasks start.
const HOLD_LEAD: Duration = Duration::from_millis(100);
/// The token every idle socket uses against a baseline (`--protocol bare`).
const BARE_IDLE_TOKEN: &str = "bench-idle";
const PASSWORD: &str = "Harness-pass-9431";

/// Where the target is: its REST client, socket URL, port, and the source
/// addresses to spread sockets over (127.0.0.2..=9 when it is on 127.0.0.1).
pub(crate) struct Target {
    pub(crate) rest: RestClient,
    ws_url: String,
    port: u16,
    sources: Vec<IpAddr>,
    protocol: Protocol,
}

impl Target {
    pub(crate) fn parse(url: &str, protocol: Protocol) -> Result<Target, HarnessError> {
        let u = reqwest::Url::parse(url)
            .map_err(|e| HarnessError::Setup(format!("--target {url}: {e}")))?;
        let port = u
            .port_or_known_default()
            .ok_or_else(|| HarnessError::Setup(format!("--target {url}: no port")))?;
        let loopback = matches!(u.host_str(), Some("127.0.0.1") | Some("localhost"));
        let sources = if loopback {
            (2..=9)
                .map(|d| IpAddr::V4(Ipv4Addr::new(127, 0, 0, d)))
                .collect()
        } else {
            Vec::new()
        };
        let rest = RestClient::new(url);
        Ok(Target {
            ws_url: rest.ws_url(),
            rest,
            port,
            sources,
            protocol,
        })
    }

    pub(crate) fn protocol(&self) -> Protocol {
        self.protocol
    }

    fn is_local(&self) -> bool {
        !self.sources.is_empty()
    }

    /// Opens socket number `i`, from its source address when there are some.
    pub(crate) async fn connect(&self, i: usize) -> Result<Socket, ClientError> {
        match self.sources.get(i % self.sources.len().max(1)) {
            Some(src) => Socket::connect_from(&self.ws_url, Codec::Json, *src).await,
            None => Socket::connect(&self.ws_url, Codec::Json).await,
        }
    }

    pub(crate) async fn sign_up(&self, label: &str) -> Result<RestClient, HarnessError> {
        let email = format!("harness-{}@example.com", uuid::Uuid::now_v7().simple());
        let login = self.rest.sign_up(&email, PASSWORD, label).await?;
        Ok(self.rest.with_token(login.token))
    }

    /// The server's pid: given, or found from the port when it is local.
    pub(crate) fn server_pid(&self, given: Option<u32>) -> Option<u32> {
        given.or_else(|| {
            self.is_local()
                .then(|| procfs::listening_pid(self.port))
                .flatten()
        })
    }
}

/// Authenticates a socket with frame 7 and waits for the confirming
/// heartbeat. Easel's confirmation carries `{account_id, stream, seq}`; a
/// baseline answers a bare `{"type":4}`.
pub(crate) async fn authenticate(
    sock: &mut Socket,
    token: &str,
    protocol: Protocol,
) -> Result<(), ClientError> {
    match protocol {
        Protocol::Easel => sock.authenticate(token).await.map(|_| ()),
        Protocol::Bare => {
            sock.send(&Frame::auth(token)).await?;
            sock.expect(FrameType::Heartbeat, ANSWER_TIMEOUT)
                .await
                .map(|_| ())
        }
    }
}

/// The driver runtime's worker threads: with the driver pinned to one
/// core, more than one means threads taking turns on it.
pub(crate) fn driver_workers() -> usize {
    tokio::runtime::Handle::current().metrics().num_workers()
}

pub(crate) fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The heartbeat figures of every idle session, in one set of histograms.
/// A histogram per session (about 360 KB each at this range and
/// precision) meant thousands of allocations as the sessions started and
/// thousands of merges as they ended, on the driver core and inside the
/// measured window: the driver's own stalls showed as ack latency. A std
/// mutex, not a tokio one: it is held for a `record`, never across an await.
struct Beats {
    /// Intended send time to ack: the reported figure.
    ack: Latencies,
    /// Intended to actual send time: the driver's own delay (timer
    /// rounding, a busy driver core). When `ack`'s tail matches this one,
    /// the tail is the driver's, not the server's.
    lateness: Latencies,
    /// Actual send time to ack: the round trip alone.
    round_trip: Latencies,
}

type SharedBeats = Arc<std::sync::Mutex<Beats>>;

/// Holds one session: a heartbeat at each intended time, the ack's latency
/// measured from that time, until `end`; then waits for `end` before
/// closing, so no session's close lands among the others' heartbeats.
async fn hold(mut sock: Socket, tt: Timetable, end: Instant, beats: SharedBeats) -> (SendLog, u64) {
    let mut log = SendLog::default();
    let mut timeouts = 0;
    for i in 0..MAX_SENDS {
        let intended = tt.intended(i);
        if intended >= end {
            break;
        }
        tokio::time::sleep_until(tokio::time::Instant::from_std(intended)).await;
        let sent = Instant::now();
        log.note(intended, sent);
        if sock.send(&Frame::heartbeat()).await.is_err() {
            timeouts += 1;
            break;
        }
        match sock.expect(FrameType::Heartbeat, ANSWER_TIMEOUT).await {
            Ok(_) => {
                let now = Instant::now();
                if let Ok(mut b) = beats.lock() {
                    b.ack.record(now.saturating_duration_since(intended));
                    b.lateness.record(sent.saturating_duration_since(intended));
                    b.round_trip.record(now.saturating_duration_since(sent));
                }
            }
            Err(_) => {
                timeouts += 1;
                break;
            }
        }
    }
    tokio::time::sleep_until(tokio::time::Instant::from_std(end)).await;
    // The server may already have gone; the figures stand either way.
    let _ = sock.close().await;
    (log, timeouts)
}

pub(crate) async fn idle(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    let target = Target::parse(&args.target, args.protocol)?;
    let token = match args.protocol {
        Protocol::Easel => target
            .sign_up("harness idle")
            .await?
            .token()
            .ok_or_else(|| HarnessError::Setup("sign-up gave no token".into()))?
            .to_owned(),
        Protocol::Bare => BARE_IDLE_TOKEN.to_owned(),
    };
    let pid = target.server_pid(args.server_pid);
    let rss_before = pid.and_then(procfs::rss_bytes);

    let started = Instant::now();
    let mut auth_lat = Latencies::new()?;
    let n = usize::try_from(args.sessions).unwrap_or(usize::MAX);
    let target_ref = &target;
    let token_ref = token.as_str();
    let results: Vec<(Duration, Result<Socket, ClientError>)> = futures_util::stream::iter(0..n)
        .map(|i| async move {
            let t0 = Instant::now();
            let res = async {
                let mut s = target_ref.connect(i).await?;
                authenticate(&mut s, token_ref, target_ref.protocol()).await?;
                Ok(s)
            }
            .await;
            (t0.elapsed(), res)
        })
        .buffer_unordered(CONNECT_PARALLEL)
        .collect()
        .await;
    let auth_all = started.elapsed();
    let mut sockets = Vec::new();
    let mut failed = 0u64;
    let mut first_error = None;
    for (took, res) in results {
        match res {
            Ok(s) => {
                auth_lat.record(took);
                sockets.push(s);
            }
            Err(e) => {
                failed += 1;
                first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    let authenticated = sockets.len() as u64;
    let rss_after = pid.and_then(procfs::rss_bytes);

    // Each session on its own timetable, the sessions' phases spread evenly
    // over one interval; the first beats a little ahead, once every
    // session's task is running.
    let cpu = procfs::CpuWindow::start(pid).with(&args.also_pid);
    let hold_start = Instant::now() + HOLD_LEAD;
    let end = hold_start + Duration::from_secs_f64(args.duration_secs);
    let shared: SharedBeats = Arc::new(std::sync::Mutex::new(Beats {
        ack: Latencies::new()?,
        lateness: Latencies::new()?,
        round_trip: Latencies::new()?,
    }));
    let held = sockets.len();
    let mut set = tokio::task::JoinSet::new();
    for (i, sock) in sockets.into_iter().enumerate() {
        let tt = Timetable::phased(hold_start, rate, i, held)
            .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
        set.spawn(hold(sock, tt, end, shared.clone()));
    }
    // The server's CPU over the load window: the closes come after it.
    tokio::time::sleep_until(tokio::time::Instant::from_std(end)).await;
    let cpu_used = cpu.used();
    let mut log = SendLog::default();
    let mut timeouts = 0;
    while let Some(joined) = set.join_next().await {
        let (s, t) = joined.map_err(|e| HarnessError::Setup(e.to_string()))?;
        log.merge(&s);
        timeouts += t;
    }
    let (lat, lateness, round_trip) = {
        let b = shared
            .lock()
            .map_err(|e| HarnessError::Stats(e.to_string()))?;
        (b.ack.clone(), b.lateness.summary(), b.round_trip.summary())
    };
    let mut extra = serde_json::Map::new();
    extra.insert("auth_all_ms".into(), json!(ms(auth_all)));
    extra.insert("auth_latency_ms".into(), json!(auth_lat.summary()));
    extra.insert("send_lateness_ms".into(), json!(lateness));
    extra.insert("round_trip_ms".into(), json!(round_trip));
    extra.insert("driver_workers".into(), json!(driver_workers()));
    extra.insert("max_send_lateness_ms".into(), json!(ms(log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu_used));
    let per_session = match (rss_before, rss_after) {
        (Some(b), Some(a)) if authenticated > 0 => Some(a.saturating_sub(b) / authenticated),
        _ => None,
    };
    extra.insert(
        "server_memory".into(),
        json!({"pid": pid, "rss_before_bytes": rss_before, "rss_after_bytes": rss_after,
               "bytes_per_session": per_session}),
    );
    if let Some(e) = first_error {
        extra.insert("first_error".into(), json!(e));
    }
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: args.sessions,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: started.elapsed().as_secs_f64(),
        counts: counts(&[
            ("authenticated", authenticated),
            ("failed", failed),
            ("heartbeats_sent", log.sent),
            ("heartbeat_acks", lat.count()),
            ("heartbeat_timeouts", timeouts),
            ("late_sends", log.late),
        ]),
        latency_ms: lat.summary(),
        extra,
    })
}

/// A small text-to-image body on the first checkpoint the server offers.
pub(crate) async fn task_body(rest: &RestClient) -> Result<impl Fn(u64) -> Value, HarnessError> {
    let config: Value = rest
        .post("/api/v1/task/v2/config/model", &json!({}))
        .await?;
    let model = config
        .get("checkpoints")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(|m| m.get("model_ver_no"))
        .and_then(Value::as_str)
        .ok_or_else(|| HarnessError::Setup("the server offers no checkpoint".into()))?
        .to_owned();
    Ok(move |i: u64| {
        json!({"action": 1, "category": 1, "art_model_ver_no": model,
               "meta": {"prompt": format!("harness {i}"), "width": 512, "height": 512,
                        "n_iter": 1, "steps": 4, "seed": i}})
    })
}

pub(crate) async fn sign_up_users(
    target: &Target,
    n: u64,
) -> Result<Vec<RestClient>, HarnessError> {
    let mut users = Vec::new();
    for i in 0..n.max(1) {
        users.push(target.sign_up(&format!("harness {i}")).await?);
    }
    Ok(users)
}

pub(crate) async fn create(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    if args.protocol != Protocol::Easel {
        return Err(HarnessError::Setup(
            "create drives Easel's task API: it needs --protocol easel".into(),
        ));
    }
    let target = Target::parse(&args.target, args.protocol)?;
    let users = sign_up_users(&target, args.users).await?;
    let body = task_body(&target.rest).await?;
    let cpu = procfs::CpuWindow::start(target.server_pid(args.server_pid)).with(&args.also_pid);
    let started = Instant::now();
    let tt = Timetable::new(started, rate)
        .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
    let window = Duration::from_secs_f64(args.duration_secs);
    let offered = tt.count_within(window).min(MAX_SENDS);
    let plan = CreatePlan {
        path: "/api/v1/task/create",
        body: Arc::new(body),
        tt,
        count: offered,
        until: started + window,
    };
    // The answers are tallied as they arrive, so a long run keeps no list.
    let (tx, mut rx) = mpsc::unbounded_channel::<CreateAnswer>();
    let sender = tokio::spawn(create_on_timetable(users, plan, tx));
    let mut lat = Latencies::new()?;
    let mut tally = CreateTally::default();
    let mut last_accept = started;
    while let Some(a) = rx.recv().await {
        if let Outcome::Accepted(_) = a.outcome {
            lat.record(a.took);
            last_accept = last_accept.max(a.intended + a.took);
        }
        tally.add(&a.outcome);
    }
    let (log, unsent) = sender
        .await
        .map_err(|e| HarnessError::Setup(e.to_string()))??;
    let elapsed = started.elapsed();
    let cpu_used = cpu.used();
    let mut extra = serde_json::Map::new();
    // Over the load window, or up to the last accepted answer when that
    // came later (answers of creates sent near the deadline).
    let busy = last_accept.saturating_duration_since(started).max(window);
    extra.insert(
        "throughput_per_sec".into(),
        json!(tally.accepted as f64 / busy.as_secs_f64().max(1e-9)),
    );
    extra.insert("max_send_lateness_ms".into(), json!(ms(log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu_used));
    if let Some(code) = tally.first_other_code {
        extra.insert("first_refusal_code".into(), json!(code));
    }
    let mut pairs = vec![
        ("offered", offered),
        ("sent", log.sent),
        ("unsent", unsent),
        ("accepted", tally.accepted),
        ("late_sends", log.late),
    ];
    pairs.extend(tally.counts());
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: args.users,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: elapsed.as_secs_f64(),
        counts: counts(&pairs),
        latency_ms: lat.summary(),
        extra,
    })
}
