//! Feeds (spec 3 §2-§3, §7 Square v1 and v3): the request every feed call
//! takes, the tabs and time ranges, the filter payload fields, which feed a
//! call path serves, and the cursor. Pages are cursor-based: a cursor names
//! the ordering it belongs to, so paging goes on in the same order while
//! others publish and like (see the backend's `square/feed.rs`).

use serde::{Deserialize, Deserializer, Serialize};

use super::card::Card;

/// Default cards per page.
pub const DEFAULT_PAGE_SIZE: u32 = 20;
/// Most cards per page.
pub const MAX_PAGE_SIZE: u32 = 60;

/// The tabs of spec 3 §2 ("Sorted by: recommend, follows, hot, new, recently used").
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", schema(as = SquareFeedOrderBy))]
pub enum OrderBy {
    #[default]
    Recommend,
    Follows,
    Hot,
    New,
    /// Characters only: the viewer's recent chats.
    Recently,
}

/// Time range (spec 3 §3: All, day, week, month).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum TimeType {
    #[default]
    All,
    Day,
    Week,
    Month,
}

impl TimeType {
    /// How far back the range reaches, in milliseconds (`None`: all time).
    pub fn span_ms(self) -> Option<i64> {
        const DAY: i64 = 24 * 3600 * 1000;
        match self {
            TimeType::All => None,
            TimeType::Day => Some(DAY),
            TimeType::Week => Some(7 * DAY),
            TimeType::Month => Some(30 * DAY),
        }
    }
}

/// Which content a feed call lists (spec 3 §2 feed types).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum FeedKind {
    /// The home square: every post kind (squareMixRecommend).
    Mix,
    /// Posts; `output_types` may narrow to picture, article, video.
    Post,
    /// Picture posts only (artwork lists).
    Artwork,
    Character,
    Model,
    LoraTrain,
    Video,
    Audio,
    Timbre,
    App,
    Comfyui,
    DesignTemplate,
    Ebook,
}

fn lenient_order<'de, D: Deserializer<'de>>(d: D) -> Result<Option<OrderBy>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        Some(serde_json::Value::String(s)) => match s.trim().to_lowercase().as_str() {
            "recommend" | "" => Some(OrderBy::Recommend),
            "follows" | "follow" => Some(OrderBy::Follows),
            "hot" => Some(OrderBy::Hot),
            "new" | "latest" => Some(OrderBy::New),
            "recently" | "recent" => Some(OrderBy::Recently),
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown order_by {other}"
                )))
            }
        },
        Some(serde_json::Value::Null) | None => None,
        Some(_) => return Err(serde::de::Error::custom("order_by is a string")),
    })
}

fn lenient_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TimeType>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        Some(serde_json::Value::String(s)) => match s.trim().to_lowercase().as_str() {
            "all" | "" => Some(TimeType::All),
            "day" => Some(TimeType::Day),
            "week" => Some(TimeType::Week),
            "month" => Some(TimeType::Month),
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown time_type {other}"
                )))
            }
        },
        Some(serde_json::Value::Number(n)) => match n.as_i64() {
            Some(0) => Some(TimeType::All),
            Some(1) => Some(TimeType::Day),
            Some(2) => Some(TimeType::Week),
            Some(3) => Some(TimeType::Month),
            _ => return Err(serde::de::Error::custom("time_type is 0 to 3")),
        },
        Some(serde_json::Value::Null) | None => None,
        Some(_) => return Err(serde::de::Error::custom("time_type is a string")),
    })
}

/// One string or a list of strings (the filter fields come both ways).
fn string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    let mut out = Vec::new();
    let mut push = |x: &serde_json::Value| match x {
        serde_json::Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_owned()),
        serde_json::Value::Number(n) => out.push(n.to_string()),
        _ => {}
    };
    match v {
        Some(serde_json::Value::Array(items)) => items.iter().for_each(&mut push),
        Some(other) => push(&other),
        None => {}
    }
    Ok(out)
}

/// The body of every feed call (DESIGN.md Contracts) with spec 3 §3's
/// filter payload fields. Unknown filters are ignored; filters that do not
/// apply to a feed narrow nothing.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct FeedRequest {
    #[serde(default, deserialize_with = "lenient_order")]
    pub order_by: Option<OrderBy>,
    #[serde(default, deserialize_with = "lenient_time")]
    pub time_type: Option<TimeType>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
    /// Content types of the home page (spec 3 §3: Explore=1, Tavern=9, Posts=4, Video=7).
    #[serde(default, deserialize_with = "string_list")]
    pub source_types: Vec<String>,
    /// Post type: picture, article, video.
    #[serde(default, deserialize_with = "string_list")]
    pub output_types: Vec<String>,
    #[serde(default, deserialize_with = "string_list")]
    pub languages: Vec<String>,
    #[serde(default, deserialize_with = "string_list")]
    pub genders: Vec<String>,
    #[serde(default)]
    pub character_type: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "string_list")]
    pub model_types: Vec<String>,
    #[serde(default, deserialize_with = "string_list")]
    pub base_models: Vec<String>,
    #[serde(default)]
    pub sub_channel: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "string_list")]
    pub ages: Vec<String>,
    #[serde(default, deserialize_with = "string_list")]
    pub tones: Vec<String>,
    /// A tag: only works carrying it.
    #[serde(default)]
    pub tag: Option<String>,
    /// Profile lists: whose works.
    #[serde(default)]
    pub account_id: Option<String>,
    /// A visitor's NSFW choice (`blur` or `hide`; anything else reads as
    /// blur). Signed-in viewers' own setting wins over it.
    #[serde(default, deserialize_with = "crate::square::nsfw::lenient_mode")]
    pub nsfw_mode: Option<crate::square::nsfw::NsfwMode>,
}

impl FeedRequest {
    pub fn order(&self) -> OrderBy {
        self.order_by.unwrap_or_default()
    }

    pub fn time(&self) -> TimeType {
        self.time_type.unwrap_or_default()
    }

    /// The page size, clamped to 1..=[`MAX_PAGE_SIZE`].
    pub fn size(&self) -> usize {
        self.page_size
            .unwrap_or(DEFAULT_PAGE_SIZE)
            .clamp(1, MAX_PAGE_SIZE) as usize
    }
}

/// A page of any feed (DESIGN.md Contracts): `next_cursor` is null when done.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeedPage {
    pub items: Vec<Card>,
    pub next_cursor: Option<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn requests_are_read_leniently() {
        let r: FeedRequest = serde_json::from_str(
            r#"{"order_by":"HOT","time_type":2,"page_size":500,"source_types":4,"output_types":["picture",""],"base_models":"sdxl"}"#,
        )
        .unwrap();
        assert_eq!(r.order(), OrderBy::Hot);
        assert_eq!(r.time(), TimeType::Week);
        assert_eq!(r.size(), MAX_PAGE_SIZE as usize);
        assert_eq!(r.source_types, vec!["4"]);
        assert_eq!(r.output_types, vec!["picture"]);
        assert_eq!(r.base_models, vec!["sdxl"]);
        let r: FeedRequest = serde_json::from_str("{}").unwrap();
        assert_eq!(
            (r.order(), r.time(), r.size()),
            (OrderBy::Recommend, TimeType::All, 20)
        );
        assert!(serde_json::from_str::<FeedRequest>(r#"{"order_by":"sideways"}"#).is_err());
        assert!(serde_json::from_str::<FeedRequest>(r#"{"time_type":"year"}"#).is_err());
        let r: FeedRequest = serde_json::from_str(r#"{"page_size":0}"#).unwrap();
        assert_eq!(r.size(), 1);
    }

    #[test]
    fn time_spans() {
        assert_eq!(TimeType::All.span_ms(), None);
        assert_eq!(TimeType::Day.span_ms(), Some(86_400_000));
        assert_eq!(TimeType::Month.span_ms(), Some(30 * 86_400_000));
    }
}
