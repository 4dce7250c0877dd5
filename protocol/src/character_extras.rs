//! The tavern's side calls (spec 3 §7 "Characters and chat"): the model
//! list, the weekly hot list, reporting a character and the operator's
//! report list and unpublish, the user's chat persona (who `{{user}}` is),
//! the editor's draft preview and the avatar image prompts. Request and
//! answer bodies, and the pure rules with the messages the server answers.

use serde::{Deserialize, Serialize};

use crate::character::{CharacterCard, OwnerView};

/// Longest report detail, in characters.
pub const MAX_REPORT_DETAIL_CHARS: usize = 500;
/// Longest chat display name (`{{user}}`), in characters.
pub const MAX_PERSONA_NAME_CHARS: usize = 64;
/// Longest chat persona (the user's self-description), in characters.
pub const MAX_PERSONA_CHARS: usize = 2000;
/// Image prompts `agent/recommend_promot` answers (at most).
pub const IMAGE_PROMPTS: usize = 3;
/// Longest image prompt kept, in characters.
pub const MAX_IMAGE_PROMPT_CHARS: usize = 400;
/// Most reports one page of the operator's list answers.
pub const MAX_REPORT_LIST_LIMIT: u32 = 100;

/// One language model the chat can use (`character/model_list`,
/// `tavern-pro/model-list/v2`). A server has exactly one configured model.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelListItem {
    pub name: String,
    pub label: String,
    /// False for the scripted test model, which is not a language model.
    pub neural: bool,
    pub context_tokens: u32,
    /// The model chats use when none is chosen (the only one, so true).
    pub default: bool,
}

/// A character on the weekly hot list (`character/chat/recommend_hot`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotCard {
    #[serde(flatten)]
    pub card: CharacterCard,
    /// Chats started with it in the last 7 days (UTC days, today included).
    pub week_chats: u64,
}

/// Why a character is reported: a fixed set, so reports can be triaged.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = CharacterExtrasReportReason))]
pub enum ReportReason {
    /// Sexual content involving minors: the most urgent.
    SexualMinors,
    Hate,
    Violence,
    Spam,
    /// Pretends to be a real person or another creator's character.
    Impersonation,
    /// Anything else; needs a detail.
    Other,
}

impl ReportReason {
    pub const ALL: [ReportReason; 6] = [
        ReportReason::SexualMinors,
        ReportReason::Hate,
        ReportReason::Violence,
        ReportReason::Spam,
        ReportReason::Impersonation,
        ReportReason::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::SexualMinors => "sexual_minors",
            ReportReason::Hate => "hate",
            ReportReason::Violence => "violence",
            ReportReason::Spam => "spam",
            ReportReason::Impersonation => "impersonation",
            ReportReason::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<ReportReason> {
        ReportReason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// `report/ai-character`. `reason` is a string (not the enum) so an
/// unknown one answers a clear InvalidParams rather than a parse error.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = CharacterExtrasReportRequest))]
pub struct ReportRequest {
    pub character_id: String,
    pub reason: String,
    #[serde(default)]
    pub detail: String,
}

/// The answer to a report: whether it replaced the caller's earlier one.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = CharacterExtrasReportAnswer))]
pub struct ReportAnswer {
    pub updated: bool,
}

/// A broken rule of a report, persona or preview; the text is the message
/// the server answers with `InvalidParams`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtrasRuleError {
    #[error("reason must be one of sexual_minors, hate, violence, spam, impersonation, other")]
    Reason,
    #[error("detail may have at most {MAX_REPORT_DETAIL_CHARS} characters")]
    Detail,
    #[error("a report with reason other needs a detail")]
    OtherNeedsDetail,
    #[error("display_name may have at most {MAX_PERSONA_NAME_CHARS} characters, on one line")]
    DisplayName,
    #[error("persona may have at most {MAX_PERSONA_CHARS} characters")]
    Persona,
}

/// Text with no control characters other than newlines and tabs.
fn clean_text(s: &str) -> bool {
    !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// Checks a report: a known reason, a detail of at most
/// [`MAX_REPORT_DETAIL_CHARS`] (trimmed), required for `other`.
pub fn normalise_report(
    reason: &str,
    detail: &str,
) -> Result<(ReportReason, String), ExtrasRuleError> {
    let reason = ReportReason::parse(reason.trim()).ok_or(ExtrasRuleError::Reason)?;
    let detail = detail.trim();
    if detail.chars().count() > MAX_REPORT_DETAIL_CHARS || !clean_text(detail) {
        return Err(ExtrasRuleError::Detail);
    }
    if reason == ReportReason::Other && detail.is_empty() {
        return Err(ExtrasRuleError::OtherNeedsDetail);
    }
    Ok((reason, detail.to_owned()))
}

/// `admin/character/reports`: newest first; one character's only when named.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ReportListRequest {
    #[serde(default)]
    pub character_id: Option<String>,
    /// At most [`MAX_REPORT_LIST_LIMIT`]; 20 when absent or 0.
    #[serde(default)]
    pub limit: u32,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The reported character as the operator sees it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedCharacter {
    pub id: String,
    pub name: String,
    pub owner: OwnerView,
    pub published: bool,
    /// Deleted by its owner.
    pub deleted: bool,
    /// Unpublished by an operator (it can no longer be published).
    pub unpublished: bool,
}

/// One report in the operator's list.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportView {
    pub character: ReportedCharacter,
    pub reporter: OwnerView,
    pub reason: ReportReason,
    pub detail: String,
    pub create_at: i64,
    /// Later than `create_at` when the reporter changed the report.
    pub update_at: i64,
}

/// `admin/character/unpublish`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnpublishRequest {
    pub character_id: String,
    /// Kept with the decision, for the other operators.
    #[serde(default)]
    pub reason: String,
}

/// `account/character/setting/update`: absent fields stay as they are; an
/// empty string clears one.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PersonaUpdate {
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub persona: Option<String>,
}

/// The user's chat persona (`account/character/setting/get` and `/update`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonaView {
    /// What characters call the user; empty: the account name.
    pub display_name: String,
    /// Who the user is in chats, told to the model ("About {{user}}: ...").
    pub persona: String,
    /// What `{{user}}` becomes: `display_name`, or the account name.
    pub user_name: String,
}

/// Checks a display name: trimmed, at most [`MAX_PERSONA_NAME_CHARS`], one
/// line (it ends up in prompts and in the stop sequence `"\n{name}:"`).
pub fn normalise_display_name(s: &str) -> Result<String, ExtrasRuleError> {
    let s = s.trim();
    if s.chars().count() > MAX_PERSONA_NAME_CHARS || s.chars().any(char::is_control) {
        return Err(ExtrasRuleError::DisplayName);
    }
    Ok(s.to_owned())
}

/// Checks a persona: trimmed, at most [`MAX_PERSONA_CHARS`].
pub fn normalise_persona(s: &str) -> Result<String, ExtrasRuleError> {
    let s = s.trim();
    if s.chars().count() > MAX_PERSONA_CHARS || !clean_text(s) {
        return Err(ExtrasRuleError::Persona);
    }
    Ok(s.to_owned())
}

/// `tavern-pro/preview/list`: a draft, not saved.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewRequest {
    pub name: String,
    #[serde(default)]
    pub greeting: String,
    #[serde(default)]
    pub persona: String,
    #[serde(default)]
    pub scenario: String,
    #[serde(default)]
    pub example_dialogue: String,
}

/// Who speaks a preview line.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewRole {
    /// The scene, shown as a note above the chat.
    System,
    User,
    Assistant,
}

/// What a preview line is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewKind {
    Scenario,
    /// The first message of every new chat.
    Greeting,
    /// A line of the example dialogue (not part of any chat).
    Example,
}

/// One line of a preview, macros applied.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewItem {
    pub role: PreviewRole,
    pub content: String,
    pub kind: PreviewKind,
}

/// `character/agent/recommend_promot`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharacterIdRequest {
    pub character_id: String,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reasons_round_trip() {
        for r in ReportReason::ALL {
            assert_eq!(ReportReason::parse(r.as_str()), Some(r));
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::json!(r.as_str())
            );
        }
        assert_eq!(ReportReason::parse("Spam"), None);
        assert_eq!(ReportReason::parse(""), None);
    }

    #[test]
    fn report_rules() {
        assert_eq!(
            normalise_report(" spam ", "  ads everywhere "),
            Ok((ReportReason::Spam, "ads everywhere".into()))
        );
        assert_eq!(
            normalise_report("hate", ""),
            Ok((ReportReason::Hate, String::new()))
        );
        assert_eq!(normalise_report("rude", "x"), Err(ExtrasRuleError::Reason));
        assert_eq!(
            normalise_report("other", "  "),
            Err(ExtrasRuleError::OtherNeedsDetail)
        );
        let long = "é".repeat(MAX_REPORT_DETAIL_CHARS);
        assert!(normalise_report("spam", &long).is_ok());
        assert_eq!(
            normalise_report("spam", &format!("{long}x")),
            Err(ExtrasRuleError::Detail)
        );
        assert_eq!(
            normalise_report("spam", "a\u{7}b"),
            Err(ExtrasRuleError::Detail)
        );
        assert!(normalise_report("spam", "line one\nline two").is_ok());
    }

    #[test]
    fn persona_rules() {
        assert_eq!(normalise_display_name("  Captain  "), Ok("Captain".into()));
        assert_eq!(normalise_display_name(""), Ok(String::new()));
        assert_eq!(
            normalise_display_name("two\nlines"),
            Err(ExtrasRuleError::DisplayName)
        );
        assert!(normalise_display_name(&"n".repeat(64)).is_ok());
        assert_eq!(
            normalise_display_name(&"n".repeat(65)),
            Err(ExtrasRuleError::DisplayName)
        );
        assert!(normalise_persona(&"p".repeat(2000)).is_ok());
        assert_eq!(
            normalise_persona(&"p".repeat(2001)),
            Err(ExtrasRuleError::Persona)
        );
        assert_eq!(normalise_persona(" a\nb "), Ok("a\nb".into()));
    }

    #[test]
    fn hot_card_is_flat() {
        let card: CharacterCard = serde_json::from_value(serde_json::json!({
            "id": "c", "name": "N", "description": "", "avatar": "", "tags": [],
            "gender": "other", "character_type": 1, "chat_count": 5, "publish_at": 1,
            "owner": {"id": "o", "name": "O"}
        }))
        .unwrap();
        let v = serde_json::to_value(HotCard {
            card,
            week_chats: 3,
        })
        .unwrap();
        assert_eq!(v["id"], "c");
        assert_eq!(v["week_chats"], 3);
        assert_eq!(v["chat_count"], 5);
    }
}
