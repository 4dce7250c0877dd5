//! The stored character and datacard rows (tables `characters`,
//! `datacards`). A character is the tavern card: who the AI plays, how it
//! greets, how it talks. Field names follow the widely used V2 character
//! card (`chara_card_v2`) where one exists, so import and export are lossless.

use serde::{Deserialize, Serialize};

/// Spec 3 §3 gender filter values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Gender {
    Male,
    Female,
    NonBinary,
    #[default]
    Other,
}

/// The model settings a character starts its chats with (spec 3 `default_setting`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSettings {
    /// 0.0 to 2.0.
    pub temperature: f32,
    /// 0.0 to 1.0.
    pub top_p: f32,
    /// Longest reply in tokens (16 to 1024).
    pub max_reply_tokens: u32,
}

impl Default for ChatSettings {
    fn default() -> ChatSettings {
        ChatSettings {
            temperature: 0.7,
            top_p: 0.9,
            max_reply_tokens: 160,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CharacterRow {
    pub id: String,
    /// Account id of the creator.
    pub owner: String,
    pub name: String,
    /// Short public blurb shown on the card (V2 `creator_notes` is separate).
    pub description: String,
    /// Who the character is: personality, background (V2 `description` + `personality`).
    pub persona: String,
    /// The situation the chat starts in (V2 `scenario`).
    pub scenario: String,
    /// The character's first message in every new session (V2 `first_mes`).
    pub greeting: String,
    /// Other first messages the user may swipe to (V2 `alternate_greetings`).
    pub alternate_greetings: Vec<String>,
    /// Example dialogue in the `<START>` / `{{user}}:` / `{{char}}:` form (V2 `mes_example`).
    pub example_dialogue: String,
    /// Replaces the default system prompt when set (V2 `system_prompt`).
    pub system_prompt: String,
    /// Appended after the history (V2 `post_history_instructions`).
    pub post_history_instructions: String,
    pub creator_notes: String,
    pub tags: Vec<String>,
    pub gender: Gender,
    /// Spec 3 character type: 1 entertainment, 2 tool (0 is "all" in filters only).
    pub character_type: u8,
    /// An uploaded image (`/files/...`), or empty.
    pub avatar: String,
    pub settings: ChatSettings,
    /// Visible to everyone in the tavern; drafts are the owner's only.
    pub published: bool,
    pub publish_at: i64,
    pub create_at: i64,
    pub update_at: i64,
    /// Sessions started with this character (shown on cards, used by recommend).
    pub chat_count: u64,
    /// Set when the owner deletes it: sessions keep working from their snapshot, nothing lists it.
    pub deleted: bool,
}

/// A datacard: named knowledge (lore, facts about the user, a world) that a
/// session can bind; bound cards go into the prompt after the persona.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatacardRow {
    pub id: String,
    pub owner: String,
    pub title: String,
    pub content: String,
    pub create_at: i64,
    pub update_at: i64,
}
