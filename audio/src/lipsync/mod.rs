//! Lip-sync: the mouth region of a found face animated by the audio's
//! loudness and phonemes, muxed into an MP4. [`drive`] turns audio into a
//! mouth pose per frame, [`mouth`] places and warps the mouth, [`render`]
//! runs the frames through ffmpeg; [`run_task`] is the audio engine's
//! `AudioToLipVideo`, which hands the picture and the sound to [`remote`]
//! when a remote lip-sync engine is configured.

pub mod drive;
pub mod mouth;
pub mod remote;
pub mod render;

use std::sync::Arc;

use engines::{Cancel, EngineError, EngineResult, LoadedInput, Produced, Progress};
use protocol::audio::lipsync::MAX_AUDIO_SECS;
use protocol::audio::VoiceSpec;
use protocol::task::{EngineInfo, InputRole, JobSpec};
use protocol::ErrorCode;

use crate::engine::AudioContext;
use crate::speech::{Phoneme, SpeechRequest};
use crate::{AudioError, Pcm};

pub use render::{render, Rendered, Source};

/// The label of lip-sync results.
pub const LABEL: &str = "Easel reference lip-sync (non-neural)";

/// Lip-sync's engine, as its tasks report it.
pub fn engine_info() -> EngineInfo {
    EngineInfo {
        name: "reference-lipsync".into(),
        neural: false,
        label: LABEL.into(),
        notes: Vec::new(),
    }
}

/// The voice lip-sync speaks with when none is chosen (eSpeak NG's
/// American English, which every install has).
pub fn default_voice() -> VoiceSpec {
    VoiceSpec {
        engine: "espeak".into(),
        base: "en-us".into(),
        language: "en".into(),
        params: serde_json::Value::Null,
    }
}

/// The rate uploaded audio is decoded at.
const RATE: u32 = 44_100;

/// The sound of a lip-sync job, with phonemes when a voice spoke it.
async fn audio_of(
    ctx: &AudioContext,
    job: &JobSpec,
    inputs: &[LoadedInput],
    cancel: &Cancel,
) -> Result<(Pcm, Vec<Phoneme>), AudioError> {
    let a = job
        .audio
        .as_ref()
        .ok_or_else(|| AudioError::BadInput("the job has no audio request".into()))?;
    if let Some(s) = &a.speech {
        let speech = ctx
            .speaker
            .speak(
                SpeechRequest {
                    text: s.text.clone(),
                    voice: s.voice.clone(),
                    speed: s.speed,
                    emotion: s.emotion.clone(),
                },
                cancel.clone(),
            )
            .await?;
        return Ok((speech.pcm, speech.phonemes));
    }
    let clip = LoadedInput::find(inputs, InputRole::Audio)
        .ok_or_else(|| {
            AudioError::BadInput(format!(
                "{}: {}",
                ErrorCode::PleaseUploadAudio.key(),
                ErrorCode::PleaseUploadAudio.default_msg()
            ))
        })?
        .bytes
        .clone();
    let c = cancel.clone();
    let pcm = tokio::task::spawn_blocking(move || crate::ffmpeg::decode(&clip, RATE, 1, &c))
        .await
        .map_err(|e| AudioError::Failed(format!("decoding stopped: {e}")))??;
    Ok((pcm, Vec::new()))
}

/// Runs one lip-sync job for the audio engine: outputs the audio (AAC),
/// the MP4 and its poster, in that order.
pub async fn run_task(
    ctx: Arc<AudioContext>,
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
    progress: Arc<dyn Progress>,
    cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    let video = LoadedInput::find(&inputs, InputRole::VideoSource).map(|i| i.bytes.clone());
    let image = LoadedInput::find(&inputs, InputRole::Init)
        .or_else(|| LoadedInput::find(&inputs, InputRole::VideoImage))
        .map(|i| i.bytes.clone());
    if video.is_none() && image.is_none() {
        return Err(EngineError::BadInput(
            "lip-sync needs a video or a picture with a face".into(),
        ));
    }
    progress.report(2);
    let (pcm, phonemes) = audio_of(&ctx, job, &inputs, &cancel).await?;
    if pcm.duration() > MAX_AUDIO_SECS + 0.5 {
        return Err(EngineError::BadInput(format!(
            "{}: the audio lasts {:.1} s, lip-sync takes at most {MAX_AUDIO_SECS} s",
            ErrorCode::AudioTooLong.key(),
            pcm.duration()
        )));
    }
    if let Some(talking) = &ctx.talking {
        let picture = match (video, image) {
            (Some(v), _) => remote::Picture::Video(v),
            (None, Some(i)) => remote::Picture::Still(i),
            (None, None) => return Err(EngineError::BadInput("no picture".into())),
        };
        return remote::run(talking, job, picture, pcm, progress, cancel).await;
    }
    progress.report(10);
    let seed = job.seed;
    let c = cancel.clone();
    let p = progress.clone();
    let out = tokio::task::spawn_blocking(move || -> Result<Rendered, AudioError> {
        let report = |f: f32| p.report((10.0 + f * 88.0).clamp(0.0, 98.0) as u8);
        match (video, image) {
            (Some(v), _) => {
                let file = engines::reference::video::ffmpeg::temp_input(&v)
                    .map_err(|e| AudioError::Failed(e.to_string()))?;
                render(Source::Video(file.path()), &pcm, &phonemes, &report, &c)
            }
            (None, Some(i)) => render(Source::Image(&i), &pcm, &phonemes, &report, &c),
            (None, None) => Err(AudioError::BadInput("no picture".into())),
        }
    })
    .await
    .map_err(|e| EngineError::Failed(format!("lip-sync stopped: {e}")))??;
    progress.report(100);
    let produced = |bytes: Vec<u8>, mime: &str, ext: &str, w: u32, h: u32| Produced {
        bytes,
        mime: mime.into(),
        ext: ext.into(),
        width: w,
        height: h,
        seed,
        files: Vec::new(),
    };
    Ok(EngineResult {
        outputs: vec![
            produced(out.m4a, crate::ffmpeg::Format::M4a.mime(), "m4a", 0, 0),
            produced(out.mp4, "video/mp4", "mp4", out.width, out.height),
            produced(out.poster, "image/png", "png", out.width, out.height),
        ],
        texts: Vec::new(),
        engine: engine_info(),
    })
}
