//! The stream actor's tests: numbering, one encoding, resume, lag, slow sockets.

use super::*;
use infra::bus::{Bus, LocalBus};
use protocol::frame::Codec;
use serde_json::json;

/// Stands in for a session actor: keeps the close orders.
struct Closer {
    codes: Arc<Mutex<Vec<u16>>>,
}

impl Actor for Closer {
    type Context = Context<Self>;
}

impl Handler<CloseSocket> for Closer {
    type Result = ();
    fn handle(&mut self, msg: CloseSocket, _ctx: &mut Self::Context) {
        self.codes.lock().unwrap().push(msg.code);
    }
}

/// Stands in for a session's writer: what reached the socket's queue.
#[derive(Clone, Default)]
struct Socket {
    frames: Arc<Mutex<Vec<Arc<OutFrame>>>>,
    own: Arc<Mutex<Vec<Bytes>>>,
    closes: Arc<Mutex<Vec<u16>>>,
}

async fn attach_with(
    stream: &Addr<StreamActor>,
    session_id: SessionId,
    capacity: usize,
) -> (Socket, crate::message::PushQueue) {
    attach_logged(stream, session_id, capacity, None).await
}

async fn attach_logged(
    stream: &Addr<StreamActor>,
    session_id: SessionId,
    capacity: usize,
    log_head: Option<u64>,
) -> (Socket, crate::message::PushQueue) {
    let socket = Socket::default();
    let closer = Closer {
        codes: socket.closes.clone(),
    }
    .start();
    let (sink, rx) = PushSink::channel(capacity);
    stream
        .send(Attach {
            session_id,
            token_hash: "h".into(),
            codec: Codec::Json,
            sink,
            close: closer.recipient(),
            log_head,
        })
        .await
        .unwrap();
    (socket, rx)
}

async fn attach(
    stream: &Addr<StreamActor>,
    session_id: SessionId,
) -> Arc<Mutex<Vec<Arc<OutFrame>>>> {
    attach_at(stream, session_id, None).await
}

/// Attaches a socket that opened the shared log at `log_head`.
async fn attach_at(
    stream: &Addr<StreamActor>,
    session_id: SessionId,
    log_head: Option<u64>,
) -> Arc<Mutex<Vec<Arc<OutFrame>>>> {
    let (socket, mut rx) = attach_logged(stream, session_id, 64, log_head).await;
    let got = socket.clone();
    actix_web::rt::spawn(async move {
        while let crate::message::Next::Item(item) = rx.next().await {
            match item {
                Outgoing::Frame(f) => got.frames.lock().unwrap().push(f),
                Outgoing::Data(b) => got.own.lock().unwrap().push(b),
                Outgoing::Pong(_) => {}
            }
        }
    });
    // The confirmation is queued first, before any push.
    for _ in 0..100 {
        if !socket.own.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let own = socket.own.lock().unwrap().clone();
    let confirm = Codec::Json.decode(own.first().unwrap()).unwrap();
    assert_eq!(confirm.kind, FrameType::Heartbeat.as_u16());
    assert!(confirm.content.get("stream").is_some());
    socket.frames
}

async fn wait_for(got: &Arc<Mutex<Vec<Arc<OutFrame>>>>, n: usize) -> Vec<Arc<OutFrame>> {
    for _ in 0..200 {
        let frames = got.lock().unwrap().clone();
        if frames.len() >= n {
            return frames;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("expected {n} frames, got {}", got.lock().unwrap().len());
}

#[actix_web::test]
async fn every_session_and_the_replay_share_one_encoding() {
    let bus = Arc::new(LocalBus::new(64));
    let registry = StreamRegistry::new(bus.clone(), 8, Duration::from_secs(5));
    let stream = registry.get_or_start("u1");
    let a = attach(&stream, 1).await;
    let b = attach(&stream, 2).await;

    let content = PushContent::from_value(&json!({"channel_id": "c", "text": "hé \"x\""}));
    for _ in 0..3 {
        let msg = BusMessage::Push {
            frame_type: FrameType::ImMessage.as_u16(),
            content: content.clone(),
        };
        bus.publish("user:u1", msg).await;
    }
    let on_a = wait_for(&a, 3).await;
    let on_b = wait_for(&b, 3).await;
    for (i, (fa, fb)) in on_a.iter().zip(&on_b).enumerate() {
        let seq = i as u64 + 1;
        assert!(Arc::ptr_eq(fa, fb), "one frame object for both sessions");
        assert_eq!(fa.seq(), Some(seq));
        let expected = format!(
            r#"{{"type":12,"content":{},"seq":{seq},"ts":{}}}"#,
            content.as_str(),
            content.ts().unwrap()
        );
        assert_eq!(
            fa.encoded(Codec::Json).unwrap().as_ref(),
            expected.as_bytes()
        );
    }

    // A socket attached now resumes after seq 1: it gets the very same
    // frames, then the answer.
    let c = attach(&stream, 3).await;
    stream
        .send(Replay {
            session_id: 3,
            last_seq: 1,
            stream: None,
        })
        .await
        .unwrap();
    let on_c = wait_for(&c, 3).await;
    assert!(Arc::ptr_eq(&on_c[0], &on_a[1]));
    assert!(Arc::ptr_eq(&on_c[1], &on_a[2]));
    let answer = &on_c[2];
    assert_eq!(answer.kind(), FrameType::Resume.as_u16());
    assert_eq!(answer.seq(), None);
    let result = result_of(answer);
    assert!(result.resumed);
    assert_eq!(result.replayed, 2);
    assert_eq!(result.seq, 3);
    // The other sessions saw none of the replay.
    assert_eq!(a.lock().unwrap().len(), 3);
    assert_eq!(b.lock().unwrap().len(), 3);
}

fn result_of(frame: &OutFrame) -> ResumeResult {
    let answer = Codec::Json
        .decode(&frame.encoded(Codec::Json).unwrap())
        .unwrap();
    serde_json::from_value(answer.content).unwrap()
}

fn push(bus: &Arc<LocalBus>, user: &str, n: u64) -> impl std::future::Future<Output = ()> {
    let bus = bus.clone();
    let topic = format!("user:{user}");
    async move {
        let msg = BusMessage::Push {
            frame_type: FrameType::ChatStream.as_u16(),
            content: PushContent::from_value(&json!({ "n": n })),
        };
        bus.publish(&topic, msg).await;
    }
}

#[actix_web::test]
async fn frames_pushed_between_attach_and_resume_come_in_order_once() {
    let bus = Arc::new(LocalBus::new(64));
    let registry = StreamRegistry::new(bus.clone(), 16, Duration::from_secs(5));
    let stream = registry.get_or_start("u4");
    // Seen by an earlier socket: 1 and 2; then it went away.
    let old = attach(&stream, 1).await;
    push(&bus, "u4", 1).await;
    push(&bus, "u4", 2).await;
    wait_for(&old, 2).await;
    stream.send(Detach { session_id: 1 }).await.unwrap();
    // Missed while away: 3. The new socket attaches; 4 and 5 are
    // pushed before its resume after 2 arrives.
    push(&bus, "u4", 3).await;
    let new = attach(&stream, 2).await;
    push(&bus, "u4", 4).await;
    push(&bus, "u4", 5).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    stream
        .send(Replay {
            session_id: 2,
            last_seq: 2,
            stream: None,
        })
        .await
        .unwrap();
    push(&bus, "u4", 6).await;
    let got = wait_for(&new, 5).await;
    let seqs: Vec<Option<u64>> = got.iter().map(|f| f.seq()).collect();
    assert_eq!(seqs, [Some(3), Some(4), Some(5), None, Some(6)]);
    let r = result_of(&got[3]);
    assert!(r.resumed);
    assert_eq!((r.replayed, r.seq), (3, 5));
    // Without a resume, the held frames go out when the window ends.
    let quiet = attach(&stream, 3).await;
    push(&bus, "u4", 7).await;
    let got = wait_for(&quiet, 1).await;
    assert_eq!(got[0].seq(), Some(7));
    // A resume after the window replays only what came before the
    // attach: nothing twice.
    stream
        .send(Replay {
            session_id: 3,
            last_seq: 4,
            stream: None,
        })
        .await
        .unwrap();
    let got = wait_for(&quiet, 4).await;
    let seqs: Vec<Option<u64>> = got.iter().map(|f| f.seq()).collect();
    assert_eq!(seqs, [Some(7), Some(5), Some(6), None]);
}

#[actix_web::test]
async fn a_lag_gap_is_reported_and_a_resume_across_it_is_refused() {
    // A bus of capacity 1 drops what the stream has not read yet.
    let bus = Arc::new(LocalBus::new(1));
    let registry = StreamRegistry::new(bus.clone(), 8, Duration::from_secs(5));
    let stream = registry.get_or_start("u2");
    let a = attach(&stream, 1).await;
    for n in 0..4 {
        let msg = BusMessage::Push {
            frame_type: FrameType::Notification.as_u16(),
            content: PushContent::from_value(&json!({ "n": n })),
        };
        bus.publish("user:u2", msg).await;
    }
    // Only the last push survives: a type-15 notice of the lag, then it.
    let got = wait_for(&a, 2).await;
    let notice = Codec::Json
        .decode(&got[0].encoded(Codec::Json).unwrap())
        .unwrap();
    assert_eq!(notice.kind, FrameType::Resume.as_u16());
    let r: ResumeResult = serde_json::from_value(notice.content).unwrap();
    assert!(!r.resumed);
    assert_eq!(r.seq, 3);
    assert_eq!(got[1].seq(), Some(4));
    stream
        .send(Replay {
            session_id: 1,
            last_seq: 0,
            stream: None,
        })
        .await
        .unwrap();
    // Frame 4 went out live after the resume window: it is not sent twice.
    let got = wait_for(&a, 3).await;
    let r = result_of(&got[2]);
    assert!(!r.resumed);
    assert_eq!(r.replayed, 0);
}

#[actix_web::test]
async fn frames_carry_the_publish_time_and_a_full_socket_is_closed_not_grown() {
    let bus = Arc::new(LocalBus::new(64));
    let registry = StreamRegistry::new(bus.clone(), 8, Duration::from_secs(5));
    let stream = registry.get_or_start("u3");
    // A socket whose writer never reads: room for the confirmation and one frame.
    let (socket, _rx) = attach_with(&stream, 1, 2).await;
    for n in 0..3 {
        let content = PushContent::from_value(&json!({ "n": n })).with_ts(Some(1000 + n));
        let msg = BusMessage::Push {
            frame_type: FrameType::TaskUpdate.as_u16(),
            content,
        };
        bus.publish("user:u3", msg).await;
    }
    for _ in 0..1000 {
        if !socket.closes.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        socket.closes.lock().unwrap().first(),
        Some(&close_code::TOO_SLOW)
    );
    // A second socket reads: its resume replays the ring with the first times.
    let b = attach(&stream, 2).await;
    stream
        .send(Replay {
            session_id: 2,
            last_seq: 0,
            stream: None,
        })
        .await
        .unwrap();
    let got = wait_for(&b, 4).await;
    for (n, f) in got.iter().take(3).enumerate() {
        let frame = Codec::Json
            .decode(&f.encoded(Codec::Json).unwrap())
            .unwrap();
        assert_eq!(frame.ts, Some(1000 + n as u64));
        assert_eq!(frame.seq, Some(n as u64 + 1));
    }
}

/// One user's floor and pushes.
type UserLog = (u64, VecDeque<(u64, u16, PushContent)>);

/// A bus with a shared log, in memory: the Redis bus's promise (one counter
/// for every user, a short list and a floor per user) over a local bus that
/// two registries share, as two nodes share Redis.
struct LogBus {
    local: LocalBus,
    capacity: usize,
    /// The counter, and each user's floor and list.
    log: Mutex<(u64, HashMap<String, UserLog>)>,
}

#[async_trait::async_trait]
impl Bus for LogBus {
    async fn publish(&self, topic: &str, msg: BusMessage) {
        let (
            Some(account),
            BusMessage::Push {
                frame_type,
                content,
            },
        ) = (topic.strip_prefix("user:"), &msg)
        else {
            return self.local.publish(topic, msg).await;
        };
        let seq = {
            let mut log = self.log.lock().unwrap();
            log.0 += 1;
            let seq = log.0;
            let (floor, list) = log
                .1
                .entry(account.to_owned())
                .or_insert((seq - 1, VecDeque::new()));
            list.push_back((seq, *frame_type, content.clone()));
            if list.len() > self.capacity {
                *floor = list.pop_front().unwrap().0;
            }
            seq
        };
        self.local.send(topic, Some(seq), Arc::new(msg));
    }

    fn subscribe(&self, topic: &str) -> infra::bus::Subscription {
        self.local.subscribe(topic)
    }

    fn backend_name(&self) -> &'static str {
        "test-log"
    }

    fn keeps_user_log(&self) -> bool {
        true
    }

    async fn open_user_log(&self, account: &str) -> Option<u64> {
        let mut log = self.log.lock().unwrap();
        let head = log.0;
        log.1
            .entry(account.to_owned())
            .or_insert((head, VecDeque::new()));
        Some(head)
    }

    async fn user_log_after(&self, account: &str, after: u64) -> Option<LogTail> {
        let log = self.log.lock().unwrap();
        let Some((floor, list)) = log.1.get(account) else {
            return Some(LogTail {
                complete: false,
                pushes: Vec::new(),
            });
        };
        Some(LogTail {
            complete: *floor <= after,
            pushes: list.iter().filter(|p| p.0 > after).cloned().collect(),
        })
    }
}

#[actix_web::test]
async fn a_resume_on_another_node_is_answered_from_the_shared_log() {
    let bus = Arc::new(LogBus {
        local: LocalBus::new(64),
        capacity: 4,
        log: Mutex::default(),
    });
    let dyn_bus: DynBus = bus.clone();
    let node_a = StreamRegistry::new(dyn_bus.clone(), 16, Duration::from_secs(5));
    let node_b = StreamRegistry::new(dyn_bus.clone(), 16, Duration::from_secs(5));
    let push = |user: &'static str, n: u64| {
        let bus = bus.clone();
        async move {
            let msg = BusMessage::Push {
                frame_type: FrameType::ChatStream.as_u16(),
                content: PushContent::from_value(&json!({ "n": n })),
            };
            bus.publish(&format!("user:{user}"), msg).await;
        }
    };
    // Others' pushes take numbers too: a user's are not contiguous.
    push("other", 0).await;
    let head = node_a.open_log("u9").await;
    assert_eq!(head, Some(1));
    let on_a = node_a.get_or_start("u9");
    let first = attach_at(&on_a, 1, head).await;
    push("u9", 1).await;
    push("other", 0).await;
    push("u9", 2).await;
    let seen = wait_for(&first, 2).await;
    let seqs: Vec<Option<u64>> = seen.iter().map(|f| f.seq()).collect();
    assert_eq!(seqs, [Some(2), Some(4)]);
    // Node A's socket is gone (its node died); two pushes meanwhile.
    on_a.send(Detach { session_id: 1 }).await.unwrap();
    push("u9", 3).await;
    push("u9", 4).await;

    // On node B, a new stream: its ring has none of them; the log has.
    let head = node_b.open_log("u9").await;
    let on_b = node_b.get_or_start("u9");
    let again = attach_at(&on_b, 2, head).await;
    push("u9", 5).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    on_b.send(Replay {
        session_id: 2,
        last_seq: 4,
        stream: Some(SHARED_STREAM.into()),
    })
    .await
    .unwrap();
    push("u9", 6).await;
    let got = wait_for(&again, 5).await;
    let seqs: Vec<Option<u64>> = got.iter().map(|f| f.seq()).collect();
    // 5 and 6 from the log, then the held 7 (not twice), the answer, 8.
    assert_eq!(seqs, [Some(5), Some(6), Some(7), None, Some(8)]);
    let r = result_of(&got[3]);
    assert!(r.resumed, "{r:?}");
    assert_eq!((r.replayed, r.stream.as_str()), (3, SHARED_STREAM));
    let n: Vec<String> = got
        .iter()
        .filter(|f| f.seq().is_some())
        .map(|f| {
            let frame = Codec::Json
                .decode(&f.encoded(Codec::Json).unwrap())
                .unwrap();
            frame.content["n"].to_string()
        })
        .collect();
    assert_eq!(n, ["3", "4", "5", "6"]);

    // The log keeps four: a resume from before its floor is incomplete,
    // and says so (the client reloads over REST).
    let late = attach_at(&on_b, 3, node_b.open_log("u9").await).await;
    on_b.send(Replay {
        session_id: 3,
        last_seq: 2,
        stream: Some(SHARED_STREAM.into()),
    })
    .await
    .unwrap();
    // What the log still has (5 to 8), then the answer.
    let got = wait_for(&late, 5).await;
    let r = result_of(&got[4]);
    assert!(!r.resumed, "{r:?}");
    assert_eq!(r.replayed, 4);
}
