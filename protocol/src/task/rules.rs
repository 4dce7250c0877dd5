//! The server's generation rules (spec 1 §5, §6, §9) as one pure function:
//! [`prepare`] turns what a client sent into a normalised [`JobSpec`], its
//! category, lane, inputs, cost and time estimate, or the spec's error.
//!
//! Validation runs in the order the client checks (spec 1 §5), so a request
//! with several faults gets the error the UI would have shown first:
//!
//! 1. role (§6): visitors have only the starter flow: text-to-image without
//!    LoRAs, else `NeedLogin` (20000 opens the login dialog);
//! 2. a free account with more than 3 LoRAs: `LoRALimit5TipWeb`;
//! 3. image tabs without their image(s): `pleaseUoloadImage` (animation
//!    `pleaseSelectImage`);
//! 4. text tabs (1, 9, 10, 13) without a prompt: `PromptNotEmpty` (studio
//!    with a condition image exempt); a prompt over
//!    [`PROMPT_MAX_CHARS`] is `InvalidParams`;
//! 5. text, image-to-image and expansion tabs in category 1 or 2 without a
//!    base model or artwork, or any model id not in the catalogue:
//!    `PleaseSelectBaseName`;
//! 6. upscale output over 4096 a side: `ImageSizeExceedsError`;
//! 7. an input image or mask that is not an uploaded http(s) or `/files/`
//!    URL: `uploadError`;
//! 8. studio with LoRA-ignore off and a LoRA of another family than the
//!    checkpoint's: `studio25`;
//! 9. sizes against the family's (or studio's) limits: `ImageSizeTooSmall`,
//!    `ImageSizeTooLarge`, `ImageRatioInvalid`. Sizes are refused rather
//!    than clamped: a silently different picture size is worse than an
//!    error the UI can explain. Visitors are the exception (their starter
//!    tab offers no size choice): their size is scaled down to 1024.
//!
//! Numbers outside sane ranges are clamped, not refused (steps 1..=150, cfg
//! 1..=30, denoising 0..=1, n_iter 1..=4, upscale ratio 1..=4, LoRA weight
//! -2..=2, frames up to 48): they are slider values, and the nearest valid
//! value is what the user meant.

use serde_json::Value;

use super::catalogue::{
    catalogue, check_size, family_ids, fit_max_side, Checkpoint, SizeError, STUDIO_LIMITS,
};
use super::codes::{Action, Category, SpeedType};
use super::cost::{cost, estimate_secs};
use super::defaults::{
    defaults_for, image_mode_size, CFG_RANGE, CONTROL_WEIGHT_RANGE, FACE_DISTANCE_RANGE,
    FRAMES_DEFAULT, FRAMES_MAX, FREE_LORA_LIMIT, LORA_WEIGHT_RANGE, MAX_OUTPUT_SIDE, N_ITER_RANGE,
    PROMPT_MAX_CHARS, RANDOM_SEED_MARKERS, RANDOM_SEED_MAX, SEED_MAX, STEPS_RANGE,
    STUDIO_LOW_STEPS_TO, STUDIO_MIN_STEPS, UPSCALE_RATIO_RANGE, VISITOR_MAX_SIDE,
};
use super::job::{ControlSpec, InputRole, JobSpec, LoraSpec};
use super::request::{ControlNetUnit, CreateTaskRequest, TaskMeta};
use crate::error::ErrorCode;

/// Who is asking (spec 1 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Not logged in: the starter flow only, on a free daily quota.
    Visitor,
    /// Logged in without a membership.
    Free,
    /// Full, lite or company membership.
    Paid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    pub role: Role,
    /// The user's stored speed choice (paid only).
    pub stored_speed: Option<SpeedType>,
}

/// A request with every rule applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// task_id empty and attempt 0: the server fills them. inputs empty: the
    /// server resolves `input_urls` to object keys.
    pub job: JobSpec,
    pub category: Category,
    pub speed: SpeedType,
    /// Input image URLs by role, exactly as the client sent them (validated
    /// http(s) or site-relative `/files/...`).
    pub input_urls: Vec<(InputRole, String)>,
    /// Credits this job costs (0 for visitors: they use a free quota).
    pub cost: i64,
    /// Seconds it is expected to take (for estimate_time).
    pub estimate_secs: u32,
    /// The prompt as stored/displayed (flags stripped).
    pub prompt: String,
}

/// The action of a `/task/create` call, which carries it in the body.
pub fn action_of(req: &CreateTaskRequest) -> Result<Action, ErrorCode> {
    req.action.ok_or(ErrorCode::InvalidParams)
}

/// Prompt flags the server removes (spec 1 §5).
const STRIPPED_FLAGS: [&str; 2] = ["--auto", "--s2"];

/// Removes the `--auto` and `--s2` flags (whole tokens, any case) and trims;
/// everything else, newlines included, is kept as written.
pub fn strip_flags(prompt: &str) -> String {
    prompt
        .split('\n')
        .map(|line| {
            line.split(' ')
                .filter(|t| {
                    !STRIPPED_FLAGS
                        .iter()
                        .any(|f| t.trim().eq_ignore_ascii_case(f))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// An input image the server can fetch: an `http(s)://host/...` URL or a
/// site-relative `/files/...` path without `..` segments; no whitespace or
/// control characters, at most 2048 bytes. `data:` URLs and local paths are
/// refused: the client must upload first (spec 1 §5 uploadError).
pub fn is_valid_image_url(url: &str) -> bool {
    if url.is_empty()
        || url.len() > 2048
        || url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
    {
        return false;
    }
    let lower = url.to_ascii_lowercase();
    if let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        return !host.is_empty() && !host.starts_with(':') && !host.contains('@');
    }
    if let Some(rest) = url.strip_prefix("/files/") {
        return !rest.is_empty()
            && !rest
                .split('/')
                .any(|seg| seg.is_empty() || seg == "." || seg == "..");
    }
    false
}

/// Spec 1 §5: a seed of empty, 0 or -1 means random (`random` is drawn by
/// the server). Other negative seeds and seeds over [`SEED_MAX`] are refused.
pub fn resolve_seed(seed: Option<i64>, random: u64) -> Result<u64, ErrorCode> {
    match seed {
        None => Ok(random.min(RANDOM_SEED_MAX)),
        Some(s) if RANDOM_SEED_MARKERS.contains(&s) => Ok(random.min(RANDOM_SEED_MAX)),
        Some(s) if !(0..=SEED_MAX).contains(&s) => Err(ErrorCode::InvalidParams),
        Some(s) => u64::try_from(s).map_err(|_| ErrorCode::InvalidParams),
    }
}

/// The default n_iter (spec 1 §6, §9): paid 4, free 2, SD 3.5 4 for everyone.
pub fn default_n_iter(role: Role, family: &str) -> u32 {
    match role {
        Role::Visitor => 1,
        Role::Paid => 4,
        Role::Free if family == family_ids::SD35 => 4,
        Role::Free => 2,
    }
}

/// `gen_mode` (spec 2 §3, §6): 1 is the unlimited queue. Without the
/// payment-info flag infiniteQueue it is forced to 0; with it, what was
/// asked, else 1 for product level 2 and above.
pub fn gen_mode(requested: Option<i64>, infinite_queue: bool, product_level: u8) -> u8 {
    if !infinite_queue {
        return 0;
    }
    match requested {
        Some(0) => 0,
        Some(_) => 1,
        None => u8::from(product_level >= 2),
    }
}

/// The lane (spec 1 §6): free accounts and visitors 1; paid accounts what
/// they asked for, else their stored choice, else 2.
pub fn resolve_speed(caller: &Caller, requested: Option<SpeedType>) -> SpeedType {
    match caller.role {
        Role::Visitor | Role::Free => SpeedType::Normal,
        Role::Paid => requested.or(caller.stored_speed).unwrap_or(SpeedType::Fast),
    }
}

fn size_error(e: SizeError) -> ErrorCode {
    match e {
        SizeError::TooSmall => ErrorCode::ImageSizeTooSmall,
        SizeError::TooLarge => ErrorCode::ImageSizeTooLarge,
        SizeError::RatioInvalid => ErrorCode::ImageRatioInvalid,
    }
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

fn positive(v: Option<i64>) -> Option<u32> {
    v.and_then(|v| u32::try_from(v).ok()).filter(|v| *v > 0)
}

/// Actions that run a checkpoint (and so take LoRAs and a model choice).
fn runs_checkpoint(action: Action) -> bool {
    matches!(
        action,
        Action::TextToImage
            | Action::ImageToImage
            | Action::ConditionToImage
            | Action::Expansion
            | Action::Variation
            | Action::Animation
            | Action::CharacterRepair
    )
}

/// Actions whose output count is the user's `n_iter`.
fn is_batch(action: Action) -> bool {
    matches!(
        action,
        Action::TextToImage
            | Action::ImageToImage
            | Action::ConditionToImage
            | Action::Expansion
            | Action::Variation
    )
}

/// Spec 1 §5 "Text, image and expansion tabs with category 1 or 2 need a
/// base model or artwork".
fn needs_model_choice(action: Action, category: Category) -> bool {
    matches!(
        action,
        Action::TextToImage | Action::ImageToImage | Action::ConditionToImage | Action::Expansion
    ) && category.canonical() == Category::Normal
}

/// Where the guidance of a condition comes from.
enum ControlSource<'a> {
    Unit(&'a ControlNetUnit),
    /// A studio `lab_base.conds[]` entry.
    StudioCond(&'a Value),
    /// A bare image (condition tab's `imageUrl`): default guidance.
    Bare,
}

struct Inputs<'a> {
    urls: Vec<(InputRole, String)>,
    control: Option<ControlSource<'a>>,
}

/// The init image: `imageUrl`, else the first `imgFiles[].url`.
fn init_url(meta: &TaskMeta) -> Option<&str> {
    non_empty(&meta.image_url).or_else(|| meta.img_files.iter().find_map(|f| non_empty(&f.url)))
}

fn studio_conds(meta: &TaskMeta) -> impl Iterator<Item = &Value> {
    meta.extra
        .get("lab_base")
        .and_then(|l| l.get("conds"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn cond_image(cond: &Value) -> Option<&str> {
    cond.get("image")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Which input roles each action needs (spec 1 §5), with the URLs as sent.
fn collect_inputs(action: Action, meta: &TaskMeta) -> Result<Inputs<'_>, ErrorCode> {
    let missing = if action == Action::Animation {
        ErrorCode::PleaseSelectImage
    } else {
        ErrorCode::PleaseUploadImage
    };
    let unit = meta
        .controlnet_units
        .iter()
        .find_map(|u| non_empty(&u.input_image).map(|url| (u, url)));
    let mut urls = Vec::new();
    let mut control = None;
    match action {
        // Video actions are prepared by `video::prepare_video`, never here.
        Action::TextToVideo
        | Action::ImageToVideo
        | Action::MultiImageToVideo
        | Action::VideoEffect
        | Action::Live2d
        | Action::VideoUpscale
        | Action::VideoExtend
        | Action::FrameInterpolation => return Err(ErrorCode::InvalidParams),
        Action::TextToImage => {
            if let Some((u, url)) = unit {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::Unit(u));
            } else if let Some((c, url)) =
                studio_conds(meta).find_map(|c| cond_image(c).map(|url| (c, url)))
            {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::StudioCond(c));
            }
        }
        Action::ConditionToImage => {
            if let Some((u, url)) = unit {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::Unit(u));
            } else {
                urls.push((
                    InputRole::Condition,
                    init_url(meta).ok_or(missing)?.to_string(),
                ));
                control = Some(ControlSource::Bare);
            }
        }
        Action::Preview => {
            if let Some((u, url)) = unit {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::Unit(u));
            } else {
                urls.push((InputRole::Init, init_url(meta).ok_or(missing)?.to_string()));
            }
        }
        Action::FaceSwap => {
            let face = meta.exchange_face.as_ref().ok_or(missing)?;
            let source = non_empty(&face.source_uri).ok_or(missing)?;
            let target = non_empty(&face.target_uri).ok_or(missing)?;
            urls.push((InputRole::FaceSource, source.to_string()));
            urls.push((InputRole::FaceTarget, target.to_string()));
        }
        Action::ImageToImage => {
            urls.push((InputRole::Init, init_url(meta).ok_or(missing)?.to_string()));
            if let Some(mask) = non_empty(&meta.mask) {
                urls.push((InputRole::Mask, mask.to_string()));
            }
        }
        Action::Upscale
        | Action::ExtraUpscale
        | Action::Variation
        | Action::RemoveBackground
        | Action::Descriptors
        | Action::Expansion
        | Action::Animation
        | Action::CharacterRepair => {
            urls.push((InputRole::Init, init_url(meta).ok_or(missing)?.to_string()));
        }
    }
    Ok(Inputs { urls, control })
}

/// The model the request names, if any: `art_model_ver_no`, else
/// `art_model_no`, else `art_work_no` (request fields first, then `meta`'s).
/// `Err` when a named model is not in the catalogue.
fn named_checkpoint(req: &CreateTaskRequest) -> Result<Option<&'static Checkpoint>, ErrorCode> {
    let cat = catalogue();
    let meta = &req.meta;
    let unknown = ErrorCode::PleaseSelectBaseName;
    if let Some(ver) = non_empty(&req.art_model_ver_no).or(non_empty(&meta.art_model_ver_no)) {
        return cat.checkpoint(ver).map(Some).ok_or(unknown);
    }
    if let Some(no) = non_empty(&req.art_model_no).or(non_empty(&meta.art_model_no)) {
        return cat.checkpoint_by_model_no(no).map(Some).ok_or(unknown);
    }
    if let Some(art) = non_empty(&req.art_work_no).or(non_empty(&meta.art_work_no)) {
        let artwork = cat.artwork(art).ok_or(unknown)?;
        return cat
            .checkpoint(&artwork.model_ver_no)
            .map(Some)
            .ok_or(unknown);
    }
    Ok(None)
}

/// The size of the uploaded image as the client reported it in `imgFiles`
/// (the entry of the init image, else the first with a size).
fn image_file_size(meta: &TaskMeta) -> Option<(u32, u32)> {
    let init = init_url(meta);
    let sized = |f: &super::request::ImageRef| Some((positive(f.width)?, positive(f.height)?));
    meta.img_files
        .iter()
        .find(|f| init.is_some() && non_empty(&f.url) == init)
        .and_then(sized)
        .or_else(|| meta.img_files.iter().find_map(sized))
}

fn meta_size(meta: &TaskMeta) -> Option<(u32, u32)> {
    Some((positive(meta.width)?, positive(meta.height)?))
}

/// Spec 1 §5: a width or height of 0 or less becomes 1024.
fn side(raw: Option<i64>, fallback: u32) -> u32 {
    match raw {
        None => fallback,
        Some(v) if v <= 0 => 1024,
        Some(v) => u32::try_from(v).unwrap_or(u32::MAX),
    }
}

fn clamp_f(v: f64, (lo, hi): (f32, f32)) -> f32 {
    (v as f32).clamp(lo, hi)
}

fn control_spec(source: &ControlSource<'_>) -> Result<ControlSpec, ErrorCode> {
    let cat = catalogue();
    let module = |name: Option<&str>, default: &str| -> Result<String, ErrorCode> {
        let name = name
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or(default);
        cat.control_module(name)
            .map(str::to_string)
            .ok_or(ErrorCode::InvalidParams)
    };
    Ok(match source {
        ControlSource::Unit(u) => ControlSpec {
            module: module(u.module.as_deref(), "none")?,
            weight: u.weight.map_or(1.0, |w| clamp_f(w, CONTROL_WEIGHT_RANGE)),
            guidance_end: u.guidance_end.map_or(1.0, |g| clamp_f(g, (0.0, 1.0))),
        },
        ControlSource::StudioCond(c) => ControlSpec {
            module: module(c.get("mode").and_then(Value::as_str), "image_prompt")?,
            weight: c
                .get("weight")
                .and_then(Value::as_f64)
                .map_or(1.0, |w| clamp_f(w, CONTROL_WEIGHT_RANGE)),
            guidance_end: c
                .get("stop_at")
                .and_then(Value::as_f64)
                .map_or(1.0, |g| clamp_f(g, (0.0, 1.0))),
        },
        ControlSource::Bare => ControlSpec {
            module: "none".into(),
            weight: 1.0,
            guidance_end: 1.0,
        },
    })
}

/// Applies every rule of spec 1 §5, §6 and §9 (see the module doc).
/// `action` comes from the path for v2 calls, or `req.action` for
/// /task/create ([`action_of`]). `random_seed` is drawn by the server
/// (0..=2147483643) and used when the seed is empty, 0 or -1.
pub fn prepare(
    req: &CreateTaskRequest,
    action: Action,
    caller: &Caller,
    random_seed: u64,
) -> Result<Prepared, ErrorCode> {
    let cat = catalogue();
    let meta = &req.meta;

    // 1. Roles (§6).
    if caller.role == Role::Visitor
        && (action != Action::TextToImage || !meta.lora_models.is_empty())
    {
        return Err(ErrorCode::NeedLogin);
    }
    // 2. LoRA limit (§5, §6).
    if caller.role == Role::Free && meta.lora_models.len() > FREE_LORA_LIMIT {
        return Err(ErrorCode::LoRALimit5TipWeb);
    }

    // The category decides the exemptions below, so resolve it first: the
    // request's, else the named checkpoint's, else normal.
    let named = if action == Action::Upscale || action == Action::ExtraUpscale {
        Ok(None)
    } else {
        named_checkpoint(req)
    };
    let category = req
        .category
        .or_else(|| named.ok().flatten().map(|c| c.category))
        .unwrap_or(Category::Normal)
        .canonical();
    let studio = category.is_studio();

    // 3. Images (§5).
    let inputs = collect_inputs(action, meta)?;

    // 4. Prompt (§5).
    let prompt = strip_flags(
        non_empty(&meta.prompt)
            .or(non_empty(&meta.local_prompt))
            .unwrap_or(""),
    );
    let has_condition = inputs.urls.iter().any(|(r, _)| *r == InputRole::Condition);
    if action.needs_prompt() && prompt.is_empty() && !(studio && has_condition) {
        return Err(ErrorCode::PromptNotEmpty);
    }
    if prompt.chars().count() > PROMPT_MAX_CHARS {
        return Err(ErrorCode::InvalidParams);
    }

    // 5. Base model (§5).
    let checkpoint = match named? {
        Some(c) => c,
        None if needs_model_choice(action, category) => {
            return Err(ErrorCode::PleaseSelectBaseName)
        }
        None => cat
            .default_checkpoint(category)
            .ok_or(ErrorCode::Internal)?,
    };
    let family = cat.family(&checkpoint.family).ok_or(ErrorCode::Internal)?;
    let d = defaults_for(category, &family.id);

    // 6. Upscale output (§5, §9).
    let upscale = matches!(action, Action::Upscale | Action::ExtraUpscale);
    let mut upscale_ratio = 0.0_f32;
    let mut upscale_out = None;
    if upscale {
        let (sw, sh) = meta_size(meta)
            .or_else(|| image_file_size(meta))
            .ok_or(ErrorCode::InvalidParams)?;
        upscale_ratio = meta
            .scaling_ratio
            .filter(|r| *r > 0.0)
            .map_or(d.upscale_ratio, |r| clamp_f(r, UPSCALE_RATIO_RANGE));
        let scale = |v: u32| (f64::from(v) * f64::from(upscale_ratio)).round();
        let (ow, oh) = (scale(sw), scale(sh));
        if ow > f64::from(MAX_OUTPUT_SIDE) || oh > f64::from(MAX_OUTPUT_SIDE) {
            return Err(ErrorCode::ImageSizeExceedsError);
        }
        upscale_out = Some((ow as u32, oh as u32));
    }

    // 7. Uploaded inputs and the mask (§5 uploadError).
    if inputs.urls.iter().any(|(_, url)| !is_valid_image_url(url)) {
        return Err(ErrorCode::UploadError);
    }
    let control = inputs.control.as_ref().map(control_spec).transpose()?;

    // 8. LoRAs, and studio's family check (§5 studio25).
    let mut loras = Vec::new();
    if runs_checkpoint(action) {
        for l in &meta.lora_models {
            let id = non_empty(&l.model_ver_no)
                .or(non_empty(&l.model_id))
                .ok_or(ErrorCode::InvalidParams)?;
            let entry = cat.lora(id).ok_or(ErrorCode::InvalidParams)?;
            if studio && meta.lora_ignore != Some(true) && entry.base_model != checkpoint.family {
                return Err(ErrorCode::Studio25);
            }
            loras.push(LoraSpec {
                model: entry.model_ver_no.clone(),
                weight: l
                    .weight
                    .map_or(entry.weight, |w| clamp_f(w, LORA_WEIGHT_RANGE)),
            });
        }
    }

    // 9. Sizes.
    let limits = if studio { STUDIO_LIMITS } else { family.limits };
    let source = image_file_size(meta);
    let (mut left_margin, mut up_margin) = (0, 0);
    let (width, height) = match action {
        Action::Upscale | Action::ExtraUpscale => upscale_out.ok_or(ErrorCode::Internal)?,
        Action::TextToVideo
        | Action::ImageToVideo
        | Action::MultiImageToVideo
        | Action::VideoEffect
        | Action::Live2d
        | Action::VideoUpscale
        | Action::VideoExtend
        | Action::FrameInterpolation => return Err(ErrorCode::InvalidParams),
        Action::Expansion => {
            let canvas = (side(meta.width, d.width), side(meta.height, d.height));
            if canvas.0 > MAX_OUTPUT_SIDE || canvas.1 > MAX_OUTPUT_SIDE {
                return Err(ErrorCode::ImageSizeExceedsError);
            }
            if canvas.0 < limits.min || canvas.1 < limits.min {
                return Err(ErrorCode::ImageSizeTooSmall);
            }
            let margin =
                |m: Option<i64>, canvas: u32, src: Option<u32>| -> Result<u32, ErrorCode> {
                    let m = match m {
                        Some(m) => u32::try_from(m).map_err(|_| ErrorCode::InvalidParams)?,
                        None => src.map_or(0, |s| canvas.saturating_sub(s) / 2),
                    };
                    let fits = match src {
                        Some(s) => m.checked_add(s).is_some_and(|end| end <= canvas),
                        None => m < canvas,
                    };
                    if fits {
                        Ok(m)
                    } else {
                        Err(ErrorCode::InvalidParams)
                    }
                };
            left_margin = margin(meta.left_margin, canvas.0, source.map(|s| s.0))?;
            up_margin = margin(meta.up_margin, canvas.1, source.map(|s| s.1))?;
            canvas
        }
        Action::RemoveBackground
        | Action::Descriptors
        | Action::Preview
        | Action::FaceSwap
        | Action::CharacterRepair => {
            let (w, h) = source
                .or_else(|| meta_size(meta))
                .unwrap_or((d.width, d.height));
            if w > MAX_OUTPUT_SIDE || h > MAX_OUTPUT_SIDE {
                return Err(ErrorCode::ImageSizeExceedsError);
            }
            (w, h)
        }
        Action::TextToImage
        | Action::ImageToImage
        | Action::ConditionToImage
        | Action::Variation
        | Action::Animation => {
            if action == Action::ImageToImage && meta.mask.is_some() {
                if let Some((sw, sh)) = source {
                    if sw > MAX_OUTPUT_SIDE || sh > MAX_OUTPUT_SIDE {
                        return Err(ErrorCode::ImageSizeExceedsError);
                    }
                }
            }
            let block = match category {
                Category::Sdxl => meta.sdxl.as_ref(),
                Category::Studio => meta.studio.as_ref(),
                _ => None,
            };
            let raw_w = block.and_then(|b| b.width).or(meta.width);
            let raw_h = block.and_then(|b| b.height).or(meta.height);
            // Without a size: the image mode, else (working on an image) the
            // image's own size fitted to the family, else the default.
            let from_image = if action == Action::TextToImage {
                None
            } else {
                source.map(|(w, h)| fit_max_side(w, h, limits.max))
            };
            let fallback = meta
                .image_mode
                .and_then(|m| image_mode_size(m, action))
                .or(from_image)
                .unwrap_or((d.width, d.height));
            let (mut w, mut h) = (side(raw_w, fallback.0), side(raw_h, fallback.1));
            if caller.role == Role::Visitor {
                (w, h) = fit_max_side(w, h, VISITOR_MAX_SIDE);
            }
            check_size(w, h, &limits).map_err(size_error)?;
            (w, h)
        }
    };

    // Normalisations (§5) and defaults (§9).
    let seed_raw = if category == Category::Sdxl {
        meta.seedsdxl.or(meta.seed)
    } else {
        meta.seed
    };
    let seed = resolve_seed(seed_raw, random_seed)?;
    let steps = match meta.steps.filter(|s| *s > 0) {
        None => d.steps,
        Some(s) => {
            let s = u32::try_from(s).unwrap_or(u32::MAX);
            let s = if studio && s < STUDIO_MIN_STEPS {
                STUDIO_LOW_STEPS_TO
            } else {
                s
            };
            s.clamp(STEPS_RANGE.0, STEPS_RANGE.1)
        }
    };
    let cfg_scale = meta
        .cfg_scale
        .map_or(d.cfg_scale, |c| clamp_f(c, CFG_RANGE));
    let denoising_strength = meta
        .denoising_strength
        .map_or(d.denoising_strength, |x| clamp_f(x, (0.0, 1.0)));
    let sampler = match non_empty(&meta.sampler_name) {
        Some(name) => cat
            .sampler(name)
            .ok_or(ErrorCode::InvalidParams)?
            .name
            .clone(),
        None => d.sampler.clone(),
    };
    let negative_prompt = match category {
        Category::Sdxl => non_empty(&meta.negative_prompt_sdxl)
            .or(non_empty(&meta.negative_prompt))
            .map_or_else(|| d.negative_prompt.clone(), str::to_string),
        _ => non_empty(&meta.negative_prompt).unwrap_or("").to_string(),
    };
    if negative_prompt.chars().count() > PROMPT_MAX_CHARS {
        return Err(ErrorCode::InvalidParams);
    }
    let n_iter = if !is_batch(action) || caller.role == Role::Visitor {
        1
    } else {
        match meta.n_iter {
            Some(n) => u32::try_from(n.clamp(i64::from(N_ITER_RANGE.0), i64::from(N_ITER_RANGE.1)))
                .unwrap_or(N_ITER_RANGE.0),
            None => default_n_iter(caller.role, &family.id),
        }
    };
    let (model, job_family) = if upscale {
        let up = match non_empty(&meta.up_scaler) {
            Some(name) => cat.upscaler(name).ok_or(ErrorCode::InvalidParams)?,
            None => cat.default_upscaler().ok_or(ErrorCode::Internal)?,
        };
        (up.name.clone(), family_ids::UPSCALER.to_string())
    } else {
        (checkpoint.model_ver_no.clone(), family.id.clone())
    };
    let frames = if action == Action::Animation {
        positive(meta.animatediff.as_ref().and_then(|a| a.frames))
            .unwrap_or(FRAMES_DEFAULT)
            .min(FRAMES_MAX)
    } else {
        0
    };
    let face_strength = match action {
        Action::FaceSwap => meta
            .exchange_face
            .as_ref()
            .and_then(|f| f.face_distance)
            .map_or(d.face_distance, |x| clamp_f(x, FACE_DISTANCE_RANGE)),
        Action::CharacterRepair => d.face_restorer_weight,
        _ => 0.0,
    };

    let job = JobSpec {
        video: None,
        task_id: String::new(),
        attempt: 0,
        action,
        family: job_family,
        model,
        loras,
        prompt: prompt.clone(),
        negative_prompt,
        width,
        height,
        n_iter,
        steps,
        cfg_scale,
        seed,
        sampler,
        denoising_strength,
        inputs: Vec::new(),
        upscale_ratio,
        left_margin,
        up_margin,
        control,
        frames,
        face_strength,
    };
    let speed = resolve_speed(caller, req.speed_type);
    let credits = if caller.role == Role::Visitor {
        0
    } else {
        cost(&job, speed)
    };
    Ok(Prepared {
        estimate_secs: estimate_secs(&job),
        cost: credits,
        job,
        category,
        speed,
        input_urls: inputs.urls,
        prompt,
    })
}

#[cfg(test)]
// The tables spell out their row types where they are read.
#[allow(clippy::type_complexity)]
mod tests {
    use super::*;
    use serde_json::json;

    const FREE: Caller = Caller {
        role: Role::Free,
        stored_speed: None,
    };
    const PAID: Caller = Caller {
        role: Role::Paid,
        stored_speed: None,
    };
    const VISITOR: Caller = Caller {
        role: Role::Visitor,
        stored_speed: None,
    };
    const IMG: &str = "https://cdn.example.com/in.png";

    fn req(v: serde_json::Value) -> CreateTaskRequest {
        serde_json::from_value(v).unwrap()
    }

    /// A valid text-to-image request on the sd family.
    fn t2i(meta: serde_json::Value) -> CreateTaskRequest {
        let mut base = json!({"prompt": "a cat", "art_model_ver_no": "sd15-v1"});
        if let (Some(b), Some(m)) = (base.as_object_mut(), meta.as_object()) {
            for (k, v) in m {
                b.insert(k.clone(), v.clone());
            }
        }
        req(json!({ "meta": base }))
    }

    fn run(r: &CreateTaskRequest, a: Action, c: &Caller) -> Result<Prepared, ErrorCode> {
        prepare(r, a, c, 777)
    }

    /// A request that satisfies every action's input needs.
    fn full(action: Action, extra: serde_json::Value) -> CreateTaskRequest {
        let mut meta = json!({
            "prompt": "a cat", "art_model_ver_no": "sd15-v1", "imageUrl": IMG,
            "imgFiles": [{"url": IMG, "width": 512, "height": 768}],
            "exchange_face": {"source_uri": "/files/face.png", "target_uri": "/files/body.png"},
        });
        if let (Some(b), Some(m)) = (meta.as_object_mut(), extra.as_object()) {
            for (k, v) in m {
                b.insert(k.clone(), v.clone());
            }
        }
        let _ = action;
        req(json!({ "meta": meta }))
    }

    #[test]
    fn visitors_have_only_the_starter_flow() {
        for a in Action::ALL {
            let r = run(&full(*a, json!({})), *a, &VISITOR);
            if *a == Action::TextToImage {
                let p = r.unwrap();
                assert_eq!((p.job.n_iter, p.cost, p.speed), (1, 0, SpeedType::Normal));
            } else {
                assert_eq!(r.unwrap_err(), ErrorCode::NeedLogin, "{a:?}");
            }
        }
        let with_lora = t2i(json!({"lora_models": [{"model_id": "detail-tweaker"}]}));
        assert_eq!(
            run(&with_lora, Action::TextToImage, &VISITOR).unwrap_err(),
            ErrorCode::NeedLogin
        );
        // n_iter 4 asked: still 1; size over 1024 scaled down keeping the ratio.
        let big = req(
            json!({"category": 5, "meta": {"prompt": "x", "n_iter": 4, "sdxl": {"width": 1536, "height": 1536}}}),
        );
        let p = run(&big, Action::TextToImage, &VISITOR).unwrap();
        assert_eq!((p.job.width, p.job.height, p.job.n_iter), (1024, 1024, 1));
        let tall =
            req(json!({"category": 5, "meta": {"prompt": "x", "width": 832, "height": 1216}}));
        let p = run(&tall, Action::TextToImage, &VISITOR).unwrap();
        assert_eq!((p.job.width, p.job.height), (704, 1024));
    }

    #[test]
    fn lora_limit_by_role() {
        let loras = |n: usize| -> serde_json::Value {
            let ids = [
                "detail-tweaker",
                "lineart-sd",
                "watercolor-sd",
                "detail-tweaker-1",
                "lineart-sd-1",
            ];
            json!({"lora_models": ids.iter().take(n).map(|id| json!({"model_id": id})).collect::<Vec<_>>()})
        };
        // (role, count, expected)
        let table = [
            (FREE, 0, Ok(0)),
            (FREE, 3, Ok(3)),
            (FREE, 4, Err(ErrorCode::LoRALimit5TipWeb)),
            (FREE, 5, Err(ErrorCode::LoRALimit5TipWeb)),
            (PAID, 4, Ok(4)),
            (PAID, 5, Ok(5)),
            (VISITOR, 1, Err(ErrorCode::NeedLogin)),
        ];
        for (caller, n, want) in table {
            let got = run(&t2i(loras(n)), Action::TextToImage, &caller).map(|p| p.job.loras.len());
            assert_eq!(got, want, "{:?} {n}", caller.role);
        }
        // The limit comes before any other check (spec 1 §5 order).
        let r = req(json!({"meta": {"lora_models": [{}, {}, {}, {}]}}));
        assert_eq!(
            run(&r, Action::TextToImage, &FREE).unwrap_err(),
            ErrorCode::LoRALimit5TipWeb
        );
    }

    #[test]
    fn lora_entries_resolve_and_clamp() {
        let r = t2i(json!({"lora_models": [
            {"model_ver_no": "detail-tweaker-1", "weight": 0.6},
            {"model_id": "lineart-sd"},
            {"model_id": "watercolor-sd", "weight": 9}
        ]}));
        let p = run(&r, Action::TextToImage, &PAID).unwrap();
        let got: Vec<(&str, f32)> = p
            .job
            .loras
            .iter()
            .map(|l| (l.model.as_str(), l.weight))
            .collect();
        assert_eq!(
            got,
            [
                ("detail-tweaker-1", 0.6),
                ("lineart-sd-1", 1.0),
                ("watercolor-sd-1", 2.0)
            ]
        );
        for bad in [json!({"model_id": "nope"}), json!({"weight": 1})] {
            let r = t2i(json!({ "lora_models": [bad] }));
            assert_eq!(
                run(&r, Action::TextToImage, &PAID).unwrap_err(),
                ErrorCode::InvalidParams
            );
        }
        // LoRAs do not travel with actions that run no checkpoint.
        let r = full(
            Action::Descriptors,
            json!({"lora_models": [{"model_id": "detail-tweaker"}]}),
        );
        assert!(run(&r, Action::Descriptors, &PAID)
            .unwrap()
            .job
            .loras
            .is_empty());
    }

    #[test]
    fn speed_by_role() {
        // (role, requested, stored, expected)
        let table = [
            (Role::Free, None, None, SpeedType::Normal),
            (Role::Free, Some(2), None, SpeedType::Normal),
            (
                Role::Free,
                Some(2),
                Some(SpeedType::Fast),
                SpeedType::Normal,
            ),
            (Role::Paid, None, None, SpeedType::Fast),
            (Role::Paid, None, Some(SpeedType::Normal), SpeedType::Normal),
            (
                Role::Paid,
                Some(1),
                Some(SpeedType::Fast),
                SpeedType::Normal,
            ),
            (
                Role::Paid,
                Some(2),
                Some(SpeedType::Normal),
                SpeedType::Fast,
            ),
            (Role::Visitor, Some(2), None, SpeedType::Normal),
        ];
        for (role, requested, stored, want) in table {
            let r = req(
                json!({"speed_type": requested, "meta": {"prompt": "a", "art_model_ver_no": "sd15-v1"}}),
            );
            let caller = Caller {
                role,
                stored_speed: stored,
            };
            assert_eq!(
                run(&r, Action::TextToImage, &caller).unwrap().speed,
                want,
                "{role:?} {requested:?} {stored:?}"
            );
        }
    }

    #[test]
    fn n_iter_defaults_and_clamps() {
        // (role, model, n_iter sent, expected)
        let table = [
            (FREE, "sd15-v1", None, 2),
            (PAID, "sd15-v1", None, 4),
            (FREE, "sd35-large-1", None, 4),
            (PAID, "sd35-large-1", None, 4),
            (FREE, "sd15-v1", Some(3), 3),
            (FREE, "sd15-v1", Some(9), 4),
            (PAID, "sd15-v1", Some(0), 1),
            (PAID, "sd15-v1", Some(-3), 1),
            (VISITOR, "sd15-v1", Some(4), 1),
        ];
        for (caller, model, n, want) in table {
            let r = req(json!({"meta": {"prompt": "a", "art_model_ver_no": model, "n_iter": n}}));
            assert_eq!(
                run(&r, Action::TextToImage, &caller).unwrap().job.n_iter,
                want,
                "{:?} {model} {n:?}",
                caller.role
            );
        }
        // Single-output actions make one.
        for a in [
            Action::Upscale,
            Action::Descriptors,
            Action::FaceSwap,
            Action::Animation,
            Action::CharacterRepair,
        ] {
            assert_eq!(
                run(&full(a, json!({"n_iter": 4})), a, &PAID)
                    .unwrap()
                    .job
                    .n_iter,
                1,
                "{a:?}"
            );
        }
        assert_eq!(
            run(
                &full(Action::ImageToImage, json!({"n_iter": 3})),
                Action::ImageToImage,
                &PAID
            )
            .unwrap()
            .job
            .n_iter,
            3
        );
    }

    #[test]
    fn image_tabs_need_their_images() {
        use Action::*;
        let missing = |a: Action| {
            if a == Animation {
                ErrorCode::PleaseSelectImage
            } else {
                ErrorCode::PleaseUploadImage
            }
        };
        for a in [
            Upscale,
            ExtraUpscale,
            ImageToImage,
            ConditionToImage,
            Descriptors,
            Preview,
            Expansion,
            FaceSwap,
            Animation,
            CharacterRepair,
            Variation,
            RemoveBackground,
        ] {
            let r = t2i(json!({}));
            assert_eq!(run(&r, a, &PAID).unwrap_err(), missing(a), "{a:?}");
            let empty = t2i(json!({"imageUrl": "", "imgFiles": [{"url": " "}]}));
            assert_eq!(
                run(&empty, a, &PAID).unwrap_err(),
                missing(a),
                "{a:?} empty"
            );
        }
        // Face swap needs both faces.
        let one = t2i(json!({"exchange_face": {"source_uri": IMG}}));
        assert_eq!(
            run(&one, FaceSwap, &PAID).unwrap_err(),
            ErrorCode::PleaseUploadImage
        );
        // Image checks come before the prompt check.
        let r = req(json!({"meta": {}}));
        assert_eq!(
            run(&r, ImageToImage, &PAID).unwrap_err(),
            ErrorCode::PleaseUploadImage
        );
    }

    #[test]
    fn input_roles_per_action() {
        use Action::*;
        use InputRole::*;
        // (action, extra meta, expected roles and URLs)
        let table: Vec<(Action, serde_json::Value, Vec<(InputRole, &str)>)> = vec![
            (TextToImage, json!({}), vec![]),
            (ImageToImage, json!({}), vec![(Init, IMG)]),
            (
                ImageToImage,
                json!({"mask": "/files/mask.png"}),
                vec![(Init, IMG), (Mask, "/files/mask.png")],
            ),
            (
                ImageToImage,
                json!({"imageUrl": null, "imgFiles": [{"url": "/files/a.png"}]}),
                vec![(Init, "/files/a.png")],
            ),
            (Upscale, json!({}), vec![(Init, IMG)]),
            (ExtraUpscale, json!({}), vec![(Init, IMG)]),
            (Variation, json!({}), vec![(Init, IMG)]),
            (RemoveBackground, json!({}), vec![(Init, IMG)]),
            (Descriptors, json!({}), vec![(Init, IMG)]),
            (Preview, json!({}), vec![(Init, IMG)]),
            (
                Preview,
                json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "canny"}]}),
                vec![(Condition, "/files/c.png")],
            ),
            (ConditionToImage, json!({}), vec![(Condition, IMG)]),
            (
                ConditionToImage,
                json!({"controlnet_units": [{"input_image": ""}, {"input_image": "/files/c.png"}]}),
                vec![(Condition, "/files/c.png")],
            ),
            (
                Expansion,
                json!({"width": 1024, "height": 1024}),
                vec![(Init, IMG)],
            ),
            (
                FaceSwap,
                json!({}),
                vec![
                    (FaceSource, "/files/face.png"),
                    (FaceTarget, "/files/body.png"),
                ],
            ),
            (Animation, json!({}), vec![(Init, IMG)]),
            (CharacterRepair, json!({}), vec![(Init, IMG)]),
        ];
        for (a, extra, want) in table {
            let p = run(&full(a, extra), a, &PAID).unwrap_or_else(|e| panic!("{a:?}: {e}"));
            let got: Vec<(InputRole, &str)> =
                p.input_urls.iter().map(|(r, u)| (*r, u.as_str())).collect();
            assert_eq!(got, want, "{a:?}");
            assert!(p.job.inputs.is_empty() && p.job.task_id.is_empty() && p.job.attempt == 0);
        }
    }

    #[test]
    fn control_guidance() {
        let r = full(
            Action::ConditionToImage,
            json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "Depth", "weight": 5, "guidance_end": 0.4}]}),
        );
        let c = run(&r, Action::ConditionToImage, &PAID)
            .unwrap()
            .job
            .control
            .unwrap();
        assert_eq!(
            (c.module.as_str(), c.weight, c.guidance_end),
            ("depth", 2.0, 0.4)
        );
        let bare = run(
            &full(Action::ConditionToImage, json!({})),
            Action::ConditionToImage,
            &PAID,
        )
        .unwrap();
        assert_eq!(
            bare.job.control,
            Some(ControlSpec {
                module: "none".into(),
                weight: 1.0,
                guidance_end: 1.0
            })
        );
        let bad = full(
            Action::ConditionToImage,
            json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "telepathy"}]}),
        );
        assert_eq!(
            run(&bad, Action::ConditionToImage, &PAID).unwrap_err(),
            ErrorCode::InvalidParams
        );
        // Text-to-image with a control-net unit carries its condition.
        let t = t2i(
            json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "openpose"}]}),
        );
        let p = run(&t, Action::TextToImage, &PAID).unwrap();
        assert_eq!(p.job.control.unwrap().module, "openpose");
        assert_eq!(
            p.input_urls,
            vec![(InputRole::Condition, "/files/c.png".to_string())]
        );
        assert!(run(&t2i(json!({})), Action::TextToImage, &PAID)
            .unwrap()
            .job
            .control
            .is_none());
    }

    #[test]
    fn text_tabs_need_a_prompt() {
        use Action::*;
        for a in [TextToImage, ImageToImage, ConditionToImage, Expansion] {
            for p in [json!(null), json!(""), json!("   "), json!("--auto --s2")] {
                let r = full(a, json!({"prompt": p, "width": 1024, "height": 1024}));
                assert_eq!(
                    run(&r, a, &PAID).unwrap_err(),
                    ErrorCode::PromptNotEmpty,
                    "{a:?} {p}"
                );
            }
        }
        for a in [
            Upscale,
            Descriptors,
            Preview,
            FaceSwap,
            Animation,
            CharacterRepair,
            Variation,
            RemoveBackground,
        ] {
            assert!(
                run(&full(a, json!({"prompt": ""})), a, &PAID).is_ok(),
                "{a:?}"
            );
        }
        // local_prompt stands in for prompt.
        let r = t2i(json!({"prompt": "", "local_prompt": "un chat"}));
        assert_eq!(run(&r, TextToImage, &PAID).unwrap().prompt, "un chat");
        // Studio with a condition image is exempt; without one it is not; normal never.
        let studio_cond = req(
            json!({"category": 7, "meta": {"lab_base": {"conds": [{"image": "/files/c.png", "mode": "PyraCanny", "stop_at": 0.5, "weight": 0.8}]}}}),
        );
        let p = run(&studio_cond, TextToImage, &PAID).unwrap();
        assert_eq!(p.category, Category::Studio);
        let c = p.job.control.unwrap();
        assert_eq!(
            (c.module.as_str(), c.weight, c.guidance_end),
            ("pyracanny", 0.8, 0.5)
        );
        let studio_unit = req(
            json!({"category": 11, "meta": {"controlnet_units": [{"input_image": "/files/c.png"}]}}),
        );
        assert!(run(&studio_unit, TextToImage, &PAID).is_ok());
        let studio_plain = req(json!({"category": 7, "meta": {}}));
        assert_eq!(
            run(&studio_plain, TextToImage, &PAID).unwrap_err(),
            ErrorCode::PromptNotEmpty
        );
        let normal_cond = req(
            json!({"meta": {"art_model_ver_no": "sd15-v1", "controlnet_units": [{"input_image": "/files/c.png"}]}}),
        );
        assert_eq!(
            run(&normal_cond, TextToImage, &PAID).unwrap_err(),
            ErrorCode::PromptNotEmpty
        );
        // Length limit.
        let long = t2i(json!({"prompt": "a".repeat(PROMPT_MAX_CHARS + 1)}));
        assert_eq!(
            run(&long, TextToImage, &PAID).unwrap_err(),
            ErrorCode::InvalidParams
        );
        let max = t2i(json!({"prompt": "é".repeat(PROMPT_MAX_CHARS)}));
        assert!(run(&max, TextToImage, &PAID).is_ok());
        let neg = t2i(json!({"negative_prompt": "a".repeat(PROMPT_MAX_CHARS + 1)}));
        assert_eq!(
            run(&neg, TextToImage, &PAID).unwrap_err(),
            ErrorCode::InvalidParams
        );
    }

    #[test]
    fn flags_are_stripped() {
        let table = [
            ("a cat --auto", "a cat"),
            ("--s2 a cat", "a cat"),
            ("a --AUTO cat --s2", "a cat"),
            ("a  --auto  b", "a   b"),
            ("a cat, --autopilot", "a cat, --autopilot"),
            ("line one --auto\nline two", "line one\nline two"),
            ("(a:1.2), [b] --s2", "(a:1.2), [b]"),
            ("--auto", ""),
        ];
        for (input, want) in table {
            assert_eq!(strip_flags(input), want, "{input}");
        }
        let p = run(
            &t2i(json!({"prompt": "a red fox --auto"})),
            Action::TextToImage,
            &PAID,
        )
        .unwrap();
        assert_eq!(
            (p.prompt.as_str(), p.job.prompt.as_str()),
            ("a red fox", "a red fox")
        );
    }

    #[test]
    fn base_model_rules() {
        use Action::*;
        // (category, model fields, action, expected checkpoint or error)
        let table: Vec<(
            Option<u16>,
            serde_json::Value,
            Action,
            Result<&str, ErrorCode>,
        )> = vec![
            (
                None,
                json!({}),
                TextToImage,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (
                Some(1),
                json!({}),
                TextToImage,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (
                Some(2),
                json!({}),
                ImageToImage,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (
                Some(1),
                json!({}),
                ConditionToImage,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (
                Some(1),
                json!({}),
                Expansion,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (Some(5), json!({}), TextToImage, Ok("sdxl-base-1.0")),
            (Some(7), json!({}), TextToImage, Ok("studio-enhance-xl-1")),
            (Some(11), json!({}), TextToImage, Ok("studio-enhance-xl-1")),
            (Some(3), json!({}), TextToImage, Ok("sd15-v1")),
            (Some(1), json!({}), Variation, Ok("sd15-v1")),
            (Some(1), json!({}), Descriptors, Ok("sd15-v1")),
            (
                None,
                json!({"art_model_ver_no": "flux-dev-1"}),
                TextToImage,
                Ok("flux-dev-1"),
            ),
            (
                None,
                json!({"art_model_no": "juggernaut-xl"}),
                TextToImage,
                Ok("juggernaut-xl-9"),
            ),
            (
                None,
                json!({"art_work_no": "starter-anime"}),
                TextToImage,
                Ok("illustrious-xl-1.0"),
            ),
            (
                None,
                json!({"art_model_ver_no": "nope"}),
                TextToImage,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (
                Some(5),
                json!({"art_model_no": "nope"}),
                TextToImage,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (
                None,
                json!({"art_work_no": "nope"}),
                Descriptors,
                Err(ErrorCode::PleaseSelectBaseName),
            ),
            (
                Some(1),
                json!({"art_model_ver_no": "nope"}),
                Upscale,
                Ok("4x-UltraSharp"),
            ),
        ];
        for (cat, fields, a, want) in table {
            let mut meta = json!({"prompt": "a cat", "imageUrl": IMG, "imgFiles": [{"url": IMG, "width": 512, "height": 768}], "width": 1024, "height": 1024});
            if let (Some(m), Some(f)) = (meta.as_object_mut(), fields.as_object()) {
                for (k, v) in f {
                    m.insert(k.clone(), v.clone());
                }
            }
            if a == Expansion || a == Upscale {
                meta["width"] = json!(null);
                meta["height"] = json!(null);
            }
            let r = req(json!({"category": cat, "meta": meta}));
            let got = run(&r, a, &PAID).map(|p| p.job.model);
            assert_eq!(
                got.as_deref().map_err(|e| *e),
                want,
                "{cat:?} {fields} {a:?}"
            );
        }
        // Request-level ids win over meta's; the category follows the checkpoint.
        let r = req(
            json!({"art_model_ver_no": "sdxl-base-1.0", "meta": {"prompt": "a", "art_model_ver_no": "sd15-v1"}}),
        );
        let p = run(&r, TextToImage, &PAID).unwrap();
        assert_eq!(
            (p.job.model.as_str(), p.job.family.as_str(), p.category),
            ("sdxl-base-1.0", "sdxl", Category::Sdxl)
        );
        let r = req(json!({"category": 2, "meta": {"prompt": "a", "art_model_ver_no": "sd15-v1"}}));
        assert_eq!(
            run(&r, TextToImage, &PAID).unwrap().category,
            Category::Normal
        );
    }

    #[test]
    fn upscale_output_and_limit() {
        // (source via, ratio, expected output or error)
        let table: Vec<(
            serde_json::Value,
            serde_json::Value,
            Result<(u32, u32, f32), ErrorCode>,
        )> = vec![
            (
                json!({"width": 1024, "height": 1536}),
                json!(null),
                Ok((2048, 3072, 2.0)),
            ),
            (
                json!({"width": 1024, "height": 1536}),
                json!(2.5),
                Ok((2560, 3840, 2.5)),
            ),
            (
                json!({"width": 2048, "height": 2048}),
                json!(2),
                Ok((4096, 4096, 2.0)),
            ),
            (
                json!({"width": 2048, "height": 2049}),
                json!(2),
                Err(ErrorCode::ImageSizeExceedsError),
            ),
            (
                json!({"width": 1500, "height": 1000}),
                json!(3),
                Err(ErrorCode::ImageSizeExceedsError),
            ),
            (
                json!({"width": 512, "height": 512}),
                json!(9),
                Ok((2048, 2048, 4.0)),
            ),
            (
                json!({"width": 512, "height": 512}),
                json!(0.5),
                Ok((512, 512, 1.0)),
            ),
            (
                json!({"width": 512, "height": 512}),
                json!(0),
                Ok((1024, 1024, 2.0)),
            ),
            (
                json!({"imgFiles": [{"url": IMG, "width": 600, "height": 400}]}),
                json!(2),
                Ok((1200, 800, 2.0)),
            ),
            (
                json!({"imgFiles": [{"url": IMG}]}),
                json!(2),
                Err(ErrorCode::InvalidParams),
            ),
        ];
        for (src, ratio, want) in table {
            let mut meta = json!({"imageUrl": IMG, "scaling_ratio": ratio});
            if let (Some(m), Some(s)) = (meta.as_object_mut(), src.as_object()) {
                for (k, v) in s {
                    m.insert(k.clone(), v.clone());
                }
            }
            for a in [Action::Upscale, Action::ExtraUpscale] {
                let got = run(&req(json!({ "meta": meta })), a, &PAID)
                    .map(|p| (p.job.width, p.job.height, p.job.upscale_ratio));
                assert_eq!(got, want, "{src} {ratio}");
            }
        }
        let p = run(&req(json!({"meta": {"imageUrl": IMG, "width": 512, "height": 512, "up_scaler": "r-esrgan 4x+"}})), Action::Upscale, &PAID).unwrap();
        assert_eq!(
            (p.job.model.as_str(), p.job.family.as_str()),
            ("R-ESRGAN 4x+", "upscaler")
        );
        let p = run(
            &req(json!({"meta": {"imageUrl": IMG, "width": 512, "height": 512}})),
            Action::Upscale,
            &PAID,
        )
        .unwrap();
        assert_eq!(p.job.model, "4x-UltraSharp");
        let bad = req(
            json!({"meta": {"imageUrl": IMG, "width": 512, "height": 512, "up_scaler": "magic"}}),
        );
        assert_eq!(
            run(&bad, Action::Upscale, &PAID).unwrap_err(),
            ErrorCode::InvalidParams
        );
    }

    #[test]
    fn image_urls() {
        let table = [
            ("https://cdn.example.com/a.png", true),
            ("http://localhost:8080/files/a.png", true),
            ("HTTPS://CDN.EXAMPLE.COM/A.PNG", true),
            ("/files/ab/cd.png", true),
            ("/files/", false),
            ("/files/../etc/passwd", false),
            ("/files/a//b.png", false),
            ("/other/a.png", false),
            ("data:image/png;base64,AAAA", false),
            ("blob:https://x/y", false),
            ("file:///etc/passwd", false),
            ("ftp://x/y.png", false),
            ("https://", false),
            ("https:///a.png", false),
            ("https://user@host/a.png", false),
            ("https://x/a b.png", false),
            (" https://x/a.png", false),
            ("https://x/a\\b.png", false),
            ("", false),
        ];
        for (url, want) in table {
            assert_eq!(is_valid_image_url(url), want, "{url}");
        }
        assert!(!is_valid_image_url(&format!(
            "https://x/{}",
            "a".repeat(2100)
        )));
    }

    #[test]
    fn mask_and_inputs_must_be_uploaded() {
        let r = full(
            Action::ImageToImage,
            json!({"mask": "data:image/png;base64,AAAA"}),
        );
        assert_eq!(
            run(&r, Action::ImageToImage, &PAID).unwrap_err(),
            ErrorCode::UploadError
        );
        let r = full(
            Action::ImageToImage,
            json!({"mask": "https://cdn.example.com/mask.png"}),
        );
        assert!(run(&r, Action::ImageToImage, &PAID).is_ok());
        for a in [
            Action::ImageToImage,
            Action::Upscale,
            Action::Descriptors,
            Action::Animation,
        ] {
            let r = full(a, json!({"imageUrl": "C:\\pics\\cat.png"}));
            assert_eq!(
                run(&r, a, &PAID).unwrap_err(),
                ErrorCode::UploadError,
                "{a:?}"
            );
        }
        let r = full(
            Action::FaceSwap,
            json!({"exchange_face": {"source_uri": "/files/a.png", "target_uri": "x.png"}}),
        );
        assert_eq!(
            run(&r, Action::FaceSwap, &PAID).unwrap_err(),
            ErrorCode::UploadError
        );
        // The mask's source image is at most 4096 a side.
        let r = full(
            Action::ImageToImage,
            json!({"mask": "/files/m.png", "width": 1024, "height": 1024, "imgFiles": [{"url": IMG, "width": 5000, "height": 3000}]}),
        );
        assert_eq!(
            run(&r, Action::ImageToImage, &PAID).unwrap_err(),
            ErrorCode::ImageSizeExceedsError
        );
    }

    #[test]
    fn studio_lora_family_check() {
        // (category, checkpoint, lora, lora_ignore, expected)
        let table = [
            (7, "studio-enhance-xl-1", "pixel-art-xl", None, Ok(())),
            (
                7,
                "studio-enhance-xl-1",
                "detail-tweaker",
                None,
                Err(ErrorCode::Studio25),
            ),
            (
                7,
                "studio-enhance-xl-1",
                "detail-tweaker",
                Some(false),
                Err(ErrorCode::Studio25),
            ),
            (
                7,
                "studio-enhance-xl-1",
                "detail-tweaker",
                Some(true),
                Ok(()),
            ),
            (
                11,
                "studio-il-1",
                "pixel-art-xl",
                None,
                Err(ErrorCode::Studio25),
            ),
            (11, "studio-il-1", "il-sketch", None, Ok(())),
            (1, "sd15-v1", "pixel-art-xl", None, Ok(())),
        ];
        for (cat, ckpt, lora, ignore, want) in table {
            let r = req(
                json!({"category": cat, "meta": {"prompt": "a", "art_model_ver_no": ckpt, "lora_ignore": ignore, "lora_models": [{"model_id": lora}]}}),
            );
            assert_eq!(
                run(&r, Action::TextToImage, &PAID).map(|_| ()),
                want,
                "{cat} {ckpt} {lora} {ignore:?}"
            );
        }
    }

    #[test]
    fn seeds() {
        // (seed sent, expected)
        let table = [
            (json!(null), Ok(777)),
            (json!(""), Ok(777)),
            (json!(0), Ok(777)),
            (json!(-1), Ok(777)),
            (json!("-1"), Ok(777)),
            (json!(42), Ok(42)),
            (json!("4294967294"), Ok(4_294_967_294)),
            (json!(4_294_967_295_i64), Err(ErrorCode::InvalidParams)),
            (json!(-2), Err(ErrorCode::InvalidParams)),
        ];
        for (seed, want) in table {
            let got =
                run(&t2i(json!({ "seed": seed })), Action::TextToImage, &PAID).map(|p| p.job.seed);
            assert_eq!(got, want, "{seed}");
        }
        assert_eq!(resolve_seed(None, u64::MAX), Ok(RANDOM_SEED_MAX));
        // sdxl reads seedsdxl first.
        let r = req(json!({"category": 5, "meta": {"prompt": "a", "seed": 5, "seedsdxl": 9}}));
        assert_eq!(run(&r, Action::TextToImage, &PAID).unwrap().job.seed, 9);
        let r = req(json!({"category": 5, "meta": {"prompt": "a", "seed": 5}}));
        assert_eq!(run(&r, Action::TextToImage, &PAID).unwrap().job.seed, 5);
    }

    #[test]
    fn numeric_normalisations() {
        // (category, meta, steps, cfg, denoising)
        let table = [
            (1, json!({}), 20, 7.0, 0.35),
            (
                1,
                json!({"steps": 500, "cfg_scale": 99, "denoising_strength": 3}),
                150,
                30.0,
                1.0,
            ),
            (
                1,
                json!({"steps": 0, "cfg_scale": 0.1, "denoising_strength": -1}),
                20,
                1.0,
                0.0,
            ),
            (1, json!({"steps": -4}), 20, 7.0, 0.35),
            (1, json!({"steps": 10}), 10, 7.0, 0.35),
            (7, json!({"steps": 10}), 30, 6.0, 0.5),
            (7, json!({"steps": 24}), 30, 6.0, 0.5),
            (7, json!({"steps": 25}), 25, 6.0, 0.5),
            (11, json!({"steps": 1}), 30, 6.0, 0.5),
            (5, json!({}), 30, 7.0, 0.35),
            (5, json!({"cfg_scale": "4.5", "steps": "12"}), 12, 4.5, 0.35),
        ];
        for (cat, extra, steps, cfg, den) in table {
            let mut meta = json!({"prompt": "a"});
            if cat == 1 {
                meta["art_model_ver_no"] = json!("sd15-v1");
            }
            if let (Some(m), Some(e)) = (meta.as_object_mut(), extra.as_object()) {
                for (k, v) in e {
                    m.insert(k.clone(), v.clone());
                }
            }
            let j = run(
                &req(json!({"category": cat, "meta": meta})),
                Action::TextToImage,
                &PAID,
            )
            .unwrap()
            .job;
            assert_eq!(
                (j.steps, j.cfg_scale, j.denoising_strength),
                (steps, cfg, den),
                "{cat} {extra}"
            );
        }
    }

    #[test]
    fn defaults_per_category_and_family() {
        // (category, model, sampler, cfg, steps, width, height, negative contains)
        let table = [
            (
                None,
                Some("sd15-v1"),
                "DPM++ 2M Karras",
                7.0,
                20,
                624,
                936,
                "",
            ),
            (None, Some("flux-dev-1"), "Euler", 3.5, 20, 688, 1024, ""),
            (
                None,
                Some("sd35-large-1"),
                "DPM++ 2M Karras",
                7.0,
                20,
                832,
                1216,
                "",
            ),
            (
                Some(5),
                None,
                "DPM++ 2M Karras",
                7.0,
                30,
                832,
                1216,
                "worst quality",
            ),
            (Some(7), None, "DPM++ 2M Karras", 6.0, 30, 832, 1216, ""),
            (
                Some(7),
                Some("studio-il-1"),
                "DPM++ 2M Karras",
                6.0,
                30,
                832,
                1216,
                "",
            ),
            (
                None,
                Some("seadream-3"),
                "DPM++ 2M Karras",
                7.0,
                20,
                1208,
                1808,
                "",
            ),
        ];
        for (cat, model, sampler, cfg, steps, w, h, neg) in table {
            let r =
                req(json!({"category": cat, "meta": {"prompt": "a", "art_model_ver_no": model}}));
            let j = run(&r, Action::TextToImage, &PAID).unwrap().job;
            assert_eq!(j.sampler, sampler, "{cat:?} {model:?}");
            assert_eq!(
                (j.cfg_scale, j.steps, j.width, j.height),
                (cfg, steps, w, h),
                "{cat:?} {model:?}"
            );
            assert!(j.negative_prompt.contains(neg));
            assert_eq!(j.negative_prompt.is_empty(), neg.is_empty());
        }
        // A sent negative prompt wins; sdxl prefers negative_prompt_sdxl.
        let r = req(
            json!({"category": 5, "meta": {"prompt": "a", "negative_prompt": "blurry", "negative_prompt_sdxl": "ugly"}}),
        );
        assert_eq!(
            run(&r, Action::TextToImage, &PAID)
                .unwrap()
                .job
                .negative_prompt,
            "ugly"
        );
        let r = req(json!({"category": 5, "meta": {"prompt": "a", "negative_prompt": "blurry"}}));
        assert_eq!(
            run(&r, Action::TextToImage, &PAID)
                .unwrap()
                .job
                .negative_prompt,
            "blurry"
        );
        // Samplers by id or name; unknown refused.
        let j = run(
            &t2i(json!({"sampler_name": "euler_a"})),
            Action::TextToImage,
            &PAID,
        )
        .unwrap()
        .job;
        assert_eq!(j.sampler, "Euler a");
        assert_eq!(
            run(
                &t2i(json!({"sampler_name": "warp"})),
                Action::TextToImage,
                &PAID
            )
            .unwrap_err(),
            ErrorCode::InvalidParams
        );
        // Image-to-image keeps its denoising default; studio's is 0.5.
        let j = run(
            &full(Action::ImageToImage, json!({})),
            Action::ImageToImage,
            &PAID,
        )
        .unwrap()
        .job;
        assert_eq!((j.denoising_strength, j.width, j.height), (0.35, 512, 768));
    }

    #[test]
    fn sizes() {
        // (category, model, meta sizes, expected)
        let table: Vec<(
            Option<u16>,
            &str,
            serde_json::Value,
            Result<(u32, u32), ErrorCode>,
        )> = vec![
            (
                None,
                "sd15-v1",
                json!({"width": 768, "height": 432}),
                Ok((768, 432)),
            ),
            (
                None,
                "sd15-v1",
                json!({"width": 1024, "height": 1024}),
                Ok((1024, 1024)),
            ),
            (
                None,
                "sd15-v1",
                json!({"width": 1536, "height": 1536}),
                Err(ErrorCode::ImageSizeTooLarge),
            ),
            (
                None,
                "sd15-v1",
                json!({"width": 256, "height": 256}),
                Err(ErrorCode::ImageSizeTooSmall),
            ),
            (
                None,
                "sd15-v1",
                json!({"width": 1024, "height": 400}),
                Err(ErrorCode::ImageRatioInvalid),
            ),
            (
                None,
                "sd15-v1",
                json!({"width": 0, "height": -5}),
                Ok((1024, 1024)),
            ),
            (
                None,
                "sd15-v1",
                json!({"width": "", "height": ""}),
                Ok((624, 936)),
            ),
            (
                None,
                "sd15-v1",
                json!({"width": 5_000_000_000_i64, "height": 1024}),
                Err(ErrorCode::ImageSizeTooLarge),
            ),
            (
                None,
                "flux-dev-1",
                json!({"width": 1536, "height": 1536}),
                Ok((1536, 1536)),
            ),
            (
                None,
                "flux-dev-1",
                json!({"width": 384, "height": 384}),
                Ok((384, 384)),
            ),
            (
                None,
                "flux-dev-1",
                json!({"width": 1024, "height": 2048}),
                Err(ErrorCode::ImageSizeTooLarge),
            ),
            (
                None,
                "sdxl-base-1.0",
                json!({"width": 1536, "height": 640}),
                Err(ErrorCode::ImageRatioInvalid),
            ),
            (
                None,
                "sdxl-base-1.0",
                json!({"width": 1440, "height": 810}),
                Ok((1440, 810)),
            ),
            (
                None,
                "seadream-3",
                json!({"width": 2048, "height": 880}),
                Ok((2048, 880)),
            ),
            (
                Some(5),
                "sdxl-base-1.0",
                json!({"sdxl": {"width": 1024, "height": 1024}, "width": 600, "height": 600}),
                Ok((1024, 1024)),
            ),
            (
                Some(7),
                "studio-enhance-xl-1",
                json!({"studio": {"width": 700, "height": 900}}),
                Err(ErrorCode::ImageSizeTooSmall),
            ),
            (
                Some(7),
                "studio-enhance-xl-1",
                json!({"studio": {"width": 1168, "height": 912}}),
                Ok((1168, 912)),
            ),
            (None, "sd15-v1", json!({"imageMode": 1}), Ok((352, 512))),
            (
                None,
                "sdxl-base-1.0",
                json!({"imageMode": 1}),
                Err(ErrorCode::ImageSizeTooSmall),
            ),
            (None, "sd15-v1", json!({"imageMode": 2}), Ok((512, 768))),
            (None, "sd15-v1", json!({"imageMode": 3}), Ok((688, 1024))),
            (None, "sd15-v1", json!({"imageMode": 4}), Ok((688, 1024))),
            (
                None,
                "sdxl-base-1.0",
                json!({"imageMode": 9}),
                Ok((832, 1216)),
            ),
        ];
        for (cat, model, sizes, want) in table {
            let mut meta = json!({"prompt": "a", "art_model_ver_no": model});
            if let (Some(m), Some(s)) = (meta.as_object_mut(), sizes.as_object()) {
                for (k, v) in s {
                    m.insert(k.clone(), v.clone());
                }
            }
            let got = run(
                &req(json!({"category": cat, "meta": meta})),
                Action::TextToImage,
                &PAID,
            )
            .map(|p| (p.job.width, p.job.height));
            assert_eq!(got, want, "{cat:?} {model} {sizes}");
        }
        // Image-to-image: mode 4 is allowed (text-to-image stops at 3); a big
        // source without a size is fitted to the family.
        let r = full(
            Action::ImageToImage,
            json!({"art_model_ver_no": "sdxl-base-1.0", "imageMode": 4}),
        );
        assert_eq!(
            run(&r, Action::ImageToImage, &PAID).map(|p| (p.job.width, p.job.height)),
            Ok((1024, 1536))
        );
        let r = full(
            Action::ImageToImage,
            json!({"imgFiles": [{"url": IMG, "width": 3000, "height": 2000}]}),
        );
        assert_eq!(
            run(&r, Action::ImageToImage, &PAID).map(|p| (p.job.width, p.job.height)),
            Ok((1024, 680))
        );
        // Tools keep the source size, at most 4096.
        let r = full(
            Action::RemoveBackground,
            json!({"imgFiles": [{"url": IMG, "width": 3000, "height": 2000}]}),
        );
        assert_eq!(
            run(&r, Action::RemoveBackground, &PAID).map(|p| (p.job.width, p.job.height)),
            Ok((3000, 2000))
        );
        let r = full(
            Action::Descriptors,
            json!({"imgFiles": [{"url": IMG, "width": 5000, "height": 2000}]}),
        );
        assert_eq!(
            run(&r, Action::Descriptors, &PAID).unwrap_err(),
            ErrorCode::ImageSizeExceedsError
        );
    }

    #[test]
    fn expansion_canvas_and_margins() {
        // source 512x768 (imgFiles); (meta, expected (w, h, left, up) or error)
        let table: Vec<(serde_json::Value, Result<(u32, u32, u32, u32), ErrorCode>)> = vec![
            (
                json!({"width": 1024, "height": 1024}),
                Ok((1024, 1024, 256, 128)),
            ),
            (
                json!({"width": 1024, "height": 1024, "left_margin": 0, "up_margin": 256}),
                Ok((1024, 1024, 0, 256)),
            ),
            (
                json!({"width": 1024, "height": 1024, "left_margin": 513, "up_margin": 0}),
                Err(ErrorCode::InvalidParams),
            ),
            (
                json!({"width": 1024, "height": 1024, "left_margin": 512, "up_margin": 257}),
                Err(ErrorCode::InvalidParams),
            ),
            (
                json!({"width": 1024, "height": 1024, "left_margin": -1}),
                Err(ErrorCode::InvalidParams),
            ),
            (
                json!({"width": 4097, "height": 1024}),
                Err(ErrorCode::ImageSizeExceedsError),
            ),
            (
                json!({"width": 256, "height": 1024}),
                Err(ErrorCode::ImageSizeTooSmall),
            ),
            (
                json!({"width": 4096, "height": 4096}),
                Ok((4096, 4096, 1792, 1664)),
            ),
            (json!({"width": 0, "height": 0}), Ok((1024, 1024, 256, 128))),
            (
                json!({"imgFiles": [{"url": IMG}], "width": 1024, "height": 1024, "left_margin": 1023}),
                Ok((1024, 1024, 1023, 0)),
            ),
            (
                json!({"imgFiles": [{"url": IMG}], "width": 1024, "height": 1024, "left_margin": 1024}),
                Err(ErrorCode::InvalidParams),
            ),
        ];
        for (extra, want) in table {
            let got = run(
                &full(Action::Expansion, extra.clone()),
                Action::Expansion,
                &PAID,
            )
            .map(|p| {
                (
                    p.job.width,
                    p.job.height,
                    p.job.left_margin,
                    p.job.up_margin,
                )
            });
            assert_eq!(got, want, "{extra}");
        }
    }

    #[test]
    fn animation_frames_and_face_strength() {
        // (animatediff, frames)
        let table = [
            (json!(null), 16),
            (json!({}), 16),
            (json!({"frames": 24}), 24),
            (json!({"frames": 100}), 48),
            (json!({"frames": 0}), 16),
            (json!({"frames": -3}), 16),
        ];
        for (ad, want) in table {
            let p = run(
                &full(Action::Animation, json!({"animatediff": ad})),
                Action::Animation,
                &PAID,
            )
            .unwrap();
            assert_eq!(p.job.frames, want, "{ad}");
        }
        assert_eq!(
            run(
                &full(Action::TextToImage, json!({})),
                Action::TextToImage,
                &PAID
            )
            .unwrap()
            .job
            .frames,
            0
        );
        let fs = |a: Action, extra| run(&full(a, extra), a, &PAID).unwrap().job.face_strength;
        assert_eq!(fs(Action::FaceSwap, json!({})), 1.5);
        assert_eq!(
            fs(
                Action::FaceSwap,
                json!({"exchange_face": {"source_uri": IMG, "target_uri": IMG, "face_distance": 9}})
            ),
            3.0
        );
        assert_eq!(fs(Action::CharacterRepair, json!({})), 0.6);
        assert_eq!(fs(Action::TextToImage, json!({})), 0.0);
    }

    #[test]
    fn cost_and_estimate() {
        // (caller, category, model, n_iter, expected cost)
        let table = [
            (FREE, None, "sd15-v1", None, 2),
            (PAID, None, "sd15-v1", None, 4),
            (PAID, Some(5), "sdxl-base-1.0", Some(4), 8),
            (VISITOR, None, "sd15-v1", None, 0),
        ];
        for (caller, cat, model, n, want) in table {
            let r = req(
                json!({"category": cat, "meta": {"prompt": "a", "art_model_ver_no": model, "n_iter": n}}),
            );
            let p = run(&r, Action::TextToImage, &caller).unwrap();
            assert_eq!(p.cost, want, "{:?} {model}", caller.role);
            assert_eq!(p.estimate_secs, estimate_secs(&p.job));
            if caller.role != Role::Visitor {
                assert_eq!(p.cost, cost(&p.job, p.speed));
            }
        }
    }

    #[test]
    fn validation_order_follows_the_client() {
        use ErrorCode::*;
        // Each row fixes the previous row's first fault, so the next one shows.
        let rows: Vec<(Action, Caller, serde_json::Value, ErrorCode)> = vec![
            (
                Action::ImageToImage,
                VISITOR,
                json!({"category": 1, "meta": {}}),
                NeedLogin,
            ),
            (
                Action::ImageToImage,
                FREE,
                json!({"meta": {"lora_models": [{}, {}, {}, {}]}}),
                LoRALimit5TipWeb,
            ),
            (
                Action::ImageToImage,
                FREE,
                json!({"meta": {"mask": "bad"}}),
                PleaseUploadImage,
            ),
            (
                Action::ImageToImage,
                FREE,
                json!({"meta": {"imageUrl": IMG, "mask": "bad"}}),
                PromptNotEmpty,
            ),
            (
                Action::ImageToImage,
                FREE,
                json!({"meta": {"imageUrl": IMG, "mask": "bad", "prompt": "a"}}),
                PleaseSelectBaseName,
            ),
            (
                Action::ImageToImage,
                FREE,
                json!({"meta": {"imageUrl": IMG, "mask": "bad", "prompt": "a", "art_model_ver_no": "sd15-v1"}}),
                UploadError,
            ),
            (
                Action::Upscale,
                FREE,
                json!({"meta": {"imageUrl": "bad", "width": 4000, "height": 10}}),
                ImageSizeExceedsError,
            ),
            (
                Action::Upscale,
                FREE,
                json!({"meta": {"imageUrl": "bad", "width": 400, "height": 10}}),
                UploadError,
            ),
            (
                Action::TextToImage,
                FREE,
                json!({"category": 7, "meta": {"prompt": "a", "lora_models": [{"model_id": "detail-tweaker"}], "studio": {"width": 10, "height": 10}}}),
                Studio25,
            ),
            (
                Action::TextToImage,
                FREE,
                json!({"category": 7, "meta": {"prompt": "a", "lora_models": [{"model_id": "pixel-art-xl"}], "studio": {"width": 10, "height": 10}, "seed": -9}}),
                ImageSizeTooSmall,
            ),
            (
                Action::TextToImage,
                FREE,
                json!({"category": 7, "meta": {"prompt": "a", "seed": -9}}),
                InvalidParams,
            ),
        ];
        for (a, caller, body, want) in rows {
            assert_eq!(
                run(&req(body.clone()), a, &caller).unwrap_err(),
                want,
                "{body}"
            );
        }
    }

    #[test]
    fn create_needs_an_action() {
        assert_eq!(
            action_of(&req(json!({"meta": {}}))),
            Err(ErrorCode::InvalidParams)
        );
        assert_eq!(
            action_of(&req(json!({"action": 9}))),
            Ok(Action::ImageToImage)
        );
    }

    #[test]
    fn every_family_generates_its_presets() {
        // Every aspect size the catalogue offers for a checkpoint's family is
        // accepted by prepare for that checkpoint.
        let cat = catalogue();
        for k in cat.checkpoints.iter().filter(|k| !k.category.is_studio()) {
            for a in &cat.aspects {
                for s in a.sizes.iter().filter(|s| s.family == k.family) {
                    for sz in [s.standard, s.quality] {
                        let r = req(
                            json!({"meta": {"prompt": "a", "art_model_ver_no": k.model_ver_no, "width": sz.width, "height": sz.height}}),
                        );
                        let p = run(&r, Action::TextToImage, &PAID)
                            .unwrap_or_else(|e| panic!("{} {} {sz:?}: {e}", k.name, a.label));
                        assert_eq!((p.job.width, p.job.height), (sz.width, sz.height));
                    }
                }
            }
        }
        for preset in &cat.studio_presets {
            let r = req(
                json!({"category": 7, "meta": {"prompt": "a", "studio": {"width": preset.width, "height": preset.height}}}),
            );
            assert!(run(&r, Action::TextToImage, &PAID).is_ok(), "{preset:?}");
        }
    }

    #[test]
    fn gen_mode_needs_the_unlimited_queue() {
        let cases = [
            (Some(1), false, 3, 0),
            (None, false, 3, 0),
            (Some(1), true, 1, 1),
            (Some(0), true, 3, 0),
            (None, true, 1, 0),
            (None, true, 2, 1),
            (Some(7), true, 0, 1),
        ];
        for (req, inf, level, want) in cases {
            assert_eq!(gen_mode(req, inf, level), want, "{req:?} {inf} {level}");
        }
    }
}
