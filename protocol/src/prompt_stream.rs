//! The prompt-stream parser of the generation agent (spec 2 §3 "Prompt-stream
//! part", §4 "Prompt stream parser"): splits an assistant's text — complete or
//! still streaming — into normal text and proposed image prompts written
//! between triple-quote markers. The TypeScript twin is
//! `web/src/agent/promptStream.ts`; both must give identical results on
//! `tests/vectors/prompt-stream/*.json`.
//!
//! Rules (the same words are in the TypeScript module):
//! 1. The marker is three ASCII double quotes `"""`. Typographic quotes are
//!    ordinary text.
//! 2. Scanning left to right, the text before the next marker is a normal
//!    segment; the marker opens a prompt block, which the FIRST following
//!    marker closes (so `"""a""""` is the prompt `a` then the normal text `"`,
//!    and four or more quotes at an opening make the extra quotes content).
//!    Taking the first closer, not the last quote run, keeps a closed prompt
//!    from changing when more quotes arrive.
//! 3. Normal part: `text` is the raw segment; `displayText` collapses every
//!    run of blank space to one space and trims. A segment whose displayText
//!    is empty (empty or only blanks) is dropped.
//! 4. Prompt part: `text` is the raw block including its markers (the closing
//!    one only once it has arrived); `displayText` is the content between the
//!    markers, collapsed and trimmed. While the block is open, one trailing
//!    `"` or `""` of the content is left out of `displayText`: it may be the
//!    start of the closing marker.
//! 5. A prompt is complete when it is closed and its displayText is not empty.
//!    A closed block of only blanks (`""" """`, `""""""`) is not a prompt and
//!    is dropped. An open block stays incomplete, also at the end of the
//!    stream.
//! 6. `isComplete` means "final": more text can never change this part. For a
//!    normal part that is true when a prompt block follows it; the trailing
//!    normal part may still grow, so it is false.
//! 7. Blank space is Unicode White_Space (`char::is_whitespace`); the
//!    TypeScript side spells the same set out explicitly because JavaScript's
//!    `\s` differs on U+0085 and U+FEFF.
//!
//! Incremental use: parse the whole text so far on every delta. Every part
//! except the last is complete, and a complete part stays identical at the
//! same index as more text arrives (`tests/prompt_stream_vectors.rs` checks
//! this on every prefix of every vector and on random streams).

use serde::{Deserialize, Serialize};

/// The prompt block marker.
pub const MARKER: &str = "\"\"\"";

/// Whether a part is ordinary text or a proposed image prompt.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartType {
    Normal,
    Prompt,
}

/// One part of an assistant's text (spec 2 §3 "Prompt-stream part").
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptPart {
    #[serde(rename = "type")]
    pub kind: PartType,
    /// The raw segment; for prompts including the `"""` markers.
    pub text: String,
    /// What to show: blank runs collapsed, trimmed, markers removed.
    pub display_text: String,
    /// Final: later text cannot change this part (rule 6).
    pub is_complete: bool,
}

/// Collapses every run of blank space to one space and trims (rules 3, 7).
pub fn collapse_blank(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Parses the text received so far into parts. Pure; never panics.
pub fn parse(text: &str) -> Vec<PromptPart> {
    let mut parts = Vec::new();
    let mut rest = text;
    loop {
        let open = rest.find(MARKER);
        let normal = match open {
            Some(at) => rest.get(..at).unwrap_or_default(),
            None => rest,
        };
        let normal_display = collapse_blank(normal);
        if !normal_display.is_empty() {
            parts.push(PromptPart {
                kind: PartType::Normal,
                text: normal.to_owned(),
                display_text: normal_display,
                is_complete: open.is_some(),
            });
        }
        let Some(open) = open else {
            return parts;
        };
        let block = rest.get(open..).unwrap_or_default();
        let content = block.get(MARKER.len()..).unwrap_or_default();
        let Some(close) = content.find(MARKER) else {
            let shown = content
                .strip_suffix("\"\"")
                .or_else(|| content.strip_suffix('"'))
                .unwrap_or(content);
            parts.push(PromptPart {
                kind: PartType::Prompt,
                text: block.to_owned(),
                display_text: collapse_blank(shown),
                is_complete: false,
            });
            return parts;
        };
        let display_text = collapse_blank(content.get(..close).unwrap_or_default());
        let end = MARKER.len() + close + MARKER.len();
        if !display_text.is_empty() {
            parts.push(PromptPart {
                kind: PartType::Prompt,
                text: block.get(..end).unwrap_or_default().to_owned(),
                display_text,
                is_complete: true,
            });
        }
        rest = block.get(end..).unwrap_or_default();
    }
}

/// The complete prompts of a text, in order (what "use this prompt" offers).
pub fn complete_prompts(text: &str) -> Vec<String> {
    parse(text)
        .into_iter()
        .filter(|p| p.kind == PartType::Prompt && p.is_complete)
        .map(|p| p.display_text)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_normal_and_prompt() {
        let parts = parse("Try this:\n\"\"\"a  red\tfox\"\"\" ok");
        assert_eq!(parts.len(), 3);
        assert_eq!(
            parts.first().map(|p| p.display_text.as_str()),
            Some("Try this:")
        );
        assert_eq!(
            parts.get(1).map(|p| p.display_text.as_str()),
            Some("a red fox")
        );
        assert_eq!(parts.get(1).map(|p| p.is_complete), Some(true));
        assert_eq!(parts.get(2).map(|p| p.is_complete), Some(false));
    }

    #[test]
    fn serialises_camel_case() {
        let json = serde_json::to_value(parse("\"\"\"x")).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!([{"type": "prompt", "text": "\"\"\"x", "displayText": "x", "isComplete": false}])
        );
    }
}
