//! Theme activities and contributions (spec 3 §3 "Contribution types",
//! §5, §7 "Activities and posts"; spec 1 §3's daily-challenge and
//! activity marks on content cards; issue 22 part 1): the wire types of
//! `theme-activity/*`, `activity/{my-list, commit, my-apply, vote}` and
//! `admin/activity/*`, and the pure rules in [`rules`] (what an operator may
//! define, which period is live at a time, what a contribution needs, how
//! the excellent list is ranked, the ledger key of each prize).

pub mod rules;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::square::card::{CardAuthor, Cover};

/// A contribution's type, spelled as spec 3 §3 spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContributionType {
    /// A picture post.
    Work,
    /// A video post.
    LocalVideo,
    /// An article post.
    Article,
    /// A published character (the tavern).
    Character,
    /// A published checkpoint model.
    ModelCheckpoint,
    /// A published LoRA model.
    ModelLora,
}

impl ContributionType {
    pub const ALL: [ContributionType; 6] = [
        ContributionType::Work,
        ContributionType::LocalVideo,
        ContributionType::Article,
        ContributionType::Character,
        ContributionType::ModelCheckpoint,
        ContributionType::ModelLora,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ContributionType::Work => "work",
            ContributionType::LocalVideo => "local_video",
            ContributionType::Article => "article",
            ContributionType::Character => "character",
            ContributionType::ModelCheckpoint => "model_Checkpoint",
            ContributionType::ModelLora => "model_LORA",
        }
    }

    /// The spec's spelling only (case matters: `model_LORA`).
    pub fn parse(s: &str) -> Option<ContributionType> {
        ContributionType::ALL
            .into_iter()
            .find(|t| t.as_str() == s.trim())
    }

    /// Spec 3 §3/§5: work, local_video and article are supported without
    /// an activity; the other types only inside one.
    pub fn needs_activity(self) -> bool {
        !matches!(
            self,
            ContributionType::Work | ContributionType::LocalVideo | ContributionType::Article
        )
    }

    /// The spec 1 §2 obj_type of the object: 4 posts, 9 characters, 2 models.
    pub fn obj_type(self) -> u8 {
        match self {
            ContributionType::Work | ContributionType::LocalVideo | ContributionType::Article => 4,
            ContributionType::Character => 9,
            ContributionType::ModelCheckpoint | ContributionType::ModelLora => 2,
        }
    }

    /// A post of the square (its card is a work card).
    pub fn is_post(self) -> bool {
        self.obj_type() == 4
    }
}

impl Serialize for ContributionType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ContributionType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ContributionType::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown contribution type {s}")))
    }
}

#[cfg(feature = "openapi")]
string_schema!(
    ContributionType,
    "a contribution's type",
    [
        "work",
        "local_video",
        "article",
        "character",
        "model_Checkpoint",
        "model_LORA"
    ]
);

/// How a period's excellent list is chosen.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Judging {
    /// Users vote; most votes first, ties to the earlier contribution.
    #[default]
    Votes,
    /// Operators pick the list.
    Picks,
}

impl Judging {
    pub fn parse(s: &str) -> Option<Judging> {
        match s.trim() {
            "votes" => Some(Judging::Votes),
            "picks" => Some(Judging::Picks),
            _ => None,
        }
    }
}

/// Where an activity is in its life.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityStatus {
    Upcoming,
    Live,
    Ended,
}

/// Where one period is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodStatus {
    Upcoming,
    /// Open for contributions and votes: `start <= now < end`.
    Live,
    /// Ended (or closed early by an operator), not judged yet.
    Closed,
    /// Its excellent list is stored and its prizes are paid.
    Judged,
}

/// A contribution's standing.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryStatus {
    Entered,
    /// In its period's excellent list.
    Excellent,
    /// Its period was judged without it.
    NotSelected,
    /// A plain publication marker, without an activity (spec 3 §5).
    Published,
    /// The object was hidden, deleted or made private: it left the lists.
    Removed,
}

/// One period as an operator defines it (milliseconds since the epoch).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ActivityPeriod))]
pub struct Period {
    pub start: i64,
    pub end: i64,
}

/// A period as lists show it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodView {
    pub index: u32,
    pub start: i64,
    /// The end in force: an operator's early close moves it.
    pub end: i64,
    pub status: PeriodStatus,
}

/// An activity's definition, validated ([`rules::validate`]); stored as is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityDef {
    pub title: String,
    /// Markdown, rendered and sanitised like articles for readers.
    pub rules: String,
    /// A `/files/` URL of an upload on this server.
    #[serde(default)]
    pub cover: Option<String>,
    pub periods: Vec<Period>,
    pub types: Vec<ContributionType>,
    /// Credits per rank: `prizes[0]` for the first.
    pub prizes: Vec<i64>,
    pub judging: Judging,
    /// The daily challenge: one period of at most a day; no two overlap.
    pub daily: bool,
    /// Contributions one account may make per period.
    pub max_entries: u32,
    /// Places in each period's excellent list.
    pub excellent_count: u32,
}

/// `admin/activity/create` and `edit` (edit names `id`): the whole
/// definition. Types and judging arrive as strings so a wrong one answers
/// `activityInvalid` naming the field.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", schema(as = ActivityUpsertRequest))]
pub struct UpsertRequest {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub rules: String,
    #[serde(default)]
    pub cover: Option<String>,
    #[serde(default)]
    pub periods: Vec<Period>,
    #[serde(default)]
    pub types: Vec<String>,
    #[serde(default)]
    pub prizes: Vec<i64>,
    #[serde(default)]
    pub judging: Option<String>,
    #[serde(default)]
    pub daily: bool,
    #[serde(default)]
    pub max_entries: Option<u32>,
    #[serde(default)]
    pub excellent_count: Option<u32>,
}

/// The mark a content card carries (spec 1 §3): `id` is
/// `event-center/{activity}/{period}`, or `event-center/daily/{activity}`
/// for the daily challenge; obj_type 61.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActivityMark {
    pub id: String,
    pub obj_type: u8,
    pub title: String,
    pub activity_id: String,
    pub period: u32,
    pub daily: bool,
}

/// An activity in lists.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivitySummary {
    pub id: String,
    pub title: String,
    pub cover: Option<Cover>,
    pub status: ActivityStatus,
    pub daily: bool,
    pub judging: Judging,
    pub types: Vec<ContributionType>,
    pub prizes: Vec<i64>,
    pub periods: Vec<PeriodView>,
    pub current_period: Option<u32>,
    pub start: i64,
    pub end: i64,
    /// Spec 1 §3's card id of the activity (obj_type 61).
    pub card_id: String,
    pub obj_type: u8,
    /// Contributions so far, all periods.
    pub entries: i64,
    pub max_entries: u32,
    pub create_at: i64,
    /// `activity/my-list`: the caller's contributions to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_entries: Option<u32>,
}

/// `theme-activity/detail`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityDetail {
    #[serde(flatten)]
    pub summary: ActivitySummary,
    /// The rules rendered and sanitised (safe to insert as HTML).
    pub rules_html: String,
    pub joined: bool,
    pub my_entries: u32,
}

/// `admin/activity/*`: the detail plus what only operators edit.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityAdmin {
    #[serde(flatten)]
    pub detail: ActivityDetail,
    /// The Markdown source.
    pub rules: String,
    pub excellent_count: u32,
    /// Contributions per period.
    pub period_entries: Vec<i64>,
}

/// A contribution as lists show it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ActivityEntryView))]
pub struct EntryView {
    pub entry_id: String,
    pub activity_id: Option<String>,
    pub period: Option<u32>,
    #[serde(rename = "type")]
    pub kind: ContributionType,
    pub obj_id: String,
    pub obj_type: u8,
    pub title: String,
    pub cover: Option<Cover>,
    pub author: CardAuthor,
    pub votes: i64,
    pub voted: bool,
    pub create_at: i64,
    pub status: EntryStatus,
    pub rank: Option<u32>,
    pub prize: Option<i64>,
    /// The square card of a post (`None` for characters and models).
    pub card: Option<crate::square::card::Card>,
    /// `activity/my-apply`: the activity's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_title: Option<String>,
}

/// One place in an excellent list.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Winner {
    pub rank: u32,
    pub prize: i64,
    pub entry: EntryView,
}

/// A period's excellent list.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeriodResultView {
    pub period: u32,
    pub start: i64,
    pub end: i64,
    pub status: PeriodStatus,
    pub judged_at: Option<i64>,
    pub judging: Judging,
    pub winners: Vec<Winner>,
}

/// A page of some list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}
#[cfg(feature = "openapi")]
list_schema!(Page, "next_cursor");

/// `activity/commit` (and `theme-activity/character-join`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CommitRequest {
    /// The contribution type, as a string so a wrong one answers
    /// `activityTypeInvalid`.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default, alias = "id")]
    pub obj_id: String,
    #[serde(default)]
    pub activity_id: Option<String>,
}

/// `activity/commit`'s answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitResult {
    pub entry_id: String,
    pub activity_id: Option<String>,
    pub period: Option<u32>,
    pub status: EntryStatus,
}

/// `theme-activity/character-join`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CharacterJoinRequest {
    #[serde(default, alias = "activity_id")]
    pub id: String,
    #[serde(default)]
    pub character_id: String,
}

/// `theme-activity/list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", schema(as = ActivityListRequest))]
pub struct ListRequest {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `theme-activity/detail`, `period-excellent-list` (with `period`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ActivityRequest {
    #[serde(default, alias = "activity_id")]
    pub id: String,
    #[serde(default)]
    pub period: Option<u32>,
}

/// `theme-activity/post-list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PostListRequest {
    #[serde(default, alias = "activity_id")]
    pub id: String,
    #[serde(default)]
    pub period: Option<u32>,
    /// `new` (default) or `top`.
    #[serde(default)]
    pub sort: Option<String>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `activity/my-list` and `activity/my-apply`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MyRequest {
    #[serde(default)]
    pub activity_id: Option<String>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `activity/vote` and `vote-cancel`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct VoteRequest {
    #[serde(default)]
    pub entry_id: String,
}

/// Their answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoteResult {
    pub entry_id: String,
    pub votes: i64,
    pub voted: bool,
}

/// `admin/activity/close` and `judge`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct JudgeRequest {
    #[serde(default, alias = "activity_id")]
    pub id: String,
    #[serde(default)]
    pub period: u32,
    #[serde(default)]
    pub picks: Option<Vec<String>>,
}
