//! The `chat` scenario: C chat sessions, spread over enough signed-up
//! accounts to stay under Easel's per-account model-call limit, each account
//! with a character it published (`/api/v1/tavern-pro/publish`) and its
//! sessions (`/api/v1/character/session/create`). Messages go out on a fixed
//! timetable (`session/chat/start`, rotating over the sessions) and every
//! frame 11 is read on the owner's socket.
//!
//! The server must run the scripted model (`EASEL_LLM=scripted`), which
//! answers "You said: {message}" one word per delta, sleeping
//! `EASEL_LLM_SCRIPTED_INTERVAL_MS` before each; `--token-interval-ms` must
//! be that value. Token `k` of a reply is then intended at `start + k ×
//! interval`, and its *added latency* is its receipt minus that time.
//!
//! How `start` is estimated, and the bias: `start` is the chat/start
//! call's intended send time. The model's clock really starts later, when
//! the server has stored the user message and the reply row and begun the
//! stream, so the figure includes that start-up (the answer's latency is
//! reported beside it as `start_answer_ms`). The scripted model also sleeps
//! one interval after another, so timer rounding (tokio's timer has 1 ms
//! granularity and rounds up) and the server's work per delta accumulate
//! over a reply: `effective_interval_ms` (the least-squares slope of receipt
//! over `k`) shows by how much. Both biases make the added latency an upper
//! bound. `jitter_ms` is the other bound: each token's delay above the
//! reply's best-aligned token ([`aligned_delays`]), which excludes the
//! start-up and the fixed transit; `jitter_detrended_ms` aligns on the
//! reply's effective interval instead, so the accumulated drift drops out
//! too and what is left is the delivery's own unevenness.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::character::IdAnswer;
use protocol::chat::{ChatDelta, ChatStarted, SessionCreated};
use protocol::client::{RestClient, Socket};
use protocol::frame::FrameType;
use protocol::ErrorCode;
use serde_json::json;
use tokio::sync::{mpsc, watch};

use crate::channel::sign_up_many;
use crate::pacing::{
    aligned_delays, effective_interval, latency_from_intended, median, ReplyCheck, ReplyTrack,
    SeqCheck,
};
use crate::procfs::CpuWindow;
use crate::reader::{read_frames, Beat, Flow, Receipt};
use crate::scenarios::{counts, ms, Target, ANSWER_TIMEOUT, MAX_IN_FLIGHT, MAX_SENDS};
use crate::stats::Latencies;
use crate::timetable::{SendLog, Timetable};
use crate::{HarnessArgs, HarnessError, Protocol, Report};

/// Model calls the harness lets one account make per minute: two thirds of
/// Easel's fixed-window limit, so window edges never refuse a send.
const CALLS_PER_ACCOUNT_MINUTE: f64 = protocol::chat::MODEL_CALLS_PER_MINUTE as f64 * 2.0 / 3.0;
/// How often an account's socket heartbeats.
const HEARTBEAT_EVERY: Duration = Duration::from_secs(10);
/// Deltas of the scripted reply before the message's words ("You", " said:").
const REPLY_PREFIX_TOKENS: u64 = 2;

/// The text of message `i`: `words` words, the first naming the message.
pub fn message_content(i: u64, words: u64) -> String {
    let mut s = format!("m{i}");
    for _ in 1..words.max(1) {
        s.push_str(" w");
    }
    s
}

/// Accounts needed so that none makes more than [`CALLS_PER_ACCOUNT_MINUTE`]
/// calls at `rate` chat/starts per second over `chats` sessions (session `s`
/// belongs to account `s % accounts`); at least `min` and at most `chats`.
/// An error when one session alone would exceed the budget.
pub fn accounts_needed(rate: f64, chats: u64, min: u64) -> Result<u64, String> {
    let chats = chats.max(1);
    let per_session_minute = rate * 60.0 / chats as f64;
    if per_session_minute > CALLS_PER_ACCOUNT_MINUTE {
        return Err(format!(
            "--rate {rate} over {chats} chats is {per_session_minute:.1} messages a minute per \
             session, over the {CALLS_PER_ACCOUNT_MINUTE} a minute one account may send: \
             add --chats or lower --rate"
        ));
    }
    let sessions_per_account = (CALLS_PER_ACCOUNT_MINUTE / per_session_minute)
        .floor()
        .max(1.0);
    let needed = (chats as f64 / sessions_per_account).ceil() as u64;
    Ok(needed.max(min).clamp(1, chats))
}

/// One frame 11 as the collector needs it.
struct Got {
    msg_id: String,
    seq: u64,
    done: bool,
    at: Instant,
    /// The server's emission (`ts`) to this receipt, when stamped.
    since_emit: Option<Duration>,
}

/// Reads one account's socket until `stop`: frames 11 to the collector,
/// every pushed frame's `seq` into a [`SeqCheck`].
async fn read_chat(
    sock: Socket,
    beat: Beat,
    mut seqs: SeqCheck,
    tx: mpsc::UnboundedSender<Got>,
    stop: watch::Receiver<bool>,
) -> (SeqCheck, u64) {
    let mut undecodable = 0;
    read_frames(sock, beat, stop, |f, r: Receipt| {
        if let Some(s) = f.seq {
            seqs.observe(s);
        }
        if f.kind != FrameType::ChatStream.as_u16() {
            return Flow::Continue;
        }
        match serde_json::from_value::<ChatDelta>(f.content) {
            Ok(d) => {
                let g = Got {
                    msg_id: d.msg_id,
                    seq: d.seq,
                    done: d.done,
                    at: r.at,
                    since_emit: r.since_emit,
                };
                match tx.send(g) {
                    Ok(()) => Flow::Continue,
                    Err(_) => Flow::Stop,
                }
            }
            Err(_) => {
                undecodable += 1;
                Flow::Continue
            }
        }
    })
    .await;
    (seqs, undecodable)
}

enum Started {
    Accepted(String),
    /// A reply still running in that session (ChatReplyRunning).
    Busy,
    /// Over the per-account limit (TooManyRequests).
    Limited,
    Refused,
    Failed,
}

/// The chat/starts of the run: `(message, intended time, answer latency, outcome)`.
type Starts = Vec<(u64, Instant, Duration, Started)>;

async fn send_on_timetable(
    sessions: Vec<(RestClient, String)>,
    tt: Timetable,
    count: u64,
    words: u64,
) -> Result<(Starts, SendLog), HarnessError> {
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
        let idx = usize::try_from(i).unwrap_or(0) % sessions.len().max(1);
        let Some((client, session_id)) = sessions.get(idx).cloned() else {
            return Err(HarnessError::Setup("no sessions".into()));
        };
        set.spawn(async move {
            let body = json!({"session_id": session_id, "content": message_content(i, words)});
            let res = tokio::time::timeout(
                ANSWER_TIMEOUT,
                client.post::<_, ChatStarted>("/api/v1/character/session/chat/start", &body),
            )
            .await;
            drop(permit);
            let code = |e: &protocol::client::ClientError| e.status().map(|s| s.code);
            let outcome = match res {
                Ok(Ok(s)) => Started::Accepted(s.msg_id),
                Ok(Err(e)) if code(&e) == Some(ErrorCode::ChatReplyRunning.code()) => Started::Busy,
                Ok(Err(e)) if code(&e) == Some(ErrorCode::TooManyRequests.code()) => {
                    Started::Limited
                }
                Ok(Err(e)) if e.status().is_some() => Started::Refused,
                _ => Started::Failed,
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

/// Signs up the accounts, publishes one character each, creates the
/// sessions (session `s` on account `s % accounts`).
async fn set_up(
    target: &Target,
    accounts: u64,
    chats: u64,
) -> Result<(Vec<RestClient>, Vec<(RestClient, String)>), HarnessError> {
    let users = sign_up_many(target, accounts, "harness chat").await?;
    let mut characters = Vec::new();
    for (i, u) in users.iter().enumerate() {
        let body = json!({"name": format!("Harness bot {i}"), "greeting": "Hello.",
                          "persona": "A load-test character.", "published": true});
        let made: IdAnswer = u.post("/api/v1/tavern-pro/publish", &body).await?;
        characters.push(made.id);
    }
    let mut sessions = Vec::new();
    for s in 0..chats {
        let a = usize::try_from(s % accounts.max(1)).unwrap_or(0);
        let (Some(u), Some(c)) = (users.get(a), characters.get(a)) else {
            return Err(HarnessError::Setup("account index out of range".into()));
        };
        let made: SessionCreated = u
            .post(
                "/api/v1/character/session/create",
                &json!({ "character_id": c }),
            )
            .await?;
        sessions.push((u.clone(), made.session_id));
    }
    Ok((users, sessions))
}

pub(crate) async fn chat(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    if args.protocol != Protocol::Easel {
        return Err(HarnessError::Setup(
            "chat drives Easel's chat API: it needs --protocol easel".into(),
        ));
    }
    if !(rate.is_finite() && rate > 0.0) {
        return Err(HarnessError::Setup("--rate must be positive".into()));
    }
    let target = Target::parse(&args.target, args.protocol)?;
    let chats = args.chats.max(1);
    let words = args.reply_words.clamp(1, 1000);
    let expected_tokens = words + REPLY_PREFIX_TOKENS;
    let interval = Duration::from_millis(args.token_interval_ms);
    let accounts =
        accounts_needed(rate, chats, args.users.min(chats)).map_err(HarnessError::Setup)?;
    let (users, sessions) = set_up(&target, accounts, chats).await?;

    let (tx, mut rx) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut readers = tokio::task::JoinSet::new();
    for (i, u) in users.iter().enumerate() {
        let token = u
            .token()
            .ok_or_else(|| HarnessError::Setup("sign-up gave no token".into()))?;
        let mut sock = target.connect(i).await?;
        let confirm = sock.authenticate(token).await?;
        let beat = Beat {
            index: i,
            of: users.len(),
            every: HEARTBEAT_EVERY,
        };
        readers.spawn(read_chat(
            sock,
            beat,
            SeqCheck::confirmed(confirm.seq, &confirm.stream),
            tx.clone(),
            stop_rx.clone(),
        ));
    }
    drop(tx);

    let cpu = CpuWindow::start(target.server_pid(args.server_pid)).with(&args.also_pid);
    let started = Instant::now() + Duration::from_millis(100);
    let tt = Timetable::new(started, rate)
        .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
    let count = tt.count_within(Duration::from_secs_f64(args.duration_secs));
    let mut sender = tokio::spawn(send_on_timetable(sessions, tt, count, words));
    let reply_time = interval * u32::try_from(expected_tokens).unwrap_or(u32::MAX);
    let mut tracks: HashMap<String, ReplyTrack> = HashMap::new();
    // Every token's emission (the server's `ts`) to its receipt.
    let mut emitted = Latencies::new()?;
    let mut sent: Option<(Starts, SendLog)> = None;
    let mut drain_until: Option<Instant> = None;
    let mut last_receipt = started;
    loop {
        if let Some((starts, _)) = &sent {
            let all_closed = starts.iter().all(|(_, _, _, o)| match o {
                Started::Accepted(id) => tracks.get(id).is_some_and(|t| t.check().closed),
                _ => true,
            });
            if all_closed {
                break;
            }
        }
        let wake = drain_until.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        tokio::select! {
            got = rx.recv() => match got {
                Some(g) => {
                    last_receipt = last_receipt.max(g.at);
                    if let Some(d) = g.since_emit {
                        emitted.record(d);
                    }
                    tracks.entry(g.msg_id).or_default().observe(g.seq, g.done, g.at);
                }
                None => break,
            },
            joined = &mut sender, if sent.is_none() => {
                sent = Some(joined.map_err(|e| HarnessError::Setup(e.to_string()))??);
                drain_until = Some(Instant::now() + ANSWER_TIMEOUT + reply_time);
            }
            _ = tokio::time::sleep_until(tokio::time::Instant::from_std(wake)) => break,
        }
    }
    sender.abort();
    let cpu_used = cpu.used();
    let _ = stop_tx.send(true);
    let mut seqs = SeqCheck::default();
    let mut undecodable = 0;
    while let Some(j) = readers.join_next().await {
        let (s, u) = j.map_err(|e| HarnessError::Setup(e.to_string()))?;
        seqs.merge(&s);
        undecodable += u;
    }

    let (starts, log) = sent.unwrap_or_default();
    let mut lat = Latencies::new()?;
    let mut first = Latencies::new()?;
    let mut jitter = Latencies::new()?;
    let mut detrended = Latencies::new()?;
    let mut answer = Latencies::new()?;
    let mut slopes = Vec::new();
    let mut totals = ReplyCheck::default();
    let (mut accepted, mut busy, mut limited, mut refused, mut failed) = (0u64, 0, 0, 0, 0);
    let (mut unclosed, mut short) = (0u64, 0u64);
    let mut ours = std::collections::HashSet::new();
    for (_, intended, took, outcome) in &starts {
        let id = match outcome {
            Started::Accepted(id) => id,
            Started::Busy => {
                busy += 1;
                continue;
            }
            Started::Limited => {
                limited += 1;
                continue;
            }
            Started::Refused => {
                refused += 1;
                continue;
            }
            Started::Failed => {
                failed += 1;
                continue;
            }
        };
        accepted += 1;
        answer.record(*took);
        ours.insert(id.clone());
        let Some(track) = tracks.get(id) else {
            unclosed += 1;
            continue;
        };
        let c = track.check();
        totals.tokens += c.tokens;
        totals.lost += c.lost;
        totals.duplicates += c.duplicates;
        totals.out_of_order += c.out_of_order;
        if !c.closed {
            unclosed += 1;
        } else if c.tokens < expected_tokens {
            short += 1;
        }
        let points = track.points();
        for (k, at) in &points {
            lat.record(latency_from_intended(*intended, interval, *k, *at));
        }
        if let Some(at) = track.receipt(1) {
            first.record(at.saturating_duration_since(*intended));
        }
        for d in aligned_delays(&points, interval) {
            jitter.record(d);
        }
        if let Some(s) = effective_interval(&points) {
            // Against the reply's own pace: jitter without the drift.
            for d in aligned_delays(&points, s) {
                detrended.record(d);
            }
            slopes.push(s);
        }
    }
    let foreign: u64 = tracks
        .iter()
        .filter(|(id, _)| !ours.contains(*id))
        .map(|(_, t)| t.check().tokens)
        .sum();
    let window = last_receipt.saturating_duration_since(started);
    let tokens = totals.tokens;

    let mut extra = serde_json::Map::new();
    extra.insert("token_interval_ms".into(), json!(ms(interval)));
    extra.insert("expected_tokens_per_reply".into(), json!(expected_tokens));
    extra.insert(
        "tokens_per_sec".into(),
        json!(tokens as f64 / window.as_secs_f64().max(1e-9)),
    );
    extra.insert("first_token_ms".into(), json!(first.summary()));
    extra.insert("jitter_ms".into(), json!(jitter.summary()));
    extra.insert("jitter_detrended_ms".into(), json!(detrended.summary()));
    extra.insert("start_answer_ms".into(), json!(answer.summary()));
    extra.insert("emit_to_receipt_ms".into(), json!(emitted.summary()));
    extra.insert(
        "effective_interval_ms".into(),
        json!(median(slopes).map(ms)),
    );
    extra.insert(
        "cpu_us_per_token".into(),
        json!(cpu_used
            .filter(|_| tokens > 0)
            .map(|c| c * 1e6 / tokens as f64)),
    );
    extra.insert("max_send_lateness_ms".into(), json!(ms(log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu_used));
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: chats,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: window.as_secs_f64(),
        counts: counts(&[
            ("accounts", accounts),
            ("chats", chats),
            ("sent", log.sent),
            ("accepted", accepted),
            ("refused_busy", busy),
            ("refused_rate_limited", limited),
            ("refused", refused),
            ("failed_sends", failed),
            ("tokens", tokens),
            ("lost", totals.lost),
            ("duplicates", totals.duplicates),
            ("out_of_order", totals.out_of_order),
            ("unclosed_replies", unclosed),
            ("short_replies", short),
            ("seq_gaps", seqs.gaps),
            ("seq_out_of_order", seqs.out_of_order),
            ("foreign_tokens", foreign),
            ("undecodable_frames", undecodable),
            ("late_sends", log.late),
        ]),
        latency_ms: lat.summary(),
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_content_has_the_asked_words_and_names_the_message() {
        assert_eq!(message_content(7, 3), "m7 w w");
        assert_eq!(message_content(0, 0), "m0");
        // The scripted reply is "You said: " + content: words + 2 deltas.
        assert_eq!(
            llm_word_count(&format!("You said: {}", message_content(1, 30))),
            32
        );
    }

    fn llm_word_count(s: &str) -> usize {
        s.split_whitespace().count()
    }

    #[test]
    fn accounts_keep_every_account_under_the_model_call_limit() {
        // 1 message/s over 20 chats: 3/min per session, 6 sessions per account.
        assert_eq!(accounts_needed(1.0, 20, 1), Ok(4));
        // The floor given by --users, and never more accounts than chats.
        assert_eq!(accounts_needed(1.0, 20, 10), Ok(10));
        assert_eq!(accounts_needed(0.01, 3, 8), Ok(3));
        // Each account's load stays within the budget.
        for (rate, chats) in [(5.0, 100), (20.0, 100), (0.3, 1), (7.0, 33)] {
            let a = accounts_needed(rate, chats, 1).unwrap();
            let sessions_per_account = (chats as f64 / a as f64).ceil();
            let per_account_minute = sessions_per_account * rate * 60.0 / chats as f64;
            assert!(
                per_account_minute <= CALLS_PER_ACCOUNT_MINUTE + 1e-9,
                "{rate} {chats}"
            );
        }
        // One session faster than one account may go: refused up front.
        assert!(accounts_needed(1.0, 1, 1).is_err());
    }
}
