//! Character chat (spec 3 §2 "Characters and chat"): the request and answer
//! bodies of `/api/v1/character/session/...`, `/api/v1/character/quick-chat/...`,
//! `reply/recommend` and `message/polish`, the views of a session and a
//! message, and the content of push frame 11 ([`ChatDelta`]), plus the pure
//! rule for a chat message's text.

use serde::{Deserialize, Serialize};

use crate::character::{CharacterCard, ChatSettingsView};

/// Longest chat message (and polish draft), in characters.
pub const MAX_CHAT_MESSAGE_CHARS: usize = 4000;
/// Longest session title, in characters.
pub const MAX_SESSION_TITLE_CHARS: usize = 64;
/// Most datacards bound to one session.
pub const MAX_SESSION_DATACARDS: usize = 10;
/// Most messages one `message/list` call answers.
pub const MAX_MESSAGE_LIST_LIMIT: u32 = 200;
/// Messages `message/list` answers when it names no limit.
pub const DEFAULT_MESSAGE_LIST_LIMIT: u32 = 50;
/// Most sessions one `session/list` call answers.
pub const MAX_SESSION_LIST_LIMIT: u32 = 50;
/// Model calls (start, regenerate, continue, quick chat, suggestions,
/// polish) one account may make per minute; more answer TooManyRequests.
pub const MODEL_CALLS_PER_MINUTE: u32 = 30;

/// Why a chat message's text is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ChatTextError {
    #[error("a chat message cannot be empty")]
    Empty,
    #[error("a chat message has at most 4000 characters")]
    TooLong,
}

/// The text of a chat message as stored: trimmed, 1 to
/// [`MAX_CHAT_MESSAGE_CHARS`] characters (spec 3: "chat input is trimmed").
pub fn chat_text(raw: &str) -> Result<String, ChatTextError> {
    let t = raw.trim();
    if t.is_empty() {
        return Err(ChatTextError::Empty);
    }
    if t.chars().count() > MAX_CHAT_MESSAGE_CHARS {
        return Err(ChatTextError::TooLong);
    }
    Ok(t.to_owned())
}

/// Who wrote a message.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    User,
    Assistant,
}

/// Where a message is in its life. Only assistant replies are ever
/// `streaming`; user messages and greetings are `done` at once.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageState {
    /// The model is writing it; its text grows.
    Streaming,
    Done,
    /// Stopped by the user; the partial text is kept.
    Cancelled,
    /// The model failed, or the server stopped mid-reply; the partial text is kept.
    Failed,
}

impl MessageState {
    pub fn is_final(self) -> bool {
        !matches!(self, MessageState::Streaming)
    }
}

/// The model that wrote a reply, as shown next to it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelTag {
    pub name: String,
    pub label: String,
    /// False for the scripted test model, which is not a language model.
    pub neural: bool,
}

/// One message of a session (`message/list`, `msg/latest_state_info`,
/// `quick-chat/task/progress`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    /// Stable while the message exists; a regenerated reply gets a new id at the same `idx`.
    pub msg_id: String,
    /// Position in the session, from 0 (the greeting); gaps are deleted messages.
    pub idx: u64,
    pub role: MessageRole,
    /// The text so far (whole once the state is final).
    pub content: String,
    /// Milliseconds since the epoch.
    pub create_at: i64,
    pub state: MessageState,
    /// -1 disliked, 0 nothing, 1 liked.
    pub liked: i8,
    /// Set on model replies; `None` on user messages and greetings.
    pub model: Option<ModelTag>,
    /// Why a reply failed.
    pub error: Option<String>,
    /// The `seq` of the last frame 11 reflected in `content`: a client that
    /// reconnects mid-reply shows `content` and applies only frames with a
    /// higher `seq`. The closing frame counts, so a finished reply's `seq`
    /// is its number of deltas + 1; 0 for messages that never streamed.
    pub seq: u64,
}

/// A chat session in lists (`session/list`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    pub session_id: String,
    /// The character as it was when the session last used it (a snapshot:
    /// a later deletion of the character does not break the session).
    pub character: CharacterCard,
    pub title: String,
    pub create_at: i64,
    pub update_at: i64,
    /// The newest message's text, cut to 200 characters.
    pub last_message: String,
    pub datacard_ids: Vec<String>,
    /// The voice chosen for the session (empty: none).
    pub timbre_id: String,
    pub settings: ChatSettingsView,
}

/// Content of push frame 11: one delta of a reply, or its end.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatDelta {
    pub session_id: String,
    pub msg_id: String,
    /// 1, 2, 3... per reply; continuing a reply keeps counting.
    pub seq: u64,
    /// Text to append (empty on the closing frame).
    pub delta: String,
    /// True on the closing frame only.
    pub done: bool,
    /// The final state, on the closing frame only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<MessageState>,
    /// Why the reply failed, on a failed closing frame only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharacterRef {
    pub character_id: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRef {
    pub session_id: String,
}

/// `session/create`'s answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionCreated {
    pub session_id: String,
}

/// `session/chat/start`: a new user message (`content`), or
/// `regenerate: true` (a new text for the last reply), or `continue: true`
/// (more text appended to the last reply).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatStartRequest {
    pub session_id: String,
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub regenerate: bool,
    #[serde(default, rename = "continue")]
    pub continue_reply: bool,
}

/// `session/chat/start`'s answer: the assistant reply's id, before any text.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatStarted {
    pub msg_id: String,
}

/// `session/chat/stop`'s answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatStopped {
    /// False when no reply was running.
    pub stopped: bool,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageListRequest {
    pub session_id: String,
    #[serde(default)]
    pub limit: u32,
    /// Only messages before this index (older pages).
    #[serde(default)]
    pub before_idx: Option<u64>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageList {
    /// Oldest first.
    pub items: Vec<MessageView>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionListRequest {
    #[serde(default)]
    pub character_id: Option<String>,
    #[serde(default)]
    pub limit: u32,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionList {
    /// Newest first.
    pub items: Vec<SessionView>,
    /// Pass back to get the next page; absent on the last page.
    pub cursor: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEditRequest {
    pub session_id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub settings: Option<ChatSettingsView>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DeleteAllRequest {
    #[serde(default)]
    pub character_id: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeleteAllAnswer {
    pub deleted: u32,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRef {
    pub session_id: String,
    pub msg_id: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageEditRequest {
    pub session_id: String,
    pub msg_id: String,
    pub content: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageLikeRequest {
    pub session_id: String,
    pub msg_id: String,
    /// 1 like, 0 neither, -1 dislike.
    pub like: i8,
}

/// `message/copy_idx`, `message/polish`: a text.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentAnswer {
    pub content: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatacardBinding {
    pub session_id: String,
    pub datacard_id: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatacardsEdit {
    pub session_id: String,
    pub datacard_ids: Vec<String>,
}

/// The datacards bound to a session after a change.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatacardIds {
    pub datacard_ids: Vec<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimbreSet {
    pub session_id: String,
    /// Empty clears it.
    pub timbre_id: String,
}

/// `quick-chat/can-talk`'s answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanTalk {
    pub can_talk: bool,
    /// The error key when `can_talk` is false ("NeedLogin", "NotFound",
    /// "LanguageModelUnavailable"); empty otherwise.
    pub reason: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuickChatStart {
    pub character_id: String,
    pub content: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuickChatStarted {
    pub session_id: String,
    pub msg_id: String,
}

/// `reply/recommend`'s answer: up to three short replies the user might send.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplySuggestions {
    pub items: Vec<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolishRequest {
    #[serde(default)]
    pub session_id: Option<String>,
    pub content: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chat_text_is_trimmed_and_bounded() {
        assert_eq!(chat_text("  hi \n"), Ok("hi".to_owned()));
        assert_eq!(chat_text(" \n\t "), Err(ChatTextError::Empty));
        assert_eq!(chat_text(&"é".repeat(4000)).map(|s| s.len()), Ok(8000));
        assert_eq!(chat_text(&"a".repeat(4001)), Err(ChatTextError::TooLong));
    }

    #[test]
    fn delta_frames_have_the_documented_shape() {
        let d = ChatDelta {
            session_id: "s".into(),
            msg_id: "m".into(),
            seq: 3,
            delta: " hi".into(),
            done: false,
            state: None,
            error: None,
        };
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"session_id": "s", "msg_id": "m", "seq": 3, "delta": " hi", "done": false})
        );
        let end = ChatDelta {
            delta: String::new(),
            done: true,
            state: Some(MessageState::Failed),
            error: Some("boom".into()),
            ..d
        };
        assert_eq!(
            serde_json::to_value(&end).unwrap(),
            json!({"session_id": "s", "msg_id": "m", "seq": 3, "delta": "", "done": true,
                   "state": "failed", "error": "boom"})
        );
    }

    #[test]
    fn start_request_reads_the_continue_keyword() {
        let r: ChatStartRequest =
            serde_json::from_value(json!({"session_id": "s", "continue": true})).unwrap();
        assert!(r.continue_reply && !r.regenerate && r.content.is_none());
    }
}
