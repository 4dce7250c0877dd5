//! The bodies of `tool/text/detection`, `tool/text/batch-filter` and the
//! operators' `admin/text-filter/*` calls.

use super::entry::{Entry, Scene};
use super::matcher::{Hit, Verdict};
use serde::{Deserialize, Serialize};

/// Longest text the tools check, in characters.
pub const MAX_TOOL_TEXT_CHARS: usize = 20_000;
/// Most texts in one batch.
pub const MAX_BATCH_ITEMS: usize = 100;

/// `tool/text/detection` body.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DetectionRequest {
    /// The text to check.
    pub text: String,
    /// The scene (`prompt`, `name`, `title`, ...); `prompt` when absent.
    #[serde(default)]
    pub scene: Option<String>,
}

/// `tool/text/detection` answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DetectionResult {
    /// The scene the text was checked for.
    pub scene: Scene,
    /// Whether a refusing entry matched (the text would be refused).
    pub refused: bool,
    /// Whether anything matched.
    pub hit: bool,
    /// The matches (spans in characters, categories, actions).
    pub hits: Vec<Hit>,
    /// The text with matches masked by `*`.
    pub masked: String,
}

impl DetectionResult {
    /// Builds the answer from a verdict.
    pub fn new(scene: Scene, verdict: Verdict) -> DetectionResult {
        DetectionResult {
            scene,
            refused: verdict.refused,
            hit: !verdict.hits.is_empty(),
            hits: verdict.hits,
            masked: verdict.masked,
        }
    }
}

/// `tool/text/batch-filter` body: texts written for one scene (spec 3 §7: the
/// client adds the scene marker for titles and descriptions).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BatchFilterRequest {
    /// The texts, in order.
    pub list: Vec<String>,
    /// The scene; `title` when absent.
    #[serde(default)]
    pub scene: Option<String>,
}

/// One text's result in a batch.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchItem {
    /// The text as sent.
    pub text: String,
    /// The text with matches masked (equal to `text` when clean).
    pub masked: String,
    /// Whether the text would be refused.
    pub refused: bool,
    /// Whether anything matched.
    pub hit: bool,
    /// The matches' categories, without repeats, in order.
    pub categories: Vec<String>,
}

/// `tool/text/batch-filter` answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchFilterResult {
    /// The scene the texts were checked for.
    pub scene: Scene,
    /// One item per text, in order.
    pub list: Vec<BatchItem>,
}

impl BatchItem {
    /// Builds an item from a text and its verdict.
    pub fn new(text: String, verdict: Verdict) -> BatchItem {
        let mut categories: Vec<String> = Vec::new();
        for hit in &verdict.hits {
            if !categories.contains(&hit.category) {
                categories.push(hit.category.clone());
            }
        }
        BatchItem {
            text,
            masked: verdict.masked,
            refused: verdict.refused,
            hit: !verdict.hits.is_empty(),
            categories,
        }
    }
}

/// Where an entry of the effective list comes from.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntrySource {
    /// The default list shipped with Easel.
    Default,
    /// Written by an operator (new, or a default entry edited).
    Operator,
}

/// One entry as operators see it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = TextfilterWireEntryView))]
pub struct EntryView {
    /// The entry.
    #[serde(flatten)]
    pub entry: Entry,
    /// Default or operator.
    pub source: EntrySource,
    /// Last change by an operator (ms since the epoch), 0 for default entries.
    pub updated_at: i64,
}

/// `admin/text-filter/list` answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryList {
    /// The effective entries, by id.
    pub list: Vec<EntryView>,
    /// Ids of default entries an operator deleted.
    pub deleted_defaults: Vec<String>,
}

/// `admin/text-filter/delete` body.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeleteEntry {
    /// The entry's id.
    pub id: String,
}
