//! Characters (the tavern) and datacards (spec 3 §2, §3, §7): the request
//! and answer bodies of `/api/v1/tavern-pro/...`, `/api/v1/character/...`
//! (detail, latest, default_setting), `/api/v1/square/.../character/...`
//! and `/api/v1/datacard/...`, and the pure validation rules of a character
//! and a datacard, with the messages the server answers.

use serde::{Deserialize, Serialize};

/// Longest character name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest card blurb (`description`), in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
/// Longest persona, in characters.
pub const MAX_PERSONA_CHARS: usize = 8000;
/// Longest greeting (and each alternate greeting), in characters.
pub const MAX_GREETING_CHARS: usize = 4000;
/// Most alternate greetings.
pub const MAX_ALTERNATE_GREETINGS: usize = 10;
/// Longest scenario, example dialogue, system prompt, post-history
/// instructions and creator notes, in characters (each).
pub const MAX_TEXT_CHARS: usize = 8000;
/// Most tags on a character.
pub const MAX_TAGS: usize = 10;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 24;
/// Most items one list call answers.
pub const MAX_LIST_LIMIT: u32 = 50;
/// Items a list call answers when it names no limit.
pub const DEFAULT_LIST_LIMIT: u32 = 20;
/// Longest datacard title, in characters.
pub const MAX_DATACARD_TITLE_CHARS: usize = 64;
/// Longest datacard content, in characters.
pub const MAX_DATACARD_CONTENT_CHARS: usize = 8000;
/// Largest character card file accepted by import (JSON or PNG).
pub const MAX_CARD_BYTES: usize = 8 * 1024 * 1024;
/// Largest side of a PNG card's picture, in pixels.
pub const MAX_CARD_IMAGE_SIDE: u32 = 4096;

/// Spec 3 §3 gender filter values.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Gender {
    Male,
    Female,
    NonBinary,
    #[default]
    Other,
}

impl Gender {
    pub const ALL: [Gender; 4] = [
        Gender::Male,
        Gender::Female,
        Gender::NonBinary,
        Gender::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Gender::Male => "male",
            Gender::Female => "female",
            Gender::NonBinary => "non_binary",
            Gender::Other => "other",
        }
    }
}

/// Spec 3 character types: 1 entertainment, 2 tool. (0 means "all" in list filters only.)
pub const CHARACTER_TYPES: [u8; 2] = [1, 2];

/// The model settings a character's chats start with.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ChatSettingsView {
    /// 0.0 to 2.0.
    pub temperature: f32,
    /// 0.0 to 1.0.
    pub top_p: f32,
    /// Longest reply in tokens (16 to 1024).
    pub max_reply_tokens: u32,
}

impl Default for ChatSettingsView {
    fn default() -> ChatSettingsView {
        ChatSettingsView {
            temperature: 0.7,
            top_p: 0.9,
            max_reply_tokens: 160,
        }
    }
}

/// Who made a character.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerView {
    pub id: String,
    pub name: String,
}

/// A character, whole (`character/detail`, `tavern-pro/detail`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CharacterView {
    pub id: String,
    pub name: String,
    pub description: String,
    pub persona: String,
    pub scenario: String,
    pub greeting: String,
    pub alternate_greetings: Vec<String>,
    pub example_dialogue: String,
    pub system_prompt: String,
    pub post_history_instructions: String,
    pub creator_notes: String,
    pub tags: Vec<String>,
    pub gender: Gender,
    pub character_type: u8,
    /// `/files/...` or empty.
    pub avatar: String,
    pub settings: ChatSettingsView,
    pub published: bool,
    /// Milliseconds since the epoch; 0 for a draft never published.
    pub publish_at: i64,
    pub create_at: i64,
    pub update_at: i64,
    pub chat_count: u64,
    pub owner: OwnerView,
    /// Whether the caller made it (and may edit it).
    pub is_owner: bool,
}

/// A character in a list (square, recommend, my, latest; chat sessions).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CharacterCard {
    pub id: String,
    pub name: String,
    pub description: String,
    pub avatar: String,
    pub tags: Vec<String>,
    pub gender: Gender,
    pub character_type: u8,
    pub chat_count: u64,
    pub publish_at: i64,
    pub owner: OwnerView,
    /// Present in `tavern-pro/my` only, where drafts are listed too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<bool>,
}

/// A recently chatted character (`character/latest`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecentCard {
    #[serde(flatten)]
    pub card: CharacterCard,
    /// When the caller last chatted with it (milliseconds since the epoch).
    pub last_chat_at: i64,
}

fn yes() -> bool {
    true
}

/// `tavern-pro/publish`: create (no `id`) or edit one's own character.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishRequest {
    /// The character to edit; absent to create one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub persona: String,
    #[serde(default)]
    pub scenario: String,
    pub greeting: String,
    #[serde(default)]
    pub alternate_greetings: Vec<String>,
    #[serde(default)]
    pub example_dialogue: String,
    #[serde(default)]
    pub system_prompt: String,
    #[serde(default)]
    pub post_history_instructions: String,
    #[serde(default)]
    pub creator_notes: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub gender: Gender,
    /// 1 entertainment (default), 2 tool.
    #[serde(default = "default_type")]
    pub character_type: u8,
    /// A `/files/...` URL of an upload on this server, or empty.
    #[serde(default)]
    pub avatar: String,
    /// Absent: the defaults (or, when editing, the present settings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<ChatSettingsView>,
    /// False saves a draft only its owner sees.
    #[serde(default = "yes")]
    pub published: bool,
}

fn default_type() -> u8 {
    1
}

/// A body naming one object.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = CharacterCardIdRequest))]
pub struct IdRequest {
    pub id: String,
}

/// The answer naming a created object.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdAnswer {
    pub id: String,
}

/// `square/.../character/list` order.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = CharacterOrderBy))]
pub enum OrderBy {
    /// Newest published first.
    #[default]
    New,
    /// Most chatted first.
    Hot,
}

/// `square/v3/character/list` and `square/character/list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", schema(as = CharacterListRequest))]
pub struct ListRequest {
    #[serde(default)]
    pub order_by: OrderBy,
    /// Empty: every gender.
    #[serde(default)]
    pub genders: Vec<Gender>,
    /// 0 (or absent) all, 1 entertainment, 2 tool.
    #[serde(default)]
    pub character_type: u8,
    /// Matched, case-insensitively, against name, description and tags.
    #[serde(default)]
    pub keyword: String,
    /// At most [`MAX_LIST_LIMIT`]; [`DEFAULT_LIST_LIMIT`] when absent or 0.
    #[serde(default)]
    pub limit: u32,
    /// The `cursor` of the previous page; absent for the first.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// A page of a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListAnswer<T> {
    pub items: Vec<T>,
    /// Pass back to get the next page; absent on the last page.
    pub cursor: Option<String>,
}
#[cfg(feature = "openapi")]
list_schema!(ListAnswer, "cursor");

/// An unpaged list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Items<T> {
    pub items: Vec<T>,
}
#[cfg(feature = "openapi")]
list_schema!(Items);

/// `recommend`, `latest`: how many.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LimitRequest {
    #[serde(default)]
    pub limit: u32,
}

/// The limit a list call uses: the default for 0, capped at the maximum.
pub fn effective_limit(limit: u32) -> u32 {
    if limit == 0 {
        DEFAULT_LIST_LIMIT
    } else {
        limit.min(MAX_LIST_LIMIT)
    }
}

/// The language model answering chats, as the API describes it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfoView {
    pub name: String,
    pub label: String,
    /// False only for the deterministic scripted model used by tests.
    pub neural: bool,
    pub context_tokens: u32,
}

/// `character/default_setting`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DefaultSettingAnswer {
    pub temperature: f32,
    pub top_p: f32,
    pub max_reply_tokens: u32,
    pub model: ModelInfoView,
}

/// The limits of a character form (`tavern-pro/config`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharacterLimits {
    pub name: usize,
    pub description: usize,
    pub persona: usize,
    pub greeting: usize,
    pub alternate_greetings: usize,
    pub text: usize,
    pub tags: usize,
    pub tag: usize,
    pub datacard_title: usize,
    pub datacard_content: usize,
    pub card_bytes: usize,
}

impl CharacterLimits {
    pub const fn current() -> CharacterLimits {
        CharacterLimits {
            name: MAX_NAME_CHARS,
            description: MAX_DESCRIPTION_CHARS,
            persona: MAX_PERSONA_CHARS,
            greeting: MAX_GREETING_CHARS,
            alternate_greetings: MAX_ALTERNATE_GREETINGS,
            text: MAX_TEXT_CHARS,
            tags: MAX_TAGS,
            tag: MAX_TAG_CHARS,
            datacard_title: MAX_DATACARD_TITLE_CHARS,
            datacard_content: MAX_DATACARD_CONTENT_CHARS,
            card_bytes: MAX_CARD_BYTES,
        }
    }
}

/// One character type as the form offers it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharacterTypeView {
    pub value: u8,
    pub label: String,
}

/// `tavern-pro/config`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigAnswer {
    pub limits: CharacterLimits,
    pub genders: Vec<Gender>,
    pub character_types: Vec<CharacterTypeView>,
    pub settings: ChatSettingsView,
    pub model: ModelInfoView,
}

/// A starter template (`tavern-pro/preset/list`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preset {
    pub id: String,
    pub title: String,
    pub persona: String,
    pub greeting: String,
    pub scenario: String,
}

/// `tavern-pro/card/export` query.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportQuery {
    pub id: String,
    /// `png` (default) or `json`.
    #[serde(default)]
    pub format: Option<String>,
}

/// `datacard/create`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatacardCreate {
    pub title: String,
    #[serde(default)]
    pub content: String,
}

/// `datacard/edit`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatacardEdit {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub content: String,
}

/// A datacard (`datacard/detail`, `datacard/my`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatacardView {
    pub id: String,
    pub title: String,
    pub content: String,
    pub create_at: i64,
    pub update_at: i64,
}

/// A broken rule of a character or datacard; the text is the message the
/// server answers with `InvalidParams`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("name must have 1 to {MAX_NAME_CHARS} characters")]
    Name,
    #[error("description may have at most {MAX_DESCRIPTION_CHARS} characters")]
    Description,
    #[error("persona may have at most {MAX_PERSONA_CHARS} characters")]
    Persona,
    #[error("greeting must have 1 to {MAX_GREETING_CHARS} characters")]
    Greeting,
    #[error("at most {MAX_ALTERNATE_GREETINGS} alternate greetings, each 1 to {MAX_GREETING_CHARS} characters")]
    AlternateGreetings,
    #[error("{0} may have at most {MAX_TEXT_CHARS} characters")]
    Text(&'static str),
    #[error("at most {MAX_TAGS} tags, each 1 to {MAX_TAG_CHARS} characters")]
    Tags,
    #[error("character_type must be 1 (entertainment) or 2 (tool)")]
    CharacterType,
    #[error("temperature must be 0 to 2, top_p 0 to 1, max_reply_tokens 16 to 1024")]
    Settings,
    #[error("title must have 1 to {MAX_DATACARD_TITLE_CHARS} characters")]
    DatacardTitle,
    #[error("content may have at most {MAX_DATACARD_CONTENT_CHARS} characters")]
    DatacardContent,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Trims text fields and drops blank tags and greetings, keeping what the
/// user meant; then checks every rule of a character. Pure: the avatar URL
/// is the server's to check (it must name an upload of this server).
pub fn normalise_publish(mut r: PublishRequest) -> Result<PublishRequest, RuleError> {
    r.name = r.name.trim().to_owned();
    r.greeting = r.greeting.trim().to_owned();
    r.description = r.description.trim().to_owned();
    r.persona = r.persona.trim().to_owned();
    r.scenario = r.scenario.trim().to_owned();
    r.avatar = r.avatar.trim().to_owned();
    r.tags = r
        .tags
        .iter()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .fold(Vec::new(), |mut acc, t| {
            if !acc.contains(&t) {
                acc.push(t);
            }
            acc
        });
    r.alternate_greetings = r
        .alternate_greetings
        .iter()
        .map(|g| g.trim().to_owned())
        .filter(|g| !g.is_empty())
        .collect();
    let n = chars(&r.name);
    if n == 0 || n > MAX_NAME_CHARS || r.name.chars().any(char::is_control) {
        return Err(RuleError::Name);
    }
    if chars(&r.description) > MAX_DESCRIPTION_CHARS {
        return Err(RuleError::Description);
    }
    if chars(&r.persona) > MAX_PERSONA_CHARS {
        return Err(RuleError::Persona);
    }
    let g = chars(&r.greeting);
    if g == 0 || g > MAX_GREETING_CHARS {
        return Err(RuleError::Greeting);
    }
    if r.alternate_greetings.len() > MAX_ALTERNATE_GREETINGS
        || r.alternate_greetings
            .iter()
            .any(|g| chars(g) > MAX_GREETING_CHARS)
    {
        return Err(RuleError::AlternateGreetings);
    }
    for (field, text) in [
        ("scenario", &r.scenario),
        ("example_dialogue", &r.example_dialogue),
        ("system_prompt", &r.system_prompt),
        ("post_history_instructions", &r.post_history_instructions),
        ("creator_notes", &r.creator_notes),
    ] {
        if chars(text) > MAX_TEXT_CHARS {
            return Err(RuleError::Text(field));
        }
    }
    if r.tags.len() > MAX_TAGS
        || r.tags
            .iter()
            .any(|t| chars(t) > MAX_TAG_CHARS || t.chars().any(char::is_control))
    {
        return Err(RuleError::Tags);
    }
    if !CHARACTER_TYPES.contains(&r.character_type) {
        return Err(RuleError::CharacterType);
    }
    if let Some(s) = &r.settings {
        let ok = (0.0..=2.0).contains(&s.temperature)
            && (0.0..=1.0).contains(&s.top_p)
            && (16..=1024).contains(&s.max_reply_tokens);
        if !ok {
            return Err(RuleError::Settings);
        }
    }
    Ok(r)
}

/// Checks and trims a datacard's title and content.
pub fn normalise_datacard(title: &str, content: &str) -> Result<(String, String), RuleError> {
    let title = title.trim();
    let n = chars(title);
    if n == 0 || n > MAX_DATACARD_TITLE_CHARS || title.chars().any(char::is_control) {
        return Err(RuleError::DatacardTitle);
    }
    let content = content.trim();
    if chars(content) > MAX_DATACARD_CONTENT_CHARS {
        return Err(RuleError::DatacardContent);
    }
    Ok((title.to_owned(), content.to_owned()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn req() -> PublishRequest {
        serde_json::from_value(serde_json::json!({"name": " Ada ", "greeting": "Hello."})).unwrap()
    }

    #[test]
    fn defaults_of_a_minimal_body() {
        let r = req();
        assert!(r.published);
        assert_eq!(r.character_type, 1);
        assert_eq!(r.gender, Gender::Other);
        let r = normalise_publish(r).unwrap();
        assert_eq!(r.name, "Ada");
    }

    #[test]
    fn each_rule_is_enforced() {
        type Change = Box<dyn Fn(&mut PublishRequest)>;
        let cases: Vec<(Change, RuleError)> = vec![
            (Box::new(|r| r.name = "  ".into()), RuleError::Name),
            (Box::new(|r| r.name = "a".repeat(65)), RuleError::Name),
            (Box::new(|r| r.name = "a\u{7}b".into()), RuleError::Name),
            (
                Box::new(|r| r.greeting = String::new()),
                RuleError::Greeting,
            ),
            (
                Box::new(|r| r.greeting = "g".repeat(4001)),
                RuleError::Greeting,
            ),
            (
                Box::new(|r| r.persona = "p".repeat(8001)),
                RuleError::Persona,
            ),
            (
                Box::new(|r| r.description = "d".repeat(1001)),
                RuleError::Description,
            ),
            (
                Box::new(|r| r.tags = (0..11).map(|i| format!("t{i}")).collect()),
                RuleError::Tags,
            ),
            (Box::new(|r| r.tags = vec!["x".repeat(25)]), RuleError::Tags),
            (
                Box::new(|r| r.scenario = "s".repeat(8001)),
                RuleError::Text("scenario"),
            ),
            (
                Box::new(|r| r.alternate_greetings = vec!["a".into(); 11]),
                RuleError::AlternateGreetings,
            ),
            (Box::new(|r| r.character_type = 0), RuleError::CharacterType),
            (Box::new(|r| r.character_type = 3), RuleError::CharacterType),
            (
                Box::new(|r| {
                    r.settings = Some(ChatSettingsView {
                        temperature: 3.0,
                        ..ChatSettingsView::default()
                    })
                }),
                RuleError::Settings,
            ),
        ];
        for (change, want) in cases {
            let mut r = req();
            change(&mut r);
            assert_eq!(normalise_publish(r), Err(want));
        }
    }

    #[test]
    fn limits_themselves_pass_and_tags_are_cleaned() {
        let mut r = req();
        r.name = "é".repeat(64);
        r.persona = "p".repeat(8000);
        r.greeting = "g".repeat(4000);
        r.tags = vec![" a ".into(), "".into(), "a".into(), "b".repeat(24)];
        let r = normalise_publish(r).unwrap();
        assert_eq!(r.tags, vec!["a".to_owned(), "b".repeat(24)]);
    }

    #[test]
    fn datacard_rules() {
        assert_eq!(
            normalise_datacard(" Lore ", " x "),
            Ok(("Lore".into(), "x".into()))
        );
        assert_eq!(normalise_datacard("", "x"), Err(RuleError::DatacardTitle));
        assert_eq!(
            normalise_datacard("t", &"c".repeat(8001)),
            Err(RuleError::DatacardContent)
        );
    }

    #[test]
    fn wire_names() {
        assert_eq!(
            serde_json::to_value(Gender::NonBinary).unwrap(),
            serde_json::json!("non_binary")
        );
        let l: ListRequest = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(l.order_by, OrderBy::New);
        assert_eq!(effective_limit(0), 20);
        assert_eq!(effective_limit(500), 50);
        assert_eq!(effective_limit(7), 7);
    }
}
