//! The generation agent (spec 3 §7 "Gen-agent"): conversations in which the
//! assistant answers an idea with one short sentence and a proposed image
//! prompt inside a `"""` block, which the client turns into parts with the
//! prompt-stream parser (`protocol::prompt_stream`) and can send to the
//! generator with one click.
//!
//! Storage: `AGENT_CONVS` (conversation rows), `AGENT_CONVS_BY_OWNER` (a
//! user's conversations by creation time) and `AGENT_MESSAGES` (messages by
//! index). Messages link to the message they answer (`parent_msg_id`); the
//! model sees the chain of parents back to the message that started the
//! topic (`start_new_topic`). The answering itself is in [`reply`].

use std::collections::HashMap;

use infra::objects::DynObjects;
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::agent::{
    AgentMessageState, AgentMessageView, AgentRole, ContentType, ConvView, MessageContent,
    PresetTemplate,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;

pub mod presets;
pub mod reply;

/// Messages read for one conversation (history, parents): a conversation is
/// a short working session, and this bounds the work of a turn.
pub const MAX_MESSAGES: u32 = 1000;
/// Conversations listed by `/convs`.
pub const MAX_CONVS: u32 = 100;
/// Longest conversation title, in characters.
pub const MAX_TITLE_CHARS: usize = 64;

/// A stored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentConvRow {
    pub id: String,
    pub owner: String,
    pub title: String,
    /// The client's `conv_type`, kept as JSON text (a string or a number in
    /// the wild) so the stored bytes stay deterministic for compare-and-set.
    pub conv_type: Option<String>,
    pub create_at: i64,
    pub update_at: i64,
    /// The index the next message gets; raised by compare-and-set so two
    /// turns at once never take the same index.
    pub next_idx: u64,
}

/// A stored message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentMessageRow {
    pub msg_id: String,
    pub idx: u64,
    pub parent_msg_id: Option<String>,
    pub role: AgentRole,
    pub content_type: ContentType,
    pub parts: Vec<String>,
    pub image_url: Option<String>,
    /// This user message started a new topic: the model sees nothing before it.
    pub new_topic: bool,
    pub create_at: i64,
    pub state: AgentMessageState,
    /// Why a reply failed (logged cause stays in the log).
    pub error: Option<String>,
    /// For an image message: what the reference engine's descriptor says
    /// the picture shows (colours and layout), so the language model can
    /// take the attachment into account. Older rows have none.
    #[serde(default)]
    pub image_description: Option<String>,
}

impl AgentMessageRow {
    pub fn view(&self) -> AgentMessageView {
        AgentMessageView {
            msg_id: self.msg_id.clone(),
            parent_msg_id: self.parent_msg_id.clone(),
            role: self.role,
            content: MessageContent {
                parts: self.parts.clone(),
            },
            content_type: self.content_type,
            image_url: self.image_url.clone(),
            create_at: self.create_at,
            state: self.state,
        }
    }

    /// The text of all parts.
    pub fn text(&self) -> String {
        self.parts.join("\n")
    }
}

impl AgentConvRow {
    pub fn view(&self) -> ConvView {
        ConvView {
            conv_id: self.id.clone(),
            title: self.title.clone(),
            conv_type: self
                .conv_type
                .as_deref()
                .and_then(|t| serde_json::from_str(t).ok()),
            create_at: self.create_at,
            update_at: self.update_at,
        }
    }
}

/// Conversations and messages of the generation agent.
#[derive(Clone)]
pub struct AgentService {
    convs: Table<AgentConvRow>,
    by_owner: Table<()>,
    messages: Table<AgentMessageRow>,
    /// Where uploaded images live: image parts must name one of them.
    objects: DynObjects,
    /// Turns per account (each is two model calls; the model is shared by
    /// every user, so one account must not be able to monopolise it).
    turns: std::sync::Arc<crate::ratelimit::RateLimiter>,
}

/// Agent turns one account may start per minute (across the nodes with Redis; see `crate::ratelimit`).
pub const TURNS_PER_MINUTE: u32 = 20;

fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::now_v7().simple())
}

impl AgentService {
    /// `limits`: where the turn limit counts (see `crate::ratelimit`).
    pub fn new(
        store: DynStore,
        objects: DynObjects,
        limits: &crate::ratelimit::RateLimits,
    ) -> AgentService {
        AgentService {
            convs: Table::new(store.clone(), &tables::AGENT_CONVS),
            by_owner: Table::new(store.clone(), &tables::AGENT_CONVS_BY_OWNER),
            messages: Table::new(store, &tables::AGENT_MESSAGES),
            objects,
            turns: std::sync::Arc::new(limits.limiter(
                "agent_turns",
                TURNS_PER_MINUTE,
                std::time::Duration::from_secs(60),
            )),
        }
    }

    /// Counts one turn of `account`; false once it is over [`TURNS_PER_MINUTE`].
    pub async fn allow_turn(&self, account: &str) -> bool {
        self.turns.check(account).await
    }

    /// Creates a conversation owned by `owner`.
    pub async fn create(
        &self,
        owner: &str,
        title: Option<&str>,
        conv_type: Option<&serde_json::Value>,
    ) -> Result<AgentConvRow, ApiError> {
        let title = title.map(str::trim).unwrap_or_default();
        if title.chars().count() > MAX_TITLE_CHARS {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                format!("the title is longer than {MAX_TITLE_CHARS} characters"),
            ));
        }
        let now = now_millis();
        let row = AgentConvRow {
            id: new_id("gc"),
            owner: owner.to_owned(),
            title: title.to_owned(),
            conv_type: conv_type.filter(|v| !v.is_null()).map(|v| v.to_string()),
            create_at: now,
            update_at: now,
            next_idx: 0,
        };
        self.convs
            .put(&Key::of(&row.id), &Key::empty(), &row)
            .await?;
        self.by_owner
            .put(&Key::of(owner), &Key::empty().i64(now).str(&row.id), &())
            .await?;
        Ok(row)
    }

    /// The conversation if `owner` owns it; `NotFound` otherwise (another
    /// user's conversation is not revealed to exist).
    pub async fn owned(&self, owner: &str, conv_id: &str) -> Result<AgentConvRow, ApiError> {
        match self.convs.get(&Key::of(conv_id), &Key::empty()).await? {
            Some(c) if c.owner == owner => Ok(c),
            _ => Err(ErrorCode::NotFound.into()),
        }
    }

    /// The owner's conversations, newest first.
    pub async fn list(&self, owner: &str) -> Result<Vec<ConvView>, ApiError> {
        let page = self
            .by_owner
            .scan(&Key::of(owner), &ScanRange::all(MAX_CONVS).desc())
            .await?;
        let mut out = Vec::with_capacity(page.rows.len());
        for (ck, ()) in page.rows {
            let mut r = ck.reader();
            let (Some(_), Some(id)) = (r.i64(), r.str()) else {
                continue;
            };
            if let Some(c) = self.convs.get(&Key::of(&id), &Key::empty()).await? {
                out.push(c.view());
            }
        }
        Ok(out)
    }

    /// All messages of a conversation, oldest first.
    pub async fn messages(&self, conv_id: &str) -> Result<Vec<AgentMessageRow>, ApiError> {
        let page = self
            .messages
            .scan(&Key::of(conv_id), &ScanRange::all(MAX_MESSAGES).desc())
            .await?;
        let mut rows: Vec<AgentMessageRow> = page.rows.into_iter().map(|(_, m)| m).collect();
        rows.reverse();
        Ok(rows)
    }

    /// `/conv/history`: the owner's messages, oldest first.
    pub async fn history(
        &self,
        owner: &str,
        conv_id: &str,
    ) -> Result<Vec<AgentMessageView>, ApiError> {
        self.owned(owner, conv_id).await?;
        Ok(self
            .messages(conv_id)
            .await?
            .iter()
            .map(AgentMessageRow::view)
            .collect())
    }

    /// Takes `n` consecutive message indexes and touches `update_at`.
    pub async fn reserve(&self, conv: &AgentConvRow, n: u64) -> Result<u64, ApiError> {
        let updated = self
            .convs
            .update(&Key::of(&conv.id), &Key::empty(), None, |c| {
                c.next_idx += n;
                c.update_at = now_millis();
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(updated.next_idx - n)
    }

    /// Stores (or replaces) a message.
    pub async fn put_message(&self, conv_id: &str, row: &AgentMessageRow) -> Result<(), ApiError> {
        self.messages
            .put(&Key::of(conv_id), &Key::empty().u64(row.idx), row)
            .await?;
        Ok(())
    }

    /// Sets a conversation's title if it has none (from its first message).
    pub async fn title_if_empty(&self, conv: &AgentConvRow, text: &str) -> Result<(), ApiError> {
        if !conv.title.is_empty() {
            return Ok(());
        }
        let title: String = protocol::prompt_stream::collapse_blank(text)
            .chars()
            .take(MAX_TITLE_CHARS)
            .collect();
        if title.is_empty() {
            return Ok(());
        }
        self.convs
            .update(&Key::of(&conv.id), &Key::empty(), None, |c| {
                if c.title.is_empty() {
                    c.title = title.clone();
                }
            })
            .await?;
        Ok(())
    }

    /// The server's own `/files/` URL for `url` when it names an uploaded
    /// object of this server (stored in that relative form, so a message
    /// never points elsewhere), `None` otherwise.
    pub async fn own_image(&self, url: &str) -> Result<Option<String>, ApiError> {
        let Some(key) = crate::tasks::object_key_of_url(url) else {
            return Ok(None);
        };
        let object = crate::error::object_key(&key)?;
        let exists = self
            .objects
            .exists(&object)
            .await
            .map_err(|e| ApiError::internal(format!("checking an agent image: {e}")))?;
        Ok(exists.then(|| format!("/files/{key}")))
    }

    /// A sentence about an uploaded image (`/files/{key}` as returned by
    /// [`AgentService::own_image`]), from the reference engine's
    /// colour-and-layout descriptor; `None` when it cannot be read.
    pub async fn describe_own_image(&self, url: &str) -> Option<String> {
        let key = crate::tasks::object_key_of_url(url)?;
        let object = crate::error::object_key(&key).ok()?;
        let stored = self.objects.get(&object).await.ok().flatten()?;
        tokio::task::spawn_blocking(move || engines::reference::describe_image(&stored.bytes).ok())
            .await
            .ok()
            .flatten()
    }

    pub fn presets(&self) -> Vec<PresetTemplate> {
        presets::templates()
    }
}

/// The messages the model sees for a turn answering `parent`: the chain of
/// parents back to (and including) the message that started the topic,
/// oldest first, at most `max` of them.
pub fn topic_chain<'a>(
    all: &'a [AgentMessageRow],
    parent: Option<&str>,
    max: usize,
) -> Vec<&'a AgentMessageRow> {
    let by_id: HashMap<&str, &AgentMessageRow> =
        all.iter().map(|m| (m.msg_id.as_str(), m)).collect();
    let mut chain = Vec::new();
    let mut cursor = parent.and_then(|p| by_id.get(p).copied());
    while let Some(m) = cursor {
        if chain.len() >= max {
            break;
        }
        chain.push(m);
        if m.new_topic {
            break;
        }
        cursor = m
            .parent_msg_id
            .as_deref()
            .and_then(|p| by_id.get(p).copied());
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(id: &str, parent: Option<&str>, role: AgentRole, new_topic: bool) -> AgentMessageRow {
        AgentMessageRow {
            msg_id: id.into(),
            idx: 0,
            parent_msg_id: parent.map(str::to_owned),
            role,
            content_type: ContentType::Text,
            parts: vec![id.into()],
            image_url: None,
            new_topic,
            create_at: 0,
            state: AgentMessageState::Done,
            error: None,
            image_description: None,
        }
    }

    #[test]
    fn chain_follows_parents_back_to_the_topic_start() {
        let all = vec![
            msg("u1", None, AgentRole::User, false),
            msg("a1", Some("u1"), AgentRole::Assistant, false),
            msg("u2", Some("a1"), AgentRole::User, true),
            msg("a2", Some("u2"), AgentRole::Assistant, false),
            msg("u3", Some("a2"), AgentRole::User, false),
            msg("x", Some("a1"), AgentRole::User, false),
        ];
        let ids = |c: Vec<&AgentMessageRow>| c.iter().map(|m| m.msg_id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(topic_chain(&all, Some("u3"), 10)), ["u2", "a2", "u3"]);
        assert_eq!(ids(topic_chain(&all, Some("x"), 10)), ["u1", "a1", "x"]);
        assert_eq!(ids(topic_chain(&all, Some("u3"), 2)), ["a2", "u3"]);
        assert!(topic_chain(&all, None, 10).is_empty());
        assert!(topic_chain(&all, Some("nope"), 10).is_empty());
    }
}
