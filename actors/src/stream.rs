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
//!
//! A resume comes on a new socket after its auth, so frames may be pushed
//! between the two. For [`RESUME_WINDOW`] after an attach, a socket's live
//! frames wait in its `held` list: a resume in that window gets the missed
//! frames from the ring and then the held ones, every frame in order and
//! once; without a resume they go out when the window ends. A resume after
//! the window replays only frames from before the attach (the later ones
//! went out live), so nothing is sent twice, but they arrive after the live
//! ones.

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

/// How long a new socket's live frames wait for its resume (see the module
/// docs). A browser sends its resume one round trip after its auth.
pub const RESUME_WINDOW: Duration = Duration::from_millis(500);

struct Member {
    token_hash: String,
    sink: PushSink,
    close: Recipient<CloseSocket>,
    /// The stream's `seq` when this socket attached: later frames reach it live.
    attach_seq: u64,
    /// Live frames waiting for a resume, during [`RESUME_WINDOW`] after the
    /// attach; `None` once the window ended or a resume came.
    held: Option<Vec<Arc<OutFrame>>>,
}

impl Member {
    /// Sends a live frame, or keeps it while the socket may still resume.
    fn live(&mut self, frame: &Arc<OutFrame>, limit: usize) {
        match &mut self.held {
            Some(held) if held.len() < limit => held.push(frame.clone()),
            Some(_) => {
                self.release();
                self.deliver(frame);
            }
            None => self.deliver(frame),
        }
    }

    /// Ends the resume window: what was held goes out, in order.
    fn release(&mut self) {
        for f in self.held.take().unwrap_or_default() {
            self.deliver(&f);
        }
    }

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
        let limit = self.capacity;
        for m in self.members.values_mut() {
            m.live(&frame, limit);
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
                let limit = self.capacity;
                for m in self.members.values_mut() {
                    m.live(&frame, limit);
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

    fn handle(&mut self, msg: Attach, ctx: &mut Self::Context) -> Attached {
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
                attach_seq: self.seq,
                held: Some(Vec::new()),
            },
        );
        let session_id = msg.session_id;
        ctx.run_later(RESUME_WINDOW, move |act, _| {
            if let Some(m) = act.members.get_mut(&session_id) {
                m.release();
            }
        });
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
        let oldest = self.oldest_buffered();
        let Some(member) = self.members.get_mut(&msg.session_id) else {
            return;
        };
        // Within the resume window nothing went out live since the attach:
        // the ring has every frame after `last_seq`, the held ones last.
        // After it, frames after the attach went out live: not again.
        let held = member.held.take();
        let upto = if held.is_some() {
            u64::MAX
        } else {
            member.attach_seq
        };
        let same_stream = msg.stream.as_deref().is_none_or(|s| s == self.stream_id);
        let mut replayed = 0;
        let mut sent_upto = 0;
        let resumed = if !same_stream || msg.last_seq > self.seq {
            false
        } else {
            let complete =
                msg.last_seq + 1 >= oldest && msg.last_seq + 1 >= self.first_complete_seq;
            sent_upto = msg.last_seq;
            for f in self
                .ring
                .iter()
                .filter(|f| f.seq().is_some_and(|s| s > msg.last_seq && s <= upto))
            {
                member.deliver(f);
                replayed += 1;
                sent_upto = f.seq().unwrap_or(sent_upto);
            }
            complete
        };
        // Held frames not replayed from the ring (all of them when nothing
        // was replayed; a lag notice has no seq) go out now, in their order.
        for f in held.unwrap_or_default() {
            if f.seq().is_none_or(|s| s > sent_upto) {
                member.deliver(&f);
            }
        }
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
}
