//! Documents that become a character's datacards (issue 22 part 7, spec 3 §7
//! "Other": `langflow/parse-rag-file` and `langflow/progress`): the wire
//! types of the two calls and of a parsing job, the limits, and in
//! [`chunk`] the pure rules that cut a document's text into datacards.
//!
//! A job moves through `queued → parsing → chunking → saving → done`, or
//! ends `failed` with an error code from the 40700-40719 range; the client
//! polls `langflow/progress` and gives up after [`PROGRESS_TIMEOUT_SECS`]
//! (spec 3 §9).

pub mod chunk;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use chunk::{chunk, Block, Chunk, ChunkRules};

/// Largest document accepted, in bytes (10 MiB).
pub const MAX_RAG_FILE_BYTES: usize = 10 * 1024 * 1024;
/// Longest datacard a document is cut into, in characters.
pub const MAX_CARD_CHARS: usize = 1500;
/// Most datacards one document makes; the rest of a longer document is
/// left out and the job says `truncated`.
pub const MAX_CARDS_PER_DOCUMENT: usize = 300;
/// How long the client polls `langflow/progress` before it gives up, and
/// how long the server lets one job run (spec 3 §9: 600 s).
pub const PROGRESS_TIMEOUT_SECS: u64 = 600;
/// Longest file name kept with a job, in characters.
pub const MAX_FILE_NAME_CHARS: usize = 200;

/// What a document was read as: sniffed from its bytes, the name only
/// telling Markdown from plain text.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    Text,
    Markdown,
    Html,
    Pdf,
}

impl DocKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Text => "text",
            DocKind::Markdown => "markdown",
            DocKind::Html => "html",
            DocKind::Pdf => "pdf",
        }
    }
}

/// Where a parsing job stands.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RagState {
    Queued,
    Parsing,
    Chunking,
    Saving,
    Done,
    Failed,
}

impl RagState {
    /// Done or failed: the job will not change again.
    pub fn is_final(self) -> bool {
        matches!(self, RagState::Done | RagState::Failed)
    }
}

/// Why a job failed: an error code of the catalogue, its key and a message.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RagErrorView {
    pub code: i32,
    pub key: String,
    pub msg: String,
}

/// `langflow/progress`: a job as its owner sees it (also the content of the
/// Notification frame `rag.progress`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RagJobView {
    pub id: String,
    pub state: RagState,
    /// 0 to 100.
    pub percent: u8,
    /// Datacards made so far.
    pub cards_made: u32,
    /// Datacards the document is cut into (0 until chunked).
    pub cards_total: u32,
    /// The datacards made, in document order.
    pub card_ids: Vec<String>,
    /// Parts the text filter refused (left out).
    #[serde(default)]
    pub cards_refused: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_id: Option<String>,
    pub file_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<DocKind>,
    /// The document had more than [`MAX_CARDS_PER_DOCUMENT`] parts; the rest
    /// was left out.
    #[serde(default)]
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RagErrorView>,
    pub create_at: i64,
    pub update_at: i64,
}

/// `langflow/parse-rag-file` with a JSON body: a confirmed upload of the
/// caller (`resource/pre-sign`) instead of the file itself.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseRagUpload {
    pub file_id: String,
    #[serde(default)]
    pub character_id: Option<String>,
}

/// `langflow/parse-rag-file` with the raw file as the body: its query.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseRagQuery {
    #[serde(default)]
    pub character_id: Option<String>,
    #[serde(default)]
    pub file_name: Option<String>,
}

/// `langflow/parse-rag-file`'s answer: the job to poll.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseRagAnswer {
    pub id: String,
}

/// `langflow/progress` and `langflow/character-datacards`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RagIdRequest {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub character_id: String,
}

/// A file name as kept with a job: control characters and path parts
/// dropped, at most [`MAX_FILE_NAME_CHARS`] characters, `document` when
/// nothing is left.
pub fn clean_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let kept: String = base
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_FILE_NAME_CHARS)
        .collect();
    let kept = kept.trim();
    if kept.is_empty() {
        "document".to_owned()
    } else {
        kept.to_owned()
    }
}
