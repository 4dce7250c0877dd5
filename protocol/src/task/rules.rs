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

use super::catalogue::{catalogue, check_size, family_ids, fit_max_side, STUDIO_LIMITS};
use super::codes::{Action, Category, SpeedType};
use super::cost::{cost, estimate_secs};
use super::defaults::{
    defaults_for, image_mode_size, CFG_RANGE, FACE_DISTANCE_RANGE, FRAMES_DEFAULT, FRAMES_MAX,
    FREE_LORA_LIMIT, LORA_WEIGHT_RANGE, MAX_OUTPUT_SIDE, N_ITER_RANGE, PROMPT_MAX_CHARS,
    STEPS_RANGE, STUDIO_LOW_STEPS_TO, STUDIO_MIN_STEPS, UPSCALE_RATIO_RANGE, VISITOR_MAX_SIDE,
};
use super::inputs::{collect_inputs, control_spec};
use super::job::{InputRole, JobSpec, LoraSpec};
use super::request::CreateTaskRequest;
pub use super::rules_fields::{
    action_of, default_n_iter, gen_mode, is_valid_image_url, non_empty_str, resolve_seed,
    resolve_speed, strip_flags,
};
pub(super) use super::rules_fields::{clamp_f, non_empty};
use super::rules_fields::{
    image_file_size, is_batch, meta_size, named_checkpoint, needs_model_choice, positive,
    runs_checkpoint, side, size_error,
};
use super::user_models::{check_fit, from_catalogue, push_use, ready_file, ModelUse, UserModels};
use crate::error::ErrorCode;
use crate::models::ModelType;

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
    /// Users' models the job runs (issue 19), each once; `cost` includes
    /// their fees.
    pub uses: Vec<ModelUse>,
}

/// Applies every rule of spec 1 §5, §6 and §9 (see the module doc) with
/// the built-in catalogue's models only. `action` comes from the path for
/// v2 calls, or `req.action` for /task/create ([`action_of`]).
/// `random_seed` is drawn by the server (0..=2147483643) and used when the
/// seed is empty, 0 or -1.
pub fn prepare(
    req: &CreateTaskRequest,
    action: Action,
    caller: &Caller,
    random_seed: u64,
) -> Result<Prepared, ErrorCode> {
    prepare_with(req, action, caller, random_seed, &UserModels::default())
}

/// [`prepare`] with users' models (issue 19): ids the catalogue does not
/// know are looked up in `users`, which the server resolved beforehand with
/// its visibility rules. A user checkpoint, LoRA or embedding must be ready
/// (`modelNotReady`); a user LoRA or embedding must fit the checkpoint's
/// family in every mode (`studio25`). The job carries their files; the
/// cost includes their creators' fees (none for the payer's own models);
/// visitors cannot pay fees (`NeedLogin`).
pub fn prepare_with(
    req: &CreateTaskRequest,
    action: Action,
    caller: &Caller,
    random_seed: u64,
    users: &UserModels,
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
        named_checkpoint(req, users)
    };
    let category = req
        .category
        .or_else(|| {
            named
                .as_ref()
                .ok()
                .and_then(Option::as_ref)
                .map(|c| c.category)
        })
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
        None => from_catalogue(
            cat.default_checkpoint(category)
                .ok_or(ErrorCode::Internal)?,
        ),
    };
    let family = cat
        .family(&checkpoint.family)
        .ok_or(if checkpoint.user.is_some() {
            ErrorCode::PleaseSelectBaseName
        } else {
            ErrorCode::Internal
        })?;
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
    // Users' LoRAs and embeddings must fit the checkpoint in every mode.
    let mut loras = Vec::new();
    let mut embeddings = Vec::new();
    let mut uses = Vec::new();
    let mut model_file = None;
    if runs_checkpoint(action) {
        if let Some(m) = checkpoint.user {
            model_file = Some(ready_file(m)?);
            push_use(&mut uses, users.use_of(m));
        }
        for l in &meta.lora_models {
            let id = non_empty(&l.model_ver_no)
                .or(non_empty(&l.model_id))
                .ok_or(ErrorCode::InvalidParams)?;
            let Some(entry) = cat.lora(id) else {
                let m = users
                    .find(id, ModelType::Lora)
                    .ok_or(ErrorCode::InvalidParams)?;
                let file = ready_file(m)?;
                check_fit(&checkpoint.family, m)?;
                push_use(&mut uses, users.use_of(m));
                loras.push(LoraSpec {
                    model: m.ver_no.clone(),
                    weight: l.weight.map_or(m.weight, |w| clamp_f(w, LORA_WEIGHT_RANGE)),
                    file: Some(file),
                });
                continue;
            };
            if studio && meta.lora_ignore != Some(true) && entry.base_model != checkpoint.family {
                return Err(ErrorCode::Studio25);
            }
            loras.push(LoraSpec {
                model: entry.model_ver_no.clone(),
                weight: l
                    .weight
                    .map_or(entry.weight, |w| clamp_f(w, LORA_WEIGHT_RANGE)),
                file: None,
            });
        }
        for e in &meta.embeddings {
            let id = non_empty(&e.model_ver_no)
                .or(non_empty(&e.model_id))
                .ok_or(ErrorCode::InvalidParams)?;
            let m = users
                .find(id, ModelType::Embedding)
                .ok_or(ErrorCode::InvalidParams)?;
            let file = ready_file(m)?;
            check_fit(&checkpoint.family, m)?;
            push_use(&mut uses, users.use_of(m));
            if !embeddings.contains(&file) {
                embeddings.push(file);
            }
        }
    }
    let fees: i64 = uses.iter().map(|u| u.fee).sum();
    if caller.role == Role::Visitor && fees > 0 {
        return Err(ErrorCode::NeedLogin);
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
        | Action::FrameInterpolation
        | Action::VideoEdit => return Err(ErrorCode::InvalidParams),
        // Audio actions are prepared by their own services, never here.
        Action::TextToAudioEffect
        | Action::TextToMusic
        | Action::VideoToAudio
        | Action::AudioToLipVideo
        | Action::VideoAddMusic
        | Action::TimbreTrain => return Err(ErrorCode::InvalidParams),
        // Training is prepared by the training service, never here.
        Action::LoraTrain => return Err(ErrorCode::InvalidParams),
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
        (checkpoint.model.clone(), family.id.clone())
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
        audio: None,
        model_file,
        embeddings,
        train: None,
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
        cost(&job, speed) + fees
    };
    Ok(Prepared {
        estimate_secs: estimate_secs(&job),
        cost: credits,
        job,
        category,
        speed,
        input_urls: inputs.urls,
        prompt,
        uses,
    })
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
