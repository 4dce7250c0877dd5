//! `StreamActor`: a user's push stream on this node. It subscribes to the
//! Bus topic `user:{id}`, numbers every pushed frame, keeps the last frames
//! in a replay buffer, and fans them out to every socket of the user. It
//! outlives the user's last socket by a grace period, so frames pushed while
//! a browser reconnects are buffered and replayed on resume.
//!
//! Each frame is encoded once here, not once per socket: the published
//! content is already JSON text, spliced into the envelope with its `seq`
//! ([`OutFrame`]); the ring holds those bytes, so a resume replays exactly
//! what was sent live. Frames go straight into each session's writer queue
//! ([`PushSink`]), not through the session actor's mailbox.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::prelude::*;
use actix_web::web::Bytes;
use infra::bus::{user_topic, BusMessage, DynBus, PushContent, Received};
use protocol::frame::{AuthConfirm, Frame, FrameType, ResumeResult};

use crate::close_code;
use crate::message::{
    Attach, Attached, CloseSocket, Detach, OutFrame, Outgoing, PushSink, Replay, SessionId,
    SinkError,
};

struct Member {
    token_hash: String,
    sink: PushSink,
    close: Recipient<CloseSocket>,
}

impl Member {
    /// Queues a frame; a socket whose queue is full is closed (1013), one
    /// whose writer is gone is left to detach.
    fn deliver(&self, frame: &Arc<OutFrame>) {
        if self.sink.push(frame.clone()) == Err(SinkError::Full) {
            self.close.do_send(CloseSocket {
                code: close_code::TOO_SLOW,
                reason: "too slow".into(),
            });
        }
    }
}

pub struct StreamActor {
    account_id: String,
    /// Random per stream instance: sequence numbers are only comparable
    /// within one stream, so a resume names the stream it came from.
    stream_id: String,
    /// Sequence number of the last pushed frame.
    seq: u64,
    /// Frames with sequence numbers after a lag gap start here; a resume from
    /// before it cannot be complete.
    first_complete_seq: u64,
    ring: VecDeque<Arc<OutFrame>>,
    capacity: usize,
    members: HashMap<SessionId, Member>,
    empty_since: Option<Instant>,
    grace: Duration,
    bus: DynBus,
    registry: StreamRegistry,
}

impl StreamActor {
    fn push_frame(&mut self, frame_type: u16, content: PushContent) {
        self.seq += 1;
        let frame = Arc::new(OutFrame::new(frame_type, content, Some(self.seq)));
        if self.ring.len() >= self.capacity {
            self.ring.pop_front();
        }
        self.ring.push_back(frame.clone());
        for m in self.members.values() {
            m.deliver(&frame);
        }
    }

    fn oldest_buffered(&self) -> u64 {
        self.ring
            .front()
            .and_then(|f| f.seq())
            .unwrap_or(self.seq + 1)
    }
}

impl Actor for StreamActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.add_stream(
            self.bus
                .subscribe(&user_topic(&self.account_id))
                .into_stream(),
        );
        let tick = (self.grace / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
        ctx.run_interval(tick, |act, ctx| {
            if let Some(since) = act.empty_since {
                if since.elapsed() >= act.grace {
                    act.registry.forget(&act.account_id, &ctx.address());
                    ctx.stop();
                }
            }
        });
    }
}

impl StreamHandler<Received> for StreamActor {
    fn handle(&mut self, item: Received, _ctx: &mut Self::Context) {
        match item {
            Received::Message(msg) => match msg.as_ref() {
                BusMessage::Push {
                    frame_type,
                    content,
                } => self.push_frame(*frame_type, content.clone()),
                BusMessage::CloseSockets {
                    token_hash,
                    code,
                    reason,
                } => {
                    for m in self.members.values() {
                        if token_hash.as_ref().is_none_or(|t| *t == m.token_hash) {
                            m.close.do_send(CloseSocket {
                                code: *code,
                                reason: reason.clone(),
                            });
                        }
                    }
                }
            },
            Received::Lagged(n) => {
                tracing::warn!(account = %self.account_id, lost = n, "push stream lagged");
                self.seq += n;
                self.first_complete_seq = self.seq + 1;
                let resume = ResumeResult {
                    resumed: false,
                    replayed: 0,
                    seq: self.seq,
                    stream: self.stream_id.clone(),
                };
                let frame = Arc::new(resume_frame(&resume));
                for m in self.members.values() {
                    m.deliver(&frame);
                }
            }
            Received::Closed => {}
        }
    }

    fn finished(&mut self, ctx: &mut Self::Context) {
        // The bus dropped our topic: nothing more will come; let sessions reconnect.
        self.registry.forget(&self.account_id, &ctx.address());
        ctx.stop();
    }
}

impl Handler<Attach> for StreamActor {
    type Result = Attached;

    fn handle(&mut self, msg: Attach, _ctx: &mut Self::Context) -> Attached {
        // The confirmation goes first into the queue that pushes use, so
        // the socket sees it before any frame numbered after `seq`.
        let confirm = AuthConfirm {
            account_id: self.account_id.clone(),
            stream: self.stream_id.clone(),
            seq: self.seq,
        };
        let content = serde_json::to_value(confirm).unwrap_or_default();
        match msg.codec.encode(&Frame::new(FrameType::Heartbeat, content)) {
            Ok(bytes) => {
                let _ = msg.sink.send(Outgoing::Data(Bytes::from(bytes)));
            }
            Err(e) => tracing::error!(error = %e, "auth confirmation did not encode"),
        }
        self.members.insert(
            msg.session_id,
            Member {
                token_hash: msg.token_hash,
                sink: msg.sink,
                close: msg.close,
            },
        );
        self.empty_since = None;
        Attached {
            stream: self.stream_id.clone(),
            seq: self.seq,
        }
    }
}

impl Handler<Detach> for StreamActor {
    type Result = ();

    fn handle(&mut self, msg: Detach, _ctx: &mut Self::Context) {
        self.members.remove(&msg.session_id);
        if self.members.is_empty() {
            self.empty_since = Some(Instant::now());
        }
    }
}

impl Handler<Replay> for StreamActor {
    type Result = ();

    fn handle(&mut self, msg: Replay, _ctx: &mut Self::Context) {
        let Some(member) = self.members.get(&msg.session_id) else {
            return;
        };
        let same_stream = msg.stream.as_deref().is_none_or(|s| s == self.stream_id);
        let mut replayed = 0;
        let resumed = if !same_stream || msg.last_seq > self.seq {
            false
        } else {
            let complete = msg.last_seq + 1 >= self.oldest_buffered()
                && msg.last_seq + 1 >= self.first_complete_seq;
            for f in self
                .ring
                .iter()
                .filter(|f| f.seq().is_some_and(|s| s > msg.last_seq))
            {
                member.deliver(f);
                replayed += 1;
            }
            complete
        };
        let answer = ResumeResult {
            resumed,
            replayed,
            seq: self.seq,
            stream: self.stream_id.clone(),
        };
        member.deliver(&Arc::new(resume_frame(&answer)));
    }
}

/// A type-15 answer (not numbered: it is about the stream, not in it).
fn resume_frame(result: &ResumeResult) -> OutFrame {
    let content = PushContent::new(result).unwrap_or_else(|e| {
        tracing::error!(error = %e, "resume answer did not serialise");
        PushContent::from_value(&serde_json::Value::Null)
    });
    OutFrame::new(FrameType::Resume.as_u16(), content, None)
}

/// This node's live streams by account id.
#[derive(Clone)]
pub struct StreamRegistry {
    inner: Arc<Mutex<HashMap<String, Addr<StreamActor>>>>,
    bus: DynBus,
    capacity: usize,
    grace: Duration,
}

impl StreamRegistry {
    pub fn new(bus: DynBus, capacity: usize, grace: Duration) -> StreamRegistry {
        StreamRegistry {
            inner: Arc::default(),
            bus,
            capacity: capacity.max(1),
            grace,
        }
    }

    /// The user's stream, started on the current arbiter when there is none.
    pub fn get_or_start(&self, account_id: &str) -> Addr<StreamActor> {
        let mut map = match self.inner.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        if let Some(addr) = map.get(account_id).filter(|a| a.connected()) {
            return addr.clone();
        }
        let actor = StreamActor {
            account_id: account_id.to_owned(),
            stream_id: format!("{:016x}", rand::random::<u64>()),
            seq: 0,
            first_complete_seq: 1,
            ring: VecDeque::new(),
            capacity: self.capacity,
            members: HashMap::new(),
            empty_since: None,
            grace: self.grace,
            bus: self.bus.clone(),
            registry: self.clone(),
        };
        let addr = actor.start();
        map.insert(account_id.to_owned(), addr.clone());
        addr
    }

    fn forget(&self, account_id: &str, addr: &Addr<StreamActor>) {
        if let Ok(mut map) = self.inner.lock() {
            if map.get(account_id).is_some_and(|a| a == addr) {
                map.remove(account_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
            })
            .await
            .unwrap();
        (socket, rx)
    }

    async fn attach(
        stream: &Addr<StreamActor>,
        session_id: SessionId,
    ) -> Arc<Mutex<Vec<Arc<OutFrame>>>> {
        let (socket, mut rx) = attach_with(stream, session_id, 64).await;
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

        // A resume after seq 1 replays the very same frames, then answers.
        stream
            .send(Replay {
                session_id: 1,
                last_seq: 1,
                stream: None,
            })
            .await
            .unwrap();
        let on_a = wait_for(&a, 6).await;
        assert!(Arc::ptr_eq(&on_a[3], &on_a[1]));
        assert!(Arc::ptr_eq(&on_a[4], &on_a[2]));
        let answer = &on_a[5];
        assert_eq!(answer.kind(), FrameType::Resume.as_u16());
        assert_eq!(answer.seq(), None);
        let answer = Codec::Json
            .decode(&answer.encoded(Codec::Json).unwrap())
            .unwrap();
        let result: ResumeResult = serde_json::from_value(answer.content).unwrap();
        assert!(result.resumed);
        assert_eq!(result.replayed, 2);
        assert_eq!(result.seq, 3);
        // The other session saw none of the replay.
        assert_eq!(b.lock().unwrap().len(), 3);
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
        let got = wait_for(&a, 4).await;
        assert!(Arc::ptr_eq(&got[2], &got[1]));
        let answer = Codec::Json
            .decode(&got[3].encoded(Codec::Json).unwrap())
            .unwrap();
        let r: ResumeResult = serde_json::from_value(answer.content).unwrap();
        assert!(!r.resumed);
        assert_eq!(r.replayed, 1);
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
        for _ in 0..200 {
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
}
