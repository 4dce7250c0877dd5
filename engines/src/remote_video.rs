//! What the remote video adapters (ComfyUI's Wan workflows, the
//! OpenAI-compatible Videos API) share: finding a video job's images by
//! role, progress spans across the phases of a job, and turning a
//! downloaded video into the outputs the reference engine gives for a video
//! (H.264 MP4 with `+faststart`, its HLS package, its poster), by the
//! reference video module's own ffmpeg functions.

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
