//! The `channel` scenario: K channels of M member sockets each; messages
//! posted over REST (`POST /api/v1/im/message/send`) by a few senders on a
//! fixed timetable, rotating over the channels. Every member socket counts
//! what it receives ([`DeliveryLog`]) and measures each frame 12 from its
//! message's intended send time, so a slow fan-out shows as latency.
//!
//! Against Easel the members are signed-up accounts that join over REST
//! (create, then join with the invite code); against a baseline any token
//! will do and a socket joins with frame 16 (bench/README.md).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use protocol::client::{RestClient, Socket};
use protocol::frame::{Frame, FrameType};
use protocol::im::{CreateChannelAnswer, SendAnswer};
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::delivery::{message_text, parse_message_text, route, Bits, DeliveryLog, DeliveryTotals};
use crate::procfs::CpuWindow;
use crate::reader::{read_frames, Beat, Flow, Receipt};
use crate::scenarios::{
    authenticate, counts, ms, Target, ANSWER_TIMEOUT, CONNECT_PARALLEL, MAX_IN_FLIGHT, MAX_SENDS,
};
use crate::stats::Latencies;
use crate::timetable::{SendLog, Timetable};
use crate::{HarnessArgs, HarnessError, Protocol, Report};

/// The frame a baseline socket sends to join a channel (not part of Easel's
/// protocol, which joins over REST).
const BARE_JOIN: u16 = 16;
/// Sign-ups and joins in flight at once during set-up.
pub(crate) const SETUP_PARALLEL: usize = 8;
/// How often a member socket heartbeats (Easel closes a silent socket after 45 s).
const HEARTBEAT_EVERY: Duration = Duration::from_secs(10);
/// Messages one sender posts per second per channel by default: under
/// Easel's limit of 10 per sender per channel.
const PER_SENDER_RATE: f64 = 8.0;

/// Who takes part: each channel's id, the token of every member socket
/// (socket `s` is in channel `s % K`), and the senders.
struct Cast {
    channel_ids: Vec<String>,
    member_tokens: Vec<String>,
    senders: Vec<RestClient>,
}

pub(crate) async fn sign_up_many(
    target: &Target,
    n: u64,
    label: &str,
) -> Result<Vec<RestClient>, HarnessError> {
    let results: Vec<Result<RestClient, HarnessError>> = futures_util::stream::iter(0..n)
        .map(|i| async move { target.sign_up(&format!("{label} {i}")).await })
        .buffered(SETUP_PARALLEL)
        .collect()
        .await;
    results.into_iter().collect()
}

fn token_of(c: &RestClient) -> Result<String, HarnessError> {
    c.token()
        .map(str::to_owned)
        .ok_or_else(|| HarnessError::Setup("sign-up gave no token".into()))
}

/// Easel: `accounts` accounts per channel (the first creates it, the others
/// join with its invite code), sockets spread over them, senders joined to
/// every channel.
async fn easel_cast(
    target: &Target,
    k: u64,
    m: u64,
    accounts: u64,
    senders: u64,
) -> Result<Cast, HarnessError> {
    let accounts = accounts.clamp(1, m);
    let sender_clients = sign_up_many(target, senders, "harness sender").await?;
    let mut channel_ids = Vec::new();
    let mut per_channel: Vec<Vec<String>> = Vec::new();
    for c in 0..k {
        let members = sign_up_many(target, accounts, &format!("harness member {c}")).await?;
        let Some(owner) = members.first() else {
            return Err(HarnessError::Setup("no member accounts".into()));
        };
        let created: CreateChannelAnswer = owner
            .post(
                "/api/v1/im/channel/create",
                &json!({"name": format!("harness {c}"), "private": false}),
            )
            .await?;
        let invite = json!({"invite_code": created.invite_code});
        let joiners = members.iter().skip(1).chain(sender_clients.iter());
        let joined: Vec<Result<Value, protocol::client::ClientError>> =
            futures_util::stream::iter(joiners)
                .map(|u| u.post::<_, Value>("/api/v1/im/channel/join", &invite))
                .buffer_unordered(SETUP_PARALLEL)
                .collect()
                .await;
        for j in joined {
            j?;
        }
        per_channel.push(members.iter().map(token_of).collect::<Result<_, _>>()?);
        channel_ids.push(created.channel_id);
    }
    let mut member_tokens = Vec::new();
    for s in 0..k * m {
        let c = usize::try_from(s % k).unwrap_or(0);
        let j = usize::try_from((s / k) % accounts).unwrap_or(0);
        let token = per_channel
            .get(c)
            .and_then(|v| v.get(j))
            .ok_or_else(|| HarnessError::Setup("member index out of range".into()))?;
        member_tokens.push(token.clone());
    }
    Ok(Cast {
        channel_ids,
        member_tokens,
        senders: sender_clients,
    })
}

/// A baseline: fixed tokens, channel ids unique to this run (a server
/// reused across runs keeps its sequence numbers per channel).
fn bare_cast(target: &Target, k: u64, m: u64, senders: u64) -> Cast {
    let run = uuid::Uuid::now_v7().simple().to_string();
    Cast {
        channel_ids: (0..k).map(|c| format!("c{run}-{c}")).collect(),
        member_tokens: (0..k * m).map(|s| format!("bench-member-{s}")).collect(),
        senders: (0..senders)
            .map(|s| target.rest.with_token(format!("bench-sender-{s}")))
            .collect(),
    }
}

/// Opens and authenticates socket `s`; against a baseline, joins its
/// channel with frame 16 and waits for a heartbeat's ack, which the server
/// sends only after it handled the join (frames are handled in order).
async fn open_member(
    target: &Target,
    s: usize,
    token: &str,
    channel_id: &str,
) -> Result<Socket, HarnessError> {
    let mut sock = target.connect(s).await?;
    authenticate(&mut sock, token, target.protocol()).await?;
    if target.protocol() == Protocol::Bare {
        let join = Frame {
            kind: BARE_JOIN,
            content: json!({ "channel_id": channel_id }),
            ..Frame::heartbeat()
        };
        sock.send(&join).await?;
        sock.send(&Frame::heartbeat()).await?;
        sock.expect(FrameType::Heartbeat, ANSWER_TIMEOUT).await?;
    }
    Ok(sock)
}

/// One frame 12 as the harness needs it.
#[derive(serde::Deserialize)]
struct Delivered {
    seq: u64,
    #[serde(default)]
    content: Value,
}

/// What one member socket saw: its deliveries, and each frame 12's
/// emission-to-receipt time in µs when the server stamped it (`ts`).
struct MemberLog {
    deliveries: DeliveryLog,
    since_emit_us: Vec<u32>,
}

/// Reads one member socket until `stop`, logging every frame 12.
async fn read_member(
    sock: Socket,
    beat: Beat,
    tt: Timetable,
    count: u64,
    first_receipts: Arc<AtomicU64>,
    stop: watch::Receiver<bool>,
) -> MemberLog {
    let mut log = DeliveryLog::new();
    let mut since_emit_us = Vec::new();
    read_frames(sock, beat, stop, |f, r: Receipt| {
        if f.kind != FrameType::ImMessage.as_u16() {
            return Flow::Continue;
        }
        if let Some(d) = r.since_emit {
            since_emit_us.push(u32::try_from(d.as_micros()).unwrap_or(u32::MAX));
        }
        let at = r.at;
        let Ok(d) = serde_json::from_value::<Delivered>(f.content) else {
            log.observe(0, None, None);
            return Flow::Continue;
        };
        let message = d
            .content
            .as_str()
            .and_then(parse_message_text)
            .filter(|i| *i < count);
        let latency = message.map(|i| at.saturating_duration_since(tt.intended(i)));
        let before = log.distinct();
        log.observe(d.seq, message, latency);
        if log.distinct() > before {
            first_receipts.fetch_add(1, Ordering::Relaxed);
        }
        Flow::Continue
    })
    .await;
    MemberLog {
        deliveries: log,
        since_emit_us,
    }
}

pub(crate) async fn channel(args: &HarnessArgs, rate: f64) -> Result<Report, HarnessError> {
    let target = Target::parse(&args.target, args.protocol)?;
    let k = args.channels.max(1);
    let m = args.members.max(1);
    let senders = args
        .senders
        .unwrap_or_else(|| (rate / (k as f64 * PER_SENDER_RATE)).ceil() as u64)
        .max(1);
    let cast = match args.protocol {
        Protocol::Easel => {
            let accounts = args.member_accounts.unwrap_or(m);
            easel_cast(&target, k, m, accounts, senders).await?
        }
        Protocol::Bare => bare_cast(&target, k, m, senders),
    };

    let set_up = Instant::now();
    let target_ref = &target;
    let cast_ref = &cast;
    let opened: Vec<(usize, Result<Socket, HarnessError>)> =
        futures_util::stream::iter(0..cast.member_tokens.len())
            .map(|s| async move {
                let c = s % cast_ref.channel_ids.len().max(1);
                let token = cast_ref.member_tokens.get(s).map_or("", String::as_str);
                let ch = cast_ref.channel_ids.get(c).map_or("", String::as_str);
                (s, open_member(target_ref, s, token, ch).await)
            })
            .buffer_unordered(CONNECT_PARALLEL)
            .collect()
            .await;
    let connect_all = set_up.elapsed();
    let mut sockets = Vec::new();
    let mut failed = 0u64;
    let mut first_error = None;
    for (s, res) in opened {
        match res {
            Ok(sock) => sockets.push((s, sock)),
            Err(e) => {
                failed += 1;
                first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }

    let cpu = CpuWindow::start(target.server_pid(args.server_pid)).with(&args.also_pid);
    // The timetable starts a little ahead so every reader is listening.
    let started = Instant::now() + Duration::from_millis(100);
    let tt = Timetable::new(started, rate)
        .ok_or_else(|| HarnessError::Setup("--rate must be positive".into()))?;
    let count = tt
        .count_within(Duration::from_secs_f64(args.duration_secs))
        .min(MAX_SENDS);
    let first_receipts = Arc::new(AtomicU64::new(0));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut readers = tokio::task::JoinSet::new();
    let mut socket_channel = std::collections::HashMap::new();
    let n_sockets = sockets.len();
    for (s, sock) in sockets {
        let beat = Beat {
            index: s,
            of: n_sockets,
            every: HEARTBEAT_EVERY,
        };
        let id = readers
            .spawn(read_member(
                sock,
                beat,
                tt,
                count,
                first_receipts.clone(),
                stop_rx.clone(),
            ))
            .id();
        socket_channel.insert(id, (s as u64) % k);
    }

    // Post on the timetable; each answer is awaited in its own task.
    let sem = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let mut posts = tokio::task::JoinSet::new();
    let mut log = SendLog::default();
    for i in 0..count {
        let intended = tt.intended(i);
        tokio::time::sleep_until(tokio::time::Instant::from_std(intended)).await;
        let permit = sem
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| HarnessError::Setup(e.to_string()))?;
        log.note(intended, Instant::now());
        let (c, snd) = route(i, k, senders);
        let (Some(client), Some(ch)) = (
            cast.senders
                .get(usize::try_from(snd).unwrap_or(usize::MAX))
                .cloned(),
            cast.channel_ids
                .get(usize::try_from(c).unwrap_or(usize::MAX))
                .cloned(),
        ) else {
            return Err(HarnessError::Setup("sender or channel out of range".into()));
        };
        posts.spawn(async move {
            let body = json!({"channel_id": ch, "content": message_text(i)});
            let res = tokio::time::timeout(
                ANSWER_TIMEOUT,
                client.post::<_, SendAnswer>("/api/v1/im/message/send", &body),
            )
            .await;
            drop(permit);
            (i, c, res)
        });
    }
    let mut accepted: Vec<Bits> = (0..k).map(|_| Bits::default()).collect();
    let (mut accepted_n, mut refused, mut failed_sends) = (0u64, 0u64, 0u64);
    while let Some(j) = posts.join_next().await {
        let (i, c, res) = j.map_err(|e| HarnessError::Setup(e.to_string()))?;
        match res {
            Ok(Ok(_)) => {
                accepted_n += 1;
                if let Some(b) = accepted.get_mut(usize::try_from(c).unwrap_or(usize::MAX)) {
                    b.insert(i);
                }
            }
            Ok(Err(e)) => {
                if e.status().is_some() {
                    refused += 1;
                } else {
                    failed_sends += 1;
                }
                first_error.get_or_insert_with(|| e.to_string());
            }
            Err(_) => failed_sends += 1,
        }
    }

    // Drain: wait for the last deliveries, at most the answer timeout.
    let members_per_channel =
        |c: u64| socket_channel.values().filter(|ch| **ch == c).count() as u64;
    let expected: u64 = (0..k)
        .map(|c| {
            let sent = accepted
                .get(usize::try_from(c).unwrap_or(usize::MAX))
                .map_or(0, Bits::len);
            sent * members_per_channel(c)
        })
        .sum();
    let drain_until = Instant::now() + ANSWER_TIMEOUT;
    while first_receipts.load(Ordering::Relaxed) < expected && Instant::now() < drain_until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed();
    let cpu_used = cpu.used();
    let _ = stop_tx.send(true);

    let mut totals = DeliveryTotals::default();
    let mut lat = Latencies::new()?;
    let mut emitted = Latencies::new()?;
    let empty = Bits::default();
    while let Some(j) = readers.join_next_with_id().await {
        let (id, member) = j.map_err(|e| HarnessError::Setup(e.to_string()))?;
        for us in &member.since_emit_us {
            emitted.record(Duration::from_micros(u64::from(*us)));
        }
        let dlog = member.deliveries;
        let c = socket_channel.get(&id).copied().unwrap_or(0);
        let acc = accepted
            .get(usize::try_from(c).unwrap_or(usize::MAX))
            .unwrap_or(&empty);
        totals.add(&dlog, acc);
        for us in &dlog.latencies_us {
            lat.record(Duration::from_micros(u64::from(*us)));
        }
    }

    let mut extra = serde_json::Map::new();
    extra.insert("delivered_pct".into(), json!(totals.delivered_pct()));
    extra.insert(
        "deliveries_per_sec".into(),
        json!(totals.delivered as f64 / elapsed.as_secs_f64().max(1e-9)),
    );
    // Measured, when the frames carry the server's emission time.
    extra.insert("emit_to_receipt_ms".into(), json!(emitted.summary()));
    extra.insert("connect_all_ms".into(), json!(ms(connect_all)));
    extra.insert("max_send_lateness_ms".into(), json!(ms(log.max_late)));
    extra.insert("server_cpu_secs".into(), json!(cpu_used));
    if let Some(e) = first_error {
        extra.insert("first_error".into(), json!(e));
    }
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: k * m,
        duration_secs: args.duration_secs,
        rate,
        elapsed_secs: elapsed.as_secs_f64(),
        counts: counts(&[
            ("members", socket_channel.len() as u64),
            ("failed", failed),
            ("channels", k),
            ("senders", senders),
            ("sent", log.sent),
            ("accepted", accepted_n),
            ("refused", refused),
            ("failed_sends", failed_sends),
            ("expected_deliveries", totals.expected),
            ("delivered", totals.delivered),
            ("lost", totals.lost),
            ("duplicates", totals.duplicates),
            ("out_of_order", totals.out_of_order),
            ("foreign_frames", totals.foreign),
            ("late_sends", log.late),
        ]),
        latency_ms: lat.summary(),
        extra,
    })
}
