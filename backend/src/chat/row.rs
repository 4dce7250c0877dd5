//! The stored chat rows (tables `chat_sessions`, `chat_sessions_by_owner`,
//! `chat_messages`) and their conversion to the wire views.
//!
//! A session keeps a *snapshot* of the character ([`CharacterSnapshot`]):
//! taken when the session is created and refreshed at every `chat/start`
//! while the character can still be loaded by the chatting user. So edits
//! of the character reach running chats at their next message, and a
//! character deleted (or unpublished) later leaves its sessions working
//! from the last snapshot.

use protocol::character::{CharacterCard, OwnerView};
use protocol::chat::{MessageRole, MessageState, MessageView, ModelTag, SessionView};
use serde::{Deserialize, Serialize};

use crate::characters::row::{CharacterRow, ChatSettings, Gender};
use crate::characters::{gender_to_wire, settings_to_wire};

/// What a chat needs from its character, copied into the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CharacterSnapshot {
    pub id: String,
    pub owner_id: String,
    /// The creator's display name at snapshot time (for the session list's card).
    pub owner_name: String,
    pub name: String,
    pub description: String,
    pub avatar: String,
    pub tags: Vec<String>,
    pub gender: Gender,
    pub character_type: u8,
    pub publish_at: i64,
    pub chat_count: u64,
    pub persona: String,
    pub scenario: String,
    pub example_dialogue: String,
    pub system_prompt: String,
    pub post_history_instructions: String,
}

impl CharacterSnapshot {
    pub fn of(c: &CharacterRow, owner_name: &str) -> CharacterSnapshot {
        CharacterSnapshot {
            id: c.id.clone(),
            owner_id: c.owner.clone(),
            owner_name: owner_name.to_owned(),
            name: c.name.clone(),
            description: c.description.clone(),
            avatar: c.avatar.clone(),
            tags: c.tags.clone(),
            gender: c.gender,
            character_type: c.character_type,
            publish_at: c.publish_at,
            chat_count: c.chat_count,
            persona: c.persona.clone(),
            scenario: c.scenario.clone(),
            example_dialogue: c.example_dialogue.clone(),
            system_prompt: c.system_prompt.clone(),
            post_history_instructions: c.post_history_instructions.clone(),
        }
    }

    pub fn card(&self) -> CharacterCard {
        CharacterCard {
            id: self.id.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            avatar: self.avatar.clone(),
            tags: self.tags.clone(),
            gender: gender_to_wire(self.gender),
            character_type: self.character_type,
            chat_count: self.chat_count,
            publish_at: self.publish_at,
            owner: OwnerView {
                id: self.owner_id.clone(),
                name: self.owner_name.clone(),
            },
            published: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSessionRow {
    pub id: String,
    pub owner: String,
    pub character: CharacterSnapshot,
    pub title: String,
    pub create_at: i64,
    pub update_at: i64,
    /// The newest message's text, cut to [`LAST_MESSAGE_CHARS`], for the list.
    pub last_message: String,
    /// The owner's datacards bound to the session, in prompt order.
    pub datacard_ids: Vec<String>,
    pub timbre_id: String,
    /// Start from the character's settings; the owner may change them per session.
    pub settings: ChatSettings,
}

/// How much of the newest message a session row keeps.
pub const LAST_MESSAGE_CHARS: usize = 200;

pub fn preview(text: &str) -> String {
    text.chars().take(LAST_MESSAGE_CHARS).collect()
}

impl ChatSessionRow {
    pub fn view(&self) -> SessionView {
        SessionView {
            session_id: self.id.clone(),
            character: self.character.card(),
            title: self.title.clone(),
            create_at: self.create_at,
            update_at: self.update_at,
            last_message: self.last_message.clone(),
            datacard_ids: self.datacard_ids.clone(),
            timbre_id: self.timbre_id.clone(),
            settings: settings_to_wire(&self.settings),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessageRow {
    /// `{idx}.{random}`: the index is readable from the id, so a message is
    /// found by id with one read and no second index, and the random part
    /// makes an id never come back after a delete or a regenerate.
    pub id: String,
    pub idx: u64,
    pub role: MessageRole,
    pub content: String,
    pub create_at: i64,
    /// Last write; a streaming row is rewritten at least every few seconds,
    /// so on a multi-node cluster a streaming row that stopped changing is
    /// known to be orphaned by a dead node.
    pub update_at: i64,
    pub state: MessageState,
    pub liked: i8,
    pub model: Option<ModelTag>,
    pub error: Option<String>,
    /// The seq of the last frame 11 reflected in `content` (see `MessageView::seq`).
    pub seq: u64,
    /// The process (node instance) writing a streaming reply. A streaming
    /// row whose node is not this process's was left by a crash or by
    /// another node (see `ChatCore::orphaned`).
    pub node: String,
}

impl ChatMessageRow {
    pub fn view(&self) -> MessageView {
        MessageView {
            msg_id: self.id.clone(),
            idx: self.idx,
            role: self.role,
            content: self.content.clone(),
            create_at: self.create_at,
            state: self.state,
            liked: self.liked,
            model: self.model.clone(),
            error: self.error.clone(),
            seq: self.seq,
        }
    }
}

/// A new message id at `idx`.
pub fn new_msg_id(idx: u64) -> String {
    format!("{idx}.{}", uuid::Uuid::now_v7().simple())
}

/// The index a message id names, if it is well-formed.
pub fn idx_of(msg_id: &str) -> Option<u64> {
    let (idx, rest) = msg_id.split_once('.')?;
    if rest.is_empty() || rest.len() > 64 || !rest.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    idx.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_ids_carry_their_index() {
        let id = new_msg_id(42);
        assert_eq!(idx_of(&id), Some(42));
        assert_ne!(new_msg_id(42), id);
        assert_eq!(idx_of("x.abc"), None);
        assert_eq!(idx_of("3."), None);
        assert_eq!(idx_of("3"), None);
        assert_eq!(idx_of("3.a/b"), None);
    }

    #[test]
    fn preview_cuts_by_characters() {
        assert_eq!(preview(&"é".repeat(300)).chars().count(), 200);
    }
}
