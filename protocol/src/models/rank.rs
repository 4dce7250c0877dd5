//! Model rankings (spec 3 §7 Model ranking; issue 19 item 3): the boards,
//! their windows, the one scoring formula and the order, as pure functions
//! the backend and its tests share. ARCHITECTURE.md copies this formula.
//!
//! **Figures.** Each model has, per UTC day, the number of tasks that used
//! it (`uses`), downloads of its files (`downloads`), likes and collects
//! (net of their undos) and the credits its creator earned from it
//! (`earnings`). A window sums the days it covers: `day` = today (UTC),
//! `week` = the last 7 days including today, `month` = the last 30 days,
//! `all` = every day (kept as all-time totals).
//!
//! **score** = 1·uses + 3·downloads + 2·likes + 2·collects + 0.5·earnings,
//! each figure counted from 0 (a negative net is 0). A download says more
//! than a use (the user keeps the file), a like or collect more than a use,
//! and earnings count at half a point per credit so paid models are not
//! pushed above well-used free ones by price alone.
//!
//! **hot** = 100 · score / (age_days + 2)^1.5, age_days the days since the
//! model was published (fractional, a future time counts as 0): Hacker
//! News's gravity on a day scale, so a new model with a few uses can pass an
//! old one with many, and the board keeps moving.
//!
//! **Boards**, each over the chosen window: `hottest` orders by hot,
//! `most_used` by uses, `most_downloaded` by downloads, `top_earning` by
//! earnings, `new_rising` by score among the models published in the last
//! [`NEW_RISING_DAYS`] days. A model is on a board only with a value above
//! 0 in the window, and only while it is published.
//!
//! **Order.** Higher value first; a tie goes to the newer model (later
//! publish time), then to the smaller model id, so the order is total and
//! the same on every node.
//!
//! **recommend** (a signed-in viewer who used, liked or collected models) =
//! 2·family_share + 0.5·min(shared_tags, 3) + hot / max_hot, where
//! family_share is the share of the viewer's marked models in the
//! candidate's base family, shared_tags the candidate's tags found on those
//! models, and hot the candidate's weekly hot over the best candidate's: the
//! viewer's families first, then their tags, hotness breaking the rest.
//! Models the viewer owns or already marked are left out. Visitors, and
//! viewers with no marks, get the weekly hottest board.
//!
//! **Creators** (`portfolio-star`) are ranked by the score of the sums of
//! their models' figures in the window; ties go to the smaller account id.
//! **Post heroes** are ranked by the likes their square works received in
//! the window (likes given in it, undone likes not counted).

use serde::{Deserialize, Serialize};

use super::ModelStats;

/// Weights of [`score`].
pub const USE_WEIGHT: f64 = 1.0;
pub const DOWNLOAD_WEIGHT: f64 = 3.0;
pub const LIKE_WEIGHT: f64 = 2.0;
pub const COLLECT_WEIGHT: f64 = 2.0;
pub const EARNING_WEIGHT: f64 = 0.5;
/// Gravity of [`hot`] (on a day scale).
pub const GRAVITY: f64 = 1.5;
/// How young a model must be to be on the `new_rising` board.
pub const NEW_RISING_DAYS: i64 = 30;
/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;
/// Most rows one ranking page answers.
pub const MAX_PAGE: usize = 50;

/// A ranking window.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    Day,
    Week,
    Month,
    All,
}

impl Window {
    pub const ALL: [Window; 4] = [Window::Day, Window::Week, Window::Month, Window::All];

    /// The days the window covers (`None`: all time).
    pub const fn days(self) -> Option<i64> {
        match self {
            Window::Day => Some(1),
            Window::Week => Some(7),
            Window::Month => Some(30),
            Window::All => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Window::Day => "day",
            Window::Week => "week",
            Window::Month => "month",
            Window::All => "all",
        }
    }

    /// Reads `time_type` as clients send it: a name (`day`, `week`,
    /// `month`, `all`, also `daily`, `weekly`, `monthly`, `total`) or a
    /// number (1 day, 2 week, 3 month, 0 all). Missing or null: `default`.
    pub fn parse(v: &serde_json::Value, default: Window) -> Option<Window> {
        match v {
            serde_json::Value::Null => Some(default),
            serde_json::Value::Number(n) => match n.as_i64()? {
                0 => Some(Window::All),
                1 => Some(Window::Day),
                2 => Some(Window::Week),
                3 => Some(Window::Month),
                _ => None,
            },
            serde_json::Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "" => Some(default),
                "0" | "all" | "total" | "all_time" | "alltime" => Some(Window::All),
                "1" | "day" | "daily" | "today" => Some(Window::Day),
                "2" | "week" | "weekly" => Some(Window::Week),
                "3" | "month" | "monthly" => Some(Window::Month),
                _ => None,
            },
            _ => None,
        }
    }

    /// The UTC days `[first, last]` the window covers on `today`
    /// (`None`: all time).
    pub fn day_range(self, today: i64) -> Option<(i64, i64)> {
        self.days().map(|d| (today - d + 1, today))
    }
}

/// A ranking board.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Board {
    Hottest,
    MostUsed,
    MostDownloaded,
    TopEarning,
    NewRising,
}

impl Board {
    pub const ALL: [Board; 5] = [
        Board::Hottest,
        Board::MostUsed,
        Board::MostDownloaded,
        Board::TopEarning,
        Board::NewRising,
    ];

    pub const fn code(self) -> u8 {
        match self {
            Board::Hottest => 1,
            Board::MostUsed => 2,
            Board::MostDownloaded => 3,
            Board::TopEarning => 4,
            Board::NewRising => 5,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Board::Hottest => "hottest",
            Board::MostUsed => "most_used",
            Board::MostDownloaded => "most_downloaded",
            Board::TopEarning => "top_earning",
            Board::NewRising => "new_rising",
        }
    }

    pub const fn title(self) -> &'static str {
        match self {
            Board::Hottest => "Hottest",
            Board::MostUsed => "Most used",
            Board::MostDownloaded => "Most downloaded",
            Board::TopEarning => "Top earning",
            Board::NewRising => "New and rising",
        }
    }

    /// Reads `rank_type`: a code (1..5) or a name (ours, also `hot`, `use`,
    /// `uses`, `download`, `downloads`, `earning`, `earnings`, `new`).
    /// Missing or null: hottest.
    pub fn parse(v: &serde_json::Value) -> Option<Board> {
        let by_code = |n: i64| Board::ALL.into_iter().find(|b| i64::from(b.code()) == n);
        match v {
            serde_json::Value::Null => Some(Board::Hottest),
            serde_json::Value::Number(n) => by_code(n.as_i64()?),
            serde_json::Value::String(s) => {
                let k: String = s
                    .trim()
                    .to_ascii_lowercase()
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric())
                    .collect();
                if let Ok(n) = k.parse::<i64>() {
                    return by_code(n);
                }
                match k.as_str() {
                    "" | "hottest" | "hot" => Some(Board::Hottest),
                    "mostused" | "use" | "uses" | "used" => Some(Board::MostUsed),
                    "mostdownloaded" | "download" | "downloads" => Some(Board::MostDownloaded),
                    "topearning" | "earning" | "earnings" => Some(Board::TopEarning),
                    "newrising" | "new" | "rising" => Some(Board::NewRising),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The UTC day number of a time in ms (days since 1970-01-01).
pub fn utc_day(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// The score of a model's figures (module doc).
pub fn score(s: &ModelStats) -> f64 {
    let n = |v: i64| v.max(0) as f64;
    USE_WEIGHT * n(s.uses)
        + DOWNLOAD_WEIGHT * n(s.downloads)
        + LIKE_WEIGHT * n(s.likes)
        + COLLECT_WEIGHT * n(s.collects)
        + EARNING_WEIGHT * n(s.earnings)
}

/// The hot value of `score` for a model published `age_ms` ago.
pub fn hot(score: f64, age_ms: i64) -> f64 {
    let days = age_ms.max(0) as f64 / DAY_MS as f64;
    100.0 * score.max(0.0) / (days + 2.0).powf(GRAVITY)
}

/// A model's value on `board` with its window figures, published `age_ms`
/// ago; `None` when it is not on the board.
pub fn board_value(board: Board, s: &ModelStats, age_ms: i64) -> Option<f64> {
    let v = match board {
        Board::Hottest => hot(score(s), age_ms),
        Board::MostUsed => s.uses as f64,
        Board::MostDownloaded => s.downloads as f64,
        Board::TopEarning => s.earnings as f64,
        Board::NewRising => {
            if age_ms > NEW_RISING_DAYS * DAY_MS {
                return None;
            }
            score(s)
        }
    };
    (v > 0.0).then_some(v)
}

/// Weights of [`recommend_value`].
pub const FAMILY_WEIGHT: f64 = 2.0;
pub const TAG_WEIGHT: f64 = 0.5;
pub const MAX_TAG_MATCHES: usize = 3;

/// A candidate's recommend value for a viewer (module doc).
pub fn recommend_value(family_share: f64, shared_tags: usize, hot: f64, max_hot: f64) -> f64 {
    let h = if max_hot > 0.0 {
        (hot / max_hot).clamp(0.0, 1.0)
    } else {
        0.0
    };
    FAMILY_WEIGHT * family_share.clamp(0.0, 1.0)
        + TAG_WEIGHT * shared_tags.min(MAX_TAG_MATCHES) as f64
        + h
}

/// One entry to order: its value, publish time and id.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub id: String,
    pub value: f64,
    pub published_at: i64,
}

/// The documented order: value descending, then newer first, then id.
pub fn rank_order(a: &Ranked, b: &Ranked) -> std::cmp::Ordering {
    b.value
        .total_cmp(&a.value)
        .then(b.published_at.cmp(&a.published_at))
        .then(a.id.cmp(&b.id))
}

/// Adds `b` into `a` (a window's sum of days).
pub fn add_stats(a: &mut ModelStats, b: &ModelStats) {
    a.uses += b.uses;
    a.downloads += b.downloads;
    a.likes += b.likes;
    a.collects += b.collects;
    a.earnings += b.earnings;
    a.comments += b.comments;
}

/// `model/rank-detail` (and the boards of `rank-index`, `rank-detail-all`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct RankDetailRequest {
    /// A [`Board`] code or name; default hottest.
    #[serde(default)]
    pub rank_type: serde_json::Value,
    /// A [`Window`] name or number; default week.
    #[serde(default)]
    pub time_type: serde_json::Value,
    /// 1-based page (or `cursor`, the rank to continue after).
    #[serde(default)]
    pub page: Option<u32>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
    /// Only these model types (names or codes as `model/list` reads them).
    #[serde(default)]
    pub model_types: Vec<serde_json::Value>,
    /// Only these base families (ids, names or spec 3 §9 codes).
    #[serde(default)]
    pub base_models: Vec<serde_json::Value>,
}

/// One ranked model.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedModel {
    /// 1-based place on the board.
    pub rank: u32,
    /// Its value on the board (hot, uses, downloads, earnings or score).
    pub value: f64,
    /// Its [`score`] in the window.
    pub score: f64,
    /// Its figures in the window.
    pub window_stats: ModelStats,
    pub model: super::ModelView,
}

/// A board's page.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardPage {
    pub rank_type: Board,
    pub rank_type_code: u8,
    pub title: String,
    pub time_type: Window,
    pub items: Vec<RankedModel>,
    /// Models on the board in all.
    pub total: u32,
    /// Where the next page starts (`None`: the end).
    pub next_cursor: Option<String>,
    /// When the figures were summed (ms).
    pub computed_at: i64,
}

/// A category: key, label and sub-categories (key, label).
pub type Category = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The content categories of `source-category/sub-list`. A model is in a
/// category when one of its tags is the category's or a sub-category's key
/// (tags compare lower-cased, spaces and hyphens as '_').
pub const CATEGORIES: &[Category] = &[
    (
        "character",
        "Character",
        &[
            ("anime_character", "Anime character"),
            ("realistic_person", "Realistic person"),
            ("game_character", "Game character"),
            ("original_character", "Original character"),
        ],
    ),
    (
        "style",
        "Style",
        &[
            ("anime", "Anime"),
            ("realistic", "Realistic"),
            ("illustration", "Illustration"),
            ("watercolor", "Watercolor"),
            ("pixel_art", "Pixel art"),
            ("3d", "3D"),
        ],
    ),
    (
        "concept",
        "Concept",
        &[
            ("fantasy", "Fantasy"),
            ("sci_fi", "Sci-fi"),
            ("horror", "Horror"),
            ("cyberpunk", "Cyberpunk"),
        ],
    ),
    (
        "clothing",
        "Clothing",
        &[
            ("dress", "Dress"),
            ("uniform", "Uniform"),
            ("armor", "Armor"),
            ("swimwear", "Swimwear"),
        ],
    ),
    (
        "background",
        "Background",
        &[
            ("landscape", "Landscape"),
            ("interior", "Interior"),
            ("city", "City"),
            ("nature", "Nature"),
        ],
    ),
    (
        "tool",
        "Tool",
        &[
            ("detail", "Detail"),
            ("lighting", "Lighting"),
            ("color", "Color"),
            ("slider", "Slider"),
        ],
    ),
    (
        "building",
        "Building",
        &[
            ("architecture", "Architecture"),
            ("castle", "Castle"),
            ("house", "House"),
        ],
    ),
    (
        "vehicle",
        "Vehicle",
        &[
            ("car", "Car"),
            ("aircraft", "Aircraft"),
            ("ship", "Ship"),
            ("mecha", "Mecha"),
        ],
    ),
    (
        "objects",
        "Objects",
        &[
            ("food", "Food"),
            ("weapon", "Weapon"),
            ("jewelry", "Jewelry"),
        ],
    ),
    (
        "animal",
        "Animal",
        &[
            ("cat", "Cat"),
            ("dog", "Dog"),
            ("bird", "Bird"),
            ("dragon", "Dragon"),
        ],
    ),
    (
        "action",
        "Action",
        &[
            ("fighting", "Fighting"),
            ("dancing", "Dancing"),
            ("running", "Running"),
        ],
    ),
    (
        "poses",
        "Poses",
        &[
            ("sitting", "Sitting"),
            ("standing", "Standing"),
            ("portrait", "Portrait"),
        ],
    ),
];

#[cfg(test)]
#[path = "rank_tests.rs"]
mod tests;
