//! The scenarios: each sets up users and sockets through the reference
//! client, runs its load on a [`Timetable`], and fills a [`Report`].

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use protocol::client::{ClientError, Incoming, RestClient, Socket};
use protocol::frame::{Codec, Frame, FrameType};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::pacing::{aligned_delays, effective_interval, median, SeqCheck};
use super::procfs;
use super::stats::Latencies;
use super::timetable::{SendLog, Timetable};
use super::tracker::{ProgressCounts, ProgressTracker};
use super::{HarnessArgs, HarnessError, Protocol, Report};

/// Sockets being opened at once.
pub(super) const CONNECT_PARALLEL: usize = 64;
/// Creates in flight at once; beyond it the sender waits (and runs late).
pub(super) const MAX_IN_FLIGHT: usize = 512;
/// Upper bound on the sends of one run.
pub(super) const MAX_SENDS: u64 = 2_000_000;
/// How long an ack or an answer may take before it counts as lost.
pub(super) const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// The token every idle socket uses against a baseline (`--protocol bare`).
const BARE_IDLE_TOKEN: &str = "bench-idle";
const PASSWORD: &str = "Harness-pass-9431";

/// Where the target is: its REST client, socket URL, port, and the source
/// addresses to spread sockets over (127.0.0.2..=9 when it is on 127.0.0.1).
pub(super) struct Target {
    pub(super) rest: RestClient,
    ws_url: String,
    port: u16,
    sources: Vec<IpAddr>,
    protocol: Protocol,
}

impl Target {
    pub(super) fn parse(url: &str, protocol: Protocol) -> Result<Target, HarnessError> {
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

    pub(super) fn protocol(&self) -> Protocol {
        self.protocol
    }

    fn is_local(&self) -> bool {
        !self.sources.is_empty()
    }

    /// Opens socket number `i`, from its source address when there are some.
    pub(super) async fn connect(&self, i: usize) -> Result<Socket, ClientError> {
        match self.sources.get(i % self.sources.len().max(1)) {
            Some(src) => Socket::connect_from(&self.ws_url, Codec::Json, *src).await,
            None => Socket::connect(&self.ws_url, Codec::Json).await,
        }
    }

    pub(super) async fn sign_up(&self, label: &str) -> Result<RestClient, HarnessError> {
        let email = format!("harness-{}@example.com", uuid::Uuid::now_v7().simple());
        let login = self.rest.sign_up(&email, PASSWORD, label).await?;
        Ok(self.rest.with_token(login.token))
    }

    /// The server's pid: given, or found from the port when it is local.
    pub(super) fn server_pid(&self, given: Option<u32>) -> Option<u32> {
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
pub(super) async fn authenticate(
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

pub(super) fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Holds one session: a heartbeat at each intended time, the ack's latency
/// measured from that time, until `end`.
async fn hold(
    mut sock: Socket,
    tt: Timetable,
    end: Instant,
) -> Result<(Latencies, SendLog, u64), HarnessError> {
    let mut lat = Latencies::new()?;
    let mut log = SendLog::default();
    let mut timeouts = 0;
    for i in 0..MAX_SENDS {
        let intended = tt.intended(i);
        if intended >= end {
            break;
        }
        tokio::time::sleep_until(tokio::time::Instant::from_std(intended)).await;
        log.note(intended, Instant::now());
        if sock.send(&Frame::heartbeat()).await.is_err() {
            timeouts += 1;
            break;
        }
        match sock.expect(FrameType::Heartbeat, ANSWER_TIMEOUT).await {
            Ok(_) => lat.record(intended.elapsed()),
            Err(_) => {
                timeouts += 1;
                break;
            }
        }
    }
    // The server may already have gone; the figures stand either way.
    let _ = sock.close().await;
    Ok((lat, log, timeouts))
}

pub(super) async fn idle(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
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

    // Spread the sessions' heartbeats evenly over one interval.
    let cpu = procfs::CpuWindow::start(pid);
    let hold_start = Instant::now();
    let end = hold_start + Duration::from_secs_f64(args.duration_secs);
    let interval = Duration::from_secs_f64(1.0 / rate);
    let mut set = tokio::task::JoinSet::new();
    for (i, sock) in sockets.into_iter().enumerate() {
        let phase = interval.mul_f64(i as f64 / authenticated.max(1) as f64);
        let tt = Timetable::new(hold_start + phase, rate)
            .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
        set.spawn(hold(sock, tt, end));
    }
    let mut lat = Latencies::new()?;
    let mut log = SendLog::default();
    let mut timeouts = 0;
    while let Some(joined) = set.join_next().await {
        let (l, s, t) = joined.map_err(|e| HarnessError::Setup(e.to_string()))??;
        lat.merge(&l)?;
        log.merge(&s);
        timeouts += t;
    }

    let mut extra = serde_json::Map::new();
    extra.insert("auth_all_ms".into(), json!(ms(auth_all)));
    extra.insert("auth_latency_ms".into(), json!(auth_lat.summary()));
    extra.insert("max_send_lateness_ms".into(), json!(ms(log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu.used()));
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
async fn task_body(rest: &RestClient) -> Result<impl Fn(u64) -> Value, HarnessError> {
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

/// The body of create `i`.
type BodyFn = Arc<dyn Fn(u64) -> Value + Send + Sync>;

enum Outcome {
    Accepted(String),
    Refused,
    Failed,
}

/// One create: its number (create `i` is sent as user `i % users`), its
/// intended time, its answer's latency, and the outcome.
type CreateAnswer = (u64, Instant, Duration, Outcome);

/// Creates tasks on a timetable over `users`; answers every send's
/// [`CreateAnswer`] (in completion order) and the sender's lateness.
async fn create_on_timetable(
    users: Vec<RestClient>,
    path: &'static str,
    body: Arc<dyn Fn(u64) -> Value + Send + Sync>,
    tt: Timetable,
    count: u64,
) -> Result<(Vec<CreateAnswer>, SendLog), HarnessError> {
    let sem = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let mut set = tokio::task::JoinSet::new();
    let mut log = SendLog::default();
    for i in 0..count.min(MAX_SENDS) {
        let intended = tt.intended(i);
        tokio::time::sleep_until(tokio::time::Instant::from_std(intended)).await;
        let permit = sem
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| HarnessError::Setup(e.to_string()))?;
        log.note(intended, Instant::now());
        let idx = usize::try_from(i).unwrap_or(0) % users.len().max(1);
        let Some(client) = users.get(idx).cloned() else {
            return Err(HarnessError::Setup("no users".into()));
        };
        let b = body(i);
        set.spawn(async move {
            let res = tokio::time::timeout(ANSWER_TIMEOUT, client.create_task(path, &b)).await;
            drop(permit);
            let outcome = match res {
                Ok(Ok(id)) => Outcome::Accepted(id),
                Ok(Err(e)) if e.status().is_some() => Outcome::Refused,
                _ => Outcome::Failed,
            };
            (i, intended, intended.elapsed(), outcome)
        });
    }
    let mut out = Vec::new();
    while let Some(j) = set.join_next().await {
        out.push(j.map_err(|e| HarnessError::Setup(e.to_string()))?);
    }
    Ok((out, log))
}

async fn sign_up_users(target: &Target, n: u64) -> Result<Vec<RestClient>, HarnessError> {
    let mut users = Vec::new();
    for i in 0..n.max(1) {
        users.push(target.sign_up(&format!("harness {i}")).await?);
    }
    Ok(users)
}

pub(super) async fn create(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    if args.protocol != Protocol::Easel {
        return Err(HarnessError::Setup(
            "create drives Easel's task API: it needs --protocol easel".into(),
        ));
    }
    let target = Target::parse(&args.target, args.protocol)?;
    let users = sign_up_users(&target, args.users).await?;
    let body = task_body(&target.rest).await?;
    let cpu = procfs::CpuWindow::start(target.server_pid(args.server_pid));
    let started = Instant::now();
    let tt = Timetable::new(started, rate)
        .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
    let count = tt.count_within(Duration::from_secs_f64(args.duration_secs));
    let (answers, log) =
        create_on_timetable(users, "/api/v1/task/create", Arc::new(body), tt, count).await?;
    let elapsed = started.elapsed();
    let mut lat = Latencies::new()?;
    let (mut accepted, mut refused, mut failed) = (0u64, 0u64, 0u64);
    for (_, _, took, outcome) in &answers {
        match outcome {
            Outcome::Accepted(_) => {
                accepted += 1;
                lat.record(*took);
            }
            Outcome::Refused => refused += 1,
            Outcome::Failed => failed += 1,
        }
    }
    let mut extra = serde_json::Map::new();
    extra.insert(
        "throughput_per_sec".into(),
        json!(accepted as f64 / elapsed.as_secs_f64().max(1e-9)),
    );
    extra.insert("max_send_lateness_ms".into(), json!(ms(log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu.used()));
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: args.users,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: elapsed.as_secs_f64(),
        counts: counts(&[
            ("sent", log.sent),
            ("accepted", accepted),
            ("refused", refused),
            ("failed", failed),
            ("late_sends", log.late),
        ]),
        latency_ms: lat.summary(),
        extra,
    })
}

/// One progress frame as the harness needs it.
#[derive(serde::Deserialize)]
struct Progress {
    id: String,
    status: u8,
    #[serde(default)]
    process: u8,
}

/// A baseline's progress frame: update `progress` of `max`.
#[derive(serde::Deserialize)]
struct BareProgress {
    id: String,
    progress: u64,
    max: u64,
}

impl Progress {
    /// Easel's task object, or a baseline's `{id, progress, max}` mapped
    /// onto it (running until the last update, which is the success).
    fn from_content(content: &Value) -> Option<Progress> {
        use serde::Deserialize;
        if let Ok(p) = Progress::deserialize(content) {
            return Some(p);
        }
        let b = BareProgress::deserialize(content).ok()?;
        let max = b.max.max(1);
        let pct = (b.progress.min(max) * 100 / max) as u8;
        Some(Progress {
            id: b.id,
            status: if b.progress >= max { 3 } else { 2 },
            process: pct,
        })
    }
}

/// The pacer's schedule as the server runs it (`EASEL_ENGINE=pacer`): a
/// progress frame for step `k` is due at the job's start + `k × step`.
#[derive(Debug, Clone, Copy)]
pub(super) struct PacerSchedule {
    pub(super) step: Duration,
    pub(super) steps: u32,
}

impl PacerSchedule {
    /// The step a progress percent stands for (`None` for a percent the
    /// pacer never reports).
    pub(super) fn step_of(&self, percent: u8) -> Option<u64> {
        (1..=self.steps.clamp(1, engines::pacer::MAX_STEPS))
            .find(|k| engines::pacer::step_percent(*k, self.steps) == percent)
            .map(u64::from)
    }
}

/// One progress frame received: by which socket, the frame, its push
/// stream `seq`, and when.
type Received = (usize, Progress, Instant);

/// Reads one socket until `stop`, forwarding progress frames, checking
/// every pushed frame's `seq` (Easel numbers them; a baseline does not),
/// and heartbeating once a second so the server keeps the session.
async fn read_progress(
    mut sock: Socket,
    idx: usize,
    confirmed: u64,
    tx: mpsc::UnboundedSender<Received>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> SeqCheck {
    let mut seqs = SeqCheck::after(confirmed);
    let mut beat = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            _ = beat.tick() => {
                if sock.send(&Frame::heartbeat()).await.is_err() {
                    break;
                }
            }
            got = sock.recv() => match got {
                Ok(Incoming::Frame(f)) => {
                    let at = Instant::now();
                    if let Some(s) = f.seq {
                        seqs.observe(s);
                    }
                    if f.kind != FrameType::TaskUpdate.as_u16() {
                        continue;
                    }
                    if let Some(p) = Progress::from_content(&f.content) {
                        if tx.send((idx, p, at)).is_err() {
                            break;
                        }
                    }
                }
                Ok(Incoming::Closed(_)) | Err(_) => break,
            }
        }
    }
    let _ = sock.close().await;
    seqs
}

/// The fan-out delays of the paced progress frames: per task, every
/// socket's frames aligned on one anchor (the same emission reaches all
/// of the owner's sockets), see [`aligned_delays`].
fn fanout_delays(
    points: &HashMap<String, Vec<(u64, Instant)>>,
    step: Duration,
) -> Result<(Latencies, Vec<Duration>), HarnessError> {
    let mut lat = Latencies::new()?;
    let mut slopes = Vec::new();
    for pts in points.values() {
        for d in aligned_delays(pts, step) {
            lat.record(d);
        }
        if let Some(s) = effective_interval(pts) {
            slopes.push(s);
        }
    }
    Ok((lat, slopes))
}

pub(super) async fn progress(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    let target = Target::parse(&args.target, args.protocol)?;
    // Against Easel: signed-up users create tasks. Against a baseline: the
    // client ids `bench-client-{i}` ask `POST /prompt` for `--updates`
    // frames at `--update-rate`, pushed to the socket that authenticated
    // with that id; task i belongs to client i % users, as with Easel.
    let (users, tokens, path, body): (Vec<RestClient>, Vec<String>, &'static str, BodyFn) =
        match args.protocol {
            Protocol::Easel => {
                let users = sign_up_users(&target, args.users).await?;
                let tokens = users
                    .iter()
                    .map(|u| u.token().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| HarnessError::Setup("sign-up gave no token".into()))?;
                let body = task_body(&target.rest).await?;
                (users, tokens, "/api/v1/task/create", Arc::new(body))
            }
            Protocol::Bare => {
                if !(args.update_rate.is_finite() && args.update_rate > 0.0) {
                    return Err(HarnessError::Setup("--update-rate must be positive".into()));
                }
                let n = args.users.max(1);
                let tokens: Vec<String> = (0..n).map(|i| format!("bench-client-{i}")).collect();
                let users = tokens.iter().map(|_| target.rest.clone()).collect();
                let (updates, rate) = (args.updates.max(1), args.update_rate);
                let body = move |i: u64| {
                    json!({"client_id": format!("bench-client-{}", i % n),
                           "updates": updates, "rate": rate})
                };
                (users, tokens, "/prompt", Arc::new(body))
            }
        };
    // A baseline's frames are paced by `--update-rate`; Easel's by the
    // pacer engine when the server runs it (`--pacer-step-ms`).
    let pacing = match args.protocol {
        Protocol::Bare => Some(PacerSchedule {
            step: Duration::from_secs_f64(1.0 / args.update_rate),
            steps: 0,
        }),
        Protocol::Easel => args.pacer_step_ms.map(|ms| PacerSchedule {
            step: Duration::from_millis(ms),
            steps: args.pacer_steps,
        }),
    };
    // Each user's sockets: its own, then `--watchers` more of the same
    // account; every one of them must receive every frame of its tasks.
    let per_user = 1 + usize::try_from(args.watchers).unwrap_or(0);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut readers = tokio::task::JoinSet::new();
    for (u, token) in tokens.iter().enumerate() {
        for w in 0..per_user {
            let idx = u * per_user + w;
            let mut sock = target.connect(idx).await?;
            let confirmed = match args.protocol {
                Protocol::Easel => sock.authenticate(token).await?.seq,
                Protocol::Bare => {
                    authenticate(&mut sock, token, args.protocol).await?;
                    0
                }
            };
            readers.spawn(read_progress(
                sock,
                idx,
                confirmed,
                tx.clone(),
                stop_rx.clone(),
            ));
        }
    }
    drop(tx);
    let n_users = tokens.len().max(1);
    let mut trackers: Vec<ProgressTracker> = (0..n_users * per_user)
        .map(|_| ProgressTracker::new())
        .collect();

    let cpu = procfs::CpuWindow::start(target.server_pid(args.server_pid));
    let started = Instant::now();
    let tt = Timetable::new(started, rate)
        .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
    let deadline = started + Duration::from_secs_f64(args.duration_secs);
    let mut creator = tokio::spawn(create_on_timetable(users, path, body, tt, args.tasks));
    let mut created: Option<Vec<CreateAnswer>> = None;
    let mut send_log = SendLog::default();
    // Per task: (step, receipt) of every paced frame on every socket.
    let mut paced: HashMap<String, Vec<(u64, Instant)>> = HashMap::new();
    // Per task: the running frames seen so far on each socket (a
    // baseline's steps are its frame numbers).
    let mut ordinal: HashMap<(usize, String), u64> = HashMap::new();
    loop {
        if created.is_some() && trackers.iter().all(ProgressTracker::all_ended) {
            break;
        }
        tokio::select! {
            got = rx.recv() => match got {
                Some((idx, p, at)) => {
                    if let (Some(s), 2) = (pacing, p.status) {
                        let k = if s.steps == 0 {
                            let n = ordinal.entry((idx, p.id.clone())).or_insert(0);
                            *n += 1;
                            Some(*n)
                        } else {
                            s.step_of(p.process)
                        };
                        if let Some(k) = k {
                            paced.entry(p.id.clone()).or_default().push((k, at));
                        }
                    }
                    if let Some(t) = trackers.get_mut(idx) {
                        t.observe(&p.id, p.status, p.process, at);
                    }
                }
                None => break,
            },
            joined = &mut creator, if created.is_none() => {
                let (answers, log) = joined.map_err(|e| HarnessError::Setup(e.to_string()))??;
                for (i, _, _, o) in &answers {
                    if let Outcome::Accepted(id) = o {
                        let u = user_of(*i, n_users);
                        for w in 0..per_user {
                            if let Some(t) = trackers.get_mut(u * per_user + w) {
                                t.expect(id);
                            }
                        }
                    }
                }
                send_log = log;
                created = Some(answers);
            }
            _ = tokio::time::sleep_until(tokio::time::Instant::from_std(deadline)) => break,
        }
    }
    creator.abort();
    let elapsed = started.elapsed();
    let cpu_used = cpu.used();
    let _ = stop_tx.send(true);
    let mut seqs = SeqCheck::default();
    while let Some(j) = readers.join_next().await {
        seqs.merge(&j.map_err(|e| HarnessError::Setup(e.to_string()))?);
    }
    let answers = created.unwrap_or_default();
    let mut lat = Latencies::new()?;
    let (mut accepted, mut refused, mut failed) = (0u64, 0u64, 0u64);
    for (i, intended, _, o) in &answers {
        match o {
            Outcome::Accepted(id) => {
                accepted += 1;
                // Measured on the owner's own socket.
                let u = user_of(*i, n_users);
                if let Some(end) = trackers.get(u * per_user).and_then(|t| t.ended_at(id)) {
                    lat.record(end.saturating_duration_since(*intended));
                }
            }
            Outcome::Refused => refused += 1,
            Outcome::Failed => failed += 1,
        }
    }
    let mut c = ProgressCounts::default();
    for t in &trackers {
        let x = t.counts();
        c.tasks += x.tasks;
        c.frames += x.frames;
        c.out_of_order += x.out_of_order;
        c.succeeded += x.succeeded;
        c.failed += x.failed;
        c.lost += x.lost;
        c.foreign_frames += x.foreign_frames;
    }
    let mut extra = serde_json::Map::new();
    extra.insert(
        "frames_per_sec".into(),
        json!(c.frames as f64 / elapsed.as_secs_f64().max(1e-9)),
    );
    if let Some(s) = pacing {
        let (delays, slopes) = fanout_delays(&paced, s.step)?;
        extra.insert("pace_interval_ms".into(), json!(ms(s.step)));
        extra.insert("fanout_delay_ms".into(), json!(delays.summary()));
        extra.insert(
            "effective_interval_ms".into(),
            json!(median(slopes).map(ms)),
        );
    }
    extra.insert("watchers".into(), json!(args.watchers));
    extra.insert("max_send_lateness_ms".into(), json!(ms(send_log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu_used));
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: (n_users * per_user) as u64,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: elapsed.as_secs_f64(),
        counts: counts(&[
            ("created", accepted),
            ("refused", refused),
            ("failed_creates", failed),
            ("sockets", (n_users * per_user) as u64),
            ("frames", c.frames),
            ("out_of_order", c.out_of_order),
            ("succeeded", c.succeeded),
            ("failed_tasks", c.failed),
            ("lost", c.lost),
            ("seq_gaps", seqs.gaps),
            ("seq_out_of_order", seqs.out_of_order),
            ("foreign_frames", c.foreign_frames),
        ]),
        latency_ms: lat.summary(),
        extra,
    })
}

/// The user that sent create `i` (see [`create_on_timetable`]).
fn user_of(i: u64, users: usize) -> usize {
    usize::try_from(i).unwrap_or(0) % users.max(1)
}
