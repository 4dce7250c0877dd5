//! The prompt word, the parameters and the parse result (spec 1 §3), with the
//! number rules both dialects share: two-decimal rounding, the weight clamp
//! and the 1.1 step level.

use serde::{Deserialize, Serialize, Serializer};

/// Display text is cut at this many characters (Unicode scalar values, not
/// bytes): spec 1 §5 "displayed word name is cut at 200 characters".
pub const DISPLAY_CHARS: usize = 200;

/// Weight step of one bracket (spec 1 §9).
pub const WEIGHT_STEP: f64 = 1.1;

/// Weights are clamped into `[-LV_LIMIT, LV_LIMIT]` after every step, so that
/// deep nesting can never overflow to infinity (which JSON cannot carry) and
/// every weight prints the same way in Rust and JavaScript.
pub const LV_LIMIT: f64 = 10_000.0;

/// How far [`step_level`] looks for a 1.1 power.
pub const MAX_STEP_LEVEL: i32 = 8;

/// What a word is.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WordType {
    /// Plain prompt text.
    Word,
    /// `<lora:name:weight>`.
    Lora,
    /// `<lyco:name:weight>`.
    Lyco,
    /// `<hypernet:name:weight>`.
    Hypernet,
    /// `<embedding:name>`.
    Embedding,
    /// `<kind:name:weight>` of a kind not listed above (kind kept in `args`).
    Extra,
    /// Prompt editing `[from:to:when]` / `[to:when]`.
    Editing,
    /// A double-dash (or long-dash) parameter such as `--ar 16:9`.
    Command,
}

impl WordType {
    /// The extra-network type for a `<kind:...>` tag (kind compared in ASCII
    /// lower case).
    pub fn from_kind(kind: &str) -> WordType {
        match kind.to_ascii_lowercase().as_str() {
            "lora" => WordType::Lora,
            "lyco" => WordType::Lyco,
            "hypernet" => WordType::Hypernet,
            "embedding" => WordType::Embedding,
            _ => WordType::Extra,
        }
    }

    /// True for the `<kind:name:weight>` types.
    pub fn is_extra_network(self) -> bool {
        matches!(
            self,
            WordType::Lora
                | WordType::Lyco
                | WordType::Hypernet
                | WordType::Embedding
                | WordType::Extra
        )
    }
}

/// Which list of the editor a word belongs to. The parsers assign `Normal`,
/// `Command` and `Eg`; `Style` and `Quality` come from the dictionary.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubType {
    Normal,
    Style,
    Quality,
    Command,
    /// Negative ("eg") words.
    Eg,
}

/// One prompt word (spec 1 §3). Serialised with the camelCase names of the
/// web app (`rawText`, `subType`, `isEg`, ...).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Word {
    /// `raw_text`, plus `#n` for the n-th duplicate; unique across the words
    /// and egWords of one parse result (see [`assign_ids`]).
    pub id: String,
    /// Display text: `raw_text` cut at [`DISPLAY_CHARS`] characters.
    pub text: String,
    /// The whole word in prompt syntax without its weight, escapes kept as
    /// typed so rendering reproduces them. Extra networks: the name. Editing:
    /// the inside of the brackets. Commands: the whole command.
    pub raw_text: String,
    /// Translation; the parsers leave it empty.
    pub lang_text: String,
    #[serde(rename = "type")]
    pub kind: WordType,
    pub sub_type: SubType,
    pub is_eg: bool,
    pub group: u32,
    /// Weight, rounded to two decimals, default 1.
    #[serde(serialize_with = "serialize_number")]
    pub lv: f64,
    /// `lv` in 1.1 steps ([`step_level`]): 2 for `((a))`, -1 for `[a]`, 0
    /// when lv is not a small power of 1.1. Derived from `lv`; the renderer
    /// recomputes it rather than trusting it.
    pub alv: i32,
    pub desc: String,
    pub dir: String,
    pub link: String,
    /// Editing: `[from, to, when, "steps"|"fraction"]`. Extra networks:
    /// `[kind as typed, ...parts after the weight]`. Commands: `[value]` when
    /// the command has one.
    pub args: Vec<String>,
    pub disabled: bool,
    pub is_alias: bool,
}

impl Word {
    /// A word with every optional field at its default (`lv` 1, empty id:
    /// [`assign_ids`] fills ids in).
    pub fn new(kind: WordType, sub_type: SubType, raw_text: String) -> Word {
        Word {
            id: String::new(),
            text: cut_display(&raw_text),
            raw_text,
            lang_text: String::new(),
            kind,
            sub_type,
            is_eg: sub_type == SubType::Eg,
            group: 0,
            lv: 1.0,
            alv: 0,
            desc: String::new(),
            dir: String::new(),
            link: String::new(),
            args: Vec::new(),
            disabled: false,
            is_alias: false,
        }
    }

    /// Sets the weight (rounded, clamped) and its step level.
    pub fn with_lv(mut self, lv: f64) -> Word {
        self.lv = round2(clamp_lv(lv));
        self.alv = step_level(self.lv);
        self
    }

    /// Sets `args`.
    pub fn with_args(mut self, args: Vec<String>) -> Word {
        self.args = args;
        self
    }
}

/// A double-dash parameter whose name is not recognised: kept and reported.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownParam {
    /// The name as typed, without its leading dashes.
    pub name: String,
    /// The value as typed (tokens joined by one space); empty when none.
    pub value: String,
}

/// The recognised double-dash parameters by canonical name. Values are the
/// text as typed (validation is the task rules' job, and a string is
/// lossless); the last occurrence wins. `--no` is not here: it makes egWords.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chaos: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// `--niji` may have no value: then `Some("")`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub niji: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iw: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<String>,
    /// Unknown parameters in order of appearance; omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<UnknownParam>,
}

/// The known parameter names in canonical (render) order.
pub const PARAM_NAMES: [&str; 12] = [
    "version", "aspect", "quality", "chaos", "seed", "stop", "style", "niji", "repeat", "iw",
    "width", "height",
];

impl Params {
    /// The value slot of a canonical name.
    pub fn slot(&self, name: &str) -> Option<&Option<String>> {
        Some(match name {
            "version" => &self.version,
            "aspect" => &self.aspect,
            "quality" => &self.quality,
            "chaos" => &self.chaos,
            "seed" => &self.seed,
            "stop" => &self.stop,
            "style" => &self.style,
            "niji" => &self.niji,
            "repeat" => &self.repeat,
            "iw" => &self.iw,
            "width" => &self.width,
            "height" => &self.height,
            _ => return None,
        })
    }

    /// The mutable value slot of a canonical name.
    pub fn slot_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
        Some(match name {
            "version" => &mut self.version,
            "aspect" => &mut self.aspect,
            "quality" => &mut self.quality,
            "chaos" => &mut self.chaos,
            "seed" => &mut self.seed,
            "stop" => &mut self.stop,
            "style" => &mut self.style,
            "niji" => &mut self.niji,
            "repeat" => &mut self.repeat,
            "iw" => &mut self.iw,
            "width" => &mut self.width,
            "height" => &mut self.height,
            _ => return None,
        })
    }
}

/// The parse result of DESIGN.md's Contracts.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParseResult {
    pub words: Vec<Word>,
    pub eg_words: Vec<Word>,
    pub params: Params,
}

/// Rounds to two decimals, halves away from zero, never `-0`. Written as
/// `floor(|x| * 100 + 0.5) / 100` so JavaScript computes the same double.
pub fn round2(x: f64) -> f64 {
    let r = ((x.abs() * 100.0) + 0.5).floor() / 100.0;
    (if x < 0.0 { -r } else { r }) + 0.0
}

/// Clamps a weight into `[-LV_LIMIT, LV_LIMIT]`.
pub fn clamp_lv(x: f64) -> f64 {
    x.clamp(-LV_LIMIT, LV_LIMIT)
}

/// The step level of a (rounded) weight: `k` in `1..=8` when
/// `lv == round2(1.1^k)`, `-k` when `lv == round2(1.1^-k)`, else 0. The powers
/// are built by repeated multiplication/division, as the parser builds them.
pub fn step_level(lv: f64) -> i32 {
    let mut up = 1.0_f64;
    let mut down = 1.0_f64;
    for k in 1..=MAX_STEP_LEVEL {
        up *= WEIGHT_STEP;
        down /= WEIGHT_STEP;
        if lv == round2(up) {
            return k;
        }
        if lv == round2(down) {
            return -k;
        }
    }
    0
}

/// Formats a weight for prompt text: shortest form, no trailing zeros (`1.2`,
/// `2`, `-0.5`), as JavaScript's `String(x)` prints it for these magnitudes.
pub fn format_number(x: f64) -> String {
    format!("{x}")
}

/// The display cut: the first [`DISPLAY_CHARS`] characters.
pub fn cut_display(raw: &str) -> String {
    raw.chars().take(DISPLAY_CHARS).collect()
}

/// Serialises whole numbers as JSON integers (`1`, not `1.0`), like
/// `JSON.stringify`, so the CLI output matches the web app's.
fn serialize_number<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.fract() == 0.0 && x.abs() <= LV_LIMIT {
        // Lossless: |x| <= LV_LIMIT and whole.
        let n = *x as i64;
        s.serialize_i64(n)
    } else {
        s.serialize_f64(*x)
    }
}

/// Gives every word its id: `raw_text` for the first occurrence, `raw_text#n`
/// for the n-th duplicate (n counted per raw text over `words` then
/// `eg_words`), skipping any id already taken so ids are unique.
pub fn assign_ids(words: &mut [Word], eg_words: &mut [Word]) {
    use std::collections::{HashMap, HashSet};
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut taken: HashSet<String> = HashSet::new();
    for w in words.iter_mut().chain(eg_words.iter_mut()) {
        let n = seen.entry(w.raw_text.clone()).or_insert(0);
        let mut id = if *n == 0 {
            w.raw_text.clone()
        } else {
            format!("{}#{}", w.raw_text, n)
        };
        while taken.contains(&id) {
            *n += 1;
            id = format!("{}#{}", w.raw_text, n);
        }
        *n += 1;
        taken.insert(id.clone());
        w.id = id;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round2_halves_away_from_zero_and_no_negative_zero() {
        assert_eq!(round2(1.21000000001), 1.21);
        assert_eq!(round2(1.331), 1.33);
        assert_eq!(round2(-0.125), -0.13);
        assert_eq!(round2(-0.001).to_string(), "0");
    }

    #[test]
    fn step_levels() {
        assert_eq!(step_level(1.0), 0);
        assert_eq!(step_level(1.1), 1);
        assert_eq!(step_level(1.21), 2);
        assert_eq!(step_level(0.91), -1);
        assert_eq!(step_level(0.83), -2);
        assert_eq!(step_level(1.2), 0);
        assert_eq!(step_level(2.14), 8);
    }

    #[test]
    fn lv_serialises_whole_numbers_as_integers() {
        let w = Word::new(WordType::Word, SubType::Normal, "a".into()).with_lv(2.0);
        let json = serde_json::to_value(&w).unwrap();
        assert_eq!(json["lv"].to_string(), "2");
        let w = w.with_lv(1.21);
        assert_eq!(serde_json::to_value(&w).unwrap()["lv"].to_string(), "1.21");
    }

    #[test]
    fn duplicate_ids_are_counted_and_unique() {
        let mk = |t: &str| Word::new(WordType::Word, SubType::Normal, t.into());
        let mut words = vec![mk("cat"), mk("cat"), mk("cat#1"), mk("cat")];
        let mut eg = vec![mk("cat")];
        assign_ids(&mut words, &mut eg);
        let ids: Vec<_> = words
            .iter()
            .chain(eg.iter())
            .map(|w| w.id.clone())
            .collect();
        assert_eq!(ids, ["cat", "cat#1", "cat#1#1", "cat#2", "cat#3"]);
    }
}
