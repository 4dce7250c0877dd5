//! Faults of the socket (issue 23, part 3): a socket dropped mid-stream
//! (task progress, chat tokens and channel messages at once) and resumed
//! on a new socket gets every frame it missed, in order, once, compared
//! with a socket that never left; heartbeat expiry closes sockets and frees
//! what they held (file descriptors, the user's push stream, memory).

use std::time::Duration;

use protocol::chat::{MessageRole, MessageState, MessageView};
use protocol::client::{Incoming, RestClient, Socket};
use protocol::frame::{Codec, Frame, FrameType, ResumeResult};
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

const WAIT: Duration = Duration::from_secs(20);

/// (type, seq, content) of a pushed frame.
type Pushed = (u16, u64, Value);

fn pushed(f: &Frame) -> Option<Pushed> {
    f.seq.map(|s| (f.kind, s, f.content.clone()))
}

fn is_end(p: &Pushed) -> bool {
    p.0 == FrameType::ImMessage.as_u16() && p.2["content"] == "END"
}

/// Pushed frames until the channel message "END" (included).
async fn until_end(s: &mut Socket, into: &mut Vec<Pushed>) {
    loop {
        match s.recv_timeout(WAIT).await.expect("frames until END") {
            Incoming::Frame(f) => {
                if let Some(p) = pushed(&f) {
                    let end = is_end(&p);
                    into.push(p);
                    if end {
                        return;
                    }
                }
            }
            Incoming::Closed(c) => panic!("closed {c:?}"),
        }
    }
}

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_resumed_mid_stream_gets_every_missed_frame_in_order_once() {
    let app = spawn_app_with(&[
        ("EASEL_LLM", "scripted"),
        ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "25"),
        ("EASEL_REFERENCE_STEP_MS", "40"),
        ("EASEL_WORKERS", "1"),
    ])
    .await;
    let (me, client) = app.user("Resumer").await;
    let (_, friend) = app.user("Sender").await;
    // A channel the friend talks in, a chat, and a task: three streams at once.
    let ch = post(
        &client,
        "/api/v1/im/channel/create",
        json!({"name": "Live"}),
    )
    .await;
    let channel = ch["channel_id"].as_str().unwrap().to_owned();
    post(
        &friend,
        "/api/v1/im/channel/join",
        json!({"invite_code": ch["invite_code"]}),
    )
    .await;
    let character = post(
        &client,
        "/api/v1/tavern-pro/publish",
        json!({"name": "Echo", "greeting": "Hi.", "persona": "{{char}} repeats.", "published": true}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let session = post(
        &client,
        "/api/v1/character/session/create",
        json!({"character_id": character}),
    )
    .await["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let sd = checkpoint(&client, "sd").await;

    let mut control = app.socket(&me.token).await;
    let mut s = app.socket(&me.token).await;

    // The load: task progress, chat tokens and channel messages interleaved.
    let mut body = t2i(&sd, "streamed while resuming", 3);
    body["meta"]["steps"] = json!(40);
    let task = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let words: Vec<String> = (0..80).map(|i| format!("word{i}")).collect();
    post(
        &client,
        "/api/v1/character/session/chat/start",
        json!({"session_id": session, "content": words.join(" ")}),
    )
    .await;
    // The friend talks within the channel's message limit (a burst of 10,
    // then 10 a second): one message every 120 ms never runs the bucket dry,
    // however fast or slow the server answers.
    let sender = {
        let (friend, channel) = (friend.clone(), channel.clone());
        tokio::spawn(async move {
            for i in 0..40 {
                post(
                    &friend,
                    "/api/v1/im/message/send",
                    json!({"channel_id": channel, "content": format!("m{i}")}),
                )
                .await;
                tokio::time::sleep(Duration::from_millis(120)).await;
            }
        })
    };

    // The first socket reads a few frames, then drops without a goodbye.
    let mut seen = Vec::new();
    while seen.len() < 8 {
        if let Incoming::Frame(f) = s.recv_timeout(WAIT).await.unwrap() {
            if let Some(p) = pushed(&f) {
                seen.push(p);
            }
        }
    }
    let (stream, last_seq) = (s.stream.clone().unwrap(), s.last_seq);
    assert_eq!(seen.last().unwrap().1, last_seq);
    drop(s);
    tokio::time::sleep(Duration::from_millis(300)).await;

    // A new socket resumes while the frames keep coming.
    let mut s = Socket::connect(&app.ws_url(), Codec::Json).await.unwrap();
    s.authenticate(&me.token).await.unwrap();
    s.send(&Frame::resume(last_seq, Some(&stream)))
        .await
        .unwrap();
    let mut answer = None;
    while answer.is_none() {
        match s.recv_timeout(WAIT).await.unwrap() {
            Incoming::Frame(f) if f.kind == FrameType::Resume.as_u16() => {
                answer = Some(serde_json::from_value::<ResumeResult>(f.content).unwrap());
            }
            Incoming::Frame(f) => seen.extend(pushed(&f)),
            Incoming::Closed(c) => panic!("closed {c:?}"),
        }
    }
    let answer = answer.unwrap();
    assert!(answer.resumed, "{answer:?}");
    assert_eq!(answer.stream, stream);

    // Let every stream finish, then mark the end.
    sender.await.unwrap();
    assert_eq!(
        client.wait_task(&task, TASK_WAIT).await.unwrap().status,
        TaskStatus::Success
    );
    loop {
        let m: MessageView = client
            .post(
                "/api/v1/character/session/msg/latest_state_info",
                &json!({"session_id": session}),
            )
            .await
            .unwrap();
        if m.role == MessageRole::Assistant && m.state == MessageState::Done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    post(
        &friend,
        "/api/v1/im/message/send",
        json!({"channel_id": channel, "content": "END"}),
    )
    .await;
    until_end(&mut s, &mut seen).await;
    let mut all = Vec::new();
    until_end(&mut control, &mut all).await;

    // What the resumed socket saw is exactly the control's frames from its
    // first one on: every frame, in order, once.
    let first = seen[0].1;
    let expected: Vec<&Pushed> = all.iter().filter(|p| p.1 >= first).collect();
    let got: Vec<&Pushed> = seen.iter().collect();
    let seqs = |v: &[&Pushed]| v.iter().map(|p| p.1).collect::<Vec<_>>();
    assert_eq!(seqs(&got), seqs(&expected), "sequence numbers");
    assert_eq!(got, expected, "the same frames");
    let kinds: std::collections::BTreeSet<u16> = got.iter().map(|p| p.0).collect();
    for k in [
        FrameType::TaskUpdate,
        FrameType::ChatStream,
        FrameType::ImMessage,
    ] {
        assert!(
            kinds.contains(&k.as_u16()),
            "{k:?} in the stream: {kinds:?}"
        );
    }
    assert!(
        got.iter()
            .any(|p| p.1 > last_seq && p.0 == FrameType::ChatStream.as_u16()),
        "chat tokens after the drop reached the resumed socket"
    );
}

fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

fn rss(pid: u32) -> u64 {
    harness::procfs::rss_bytes(pid).unwrap()
}

/// Opens `n` authenticated sockets for `token`, lets them fall silent, and
/// waits for each to be closed by the server with 4410.
async fn round(app: &TestApp, token: &str, n: usize) -> String {
    let mut sockets = Vec::new();
    let mut stream = String::new();
    for _ in 0..n {
        let mut s = Socket::connect(&app.ws_url(), Codec::Json).await.unwrap();
        stream = s.authenticate(token).await.unwrap().stream;
        sockets.push(s);
    }
    for mut s in sockets {
        let code = loop {
            match s.recv_timeout(WAIT).await.expect("closed in time") {
                Incoming::Closed(c) => break c.map(|c| c.0),
                Incoming::Frame(_) => {}
            }
        };
        assert_eq!(code, Some(4410), "heartbeat expiry closes with 4410");
    }
    stream
}

async fn settle_fds(pid: u32, at_most: usize) -> usize {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let n = fds(pid);
        if n <= at_most || tokio::time::Instant::now() > deadline {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn heartbeat_expiry_closes_sockets_and_frees_what_they_held() {
    let app = spawn_app_with(&[
        ("EASEL_WS_IDLE_TIMEOUT_MS", "400"),
        ("EASEL_WS_REPLAY_GRACE_MS", "300"),
    ])
    .await;
    let pid = app.pid().unwrap();
    let (me, _) = app.user("Silent").await;
    // Warm up (first socket, first actor), then measure.
    let first_stream = round(&app, &me.token, 5).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let base_fds = fds(pid) + 2;
    let mut streams = vec![first_stream];
    let mut after = Vec::new();
    for _ in 0..3 {
        streams.push(round(&app, &me.token, 150).await);
        let n = settle_fds(pid, base_fds).await;
        assert!(
            n <= base_fds,
            "every socket's descriptor closed: {n} > {base_fds}"
        );
        // The push stream outlives its last socket by the grace, then goes.
        tokio::time::sleep(Duration::from_millis(800)).await;
        after.push(rss(pid));
    }
    // Each round found the previous stream gone: a fresh one, and a resume
    // from the old one is refused.
    let distinct: std::collections::BTreeSet<&String> = streams.iter().collect();
    assert_eq!(
        distinct.len(),
        streams.len(),
        "a new stream each round: {streams:?}"
    );
    let mut s = app.socket(&me.token).await;
    s.send(&Frame::resume(0, Some(&streams[2]))).await.unwrap();
    let f = s.expect(FrameType::Resume, WAIT).await.unwrap();
    let r: ResumeResult = serde_json::from_value(f.content).unwrap();
    assert!(!r.resumed, "the old stream was freed");
    drop(s);
    // Memory returns: the third round of 150 sockets leaves no more than
    // the first did (a leaked socket or actor would add up round by round).
    println!("rss after each round: {after:?}");
    let slack = 8 * 1024 * 1024;
    assert!(
        after[2] <= after[0] + slack,
        "memory grew round after round: {after:?}"
    );
}
