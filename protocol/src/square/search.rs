//! Search (spec 3 §7 Search, Tags): completion, result lists, hot terms,
//! the viewer's history and tags.

use serde::{Deserialize, Serialize};

/// Longest keyword, in characters.
pub const MAX_KEYWORD_CHARS: usize = 100;

/// `square/v3/search/list` (and `portfolio/search`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct SearchRequest {
    #[serde(default)]
    pub keyword: String,
    /// "all" (default), "work", "article", "character", "account", "tag".
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
    /// A visitor's NSFW choice, as in feed requests.
    #[serde(default, deserialize_with = "crate::square::nsfw::lenient_mode")]
    pub nsfw_mode: Option<crate::square::nsfw::NsfwMode>,
}

/// `square/search/complete`, `searchapi/v1/search/complete`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct CompleteRequest {
    #[serde(default)]
    pub keyword: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CompleteAnswer {
    pub items: Vec<String>,
}

/// A term with how often it was searched or used.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermCount {
    pub text: String,
    pub count: i64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TermList {
    pub items: Vec<TermCount>,
}

/// `search/history/del`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HistoryDelRequest {
    pub keyword: String,
}

/// `tag/get_by_group`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct TagGroupRequest {
    #[serde(default)]
    pub lang: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TagGroup {
    pub group: String,
    pub tags: Vec<TermCount>,
}

/// A keyword, trimmed and limited; `None` when empty.
pub fn clean_keyword(k: &str) -> Option<String> {
    let k: String = k
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_KEYWORD_CHARS)
        .collect();
    (!k.is_empty()).then_some(k)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn keywords() {
        assert_eq!(clean_keyword("  red   cat \n"), Some("red cat".into()));
        assert_eq!(clean_keyword("   "), None);
        assert_eq!(
            clean_keyword(&"a".repeat(500)).unwrap().len(),
            MAX_KEYWORD_CHARS
        );
        assert_eq!(clean_keyword("猫\u{7}"), Some("猫".into()));
    }
}
