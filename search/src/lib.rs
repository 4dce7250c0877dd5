//! Easel's embedded full-text index for the square: works, articles, characters, accounts and
//! tags, held in a [tantivy] index on local disk.
//!
//! The crate knows nothing of HTTP or the Store. The backend feeds it [`SearchDoc`]s (on every
//! change, and all of them through [`SearchIndex::rebuild`] when [`SearchIndex::needs_rebuild`]
//! says so) and asks it [`SearchQuery`]s; the answer is ids, which the backend re-checks against
//! the Store before showing anything. The index is derived data: it may be wiped at any time.
//!
//! # Text analysis
//!
//! Titles, tags, bodies and author names are split into alphanumeric words, lower-cased and
//! ASCII-folded (`Café` finds `cafe`). Runs of CJK characters (which carry no spaces) are indexed
//! as every character and every adjacent character pair, so a Chinese or Japanese word inside a
//! longer title is found: a query run of two or more characters must match all its pairs, a
//! one-character query matches that character.
//!
//! # Matching
//!
//! The keyword is never parsed as a query language: it is analysed like the indexed text and
//! every resulting term must occur in at least one of the fields (`AND` across terms, `OR`
//! across fields). Quotes, colons, parentheses, `AND`, `*` are plain text (punctuation is simply
//! dropped). A keyword with no searchable term (empty, only punctuation) matches nothing.
//! At most [`MAX_QUERY_TERMS`] terms of a keyword are used.
//!
//! # Ranking
//!
//! Each term contributes the BM25 score of each field it occurs in, weighted by field:
//! title ×[`TITLE_BOOST`], tags ×[`TAGS_BOOST`], body ×1, author name ×1. The relevance `r` (the
//! sum over terms and fields) is then nudged by popularity `p` (likes, uses, followers; negative
//! or non-finite values count as 0):
//!
//! ```text
//! score = r × (1 + POPULARITY_WEIGHT × ln(1 + p))
//! ```
//!
//! With [`POPULARITY_WEIGHT`] = 0.1, a document with popularity 1 000 gets ×1.69 and one with
//! popularity 10 gets ×1.24: enough to order equally relevant documents, rarely enough to lift a
//! weak match over a strong one. Exact ties keep index order, so paging is stable while the
//! index does not change.
//!
//! # Visibility
//!
//! Filtering happens inside the query: `Public` documents are always visible; `Followers`
//! documents when the author is the viewer or in `viewer_follows`; `Private` documents only to
//! their author. `nsfw` documents are left out unless `show_nsfw`.
//!
//! # Completion
//!
//! [`SearchIndex::complete`] offers titles (work, article and character titles, account names,
//! tags) of public, non-nsfw documents having a word that starts with the typed prefix (all but
//! the last typed word must match whole words), most popular first, without duplicates
//! (compared case-insensitively).
//!
//! # Commits
//!
//! [`SearchIndex::upsert`] and [`SearchIndex::delete`] only queue the change in memory (they
//! never wait for the disk, so they are fine to call from async code). A background thread
//! applies the queue in order and commits at most once per [`SearchOptions::commit_interval`]
//! while changes are pending; [`SearchIndex::commit_now`] does it at once. Dropping the last
//! clone of a [`SearchIndex`] commits what is pending. [`SearchIndex::search`],
//! [`SearchIndex::complete`] and [`SearchIndex::rebuild`] do blocking I/O (memory-mapped reads,
//! a commit): call them from a blocking context in async code.

mod folder;
mod index;
mod query;
mod schema;
mod tokenizer;

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use index::SearchIndex;
pub use query::{MAX_QUERY_TERMS, MAX_WINDOW, POPULARITY_WEIGHT, TAGS_BOOST, TITLE_BOOST};
pub use schema::SCHEMA_VERSION;

/// What a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocKind {
    Work,
    Article,
    Character,
    Account,
    Tag,
}

impl DocKind {
    /// Every kind, in declaration order.
    pub const ALL: [DocKind; 5] = [
        DocKind::Work,
        DocKind::Article,
        DocKind::Character,
        DocKind::Account,
        DocKind::Tag,
    ];

    /// The lower-case name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Work => "work",
            DocKind::Article => "article",
            DocKind::Character => "character",
            DocKind::Account => "account",
            DocKind::Tag => "tag",
        }
    }

    /// Parses the lower-case name.
    pub fn parse(s: &str) -> Option<DocKind> {
        DocKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Who may see a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Public,
    Followers,
    Private,
}

impl Visibility {
    /// The lower-case name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Followers => "followers",
            Visibility::Private => "private",
        }
    }
}

/// One searchable thing, as the backend describes it.
///
/// For an account `title` is its name; for a tag `title` is the tag and `popularity` its use
/// count. `(kind, id)` identifies the document: indexing the same pair again replaces it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchDoc {
    pub kind: DocKind,
    pub id: String,
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub author_id: String,
    pub author_name: String,
    pub visibility: Visibility,
    pub nsfw: bool,
    pub created_ms: i64,
    pub popularity: f64,
}

/// A question to the index.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchQuery {
    /// The user's words, taken literally (no query syntax).
    pub keyword: String,
    /// Kinds to return; empty means every kind.
    pub kinds: Vec<DocKind>,
    /// The signed-in account, if any.
    pub viewer: Option<String>,
    /// Accounts the viewer follows (their `Followers` documents are visible).
    pub viewer_follows: Vec<String>,
    /// Include documents marked nsfw.
    pub show_nsfw: bool,
    /// Hits to skip.
    pub offset: usize,
    /// Hits to return at most; `offset + limit` is capped at [`MAX_WINDOW`].
    pub limit: usize,
}

/// One matching document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub kind: DocKind,
    pub id: String,
    /// The ranking score (see the crate docs); higher is better.
    pub score: f32,
}

/// A page of hits.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchPage {
    pub hits: Vec<Hit>,
    /// How many documents match in all (visible to the viewer), not just on this page.
    pub total: usize,
}

/// Tuning for [`SearchIndex::open_with`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Longest a write waits before it becomes searchable; commits happen at most this often.
    pub commit_interval: Duration,
    /// Indexing memory before tantivy flushes a segment (raised to tantivy's 15 MB minimum).
    pub writer_memory_bytes: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            commit_interval: Duration::from_millis(1000),
            writer_memory_bytes: 15_000_000,
        }
    }
}

/// Anything that went wrong in the index (never caused by query text).
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("search index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("search index folder: {0}")]
    Io(#[from] std::io::Error),
    #[error("search index: stored document has no valid key")]
    BadStoredKey,
    /// Another [`SearchIndex`] (in this or another process) has the folder open.
    #[error("search index folder {0} is in use by another index")]
    Busy(std::path::PathBuf),
    /// The folder holds other files than an index; it is never wiped.
    #[error("search index folder {0} is not empty and holds no search index")]
    ForeignFolder(std::path::PathBuf),
}
