//! ChatActor: one per active chat session on this node. It lets one reply
//! run at a time (a second start answers ChatReplyRunning), builds the
//! prompt, opens the model's token stream and hands it to a *pump* task
//! that streams the deltas as frames 11 to the owner's `user:{id}` topic,
//! saves the text as it grows (every [`SAVE_DELTAS`] deltas or
//! [`SAVE_EVERY`], so a crash loses little) and stores the final state.
//! The pump does not care about sockets: a reply keeps running when the
//! owner's browser goes away, and is whole in the Store when it comes back.
//!
//! Cancel is by drop: `Stop` fires the pump's cancel signal, the pump drops
//! the token stream (which stops the engine) and keeps the partial text as
//! `cancelled`.
//!
//! Crash repair is lazy, on read (`ChatCore::resolve`): a row still
//! `streaming` that no pump is writing is marked `failed` ("interrupted by
//! a server restart"). The Store cannot list every session cheaply, so there
//! is no start-up sweep; every path that shows or extends a message
//! resolves it first. Which rows have no pump: on this process, those the
//! session's actor is not running; rows written by another process, at once
//! on a single node (embedded store, no Redis: that process is dead), or
//! after [`STALE_AFTER`] without a write on a cluster (the writer rewrites
//! a streaming row at least every [`HEARTBEAT`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::prelude::*;
use infra::bus::{user_topic, BusMessage, DynBus, PushContent};
use infra::store::{Key, ScanRange, Table};
use llm::{ChatMessage, ChatRequest, DynLanguageModel, TokenStream};
use protocol::chat::{ChatDelta, MessageRole, MessageState, ModelTag};
use protocol::frame::FrameType;
use protocol::ErrorCode;
use tokio::sync::{oneshot, watch};

use super::message::{Finished, LiveText, Snapshot, Start, StartKind, Stop};
use super::prompt::{self, PromptInput};
use super::pump::{lock, pump, Began};
use super::row::{new_msg_id, preview, ChatMessageRow, ChatSessionRow};
use crate::accounts::now_millis;
use crate::actor_map::ActorMap;
use crate::error::ApiError;

/// A chat actor with no reply running and no message for this long stops.
const IDLE_STOP: Duration = Duration::from_secs(300);
/// A growing reply is saved at least this often...
pub const SAVE_EVERY: Duration = Duration::from_secs(1);
/// ...and after this many unsaved deltas.
pub const SAVE_DELTAS: u32 = 32;
/// A streaming row is rewritten at least this often even when the model is
/// silent, so other nodes can tell a live reply from an orphaned one.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// On a cluster, a streaming row of another node unchanged for this long is orphaned.
pub const STALE_AFTER: Duration = Duration::from_secs(30);
/// How many of the newest messages a reply's prompt is chosen from.
const HISTORY_ROWS: u32 = 400;
/// The reason stored on a reply whose server stopped mid-way.
pub const INTERRUPTED: &str = "interrupted by a server restart";

/// The tables, bus and model the chat code works on.
pub struct ChatCore {
    pub sessions: Table<ChatSessionRow>,
    pub messages: Table<ChatMessageRow>,
    pub bus: DynBus,
    pub llm: DynLanguageModel,
    /// This process's id, written on the streaming rows its pumps own.
    pub node: String,
    /// One node only (no Redis): a streaming row of another process is orphaned at once.
    pub single_node: bool,
    /// The server's cap on reply length, whatever a session asks for.
    pub max_reply_tokens: u32,
    /// Speaks finished replies of sessions with a voice (set once at start).
    pub speech: std::sync::OnceLock<crate::timbre::chat::ChatSpeech>,
    /// Masks replies as they stream and checks users' messages (set once at start).
    pub text_filter: std::sync::OnceLock<crate::textfilter::TextFilterService>,
}

/// An error from the model: the reason is the engine's, which is safe to show.
pub fn model_error(e: llm::LlmError) -> ApiError {
    ApiError::with_msg(ErrorCode::LanguageModelUnavailable, e.to_string())
}

fn running() -> ApiError {
    ErrorCode::ChatReplyRunning.into()
}

impl ChatCore {
    pub fn model_tag(&self) -> ModelTag {
        let i = self.llm.info();
        ModelTag {
            name: i.name,
            label: i.label,
            neural: i.neural,
        }
    }

    /// The newest `limit` messages, oldest first (before `before` when set).
    pub async fn newest(
        &self,
        session: &str,
        limit: u32,
        before: Option<u64>,
    ) -> Result<Vec<ChatMessageRow>, ApiError> {
        let mut range = ScanRange::all(limit.max(1)).desc();
        if let Some(b) = before {
            range.to = std::ops::Bound::Excluded(Key::empty().u64(b));
        }
        let page = self.messages.scan(&Key::of(session), &range).await?;
        let mut rows: Vec<ChatMessageRow> = page.rows.into_iter().map(|(_, r)| r).collect();
        rows.reverse();
        Ok(rows)
    }

    /// Whether a streaming row has nobody writing it (see the module docs).
    /// `live_here` is the reply this node's actor runs for the session, if any.
    pub fn orphaned(&self, row: &ChatMessageRow, live_here: Option<&LiveText>) -> bool {
        if row.state != MessageState::Streaming {
            return false;
        }
        if row.node == self.node {
            return live_here.is_none_or(|l| l.msg_id != row.id);
        }
        self.single_node
            || now_millis().saturating_sub(row.update_at) > STALE_AFTER.as_millis() as i64
    }

    /// The row as it should be shown: an orphaned streaming row is marked
    /// failed (stored), a live one here gets its text so far.
    pub async fn resolve(
        &self,
        session: &str,
        row: ChatMessageRow,
        live_here: Option<&LiveText>,
    ) -> Result<ChatMessageRow, ApiError> {
        if self.orphaned(&row, live_here) {
            let node = row.node.clone();
            let ck = Key::empty().u64(row.idx);
            let fixed = self
                .messages
                .update(&Key::of(session), &ck, Some(row.clone()), |m| {
                    // Only if still the same unfinished reply (its pump may just have ended).
                    if m.state == MessageState::Streaming && m.node == node {
                        m.state = MessageState::Failed;
                        m.error = Some(INTERRUPTED.to_owned());
                        m.update_at = now_millis();
                    }
                })
                .await?;
            if fixed.is_some() {
                tracing::info!(session = %session, msg = %row.id, "orphaned reply marked failed");
            }
            return Ok(fixed.unwrap_or(row));
        }
        match live_here {
            Some(l) if row.state == MessageState::Streaming && l.msg_id == row.id => {
                Ok(ChatMessageRow {
                    content: l.content.clone(),
                    seq: l.seq,
                    state: l.state,
                    ..row
                })
            }
            _ => Ok(row),
        }
    }

    pub(super) async fn push(&self, owner: &str, d: &ChatDelta) {
        match PushContent::new(d) {
            Ok(content) => {
                self.bus
                    .publish(
                        &user_topic(owner),
                        BusMessage::Push {
                            frame_type: FrameType::ChatStream.as_u16(),
                            content,
                        },
                    )
                    .await
            }
            Err(e) => tracing::error!(error = %e, "chat delta did not serialise"),
        }
    }

    /// Everything of a start up to the running reply: history, prompt, the
    /// model's stream, the stored rows. Runs inside the actor, so no other
    /// start of this session on this node interleaves.
    async fn begin(self: &Arc<Self>, cmd: Start) -> Result<(Began, TokenStream), ApiError> {
        let session = cmd.session;
        let sid = session.id.clone();
        let pk = Key::of(&sid);
        let mut recent = self.newest(&sid, HISTORY_ROWS, None).await?;
        // An unfinished reply is either another node's live one, or orphaned.
        for r in recent.iter_mut() {
            if r.state == MessageState::Streaming {
                *r = self.resolve(&sid, r.clone(), None).await?;
                if r.state == MessageState::Streaming {
                    return Err(running());
                }
            }
        }
        let next_idx = recent.last().map(|r| r.idx + 1).unwrap_or(0);
        enum Target {
            /// A new reply row at this index.
            New(u64),
            /// A new reply replacing this row (regenerate).
            Replace(ChatMessageRow),
            /// More text on this row (continue).
            Extend(ChatMessageRow),
        }
        let (history, user_text, target) = match &cmd.kind {
            StartKind::New(text) => (&recent[..], Some(text.clone()), Target::New(next_idx + 1)),
            StartKind::Regenerate => match recent.split_last() {
                Some((last, rest)) if last.role == MessageRole::Assistant && last.idx > 0 => {
                    (rest, None, Target::Replace(last.clone()))
                }
                Some((last, _)) if last.role == MessageRole::User => {
                    (&recent[..], None, Target::New(next_idx))
                }
                _ => {
                    return Err(ApiError::with_msg(
                        ErrorCode::ChatMessageInvalid,
                        "there is no reply to regenerate",
                    ))
                }
            },
            StartKind::Continue => match recent.split_last() {
                Some((last, rest)) if last.role == MessageRole::Assistant => {
                    (rest, None, Target::Extend(last.clone()))
                }
                _ => {
                    return Err(ApiError::with_msg(
                        ErrorCode::ChatMessageInvalid,
                        "there is no reply to continue",
                    ))
                }
            },
        };
        let mut messages: Vec<ChatMessage> = history
            .iter()
            .filter(|r| !r.content.trim().is_empty())
            .map(|r| ChatMessage::new(prompt::role_of(r.role), r.content.clone()))
            .collect();
        if let Some(t) = &user_text {
            messages.push(ChatMessage::user(t.clone()));
        }
        let prefill = match &target {
            Target::Extend(r) if !r.content.is_empty() => Some(r.content.clone()),
            _ => None,
        };
        let info = self.llm.info();
        let max_reply = session
            .settings
            .max_reply_tokens
            .min(self.max_reply_tokens)
            .max(1);
        let llm = self.llm.clone();
        let count = move |s: &str| llm.count_tokens(s);
        let built = prompt::build(
            &PromptInput {
                character: &session.character,
                user_name: &cmd.user_name,
                user_persona: &cmd.user_persona,
                datacards: &cmd.datacards,
                history: &messages,
                context_tokens: info.context_tokens as usize,
                max_reply_tokens: max_reply as usize,
                prefill_tokens: prefill.as_deref().map(&count).unwrap_or(0),
            },
            &count,
        );
        tracing::debug!(
            session = %sid,
            tokens = built.tokens,
            dropped = built.dropped,
            "chat prompt built"
        );
        let request = ChatRequest {
            messages: built.messages,
            max_tokens: max_reply,
            temperature: session.settings.temperature,
            top_p: session.settings.top_p,
            // A regenerated reply should be able to differ.
            seed: now_millis() as u64,
            stop: vec![format!("\n{}:", cmd.user_name)],
            prefill,
        };
        // Errors known before the first token answer the start itself, and nothing is stored.
        let stream = self.llm.stream(request).await.map_err(model_error)?;

        let now = now_millis();
        let tag = self.model_tag();
        let fresh = |idx: u64| ChatMessageRow {
            id: new_msg_id(idx),
            idx,
            role: MessageRole::Assistant,
            content: String::new(),
            create_at: now,
            update_at: now,
            state: MessageState::Streaming,
            liked: 0,
            model: Some(tag.clone()),
            error: None,
            seq: 0,
            node: self.node.clone(),
        };
        if let Some(t) = &user_text {
            let user = ChatMessageRow {
                id: new_msg_id(next_idx),
                idx: next_idx,
                role: MessageRole::User,
                content: t.clone(),
                create_at: now,
                update_at: now,
                state: MessageState::Done,
                liked: 0,
                model: None,
                error: None,
                seq: 0,
                node: String::new(),
            };
            let ck = Key::empty().u64(next_idx);
            if self
                .messages
                .insert_if_absent(&pk, &ck, &user)
                .await?
                .is_err()
            {
                // Another node wrote this index first: it is answering now.
                return Err(running());
            }
        }
        let row = match target {
            Target::New(idx) => {
                let row = fresh(idx);
                let ck = Key::empty().u64(idx);
                if self
                    .messages
                    .insert_if_absent(&pk, &ck, &row)
                    .await?
                    .is_err()
                {
                    return Err(running());
                }
                row
            }
            Target::Replace(old) => {
                let row = fresh(old.idx);
                let ck = Key::empty().u64(old.idx);
                self.messages
                    .update(&pk, &ck, Some(old), |m| *m = row.clone())
                    .await?
                    .ok_or_else(|| {
                        ApiError::with_msg(
                            ErrorCode::ChatMessageInvalid,
                            "there is no reply to regenerate",
                        )
                    })?
            }
            Target::Extend(old) => {
                let ck = Key::empty().u64(old.idx);
                let id = old.id.clone();
                let node = self.node.clone();
                let row = self
                    .messages
                    .update(&pk, &ck, Some(old), |m| {
                        if m.id == id {
                            m.state = MessageState::Streaming;
                            m.node = node.clone();
                            m.error = None;
                            m.model = Some(tag.clone());
                            m.update_at = now;
                        }
                    })
                    .await?;
                match row {
                    Some(r) if r.id == id && r.state == MessageState::Streaming => r,
                    _ => {
                        return Err(ApiError::with_msg(
                            ErrorCode::ChatMessageInvalid,
                            "there is no reply to continue",
                        ))
                    }
                }
            }
        };
        self.sessions
            .update(&pk, &Key::empty(), None, |s| {
                s.update_at = now;
                if let Some(t) = &user_text {
                    s.last_message = preview(t);
                }
            })
            .await?;
        let live = Arc::new(Mutex::new(LiveText {
            msg_id: row.id.clone(),
            content: row.content.clone(),
            seq: row.seq,
            state: MessageState::Streaming,
        }));
        Ok((
            Began {
                owner: session.owner,
                session_id: sid,
                row,
                live,
            },
            stream,
        ))
    }
}

/// The reply a chat actor runs.
struct Running {
    msg_id: String,
    live: Arc<Mutex<LiveText>>,
    /// Fired by `Stop`; taken so a second stop is a no-op.
    cancel: Option<oneshot::Sender<()>>,
    done: watch::Receiver<bool>,
}

pub struct ChatActor {
    id: String,
    core: Arc<ChatCore>,
    registry: ChatRegistry,
    running: Option<Running>,
    last_message: Instant,
}

impl Actor for ChatActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(Duration::from_secs(30), |act, ctx| {
            if act.running.is_none() && act.last_message.elapsed() > IDLE_STOP {
                ctx.stop();
            }
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        self.registry.forget(&self.id);
    }
}

impl Handler<Start> for ChatActor {
    type Result = AtomicResponse<Self, Result<String, ApiError>>;

    fn handle(&mut self, msg: Start, _ctx: &mut Self::Context) -> Self::Result {
        self.last_message = Instant::now();
        // A reply whose pump has finished (its `Finished` may still be queued) no longer counts.
        if self.running.as_ref().is_some_and(|r| !*r.done.borrow()) {
            return AtomicResponse::new(Box::pin(fut::ready(Err(running()))));
        }
        let core = self.core.clone();
        AtomicResponse::new(Box::pin(
            async move {
                let began = core.begin(msg).await;
                (core, began)
            }
            .into_actor(self)
            .map(|(core, began), act, ctx| {
                let (b, stream) = began?;
                let msg_id = b.row.id.clone();
                let (cancel_tx, cancel_rx) = oneshot::channel();
                let (done_tx, done_rx) = watch::channel(false);
                act.running = Some(Running {
                    msg_id: msg_id.clone(),
                    live: b.live.clone(),
                    cancel: Some(cancel_tx),
                    done: done_rx,
                });
                actix::spawn(pump(core, b, stream, cancel_rx, done_tx, ctx.address()));
                Ok(msg_id)
            }),
        ))
    }
}

impl Handler<Stop> for ChatActor {
    type Result = Option<watch::Receiver<bool>>;

    fn handle(&mut self, _msg: Stop, _ctx: &mut Self::Context) -> Self::Result {
        self.last_message = Instant::now();
        let r = self.running.as_mut().filter(|r| !*r.done.borrow())?;
        if let Some(tx) = r.cancel.take() {
            let _ = tx.send(());
        }
        Some(r.done.clone())
    }
}

impl Handler<Snapshot> for ChatActor {
    type Result = Option<LiveText>;

    fn handle(&mut self, _msg: Snapshot, _ctx: &mut Self::Context) -> Self::Result {
        self.running.as_ref().map(|r| lock(&r.live).clone())
    }
}

impl Handler<Finished> for ChatActor {
    type Result = ();

    fn handle(&mut self, msg: Finished, _ctx: &mut Self::Context) {
        self.last_message = Instant::now();
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.msg_id == msg.msg_id)
        {
            self.running = None;
        }
    }
}

/// The live chat actors of this node.
#[derive(Clone)]
pub struct ChatRegistry {
    core: Arc<ChatCore>,
    actors: ActorMap<ChatActor>,
}

impl ChatRegistry {
    pub fn new(core: Arc<ChatCore>) -> ChatRegistry {
        ChatRegistry {
            core,
            actors: ActorMap::default(),
        }
    }

    fn forget(&self, id: &str) {
        self.actors.forget(id);
    }

    fn actor(&self, id: &str, start: bool) -> Result<Option<Addr<ChatActor>>, ApiError> {
        let make = || ChatActor {
            id: id.to_owned(),
            core: self.core.clone(),
            registry: self.clone(),
            running: None,
            last_message: Instant::now(),
        };
        self.actors
            .get(id, start.then_some(&make as &dyn Fn() -> ChatActor))
    }

    /// Starts a reply on the session's actor (started on demand).
    pub async fn start(&self, id: &str, msg: impl Fn() -> Start) -> Result<String, ApiError> {
        for _ in 0..3 {
            let Some(addr) = self.actor(id, true)? else {
                break;
            };
            match addr.send(msg()).await {
                Ok(r) => return r,
                Err(MailboxError::Closed) => {
                    self.forget(id);
                    continue;
                }
                Err(MailboxError::Timeout) => break,
            }
        }
        Err(ApiError::internal("chat actor did not answer"))
    }

    /// Cancels the session's running reply and waits (bounded) until its
    /// final state is stored. False when none ran on this node.
    pub async fn stop(&self, id: &str) -> Result<bool, ApiError> {
        let Some(addr) = self.actor(id, false)? else {
            return Ok(false);
        };
        let Ok(Some(mut done)) = addr.send(Stop).await else {
            return Ok(false);
        };
        let waited = tokio::time::timeout(Duration::from_secs(10), done.wait_for(|d| *d)).await;
        if waited.is_err() {
            tracing::warn!(session = %id, "a cancelled reply took over 10 s to store");
        }
        Ok(true)
    }

    /// The reply running for the session on this node, if any.
    pub async fn live(&self, id: &str) -> Option<LiveText> {
        let addr = self.actor(id, false).ok()??;
        addr.send(Snapshot).await.ok()?
    }
}
