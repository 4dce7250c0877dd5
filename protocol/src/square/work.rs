//! Works: what a user publishes to the square (a picture post made of a
//! finished task's outputs, an article in Markdown, or a video post), its
//! detail as answered by `artwork/detail` and `post/detail`, and the limits
//! and checks every publish and edit goes through.

use serde::{Deserialize, Serialize};

use super::card::CardAuthor;
use super::chars;
use crate::ErrorCode;

/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 100;
/// Longest description of a picture or video post, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 2000;
/// Longest article body (Markdown source), in characters.
pub const MAX_ARTICLE_CHARS: usize = 50_000;
/// Most tags on one work.
pub const MAX_TAGS: usize = 10;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 30;
/// Most tasks one picture post gathers.
pub const MAX_TASKS_PER_POST: usize = 10;
/// Most pictures one picture post shows.
pub const MAX_IMAGES_PER_POST: usize = 20;

/// Who may see a work.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    #[default]
    Public,
    /// The author and the accounts that follow the author.
    Followers,
    /// The author only.
    Private,
}

/// The three post kinds of spec 3 §3 ("Post type: picture, article, video").
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum PostKind {
    #[default]
    Picture,
    Article,
    Video,
}

impl PostKind {
    /// The card's `content_sub_type`.
    pub fn as_str(self) -> &'static str {
        match self {
            PostKind::Picture => "picture",
            PostKind::Article => "article",
            PostKind::Video => "video",
        }
    }

    /// The card's `sub_obj_type` (1 picture, 2 article, 3 video).
    pub fn code(self) -> u8 {
        match self {
            PostKind::Picture => 1,
            PostKind::Article => 2,
            PostKind::Video => 3,
        }
    }
}

/// The generation parameters a picture came from, shown on its page unless
/// the author hid them.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GenParams {
    pub prompt: String,
    #[serde(default)]
    pub negative_prompt: String,
    /// The checkpoint's catalogue id and name.
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub model_name: String,
    #[serde(default)]
    pub seed: i64,
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
    #[serde(default)]
    pub steps: u32,
    #[serde(default)]
    pub cfg_scale: f64,
    #[serde(default)]
    pub sampler: String,
    /// The action code of the task (spec 1 §7).
    #[serde(default)]
    pub action: i64,
    /// The engine's label (e.g. "Easel reference engine (non-neural)").
    #[serde(default)]
    pub engine: String,
    #[serde(default)]
    pub neural: bool,
}

/// `post/portfolio/add_v2` and `add`: publish finished tasks' outputs.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct PublishPictureRequest {
    pub task_ids: Vec<String>,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub visibility: Visibility,
    /// The author marks the work as not safe for work.
    #[serde(default)]
    pub nsfw: bool,
    /// Hide the prompt and parameters from everyone else.
    #[serde(default)]
    pub hide_params: bool,
    /// Only these outputs (URLs from the tasks' `img_uris`); all when empty.
    #[serde(default)]
    pub images: Vec<String>,
}

/// `post/article/add`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct PublishArticleRequest {
    #[serde(default)]
    pub title: String,
    /// Markdown.
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub nsfw: bool,
    /// An uploaded picture (a `/files/...` URL of this server) shown on the card.
    #[serde(default)]
    pub cover: Option<String>,
}

/// `post/video/add`: a finished task's video, or an uploaded video file.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct PublishVideoRequest {
    #[serde(default)]
    pub task_id: Option<String>,
    /// An uploaded video (a `/files/...` URL of this server).
    #[serde(default)]
    pub video_url: Option<String>,
    /// Its poster picture (a `/files/...` URL); optional.
    #[serde(default)]
    pub cover: Option<String>,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub nsfw: bool,
}

/// `portfolio/edit`, `post/article/edit`, `post/video/edit`: every field
/// optional; absent means unchanged.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct EditWorkRequest {
    pub id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Articles: the new Markdown.
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    #[serde(default)]
    pub visibility: Option<Visibility>,
    #[serde(default)]
    pub nsfw: Option<bool>,
    #[serde(default)]
    pub hide_params: Option<bool>,
    #[serde(default)]
    pub cover: Option<String>,
}

/// `artwork/visibility`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VisibilityRequest {
    pub id: String,
    pub visibility: Visibility,
}

/// One picture of a work.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkImage {
    pub url: String,
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
}

/// `artwork/detail` and `post/detail` (DESIGN.md Contracts).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkDetail {
    pub id: String,
    /// 4 (a post), as on its card.
    pub obj_type: u8,
    pub kind: PostKind,
    pub title: String,
    pub description: String,
    pub tags: Vec<String>,
    pub visibility: Visibility,
    pub nsfw: bool,
    pub author: CardAuthor,
    pub images: Vec<WorkImage>,
    /// Video posts: the video's URL.
    #[serde(default)]
    pub video_url: Option<String>,
    /// Video posts made from a task: its HLS master playlist (adaptive
    /// streaming); `None` for uploaded videos.
    #[serde(default)]
    pub hls_url: Option<String>,
    /// Video posts: how many times it was played (`ai-video/play`).
    #[serde(default)]
    pub plays: i64,
    /// Articles: the Markdown source (the author's, for editing) and the
    /// sanitised HTML everyone is shown.
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub content_html: Option<String>,
    /// The generation parameters per task; empty when hidden (and the
    /// viewer is not the author) or when the work has none.
    pub params: Vec<GenParams>,
    pub hide_params: bool,
    pub task_ids: Vec<String>,
    pub likes: i64,
    pub collects: i64,
    pub comments: i64,
    pub views: i64,
    pub liked: bool,
    pub collected: bool,
    /// The viewer follows the author.
    pub following: bool,
    pub create_at: i64,
    pub update_at: i64,
    /// The image URL of the work frame the work wears (the ornament shop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// The author's own view only: a moderator hid the work or took it out
    /// of feeds, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moderation: Option<crate::moderation::ModerationView>,
    /// The author's own view only: the appeal of this work's rating or
    /// moderation, open or decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appeal: Option<crate::moderation::AppealView>,
    /// The NSFW classifier's rating of its pictures (`safe`, `suggestive`,
    /// `nsfw`), when they were scored; `nsfw` above is then at least as
    /// strict (the author may mark more, not less).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<String>,
    /// The highest classifier score of its pictures, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw_score: Option<f32>,
}

/// `post/content/check` and the checks of every publish: the text limits.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct ContentCheckRequest {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Why a text was refused: the field, the code (and so the message key) and
/// a message naming the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextProblem {
    pub field: &'static str,
    pub key: ErrorCode,
    pub msg: String,
}

fn problem(field: &'static str, key: ErrorCode, msg: String) -> TextProblem {
    TextProblem { field, key, msg }
}

/// A title: trimmed, 0 to [`MAX_TITLE_CHARS`], no control characters.
pub fn check_title(title: &str) -> Result<String, TextProblem> {
    let t = title.trim();
    if chars(t) > MAX_TITLE_CHARS {
        return Err(problem(
            "title",
            ErrorCode::WorkTitleTooLong,
            format!("a title has at most {MAX_TITLE_CHARS} characters"),
        ));
    }
    if t.chars().any(char::is_control) {
        return Err(problem(
            "title",
            ErrorCode::WorkTextInvalid,
            "a title may not contain control characters".into(),
        ));
    }
    Ok(t.to_owned())
}

/// A description (or article body, with its own limit): trimmed, limited,
/// no control characters but newlines and tabs.
pub fn check_body(field: &'static str, text: &str, max: usize) -> Result<String, TextProblem> {
    let t = text.trim();
    if chars(t) > max {
        return Err(problem(
            field,
            ErrorCode::WorkTextTooLong,
            format!("the {field} has at most {max} characters"),
        ));
    }
    if t.chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
    {
        return Err(problem(
            field,
            ErrorCode::WorkTextInvalid,
            format!("the {field} may not contain control characters"),
        ));
    }
    Ok(t.to_owned())
}

/// Tags: trimmed, a leading `#` dropped, inner spaces folded, compared
/// case-insensitively (the first spelling is kept), empty ones dropped; at
/// most [`MAX_TAGS`] of at most [`MAX_TAG_CHARS`] characters, letters,
/// digits, spaces, `_` and `-` only.
pub fn normalise_tags(tags: &[String]) -> Result<Vec<String>, TextProblem> {
    let mut out: Vec<String> = Vec::new();
    for raw in tags {
        let t = raw.trim().trim_start_matches('#').trim();
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        if t.is_empty() {
            continue;
        }
        if chars(&t) > MAX_TAG_CHARS
            || !t
                .chars()
                .all(|c| c.is_alphanumeric() || c == ' ' || c == '_' || c == '-')
        {
            return Err(problem(
                "tags",
                ErrorCode::WorkTagInvalid,
                format!("a tag has 1 to {MAX_TAG_CHARS} letters, digits, spaces, '_' or '-'"),
            ));
        }
        if !out.iter().any(|o| o.to_lowercase() == t.to_lowercase()) {
            out.push(t);
        }
    }
    if out.len() > MAX_TAGS {
        return Err(problem(
            "tags",
            ErrorCode::WorkTooManyTags,
            format!("a work has at most {MAX_TAGS} tags"),
        ));
    }
    Ok(out)
}

/// The key a tag is counted and searched under.
pub fn tag_key(tag: &str) -> String {
    tag.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn titles() {
        for (input, ok) in [
            ("  A cat  ", Some("A cat")),
            ("", Some("")),
            (&"x".repeat(100), Some(&*"x".repeat(100))),
            (&"x".repeat(101), None),
            (&"猫".repeat(100), Some(&*"猫".repeat(100))),
            ("bad\u{0007}bell", None),
            ("two\nlines", None),
        ] {
            assert_eq!(check_title(input).ok().as_deref(), ok, "{input:?}");
        }
        assert_eq!(
            check_title(&"x".repeat(101)).unwrap_err().key,
            ErrorCode::WorkTitleTooLong
        );
    }

    #[test]
    fn bodies_keep_newlines_and_refuse_control_characters() {
        assert_eq!(check_body("description", " a\nb\t ", 10).unwrap(), "a\nb");
        assert_eq!(
            check_body("description", "a\u{0}b", 10).unwrap_err().key,
            ErrorCode::WorkTextInvalid
        );
        let e = check_body("content", &"y".repeat(11), 10).unwrap_err();
        assert_eq!((e.field, e.key), ("content", ErrorCode::WorkTextTooLong));
    }

    #[test]
    fn tags() {
        let t = |v: &[&str]| normalise_tags(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            t(&["#Cat", " cat ", "sea  side", "", "  "]).unwrap(),
            vec!["Cat", "sea side"]
        );
        assert_eq!(
            t(&["风景", "landscape"]).unwrap(),
            vec!["风景", "landscape"]
        );
        assert_eq!(t(&["<script>"]).unwrap_err().key, ErrorCode::WorkTagInvalid);
        assert_eq!(
            t(&[&"a".repeat(31)]).unwrap_err().key,
            ErrorCode::WorkTagInvalid
        );
        let many: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
        assert_eq!(
            normalise_tags(&many).unwrap_err().key,
            ErrorCode::WorkTooManyTags
        );
        let dupes: Vec<String> = (0..20).map(|_| "same".to_string()).collect();
        assert_eq!(normalise_tags(&dupes).unwrap(), vec!["same"]);
    }

    #[test]
    fn kinds_and_visibility_on_the_wire() {
        assert_eq!(
            serde_json::to_string(&Visibility::Followers).unwrap(),
            "\"followers\""
        );
        assert_eq!(
            serde_json::to_string(&PostKind::Article).unwrap(),
            "\"article\""
        );
        assert_eq!(PostKind::Video.code(), 3);
        let r: PublishPictureRequest = serde_json::from_str(r#"{"task_ids":["t"]}"#).unwrap();
        assert_eq!(r.visibility, Visibility::Public);
    }
}
