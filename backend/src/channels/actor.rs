//! ChannelActor: one per active channel on this node. It serialises the
//! channel's messages (`AtomicResponse`), so each gets the next sequence
//! number, is stored, and only then is fanned out to every member's
//! `user:{id}` topic as frame 12, in one order for everyone. It caches the
//! member list (reloaded on every local membership change and at most
//! `MEMBERS_TTL` old, so changes made on another node apply within it) and
//! rate-limits senders. It stops after a quiet spell or when the channel is
//! disbanded; the Store is the truth, so a new actor starts on demand.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use infra::bus::{user_topic, BusMessage, DynBus, PushContent};
use infra::store::{Key, ScanRange, Table};
use protocol::frame::FrameType;
use protocol::im::{ImMessage, MessageKind, Role};
use protocol::ErrorCode;

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

    /// Pushes one frame to each of `to`: the content was encoded once, and
    /// every member's topic gets a shared reference to the same text.
    async fn fan_out<'a>(
        &self,
        to: impl Iterator<Item = &'a String>,
        frame_type: FrameType,
        content: &PushContent,
    ) {
        for account in to {
            self.bus
                .publish(
                    &user_topic(account),
                    BusMessage::Push {
                        frame_type: frame_type.as_u16(),
                        content: content.clone(),
                    },
                )
                .await;
        }
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

/// The actor's state; moved into each operation's future and back, which
/// is safe because `AtomicResponse` runs one operation at a time.
#[derive(Default)]
struct ChannelState {
    channel: Option<ChannelRow>,
    members: BTreeMap<String, Role>,
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

    async fn run(
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
            ChannelOp::Stop => Ok(OpOut::Done),
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
                core.fan_out(
                    self.members.keys().filter(|m| **m != except),
                    frame_type,
                    &content,
                )
                .await;
                Ok(OpOut::Done)
            }
            ChannelOp::Send {
                sender,
                sender_name,
                kind,
                content,
                limited,
            } => {
                self.fresh(core, id).await?;
                if !self.members.contains_key(&sender) {
                    return Err(ErrorCode::NoPermission.into());
                }
                if limited && !self.allow(&sender) {
                    return Err(ApiError::with_msg(
                        ErrorCode::TooManyRequests,
                        "too many messages: slow down",
                    ));
                }
                let known = self.channel.clone();
                let pk = Key::of(id);
                let next = core
                    .channels
                    .update(&pk, &Key::empty(), known, |c| c.last_seq += 1)
                    .await?;
                let next = match next {
                    Some(c) if !c.disbanded => c,
                    _ => {
                        self.channel = None;
                        return Err(ErrorCode::NotFound.into());
                    }
                };
                let seq = next.last_seq;
                self.channel = Some(next);
                let row = MessageRow {
                    seq,
                    sender: sender.clone(),
                    sender_name,
                    kind,
                    content: content.to_string(),
                    create_at: now_millis(),
                };
                // Stored before anyone hears of it: history never lags the sockets.
                core.messages.put(&pk, &Key::empty().u64(seq), &row).await?;
                let wire = MessageRow::wire(&row, id);
                match PushContent::new(&wire) {
                    Ok(v) => {
                        core.fan_out(self.members.keys(), FrameType::ImMessage, &v)
                            .await
                    }
                    Err(e) => tracing::error!(error = %e, "message did not serialise"),
                }
                // The sender has read what it sent.
                core.members
                    .update(&pk, &Key::of(&sender), None, |m| {
                        m.read_seq = m.read_seq.max(seq)
                    })
                    .await?;
                Ok(OpOut::Message(wire))
            }
        }
    }
}

pub struct ChannelActor {
    id: String,
    core: Arc<ChannelCore>,
    registry: ChannelRegistry,
    state: ChannelState,
    last_message: Instant,
}

impl Actor for ChannelActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(Duration::from_secs(30), |act, ctx| {
            if act.last_message.elapsed() > IDLE_STOP {
                ctx.stop();
            }
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        self.registry.forget(&self.id);
    }
}

impl Handler<Op> for ChannelActor {
    type Result = AtomicResponse<Self, Result<OpOut, ApiError>>;

    fn handle(&mut self, msg: Op, _ctx: &mut Self::Context) -> Self::Result {
        self.last_message = Instant::now();
        let stop = matches!(msg.0, ChannelOp::Stop);
        let core = self.core.clone();
        let id = self.id.clone();
        let mut state = std::mem::take(&mut self.state);
        AtomicResponse::new(Box::pin(
            async move {
                let res = state.run(&core, &id, msg.0).await;
                (state, res)
            }
            .into_actor(self)
            .map(move |(state, res), act, ctx| {
                act.state = state;
                if stop {
                    ctx.stop();
                }
                res
            }),
        ))
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
