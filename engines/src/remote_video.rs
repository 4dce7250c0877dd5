//! What the remote video adapters (ComfyUI's Wan workflows, the
//! OpenAI-compatible Videos API) share: finding a video job's images by
//! role, progress spans across the phases of a job, and turning a
//! downloaded video into the outputs the reference engine gives for a video
//! (H.264 MP4 with `+faststart`, its HLS package, its poster), by the
//! reference video module's own ffmpeg functions; for lip-sync, the video
//! muxed with the speech and cut to its length ([`finish_with_audio`]).

use std::sync::Arc;

use protocol::task::JobSpec;
use protocol::video::VideoImageRole;

use crate::reference::{video, video_task};
use crate::{Cancel, EngineError, LoadedInput, Produced, Progress};

/// The job's images with `role`, in order. Video jobs carry their inputs in
/// the order of `VideoJob::images`.
pub(crate) fn images<'a>(
    job: &JobSpec,
    inputs: &'a [LoadedInput],
    role: VideoImageRole,
) -> Vec<&'a LoadedInput> {
    job.video
        .iter()
        .flat_map(|v| v.images.iter())
        .zip(inputs)
        .filter(|(i, _)| i.role == role)
        .map(|(_, input)| input)
        .collect()
}

/// The requested duration in seconds (at least 1).
pub(crate) fn duration_secs(job: &JobSpec) -> u32 {
    job.video.as_ref().map_or(1, |v| v.duration_secs.max(1))
}

/// Maps `0..=100` onto `from..=to` of another progress sink, so several
/// phases (generations, transcoding) share one bar.
pub(crate) struct Span {
    pub inner: Arc<dyn Progress>,
    pub from: u8,
    pub to: u8,
}

impl Progress for Span {
    fn report(&self, percent: u8) {
        let width = u32::from(self.to.saturating_sub(self.from));
        let p = u32::from(self.from) + u32::from(percent.min(100)) * width / 100;
        self.inner.report(u8::try_from(p).unwrap_or(self.to));
    }
}

/// The share of the bar output `i` of `n` gets: `(from, to)`.
pub(crate) fn share(i: u32, n: u32) -> (u8, u8) {
    let n = n.max(1);
    let at = |k: u32| u8::try_from(k.min(n) * 99 / n).unwrap_or(99);
    (at(i), at(i + 1))
}

/// Turns a remote engine's video into the outputs of one video: transcoded
/// to `size` (cover and crop; `None` keeps the video's), cut to
/// `max_secs`, packaged for HLS, with its poster. Runs ffmpeg on a blocking
/// thread; `cancel` kills it. Bytes that are not a video fail the job (the
/// engine's fault, not the user's input).
pub(crate) async fn finish(
    bytes: Vec<u8>,
    size: Option<(u32, u32)>,
    max_secs: Option<f32>,
    seed: u64,
    progress: Span,
    cancel: Cancel,
) -> Result<[Produced; 2], EngineError> {
    tokio::task::spawn_blocking(move || {
        let stop = || cancel.is_cancelled();
        let mut report = |p: u32| progress.report(u8::try_from(p.min(100)).unwrap_or(100));
        let out =
            video::transcode(&bytes, size, max_secs, &mut report, &stop).map_err(|e| match e {
                EngineError::BadInput(m) => EngineError::Failed(format!(
                    "the engine sent something that is not a video: {m}"
                )),
                other => other,
            })?;
        video_task::packaged(out, seed, &stop)
    })
    .await
    .map_err(|e| EngineError::Failed(format!("video transcoding task: {e}")))?
}

/// Turns a remote engine's silent video and the sound it was made for into
/// the outputs of one video: H.264 at the video's own rate (sides made
/// even) with the sound as AAC, both cut to `secs` (the last frame held if
/// the video is short), `+faststart`, packaged for HLS, with the middle
/// frame as poster.
pub(crate) async fn finish_with_audio(
    video_bytes: Vec<u8>,
    audio: Vec<u8>,
    secs: f64,
    seed: u64,
    progress: Span,
    cancel: Cancel,
) -> Result<[Produced; 2], EngineError> {
    tokio::task::spawn_blocking(move || {
        let stop = || cancel.is_cancelled();
        let info = video::probe(&video_bytes).map_err(|e| {
            EngineError::Failed(format!(
                "the engine sent something that is not a video: {e}"
            ))
        })?;
        progress.report(10);
        let dir = video::ffmpeg::tempdir()?;
        let write = |name: &str, bytes: &[u8]| {
            std::fs::write(dir.path().join(name), bytes)
                .map_err(|e| EngineError::Failed(format!("cannot write a temporary file: {e}")))
        };
        write("video.in", &video_bytes)?;
        write("audio.in", &audio)?;
        drop(video_bytes);
        let t = format!("{secs:.3}");
        let mut args: Vec<String> = [
            "-nostdin", "-v", "error", "-y", "-i", "video.in", "-i", "audio.in", "-map", "0:v:0",
            "-map", "1:a:0", "-vf",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!(
            "tpad=stop_mode=clone:stop_duration={t},scale=trunc(iw/2)*2:trunc(ih/2)*2,setsar=1"
        ));
        args.extend(video::ffmpeg::x264_args());
        args.extend(
            [
                "-r",
                &info.rate.to_string(),
                "-c:a",
                "aac",
                "-b:a",
                "160k",
                "-ar",
                "44100",
                "-t",
                &t,
                "-movflags",
                "+faststart",
                "out.mp4",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        video::ffmpeg::run(&args, dir.path(), &stop).map_err(|e| match e {
            EngineError::Failed(m) | EngineError::BadInput(m) => {
                EngineError::Failed(format!("muxing the lip-sync video failed: {m}"))
            }
            other => other,
        })?;
        progress.report(60);
        let path = dir.path().join("out.mp4");
        let made = video::probe_path(&path)?;
        let mp4 = std::fs::read(&path)
            .map_err(|e| EngineError::Failed(format!("cannot read the muxed video: {e}")))?;
        let poster_png = video::poster_png(&path, made.duration_ms / 2)?;
        let out = video::VideoOut {
            mp4,
            poster_png,
            width: made.width,
            height: made.height,
            fps: made.fps,
            frames: u32::try_from(made.frames).unwrap_or(u32::MAX),
            duration_ms: made.duration_ms,
            label: video::LABEL,
        };
        let done = video_task::packaged(out, seed, &stop)?;
        progress.report(100);
        Ok(done)
    })
    .await
    .map_err(|e| EngineError::Failed(format!("video muxing task: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_the_bar_in_order() {
        assert_eq!(share(0, 1), (0, 99));
        assert_eq!(share(0, 2), (0, 49));
        assert_eq!(share(1, 2), (49, 99));
    }

    #[test]
    fn spans_map_into_their_range() {
        #[derive(Default)]
        struct Last(std::sync::Mutex<Vec<u8>>);
        impl Progress for Last {
            fn report(&self, p: u8) {
                self.0.lock().map(|mut v| v.push(p)).ok();
            }
        }
        let last = Arc::new(Last::default());
        let span = Span {
            inner: last.clone(),
            from: 40,
            to: 60,
        };
        span.report(0);
        span.report(50);
        span.report(100);
        span.report(250);
        assert_eq!(*last.0.lock().unwrap(), vec![40, 50, 60, 60]);
    }
}
