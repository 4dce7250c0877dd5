//! The filter's list entries and scenes: what an operator edits and what the
//! wire carries (`admin/text-filter/*`), with the rules an entry must follow.

use serde::{Deserialize, Serialize};

/// Where a text was written; entries apply to the scenes they name.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scene {
    /// A generation prompt (task create, polish, agent).
    Prompt,
    /// An account's nickname, a model's, a channel's or a voice's name.
    Name,
    /// A work's or an article's title.
    Title,
    /// A work's, a model's or a channel's description.
    Description,
    /// A comment under a work.
    Comment,
    /// A character's texts (name, description, greeting, persona...).
    Character,
    /// A channel (im) message.
    Message,
}

impl Scene {
    /// Every scene, in wire order.
    pub const ALL: &'static [Scene] = &[
        Scene::Prompt,
        Scene::Name,
        Scene::Title,
        Scene::Description,
        Scene::Comment,
        Scene::Character,
        Scene::Message,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scene::Prompt => "prompt",
            Scene::Name => "name",
            Scene::Title => "title",
            Scene::Description => "description",
            Scene::Comment => "comment",
            Scene::Character => "character",
            Scene::Message => "message",
        }
    }

    /// Reads a wire name (case-insensitive); spec 3 §7's batch-filter marker
    /// `title_description` reads as [`Scene::Title`] (both share entries in the
    /// default list).
    pub fn parse(text: &str) -> Option<Scene> {
        let lower = text.trim().to_ascii_lowercase();
        if lower == "title_description" || lower == "title-description" {
            return Some(Scene::Title);
        }
        Scene::ALL.iter().copied().find(|s| s.as_str() == lower)
    }
}

/// What a match of an entry does.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = TextFilterAction))]
pub enum Action {
    /// The matched characters are replaced by `*`; the text is accepted.
    Mask,
    /// The whole text is refused.
    Refuse,
    /// An allow-list entry: deny matches lying inside its match are dropped
    /// (the Scunthorpe problem: "scunthorpe", "shiitake").
    Allow,
}

/// How an entry's term is matched.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A word or phrase, matched on the normalised text (case, width,
    /// accents, homoglyphs, separators, repeats and leetspeak folded).
    #[default]
    Word,
    /// A regular expression (Rust `regex` syntax) matched on the text with
    /// case, width, accents and homoglyphs folded, but no other folding.
    Pattern,
}

/// One entry of a list.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Stable id (`[a-z0-9_.-]`, 1 to 64 characters); the default list's ids
    /// start with `default.`.
    pub id: String,
    /// The word, phrase or pattern.
    pub term: String,
    /// Word or pattern.
    #[serde(default)]
    pub kind: Kind,
    /// The list's language (`en`, `zh`, `ja`, `es`, `*`...): for operators;
    /// every entry applies to every text, as languages mix.
    #[serde(default = "any_lang")]
    pub lang: String,
    /// A short category shown in hits (`profanity`, `sexual_minors`, `spam`...).
    #[serde(default = "default_category")]
    pub category: String,
    /// Mask, refuse or allow.
    pub action: Action,
    /// The scenes it applies to; empty means every scene.
    #[serde(default)]
    pub scenes: Vec<Scene>,
    /// Whether a word must stand alone (not inside a longer word). Ignored at
    /// an end written in a script without spaces (CJK, kana, Thai...).
    #[serde(default = "yes")]
    pub whole_word: bool,
}

fn any_lang() -> String {
    "*".to_owned()
}

fn default_category() -> String {
    "other".to_owned()
}

const fn yes() -> bool {
    true
}

/// Why an entry cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// The id is empty, too long or has other characters than `[a-z0-9_.-]`.
    #[error("entry id must be 1 to 64 characters of a-z, 0-9, _ . -")]
    BadId,
    /// The term is empty (after normalisation) or longer than 200 characters.
    #[error("entry {0}: the term is empty or too long")]
    BadTerm(String),
    /// The pattern does not compile (or is too large).
    #[error("entry {0}: the pattern does not compile: {1}")]
    BadPattern(String, String),
    /// The language or category is empty or too long.
    #[error("entry {0}: language and category are 1 to 32 characters")]
    BadLabel(String),
}

/// Longest term, in characters.
pub const MAX_TERM_CHARS: usize = 200;

impl Entry {
    /// Checks the fields that need no compilation.
    pub fn check(&self) -> Result<(), EntryError> {
        let id_ok = !self.id.is_empty()
            && self.id.len() <= 64
            && self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c));
        if !id_ok {
            return Err(EntryError::BadId);
        }
        let chars = self.term.chars().count();
        if self.term.trim().is_empty() || chars > MAX_TERM_CHARS {
            return Err(EntryError::BadTerm(self.id.clone()));
        }
        let label_ok = |s: &str| !s.trim().is_empty() && s.chars().count() <= 32;
        if !label_ok(&self.lang) || !label_ok(&self.category) {
            return Err(EntryError::BadLabel(self.id.clone()));
        }
        Ok(())
    }

    /// Whether it applies to `scene`.
    pub fn applies_to(&self, scene: Scene) -> bool {
        self.scenes.is_empty() || self.scenes.contains(&scene)
    }
}

/// The default list shipped in the repository (`default_list.json`): small
/// and tame; operators extend it.
pub const DEFAULT_LIST_JSON: &str = include_str!("default_list.json");

/// The default list, parsed.
pub fn default_list() -> Vec<Entry> {
    serde_json::from_str(DEFAULT_LIST_JSON).unwrap_or_default()
}
