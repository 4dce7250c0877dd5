//! The pure rules of a comment's text and labels: trimming, the length
//! limit, which characters are refused, and the scene and source labels.
//! Comments are stored as the plain text the user typed (never HTML): the
//! web escapes it when showing it.

use protocol::square::comment::MAX_COMMENT_CHARS;
use protocol::ErrorCode;

use crate::error::ApiError;

/// Longest scene marker (spec 3 §7: the list or page the comment came from).
pub const MAX_SCENE_CHARS: usize = 64;
/// Longest source page path.
pub const MAX_SOURCE_CHARS: usize = 512;

/// The comment as stored: line breaks normalised to `\n`, trimmed, 1 to
/// [`MAX_COMMENT_CHARS`] characters, with no control character but the
/// newline. Empty or with control characters is `WorkTextInvalid`; too long
/// is `WorkTextTooLong`.
pub fn clean_comment(raw: &str) -> Result<String, ApiError> {
    let text = raw.replace("\r\n", "\n");
    let text = text.trim();
    if text.is_empty() {
        return Err(ApiError::with_msg(
            ErrorCode::WorkTextInvalid,
            "the comment is empty",
        ));
    }
    if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\n') {
        return Err(ApiError::with_msg(
            ErrorCode::WorkTextInvalid,
            format!(
                "the comment has a control character (U+{:04X})",
                u32::from(c)
            ),
        ));
    }
    let n = protocol::square::chars(text);
    if n > MAX_COMMENT_CHARS {
        return Err(ApiError::with_msg(
            ErrorCode::WorkTextTooLong,
            format!("a comment is at most {MAX_COMMENT_CHARS} characters (this one has {n})"),
        ));
    }
    Ok(text.to_owned())
}

/// An optional label (scene marker, source page): trimmed, empty is none,
/// at most `max` characters and no control characters, else InvalidParams.
pub fn clean_label(what: &str, raw: Option<&str>, max: usize) -> Result<Option<String>, ApiError> {
    let Some(v) = raw.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if protocol::square::chars(v) > max || v.chars().any(char::is_control) {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            format!("{what} is at most {max} characters, without control characters"),
        ));
    }
    Ok(Some(v.to_owned()))
}

/// The first `max` characters of a comment, for a notification's preview.
pub fn preview(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", text.get(..i).unwrap_or(text)),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn code(r: Result<String, ApiError>) -> ErrorCode {
        r.unwrap_err().code
    }

    #[test]
    fn trims_and_keeps_inner_newlines() {
        assert_eq!(clean_comment("  hi\r\nthere \n").unwrap(), "hi\nthere");
        assert_eq!(clean_comment("a").unwrap(), "a");
    }

    #[test]
    fn keeps_markup_as_plain_text() {
        let html = "<script>alert(1)</script> & <b>bold</b>";
        assert_eq!(clean_comment(html).unwrap(), html);
    }

    #[test]
    fn empty_and_blank_are_invalid() {
        assert_eq!(code(clean_comment("")), ErrorCode::WorkTextInvalid);
        assert_eq!(code(clean_comment(" \n\r\n ")), ErrorCode::WorkTextInvalid);
    }

    #[test]
    fn control_characters_are_invalid() {
        for bad in [
            "a\u{0}b",
            "a\tb",
            "a\u{7}",
            "x\u{1b}[31m",
            "a\rb",
            "a\u{85}b",
        ] {
            assert_eq!(
                code(clean_comment(bad)),
                ErrorCode::WorkTextInvalid,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        let exactly = "é".repeat(MAX_COMMENT_CHARS);
        assert_eq!(clean_comment(&exactly).unwrap(), exactly);
        let emoji = "😄".repeat(MAX_COMMENT_CHARS);
        assert!(clean_comment(&emoji).is_ok());
        let over = "a".repeat(MAX_COMMENT_CHARS + 1);
        assert_eq!(code(clean_comment(&over)), ErrorCode::WorkTextTooLong);
        // Surrounding blanks do not count.
        let padded = format!("  {}  ", "a".repeat(MAX_COMMENT_CHARS));
        assert!(clean_comment(&padded).is_ok());
    }

    #[test]
    fn labels() {
        assert_eq!(clean_label("scene", None, 4).unwrap(), None);
        assert_eq!(clean_label("scene", Some("  "), 4).unwrap(), None);
        assert_eq!(
            clean_label("scene", Some(" feed "), 4).unwrap().as_deref(),
            Some("feed")
        );
        assert_eq!(
            clean_label("scene", Some("feeds"), 4).unwrap_err().code,
            ErrorCode::InvalidParams
        );
        assert!(clean_label("source", Some("/a\nb"), 40).is_err());
    }

    #[test]
    fn previews_cut_on_characters() {
        assert_eq!(preview("héllo", 10), "héllo");
        assert_eq!(preview("héllo", 2), "hé…");
    }
}
