//! Avatar prompts (`character/agent/recommend_promot`): the language model
//! writes three text-to-image prompts portraying a character from its
//! name, description, persona, scenario and tags, so its creator can make an
//! avatar in the generator. A model call like any other: the same
//! per-account limit as chat replies, `LanguageModelUnavailable` when the
//! model fails or answers nothing usable.

use llm::{ChatMessage, ChatRequest};
use protocol::character_extras::{IMAGE_PROMPTS, MAX_IMAGE_PROMPT_CHARS};
use protocol::ErrorCode;

use super::actor::model_error;
use super::prompt::{cut_to, macros};
use super::ChatService;
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;

/// Most tokens the answer may take (three prompts of a few dozen words).
const PORTRAIT_MAX_TOKENS: u32 = 192;
/// Tokens of each character field sent to the model.
const FIELD_TOKENS: usize = 200;

const SYSTEM: &str = "You write prompts for a text-to-image model. Given a character, write \
three different prompts for a portrait of them: appearance, clothing, expression, setting, \
lighting and art style, as comma-separated descriptive phrases. Write each prompt on its own \
line, with no numbering, no quotes and no other text.";

/// Up to [`IMAGE_PROMPTS`] prompts from a model's free text: one per line;
/// list markers, numbering, `Prompt 1:`-style labels, quotes and markdown
/// emphasis removed; header lines ("Here are three prompts:") and
/// duplicates skipped; each cut to [`MAX_IMAGE_PROMPT_CHARS`] at a comma
/// or space when possible.
pub fn parse_image_prompts(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut l = line.trim();
        let digits = l.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits <= 2 {
            if let Some(rest) = l
                .get(digits..)
                .and_then(|r| r.strip_prefix('.').or_else(|| r.strip_prefix(')')))
            {
                l = rest.trim_start();
            }
        }
        let l = l
            .trim_start_matches(|c: char| matches!(c, '-' | '*' | '•' | '#') || c.is_whitespace())
            .trim();
        let l = strip_label(l);
        let l = l.trim_matches(|c: char| {
            matches!(c, '"' | '“' | '”' | '\'' | '`' | '*' | '_') || c.is_whitespace()
        });
        if l.is_empty() || l.ends_with(':') || l.chars().count() < 3 {
            continue;
        }
        let cut = cut_prompt(l);
        if !out.iter().any(|o| o.eq_ignore_ascii_case(&cut)) {
            out.push(cut);
        }
        if out.len() == IMAGE_PROMPTS {
            break;
        }
    }
    out
}

/// Drops a leading `Prompt 2:`, `Image prompt:`, `Portrait 1 -` label.
fn strip_label(l: &str) -> &str {
    let lower = l.to_ascii_lowercase();
    for word in ["image prompt", "prompt", "portrait", "option"] {
        if let Some(rest) = lower.strip_prefix(word) {
            let after =
                rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ' || c == '#');
            if let Some(sep) = after
                .chars()
                .next()
                .filter(|c| matches!(c, ':' | '-' | '.' | ')'))
            {
                // ASCII lower-casing keeps byte offsets.
                let at = l.len() - after.len() + sep.len_utf8();
                return l.get(at..).unwrap_or("").trim_start();
            }
        }
    }
    l
}

/// At most [`MAX_IMAGE_PROMPT_CHARS`], cut after the last comma or space
/// that keeps it within the limit.
fn cut_prompt(l: &str) -> String {
    if l.chars().count() <= MAX_IMAGE_PROMPT_CHARS {
        return l.to_owned();
    }
    let head: String = l.chars().take(MAX_IMAGE_PROMPT_CHARS).collect();
    match head.rfind([',', ' ']) {
        Some(i) if i > MAX_IMAGE_PROMPT_CHARS / 2 => head
            .get(..i)
            .unwrap_or(&head)
            .trim_end_matches([',', ' '])
            .to_owned(),
        _ => head,
    }
}

impl ChatService {
    /// `character/agent/recommend_promot`: image prompts portraying a
    /// character the caller may chat with (published, or their own draft).
    #[tracing::instrument(skip(self, caller), fields(account = %caller.id))]
    pub async fn image_prompts(
        &self,
        caller: &AccountRow,
        character_id: &str,
    ) -> Result<Vec<String>, ApiError> {
        let c = self
            .characters
            .load_for_chat(&caller.id, character_id)
            .await?;
        self.limited(&caller.id).await?;
        let user = self.characters.chat_user(caller).await?;
        let llm = self.core.llm.clone();
        let field = |label: &str, text: &str| {
            let text = macros(text.trim(), &c.name, &user.name);
            let text = cut_to(&text, FIELD_TOKENS, &|t| llm.count_tokens(t));
            if text.is_empty() {
                String::new()
            } else {
                format!("{label}: {text}")
            }
        };
        let about: Vec<String> = [
            format!("Name: {}", c.name),
            field("Description", &c.description),
            field("Persona", &c.persona),
            field("Scenario", &c.scenario),
            field("Tags", &c.tags.join(", ")),
        ]
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect();
        let answer = llm::complete(
            llm.as_ref(),
            ChatRequest {
                messages: vec![
                    ChatMessage::system(SYSTEM),
                    ChatMessage::user(about.join("\n")),
                ],
                max_tokens: PORTRAIT_MAX_TOKENS,
                temperature: 0.9,
                top_p: 0.95,
                seed: now_millis() as u64,
                stop: Vec::new(),
                prefill: None,
            },
        )
        .await
        .map_err(model_error)?;
        let prompts = parse_image_prompts(&answer);
        if prompts.is_empty() {
            return Err(ApiError::with_msg(
                ErrorCode::LanguageModelUnavailable,
                "the language model gave no usable image prompt",
            ));
        }
        Ok(prompts)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn prompts_are_parsed_from_odd_output() {
        let text = "Here are three portrait prompts:\n\n\
                    1. **Prompt 1:** \"a weathered lighthouse keeper, grey coat, storm\"\n\
                    2) Image prompt - young woman with a lantern, oil painting\n\
                    - Portrait 3: close-up, rim lighting, rain\n\
                    4. an extra one";
        assert_eq!(
            parse_image_prompts(text),
            vec![
                "a weathered lighthouse keeper, grey coat, storm",
                "young woman with a lantern, oil painting",
                "close-up, rim lighting, rain",
            ]
        );
    }

    #[test]
    fn labels_and_junk_are_handled() {
        assert!(parse_image_prompts("").is_empty());
        assert!(parse_image_prompts("Sure:\n\n**\n--\nok").is_empty());
        assert_eq!(
            parse_image_prompts("prompting is fun, watercolor\nsame\nSAME"),
            vec!["prompting is fun, watercolor", "same"]
        );
        assert_eq!(
            parse_image_prompts("2024 skyline, neon"),
            vec!["2024 skyline, neon"]
        );
        let long = "red, ".repeat(200);
        let got = &parse_image_prompts(&long)[0];
        assert!(got.chars().count() <= MAX_IMAGE_PROMPT_CHARS);
        assert!(got.ends_with("red"), "{got}");
    }
}
