//! Music: composition from a prompt's mood and a song's lyrics, rendered by a SoundFont synthesiser (non-neural, labelled).
//!
//! - [`theory`]: moods, scales, chords, motifs; [`compose`]: the song's
//!   form and parts as a [`compose::Score`].
//! - [`render`]: the score through `rustysynth` (FluidR3 GM).
//! - [`vocals`]: lyrics sung by the speech engine, word by word pitched to
//!   the melody; [`video`]: a video's length and cuts, and the mux.
//! - [`tempo`]: tempo measured from audio (tests and checks).

pub mod compose;
pub mod render;
pub mod tempo;
pub mod theory;
pub mod video;
pub mod vocals;

use std::sync::Arc;

use engines::{Cancel, EngineError, EngineResult, LoadedInput, Produced, Progress};
use protocol::audio::{AudioJob, VoiceSpec};
use protocol::task::{Action, EngineInfo, InputRole, JobSpec};

use crate::engine::AudioContext;
use crate::ffmpeg::{encode, Format};
use crate::{AudioError, Pcm};
use compose::{Brief, Score};

/// The label of every music output.
pub const LABEL: &str = "Easel reference music (non-neural)";

/// The engine of music outputs; with sung vocals the label says which
/// speech engine sang.
pub fn info(vocals: Option<(&str, bool)>) -> EngineInfo {
    match vocals {
        None => EngineInfo {
            name: "reference-music".into(),
            neural: false,
            label: LABEL.into(),
            notes: Vec::new(),
        },
        Some((engine, neural)) => EngineInfo {
            name: "reference-music".into(),
            neural,
            label: format!(
                "{LABEL} with speech-engine vocals ({engine}, {})",
                if neural { "neural" } else { "non-neural" }
            ),
            notes: Vec::new(),
        },
    }
}

/// A rendered song.
#[derive(Debug, Clone)]
pub struct Song {
    /// Stereo, [`render::RATE`], exactly the brief's length.
    pub pcm: Pcm,
    pub score: Score,
    /// The speech engine that sang, and whether it is neural.
    pub sung_by: Option<(String, bool)>,
}

/// The default singing voice: espeak-ng's American English.
pub fn default_voice() -> VoiceSpec {
    VoiceSpec {
        engine: "espeak".into(),
        base: "en-us".into(),
        language: "en".into(),
        params: serde_json::Value::Null,
    }
}

/// Composes and renders a song; with `voice`, its lyrics are sung over
/// the backing by `ctx.speaker`.
pub async fn make_song(
    ctx: &AudioContext,
    brief: Brief,
    voice: Option<VoiceSpec>,
    progress: &Arc<dyn Progress>,
    cancel: &Cancel,
) -> Result<Song, AudioError> {
    let score = compose::compose(&brief);
    progress.report(10);
    let font_path = ctx.config.soundfont.clone();
    let (s2, c2) = (score.clone(), cancel.clone());
    let backing = tokio::task::spawn_blocking(move || {
        let font = render::soundfont(font_path.as_deref())?;
        render::render(&s2, &font, &|| c2.is_cancelled())
    })
    .await
    .map_err(|e| AudioError::Failed(format!("render thread: {e}")))??;
    progress.report(60);
    let (pcm, sung_by) = match voice {
        Some(v) if !score.words.is_empty() => {
            let (pcm, engine, neural) =
                vocals::sing(ctx.speaker.as_ref(), &score, backing, v, cancel).await?;
            (pcm, Some((engine, neural)))
        }
        _ => (backing, None),
    };
    progress.report(80);
    Ok(Song {
        pcm,
        score,
        sung_by,
    })
}

/// An M4A output.
pub fn m4a_output(bytes: Vec<u8>, seed: u64) -> Produced {
    Produced {
        bytes,
        mime: Format::M4a.mime().into(),
        ext: Format::M4a.ext().into(),
        width: 0,
        height: 0,
        seed,
        files: Vec::new(),
    }
}

fn job_of(job: &JobSpec) -> Result<&AudioJob, EngineError> {
    job.audio
        .as_ref()
        .ok_or_else(|| EngineError::BadInput("an audio task without its audio job".into()))
}

/// Runs one music job for the audio engine: text-to-music, and the
/// soundtracks of a video (video-to-audio, video-add-music).
pub async fn run_task(
    ctx: Arc<AudioContext>,
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
    progress: Arc<dyn Progress>,
    cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    let a = job_of(job)?;
    match job.action {
        Action::TextToMusic => {
            let voice = a.vocals.then(|| {
                a.speech
                    .as_ref()
                    .map_or_else(default_voice, |s| s.voice.clone())
            });
            let brief = Brief {
                prompt: a.prompt.clone(),
                lyrics: a.lyrics.clone(),
                seconds: f64::from(a.duration.max(1.0)),
                seed: job.seed,
                cuts: Vec::new(),
            };
            let song = make_song(&ctx, brief, voice, &progress, &cancel).await?;
            let pcm = song.pcm;
            let c2 = cancel.clone();
            let bytes = tokio::task::spawn_blocking(move || encode(&pcm, Format::M4a, &c2))
                .await
                .map_err(|e| EngineError::Failed(format!("encode thread: {e}")))??;
            progress.report(95);
            Ok(EngineResult {
                outputs: vec![m4a_output(bytes, job.seed)],
                texts: Vec::new(),
                engine: info(song.sung_by.as_ref().map(|(e, n)| (e.as_str(), *n))),
            })
        }
        Action::VideoToAudio | Action::VideoAddMusic => {
            let source = LoadedInput::find(&inputs, InputRole::VideoSource)
                .ok_or_else(|| EngineError::BadInput("no source video".into()))?;
            video::soundtrack(&ctx, job, a, &source.bytes, &progress, &cancel)
                .await
                .map_err(EngineError::from)
        }
        other => Err(EngineError::BadInput(format!(
            "{} is not a music action",
            other.name()
        ))),
    }
}
