//! Lip-sync on a remote engine: when one is configured (ComfyUI with Wan
//! 2.2 S2V, handed to the audio engine as an [`engines::TalkingEngine`]),
//! the job's sound (spoken here first for a text) goes to it with the
//! picture; a video source is animated from its first frame (S2V animates
//! a still), which the task's engine note says. Outputs are the reference
//! lip-sync's: the audio (AAC in M4A), the MP4 (its streams as long as the
//! sound), the poster.

use std::sync::Arc;

use engines::{
    Cancel, EngineError, EngineResult, Produced, Progress, TalkingEngine, TalkingRequest,
};
use protocol::task::JobSpec;

use crate::ffmpeg::{encode, wav_bytes, Format};
use crate::{AudioError, Pcm};

/// What the remote engine animates.
pub enum Picture {
    Still(Vec<u8>),
    /// A video file: its first frame is animated.
    Video(Vec<u8>),
}

/// Maps `0..=100` onto `from..=to` of the task's bar.
struct Span {
    inner: Arc<dyn Progress>,
    from: u8,
    to: u8,
}

impl Progress for Span {
    fn report(&self, percent: u8) {
        let width = u32::from(self.to.saturating_sub(self.from));
        let p = u32::from(self.from) + u32::from(percent.min(100)) * width / 100;
        self.inner.report(u8::try_from(p).unwrap_or(self.to));
    }
}

/// The files made before the remote engine is called.
struct Sent {
    /// The picture that speaks.
    still: Vec<u8>,
    /// The sound sent to the engine.
    wav: Vec<u8>,
    /// The sound as the task's audio output.
    m4a: Vec<u8>,
}

/// The first frame of a video, as a PNG.
fn first_frame(video: &[u8]) -> Result<Vec<u8>, AudioError> {
    let file = engines::reference::video::ffmpeg::temp_input(video).map_err(AudioError::from)?;
    engines::reference::video::poster_png(file.path(), 0).map_err(|e| match e {
        EngineError::Cancelled => AudioError::Cancelled,
        other => AudioError::BadInput(format!("the source video cannot be read: {other}")),
    })
}

/// Runs one lip-sync job on `engine`.
pub async fn run(
    engine: &Arc<dyn TalkingEngine>,
    job: &JobSpec,
    picture: Picture,
    pcm: Pcm,
    progress: Arc<dyn Progress>,
    cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    let from_video = matches!(picture, Picture::Video(_));
    let c = cancel.clone();
    let secs = pcm.duration();
    let Sent { still, wav, m4a } =
        tokio::task::spawn_blocking(move || -> Result<Sent, AudioError> {
            let still = match picture {
                Picture::Still(bytes) => bytes,
                Picture::Video(bytes) => first_frame(&bytes)?,
            };
            Ok(Sent {
                still,
                wav: wav_bytes(&pcm)?,
                m4a: encode(&pcm, Format::M4a, &c)?,
            })
        })
        .await
        .map_err(|e| EngineError::Failed(format!("lip-sync stopped: {e}")))??;
    progress.report(10);
    let audio = job.audio.clone().unwrap_or_default();
    let or = |a: &str, b: &str| {
        if a.trim().is_empty() {
            b.to_string()
        } else {
            a.to_string()
        }
    };
    let request = TalkingRequest {
        task_id: job.task_id.clone(),
        picture: still,
        audio_wav: wav,
        audio_secs: secs,
        prompt: or(&audio.prompt, &job.prompt),
        negative_prompt: or(&audio.negative_prompt, &job.negative_prompt),
        seed: job.seed,
    };
    let span = Arc::new(Span {
        inner: progress.clone(),
        from: 10,
        to: 99,
    });
    let [mp4, poster] = engine.talk(request, span, cancel).await?;
    progress.report(100);
    let mut info = engine.info();
    if from_video {
        info.label
            .push_str(": animates the first frame of the source video");
    }
    let m4a = Produced {
        bytes: m4a,
        mime: Format::M4a.mime().into(),
        ext: "m4a".into(),
        width: 0,
        height: 0,
        seed: job.seed,
        files: Vec::new(),
    };
    Ok(EngineResult {
        outputs: vec![m4a, mp4, poster],
        texts: Vec::new(),
        engine: info,
    })
}
