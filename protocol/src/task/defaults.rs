//! The generation defaults of spec 1 §9 per creative mode (normal, sdxl,
//! studio) and per model family, the image modes, and the numeric limits the
//! server's rules ([`super::rules`]) clamp or refuse against.

use serde::{Deserialize, Serialize};

use super::catalogue::{catalogue, family_ids};
use super::codes::{Action, Category, SpeedType};

/// Mask and upscale output: at most this many pixels a side (spec 1 §4 "Mask", §9).
pub const MAX_OUTPUT_SIDE: u32 = 4096;
/// LoRA models a free account may use at once (spec 1 §6, §9).
pub const FREE_LORA_LIMIT: usize = 3;
/// Random seeds are drawn from `0..=RANDOM_SEED_MAX` (spec 1 §9).
pub const RANDOM_SEED_MAX: u64 = 2_147_483_643;
/// The largest seed a client may pin (spec 1 §9 names 4294967294 as the
/// other random bound; anything above cannot be reproduced by the engines).
pub const SEED_MAX: i64 = 4_294_967_294;
/// Prompt and negative prompt length limit, in characters. Not in the spec:
/// chosen well above what a UI prompt holds (the dictionary pad cuts one word
/// at 200) so that only abuse is refused (InvalidParams).
pub const PROMPT_MAX_CHARS: usize = 4000;
/// Steps are clamped into this range; 0 or less means "the default".
/// 150 is the highest step count the usual samplers offer in web UIs.
pub const STEPS_RANGE: (u32, u32) = (1, 150);
/// Studio steps under this become [`STUDIO_LOW_STEPS_TO`] (spec 1 §5).
pub const STUDIO_MIN_STEPS: u32 = 25;
pub const STUDIO_LOW_STEPS_TO: u32 = 30;
/// CFG scale is clamped into this range (web UIs offer 1 to 30).
pub const CFG_RANGE: (f32, f32) = (1.0, 30.0);
/// Images per task (spec 1 §9: n_iter 1-4).
pub const N_ITER_RANGE: (u32, u32) = (1, 4);
/// Upscale ratio is clamped into this range; 0 or less means the default 2.
pub const UPSCALE_RATIO_RANGE: (f32, f32) = (1.0, 4.0);
/// LoRA weights are clamped into this range (negative weights subtract a style).
pub const LORA_WEIGHT_RANGE: (f32, f32) = (-2.0, 2.0);
/// Control-net weight range.
pub const CONTROL_WEIGHT_RANGE: (f32, f32) = (0.0, 2.0);
/// Face swap `face_distance` range.
pub const FACE_DISTANCE_RANGE: (f32, f32) = (0.0, 3.0);
/// Animation frames: default and maximum; more are clamped to the maximum.
pub const FRAMES_DEFAULT: u32 = 16;
pub const FRAMES_MAX: u32 = 48;
/// The visitor starter flow never makes a side larger than this; a larger
/// request is scaled down keeping its aspect ratio (the starter tab offers
/// no size choice, so refusing would only confuse).
pub const VISITOR_MAX_SIDE: u32 = 1024;
/// The seed value clients send for "random" besides an empty field.
pub const RANDOM_SEED_MARKERS: [i64; 2] = [0, -1];
/// Spec 1 §9: "Negative prompt default for sdxl: quality-related terms".
pub const SDXL_NEGATIVE_PROMPT: &str =
    "worst quality, low quality, normal quality, lowres, bad anatomy, bad hands, blurry, jpeg artifacts, watermark";

/// Studio settings of spec 1 §3 "Studio lab_base" with the §9 values.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudioDefaults {
    pub style_selections: Vec<String>,
    pub expand_token_length: u32,
    pub scheduler: String,
    pub quality_detail_offset: f32,
    pub hdr_intensity: f32,
    pub auto_brightness_strength: u32,
    pub auto_adjust_strength: u32,
    pub sharpness: f32,
    pub quality_mode: u32,
    pub quality_type: String,
}

/// The generation-param defaults of one creative mode (spec 1 §9), served by
/// `config/generation-param` and applied by [`super::rules::prepare`] to
/// every field a request leaves out.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationDefaults {
    pub category: Category,
    /// The creative mode's name (`normal`, `sdxl`, `studio`).
    pub mode: String,
    pub cfg_scale: f32,
    /// The "guidance scale" of the default set (spec 1 §9: 7.5); shown by
    /// the UI, while engines use `cfg_scale`.
    pub guidance_scale: f32,
    pub steps: u32,
    pub sampler: String,
    pub clip_skip: u32,
    pub denoising_strength: f32,
    pub width: u32,
    pub height: u32,
    /// Default images per task for a free account (paid: `n_iter_paid`).
    pub n_iter: u32,
    pub n_iter_paid: u32,
    /// -1: random.
    pub seed: i64,
    pub negative_prompt: String,
    pub upscale_ratio: f32,
    pub upscaler: String,
    pub hr_scale: f32,
    pub hr_upscaler: String,
    pub hr_second_pass_steps: u32,
    pub hr_redraw: f32,
    pub refiner_switch_at: f32,
    pub face_restorer_weight: f32,
    pub face_distance: f32,
    pub inpaint_blur: u32,
    pub inpaint_padding: u32,
    pub prompt_magic: f32,
    pub style: String,
    pub ad_denoising_strength: f32,
    pub ad_confidence: f32,
    pub controlnet_resolution: u32,
    pub controlnet_threshold: f32,
    pub controlnet_weight: f32,
    pub frames: u32,
    /// Spec 1 §9: "speed_type 2 in the default set"; the server still
    /// forces 1 for free accounts.
    pub speed_type: SpeedType,
    pub studio: Option<StudioDefaults>,
}

/// The defaults of a creative mode, before any family override. Categories
/// 2 and 3 use the normal set, 11 the studio set.
pub fn category_defaults(category: Category) -> GenerationDefaults {
    let category = match category.canonical() {
        Category::Sdxl => Category::Sdxl,
        Category::Studio => Category::Studio,
        _ => Category::Normal,
    };
    let mut d = GenerationDefaults {
        category,
        mode: category.name().to_string(),
        cfg_scale: 7.0,
        guidance_scale: 7.5,
        steps: 20,
        sampler: "DPM++ 2M Karras".into(),
        clip_skip: 2,
        denoising_strength: 0.35,
        width: 688,
        height: 1024,
        n_iter: 2,
        n_iter_paid: 4,
        seed: -1,
        negative_prompt: String::new(),
        upscale_ratio: 2.0,
        upscaler: "4x-UltraSharp".into(),
        hr_scale: 1.5,
        hr_upscaler: "R-ESRGAN 4x+".into(),
        hr_second_pass_steps: 20,
        hr_redraw: 0.5,
        refiner_switch_at: 0.8,
        face_restorer_weight: 0.6,
        face_distance: 1.5,
        inpaint_blur: 4,
        inpaint_padding: 32,
        prompt_magic: 0.4,
        style: "Fantasy Art".into(),
        ad_denoising_strength: 0.3,
        ad_confidence: 0.3,
        controlnet_resolution: 512,
        controlnet_threshold: 0.5,
        controlnet_weight: 1.0,
        frames: FRAMES_DEFAULT,
        speed_type: SpeedType::Fast,
        studio: None,
    };
    match category {
        Category::Sdxl => {
            d.steps = 30;
            d.width = 832;
            d.height = 1216;
            d.negative_prompt = SDXL_NEGATIVE_PROMPT.into();
        }
        Category::Studio => {
            d.cfg_scale = 6.0;
            d.steps = 30;
            d.denoising_strength = 0.5;
            d.width = 832;
            d.height = 1216;
            d.studio = Some(StudioDefaults {
                style_selections: vec!["Studio Enhance".into(), "Studio Expand".into()],
                expand_token_length: 10,
                scheduler: "karras".into(),
                quality_detail_offset: 0.45,
                hdr_intensity: 0.5,
                auto_brightness_strength: 75,
                auto_adjust_strength: 20,
                sharpness: 2.0,
                quality_mode: 3,
                quality_type: "anime".into(),
            });
        }
        _ => {}
    }
    d
}

/// The defaults for a creative mode and a model family: the family's default
/// size (studio keeps its own 832x1216), Flux's cfg 3.5 and Euler sampler,
/// and SD 3.5's default of 4 images for every account.
pub fn defaults_for(category: Category, family: &str) -> GenerationDefaults {
    let mut d = category_defaults(category);
    if !d.category.is_studio() {
        if let Some(f) = catalogue().family(family) {
            d.width = f.default_size.width;
            d.height = f.default_size.height;
        }
    }
    match family {
        family_ids::FLUX => {
            d.cfg_scale = 3.5;
            d.sampler = "Euler".into();
        }
        family_ids::SD35 => d.n_iter = 4,
        _ => {}
    }
    d
}

/// The size of an image mode (spec 1 §9: 1=512, 2=768, 3=1024, 4=1536 is
/// the height; the width is two thirds of it, rounded up to a multiple of
/// 16 so that mode 3 is the default set's 688x1024). Text-to-image offers at
/// most mode 3, so a higher mode is read as 3 there. Unknown modes: `None`.
pub fn image_mode_size(mode: i64, action: Action) -> Option<(u32, u32)> {
    let height: u32 = match mode {
        1 => 512,
        2 => 768,
        3 => 1024,
        4 if action == Action::TextToImage => 1024,
        4 => 1536,
        _ => return None,
    };
    let width = (height * 2).div_ceil(3).div_ceil(16) * 16;
    Some((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_defaults_follow_spec_1_section_9() {
        // (category, cfg, steps, sampler, denoising, width, height)
        let table = [
            (
                Category::Normal,
                7.0,
                20,
                "DPM++ 2M Karras",
                0.35,
                688,
                1024,
            ),
            (
                Category::Normal2,
                7.0,
                20,
                "DPM++ 2M Karras",
                0.35,
                688,
                1024,
            ),
            (Category::Bot, 7.0, 20, "DPM++ 2M Karras", 0.35, 688, 1024),
            (Category::Sdxl, 7.0, 30, "DPM++ 2M Karras", 0.35, 832, 1216),
            (Category::Studio, 6.0, 30, "DPM++ 2M Karras", 0.5, 832, 1216),
            (
                Category::Studio11,
                6.0,
                30,
                "DPM++ 2M Karras",
                0.5,
                832,
                1216,
            ),
        ];
        for (c, cfg, steps, sampler, den, w, h) in table {
            let d = category_defaults(c);
            assert_eq!(d.cfg_scale, cfg, "{c:?}");
            assert_eq!(d.steps, steps, "{c:?}");
            assert_eq!(d.sampler, sampler, "{c:?}");
            assert_eq!(d.denoising_strength, den, "{c:?}");
            assert_eq!((d.width, d.height), (w, h), "{c:?}");
            assert_eq!(d.clip_skip, 2);
            assert_eq!((d.n_iter, d.n_iter_paid), (2, 4));
            assert_eq!(d.upscale_ratio, 2.0);
            assert_eq!(d.upscaler, "4x-UltraSharp");
            assert_eq!(d.hr_upscaler, "R-ESRGAN 4x+");
            assert_eq!(
                (d.hr_scale, d.hr_second_pass_steps, d.hr_redraw),
                (1.5, 20, 0.5)
            );
            assert_eq!(
                (d.refiner_switch_at, d.face_restorer_weight, d.face_distance),
                (0.8, 0.6, 1.5)
            );
            assert_eq!((d.inpaint_blur, d.inpaint_padding), (4, 32));
            assert_eq!((d.ad_denoising_strength, d.ad_confidence), (0.3, 0.3));
            assert_eq!(
                (
                    d.controlnet_resolution,
                    d.controlnet_threshold,
                    d.controlnet_weight
                ),
                (512, 0.5, 1.0)
            );
            assert_eq!(
                (d.guidance_scale, d.seed, d.speed_type),
                (7.5, -1, SpeedType::Fast)
            );
            assert_eq!(d.studio.is_some(), c.is_studio());
        }
        assert!(category_defaults(Category::Sdxl)
            .negative_prompt
            .contains("worst quality"));
        assert!(category_defaults(Category::Sdxl)
            .negative_prompt
            .contains("bad anatomy"));
        assert_eq!(category_defaults(Category::Normal).negative_prompt, "");
        let s = category_defaults(Category::Studio).studio.unwrap();
        assert_eq!(s.quality_detail_offset, 0.45);
        assert_eq!(
            (
                s.hdr_intensity,
                s.auto_brightness_strength,
                s.auto_adjust_strength
            ),
            (0.5, 75, 20)
        );
        assert_eq!(
            (s.sharpness, s.quality_mode, s.expand_token_length),
            (2.0, 3, 10)
        );
        assert_eq!(s.style_selections, ["Studio Enhance", "Studio Expand"]);
    }

    #[test]
    fn family_overrides() {
        // (category, family, cfg, sampler, n_iter, width, height)
        let table = [
            (Category::Normal, "flux", 3.5, "Euler", 2, 688, 1024),
            (Category::Normal, "sd", 7.0, "DPM++ 2M Karras", 2, 624, 936),
            (
                Category::Normal,
                "sd3.5",
                7.0,
                "DPM++ 2M Karras",
                4,
                832,
                1216,
            ),
            (Category::Sdxl, "sdxl", 7.0, "DPM++ 2M Karras", 2, 832, 1216),
            (
                Category::Studio,
                "sdxl",
                6.0,
                "DPM++ 2M Karras",
                2,
                832,
                1216,
            ),
            (Category::Studio, "flux", 3.5, "Euler", 2, 832, 1216),
            (
                Category::Normal,
                "unknown",
                7.0,
                "DPM++ 2M Karras",
                2,
                688,
                1024,
            ),
        ];
        for (c, fam, cfg, sampler, n, w, h) in table {
            let d = defaults_for(c, fam);
            assert_eq!(d.cfg_scale, cfg, "{fam}");
            assert_eq!(d.sampler, sampler, "{fam}");
            assert_eq!(d.n_iter, n, "{fam}");
            assert_eq!((d.width, d.height), (w, h), "{c:?} {fam}");
        }
    }

    #[test]
    fn image_modes() {
        let table = [
            (1, Action::TextToImage, Some((352, 512))),
            (2, Action::TextToImage, Some((512, 768))),
            (3, Action::TextToImage, Some((688, 1024))),
            (4, Action::TextToImage, Some((688, 1024))),
            (4, Action::ImageToImage, Some((1024, 1536))),
            (0, Action::ImageToImage, None),
            (5, Action::ImageToImage, None),
            (9, Action::TextToImage, None),
            (-1, Action::TextToImage, None),
        ];
        for (m, a, want) in table {
            assert_eq!(image_mode_size(m, a), want, "mode {m} {a:?}");
        }
    }
}
