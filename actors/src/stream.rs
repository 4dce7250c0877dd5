//! `StreamActor`: a user's push stream on this node. It subscribes to the
//! Bus topic `user:{id}`, numbers every pushed frame, keeps the last frames
//! in a replay buffer, and fans them out to every socket of the user. It
//! outlives the user's last socket by a grace period, so frames pushed while
//! a browser reconnects are buffered and replayed on resume.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::prelude::*;
use infra::bus::{user_topic, BusMessage, DynBus, Received};
use protocol::frame::{Frame, FrameType, ResumeResult};

use crate::message::{Attach, Attached, CloseSocket, Detach, Push, Replay, SessionId};

struct Member {
    token_hash: String,
    push: Recipient<Push>,
    close: Recipient<CloseSocket>,
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
    ring: VecDeque<Arc<Frame>>,
    capacity: usize,
    members: HashMap<SessionId, Member>,
    empty_since: Option<Instant>,
    grace: Duration,
    bus: DynBus,
    registry: StreamRegistry,
}

impl StreamActor {
    fn push_frame(&mut self, frame_type: u16, content: serde_json::Value) {
        self.seq += 1;
        let frame = Arc::new(Frame {
            kind: frame_type,
            token: None,
            content,
            seq: Some(self.seq),
        });
        if self.ring.len() >= self.capacity {
            self.ring.pop_front();
        }
        self.ring.push_back(frame.clone());
        for m in self.members.values() {
            m.push.do_send(Push(frame.clone()));
        }
    }

    fn oldest_buffered(&self) -> u64 {
        self.ring
            .front()
            .and_then(|f| f.seq)
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
                let frame = Arc::new(Frame::new(
                    FrameType::Resume,
                    serde_json::to_value(resume).unwrap_or_default(),
                ));
                for m in self.members.values() {
                    m.push.do_send(Push(frame.clone()));
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
        self.members.insert(
            msg.session_id,
            Member {
                token_hash: msg.token_hash,
                push: msg.push,
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
                .filter(|f| f.seq.is_some_and(|s| s > msg.last_seq))
            {
                member.push.do_send(Push(f.clone()));
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
        member.push.do_send(Push(Arc::new(Frame::new(
            FrameType::Resume,
            serde_json::to_value(answer).unwrap_or_default(),
        ))));
    }
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
