//! Stills: a poster frame of a video file on disk, and the preview picture
//! of an effect template (the square's app cards show it).

use super::{ffmpeg, render, VideoKind, VideoSpec};
use crate::EngineError;

/// A still preview of an effect template (a square PNG `side` px wide):
/// the reference painting of `subjects` (one per input image), run through
/// the effect, its middle frame. Deterministic.
pub fn effect_preview(
    template: &str,
    subjects: &[&str],
    side: u32,
) -> Result<Vec<u8>, EngineError> {
    let mut images = Vec::with_capacity(subjects.len());
    for (i, subject) in subjects.iter().enumerate() {
        let still = VideoSpec {
            width: side,
            height: side,
            fps: 1,
            frames: 1,
            seed: 11 + i as u64,
            prompt: (*subject).to_owned(),
            negative_prompt: String::new(),
            kind: VideoKind::TextToVideo,
            camera: None,
        };
        images.push(render(&still, &mut |_| {}, &|| false)?.poster_png);
    }
    // The one-, two- and three-image variants share their effect.
    let template = template.trim_end_matches("_duo").trim_end_matches("_trio");
    let spec = VideoSpec {
        width: side,
        height: side,
        fps: 8,
        frames: 16,
        seed: 7,
        prompt: template.to_owned(),
        negative_prompt: String::new(),
        kind: VideoKind::Effect {
            template: template.to_owned(),
            images,
        },
        camera: None,
    };
    Ok(render(&spec, &mut |_| {}, &|| false)?.poster_png)
}

/// A poster for a video file on disk: its frame at `at_ms` (clamped to the
/// video) as a PNG, by ffmpeg.
pub fn poster_png(path: &std::path::Path, at_ms: u64) -> Result<Vec<u8>, EngineError> {
    let dir = ffmpeg::tempdir()?;
    let out = dir.path().join("poster.png");
    let args: Vec<String> = vec![
        "-hide_banner".into(),
        "-loglevel".into(),
        "error".into(),
        "-nostdin".into(),
        "-ss".into(),
        format!("{:.3}", at_ms as f64 / 1000.0),
        "-i".into(),
        path.to_string_lossy().into_owned(),
        "-frames:v".into(),
        "1".into(),
        "-update".into(),
        "1".into(),
        out.to_string_lossy().into_owned(),
    ];
    ffmpeg::run(&args, dir.path(), &|| false)?;
    let png =
        std::fs::read(&out).map_err(|e| EngineError::Failed(format!("no poster frame: {e}")))?;
    if png.is_empty() {
        return Err(EngineError::Failed("no poster frame".into()));
    }
    Ok(png)
}
