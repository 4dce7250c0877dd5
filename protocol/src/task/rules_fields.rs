//! The per-field rules [`super::rules::prepare_with`] applies, each on its
//! own: the action of a call, prompt flags, input image URLs, seeds,
//! n_iter, `gen_mode` and the lane, the named checkpoint, sizes and
//! clamps. Re-exported from `rules`, whose module doc lists their order.

use super::catalogue::{catalogue, family_ids, SizeError};
use super::codes::{Action, Category, SpeedType};
use super::defaults::{RANDOM_SEED_MARKERS, RANDOM_SEED_MAX, SEED_MAX};
use super::inputs::init_url;
use super::request::{CreateTaskRequest, TaskMeta};
use super::rules::{Caller, Role};
use super::user_models::{from_catalogue, from_user, Named, UserModels};
use crate::error::ErrorCode;

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

pub(super) fn size_error(e: SizeError) -> ErrorCode {
    match e {
        SizeError::TooSmall => ErrorCode::ImageSizeTooSmall,
        SizeError::TooLarge => ErrorCode::ImageSizeTooLarge,
        SizeError::RatioInvalid => ErrorCode::ImageRatioInvalid,
    }
}

pub(super) fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// A request's id field, trimmed, when not empty (as the rules read ids).
pub fn non_empty_str(s: &Option<String>) -> Option<&str> {
    non_empty(s)
}

pub(super) fn positive(v: Option<i64>) -> Option<u32> {
    v.and_then(|v| u32::try_from(v).ok()).filter(|v| *v > 0)
}

/// Actions that run a checkpoint (and so take LoRAs and a model choice).
pub(super) fn runs_checkpoint(action: Action) -> bool {
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
pub(super) fn is_batch(action: Action) -> bool {
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
pub(super) fn needs_model_choice(action: Action, category: Category) -> bool {
    matches!(
        action,
        Action::TextToImage | Action::ImageToImage | Action::ConditionToImage | Action::Expansion
    ) && category.canonical() == Category::Normal
}

/// The model the request names, if any: `art_model_ver_no`, else
/// `art_model_no`, else `art_work_no` (request fields first, then `meta`'s).
/// `Err` when a named model is neither in the catalogue nor among `users`.
pub(super) fn named_checkpoint<'u>(
    req: &CreateTaskRequest,
    users: &'u UserModels,
) -> Result<Option<Named<'u>>, ErrorCode> {
    let cat = catalogue();
    let meta = &req.meta;
    let unknown = ErrorCode::PleaseSelectBaseName;
    if let Some(ver) = non_empty(&req.art_model_ver_no).or(non_empty(&meta.art_model_ver_no)) {
        return match cat.checkpoint(ver) {
            Some(c) => Ok(Some(from_catalogue(c))),
            None => from_user(users, ver),
        };
    }
    if let Some(no) = non_empty(&req.art_model_no).or(non_empty(&meta.art_model_no)) {
        return match cat.checkpoint_by_model_no(no) {
            Some(c) => Ok(Some(from_catalogue(c))),
            None => from_user(users, no),
        };
    }
    if let Some(art) = non_empty(&req.art_work_no).or(non_empty(&meta.art_work_no)) {
        let artwork = cat.artwork(art).ok_or(unknown)?;
        return cat
            .checkpoint(&artwork.model_ver_no)
            .map(|c| Some(from_catalogue(c)))
            .ok_or(unknown);
    }
    Ok(None)
}

/// The size of the uploaded image as the client reported it in `imgFiles`
/// (the entry of the init image, else the first with a size).
pub(super) fn image_file_size(meta: &TaskMeta) -> Option<(u32, u32)> {
    let init = init_url(meta);
    let sized = |f: &super::request::ImageRef| Some((positive(f.width)?, positive(f.height)?));
    meta.img_files
        .iter()
        .find(|f| init.is_some() && non_empty(&f.url) == init)
        .and_then(sized)
        .or_else(|| meta.img_files.iter().find_map(sized))
}

pub(super) fn meta_size(meta: &TaskMeta) -> Option<(u32, u32)> {
    Some((positive(meta.width)?, positive(meta.height)?))
}

/// Spec 1 §5: a width or height of 0 or less becomes 1024.
pub(super) fn side(raw: Option<i64>, fallback: u32) -> u32 {
    match raw {
        None => fallback,
        Some(v) if v <= 0 => 1024,
        Some(v) => u32::try_from(v).unwrap_or(u32::MAX),
    }
}

pub(super) fn clamp_f(v: f64, (lo, hi): (f32, f32)) -> f32 {
    (v as f32).clamp(lo, hi)
}
