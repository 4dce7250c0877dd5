//! ChannelActor: one per active channel on this node. It serialises the
//! channel's messages, so each gets the next sequence number, is stored,
//! and only then is fanned out to every member's `user:{id}` topic as
//! frame 12, in one order for everyone. Ops queue up while a drain round
//! runs and the next round takes them together: its sends share one
//! compare-and-set for their sequence numbers and one group of concurrent
//! writes (one durable commit with the store's group commit), so a busy
//! channel's throughput is not one message per three commits. It caches the
//! member list (reloaded on every local membership change and at most
//! `MEMBERS_TTL` old, so changes made on another node apply within it) and
//! rate-limits senders. It stops after a quiet spell or when the channel is
//! disbanded; the Store is the truth, so a new actor starts on demand.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use futures_util::future::{join, join_all};
use infra::bus::{DynBus, PushContent};
use infra::store::{Key, ScanRange, Table};
use protocol::frame::FrameType;
use protocol::im::{ImMessage, MessageKind, Role};
use protocol::ErrorCode;
use tokio::sync::oneshot;

use super::row::{ChannelRow, MemberRow, MessageRow};
use crate::accounts::now_millis;
use crate::actor_map::ActorMap;
use crate::error::ApiError;

/// A channel actor with no message for this long stops.
const IDLE_STOP: Duration = Duration::from_secs(300);
/// The member cache is reloaded when older than this (changes made on another node).
const MEMBERS_TTL: Duration = Duration::from_millis(1000);
/// Messages a member may send in a burst, and per second after it.
const BURST: f64 = 10.0;
const PER_SEC: f64 = 10.0;
/// Most ops one drain round takes from the queue (so most sends stored as
/// one group); the rest wait for the next round.
const MAX_ROUND: usize = 256;

/// The tables and bus the channel code works on.
pub struct ChannelCore {
    pub channels: Table<ChannelRow>,
    pub members: Table<MemberRow>,
    pub messages: Table<MessageRow>,
    pub bus: DynBus,
}

impl ChannelCore {
    /// The channel, or NotFound when it does not exist or was disbanded.
    pub async fn channel(&self, id: &str) -> Result<ChannelRow, ApiError> {
        match self.channels.get(&Key::of(id), &Key::empty()).await? {
            Some(c) if !c.disbanded => Ok(c),
            _ => Err(ErrorCode::NotFound.into()),
        }
    }

    /// Every member of a channel and its role.
    pub async fn member_roles(&self, id: &str) -> Result<BTreeMap<String, Role>, ApiError> {
        let mut out = BTreeMap::new();
        let mut paging = None;
        loop {
            let page = self
                .members
                .scan(&Key::of(id), &ScanRange::all(500).after(paging))
                .await?;
            for (ck, m) in page.rows {
                if let Some(acc) = ck.reader().str() {
                    out.insert(acc, m.role);
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok(out),
            }
        }
    }

    /// Pushes one frame to each of `to` as one bus operation: the content
    /// was encoded once, and every member's topic gets the same shared
    /// message (over Redis, one `PUBLISH` carrying the member list).
    async fn fan_out(&self, to: &[String], frame_type: FrameType, content: PushContent) {
        self.bus
            .push_to_users(to, frame_type.as_u16(), content)
            .await;
    }
}

/// What a channel actor does.
pub enum ChannelOp {
    /// Append a message from `sender` (a member), store it, fan it out.
    Send {
        sender: String,
        sender_name: String,
        kind: MessageKind,
        content: serde_json::Value,
        /// Generation results are posted by the server, not typed: no rate limit.
        limited: bool,
    },
    /// Push a frame to every member but `except` (a channel task's progress),
    /// unless the channel is private or `except` is no longer a member.
    Relay {
        except: String,
        frame_type: FrameType,
        /// Already encoded by the publisher (shared with the owner's frame).
        content: PushContent,
    },
    /// Membership or the channel changed: reload before the next message.
    Reload,
    /// The channel was disbanded: stop.
    Stop,
}

pub enum OpOut {
    Message(ImMessage),
    Done,
}

#[derive(Message)]
#[rtype(result = "Result<OpOut, ApiError>")]
pub struct Op(pub ChannelOp);

/// The actor's state; moved into each drain round's future and back, which
/// is safe because one round runs at a time.
#[derive(Default)]
struct ChannelState {
    channel: Option<ChannelRow>,
    members: BTreeMap<String, Role>,
    /// The member ids of `members`, built once per reload: every message
    /// fans out to this list, without copying an id per message.
    member_ids: Arc<[String]>,
    loaded: Option<Instant>,
    /// Token buckets per sender: (tokens, when last refilled).
    buckets: HashMap<String, (f64, Instant)>,
}

impl ChannelState {
    async fn fresh(&mut self, core: &ChannelCore, id: &str) -> Result<(), ApiError> {
        let stale = self.loaded.is_none_or(|t| t.elapsed() > MEMBERS_TTL);
        if stale || self.channel.is_none() {
            let channel = core.channel(id).await;
            let channel = match channel {
                Ok(c) => c,
                Err(e) => {
                    self.channel = None;
                    self.loaded = None;
                    return Err(e);
                }
            };
            self.members = core.member_roles(id).await?;
            self.member_ids = self.members.keys().cloned().collect();
            self.channel = Some(channel);
            self.loaded = Some(Instant::now());
        }
        Ok(())
    }

    fn allow(&mut self, sender: &str) -> bool {
        let now = Instant::now();
        if self.buckets.len() > 10_000 {
            self.buckets
                .retain(|_, (_, at)| now.duration_since(*at) < Duration::from_secs(10));
        }
        let (tokens, at) = self
            .buckets
            .entry(sender.to_owned())
            .or_insert((BURST, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * PER_SEC).min(BURST);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Runs one op that is not a `Send` (those go through [`Self::admit`]
    /// and [`Self::store_sends`]).
    async fn run_other(
        &mut self,
        core: &ChannelCore,
        id: &str,
        op: ChannelOp,
    ) -> Result<OpOut, ApiError> {
        match op {
            ChannelOp::Reload => {
                self.loaded = None;
                self.channel = None;
                Ok(OpOut::Done)
            }
            ChannelOp::Stop | ChannelOp::Send { .. } => Ok(OpOut::Done),
            ChannelOp::Relay {
                except,
                frame_type,
                content,
            } => {
                self.fresh(core, id).await?;
                let private = self.channel.as_ref().is_none_or(|c| c.private);
                if private || !self.members.contains_key(&except) {
                    return Ok(OpOut::Done);
                }
                let others: Vec<String> = self
                    .members
                    .keys()
                    .filter(|m| **m != except)
                    .cloned()
                    .collect();
                core.fan_out(&others, frame_type, content).await;
                Ok(OpOut::Done)
            }
        }
    }

    /// The per-message checks of a send, in arrival order and before any
    /// sequence number is taken: a refused message takes none.
    async fn admit(
        &mut self,
        core: &ChannelCore,
        id: &str,
        send: PendingSend,
    ) -> Option<PendingSend> {
        let verdict = match self.fresh(core, id).await {
            Err(e) => Err(e),
            // A stranger's send answers like a missing channel's.
            Ok(()) if !self.members.contains_key(&send.sender) => Err(ErrorCode::NotFound.into()),
            Ok(()) if send.limited && !self.allow(&send.sender) => Err(ApiError::with_msg(
                ErrorCode::TooManyRequests,
                "too many messages: slow down",
            )),
            Ok(()) => Ok(()),
        };
        match verdict {
            Ok(()) => Some(send),
            Err(e) => {
                // The caller may have gone; nothing else to tell.
                let _ = send.reply.send(Err(e));
                None
            }
        }
    }

    /// Stores admitted sends as one group: one compare-and-set takes `k`
    /// sequence numbers, the `k` rows and the senders' read marks are
    /// written concurrently (the store's group commit puts them under one
    /// durable commit), then the stored messages are fanned out in sequence
    /// order and each caller is answered with its own message or error.
    async fn store_sends(&mut self, core: &ChannelCore, id: &str, sends: Vec<PendingSend>) {
        let Some(k) = u64::try_from(sends.len()).ok().filter(|k| *k > 0) else {
            return;
        };
        let pk = Key::of(id);
        // The CAS stays the cross-node guard: another node's actor for this
        // channel (over Redis) cannot hand out the same numbers.
        let next = core
            .channels
            .update(&pk, &Key::empty(), self.channel.clone(), |c| {
                c.last_seq += k
            })
            .await;
        let next = match next {
            Ok(Some(c)) if !c.disbanded => c,
            Ok(_) => {
                self.channel = None;
                for s in sends {
                    let _ = s.reply.send(Err(ErrorCode::NotFound.into()));
                }
                return;
            }
            Err(e) => {
                let e = ApiError::from(e);
                for s in sends {
                    let _ = s.reply.send(Err(copy(&e)));
                }
                return;
            }
        };
        let first = next.last_seq.saturating_sub(k) + 1;
        tracing::trace!(channel = %id, first, sends = k, "storing a group of sends");
        self.channel = Some(next);
        let now = now_millis();
        let mut marks: HashMap<String, u64> = HashMap::new();
        let mut rows = Vec::with_capacity(sends.len());
        let mut replies = Vec::with_capacity(sends.len());
        for (seq, s) in (first..).zip(sends) {
            let mark = marks.entry(s.sender.clone()).or_insert(seq);
            *mark = (*mark).max(seq);
            rows.push(MessageRow {
                seq,
                sender: s.sender,
                sender_name: s.sender_name,
                kind: s.kind,
                content: s.content.to_string(),
                create_at: now,
            });
            replies.push(s.reply);
        }
        let row_keys: Vec<Key> = rows.iter().map(|r| Key::empty().u64(r.seq)).collect();
        let puts = rows
            .iter()
            .zip(&row_keys)
            .map(|(row, ck)| core.messages.put(&pk, ck, row));
        // The sender has read what it sent. A read mark is a monotone max,
        // so writing it alongside the rows (not after) cannot go backwards.
        let mark_keys: Vec<(Key, u64)> = marks
            .iter()
            .map(|(sender, seq)| (Key::of(sender), *seq))
            .collect();
        let reads = mark_keys.iter().map(|(ck, seq)| {
            let seq = *seq;
            core.members
                .update(&pk, ck, None, move |m| m.read_seq = m.read_seq.max(seq))
        });
        let (stored, read) = join(join_all(puts), join_all(reads)).await;
        for (r, (sender, _)) in read.into_iter().zip(&marks) {
            if let Err(e) = r {
                // The message itself was stored and goes out: answering an
                // error would invite a duplicate resend for a read mark.
                tracing::warn!(channel = %id, account = %sender, error = %e, "read mark not moved");
            }
        }
        for ((row, stored), reply) in rows.iter().zip(stored).zip(replies) {
            let answer = match stored {
                Ok(()) => {
                    // Stored before anyone hears of it: history never lags
                    // the sockets. Fanned out in sequence order.
                    let wire = MessageRow::wire(row, id);
                    match PushContent::new(&wire) {
                        Ok(v) => {
                            core.fan_out(&self.member_ids, FrameType::ImMessage, v)
                                .await
                        }
                        Err(e) => tracing::error!(error = %e, "message did not serialise"),
                    }
                    Ok(OpOut::Message(wire))
                }
                // The sequence number is burnt: history and resume read
                // rows by range and tolerate the gap, and unread counts
                // (last_seq − read_seq) overcount it by one until read past.
                // The message is not fanned out: nobody hears of it.
                Err(e) => Err(ApiError::from(e)),
            };
            let _ = reply.send(answer);
        }
    }

    /// One drain round: the ops in arrival order, consecutive sends stored
    /// as one group; any other op first stores the sends before it, so
    /// Relay, Reload and Stop keep their order relative to sends. True when
    /// a Stop was run (the rest of the round is answered NotFound: the
    /// channel was disbanded).
    async fn round(&mut self, core: &ChannelCore, id: &str, ops: Vec<Queued>) -> bool {
        let mut sends = Vec::new();
        let mut ops = ops.into_iter();
        while let Some(q) = ops.next() {
            match q.op {
                ChannelOp::Send {
                    sender,
                    sender_name,
                    kind,
                    content,
                    limited,
                } => {
                    // Like the mailbox, an op whose caller has gone is not run.
                    if q.reply.is_closed() {
                        continue;
                    }
                    let send = PendingSend {
                        sender,
                        sender_name,
                        kind,
                        content,
                        limited,
                        reply: q.reply,
                    };
                    if let Some(s) = self.admit(core, id, send).await {
                        sends.push(s);
                    }
                }
                other => {
                    self.store_sends(core, id, std::mem::take(&mut sends)).await;
                    let stop = matches!(other, ChannelOp::Stop);
                    let res = self.run_other(core, id, other).await;
                    let _ = q.reply.send(res);
                    if stop {
                        for rest in ops {
                            let _ = rest.reply.send(Err(ErrorCode::NotFound.into()));
                        }
                        return true;
                    }
                }
            }
        }
        self.store_sends(core, id, sends).await;
        false
    }
}

/// A copy of an error answered to every caller of a failed group.
fn copy(e: &ApiError) -> ApiError {
    ApiError {
        code: e.code,
        msg: e.msg.clone(),
    }
}

/// Where an op's answer goes.
type Reply = oneshot::Sender<Result<OpOut, ApiError>>;

/// An op waiting for the next drain round.
struct Queued {
    op: ChannelOp,
    reply: Reply,
}

/// A `Send` op taken apart, with its caller.
struct PendingSend {
    sender: String,
    sender_name: String,
    kind: MessageKind,
    content: serde_json::Value,
    limited: bool,
    reply: Reply,
}

pub struct ChannelActor {
    id: String,
    core: Arc<ChannelCore>,
    registry: ChannelRegistry,
    /// Moved into the running drain round and back; only that round uses it.
    state: ChannelState,
    /// Ops received while a round runs, in arrival order: each entry is one
    /// waiting caller, and a round takes at most `MAX_ROUND` of them.
    queue: VecDeque<Queued>,
    /// A drain round is running: new ops only queue up behind it.
    draining: bool,
    last_message: Instant,
}

impl ChannelActor {
    /// Starts a round over the queue's front (or marks the actor idle when
    /// the queue is empty). At most one round runs at a time, so ops keep
    /// their arrival order and the state is never shared.
    fn drain(&mut self, ctx: &mut Context<Self>) {
        let take = self.queue.len().min(MAX_ROUND);
        if take == 0 {
            self.draining = false;
            return;
        }
        self.draining = true;
        let ops: Vec<Queued> = self.queue.drain(..take).collect();
        let core = self.core.clone();
        let id = self.id.clone();
        let mut state = std::mem::take(&mut self.state);
        ctx.spawn(
            async move {
                let stop = state.round(&core, &id, ops).await;
                (state, stop)
            }
            .into_actor(self)
            .map(|(state, stop), act, ctx| {
                act.state = state;
                if stop {
                    act.draining = false;
                    ctx.stop();
                } else {
                    act.drain(ctx);
                }
            }),
        );
    }
}

impl Actor for ChannelActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(Duration::from_secs(30), |act, ctx| {
            if !act.draining && act.last_message.elapsed() > IDLE_STOP {
                ctx.stop();
            }
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        // Ops queued behind a Stop: the channel was disbanded.
        for q in self.queue.drain(..) {
            let _ = q.reply.send(Err(ErrorCode::NotFound.into()));
        }
        self.registry.forget(&self.id);
    }
}

impl Handler<Op> for ChannelActor {
    type Result = ResponseFuture<Result<OpOut, ApiError>>;

    /// Queues the op and answers when its round has run it; the mailbox is
    /// never blocked, so sends arriving during a round gather for the next.
    fn handle(&mut self, msg: Op, ctx: &mut Self::Context) -> Self::Result {
        self.last_message = Instant::now();
        let (reply, answer) = oneshot::channel();
        self.queue.push_back(Queued { op: msg.0, reply });
        if !self.draining {
            self.drain(ctx);
        }
        Box::pin(async move {
            answer
                .await
                .unwrap_or_else(|_| Err(ApiError::internal("channel actor stopped")))
        })
    }
}

/// The live channel actors of this node.
#[derive(Clone)]
pub struct ChannelRegistry {
    core: Arc<ChannelCore>,
    actors: ActorMap<ChannelActor>,
}

impl ChannelRegistry {
    pub fn new(core: Arc<ChannelCore>) -> ChannelRegistry {
        ChannelRegistry {
            core,
            actors: ActorMap::default(),
        }
    }

    fn forget(&self, id: &str) {
        self.actors.forget(id);
    }

    fn actor(&self, id: &str, start: bool) -> Result<Option<Addr<ChannelActor>>, ApiError> {
        let make = || ChannelActor {
            id: id.to_owned(),
            core: self.core.clone(),
            registry: self.clone(),
            state: ChannelState::default(),
            queue: VecDeque::new(),
            draining: false,
            last_message: Instant::now(),
        };
        self.actors
            .get(id, start.then_some(&make as &dyn Fn() -> ChannelActor))
    }

    /// Runs `op` on the channel's actor (started on demand).
    pub async fn run(&self, id: &str, op: impl Fn() -> ChannelOp) -> Result<OpOut, ApiError> {
        for _ in 0..3 {
            let Some(addr) = self.actor(id, true)? else {
                break;
            };
            match addr.send(Op(op())).await {
                Ok(r) => return r,
                Err(MailboxError::Closed) => {
                    self.forget(id);
                    continue;
                }
                Err(MailboxError::Timeout) => break,
            }
        }
        Err(ApiError::internal("channel actor did not answer"))
    }

    /// Tells a running actor (if any) that membership or the channel changed.
    pub async fn notify(&self, id: &str, op: ChannelOp) {
        if let Ok(Some(addr)) = self.actor(id, false) {
            if let Err(e) = addr.send(Op(op)).await {
                tracing::debug!(channel = %id, error = %e, "channel actor gone");
            }
        }
    }
}
