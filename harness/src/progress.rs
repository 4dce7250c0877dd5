//! The `progress` scenario (and soak's progress part): tasks created on a
//! timetable by a few users whose sockets (plus `--watchers` more per
//! user) count the progress frames (type 10) of every task.
//!
//! The run has two phases. While the load window (`--duration-secs`)
//! lasts, creates go out on the timetable and each answer reaches the
//! collector as it arrives ([`ProgressBook::answer`]), so a task is known
//! as ours the moment its create answers (frames that came first are
//! already counted by its tracker). At the deadline the sender stops; the
//! collector then drains, reading until every accepted task has ended on
//! every socket of its user, or until [`drain_window`] has passed: a task
//! not ended by then is lost.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::client::{RestClient, Socket};
use protocol::frame::{Frame, FrameType};
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

use crate::creates::{create_on_timetable, user_of, BodyFn, CreateAnswer, CreatePlan, CreateTally};
use crate::pacing::{aligned_delays, effective_interval, median, SeqCheck};
use crate::procfs;
use crate::reader::{read_frames, Beat, Flow, Receipt};
use crate::scenarios::{
    authenticate, counts, ms, sign_up_users, task_body, Target, ANSWER_TIMEOUT,
};
use crate::stats::Latencies;
use crate::timetable::{SendLog, Timetable};
use crate::tracker::{ProgressCounts, ProgressTracker};
use crate::{HarnessArgs, HarnessError, Protocol, Report};

/// How often a progress socket heartbeats.
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
/// Time past a task's own paced length that its last frame may take to
/// arrive (queueing on the server's workers, the bus, the socket).
const DRAIN_SLACK: Duration = Duration::from_secs(5);
/// The drain when the tasks' length is unknown (Easel with a real engine).
const DRAIN_UNPACED: Duration = Duration::from_secs(60);

/// One progress frame as the harness needs it.
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct Progress {
    pub(crate) id: String,
    pub(crate) status: u8,
    #[serde(default)]
    pub(crate) process: u8,
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
/// `steps == 0` stands for a baseline, whose steps are its frame numbers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PacerSchedule {
    pub(crate) step: Duration,
    pub(crate) steps: u32,
}

impl PacerSchedule {
    /// The step a progress percent stands for (`None` for a percent the
    /// pacer never reports).
    pub(crate) fn step_of(&self, percent: u8) -> Option<u64> {
        (1..=self.steps.clamp(1, engines::pacer::MAX_STEPS))
            .find(|k| engines::pacer::step_percent(*k, self.steps) == percent)
            .map(u64::from)
    }
}

/// How long the collector keeps reading after the sender has stopped: one
/// task's paced length (the last accepted task started no earlier) plus
/// [`DRAIN_SLACK`]; [`DRAIN_UNPACED`] when the length is unknown. At most
/// the unpaced bound either way.
pub(crate) fn drain_window(pacing: Option<PacerSchedule>, updates: u64) -> Duration {
    let Some(s) = pacing else {
        return DRAIN_UNPACED;
    };
    let steps = if s.steps == 0 {
        updates
    } else {
        u64::from(s.steps)
    };
    let span = s.step.mul_f64(steps as f64);
    (span + DRAIN_SLACK).min(DRAIN_UNPACED)
}

/// One progress frame received: by which socket, the frame, when, and how
/// long after the server emitted it (when the frame says).
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) socket: usize,
    pub(crate) progress: Progress,
    pub(crate) at: Instant,
    pub(crate) since_emit: Option<Duration>,
}

/// Reads one socket until `stop`, forwarding progress frames and checking
/// every pushed frame's `seq` (Easel numbers them; a baseline does not).
async fn read_progress(
    sock: Socket,
    beat: Beat,
    mut seqs: SeqCheck,
    tx: mpsc::UnboundedSender<Received>,
    stop: watch::Receiver<bool>,
) -> SeqCheck {
    let socket = beat.index;
    read_frames(sock, beat, stop, |f: Frame, r: Receipt| {
        if let Some(s) = f.seq {
            seqs.observe(s);
        }
        if f.kind != FrameType::TaskUpdate.as_u16() {
            return Flow::Continue;
        }
        match Progress::from_content(&f.content) {
            Some(progress) => match tx.send(Received {
                socket,
                progress,
                at: r.at,
                since_emit: r.since_emit,
            }) {
                Ok(()) => Flow::Continue,
                Err(_) => Flow::Stop,
            },
            None => Flow::Continue,
        }
    })
    .await;
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

/// The progress run's accounting, fed frames and create answers in
/// whatever order they arrive. Socket `u × per_user + w` is socket `w` of
/// user `u`; every one of a user's sockets must see all its tasks end.
pub(crate) struct ProgressBook {
    trackers: Vec<ProgressTracker>,
    per_user: usize,
    n_users: usize,
    pacing: Option<PacerSchedule>,
    /// Per task: (step, receipt) of every paced frame on every socket.
    paced: HashMap<String, Vec<(u64, Instant)>>,
    /// Per socket and task: the running frames seen so far (a baseline's
    /// steps are its frame numbers).
    ordinal: HashMap<(usize, String), u64>,
    answers: Vec<CreateAnswer>,
    tally: CreateTally,
    /// Every progress frame's emission (the server's `ts`) to its receipt.
    emit_to_receipt: Latencies,
}

/// What a finished [`ProgressBook`] reports.
pub(crate) struct ProgressFigures {
    pub(crate) tally: CreateTally,
    pub(crate) counts: ProgressCounts,
    /// Create's intended time to the final frame on the owner's own socket.
    pub(crate) create_to_final: Latencies,
    pub(crate) fanout: Option<(Latencies, Vec<Duration>)>,
    /// Measured fan-out, when the frames carry the server's `ts`.
    pub(crate) emit_to_receipt: Latencies,
}

impl ProgressBook {
    pub(crate) fn new(
        n_users: usize,
        per_user: usize,
        pacing: Option<PacerSchedule>,
    ) -> Result<Self, HarnessError> {
        let n_users = n_users.max(1);
        let per_user = per_user.max(1);
        Ok(ProgressBook {
            trackers: (0..n_users * per_user)
                .map(|_| ProgressTracker::new())
                .collect(),
            per_user,
            n_users,
            pacing,
            paced: HashMap::new(),
            ordinal: HashMap::new(),
            answers: Vec::new(),
            tally: CreateTally::default(),
            emit_to_receipt: Latencies::new()?,
        })
    }

    pub(crate) fn frame(&mut self, r: Received) {
        if let Some(d) = r.since_emit {
            self.emit_to_receipt.record(d);
        }
        let p = &r.progress;
        if let (Some(s), 2) = (self.pacing, p.status) {
            let k = if s.steps == 0 {
                let n = self.ordinal.entry((r.socket, p.id.clone())).or_insert(0);
                *n += 1;
                Some(*n)
            } else {
                s.step_of(p.process)
            };
            if let Some(k) = k {
                self.paced.entry(p.id.clone()).or_default().push((k, r.at));
            }
        }
        if let Some(t) = self.trackers.get_mut(r.socket) {
            t.observe(&p.id, p.status, p.process, r.at);
        }
    }

    /// A create answered: an accepted task becomes ours on every socket of
    /// its user (frames already seen for it count from then on).
    pub(crate) fn answer(&mut self, a: CreateAnswer) {
        self.tally.add(&a.outcome);
        if let crate::creates::Outcome::Accepted(id) = &a.outcome {
            let u = user_of(a.i, self.n_users);
            for w in 0..self.per_user {
                if let Some(t) = self.trackers.get_mut(u * self.per_user + w) {
                    t.expect(id);
                }
            }
        }
        self.answers.push(a);
    }

    /// Every accepted task has ended on every socket of its user.
    pub(crate) fn all_ended(&self) -> bool {
        self.trackers.iter().all(ProgressTracker::all_ended)
    }

    pub(crate) fn finish(self) -> Result<ProgressFigures, HarnessError> {
        let mut create_to_final = Latencies::new()?;
        for a in &self.answers {
            if let crate::creates::Outcome::Accepted(id) = &a.outcome {
                let owner = user_of(a.i, self.n_users) * self.per_user;
                if let Some(end) = self.trackers.get(owner).and_then(|t| t.ended_at(id)) {
                    create_to_final.record(end.saturating_duration_since(a.intended));
                }
            }
        }
        let mut c = ProgressCounts::default();
        for t in &self.trackers {
            let x = t.counts();
            c.tasks += x.tasks;
            c.frames += x.frames;
            c.out_of_order += x.out_of_order;
            c.succeeded += x.succeeded;
            c.failed += x.failed;
            c.lost += x.lost;
            c.foreign_frames += x.foreign_frames;
        }
        let fanout = match self.pacing {
            Some(s) => Some(fanout_delays(&self.paced, s.step)?),
            None => None,
        };
        Ok(ProgressFigures {
            tally: self.tally,
            counts: c,
            create_to_final,
            fanout,
            emit_to_receipt: self.emit_to_receipt,
        })
    }
}

/// Who creates the tasks and how: the REST clients (one per user), each
/// user's socket token, the create path and the body of create `i`.
type Creators = (Vec<RestClient>, Vec<String>, &'static str, BodyFn);

async fn creators(target: &Target, args: &HarnessArgs) -> Result<Creators, HarnessError> {
    // Against Easel: signed-up users create tasks. Against a baseline: the
    // client ids `bench-client-{i}` ask `POST /prompt` for `--updates`
    // frames at `--update-rate`, pushed to the socket that authenticated
    // with that id; task i belongs to client i % users, as with Easel.
    match args.protocol {
        Protocol::Easel => {
            let users = sign_up_users(target, args.users).await?;
            let tokens = users
                .iter()
                .map(|u| u.token().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| HarnessError::Setup("sign-up gave no token".into()))?;
            let body = task_body(&target.rest).await?;
            Ok((users, tokens, "/api/v1/task/create", Arc::new(body)))
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
            Ok((users, tokens, "/prompt", Arc::new(body)))
        }
    }
}

pub(crate) async fn progress(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    let target = Target::parse(&args.target, args.protocol)?;
    let (users, tokens, path, body) = creators(&target, args).await?;
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
    let n_users = tokens.len().max(1);
    let n_sockets = n_users * per_user;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut readers = tokio::task::JoinSet::new();
    for (u, token) in tokens.iter().enumerate() {
        for w in 0..per_user {
            let idx = u * per_user + w;
            let mut sock = target.connect(idx).await?;
            let confirmed = match args.protocol {
                Protocol::Easel => {
                    let c = sock.authenticate(token).await?;
                    SeqCheck::confirmed(c.seq, &c.stream)
                }
                Protocol::Bare => {
                    authenticate(&mut sock, token, args.protocol).await?;
                    SeqCheck::default()
                }
            };
            let beat = Beat {
                index: idx,
                of: n_sockets,
                every: HEARTBEAT_EVERY,
            };
            readers.spawn(read_progress(
                sock,
                beat,
                confirmed,
                tx.clone(),
                stop_rx.clone(),
            ));
        }
    }
    drop(tx);
    let mut book = ProgressBook::new(n_users, per_user, pacing)?;

    let cpu = procfs::CpuWindow::start(target.server_pid(args.server_pid)).with(&args.also_pid);
    let started = Instant::now();
    let tt = Timetable::new(started, rate)
        .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
    let deadline = started + Duration::from_secs_f64(args.duration_secs);
    let drain = drain_window(pacing, args.updates.max(1));
    let plan = CreatePlan {
        path,
        body,
        tt,
        count: args.tasks,
        until: deadline,
    };
    let (atx, mut arx) = mpsc::unbounded_channel();
    let mut creator = tokio::spawn(create_on_timetable(users, plan, atx));
    let mut sender: Option<(SendLog, u64)> = None;
    let mut answers_open = true;
    // The sender stops sending at the deadline and has every answer within
    // ANSWER_TIMEOUT after it; the drain follows the sender.
    let mut drain_until = deadline + ANSWER_TIMEOUT + drain;
    loop {
        if sender.is_some() && !answers_open && book.all_ended() {
            break;
        }
        tokio::select! {
            got = rx.recv() => match got {
                Some(r) => book.frame(r),
                None => break,
            },
            a = arx.recv(), if answers_open => match a {
                Some(a) => book.answer(a),
                None => answers_open = false,
            },
            joined = &mut creator, if sender.is_none() => {
                sender = Some(joined.map_err(|e| HarnessError::Setup(e.to_string()))??);
                drain_until = drain_until.min(Instant::now().max(deadline) + drain);
            }
            _ = tokio::time::sleep_until(tokio::time::Instant::from_std(drain_until)) => break,
        }
    }
    creator.abort();
    // Answers that came in with the last frames.
    while let Ok(a) = arx.try_recv() {
        book.answer(a);
    }
    let elapsed = started.elapsed();
    let cpu_used = cpu.used();
    let _ = stop_tx.send(true);
    let mut seqs = SeqCheck::default();
    while let Some(j) = readers.join_next().await {
        seqs.merge(&j.map_err(|e| HarnessError::Setup(e.to_string()))?);
    }
    let (send_log, unsent) = sender.unwrap_or_default();
    let f = book.finish()?;
    let c = f.counts;
    let mut extra = serde_json::Map::new();
    extra.insert(
        "frames_per_sec".into(),
        json!(c.frames as f64 / elapsed.as_secs_f64().max(1e-9)),
    );
    if let (Some(s), Some((delays, slopes))) = (pacing, &f.fanout) {
        extra.insert("pace_interval_ms".into(), json!(ms(s.step)));
        extra.insert("fanout_delay_ms".into(), json!(delays.summary()));
        extra.insert(
            "effective_interval_ms".into(),
            json!(median(slopes.clone()).map(ms)),
        );
    }
    // Measured, when the frames carry the server's emission time.
    extra.insert(
        "emit_to_receipt_ms".into(),
        json!(f.emit_to_receipt.summary()),
    );
    extra.insert("watchers".into(), json!(args.watchers));
    extra.insert("drain_window_ms".into(), json!(ms(drain)));
    extra.insert("max_send_lateness_ms".into(), json!(ms(send_log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu_used));
    if let Some(code) = f.tally.first_other_code {
        extra.insert("first_refusal_code".into(), json!(code));
    }
    let t = f.tally;
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: n_sockets as u64,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: elapsed.as_secs_f64(),
        counts: counts(&[
            ("created", t.accepted),
            ("refused", t.refused()),
            ("refused_rate_limited", t.rate_limited),
            ("refused_no_credits", t.no_credits),
            ("failed_creates", t.unanswered()),
            ("unsent_creates", unsent),
            ("sockets", n_sockets as u64),
            ("frames", c.frames),
            ("out_of_order", c.out_of_order),
            ("succeeded", c.succeeded),
            ("failed_tasks", c.failed),
            ("lost", c.lost),
            ("seq_gaps", seqs.gaps),
            ("seq_out_of_order", seqs.out_of_order),
            ("foreign_frames", c.foreign_frames),
        ]),
        latency_ms: f.create_to_final.summary(),
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::creates::Outcome;

    fn answer(i: u64, at: Instant, outcome: Outcome) -> CreateAnswer {
        CreateAnswer {
            i,
            intended: at,
            took: Duration::from_millis(2),
            outcome,
        }
    }

    fn frame(socket: usize, id: &str, status: u8, process: u8, at: Instant) -> Received {
        Received {
            socket,
            progress: Progress {
                id: id.into(),
                status,
                process,
            },
            at,
            since_emit: None,
        }
    }

    #[test]
    fn answers_streamed_between_frames_make_tasks_ours_and_unended_ones_lost() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        // Two users with one watcher each: sockets 0, 1 (user 0) and 2, 3 (user 1).
        let mut book = ProgressBook::new(2, 2, None).unwrap();
        // Task "a" (create 0, user 0): its first frames arrive before its answer.
        book.frame(frame(0, "a", 2, 50, t0 + ms(5)));
        book.frame(frame(1, "a", 2, 50, t0 + ms(5)));
        book.answer(answer(0, t0, Outcome::Accepted("a".into())));
        assert!(!book.all_ended());
        book.frame(frame(0, "a", 3, 100, t0 + ms(40)));
        book.frame(frame(1, "a", 3, 100, t0 + ms(41)));
        assert!(book.all_ended(), "a ended on both of user 0's sockets");
        // Create 1 (user 1) is refused by the limit; create 2 (user 0)
        // accepted as "b", which ends on the owner's socket but not on the
        // watcher's; create 3 (user 1) accepted as "c", never a frame.
        book.answer(answer(1, t0, Outcome::RateLimited));
        book.answer(answer(2, t0 + ms(10), Outcome::Accepted("b".into())));
        book.frame(frame(0, "b", 3, 100, t0 + ms(60)));
        book.answer(answer(3, t0 + ms(20), Outcome::Accepted("c".into())));
        // A frame of a task this run did not create.
        book.frame(frame(2, "zzz", 2, 10, t0 + ms(70)));
        assert!(!book.all_ended());
        let f = book.finish().unwrap();
        assert_eq!(f.tally.accepted, 3);
        assert_eq!(f.tally.rate_limited, 1);
        // Tasks counted per socket: a ×2, b ×2, c ×2.
        assert_eq!(f.counts.tasks, 6);
        assert_eq!(f.counts.frames, 5);
        // b on the watcher, c on both of user 1's sockets.
        assert_eq!(f.counts.lost, 3);
        assert_eq!(f.counts.succeeded, 3);
        assert_eq!(f.counts.foreign_frames, 1);
        // create→final on the owner's socket: a 40 ms, b 50 ms; c never ended.
        let s = f.create_to_final.summary();
        assert_eq!(s.count, 2);
        assert!((s.max - 50.0).abs() < 0.1, "{s:?}");
        // No frame carried a server time: no measured fan-out.
        assert_eq!(f.emit_to_receipt.count(), 0);
    }

    #[test]
    fn frames_with_a_server_time_give_the_measured_fanout() {
        let t0 = Instant::now();
        let mut book = ProgressBook::new(1, 1, None).unwrap();
        book.answer(answer(0, t0, Outcome::Accepted("a".into())));
        for (us, status) in [(800, 2), (1_200, 2), (9_000, 3)] {
            let mut r = frame(0, "a", status, 50, t0);
            r.since_emit = Some(Duration::from_micros(us));
            book.frame(r);
        }
        // A frame without one (a baseline's) is not counted.
        book.frame(frame(0, "a", 3, 100, t0));
        let s = book.finish().unwrap().emit_to_receipt.summary();
        assert_eq!(s.count, 3);
        assert!(
            (s.p50 - 1.2).abs() < 0.01 && (s.max - 9.0).abs() < 0.01,
            "{s:?}"
        );
    }

    #[test]
    fn a_baseline_numbers_its_frames_per_socket_for_the_fanout() {
        let t0 = Instant::now();
        let step = Duration::from_millis(100);
        let mut book = ProgressBook::new(1, 2, Some(PacerSchedule { step, steps: 0 })).unwrap();
        book.answer(answer(0, t0, Outcome::Accepted("a".into())));
        for k in 1..=3u32 {
            // Socket 1 receives every frame 3 ms after socket 0.
            book.frame(frame(0, "a", 2, 0, t0 + step * k));
            book.frame(frame(
                1,
                "a",
                2,
                0,
                t0 + step * k + Duration::from_millis(3),
            ));
        }
        let f = book.finish().unwrap();
        let (delays, slopes) = f.fanout.unwrap();
        let s = delays.summary();
        assert_eq!(s.count, 6);
        assert!((s.max - 3.0).abs() < 0.01, "{s:?}");
        assert_eq!(slopes.len(), 1);
    }

    #[test]
    fn the_drain_covers_one_paced_task_and_is_bounded() {
        let pacer = |ms, steps| {
            Some(PacerSchedule {
                step: Duration::from_millis(ms),
                steps,
            })
        };
        // Easel's pacer: 20 steps of 100 ms, plus the slack.
        assert_eq!(drain_window(pacer(100, 20), 99), Duration::from_secs(7));
        // A baseline: --updates frames at the step.
        assert_eq!(drain_window(pacer(100, 0), 30), Duration::from_secs(8));
        // Unknown length, or a very long one: the fixed bound.
        assert_eq!(drain_window(None, 20), DRAIN_UNPACED);
        assert_eq!(drain_window(pacer(10_000, 100), 1), DRAIN_UNPACED);
    }

    #[test]
    fn progress_content_of_easel_and_of_a_baseline() {
        let e = Progress::from_content(&json!({"id": "t", "status": 2, "process": 45})).unwrap();
        assert_eq!((e.id.as_str(), e.status, e.process), ("t", 2, 45));
        let b = Progress::from_content(&json!({"id": "t", "progress": 5, "max": 20})).unwrap();
        assert_eq!((b.status, b.process), (2, 25));
        let end = Progress::from_content(&json!({"id": "t", "progress": 20, "max": 20})).unwrap();
        assert_eq!((end.status, end.process), (3, 100));
        assert!(Progress::from_content(&json!({"text": "x"})).is_none());
    }
}
