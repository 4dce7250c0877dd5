//! Datasets and LoRA training (spec 3 §7 Training; issue 19 item 4), pure:
//! the dataset wire types and limits, the dataset kinds (`template-list`)
//! with their caption conventions and suggested parameters, the training
//! parameters and their checks (`trainParamsInvalid`), the step count, the
//! credit table, and the [`TrainSpec`] a training job carries. Also the
//! tensor names of the Easel style file the reference trainer writes and the
//! reference engine reads.
//!
//! ## Steps
//!
//! As kohya's sd-scripts count them: `steps = ceil(images * repeats /
//! batch_size) * epochs`. At most [`MAX_STEPS`].
//!
//! ## Credits (`train-model/estimate`, held when the task is created)
//!
//! `credits = 5 + ceil(steps / 100) * resolution factor * family factor`
//!
//! | resolution (longest side) | factor |   | family | factor |
//! |---|---|---|---|---|
//! | up to 512 | 1 | | `sd` | 1 |
//! | up to 768 | 2 | | `sdxl`, `il`, `il3` and the other SDXL-sized families | 2 |
//! | up to 1024 | 3 | | `flux`, `sd3.5`, `hidream` | 4 |
//!
//! The expected time (`estimate_secs`, a GPU trainer) is `30 + steps * 0.4 *
//! resolution factor * family factor` seconds; the reference trainer is much
//! faster and says so in its log.

use serde::{Deserialize, Serialize};

use crate::task::catalogue::family_ids;

/// Images per dataset.
pub const MAX_DATASET_IMAGES: usize = 200;
/// Characters per caption.
pub const MAX_CAPTION_CHARS: usize = 1000;
pub const MAX_DATASET_NAME_CHARS: usize = 80;
pub const MAX_DATASET_TAGS: usize = 10;
pub const MAX_TRIGGER_CHARS: usize = 40;
/// Most optimiser steps one training may take.
pub const MAX_STEPS: u32 = 20_000;
/// The resolutions a training may use.
pub const RESOLUTIONS: [u32; 3] = [512, 768, 1024];
pub const OPTIMIZERS: [&str; 4] = ["AdamW8bit", "AdamW", "Prodigy", "Lion"];

/// The Easel style file (the reference trainer's output, a real safetensors
/// file the reference engine applies): tensor names and metadata keys.
pub mod style_file {
    /// F32 `[k, 3]`: the palette's colours, RGB in 0..=1, most used first.
    pub const PALETTE: &str = "easel_style.palette";
    /// F32 `[k]`: each palette colour's share of the pixels (sums to 1).
    pub const PALETTE_WEIGHTS: &str = "easel_style.palette_weights";
    /// F32 `[4]`: edge density (share of Sobel edges), high-frequency energy
    /// (mean absolute Laplacian of luma), mean saturation, luma contrast
    /// (standard deviation).
    pub const TEXTURE: &str = "easel_style.texture";
    /// F32 `[GRID, GRID]`: mean luma per cell of a coarse grid (composition).
    pub const LAYOUT: &str = "easel_style.layout";
    /// F32 `[GRID, GRID]`: mean saliency (distance from the image's mean
    /// colour) per cell.
    pub const SALIENCY: &str = "easel_style.saliency";
    /// Side of the layout grids.
    pub const GRID: usize = 8;
    /// Metadata key saying the file is an Easel style and its format version.
    pub const VERSION_KEY: &str = "easel_style_version";
    pub const VERSION: &str = "1";
}

/// What a dataset teaches (`dataset/template-list`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DatasetKind {
    Character,
    #[default]
    Style,
    Concept,
    Object,
}

impl DatasetKind {
    pub const ALL: [DatasetKind; 4] = [
        DatasetKind::Character,
        DatasetKind::Style,
        DatasetKind::Concept,
        DatasetKind::Object,
    ];

    pub fn parse(s: &str) -> Option<DatasetKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "character" | "person" | "1" => Some(DatasetKind::Character),
            "style" | "art_style" | "2" => Some(DatasetKind::Style),
            "concept" | "3" => Some(DatasetKind::Concept),
            "object" | "item" | "4" => Some(DatasetKind::Object),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            DatasetKind::Character => "character",
            DatasetKind::Style => "style",
            DatasetKind::Concept => "concept",
            DatasetKind::Object => "object",
        }
    }

    /// The kind's template: its caption convention and suggested parameters.
    pub fn template(self) -> DatasetTemplate {
        let (name, convention, example, repeats, epochs, dim, lr) = match self {
            DatasetKind::Character => (
                "Character",
                "Start with the trigger word, then describe what changes between pictures \
                 (pose, clothes, background, framing); leave out what always stays the same \
                 (face, hair colour), so the trigger word learns it.",
                "mychar, standing, red jacket, city street at night, full body",
                10,
                10,
                32,
                1e-4,
            ),
            DatasetKind::Style => (
                "Style",
                "Start with the trigger word, then describe the content only (subject, scene, \
                 objects), never the style itself (medium, colours, strokes): the trigger word \
                 learns the style.",
                "mystyle, a lighthouse on a cliff, waves, seagulls",
                5,
                10,
                16,
                1e-4,
            ),
            DatasetKind::Concept => (
                "Concept",
                "Start with the trigger word, then describe everything else in the picture; \
                 vary subjects so only the concept repeats.",
                "myconcept, a cat, sitting on a sofa, living room",
                8,
                12,
                16,
                1e-4,
            ),
            DatasetKind::Object => (
                "Object",
                "Start with the trigger word and the object's class (\"mymug mug\"), then the \
                 setting, angle and lighting; keep the object's own details out.",
                "mymug mug, on a wooden table, from above, soft light",
                10,
                10,
                16,
                1e-4,
            ),
        };
        DatasetTemplate {
            kind: self,
            name: name.into(),
            caption_convention: convention.into(),
            example_caption: example.into(),
            suggested: SuggestedParams {
                repeats,
                epochs,
                network_dim: dim,
                network_alpha: dim as f32 / 2.0,
                learning_rate: lr,
                min_images: 8,
                max_images: MAX_DATASET_IMAGES as u32,
            },
        }
    }
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedParams {
    pub repeats: u32,
    pub epochs: u32,
    pub network_dim: u32,
    pub network_alpha: f32,
    pub learning_rate: f64,
    pub min_images: u32,
    pub max_images: u32,
}

/// One dataset kind (`dataset/template-list`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetTemplate {
    pub kind: DatasetKind,
    pub name: String,
    pub caption_convention: String,
    pub example_caption: String,
    pub suggested: SuggestedParams,
}

/// Where a caption came from.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CaptionSource {
    #[default]
    None,
    /// The reference descriptor (non-neural: colours, brightness, layout).
    Descriptor,
    /// The reference descriptor's draft, rewritten by the language model.
    Llm,
    /// Written or edited by the owner.
    User,
}

/// One image of a dataset.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetImageView {
    pub image_id: String,
    pub url: String,
    pub width: u32,
    pub height: u32,
    pub caption: String,
    pub caption_source: CaptionSource,
}

/// A dataset (`dataset/detail`; `dataset/list` leaves `images` empty).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetView {
    pub dataset_id: String,
    pub name: String,
    pub kind: DatasetKind,
    pub tags: Vec<String>,
    pub image_count: u32,
    pub cover: Option<String>,
    pub images: Vec<DatasetImageView>,
    pub create_at: i64,
    pub update_at: i64,
}

/// Checked training parameters.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainParams {
    pub epochs: u32,
    pub repeats: u32,
    /// Training resolution (one of [`RESOLUTIONS`]).
    pub resolution: u32,
    pub network_dim: u32,
    pub network_alpha: f32,
    pub learning_rate: f64,
    pub batch_size: u32,
    pub optimizer: String,
    pub trigger_word: String,
    pub seed: u64,
}

/// The parameters as clients send them: every field optional, numbers as
/// numbers or numeric strings.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TrainParamsInput {
    #[serde(default)]
    pub epochs: Option<serde_json::Value>,
    #[serde(default)]
    pub repeats: Option<serde_json::Value>,
    #[serde(default)]
    pub resolution: Option<serde_json::Value>,
    #[serde(default)]
    pub network_dim: Option<serde_json::Value>,
    #[serde(default)]
    pub network_alpha: Option<serde_json::Value>,
    #[serde(default)]
    pub learning_rate: Option<serde_json::Value>,
    #[serde(default)]
    pub batch_size: Option<serde_json::Value>,
    #[serde(default)]
    pub optimizer: Option<String>,
    #[serde(default)]
    pub trigger_word: Option<String>,
    #[serde(default)]
    pub seed: Option<serde_json::Value>,
}

fn num(v: &Option<serde_json::Value>, field: &str) -> Result<Option<f64>, String> {
    let bad = || format!("{field} is not a number");
    match v {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Number(n)) => n.as_f64().map(Some).ok_or_else(bad),
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(serde_json::Value::String(s)) => s.trim().parse().map(Some).map_err(|_| bad()),
        Some(_) => Err(bad()),
    }
}

fn int_in(
    v: &Option<serde_json::Value>,
    field: &str,
    range: std::ops::RangeInclusive<u32>,
    default: u32,
) -> Result<u32, String> {
    let Some(x) = num(v, field)? else {
        return Ok(default);
    };
    if x.fract() != 0.0 || x < f64::from(*range.start()) || x > f64::from(*range.end()) {
        return Err(format!(
            "{field} is a whole number from {} to {}",
            range.start(),
            range.end()
        ));
    }
    Ok(x as u32)
}

/// The resolution a family trains at by default.
pub fn default_resolution(family: &str) -> u32 {
    if family == family_ids::SD {
        512
    } else {
        1024
    }
}

/// A trigger word: one token-ish phrase, no commas, brackets or newlines.
pub fn check_trigger_word(w: &str) -> Result<String, String> {
    let w = w.trim();
    if w.is_empty() {
        return Err("trigger_word is empty".into());
    }
    if w.chars().count() > MAX_TRIGGER_CHARS {
        return Err(format!(
            "trigger_word has at most {MAX_TRIGGER_CHARS} characters"
        ));
    }
    if w.chars()
        .any(|c| c.is_control() || matches!(c, ',' | '(' | ')' | '[' | ']' | '<' | '>' | ':'))
    {
        return Err("trigger_word has no commas, brackets, colons or line breaks".into());
    }
    Ok(w.to_string())
}

/// A trigger word made from a model name (`My Red Style` -> `my_red_style`).
pub fn trigger_from_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out: String = out
        .trim_end_matches('_')
        .chars()
        .take(MAX_TRIGGER_CHARS)
        .collect();
    if out.is_empty() {
        "easel_style".into()
    } else {
        out
    }
}

impl TrainParamsInput {
    /// Checks every parameter, fills the kind's suggestions and the family's
    /// resolution, and bounds the step count for `images` pictures. The
    /// error is the message of `trainParamsInvalid`.
    pub fn check(
        &self,
        kind: DatasetKind,
        family: &str,
        images: usize,
        default_trigger: &str,
    ) -> Result<TrainParams, String> {
        let s = kind.template().suggested;
        let epochs = int_in(&self.epochs, "epochs", 1..=100, s.epochs)?;
        let repeats = int_in(&self.repeats, "repeats", 1..=100, s.repeats)?;
        let resolution = int_in(
            &self.resolution,
            "resolution",
            256..=2048,
            default_resolution(family),
        )?;
        if !RESOLUTIONS.contains(&resolution) {
            return Err("resolution is 512, 768 or 1024".into());
        }
        let network_dim = int_in(&self.network_dim, "network_dim", 1..=128, s.network_dim)?;
        let network_alpha = match num(&self.network_alpha, "network_alpha")? {
            None => network_dim as f32 / 2.0,
            Some(a) if a > 0.0 && a <= f64::from(network_dim) => a as f32,
            Some(_) => return Err("network_alpha is above 0 and at most network_dim".into()),
        };
        let learning_rate = match num(&self.learning_rate, "learning_rate")? {
            None => s.learning_rate,
            Some(lr) if lr > 0.0 && lr <= 0.01 && lr.is_finite() => lr,
            Some(_) => return Err("learning_rate is above 0 and at most 0.01".into()),
        };
        let batch_size = int_in(&self.batch_size, "batch_size", 1..=8, 1)?;
        let optimizer = match self.optimizer.as_deref().map(str::trim) {
            None | Some("") => "AdamW8bit".to_string(),
            Some(o) => OPTIMIZERS
                .iter()
                .find(|k| k.eq_ignore_ascii_case(o))
                .map(|k| (*k).to_string())
                .ok_or_else(|| format!("optimizer is one of {}", OPTIMIZERS.join(", ")))?,
        };
        let trigger_word = match self.trigger_word.as_deref() {
            Some(w) if !w.trim().is_empty() => check_trigger_word(w)?,
            _ => trigger_from_name(default_trigger),
        };
        let seed = match num(&self.seed, "seed")? {
            None => 42,
            Some(x) if x >= 0.0 && x.fract() == 0.0 && x < 4_294_967_296.0 => x as u64,
            Some(_) => return Err("seed is a whole number from 0 to 4294967295".into()),
        };
        let p = TrainParams {
            epochs,
            repeats,
            resolution,
            network_dim,
            network_alpha,
            learning_rate,
            batch_size,
            optimizer,
            trigger_word,
            seed,
        };
        if total_steps(images, &p) > MAX_STEPS {
            return Err(format!(
                "{} steps is more than {MAX_STEPS}: lower epochs or repeats",
                total_steps(images, &p)
            ));
        }
        Ok(p)
    }
}

/// Optimiser steps for `images` pictures (see the module doc).
pub fn total_steps(images: usize, p: &TrainParams) -> u32 {
    let per_epoch = (images as u64)
        .saturating_mul(u64::from(p.repeats))
        .div_ceil(u64::from(p.batch_size.max(1)));
    u32::try_from(per_epoch.saturating_mul(u64::from(p.epochs))).unwrap_or(u32::MAX)
}

fn resolution_factor(resolution: u32) -> i64 {
    match resolution {
        0..=512 => 1,
        513..=768 => 2,
        _ => 3,
    }
}

fn family_factor(family: &str) -> i64 {
    match family {
        family_ids::SD => 1,
        family_ids::FLUX | family_ids::SD35 | family_ids::HIDREAM => 4,
        _ => 2,
    }
}

/// Credits of a training (see the module doc).
pub fn train_cost(family: &str, steps: u32, resolution: u32) -> i64 {
    5 + i64::from(steps.div_ceil(100))
        .saturating_mul(resolution_factor(resolution))
        .saturating_mul(family_factor(family))
}

/// Expected seconds on a GPU trainer (see the module doc).
pub fn train_estimate_secs(family: &str, steps: u32, resolution: u32) -> u32 {
    let f = (resolution_factor(resolution) * family_factor(family)) as f64;
    (30.0 + f64::from(steps) * 0.4 * f)
        .ceil()
        .min(f64::from(u32::MAX)) as u32
}

/// What a training job carries (`JobSpec::train`): the dataset's images are
/// the job's `Init` inputs, in the order of `captions`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainSpec {
    /// The family the LoRA is for (catalogue id).
    pub family: String,
    /// The base checkpoint's `model_ver_no` (or its file name for kohya).
    pub base_model: String,
    pub kind: DatasetKind,
    /// The model's name (kohya's `output_name`, the file's title).
    pub name: String,
    pub params: TrainParams,
    /// One caption per image.
    pub captions: Vec<String>,
}

impl TrainSpec {
    pub fn steps(&self) -> u32 {
        total_steps(self.captions.len(), &self.params)
    }
    pub fn cost(&self) -> i64 {
        train_cost(&self.family, self.steps(), self.params.resolution)
    }
    pub fn estimate_secs(&self) -> u32 {
        train_estimate_secs(&self.family, self.steps(), self.params.resolution)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn input(v: serde_json::Value) -> TrainParamsInput {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn defaults_come_from_the_kind_and_family() {
        let p = input(json!({}))
            .check(DatasetKind::Style, "sdxl", 8, "Red Dust")
            .unwrap();
        assert_eq!((p.epochs, p.repeats, p.network_dim), (10, 5, 16));
        assert_eq!(p.resolution, 1024);
        assert_eq!(p.network_alpha, 8.0);
        assert_eq!(p.trigger_word, "red_dust");
        assert_eq!(total_steps(8, &p), 400);
        let sd = input(json!({}))
            .check(DatasetKind::Character, "sd", 8, "x")
            .unwrap();
        assert_eq!(sd.resolution, 512);
    }

    #[test]
    fn bad_parameters_are_refused_with_a_reason() {
        let bad = [
            json!({"epochs": 0}),
            json!({"epochs": 1.5}),
            json!({"repeats": "many"}),
            json!({"resolution": 640}),
            json!({"network_dim": 512}),
            json!({"network_dim": 8, "network_alpha": 16}),
            json!({"learning_rate": 0.5}),
            json!({"learning_rate": -1}),
            json!({"optimizer": "sgd-magic"}),
            json!({"trigger_word": "a, b"}),
            json!({"trigger_word": "x".repeat(41)}),
            json!({"epochs": 100, "repeats": 100}),
            json!({"batch_size": [1]}),
        ];
        for b in bad {
            let r = input(b.clone()).check(DatasetKind::Style, "sdxl", 200, "n");
            assert!(r.is_err(), "{b} passed");
        }
        let ok = input(
            json!({"epochs": "4", "repeats": 2, "learning_rate": "0.0005",
            "optimizer": "prodigy", "trigger_word": " zx9 "}),
        )
        .check(DatasetKind::Style, "sdxl", 8, "n")
        .unwrap();
        assert_eq!(ok.optimizer, "Prodigy");
        assert_eq!(ok.trigger_word, "zx9");
        assert_eq!(ok.learning_rate, 0.0005);
    }

    #[test]
    fn the_credit_table_is_the_documented_one() {
        // 5 + ceil(steps/100) * resolution factor * family factor.
        assert_eq!(train_cost("sd", 100, 512), 6);
        assert_eq!(train_cost("sd", 101, 512), 7);
        assert_eq!(train_cost("sdxl", 400, 1024), 5 + 4 * 3 * 2);
        assert_eq!(train_cost("flux", 1000, 768), 5 + 10 * 2 * 4);
        assert_eq!(train_cost("il", 0, 1024), 5);
        assert_eq!(train_estimate_secs("sd", 100, 512), 70);
    }

    #[test]
    fn steps_follow_kohya() {
        let mut p = input(json!({"epochs": 3, "repeats": 5, "batch_size": 2}))
            .check(DatasetKind::Style, "sd", 7, "n")
            .unwrap();
        assert_eq!(total_steps(7, &p), 18 * 3);
        p.batch_size = 1;
        assert_eq!(total_steps(7, &p), 105);
    }

    #[test]
    fn kinds_and_triggers() {
        for k in DatasetKind::ALL {
            assert_eq!(DatasetKind::parse(k.as_str()), Some(k));
            let t = k.template();
            assert!(t.example_caption.contains(','));
        }
        assert_eq!(trigger_from_name("  ***  "), "easel_style");
        assert_eq!(trigger_from_name("Ünïcode Style 2"), "ünïcode_style_2");
        assert!(check_trigger_word("ok word").is_ok());
    }
}
