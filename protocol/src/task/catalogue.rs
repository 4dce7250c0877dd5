//! The model catalogue: base model families with their size limits (spec 3
//! §9 "Image size presets"), checkpoints, LoRAs, starter artworks, the
//! aspect options with their width/height pairs per family (spec 3 §3 "Image
//! size option"), studio presets, samplers, upscalers, control modules and the
//! generation-param defaults; plus the size checks of spec 1 §5 as pure
//! functions. Served as JSON by `config/model`, `config/generation-param` and
//! `model-rec`; [`super::rules::prepare`] resolves every model id against it.
//!
//! How the aspect sizes are made: the spec's example sizes are pinned
//! exactly (1:1 is 768 for sd, 1024 for sdxl, 1024/1536 for flux, 1472/2048
//! for SeaDream; 16:9 is 768x432 for sd and 1440x810 for sdxl). Every other
//! pair is derived by [`Sizing`]: sd keeps its long side (768 standard, 1024
//! quality, which reproduces the sd examples); the other families keep their
//! area (the 1:1 side squared), the long side rounded to a multiple of 16
//! and capped at the family's maximum, the short side rounded to a multiple
//! of 8. 21:9 exists only for sd and SeaDream.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::codes::Category;
use super::defaults::{category_defaults, GenerationDefaults};

/// Family identifiers as they appear in `JobSpec::family` and LoRA `base_model`.
pub mod family_ids {
    pub const SDXL: &str = "sdxl";
    pub const SD: &str = "sd";
    pub const FLUX: &str = "flux";
    pub const SD35: &str = "sd3.5";
    pub const HIDREAM: &str = "hidream";
    pub const SEADREAM: &str = "seadream";
    pub const IL: &str = "il";
    pub const IL3: &str = "il3";
    /// The family of upscale jobs: their `model` is the upscaler's name.
    pub const UPSCALER: &str = "upscaler";
}

/// Said wherever the catalogue is served, so nobody mistakes the names for
/// weights this server ships.
pub const ENGINE_NOTE: &str = "Easel's built-in engine is a non-neural reference engine: it makes pictures with classical \
image algorithms and ships no model weights. The checkpoint, LoRA and upscaler names below are routed by model family \
to the engines the operator configures (ComfyUI, stable-diffusion.cpp, an OpenAI-compatible API); without one, the \
reference engine serves them and labels its outputs as such.";

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

const fn size(width: u32, height: u32) -> Size {
    Size { width, height }
}

/// Spec 3 §3 "Image size limits": a min and a max side and an aspect-ratio
/// range. `max` is the largest side the family generates natively (the
/// spec's figure, and the cap of the standard sizes); `quality_max` the
/// largest the server accepts, reached by the family's quality sizes through
/// the hi-res pass (e.g. Flux: 1024 native, 1536 quality).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SizeLimits {
    /// Smallest side.
    pub min: u32,
    /// Smallest long side. Spec 1 §9 gives SD-type sizes as 512-1024, yet
    /// spec 3 §9's own sd 16:9 size is 768x432: so for sd a side may go down
    /// to 320 (21:9 at 768 wide) while the long side stays at least 512.
    /// For the other families it equals `min`.
    pub min_long: u32,
    pub max: u32,
    pub quality_max: u32,
    /// Width / height bounds, compared to two decimals (spec 1 §5).
    pub ratio_min: f64,
    pub ratio_max: f64,
}

/// Ratio bounds of the families with 21:9 (9:21 = 0.43 to 21:9 = 2.33, with
/// room for sizes rounded to multiples of 8).
const RATIO_WIDE: (f64, f64) = (0.42, 2.4);
/// Ratio bounds of the others (1:2 to 2:1).
const RATIO_NORMAL: (f64, f64) = (0.5, 2.0);

/// The studio mode's limits (spec 1 §9: min 768, max 1536).
pub const STUDIO_LIMITS: SizeLimits = SizeLimits {
    min: 768,
    min_long: 768,
    max: 1536,
    quality_max: 1536,
    ratio_min: RATIO_NORMAL.0,
    ratio_max: RATIO_NORMAL.1,
};

/// Why a size is refused (spec 1 §5 "Image size checks").
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("a side is below the minimum")]
    TooSmall,
    #[error("a side is above the maximum")]
    TooLarge,
    #[error("the aspect ratio is out of range")]
    RatioInvalid,
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Spec 1 §5: too small when a side is below the minimum (or the long side
/// below `min_long`), too large when one
/// exceeds the maximum (here `quality_max`), and the ratio (two decimals)
/// outside the range.
pub fn check_size(width: u32, height: u32, limits: &SizeLimits) -> Result<(), SizeError> {
    if width < limits.min || height < limits.min || width.max(height) < limits.min_long {
        return Err(SizeError::TooSmall);
    }
    if width > limits.quality_max || height > limits.quality_max {
        return Err(SizeError::TooLarge);
    }
    let ratio = round2(f64::from(width) / f64::from(height));
    if ratio < round2(limits.ratio_min) || ratio > round2(limits.ratio_max) {
        return Err(SizeError::RatioInvalid);
    }
    Ok(())
}

/// Spec 1 §5 / spec 3 §5: a size matches an aspect option when
/// `|width/ratio_w - height/ratio_h| < 5`.
pub fn aspect_match(width: u32, height: u32, ratio_w: u32, ratio_h: u32) -> bool {
    if ratio_w == 0 || ratio_h == 0 {
        return false;
    }
    (f64::from(width) / f64::from(ratio_w) - f64::from(height) / f64::from(ratio_h)).abs() < 5.0
}

/// Scales a size down so that neither side exceeds `max_side`, keeping the
/// aspect ratio (spec 1 §5 "Image resizing keeps the aspect ratio with a
/// maximum side"); sides are rounded to multiples of 8, at least 8.
pub fn fit_max_side(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= max_side || long == 0 {
        return (width, height);
    }
    let scale = f64::from(max_side) / f64::from(long);
    let fit = |v: u32| -> u32 {
        let scaled = ((f64::from(v) * scale / 8.0).round() as u32).max(1) * 8;
        scaled.min(max_side)
    };
    (fit(width), fit(height))
}

/// How a family's aspect sizes are derived (see the module doc).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "side")]
pub enum Sizing {
    /// The long side is fixed.
    LongSide(u32),
    /// The area is `side * side`.
    Area(u32),
}

impl Sizing {
    /// The size for ratio `rw:rh`, the long side capped at `cap`.
    pub fn derive(self, rw: u32, rh: u32, cap: u32) -> Size {
        let (big, small) = (f64::from(rw.max(rh)), f64::from(rw.min(rh).max(1)));
        let long = match self {
            Sizing::LongSide(l) => l,
            Sizing::Area(s) => ((f64::from(s) * (big / small).sqrt() / 16.0).round() as u32) * 16,
        }
        .min(cap);
        let short = ((f64::from(long) * small / big / 8.0).round() as u32) * 8;
        if rw >= rh {
            size(long, short)
        } else {
            size(short, long)
        }
    }
}

/// A base model family (spec 3 §9).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Family {
    pub id: String,
    pub name: String,
    /// Base models of the family (spec 3 §9's list, e.g. `SDXL 1.0`, `Pony`).
    pub variants: Vec<String>,
    /// Spec 1 §9 base model code: sdxl 5 (the SDXL-architecture families
    /// sdxl, IL and IL3), default 1 for the others.
    pub base_model_code: u16,
    pub limits: SizeLimits,
    pub default_size: Size,
    pub standard: Sizing,
    pub quality: Sizing,
    /// Whether the 21:9 / 9:21 options exist for this family.
    pub wide: bool,
}

/// A checkpoint a user can pick.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub model_no: String,
    /// Stable version id: what `art_model_ver_no` names and `JobSpec::model` carries.
    pub model_ver_no: String,
    pub name: String,
    pub family: String,
    /// The family variant (`SDXL 1.0`, `Pony`, `SD 1.5`, ...).
    pub variant: String,
    /// Base model code (spec 1 §9).
    pub base_model: u16,
    /// The creative mode it belongs to (1 normal, 5 sdxl, 7 studio).
    pub category: Category,
    pub default_size: Size,
    /// The checkpoint used when its category is chosen without a model.
    pub is_default: bool,
}

/// A LoRA entry (spec 3 §3 "Lora and embedding entries").
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lora {
    pub model_id: String,
    pub model_ver_no: String,
    pub name: String,
    /// The family it was trained on.
    pub base_model: String,
    pub weight: f32,
    pub trained_words: Vec<String>,
}

/// A starter artwork: a published look the SIMPLE tab starts from.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Artwork {
    pub art_work_no: String,
    pub name: String,
    pub model_ver_no: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    /// Portrait, and square.
    Vertical,
    Horizontal,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FamilySize {
    pub family: String,
    pub standard: Size,
    pub quality: Size,
}

/// An aspect option (spec 3 §3 "Image size option", §9 aspect codes).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AspectOption {
    pub code: u16,
    /// `2:3`, ... or `custom`.
    pub label: String,
    pub ratio_w: u32,
    pub ratio_h: u32,
    pub orientation: Orientation,
    pub icon: String,
    /// Empty for `custom` (5).
    pub sizes: Vec<FamilySize>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudioPreset {
    pub label: String,
    pub width: u32,
    pub height: u32,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampler {
    /// The short id some clients send (`euler_a`).
    pub id: String,
    pub name: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Upscaler {
    pub name: String,
    pub is_default: bool,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaseModelCode {
    pub name: String,
    pub code: u16,
}

/// Everything a user can pick, served as JSON.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Catalogue {
    pub engine_note: String,
    pub base_model_codes: Vec<BaseModelCode>,
    pub families: Vec<Family>,
    pub checkpoints: Vec<Checkpoint>,
    pub loras: Vec<Lora>,
    pub artworks: Vec<Artwork>,
    pub aspects: Vec<AspectOption>,
    pub studio_presets: Vec<StudioPreset>,
    pub samplers: Vec<Sampler>,
    pub upscalers: Vec<Upscaler>,
    /// Control-net preprocessors and studio condition modes.
    pub control_modules: Vec<String>,
    /// Defaults per creative mode (normal, sdxl, studio).
    pub generation_params: Vec<GenerationDefaults>,
}

impl Catalogue {
    pub fn family(&self, id: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.id == id)
    }
    /// By `model_ver_no`.
    pub fn checkpoint(&self, model_ver_no: &str) -> Option<&Checkpoint> {
        self.checkpoints
            .iter()
            .find(|c| c.model_ver_no == model_ver_no)
    }
    /// The first (newest listed) version of a model.
    pub fn checkpoint_by_model_no(&self, model_no: &str) -> Option<&Checkpoint> {
        self.checkpoints.iter().find(|c| c.model_no == model_no)
    }
    /// The default checkpoint of a creative mode (2 and 3 use normal's).
    pub fn default_checkpoint(&self, category: Category) -> Option<&Checkpoint> {
        let want = match category.canonical() {
            Category::Sdxl => Category::Sdxl,
            Category::Studio => Category::Studio,
            _ => Category::Normal,
        };
        self.checkpoints
            .iter()
            .find(|c| c.is_default && c.category == want)
    }
    pub fn artwork(&self, art_work_no: &str) -> Option<&Artwork> {
        self.artworks.iter().find(|a| a.art_work_no == art_work_no)
    }
    /// By `model_ver_no`, else by `model_id`.
    pub fn lora(&self, id: &str) -> Option<&Lora> {
        self.loras
            .iter()
            .find(|l| l.model_ver_no == id)
            .or_else(|| self.loras.iter().find(|l| l.model_id == id))
    }
    /// By id or name, case-insensitively.
    pub fn sampler(&self, name: &str) -> Option<&Sampler> {
        let name = name.trim();
        self.samplers
            .iter()
            .find(|s| s.id.eq_ignore_ascii_case(name) || s.name.eq_ignore_ascii_case(name))
    }
    pub fn upscaler(&self, name: &str) -> Option<&Upscaler> {
        let name = name.trim();
        self.upscalers
            .iter()
            .find(|u| u.name.eq_ignore_ascii_case(name))
    }
    pub fn default_upscaler(&self) -> Option<&Upscaler> {
        self.upscalers.iter().find(|u| u.is_default)
    }
    pub fn control_module(&self, name: &str) -> Option<&str> {
        let name = name.trim();
        self.control_modules
            .iter()
            .find(|m| m.eq_ignore_ascii_case(name))
            .map(String::as_str)
    }
    pub fn aspect(&self, code: u16) -> Option<&AspectOption> {
        self.aspects.iter().find(|a| a.code == code)
    }
    /// The width/height of aspect `code` for `family`.
    pub fn aspect_size(&self, code: u16, family: &str, quality: bool) -> Option<Size> {
        let s = self
            .aspect(code)?
            .sizes
            .iter()
            .find(|s| s.family == family)?;
        Some(if quality { s.quality } else { s.standard })
    }
    /// The defaults of a creative mode as served.
    pub fn generation_param(&self, category: Category) -> Option<&GenerationDefaults> {
        let c = category_defaults(category).category;
        self.generation_params.iter().find(|g| g.category == c)
    }
}

/// The catalogue, built once.
pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(build)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

fn families() -> Vec<Family> {
    use family_ids::*;
    // (id, name, variants, code, (min, min_long), max, quality_max, wide, default, standard, quality)
    type Row = (
        &'static str,
        &'static str,
        &'static [&'static str],
        u16,
        (u32, u32),
        u32,
        u32,
        bool,
        Size,
        Sizing,
        Sizing,
    );
    let rows: [Row; 8] = [
        (
            SDXL,
            "SDXL",
            &[
                "SDXL 1.0",
                "SDXL 0.9",
                "SDXL Turbo",
                "SDXL 1.0 LCM",
                "SDXL Lightning",
                "Pony",
                "SDXL Hyper",
            ],
            5,
            (512, 512),
            1536,
            1536,
            false,
            size(832, 1216),
            Sizing::Area(1024),
            Sizing::Area(1536),
        ),
        (
            SD,
            "SD",
            &[
                "SD 1.5",
                "SD 2.0",
                "SD 1.4",
                "SD 2.1",
                "SD 2.1 768",
                "SD 2.0 768",
                "SD 1.5 LCM",
                "Other",
                "SD 3",
            ],
            1,
            (320, 512),
            1024,
            1024,
            true,
            size(624, 936),
            Sizing::LongSide(768),
            Sizing::LongSide(1024),
        ),
        (
            FLUX,
            "Flux",
            &["Flux.1 D", "Flux.1 S"],
            1,
            (384, 384),
            1024,
            1536,
            false,
            size(688, 1024),
            Sizing::Area(1024),
            Sizing::Area(1536),
        ),
        (
            SD35,
            "SD 3.5",
            &["SD 3.5 Large", "SD 3.5 Large Turbo", "SD 3.5 Medium"],
            1,
            (512, 512),
            1536,
            1536,
            false,
            size(832, 1216),
            Sizing::Area(1024),
            Sizing::Area(1536),
        ),
        (
            HIDREAM,
            "HiDream",
            &["HiDream I1 Full", "HiDream I1 Dev", "HiDream I1 Fast"],
            1,
            (512, 512),
            1536,
            2048,
            false,
            size(832, 1216),
            Sizing::Area(1024),
            Sizing::Area(1536),
        ),
        (
            SEADREAM,
            "SeaDream",
            &["SeaDream 3.0", "SeaDream 4.0"],
            1,
            (512, 512),
            2048,
            2048,
            true,
            size(1208, 1808),
            Sizing::Area(1472),
            Sizing::Area(2048),
        ),
        (
            IL,
            "Illustrious (IL)",
            &["Illustrious 0.1", "Illustrious 1.0", "NoobAI"],
            5,
            (512, 512),
            1536,
            1536,
            false,
            size(832, 1216),
            Sizing::Area(1024),
            Sizing::Area(1536),
        ),
        (
            IL3,
            "Illustrious 3 (IL3)",
            &["Illustrious 3.0", "Illustrious 3.5"],
            5,
            (768, 768),
            2048,
            2048,
            false,
            size(1024, 1536),
            Sizing::Area(1536),
            Sizing::Area(2048),
        ),
    ];
    rows.into_iter()
        .map(
            |(
                id,
                name,
                variants,
                code,
                (min, min_long),
                max,
                quality_max,
                wide,
                default_size,
                standard,
                quality,
            )| {
                let (ratio_min, ratio_max) = if wide { RATIO_WIDE } else { RATIO_NORMAL };
                Family {
                    id: id.into(),
                    name: name.into(),
                    variants: strings(variants),
                    base_model_code: code,
                    limits: SizeLimits {
                        min,
                        min_long,
                        max,
                        quality_max,
                        ratio_min,
                        ratio_max,
                    },
                    default_size,
                    standard,
                    quality,
                    wide,
                }
            },
        )
        .collect()
}

/// The spec's example sizes, pinned: (aspect code, family, standard, quality).
/// `None` keeps the derived pair.
fn pinned(code: u16, family: &str) -> (Option<Size>, Option<Size>) {
    use family_ids::*;
    match (code, family) {
        (2, SD) => (Some(size(768, 768)), None),
        (2, SDXL) => (Some(size(1024, 1024)), None),
        (2, FLUX) => (Some(size(1024, 1024)), Some(size(1536, 1536))),
        (2, SEADREAM) => (Some(size(1472, 1472)), Some(size(2048, 2048))),
        (12, SD) => (Some(size(768, 432)), None),
        (12, SDXL) => (Some(size(1440, 810)), None),
        // 9:16 mirrors the spec's 16:9.
        (3, SDXL) => (Some(size(810, 1440)), None),
        _ => (None, None),
    }
}

/// Aspect codes (spec 3 §9): (code, ratio_w, ratio_h); 5 is custom.
pub const ASPECT_CODES: [(u16, u32, u32); 13] = [
    (1, 2, 3),
    (2, 1, 1),
    (3, 9, 16),
    (4, 4, 3),
    (5, 0, 0),
    (6, 1, 2),
    (7, 3, 4),
    (8, 4, 5),
    (9, 5, 4),
    (11, 3, 2),
    (12, 16, 9),
    (13, 2, 1),
    (14, 21, 9),
];

fn aspects(families: &[Family]) -> Vec<AspectOption> {
    ASPECT_CODES
        .iter()
        .map(|&(code, rw, rh)| {
            let custom = rw == 0;
            let sizes = if custom {
                Vec::new()
            } else {
                families
                    .iter()
                    .filter(|f| f.wide || code != 14)
                    .map(|f| {
                        let (ps, pq) = pinned(code, &f.id);
                        FamilySize {
                            family: f.id.clone(),
                            standard: ps.unwrap_or_else(|| f.standard.derive(rw, rh, f.limits.max)),
                            quality: pq
                                .unwrap_or_else(|| f.quality.derive(rw, rh, f.limits.quality_max)),
                        }
                    })
                    .collect()
            };
            AspectOption {
                code,
                label: if custom {
                    "custom".into()
                } else {
                    format!("{rw}:{rh}")
                },
                ratio_w: rw,
                ratio_h: rh,
                orientation: if rw > rh {
                    Orientation::Horizontal
                } else {
                    Orientation::Vertical
                },
                icon: if custom {
                    "aspect-custom".into()
                } else {
                    format!("aspect-{rw}-{rh}")
                },
                sizes,
            }
        })
        .collect()
}

/// Studio presets (spec 1 §9), sized like the studio default (about one
/// megapixel, within the studio's 768..1536).
fn studio_presets() -> Vec<StudioPreset> {
    [
        (9, 7),
        (7, 9),
        (3, 4),
        (4, 3),
        (19, 13),
        (13, 19),
        (16, 9),
        (9, 16),
    ]
    .into_iter()
    .map(|(rw, rh)| {
        let s = Sizing::Area(1024).derive(rw, rh, STUDIO_LIMITS.max);
        StudioPreset {
            label: format!("{rw}:{rh}"),
            width: s.width,
            height: s.height,
        }
    })
    .collect()
}

#[allow(clippy::too_many_arguments)]
fn ckpt(
    model_no: &str,
    ver: &str,
    name: &str,
    family: &str,
    variant: &str,
    category: Category,
    families: &[Family],
    is_default: bool,
) -> Checkpoint {
    let fam = families.iter().find(|f| f.id == family);
    let base_model = if category.is_studio() {
        7
    } else {
        fam.map_or(1, |f| f.base_model_code)
    };
    Checkpoint {
        model_no: model_no.into(),
        model_ver_no: ver.into(),
        name: name.into(),
        family: family.into(),
        variant: variant.into(),
        base_model,
        category,
        default_size: if category.is_studio() {
            size(832, 1216)
        } else {
            fam.map_or(size(688, 1024), |f| f.default_size)
        },
        is_default,
    }
}

fn checkpoints(families: &[Family]) -> Vec<Checkpoint> {
    use family_ids::*;
    use Category::{Normal, Sdxl, Studio};
    let f = families;
    vec![
        ckpt(
            "sd15",
            "sd15-v1",
            "Stable Diffusion 1.5",
            SD,
            "SD 1.5",
            Normal,
            f,
            true,
        ),
        ckpt(
            "dreamshaper",
            "dreamshaper-8",
            "DreamShaper 8",
            SD,
            "SD 1.5",
            Normal,
            f,
            false,
        ),
        ckpt(
            "realistic-vision",
            "realistic-vision-5.1",
            "Realistic Vision 5.1",
            SD,
            "SD 1.5",
            Normal,
            f,
            false,
        ),
        ckpt(
            "sd21",
            "sd21-768",
            "Stable Diffusion 2.1 768",
            SD,
            "SD 2.1 768",
            Normal,
            f,
            false,
        ),
        ckpt(
            "flux-schnell",
            "flux-schnell-1",
            "FLUX.1 [schnell]",
            FLUX,
            "Flux.1 S",
            Normal,
            f,
            false,
        ),
        ckpt(
            "flux-dev",
            "flux-dev-1",
            "FLUX.1 [dev]",
            FLUX,
            "Flux.1 D",
            Normal,
            f,
            false,
        ),
        ckpt(
            "sd35-large",
            "sd35-large-1",
            "Stable Diffusion 3.5 Large",
            SD35,
            "SD 3.5 Large",
            Normal,
            f,
            false,
        ),
        ckpt(
            "sd35-medium",
            "sd35-medium-1",
            "Stable Diffusion 3.5 Medium",
            SD35,
            "SD 3.5 Medium",
            Normal,
            f,
            false,
        ),
        ckpt(
            "hidream-full",
            "hidream-i1-full",
            "HiDream I1 Full",
            HIDREAM,
            "HiDream I1 Full",
            Normal,
            f,
            false,
        ),
        ckpt(
            "hidream-fast",
            "hidream-i1-fast",
            "HiDream I1 Fast",
            HIDREAM,
            "HiDream I1 Fast",
            Normal,
            f,
            false,
        ),
        ckpt(
            "seadream",
            "seadream-3",
            "SeaDream 3.0",
            SEADREAM,
            "SeaDream 3.0",
            Normal,
            f,
            false,
        ),
        ckpt(
            "sdxl-base",
            "sdxl-base-1.0",
            "SDXL 1.0 Base",
            SDXL,
            "SDXL 1.0",
            Sdxl,
            f,
            true,
        ),
        ckpt(
            "juggernaut-xl",
            "juggernaut-xl-9",
            "Juggernaut XL 9",
            SDXL,
            "SDXL 1.0",
            Sdxl,
            f,
            false,
        ),
        ckpt(
            "sdxl-turbo",
            "sdxl-turbo-1",
            "SDXL Turbo",
            SDXL,
            "SDXL Turbo",
            Sdxl,
            f,
            false,
        ),
        ckpt(
            "pony-xl",
            "pony-xl-6",
            "Pony Diffusion V6 XL",
            SDXL,
            "Pony",
            Sdxl,
            f,
            false,
        ),
        ckpt(
            "illustrious-xl",
            "illustrious-xl-1.0",
            "Illustrious XL 1.0",
            IL,
            "Illustrious 1.0",
            Sdxl,
            f,
            false,
        ),
        ckpt(
            "noobai-xl",
            "noobai-xl-1.1",
            "NoobAI XL 1.1",
            IL,
            "NoobAI",
            Sdxl,
            f,
            false,
        ),
        ckpt(
            "illustrious-xl-3",
            "illustrious-xl-3.0",
            "Illustrious XL 3.0",
            IL3,
            "Illustrious 3.0",
            Sdxl,
            f,
            false,
        ),
        ckpt(
            "studio-enhance",
            "studio-enhance-xl-1",
            "Studio Enhance XL",
            SDXL,
            "SDXL 1.0",
            Studio,
            f,
            true,
        ),
        ckpt(
            "studio-anime",
            "studio-anime-xl-1",
            "Studio Anime XL",
            SDXL,
            "SDXL 1.0",
            Studio,
            f,
            false,
        ),
        ckpt(
            "studio-illustrious",
            "studio-il-1",
            "Studio Illustrious",
            IL,
            "Illustrious 1.0",
            Studio,
            f,
            false,
        ),
    ]
}

fn lora(id: &str, ver: &str, name: &str, family: &str, words: &[&str]) -> Lora {
    Lora {
        model_id: id.into(),
        model_ver_no: ver.into(),
        name: name.into(),
        base_model: family.into(),
        weight: 1.0,
        trained_words: strings(words),
    }
}

fn loras() -> Vec<Lora> {
    use family_ids::*;
    vec![
        lora(
            "detail-tweaker",
            "detail-tweaker-1",
            "Detail Tweaker",
            SD,
            &[],
        ),
        lora(
            "lineart-sd",
            "lineart-sd-1",
            "Anime Lineart",
            SD,
            &["lineart", "monochrome"],
        ),
        lora(
            "watercolor-sd",
            "watercolor-sd-1",
            "Watercolor",
            SD,
            &["watercolor"],
        ),
        lora(
            "more-details-xl",
            "more-details-xl-1",
            "Add More Details XL",
            SDXL,
            &[],
        ),
        lora(
            "pixel-art-xl",
            "pixel-art-xl-1",
            "Pixel Art XL",
            SDXL,
            &["pixel art"],
        ),
        lora(
            "watercolor-xl",
            "watercolor-xl-1",
            "Watercolor XL",
            SDXL,
            &["watercolor"],
        ),
        lora(
            "papercut-xl",
            "papercut-xl-1",
            "Papercut XL",
            SDXL,
            &["papercut"],
        ),
        lora(
            "flux-realism",
            "flux-realism-1",
            "Flux Realism",
            FLUX,
            &["realistic"],
        ),
        lora(
            "flux-sketch",
            "flux-sketch-1",
            "Flux Pencil Sketch",
            FLUX,
            &["pencil sketch"],
        ),
        lora(
            "il-sketch",
            "il-sketch-1",
            "Illustrious Sketch Style",
            IL,
            &["sketch"],
        ),
        lora(
            "sd35-film",
            "sd35-film-1",
            "SD 3.5 Film Grain",
            SD35,
            &["film grain"],
        ),
    ]
}

fn build() -> Catalogue {
    let families = families();
    let checkpoints = checkpoints(&families);
    Catalogue {
        engine_note: ENGINE_NOTE.into(),
        base_model_codes: [
            ("v5", 1),
            ("v6", 2),
            ("midjourney", 3),
            ("sdxl", 5),
            ("hy21", 6),
            ("studio", 7),
        ]
        .into_iter()
        .map(|(name, code)| BaseModelCode {
            name: name.into(),
            code,
        })
        .collect(),
        aspects: aspects(&families),
        checkpoints,
        loras: loras(),
        artworks: vec![
            Artwork {
                art_work_no: "starter-portrait".into(),
                name: "Soft portrait".into(),
                model_ver_no: "sd15-v1".into(),
            },
            Artwork {
                art_work_no: "starter-anime".into(),
                name: "Anime scene".into(),
                model_ver_no: "illustrious-xl-1.0".into(),
            },
            Artwork {
                art_work_no: "starter-landscape".into(),
                name: "Cinematic landscape".into(),
                model_ver_no: "sdxl-base-1.0".into(),
            },
        ],
        families,
        studio_presets: studio_presets(),
        samplers: [
            ("dpmpp_2m_karras", "DPM++ 2M Karras"),
            ("dpmpp_2m_sde_karras", "DPM++ 2M SDE Karras"),
            ("dpmpp_sde_karras", "DPM++ SDE Karras"),
            ("euler", "Euler"),
            ("euler_a", "Euler a"),
            ("heun", "Heun"),
            ("dpm2", "DPM2"),
            ("ddim", "DDIM"),
            ("unipc", "UniPC"),
            ("lcm", "LCM"),
        ]
        .into_iter()
        .map(|(id, name)| Sampler {
            id: id.into(),
            name: name.into(),
        })
        .collect(),
        upscalers: [
            ("4x-UltraSharp", true),
            ("R-ESRGAN 4x+", false),
            ("R-ESRGAN 4x+ Anime6B", false),
            ("Lanczos", false),
        ]
        .into_iter()
        .map(|(name, is_default)| Upscaler {
            name: name.into(),
            is_default,
        })
        .collect(),
        control_modules: strings(&[
            "none",
            "canny",
            "depth",
            "openpose",
            "lineart",
            "scribble",
            "softedge",
            "tile",
            "image_prompt",
            "pyracanny",
            "cpds",
        ]),
        generation_params: [Category::Normal, Category::Sdxl, Category::Studio]
            .into_iter()
            .map(category_defaults)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aspect_codes_are_the_specs() {
        let c = catalogue();
        let want = [
            (1, "2:3"),
            (2, "1:1"),
            (3, "9:16"),
            (4, "4:3"),
            (5, "custom"),
            (6, "1:2"),
            (7, "3:4"),
            (8, "4:5"),
            (9, "5:4"),
            (11, "3:2"),
            (12, "16:9"),
            (13, "2:1"),
            (14, "21:9"),
        ];
        assert_eq!(c.aspects.len(), want.len());
        for (code, label) in want {
            let a = c.aspect(code).unwrap();
            assert_eq!(a.label, label);
            assert_eq!(a.sizes.is_empty(), code == 5, "{label}");
        }
        assert!(c.aspect(10).is_none());
        assert_eq!(c.aspect(12).unwrap().orientation, Orientation::Horizontal);
        assert_eq!(c.aspect(1).unwrap().orientation, Orientation::Vertical);
    }

    #[test]
    fn the_specs_example_sizes() {
        let c = catalogue();
        // (code, family, quality, width, height)
        let table = [
            (2, "sd", false, 768, 768),
            (2, "sdxl", false, 1024, 1024),
            (2, "flux", false, 1024, 1024),
            (2, "flux", true, 1536, 1536),
            (2, "seadream", false, 1472, 1472),
            (2, "seadream", true, 2048, 2048),
            (12, "sd", false, 768, 432),
            (12, "sdxl", false, 1440, 810),
        ];
        for (code, fam, q, w, h) in table {
            assert_eq!(
                c.aspect_size(code, fam, q),
                Some(size(w, h)),
                "{code} {fam} {q}"
            );
        }
    }

    #[test]
    fn wide_exists_only_for_sd_and_seadream() {
        let c = catalogue();
        let fams: Vec<&str> = c
            .aspect(14)
            .unwrap()
            .sizes
            .iter()
            .map(|s| s.family.as_str())
            .collect();
        assert_eq!(fams, ["sd", "seadream"]);
        for f in ["sdxl", "flux", "sd3.5", "hidream", "il", "il3"] {
            assert!(c.aspect_size(14, f, false).is_none(), "{f}");
        }
    }

    #[test]
    fn every_preset_fits_its_family_and_matches_its_ratio() {
        let c = catalogue();
        for a in c.aspects.iter().filter(|a| a.code != 5) {
            for s in &a.sizes {
                let f = c.family(&s.family).unwrap();
                for (sz, cap) in [
                    (s.standard, f.limits.max),
                    (s.quality, f.limits.quality_max),
                ] {
                    assert!(
                        aspect_match(sz.width, sz.height, a.ratio_w, a.ratio_h),
                        "{} {} {sz:?}",
                        a.label,
                        f.id
                    );
                    check_size(sz.width, sz.height, &f.limits)
                        .unwrap_or_else(|e| panic!("{} {} {sz:?}: {e}", a.label, f.id));
                    assert!(sz.width.max(sz.height) <= cap);
                }
                assert!(s.quality.width >= s.standard.width, "{} {}", a.label, f.id);
            }
        }
    }

    #[test]
    fn every_checkpoint_family_has_presets_and_defaults_fit() {
        let c = catalogue();
        for k in &c.checkpoints {
            let f = c
                .family(&k.family)
                .unwrap_or_else(|| panic!("{} has no family", k.name));
            assert!(c.aspect_size(1, &f.id, false).is_some(), "{}", k.name);
            assert!(c.aspect_size(2, &f.id, true).is_some(), "{}", k.name);
            let limits = if k.category.is_studio() {
                STUDIO_LIMITS
            } else {
                f.limits
            };
            check_size(k.default_size.width, k.default_size.height, &limits).unwrap();
            assert!(f.variants.contains(&k.variant), "{}", k.name);
        }
        for l in &c.loras {
            assert!(c.family(&l.base_model).is_some(), "{}", l.name);
            assert_eq!(l.weight, 1.0);
        }
        for a in &c.artworks {
            assert!(c.checkpoint(&a.model_ver_no).is_some(), "{}", a.name);
        }
        for cat in [Category::Normal, Category::Sdxl, Category::Studio] {
            assert_eq!(c.default_checkpoint(cat).unwrap().category, cat);
        }
        assert_eq!(
            c.default_checkpoint(Category::Normal2)
                .unwrap()
                .model_ver_no,
            "sd15-v1"
        );
    }

    #[test]
    fn ids_are_unique() {
        let c = catalogue();
        let mut v: Vec<&str> = c
            .checkpoints
            .iter()
            .map(|k| k.model_ver_no.as_str())
            .collect();
        v.extend(c.loras.iter().map(|l| l.model_ver_no.as_str()));
        let n = v.len();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), n);
    }

    #[test]
    fn family_table() {
        let c = catalogue();
        // (id, min, max, default)
        let table = [
            ("sd", 512, 1024, (624, 936)),
            ("sdxl", 512, 1536, (832, 1216)),
            ("flux", 384, 1024, (688, 1024)),
        ];
        for (id, min, max, (w, h)) in table {
            let f = c.family(id).unwrap();
            assert_eq!((f.limits.min_long, f.limits.max), (min, max), "{id}");
            assert_eq!(f.default_size, size(w, h));
        }
        assert_eq!(c.families.len(), 8);
        assert!(c
            .family("sdxl")
            .unwrap()
            .variants
            .contains(&"Pony".to_string()));
        assert!(c
            .family("sd")
            .unwrap()
            .variants
            .contains(&"SD 3".to_string()));
        assert_eq!(c.family("sdxl").unwrap().base_model_code, 5);
        assert_eq!(c.family("sd").unwrap().base_model_code, 1);
        assert_eq!(c.checkpoint("studio-enhance-xl-1").unwrap().base_model, 7);
        let codes: Vec<(String, u16)> = c
            .base_model_codes
            .iter()
            .map(|b| (b.name.clone(), b.code))
            .collect();
        assert!(codes.contains(&("sdxl".into(), 5)) && codes.contains(&("studio".into(), 7)));
    }

    #[test]
    fn size_checks() {
        let sd = catalogue().family("sd").unwrap().limits;
        let table = [
            (512, 768, Ok(())),
            (511, 511, Err(SizeError::TooSmall)),
            (768, 432, Ok(())),
            (1025, 1024, Err(SizeError::TooLarge)),
            (1024, 1024, Ok(())),
            (1024, 512, Ok(())),
            (1008, 432, Ok(())),
            (768, 328, Ok(())),
            (768, 319, Err(SizeError::TooSmall)),
            (504, 480, Err(SizeError::TooSmall)),
            (1024, 420, Err(SizeError::RatioInvalid)),
        ];
        for (w, h, want) in table {
            assert_eq!(check_size(w, h, &sd), want, "{w}x{h}");
        }
        let sdxl = catalogue().family("sdxl").unwrap().limits;
        assert_eq!(check_size(1536, 640, &sdxl), Err(SizeError::RatioInvalid));
        assert_eq!(check_size(1536, 768, &sdxl), Ok(()));
        // 1536 / 766 = 2.005, which is 2.01 to two decimals: over 2.0.
        assert_eq!(check_size(1536, 766, &sdxl), Err(SizeError::RatioInvalid));
        assert_eq!(check_size(1532, 766, &sdxl), Ok(()));
    }

    #[test]
    fn aspect_matching() {
        let table = [
            (1024, 1024, 1, 1, true),
            (768, 432, 16, 9, true),
            (1440, 810, 16, 9, true),
            (1360, 768, 16, 9, true),
            (1024, 768, 16, 9, false),
            (688, 1024, 2, 3, true),
            (624, 936, 2, 3, true),
            (1024, 1000, 1, 1, false),
            (1024, 1021, 1, 1, true),
            (100, 100, 0, 1, false),
        ];
        for (w, h, rw, rh, want) in table {
            assert_eq!(aspect_match(w, h, rw, rh), want, "{w}x{h} {rw}:{rh}");
        }
    }

    #[test]
    fn studio_presets_fit_the_studio() {
        let c = catalogue();
        let labels: Vec<&str> = c.studio_presets.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            ["9:7", "7:9", "3:4", "4:3", "19:13", "13:19", "16:9", "9:16"]
        );
        for p in &c.studio_presets {
            check_size(p.width, p.height, &STUDIO_LIMITS).unwrap();
            let (rw, rh) = p.label.split_once(':').unwrap();
            assert!(
                aspect_match(p.width, p.height, rw.parse().unwrap(), rh.parse().unwrap()),
                "{p:?}"
            );
        }
        assert_eq!(
            c.studio_presets.first().map(|p| (p.width, p.height)),
            Some((1168, 912))
        );
    }

    #[test]
    fn fitting_and_lookups() {
        assert_eq!(fit_max_side(2048, 1024, 1024), (1024, 512));
        assert_eq!(fit_max_side(832, 1216, 1024), (704, 1024));
        assert_eq!(fit_max_side(600, 800, 1024), (600, 800));
        let c = catalogue();
        assert_eq!(c.sampler("euler_a").unwrap().name, "Euler a");
        assert_eq!(c.sampler("dpm++ 2m karras").unwrap().id, "dpmpp_2m_karras");
        assert!(c.sampler("nonsense").is_none());
        assert_eq!(c.default_upscaler().unwrap().name, "4x-UltraSharp");
        assert!(c.upscaler("r-esrgan 4x+").is_some());
        assert_eq!(
            c.lora("pixel-art-xl").unwrap().model_ver_no,
            "pixel-art-xl-1"
        );
        assert_eq!(
            c.checkpoint_by_model_no("flux-dev").unwrap().model_ver_no,
            "flux-dev-1"
        );
        assert_eq!(
            c.generation_param(Category::Studio11).unwrap().cfg_scale,
            6.0
        );
        let json = serde_json::to_value(c).unwrap();
        assert!(json["engine_note"]
            .as_str()
            .unwrap()
            .contains("non-neural reference engine"));
        let back: Catalogue = serde_json::from_value(json).unwrap();
        assert_eq!(&back, c);
    }
}
