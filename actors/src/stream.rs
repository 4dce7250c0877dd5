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
//!
//! With a bus that keeps a shared log of each user's pushes (the Redis bus,
//! [`Bus::user_log_after`]), the bus numbers the frames, not the stream: every
//! node's stream of a user names the same stream ([`SHARED_STREAM`]) and the
//! same numbers, numbers are not contiguous per user (one counter for the
//! deployment), and a resume this node's ring cannot complete (the socket
//! was on another node, maybe one that died) is answered from the log.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::prelude::*;
use actix_web::web::Bytes;
use infra::bus::{user_topic, BusMessage, DynBus, LogTail, PushContent, Received};
use protocol::frame::{AuthConfirm, Frame, FrameType, ResumeResult};

use crate::close_code;
use crate::message::{
    Attach, Attached, CloseSocket, Detach, OutFrame, Outgoing, PushSink, Replay, SessionId,
    SinkError,
};

/// How long a new socket's live frames wait for its resume (see the module
/// docs). A browser sends its resume one round trip after its auth.
pub const RESUME_WINDOW: Duration = Duration::from_millis(500);

pub use protocol::frame::SHARED_STREAM;

struct Member {
    token_hash: String,
    sink: PushSink,
    close: Recipient<CloseSocket>,
    /// The stream's `seq` when this socket attached: later frames reach it live.
    attach_seq: u64,
    /// The highest number this socket was sent: a live frame at or below it
    /// (already replayed from the shared log, or from before the attach) is
    /// not sent again.
    sent_upto: u64,
    /// Live frames waiting for a resume, during [`RESUME_WINDOW`] after the
    /// attach; `None` once the window ended or a resume came.
    held: Option<Vec<Arc<OutFrame>>>,
}

impl Member {
    /// Sends a live frame, or keeps it while the socket may still resume.
    fn live(&mut self, frame: &Arc<OutFrame>, limit: usize) {
        if frame.seq().is_some_and(|s| s <= self.sent_upto) {
            return;
        }
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
    fn deliver(&mut self, frame: &Arc<OutFrame>) {
        if let Some(s) = frame.seq() {
            self.sent_upto = self.sent_upto.max(s);
        }
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
    /// Every frame of this user numbered from here on is in the ring (or was
    /// trimmed after it went out): a resume from before it cannot be
    /// complete from the ring. Moves past a trimmed frame and a lag gap;
    /// `u64::MAX` while unknown (a shared-log stream before its first number).
    first_complete_seq: u64,
    /// The bus numbers the frames ([`SHARED_STREAM`]).
    shared: bool,
    /// When the shared log was last kept open for this stream's sockets.
    log_opened: Instant,
    ring: VecDeque<Arc<OutFrame>>,
    capacity: usize,
    members: HashMap<SessionId, Member>,
    empty_since: Option<Instant>,
    grace: Duration,
    bus: DynBus,
    registry: StreamRegistry,
}

impl StreamActor {
    fn push_frame(&mut self, frame_type: u16, content: PushContent, numbered: Option<u64>) {
        let seq = match numbered {
            Some(n) => {
                if self.first_complete_seq == u64::MAX {
                    self.first_complete_seq = n;
                }
                n
            }
            None => self.seq + 1,
        };
        self.seq = self.seq.max(seq);
        let frame = Arc::new(OutFrame::new(frame_type, content, Some(seq)));
        if self.ring.len() >= self.capacity {
            if let Some(gone) = self.ring.pop_front().and_then(|f| f.seq()) {
                self.first_complete_seq = self.first_complete_seq.max(gone + 1);
            }
        }
        self.ring.push_back(frame.clone());
        let limit = self.capacity;
        for m in self.members.values_mut() {
            m.live(&frame, limit);
        }
    }

    /// Keeps the shared log open while sockets listen (its keys expire
    /// otherwise), every third of the grace, at most every 30 s.
    fn keep_log_open(&mut self, ctx: &mut Context<Self>) {
        let every = (self.grace / 3).clamp(Duration::from_secs(1), Duration::from_secs(30));
        if !self.shared || self.members.is_empty() || self.log_opened.elapsed() < every {
            return;
        }
        self.log_opened = Instant::now();
        let bus = self.bus.clone();
        let account = self.account_id.clone();
        ctx.spawn(
            async move {
                bus.open_user_log(&account).await;
            }
            .into_actor(self),
        );
    }

    /// Answers a resume with `frames` (those after `last_seq` up to `upto`),
    /// then the held live frames not among them, then the type-15 answer.
    fn answer_resume<'a>(
        &mut self,
        session_id: SessionId,
        last_seq: u64,
        frames: impl Iterator<Item = &'a Arc<OutFrame>>,
        complete: bool,
        held: Option<Vec<Arc<OutFrame>>>,
    ) {
        let answer = ResumeResult {
            resumed: complete,
            replayed: 0,
            seq: self.seq,
            stream: self.stream_id.clone(),
        };
        let Some(member) = self.members.get_mut(&session_id) else {
            return;
        };
        let upto = if held.is_some() {
            u64::MAX
        } else {
            member.attach_seq
        };
        let mut replayed = 0;
        let mut sent_upto = last_seq;
        for f in frames.filter(|f| f.seq().is_some_and(|s| s > last_seq && s <= upto)) {
            member.deliver(f);
            replayed += 1;
            sent_upto = f.seq().unwrap_or(sent_upto);
        }
        // Held frames not replayed (all of them when nothing was replayed; a
        // lag notice has no seq) go out now, in their order.
        for f in held.unwrap_or_default() {
            if f.seq().is_none_or(|s| s > sent_upto) {
                member.deliver(&f);
            }
        }
        let answer = ResumeResult { replayed, ..answer };
        member.deliver(&Arc::new(resume_frame(&answer)));
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
            act.keep_log_open(ctx);
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
            Received::Numbered(seq, msg) => {
                if let BusMessage::Push {
                    frame_type,
                    content,
                } = msg.as_ref()
                {
                    self.push_frame(*frame_type, content.clone(), Some(seq));
                }
            }
            Received::Message(msg) => match msg.as_ref() {
                BusMessage::Push {
                    frame_type,
                    content,
                } => self.push_frame(*frame_type, content.clone(), None),
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
                if self.shared {
                    // The lost frames' numbers are unknown: the ring is
                    // complete again from the next frame on.
                    self.first_complete_seq = u64::MAX;
                } else {
                    self.seq += n;
                    self.first_complete_seq = self.seq + 1;
                }
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
        // With a shared log, the stream is at least where the log was when
        // the session opened it (frames numbered up to there came before
        // this socket); a new stream's ring is complete from there on.
        if let Some(head) = msg.log_head {
            if self.first_complete_seq == u64::MAX {
                self.first_complete_seq = head + 1;
            }
            self.seq = self.seq.max(head);
            self.log_opened = Instant::now();
        }
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
                sent_upto: self.seq,
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

    fn handle(&mut self, msg: Replay, ctx: &mut Self::Context) {
        let Some(member) = self.members.get_mut(&msg.session_id) else {
            return;
        };
        // Within the resume window nothing went out live since the attach:
        // every frame after `last_seq` is replayed, the held ones last.
        // After it, frames after the attach went out live: not again.
        let held = member.held.take();
        let same_stream = msg.stream.as_deref().is_none_or(|s| s == self.stream_id);
        let last_seq = msg.last_seq;
        let in_ring = same_stream
            && last_seq <= self.seq
            && last_seq.saturating_add(1) >= self.first_complete_seq;
        if in_ring || !same_stream || !self.shared {
            let ring = std::mem::take(&mut self.ring);
            // Another stream's numbers mean nothing here: nothing replayed.
            let frames = ring.iter().filter(|_| same_stream);
            self.answer_resume(msg.session_id, last_seq, frames, in_ring, held);
            self.ring = ring;
            return;
        }
        // Not all in this node's ring (the socket was on another node, or
        // this stream is younger): the bus's shared log has them.
        let bus = self.bus.clone();
        let account = self.account_id.clone();
        let read = async move { bus.user_log_after(&account, last_seq).await };
        ctx.wait(read.into_actor(self).map(move |tail, act, _| {
            let LogTail { complete, pushes } = tail.unwrap_or(LogTail {
                complete: false,
                pushes: Vec::new(),
            });
            let frames: Vec<Arc<OutFrame>> = pushes
                .into_iter()
                .map(|(seq, kind, content)| Arc::new(OutFrame::new(kind, content, Some(seq))))
                .collect();
            if let Some(last) = frames.last().and_then(|f| f.seq()) {
                act.seq = act.seq.max(last);
            }
            act.answer_resume(msg.session_id, last_seq, frames.iter(), complete, held);
        }));
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
        let shared = self.bus.keeps_user_log();
        let actor = StreamActor {
            account_id: account_id.to_owned(),
            stream_id: if shared {
                SHARED_STREAM.to_owned()
            } else {
                format!("{:016x}", rand::random::<u64>())
            },
            seq: 0,
            first_complete_seq: if shared { u64::MAX } else { 1 },
            shared,
            log_opened: Instant::now(),
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

    /// Opens the user's shared log, with a bus that keeps one: answers its
    /// number, for the session's [`Attach`].
    pub async fn open_log(&self, account_id: &str) -> Option<u64> {
        if !self.bus.keeps_user_log() {
            return None;
        }
        self.bus.open_user_log(account_id).await
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
#[path = "stream_tests.rs"]
mod tests;
