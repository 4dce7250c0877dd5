//! The video editor (spec 2 §7 "Video editor", base
//! `/api/v1/task/v2/video/editor`): its wire types (workspaces, materials,
//! the timeline of trimmed clips and a music track) and its pure rules:
//! names, output sizes, the timeline checked against the materials it
//! names, the operation log's bounds, the job an export renders and what it
//! costs.
//!
//! Times are seconds. A clip is a window `[start, end)` of one video
//! material; the export plays the clips in order, each scaled to fit the
//! workspace's size (letterboxed, never stretched) at its frame rate, with
//! the clips' own sound, and the music track (from `start` inside its
//! material, at `volume`) mixed under it for the length of the edit.

use serde::{Deserialize, Serialize};

use crate::task::codes::TaskStatus;
use crate::task::request::lenient;

/// Most clips on one timeline.
pub const MAX_CLIPS: usize = 50;
/// Longest edit, seconds.
pub const MAX_EDIT_SECS: f64 = 300.0;
/// Shortest clip, seconds (one frame at 10 fps).
pub const MIN_CLIP_SECS: f64 = 0.1;
/// Longest workspace or material name, characters.
pub const MAX_NAME_CHARS: usize = 80;
/// Operations kept per workspace (the newest).
pub const MAX_OPERATIONS: usize = 200;
/// Operations in one `operation/save` call.
pub const MAX_OPERATIONS_PER_SAVE: usize = 50;
/// Largest JSON of one operation, bytes.
pub const MAX_OPERATION_BYTES: usize = 4096;
/// Largest material file, bytes: an export reads its clips whole.
pub const MAX_MATERIAL_BYTES: u64 = 256 * 1024 * 1024;
/// Workspaces and materials one account may keep.
pub const MAX_WORKSPACES: usize = 100;
pub const MAX_MATERIALS: usize = 500;
/// Output sides, pixels (even).
pub const MIN_SIDE: u32 = 128;
pub const MAX_SIDE: u32 = 1920;
pub const DEFAULT_WIDTH: u32 = 1280;
pub const DEFAULT_HEIGHT: u32 = 720;
pub const DEFAULT_FPS: u32 = 24;
pub const DEFAULT_NAME: &str = "Untitled edit";
/// Music volume range (1 = as recorded).
pub const MAX_VOLUME: f64 = 2.0;

/// What a material holds.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaterialKind {
    Video,
    Audio,
}

/// Where a material came from.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaterialSource {
    Upload,
    Task,
}

/// A video or sound in the user's media bin.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Material {
    pub material_id: String,
    pub kind: MaterialKind,
    pub name: String,
    pub url: String,
    pub poster_url: Option<String>,
    /// Seconds.
    pub duration: f64,
    pub width: u32,
    pub height: u32,
    pub has_audio: bool,
    pub source: MaterialSource,
    pub created_at: i64,
}

/// A trimmed window of one video material.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clip {
    pub material_id: String,
    #[serde(default, deserialize_with = "num")]
    pub start: f64,
    #[serde(default, deserialize_with = "num")]
    pub end: f64,
}

/// The music track under the edit.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Music {
    pub material_id: String,
    /// Where in the material the music starts, seconds.
    #[serde(default, deserialize_with = "num")]
    pub start: f64,
    #[serde(default = "one", deserialize_with = "num")]
    pub volume: f64,
}

fn one() -> f64 {
    1.0
}

/// A number, also as a string; null or missing is 0.
fn num<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(lenient::opt_f64(d)?.unwrap_or(0.0))
}

/// A non-negative integer, also as a string.
fn opt_u32<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match lenient::opt_i64(d)? {
        None => Ok(None),
        Some(v) => u32::try_from(v)
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("{v} is not a valid size or count"))),
    }
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Timeline {
    #[serde(default)]
    pub clips: Vec<Clip>,
    #[serde(default)]
    pub music: Option<Music>,
}

impl Timeline {
    /// Seconds the edit lasts: the clips' lengths added up.
    pub fn duration(&self) -> f64 {
        self.clips.iter().map(|c| (c.end - c.start).max(0.0)).sum()
    }
}

/// The last export of a workspace.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastExport {
    pub task_id: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workspace {
    pub workspace_id: String,
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub timeline: Timeline,
    pub duration: f64,
    pub operations: Vec<serde_json::Value>,
    pub last_export: Option<LastExport>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `workspace/create`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct CreateRequest {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "opt_u32")]
    pub width: Option<u32>,
    #[serde(default, deserialize_with = "opt_u32")]
    pub height: Option<u32>,
}

/// `workspace/edit`: what is given changes.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct EditRequest {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub workspace_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub name: Option<String>,
    #[serde(default)]
    pub timeline: Option<Timeline>,
    #[serde(default, deserialize_with = "opt_u32")]
    pub width: Option<u32>,
    #[serde(default, deserialize_with = "opt_u32")]
    pub height: Option<u32>,
}

/// `workspace/del`, `detail`, `export`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct WorkspaceRef {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub workspace_id: Option<String>,
}

/// `operation/save`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct SaveOperations {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub workspace_id: Option<String>,
    #[serde(default)]
    pub operations: Vec<serde_json::Value>,
}

/// `workspace/list`, `material/list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[cfg_attr(feature = "openapi", schema(as = VideoEditorListRequest))]
pub struct ListRequest {
    #[serde(default, deserialize_with = "opt_u32")]
    pub page_size: Option<u32>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub cursor: Option<String>,
    #[serde(default)]
    pub kind: Option<MaterialKind>,
}

/// `material/upload`: an uploaded file, or an output of a finished video task.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct MaterialUpload {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub file_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub task_id: Option<String>,
    #[serde(default, deserialize_with = "opt_u32")]
    pub index: Option<u32>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub name: Option<String>,
}

/// `material/delete`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct MaterialRef {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub material_id: Option<String>,
}

/// `export/check`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct ExportRef {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub task_id: Option<String>,
}

/// `export/check`'s answer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportStatus {
    pub task_id: String,
    /// `queued` | `running` | `succeeded` | `failed` | `cancelled`.
    pub status: String,
    /// 0..=100.
    pub progress: u8,
    pub video_url: Option<String>,
    pub poster_url: Option<String>,
    pub error: Option<String>,
}

/// One clip of an export: the window of the `i`th source video input.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditClip {
    pub start: f64,
    pub end: f64,
}

/// The music of an export (the job's music input).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditMusic {
    pub start: f64,
    pub volume: f64,
}

/// What an export renders; its inputs are the clips' videos in order, then
/// the music's file.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditJob {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub clips: Vec<EditClip>,
    pub music: Option<EditMusic>,
}

/// What the rules know of a material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialFacts {
    pub kind: MaterialKind,
    pub duration: f64,
    pub has_audio: bool,
}

/// A name as stored: trimmed, control characters dropped, at most
/// [`MAX_NAME_CHARS`]; empty becomes `fallback`.
pub fn clean_name(name: Option<&str>, fallback: &str) -> String {
    let s: String = name
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    if s.is_empty() {
        fallback.to_owned()
    } else {
        s
    }
}

/// The output size: defaults 1280x720; each side even and within
/// [`MIN_SIDE`]..=[`MAX_SIDE`].
pub fn output_size(width: Option<u32>, height: Option<u32>) -> Result<(u32, u32), String> {
    let w = width.unwrap_or(DEFAULT_WIDTH);
    let h = height.unwrap_or(DEFAULT_HEIGHT);
    for (side, v) in [("width", w), ("height", h)] {
        if !(MIN_SIDE..=MAX_SIDE).contains(&v) {
            return Err(format!("{side} {v} is outside {MIN_SIDE}..={MAX_SIDE}"));
        }
        if v % 2 == 1 {
            return Err(format!("{side} {v} must be even"));
        }
    }
    Ok((w, h))
}

/// Why a timeline cannot be saved or exported.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineError {
    /// A material that does not exist (or is not the caller's).
    UnknownMaterial(String),
    Invalid(String),
}

/// Checks a timeline against the materials it names (`facts` answers
/// `None` for a material that is not the caller's) and rounds its times to
/// milliseconds.
pub fn check_timeline(
    t: &Timeline,
    facts: &dyn Fn(&str) -> Option<MaterialFacts>,
) -> Result<Timeline, TimelineError> {
    let bad = |m: String| Err(TimelineError::Invalid(m));
    if t.clips.len() > MAX_CLIPS {
        return bad(format!("at most {MAX_CLIPS} clips"));
    }
    let ms = |v: f64| (v * 1000.0).round() / 1000.0;
    let mut clips = Vec::with_capacity(t.clips.len());
    for (i, c) in t.clips.iter().enumerate() {
        let f = facts(&c.material_id)
            .ok_or_else(|| TimelineError::UnknownMaterial(c.material_id.clone()))?;
        if f.kind != MaterialKind::Video {
            return bad(format!(
                "clip {}: only videos go on the picture track",
                i + 1
            ));
        }
        let (start, end) = (ms(c.start), ms(c.end));
        if !start.is_finite() || !end.is_finite() || start < 0.0 {
            return bad(format!("clip {}: start must be 0 or more", i + 1));
        }
        if end - start < MIN_CLIP_SECS - 1e-9 {
            return bad(format!(
                "clip {}: it must last at least {MIN_CLIP_SECS} s",
                i + 1
            ));
        }
        // A millisecond of slack: durations are probed to the millisecond.
        if end > f.duration + 0.001 {
            return bad(format!(
                "clip {}: end {end} s is after the video's end ({} s)",
                i + 1,
                f.duration
            ));
        }
        clips.push(Clip {
            material_id: c.material_id.clone(),
            start,
            end: end.min(f.duration),
        });
    }
    let music = match &t.music {
        None => None,
        Some(m) => {
            let f = facts(&m.material_id)
                .ok_or_else(|| TimelineError::UnknownMaterial(m.material_id.clone()))?;
            if !f.has_audio {
                return bad("the music material has no sound".into());
            }
            let start = ms(m.start);
            if !start.is_finite() || start < 0.0 || start >= f.duration {
                return bad(format!(
                    "music start {start} s is outside the material (0..{} s)",
                    f.duration
                ));
            }
            if !m.volume.is_finite() || m.volume < 0.0 || m.volume > MAX_VOLUME {
                return bad(format!("music volume must be within 0..={MAX_VOLUME}"));
            }
            Some(Music {
                material_id: m.material_id.clone(),
                start,
                volume: (m.volume * 100.0).round() / 100.0,
            })
        }
    };
    let out = Timeline { clips, music };
    if out.duration() > MAX_EDIT_SECS + 1e-9 {
        return bad(format!("an edit lasts at most {MAX_EDIT_SECS} s"));
    }
    Ok(out)
}

/// The job an export renders, for a checked timeline; `None` when it has
/// no clips (nothing to export).
pub fn edit_job(t: &Timeline, width: u32, height: u32, fps: u32) -> Option<EditJob> {
    if t.clips.is_empty() {
        return None;
    }
    Some(EditJob {
        width,
        height,
        fps,
        clips: t
            .clips
            .iter()
            .map(|c| EditClip {
                start: c.start,
                end: c.end,
            })
            .collect(),
        music: t.music.as_ref().map(|m| EditMusic {
            start: m.start,
            volume: m.volume,
        }),
    })
}

/// Credits an export costs: one per started 5 seconds of output, one per
/// started 5 seconds more at sides above 1280x720 (at least 1).
pub fn export_cost(job: &EditJob) -> i64 {
    let secs = job.clips.iter().map(|c| c.end - c.start).sum::<f64>();
    let per5 = (secs / 5.0).ceil().max(1.0) as i64;
    if u64::from(job.width) * u64::from(job.height) > 1280 * 720 {
        per5 * 2
    } else {
        per5
    }
}

/// Appends `new` to a workspace's operation log, keeping the newest
/// [`MAX_OPERATIONS`]. Refuses a batch over [`MAX_OPERATIONS_PER_SAVE`] or an
/// operation over [`MAX_OPERATION_BYTES`] of JSON.
pub fn append_operations(
    log: &mut Vec<serde_json::Value>,
    new: &[serde_json::Value],
) -> Result<(), String> {
    if new.len() > MAX_OPERATIONS_PER_SAVE {
        return Err(format!(
            "at most {MAX_OPERATIONS_PER_SAVE} operations per save"
        ));
    }
    for op in new {
        let n = serde_json::to_vec(op).map_or(usize::MAX, |b| b.len());
        if n > MAX_OPERATION_BYTES {
            return Err(format!(
                "an operation is {n} bytes of JSON; at most {MAX_OPERATION_BYTES}"
            ));
        }
    }
    log.extend(new.iter().cloned());
    let extra = log.len().saturating_sub(MAX_OPERATIONS);
    log.drain(..extra);
    Ok(())
}

/// The `export/check` status word of a task's status; a task that ended
/// after a cancel reads `cancelled`.
pub fn export_status_word(status: TaskStatus, cancelled: bool) -> &'static str {
    match status {
        TaskStatus::Queued => "queued",
        TaskStatus::Running => "running",
        TaskStatus::Success => "succeeded",
        TaskStatus::Ended if cancelled => "cancelled",
        TaskStatus::Ended => "failed",
    }
}

/// The video job of an export: the edit at its size and rate, one output.
pub fn video_job(e: EditJob) -> super::prepare::VideoJob {
    let secs = e.clips.iter().map(|c| c.end - c.start).sum::<f64>();
    let duration_secs = secs.ceil().max(1.0) as u32;
    let frames = (secs * f64::from(e.fps)).round().max(1.0) as u32;
    super::prepare::VideoJob {
        action: super::codes::VideoAction::Edit,
        model_no: String::new(),
        family: None,
        template_id: None,
        prompt: String::new(),
        negative_prompt: None,
        width: e.width,
        height: e.height,
        aspect_ratio: String::new(),
        duration_secs,
        fps: e.fps,
        frames,
        interpolation_factor: 1,
        n_iter: 1,
        seed: Some(0),
        gen_mode: 0,
        quality: None,
        motion_mode: String::new(),
        relevance: 0.0,
        style: None,
        audio_effect: false,
        camera: None,
        images: Vec::new(),
        source_video_url: None,
        parent_task_id: None,
        sampler: None,
        scheduler: String::new(),
        edit: Some(e),
    }
}
