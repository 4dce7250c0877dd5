//! Moderation wire types and rules (issue 20): roles, the fixed report
//! reasons, the object types a report or review names, the text and
//! duration limits, and the bodies and answers of the `report`, `review`,
//! `moderation/*` and `resource/nsfw-appeal/*` calls (`/work/wt/MOD_API.md`).
//! Pure: the server (`backend/src/moderation/`) stores and enforces.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Longest report text, appeal text or moderator reason, in characters.
pub const MAX_TEXT_CHARS: usize = 500;
/// Shortest timed ban, in seconds.
pub const MIN_BAN_SECS: u64 = 60;
/// Longest timed ban (ten years), in seconds; 0 means permanent.
pub const MAX_BAN_SECS: u64 = 10 * 365 * 24 * 3600;

/// Who may do what: operators (`EASEL_ADMINS`), moderators (granted by an
/// operator), everyone else.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = ModerationRole))]
pub enum Role {
    User,
    Moderator,
    Operator,
}

impl Role {
    /// May call the review, queue and ban calls.
    pub fn moderates(self) -> bool {
        self >= Role::Moderator
    }
}

/// Why a user reports something: the fixed list.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = ModerationReportReason))]
pub enum ReportReason {
    /// Sexual content involving minors: the most urgent.
    SexualMinors,
    /// Nudity or sexual content not marked NSFW.
    Nudity,
    Hate,
    Violence,
    Harassment,
    Spam,
    Impersonation,
    Copyright,
    /// Anything else; needs a text.
    Other,
}

impl ReportReason {
    pub const ALL: [ReportReason; 9] = [
        ReportReason::SexualMinors,
        ReportReason::Nudity,
        ReportReason::Hate,
        ReportReason::Violence,
        ReportReason::Harassment,
        ReportReason::Spam,
        ReportReason::Impersonation,
        ReportReason::Copyright,
        ReportReason::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::SexualMinors => "sexual_minors",
            ReportReason::Nudity => "nudity",
            ReportReason::Hate => "hate",
            ReportReason::Violence => "violence",
            ReportReason::Harassment => "harassment",
            ReportReason::Spam => "spam",
            ReportReason::Impersonation => "impersonation",
            ReportReason::Copyright => "copyright",
            ReportReason::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<ReportReason> {
        ReportReason::ALL.into_iter().find(|r| r.as_str() == s)
    }

    pub fn needs_text(self) -> bool {
        self == ReportReason::Other
    }
}

/// What a report, review or appeal names. Wire value: the `obj_type` number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjKind {
    /// A picture, article or video post (obj_type 4; 15 is read as a video work).
    Work,
    /// A design template (obj_type 11; `report/palette`).
    Palette,
    /// A character (obj_type 9).
    Character,
    /// A comment (obj_type 30).
    Comment,
    /// A channel message (obj_type 31, id `"{channel_id}:{seq}"`).
    ChannelMessage,
    /// An account (obj_type 100; reports only).
    Account,
}

impl ObjKind {
    pub const ALL: [ObjKind; 6] = [
        ObjKind::Work,
        ObjKind::Palette,
        ObjKind::Character,
        ObjKind::Comment,
        ObjKind::ChannelMessage,
        ObjKind::Account,
    ];

    pub fn code(self) -> u8 {
        match self {
            ObjKind::Work => 4,
            ObjKind::Palette => 11,
            ObjKind::Character => 9,
            ObjKind::Comment => 30,
            ObjKind::ChannelMessage => 31,
            ObjKind::Account => 100,
        }
    }

    pub fn from_code(code: u8) -> Option<ObjKind> {
        if code == 15 {
            return Some(ObjKind::Work);
        }
        ObjKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// May a moderator hide it (`review/hide`)?
    pub fn hideable(self) -> bool {
        matches!(
            self,
            ObjKind::Work | ObjKind::Character | ObjKind::Comment | ObjKind::ChannelMessage
        )
    }

    /// The key its moderation rows are stored under.
    pub fn key(self, id: &str) -> String {
        format!("{}:{id}", self.code())
    }
}

/// A broken moderation rule; the server answers it with its own code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("reason must be one of sexual_minors, nudity, hate, violence, harassment, spam, impersonation, copyright, other")]
    Reason,
    #[error("text may have at most {MAX_TEXT_CHARS} characters, without control characters")]
    Text,
    #[error("a report with reason other needs a text")]
    OtherNeedsText,
    #[error("a reason of 1 to {MAX_TEXT_CHARS} characters is required")]
    ReasonRequired,
    #[error("duration_secs must be 0 (permanent) or {MIN_BAN_SECS} to {MAX_BAN_SECS}")]
    Duration,
    #[error("this obj_type cannot be used here")]
    ObjType,
}

fn clean(s: &str) -> bool {
    !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// A user text (report text, appeal text): trimmed, at most
/// [`MAX_TEXT_CHARS`], no control characters but newlines and tabs.
pub fn user_text(text: &str) -> Result<String, RuleError> {
    let t = text.trim();
    if t.chars().count() > MAX_TEXT_CHARS || !clean(t) {
        return Err(RuleError::Text);
    }
    Ok(t.to_owned())
}

/// A report's reason and text, checked.
pub fn report_rule(reason: &str, text: &str) -> Result<(ReportReason, String), RuleError> {
    let reason = ReportReason::parse(reason.trim()).ok_or(RuleError::Reason)?;
    let text = user_text(text)?;
    if reason.needs_text() && text.is_empty() {
        return Err(RuleError::OtherNeedsText);
    }
    Ok((reason, text))
}

/// A moderator's reason: required, 1 to [`MAX_TEXT_CHARS`] characters.
pub fn mod_reason(reason: &str) -> Result<String, RuleError> {
    let t = user_text(reason).map_err(|_| RuleError::ReasonRequired)?;
    if t.is_empty() {
        return Err(RuleError::ReasonRequired);
    }
    Ok(t)
}

/// A ban's duration: `None` for permanent (0), else the seconds.
pub fn ban_duration(secs: u64) -> Result<Option<u64>, RuleError> {
    match secs {
        0 => Ok(None),
        s if (MIN_BAN_SECS..=MAX_BAN_SECS).contains(&s) => Ok(Some(s)),
        _ => Err(RuleError::Duration),
    }
}

/// `report` (and its `portfolio`, `palette` shapes, whose `obj_type` is fixed).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ModerationReportRequest))]
pub struct ReportRequest {
    pub obj_id: String,
    #[serde(default)]
    pub obj_type: u8,
    pub reason: String,
    #[serde(default)]
    pub text: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ModerationReportAnswer))]
pub struct ReportAnswer {
    pub report_id: String,
}

/// `report/reasons` item.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasonItem {
    pub reason: String,
    pub needs_text: bool,
}

/// `review/hide`, `review/unhide`, `review/ban`, `review/unban`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewRequest {
    pub obj_id: String,
    pub obj_type: u8,
    #[serde(default)]
    pub reason: String,
}

/// What moderators did to an object.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModState {
    /// Seen by its owner only.
    Hidden,
    /// A work out of feeds and search, still opened by its link.
    FeedBanned,
}

/// An object's moderation state as its owner (and moderators) see it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModerationView {
    pub state: ModState,
    pub reason: String,
    pub at: i64,
}

/// An audit log entry. Never changed once written.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub id: String,
    pub actor: String,
    #[serde(default)]
    pub actor_name: String,
    pub actor_role: Role,
    pub action: String,
    pub obj_type: u8,
    pub obj_id: String,
    #[serde(default)]
    pub target_account: String,
    pub reason: String,
    pub create_at: i64,
}

/// `moderation/ban`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BanRequest {
    pub account_id: String,
    #[serde(default)]
    pub reason: String,
    /// 0: permanent.
    #[serde(default)]
    pub duration_secs: u64,
}

/// `moderation/unban`, `moderation/moderator/grant|revoke`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ModerationAccountRequest))]
pub struct AccountRequest {
    pub account_id: String,
    #[serde(default)]
    pub reason: String,
}

/// An account ban.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BanView {
    pub account_id: String,
    pub name: String,
    pub reason: String,
    pub by: String,
    pub by_name: String,
    pub create_at: i64,
    /// Ms since the epoch; 0: permanent.
    pub until: i64,
}

/// A paged list request.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PageRequest {
    #[serde(default)]
    pub limit: u32,
    #[serde(default)]
    pub cursor: Option<String>,
    /// `moderation/queue`: `report`, `appeal`, or both when absent.
    #[serde(default)]
    pub kind: Option<String>,
}

/// `moderation/item`, `moderation/report/resolve|dismiss`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRequest {
    pub obj_type: u8,
    pub obj_id: String,
    #[serde(default)]
    pub reason: String,
}

/// One report in a queue item.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportItem {
    pub reporter: String,
    pub reason: String,
    pub text: String,
    pub create_at: i64,
}

/// The open reports of one object.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ReportGroup {
    pub count: u32,
    pub reasons: BTreeMap<String, u32>,
    pub latest_at: i64,
    pub items: Vec<ReportItem>,
}

/// What the console shows of the object.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ObjectSummary {
    pub title: String,
    pub text: String,
    pub cover: Option<String>,
    pub nsfw: bool,
    pub nsfw_score: Option<f64>,
    /// The object no longer exists.
    pub gone: bool,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppealStatus {
    Open,
    Kept,
    Changed,
}

/// An NSFW rating appeal.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppealView {
    pub appeal_id: String,
    pub obj_type: u8,
    pub obj_id: String,
    pub owner: String,
    pub text: String,
    pub create_at: i64,
    pub status: AppealStatus,
    /// The moderator's reason once decided.
    pub reason: String,
    pub decided_at: i64,
}

/// A queue entry: an object with open reports, or an open appeal.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueItem {
    pub kind: String,
    pub obj_type: u8,
    pub obj_id: String,
    pub owner: String,
    pub owner_name: String,
    pub summary: ObjectSummary,
    pub moderation: Option<ModerationView>,
    pub reports: Option<ReportGroup>,
    pub appeal: Option<AppealView>,
    pub history: Vec<AuditEntry>,
}

/// `resource/nsfw-appeal/create`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppealRequest {
    pub obj_id: String,
    #[serde(default = "work_code")]
    pub obj_type: u8,
    #[serde(default)]
    pub text: String,
}

fn work_code() -> u8 {
    4
}

/// `moderation/appeal/decide`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppealDecision {
    pub appeal_id: String,
    pub nsfw: bool,
    /// Also lift the hide or feed ban the owner appealed.
    #[serde(default)]
    pub restore: bool,
    #[serde(default)]
    pub reason: String,
}

/// `resource/nsfw-appeal/rate-limit`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppealLimit {
    pub limit: u32,
    pub remaining: u32,
    pub reset_at: i64,
}

#[cfg(test)]
mod tests;
