//! Video tasks on the reference engine: a task's `VideoJob` (sizes,
//! duration, frame rate, camera move, images by role, effect template)
//! turned into [`video::VideoSpec`]s, one per output (seed + i), rendered
//! and encoded by [`video::render`]: each output is an H.264 MP4 with its
//! HLS package ([`video::hls`]) and its poster (PNG). Progress spans the
//! outputs; cancel stops the encoder.

use protocol::task::{Action, InputRole, JobSpec};
use protocol::video::{CameraMode as WireMode, VideoImageRole};

use super::video::{self, CameraMode, CameraMove, VideoKind, VideoSpec};
use super::{Outcome, Ticker};
use crate::{EngineError, LoadedInput, Produced};

/// The engine's effect for a template id: the one-, two- and three-image
/// variants of a template share its effect.
fn effect_of(template: &str) -> &str {
    template.trim_end_matches("_duo").trim_end_matches("_trio")
}

fn camera(c: &protocol::video::rules::CameraMove) -> CameraMove {
    CameraMove {
        mode: match c.mode {
            WireMode::CameraMovement => CameraMode::Movement,
            WireMode::Horizontal => CameraMode::Horizontal,
            WireMode::Vertical => CameraMode::Vertical,
            WireMode::Zoom => CameraMode::Zoom,
            WireMode::Pan => CameraMode::Pan,
        },
        offset: c.offset as f32,
    }
}

pub(crate) fn run(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let v = job
        .video
        .as_ref()
        .ok_or_else(|| EngineError::BadInput("a video task without its video job".into()))?;
    // Inputs come in the order of the job's images.
    let image = |role: VideoImageRole| -> Vec<Vec<u8>> {
        v.images
            .iter()
            .zip(inputs)
            .filter(|(i, _)| i.role == role)
            .map(|(_, input)| input.bytes.clone())
            .collect()
    };
    let one = |role: VideoImageRole, what: &str| -> Result<Vec<u8>, EngineError> {
        image(role)
            .into_iter()
            .next()
            .ok_or_else(|| EngineError::BadInput(format!("the {what} image is missing")))
    };
    let source = || -> Result<Vec<u8>, EngineError> {
        inputs
            .iter()
            .find(|i| i.role == InputRole::VideoSource)
            .map(|i| i.bytes.clone())
            .ok_or_else(|| EngineError::BadInput("the source video is missing".into()))
    };
    let kind = match job.action {
        Action::TextToVideo => VideoKind::TextToVideo,
        Action::ImageToVideo => {
            let first = one(VideoImageRole::First, "first frame")?;
            match image(VideoImageRole::Last).into_iter().next() {
                Some(last) => VideoKind::FirstLast { first, last },
                None => VideoKind::ImageToVideo { image: first },
            }
        }
        Action::MultiImageToVideo => VideoKind::MultiImage {
            images: image(VideoImageRole::Sequence),
        },
        Action::VideoEffect => VideoKind::Effect {
            template: effect_of(v.template_id.as_deref().unwrap_or_default()).to_owned(),
            images: [
                image(VideoImageRole::First),
                image(VideoImageRole::Sequence),
            ]
            .concat(),
        },
        Action::Live2d => VideoKind::Live2d {
            image: one(VideoImageRole::Live2d, "character")
                .or_else(|_| one(VideoImageRole::First, "character"))?,
        },
        Action::VideoUpscale => {
            let video = source()?;
            // The factor that takes the source to the asked width.
            let src = video::probe(&video)?;
            let factor = if src.width > 0 && job.width > 0 {
                job.width as f32 / src.width as f32
            } else {
                2.0
            };
            VideoKind::Upscale { video, factor }
        }
        Action::VideoExtend => VideoKind::Extend {
            video: source()?,
            secs: v.duration_secs.max(1) as f32,
        },
        Action::FrameInterpolation => VideoKind::FrameInterpolation { video: source()? },
        Action::VideoEdit => edit_kind(v, inputs)?,
        other => {
            return Err(EngineError::BadInput(format!(
                "{} is not a video action",
                other.name()
            )))
        }
    };
    let runs = job.n_iter.max(1);
    let fps = v.fps.max(1);
    let frames = if v.frames > 0 {
        v.frames
    } else {
        VideoSpec::frames_for(v.duration_secs as f32, fps)
    };
    t.plan(u64::from(runs) * 100);
    let mut outputs = Vec::new();
    for i in 0..runs {
        let spec = VideoSpec {
            width: job.width,
            height: job.height,
            fps,
            frames,
            seed: job.seed.wrapping_add(u64::from(i)),
            prompt: job.prompt.clone(),
            negative_prompt: job.negative_prompt.clone(),
            kind: kind.clone(),
            camera: v.camera.as_ref().map(camera),
        };
        let cancel = t.cancel.clone();
        let mut done = 0u32;
        let out = {
            let mut progress = |pct: u32| {
                // Ticks for this run's new percent (the ticker spans all runs).
                while done < pct.min(100) {
                    done += 1;
                    let _ = t.tick();
                }
            };
            video::render(&spec, &mut progress, &|| cancel.is_cancelled())?
        };
        t.check()?;
        outputs.extend(packaged(out, spec.seed, &|| cancel.is_cancelled())?);
    }
    Ok(Outcome {
        outputs,
        texts: Vec::new(),
    })
}

/// An editor export: the job's clip windows over its source videos (in
/// order), and its music input.
fn edit_kind(
    v: &protocol::video::VideoJob,
    inputs: &[LoadedInput],
) -> Result<VideoKind, EngineError> {
    let e = v
        .edit
        .as_ref()
        .ok_or_else(|| EngineError::BadInput("an edit without its timeline".into()))?;
    let sources: Vec<&LoadedInput> = inputs
        .iter()
        .filter(|i| i.role == InputRole::VideoSource)
        .collect();
    if sources.len() != e.clips.len() {
        return Err(EngineError::BadInput(format!(
            "the edit has {} clips and {} source videos",
            e.clips.len(),
            sources.len()
        )));
    }
    let clips = sources
        .into_iter()
        .zip(&e.clips)
        .map(|(input, c)| video::EditClip {
            video: input.bytes.clone(),
            start: c.start,
            end: c.end,
        })
        .collect();
    let music = match &e.music {
        None => None,
        Some(m) => Some(video::EditMusic {
            audio: inputs
                .iter()
                .find(|i| i.role == InputRole::Music)
                .map(|i| i.bytes.clone())
                .ok_or_else(|| EngineError::BadInput("the music is missing".into()))?,
            start: m.start,
            volume: m.volume,
        }),
    };
    Ok(VideoKind::Edit { clips, music })
}

/// A finished video as the outputs every video engine gives: the MP4 with
/// its HLS package (variants at the allowed heights up to the video's own;
/// spec 2 §9 plays the lowest first) in `files`, then its poster (PNG).
pub(crate) fn packaged(
    out: video::VideoOut,
    seed: u64,
    cancel: &dyn Fn() -> bool,
) -> Result<[Produced; 2], EngineError> {
    let package = video::hls(&out.mp4, &video::ALLOWED_HEIGHTS, cancel)?;
    Ok([
        Produced {
            bytes: out.mp4,
            mime: "video/mp4".into(),
            ext: "mp4".into(),
            width: out.width,
            height: out.height,
            seed,
            files: package,
        },
        Produced {
            bytes: out.poster_png,
            mime: "image/png".into(),
            ext: "png".into(),
            width: out.width,
            height: out.height,
            seed,
            files: Vec::new(),
        },
    ])
}
