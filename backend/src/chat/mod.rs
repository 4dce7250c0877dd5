//! Character chat (spec 3 §2): sessions with a character, their messages,
//! replies written by the language model and streamed as frames 11 (through
//! the `ChatActor`), regenerate and continue, stop, quick chat, reply
//! suggestions and draft polishing.
//!
//! Checks are in one order everywhere: a visitor is NeedLogin (the route's
//! extractor), a session that is not the caller's is NotFound (never
//! NoPermission, so ids cannot be probed), a message that is not in the
//! session is NotFound, then the body's rules, then the per-account rate
//! limit of model calls, then ChatReplyRunning.
//!
//! Message ids are `{idx}.{random}` (see `row::ChatMessageRow::id`). A
//! regenerated reply gets a *new* id at the same index (the old id answers
//! NotFound afterwards) and its frames count from 1 again; a continued reply
//! keeps its id and its frames keep counting from its stored `seq`.

pub mod actor;
mod bindings;
mod filter;
pub mod message;
mod messages;
pub mod portrait;
pub mod prompt;
mod pump;
mod quick;
pub mod row;
mod text;

pub use text::{clean_polished, parse_suggestions};

use std::sync::Arc;
use std::time::Duration;

use infra::bus::DynBus;
use infra::store::{tables, DynStore, Key, PagingState, ScanRange, Table};
use llm::{ChatMessage, ChatRequest, DynLanguageModel};
use protocol::character::ChatSettingsView;
use protocol::chat::{
    chat_text, CanTalk, ChatStartRequest, ChatTextError, MessageRole, MessageState, MessageView,
    SessionList, SessionView, DEFAULT_MESSAGE_LIST_LIMIT, MAX_MESSAGE_LIST_LIMIT,
    MAX_SESSION_DATACARDS, MAX_SESSION_LIST_LIMIT, MAX_SESSION_TITLE_CHARS,
};
use protocol::ErrorCode;

use self::actor::{model_error, ChatCore, ChatRegistry};
use self::message::{Start, StartKind};
use self::prompt::{macros, CardText};
use self::row::{idx_of, preview, CharacterSnapshot, ChatMessageRow, ChatSessionRow};
use crate::accounts::{now_millis, AccountRow};
use crate::characters::row::ChatSettings;
use crate::characters::CharacterService;
use crate::error::ApiError;
use crate::ratelimit::{RateLimiter, RateLimits};

/// Model calls one account may make per minute (the figure is in `protocol`,
/// where the load harness reads it too).
pub use protocol::chat::MODEL_CALLS_PER_MINUTE;
/// Most tokens a suggestion or polish answer may take.
const SUGGEST_TOKENS: u32 = 96;
const POLISH_MAX_TOKENS: u32 = 512;
/// Longest suggested reply kept, in characters.
const SUGGESTION_CHARS: usize = 160;
/// How many of the newest messages the suggestions look at.
const SUGGEST_CONTEXT: u32 = 8;

fn not_found() -> ApiError {
    ErrorCode::NotFound.into()
}

fn invalid(msg: &str) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

fn bad_text(e: ChatTextError) -> ApiError {
    ApiError::with_msg(ErrorCode::ChatMessageInvalid, e.to_string())
}

fn valid_settings(s: &ChatSettingsView) -> Result<ChatSettings, ApiError> {
    let ok = (0.0..=2.0).contains(&s.temperature)
        && (0.0..=1.0).contains(&s.top_p)
        && (16..=1024).contains(&s.max_reply_tokens);
    if !ok {
        return Err(invalid(
            "temperature must be 0 to 2, top_p 0 to 1, max_reply_tokens 16 to 1024",
        ));
    }
    Ok(ChatSettings {
        temperature: s.temperature,
        top_p: s.top_p,
        max_reply_tokens: s.max_reply_tokens,
    })
}

#[derive(Clone)]
pub struct ChatService {
    core: Arc<ChatCore>,
    registry: ChatRegistry,
    /// pk account · ck (create_at ms, session id).
    by_owner: Table<()>,
    characters: CharacterService,
    /// Model calls per account (see [`MODEL_CALLS_PER_MINUTE`]).
    limit: Arc<RateLimiter>,
    /// Cards documents made for the character, retrieved per message (set once at start).
    rag: Arc<std::sync::OnceLock<crate::rag::RagService>>,
}

impl ChatService {
    /// Turns on speaking finished replies of sessions with a voice.
    pub fn set_speech(&self, speech: crate::timbre::chat::ChatSpeech) {
        let _ = self.core.speech.set(speech);
    }

    /// Turns on the text filter: users' messages (scene `message`) are
    /// masked or refused, replies masked as they stream (`filter.rs`).
    pub fn set_text_filter(&self, filter: crate::textfilter::TextFilterService) {
        let _ = self.core.text_filter.set(filter);
    }

    /// Turns on retrieval: a new message in the owner's chat with their
    /// character brings the best fitting cards documents made for that
    /// character into the prompt (`crate::rag::retrieve`).
    pub fn set_rag(&self, rag: crate::rag::RagService) {
        let _ = self.rag.set(rag);
    }

    /// `single_node`: no Redis, so no other server shares the store (see
    /// `actor` on orphaned replies). `max_reply_tokens`: the server's cap.
    /// `limits`: where the turn limit counts (see `crate::ratelimit`).
    pub fn new(
        store: DynStore,
        bus: DynBus,
        llm: DynLanguageModel,
        characters: CharacterService,
        single_node: bool,
        max_reply_tokens: u32,
        limits: &RateLimits,
    ) -> ChatService {
        let core = Arc::new(ChatCore {
            sessions: Table::new(store.clone(), &tables::CHAT_SESSIONS),
            messages: Table::new(store.clone(), &tables::CHAT_MESSAGES),
            bus,
            llm,
            node: format!("chat-{}", uuid::Uuid::now_v7().simple()),
            single_node,
            max_reply_tokens,
            speech: std::sync::OnceLock::new(),
            text_filter: std::sync::OnceLock::new(),
        });
        ChatService {
            registry: ChatRegistry::new(core.clone()),
            core,
            by_owner: Table::new(store, &tables::CHAT_SESSIONS_BY_OWNER),
            characters,
            rag: Arc::new(std::sync::OnceLock::new()),
            limit: Arc::new(limits.limiter(
                "chat_turns",
                MODEL_CALLS_PER_MINUTE,
                Duration::from_secs(60),
            )),
        }
    }

    async fn limited(&self, account: &str) -> Result<(), ApiError> {
        if self.limit.check(account).await {
            Ok(())
        } else {
            Err(ApiError::with_msg(
                ErrorCode::TooManyRequests,
                "too many chat messages: wait a minute",
            ))
        }
    }

    /// The caller's session, else NotFound.
    async fn session(&self, owner: &str, id: &str) -> Result<ChatSessionRow, ApiError> {
        if id.is_empty() || id.len() > 64 {
            return Err(not_found());
        }
        self.core
            .sessions
            .get(&Key::of(id), &Key::empty())
            .await?
            .filter(|s| s.owner == owner)
            .ok_or_else(not_found)
    }

    /// A message of the caller's session, by id, else NotFound.
    async fn message(
        &self,
        owner: &str,
        session: &str,
        msg_id: &str,
    ) -> Result<(ChatSessionRow, ChatMessageRow), ApiError> {
        let s = self.session(owner, session).await?;
        let idx = idx_of(msg_id).ok_or_else(not_found)?;
        let m = self
            .core
            .messages
            .get(&Key::of(session), &Key::empty().u64(idx))
            .await?
            .filter(|m| m.id == msg_id)
            .ok_or_else(not_found)?;
        Ok((s, m))
    }

    /// A message as it should be shown now (live text, or repaired after a crash).
    async fn shown(&self, session: &str, row: ChatMessageRow) -> Result<ChatMessageRow, ApiError> {
        if row.state != MessageState::Streaming {
            return Ok(row);
        }
        let live = self.registry.live(session).await;
        self.core.resolve(session, row, live.as_ref()).await
    }

    // ---- Sessions --------------------------------------------------------

    /// A new session with a character the caller may chat with; its greeting
    /// (macros replaced) is message 0.
    #[tracing::instrument(skip(self, caller), fields(account = %caller.id))]
    pub async fn create(
        &self,
        caller: &AccountRow,
        character_id: &str,
    ) -> Result<String, ApiError> {
        let c = self
            .characters
            .load_for_chat(&caller.id, character_id)
            .await?;
        let card = self.characters.card(&c).await?;
        let now = now_millis();
        let id = uuid::Uuid::now_v7().simple().to_string();
        let user = self.characters.chat_user(caller).await?;
        let greeting = macros(c.greeting.trim(), &c.name, &user.name);
        let session = ChatSessionRow {
            id: id.clone(),
            owner: caller.id.clone(),
            character: CharacterSnapshot::of(&c, &card.owner.name),
            title: c.name.chars().take(MAX_SESSION_TITLE_CHARS).collect(),
            create_at: now,
            update_at: now,
            last_message: preview(&greeting),
            datacard_ids: Vec::new(),
            timbre_id: String::new(),
            settings: c.settings.clone(),
        };
        let pk = Key::of(&id);
        self.core.sessions.put(&pk, &Key::empty(), &session).await?;
        if !greeting.is_empty() {
            let g = ChatMessageRow {
                id: row::new_msg_id(0),
                idx: 0,
                role: MessageRole::Assistant,
                content: greeting,
                create_at: now,
                update_at: now,
                state: MessageState::Done,
                liked: 0,
                model: None,
                error: None,
                seq: 0,
                node: String::new(),
            };
            self.core
                .messages
                .put(&pk, &Key::empty().u64(0), &g)
                .await?;
        }
        self.by_owner
            .put(&Key::of(&caller.id), &Key::empty().i64(now).str(&id), &())
            .await?;
        // Recent use and the chat count are statistics: the session stands without them.
        if let Err(e) = self.characters.touch_recent(&caller.id, &c.id).await {
            tracing::warn!(error = %e, "recent chat not recorded");
        }
        Ok(id)
    }

    /// The session with its character snapshot refreshed when the character
    /// can still be loaded (edits reach the chat); kept as is otherwise.
    async fn refreshed(&self, s: ChatSessionRow) -> Result<ChatSessionRow, ApiError> {
        let c = match self
            .characters
            .load_for_chat(&s.owner, &s.character.id)
            .await
        {
            Ok(c) => c,
            Err(e) => {
                tracing::debug!(error = %e, "character not loadable; chat uses its snapshot");
                return Ok(s);
            }
        };
        let owner_name = if c.owner == s.character.owner_id {
            s.character.owner_name.clone()
        } else {
            self.characters.card(&c).await?.owner.name
        };
        let snap = CharacterSnapshot::of(&c, &owner_name);
        if snap == s.character {
            return Ok(s);
        }
        let updated = self
            .core
            .sessions
            .update(&Key::of(&s.id), &Key::empty(), Some(s.clone()), |r| {
                r.character = snap.clone()
            })
            .await?;
        updated.ok_or_else(not_found)
    }

    /// `session/list`: newest first, optionally only one character's.
    pub async fn list(
        &self,
        owner: &str,
        character_id: Option<&str>,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<SessionList, ApiError> {
        let limit = match limit {
            0 => 20,
            n => n.min(MAX_SESSION_LIST_LIMIT),
        } as usize;
        let mut paging = match cursor.filter(|c| !c.is_empty()) {
            Some(c) => Some(PagingState::from_hex(c).ok_or_else(|| invalid("bad cursor"))?),
            None => None,
        };
        let pk = Key::of(owner);
        let mut items: Vec<SessionView> = Vec::new();
        loop {
            let page = self
                .by_owner
                .scan(&pk, &ScanRange::all(100).desc().after(paging.clone()))
                .await?;
            let n = page.rows.len();
            for (i, (ck, ())) in page.rows.iter().enumerate() {
                let mut r = ck.reader();
                let (_, Some(id)) = (r.i64(), r.str()) else {
                    continue;
                };
                let Some(s) = self.core.sessions.get(&Key::of(&id), &Key::empty()).await? else {
                    continue;
                };
                if s.owner != owner || character_id.is_some_and(|c| c != s.character.id) {
                    continue;
                }
                items.push(s.view());
                if items.len() == limit {
                    // Resume right after this entry (a paging state is the last key read).
                    let more = i + 1 < n || page.paging.is_some();
                    return Ok(SessionList {
                        items,
                        cursor: more.then(|| PagingState(ck.as_bytes().to_vec()).to_hex()),
                    });
                }
            }
            if page.paging.is_none() {
                return Ok(SessionList {
                    items,
                    cursor: None,
                });
            }
            paging = page.paging;
        }
    }

    /// `session/edit`: the title and/or the model settings.
    pub async fn edit(
        &self,
        owner: &str,
        session_id: &str,
        title: Option<&str>,
        settings: Option<&ChatSettingsView>,
    ) -> Result<SessionView, ApiError> {
        let s = self.session(owner, session_id).await?;
        let title = match title {
            Some(t) => {
                let t = t.trim();
                let n = t.chars().count();
                if n == 0 || n > MAX_SESSION_TITLE_CHARS || t.chars().any(char::is_control) {
                    return Err(invalid("a session title has 1 to 64 characters"));
                }
                Some(t.to_owned())
            }
            None => None,
        };
        let settings = settings.map(valid_settings).transpose()?;
        let now = now_millis();
        let s = self
            .core
            .sessions
            .update(&Key::of(session_id), &Key::empty(), Some(s), |r| {
                if let Some(t) = &title {
                    r.title = t.clone();
                }
                if let Some(st) = &settings {
                    r.settings = st.clone();
                }
                r.update_at = now;
            })
            .await?
            .ok_or_else(not_found)?;
        Ok(s.view())
    }

    async fn remove(&self, s: &ChatSessionRow) -> Result<(), ApiError> {
        // Stop a running reply first, so nothing writes into the deleted session.
        self.registry.stop(&s.id).await?;
        let pk = Key::of(&s.id);
        self.by_owner
            .delete(
                &Key::of(&s.owner),
                &Key::empty().i64(s.create_at).str(&s.id),
            )
            .await?;
        self.core.messages.delete_partition(&pk).await?;
        self.core.sessions.delete(&pk, &Key::empty()).await?;
        Ok(())
    }

    /// `session/delete`: the session and all its messages.
    pub async fn delete(&self, owner: &str, session_id: &str) -> Result<(), ApiError> {
        let s = self.session(owner, session_id).await?;
        self.remove(&s).await
    }

    /// `session/delete-all`: every session of the caller, or only those with one character.
    pub async fn delete_all(
        &self,
        owner: &str,
        character_id: Option<&str>,
    ) -> Result<u32, ApiError> {
        let pk = Key::of(owner);
        let mut doomed = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .by_owner
                .scan(&pk, &ScanRange::all(500).after(paging))
                .await?;
            for (ck, ()) in &page.rows {
                let mut r = ck.reader();
                let (Some(at), Some(id)) = (r.i64(), r.str()) else {
                    continue;
                };
                match self.core.sessions.get(&Key::of(&id), &Key::empty()).await? {
                    Some(s) if s.owner == owner => {
                        if character_id.is_none_or(|c| c == s.character.id) {
                            doomed.push(s);
                        }
                    }
                    Some(_) => {}
                    // An index entry whose session is gone: tidy it.
                    None => {
                        self.by_owner
                            .delete(&pk, &Key::empty().i64(at).str(&id))
                            .await?
                    }
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => break,
            }
        }
        for s in &doomed {
            self.remove(s).await?;
        }
        Ok(doomed.len() as u32)
    }

    // ---- Replies ---------------------------------------------------------

    /// `session/chat/start`: stores the user message (for a new one) and an
    /// empty streaming reply, and answers the reply's id; the text follows
    /// as frames 11.
    #[tracing::instrument(skip(self, caller, req), fields(account = %caller.id, session = %req.session_id))]
    pub async fn start(
        &self,
        caller: &AccountRow,
        req: &ChatStartRequest,
    ) -> Result<String, ApiError> {
        let s = self.session(&caller.id, &req.session_id).await?;
        let kind = match (req.regenerate, req.continue_reply) {
            (true, true) => return Err(invalid("regenerate or continue, not both")),
            (true, false) => StartKind::Regenerate,
            (false, true) => StartKind::Continue,
            (false, false) => StartKind::New(
                self.user_text(chat_text(req.content.as_deref().unwrap_or("")).map_err(bad_text)?)?,
            ),
        };
        self.limited(&caller.id).await?;
        self.run(caller, s, kind).await
    }

    async fn run(
        &self,
        caller: &AccountRow,
        s: ChatSessionRow,
        kind: StartKind,
    ) -> Result<String, ApiError> {
        let s = self.refreshed(s).await?;
        let mut cards = self
            .characters
            .load_datacards(&caller.id, &s.datacard_ids)
            .await?;
        if let (Some(rag), StartKind::New(text)) = (self.rag.get(), &kind) {
            if s.character.owner_id == caller.id {
                cards.extend(
                    rag.relevant(
                        &caller.id,
                        &s.character.id,
                        text,
                        crate::rag::RETRIEVED_PER_MESSAGE,
                        &s.datacard_ids,
                    )
                    .await?,
                );
            }
        }
        let datacards: Vec<CardText> = cards
            .into_iter()
            .map(|d| CardText {
                title: d.title,
                content: d.content,
            })
            .collect();
        let user = self.characters.chat_user(caller).await?;
        let id = s.id.clone();
        self.registry
            .start(&id, || Start {
                session: s.clone(),
                user_name: user.name.clone(),
                user_persona: user.persona.clone(),
                datacards: datacards.clone(),
                kind: kind.clone(),
            })
            .await
    }

    /// `session/chat/stop`: cancels the running reply; its partial text is
    /// kept as `cancelled`. Answers once that is stored. False when none ran.
    pub async fn stop(&self, owner: &str, session_id: &str) -> Result<bool, ApiError> {
        let s = self.session(owner, session_id).await?;
        self.registry.stop(&s.id).await
    }

    /// `session/message/list`: oldest first; a running reply with its text so far.
    pub async fn messages(
        &self,
        owner: &str,
        session_id: &str,
        limit: u32,
        before_idx: Option<u64>,
    ) -> Result<Vec<MessageView>, ApiError> {
        let s = self.session(owner, session_id).await?;
        let limit = match limit {
            0 => DEFAULT_MESSAGE_LIST_LIMIT,
            n => n.min(MAX_MESSAGE_LIST_LIMIT),
        };
        let rows = self.core.newest(&s.id, limit, before_idx).await?;
        let live = if rows.iter().any(|r| r.state == MessageState::Streaming) {
            self.registry.live(&s.id).await
        } else {
            None
        };
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            out.push(self.core.resolve(&s.id, r, live.as_ref()).await?.view());
        }
        Ok(out)
    }

    /// `session/msg/latest_state_info`: the newest assistant message, with
    /// its text so far and the seq it reflects (for resume).
    pub async fn latest(&self, owner: &str, session_id: &str) -> Result<MessageView, ApiError> {
        let s = self.session(owner, session_id).await?;
        let mut paging = None;
        loop {
            let page = self
                .core
                .messages
                .scan(&Key::of(&s.id), &ScanRange::all(20).desc().after(paging))
                .await?;
            if let Some((_, r)) = page
                .rows
                .into_iter()
                .find(|(_, r)| r.role == MessageRole::Assistant)
            {
                return Ok(self.shown(&s.id, r).await?.view());
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Err(not_found()),
            }
        }
    }

    /// `quick-chat/task/progress`: one message as it stands.
    pub async fn progress(
        &self,
        owner: &str,
        session_id: &str,
        msg_id: &str,
    ) -> Result<MessageView, ApiError> {
        let (s, m) = self.message(owner, session_id, msg_id).await?;
        Ok(self.shown(&s.id, m).await?.view())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked() {
        let ok = ChatSettingsView {
            temperature: 1.0,
            top_p: 0.5,
            max_reply_tokens: 100,
        };
        assert!(valid_settings(&ok).is_ok());
        assert!(valid_settings(&ChatSettingsView {
            temperature: 2.5,
            ..ok
        })
        .is_err());
        assert!(valid_settings(&ChatSettingsView {
            max_reply_tokens: 8,
            ..ok
        })
        .is_err());
    }
}
