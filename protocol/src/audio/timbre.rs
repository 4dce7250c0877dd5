//! Voices (timbre, spec 3 §3, §7): value sets, wire types and rules.
//! Easel measures pitch, pitch range, speaking rate and brightness and
//! applies them to a stock voice; it does not clone the speaker's identity.

use serde::{Deserialize, Serialize};

use crate::character::OwnerView;
use crate::ErrorCode;

pub const GENDERS: [&str; 4] = ["male", "female", "non_binary", "other"];
pub const AGES: [&str; 4] = ["juvenile", "young", "adult", "senior"];
pub const INTONATIONS: [&str; 15] = [
    "lively",
    "naive",
    "charming",
    "cheerful",
    "cunning",
    "mysterious",
    "gentle",
    "serious",
    "calm",
    "steady",
    "domineering",
    "shy",
    "melancholic",
    "timid",
    "other",
];
pub const LANGUAGES: [&str; 23] = [
    "en", "ja", "zh-cn", "nl", "ar", "fr", "de", "id", "it", "ko", "pt", "ru", "es", "tr", "uk",
    "vi", "th", "pl", "ro", "el", "cs", "fi", "hi",
];
pub const ENGINES: [&str; 4] = ["espeak", "piper", "kokoro", "remote"];

/// What the API and the UI say about training.
pub const TRAINING_NOTE: &str = "Easel measures pitch, pitch range, speaking rate and brightness \
     and applies them to a stock voice; it does not clone the speaker's identity.";

/// Limits.
pub const MAX_NAME_CHARS: usize = 40;
pub const MAX_DESCRIPTION_CHARS: usize = 300;
pub const MAX_TTS_CHARS: usize = 1000;
pub const MIN_SPEED: f32 = 0.5;
pub const MAX_SPEED: f32 = 2.0;
pub const MIN_SAMPLES: usize = 1;
pub const MAX_SAMPLES: usize = 5;
pub const MIN_SAMPLE_SECS: f64 = 3.0;
pub const MAX_SAMPLE_SECS: f64 = 60.0;
/// The upload category of voice samples (and every audio upload).
pub const SAMPLE_CATEGORY: i64 = 59;

/// The engine of a voice as the wire shows it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineLabel {
    pub name: String,
    pub neural: bool,
    pub label: String,
}

/// A voice (`timbre/detail`, lists).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimbreView {
    pub id: String,
    pub name: String,
    pub description: String,
    pub gender: String,
    pub age: String,
    pub language: String,
    pub intonation: String,
    pub is_public: bool,
    /// `ready`, `training`, `failed`.
    pub status: String,
    pub engine: String,
    pub base: String,
    pub neural: bool,
    pub label: String,
    pub preview_url: String,
    pub preview_duration: f64,
    pub params: serde_json::Value,
    pub owner: OwnerView,
    pub is_mine: bool,
    pub uses: i64,
    pub create_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_task_id: Option<String>,
}

/// A voice's editable fields, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimbreFields {
    pub name: String,
    pub description: String,
    pub gender: String,
    pub age: String,
    pub language: String,
    pub intonation: String,
}

/// Why a field is refused (the envelope's message; key `InvalidParams`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FieldError(pub String);

fn one_of(field: &str, v: &str, set: &[&str]) -> Result<String, FieldError> {
    let v = v.trim().to_ascii_lowercase();
    if set.contains(&v.as_str()) {
        Ok(v)
    } else {
        Err(FieldError(format!(
            "{field} must be one of {}",
            set.join(", ")
        )))
    }
}

/// Checks and normalises a voice's fields: name 1..=40 characters,
/// description up to 300, value sets of spec 3 §3.
pub fn normalise_fields(
    name: &str,
    description: &str,
    gender: &str,
    age: &str,
    language: &str,
    intonation: &str,
) -> Result<TimbreFields, FieldError> {
    let name = name.trim();
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME_CHARS {
        return Err(FieldError(format!(
            "a voice's name has 1 to {MAX_NAME_CHARS} characters"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(FieldError(
            "a voice's name has no control characters".into(),
        ));
    }
    let description = description.trim();
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(FieldError(format!(
            "a voice's description has at most {MAX_DESCRIPTION_CHARS} characters"
        )));
    }
    Ok(TimbreFields {
        name: name.to_string(),
        description: description.to_string(),
        gender: one_of("gender", gender, &GENDERS)?,
        age: one_of("age", age, &AGES)?,
        language: one_of("language", language, &LANGUAGES)?,
        intonation: one_of("intonation", intonation, &INTONATIONS)?,
    })
}

/// The text of a `timbre/tts` call, trimmed: 1..=1000 characters.
pub fn check_tts_text(text: &str) -> Result<String, ErrorCode> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ErrorCode::AudioTextEmpty);
    }
    if t.chars().count() > MAX_TTS_CHARS {
        return Err(ErrorCode::AudioTextTooLong);
    }
    Ok(t.to_string())
}

/// A speed (0.5..=2; absent = 1).
pub fn check_speed(speed: Option<f32>) -> Result<f32, FieldError> {
    let s = speed.unwrap_or(1.0);
    if s.is_finite() && (MIN_SPEED..=MAX_SPEED).contains(&s) {
        Ok(s)
    } else {
        Err(FieldError(format!(
            "speed is between {MIN_SPEED} and {MAX_SPEED}"
        )))
    }
}

/// List filters (`genders`, `ages`, `languages`, `tones`): empty lists
/// match everything; unknown values are refused.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TimbreFilter {
    #[serde(default)]
    pub genders: Vec<String>,
    #[serde(default)]
    pub ages: Vec<String>,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub tones: Vec<String>,
}

impl TimbreFilter {
    /// Lower-cases and checks every value.
    pub fn normalised(&self) -> Result<TimbreFilter, FieldError> {
        let all = |field: &str, v: &[String], set: &[&str]| {
            v.iter()
                .map(|x| one_of(field, x, set))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(TimbreFilter {
            genders: all("genders", &self.genders, &GENDERS)?,
            ages: all("ages", &self.ages, &AGES)?,
            languages: all("languages", &self.languages, &LANGUAGES)?,
            tones: all("tones", &self.tones, &INTONATIONS)?,
        })
    }

    pub fn matches(&self, t: &TimbreView) -> bool {
        let ok = |set: &[String], v: &str| set.is_empty() || set.iter().any(|s| s == v);
        ok(&self.genders, &t.gender)
            && ok(&self.ages, &t.age)
            && ok(&self.languages, &t.language)
            && ok(&self.tones, &t.intonation)
    }
}

/// Default prosody of an intonation on eSpeak: (pitch delta, range delta,
/// rate factor).
pub fn intonation_prosody(intonation: &str) -> (i32, i32, f32) {
    match intonation {
        "lively" | "cheerful" => (4, 15, 1.08),
        "naive" | "charming" => (6, 8, 1.0),
        "calm" | "steady" | "serious" => (-2, -15, 0.92),
        "gentle" => (0, -8, 0.95),
        "shy" | "timid" => (6, -10, 0.92),
        "domineering" => (-6, 10, 1.0),
        "melancholic" => (-5, -15, 0.88),
        "cunning" | "mysterious" => (-3, 5, 0.95),
        _ => (0, 0, 1.0),
    }
}

/// How a voice list is ordered (`order_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimbreOrder {
    /// A blend of use and freshness (the default, and `comprehensive-rec`).
    Recommend,
    /// Most used first.
    Hot,
    /// Newest first.
    New,
}

impl TimbreOrder {
    /// `recommend`, `hot` or `new` (absent or empty: recommend).
    pub fn parse(s: Option<&str>) -> Option<TimbreOrder> {
        match s.map(str::trim).unwrap_or("") {
            "" | "recommend" => Some(TimbreOrder::Recommend),
            "hot" => Some(TimbreOrder::Hot),
            "new" => Some(TimbreOrder::New),
            _ => None,
        }
    }
}

/// Days over which a voice's freshness halves in `recommend`.
pub const RECOMMEND_HALF_LIFE_DAYS: f64 = 7.0;

/// A voice's `recommend` score at `now_ms`: `ln(1 + uses)` plus a
/// freshness bonus of 2 halving every [`RECOMMEND_HALF_LIFE_DAYS`] (the
/// built-ins, made at time 0, have none), so a new voice is seen before
/// it is used and a much-used one stays up.
pub fn recommend_score(uses: i64, create_at_ms: i64, now_ms: i64) -> f64 {
    let used = (1.0 + uses.max(0) as f64).ln();
    if create_at_ms <= 0 {
        return used;
    }
    let days = (now_ms - create_at_ms).max(0) as f64 / 86_400_000.0;
    used + 2.0 * 0.5f64.powf(days / RECOMMEND_HALF_LIFE_DAYS)
}

/// Orders voices in place: `hot` by uses (then newer first), `recommend`
/// by [`recommend_score`], `new` by creation time; ties keep their order.
pub fn order_voices(v: &mut [TimbreView], order: TimbreOrder, now_ms: i64) {
    match order {
        TimbreOrder::New => v.sort_by_key(|t| std::cmp::Reverse(t.create_at)),
        TimbreOrder::Hot => {
            v.sort_by(|a, b| b.uses.cmp(&a.uses).then(b.create_at.cmp(&a.create_at)))
        }
        TimbreOrder::Recommend => v.sort_by(|a, b| {
            recommend_score(b.uses, b.create_at, now_ms).total_cmp(&recommend_score(
                a.uses,
                a.create_at,
                now_ms,
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_follow_the_value_sets_and_limits() {
        let ok = normalise_fields(" Ann ", "", "Female", "adult", "zh-cn", "calm").unwrap();
        assert_eq!((ok.name.as_str(), ok.gender.as_str()), ("Ann", "female"));
        let table = [
            ("", "male", "adult", "en", "calm", "name"),
            (&"x".repeat(41)[..], "male", "adult", "en", "calm", "name"),
            ("a", "man", "adult", "en", "calm", "gender"),
            ("a", "male", "old", "en", "calm", "age"),
            ("a", "male", "adult", "zh", "calm", "language"),
            ("a", "male", "adult", "en", "happy", "intonation"),
        ];
        for (n, g, a, l, i, want) in table {
            let e = normalise_fields(n, "", g, a, l, i).unwrap_err();
            assert!(e.0.contains(want), "{e}");
        }
        assert!(normalise_fields("a", &"d".repeat(301), "male", "adult", "en", "calm").is_err());
        assert_eq!(INTONATIONS.len(), 15);
    }

    #[test]
    fn tts_text_speed_and_filters() {
        assert_eq!(check_tts_text("  "), Err(ErrorCode::AudioTextEmpty));
        assert_eq!(
            check_tts_text(&"あ".repeat(1001)),
            Err(ErrorCode::AudioTextTooLong)
        );
        assert_eq!(
            check_tts_text(&"あ".repeat(1000)).map(|t| t.len()),
            Ok(3000)
        );
        assert_eq!(check_speed(None), Ok(1.0));
        assert!(check_speed(Some(2.5)).is_err() && check_speed(Some(f32::NAN)).is_err());
        let f = TimbreFilter {
            genders: vec!["FEMALE".into()],
            ..TimbreFilter::default()
        }
        .normalised()
        .unwrap();
        assert_eq!(f.genders, ["female"]);
        assert!(TimbreFilter {
            tones: vec!["loud".into()],
            ..TimbreFilter::default()
        }
        .normalised()
        .is_err());
    }

    #[test]
    fn voices_order_by_use_freshness_or_time() {
        let day = 86_400_000;
        let now = 100 * day;
        let v = |id: &str, uses: i64, at: i64| TimbreView {
            id: id.into(),
            uses,
            create_at: at,
            ..serde_json::from_value(serde_json::json!({
                "id": "", "name": "", "description": "", "gender": "male", "age": "adult",
                "language": "en", "intonation": "calm", "is_public": true, "status": "ready",
                "engine": "espeak", "base": "en", "neural": false, "label": "",
                "preview_url": "", "preview_duration": 0.0, "params": null,
                "owner": {"id": "system", "name": "Easel"}, "is_mine": false, "uses": 0,
                "create_at": 0
            }))
            .unwrap()
        };
        let all = vec![
            v("builtin-used", 50, 0),
            v("new-unused", 0, now - day),
            v("old-used", 5, now - 60 * day),
            v("builtin", 0, 0),
        ];
        let ids = |o: TimbreOrder| {
            let mut x = all.clone();
            order_voices(&mut x, o, now);
            x.into_iter().map(|t| t.id).collect::<Vec<_>>()
        };
        assert_eq!(
            ids(TimbreOrder::Hot),
            ["builtin-used", "old-used", "new-unused", "builtin"]
        );
        assert_eq!(
            ids(TimbreOrder::New),
            ["new-unused", "old-used", "builtin-used", "builtin"]
        );
        // ln(51) = 3.93 beats a day-old voice's 1.81; that beats ln(6) = 1.79 + 0.005.
        assert_eq!(
            ids(TimbreOrder::Recommend),
            ["builtin-used", "new-unused", "old-used", "builtin"]
        );
        assert_eq!(TimbreOrder::parse(None), Some(TimbreOrder::Recommend));
        assert_eq!(TimbreOrder::parse(Some(" hot ")), Some(TimbreOrder::Hot));
        assert_eq!(TimbreOrder::parse(Some("best")), None);
        assert!(recommend_score(0, now, now) > recommend_score(0, now - 7 * day, now));
    }
}
