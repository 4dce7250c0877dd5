//! Sound effects synthesised from a description by signal graphs (non-neural, labelled).
//!
//! Keywords of the prompt choose [`Kind`]s (rain, wind, thunder, footsteps,
//! bell, laser, whoosh, birds, water, engine, alarm, applause, heartbeat,
//! fire, knock); each is a `fundsp` graph, either a bed running the whole
//! length or events scheduled over it (seeded by the prompt, so the same
//! description gives the same sound). Kinds named in the negative prompt
//! are left out; a description with no known word gets a textured ambience
//! whose colour, drone and grains come from the prompt's hash.

pub mod graphs;

use std::sync::Arc;

use engines::{Cancel, EngineError, EngineResult, LoadedInput, Produced, Progress};
use protocol::task::{EngineInfo, JobSpec};

use crate::engine::AudioContext;
use crate::ffmpeg::{encode, Format};
use crate::music::theory::{hash, Rng};
use crate::{AudioError, Pcm};
pub use graphs::Kind;

/// The label of every effect.
pub const LABEL: &str = "Easel reference sound effects (non-neural)";
/// The rate effects are made at.
pub const RATE: u32 = 44_100;

/// The engine of effect outputs.
pub fn info() -> EngineInfo {
    EngineInfo {
        name: "reference-sfx".into(),
        neural: false,
        label: LABEL.into(),
        notes: Vec::new(),
    }
}

/// The kinds a description asks for, minus those of the negative prompt,
/// in the order of [`graphs::KINDS`].
pub fn kinds_of(prompt: &str, negative: &str) -> Vec<Kind> {
    let words = |t: &str| -> Vec<String> {
        t.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (want, not) = (words(prompt), words(negative));
    let has = |list: &[String], keys: &[&str]| {
        list.iter().any(|w| {
            keys.iter().any(|k| {
                w == k
                    || w.strip_prefix(k)
                        .is_some_and(|rest| ["s", "es", "ing", "ed", "y"].contains(&rest))
            })
        })
    };
    graphs::KINDS
        .iter()
        .filter(|(_, keys)| has(&want, keys) && !has(&not, keys))
        .map(|(k, _)| *k)
        .collect()
}

/// Makes the effect: stereo at [`RATE`], exactly `seconds` long, the
/// layers mixed, faded in and out, normalised to -1 dBFS.
pub fn synthesise(
    prompt: &str,
    negative: &str,
    seconds: f64,
    cancel: &Cancel,
) -> Result<Pcm, AudioError> {
    let frames = (seconds.max(0.1) * f64::from(RATE)).round() as usize;
    let kinds = kinds_of(prompt, negative);
    let mut rng = Rng::new(hash(prompt));
    let mut mix = vec![0f32; frames * 2];
    let layers: Vec<Option<Kind>> = if kinds.is_empty() {
        vec![None]
    } else {
        kinds.iter().copied().map(Some).collect()
    };
    let gain = 1.0 / (layers.len() as f32).sqrt();
    for layer in layers {
        if cancel.is_cancelled() {
            return Err(AudioError::Cancelled);
        }
        let mut buf = vec![0f32; frames * 2];
        match layer {
            Some(k) => graphs::render(k, &mut buf, RATE, &mut rng),
            None => graphs::ambience(&mut buf, RATE, hash(prompt), &mut rng),
        }
        for (m, b) in mix.iter_mut().zip(&buf) {
            *m += b * gain;
        }
    }
    let mut pcm = Pcm {
        rate: RATE,
        channels: 2,
        samples: mix,
    };
    crate::music::render::fade_out(&mut pcm, (seconds / 8.0).min(0.5));
    crate::music::render::normalise(&mut pcm, 0.891);
    Ok(pcm)
}

/// Runs one sound-effect job for the audio engine.
pub async fn run_task(
    _ctx: Arc<AudioContext>,
    job: &JobSpec,
    _inputs: Vec<LoadedInput>,
    progress: Arc<dyn Progress>,
    cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    let a = job
        .audio
        .clone()
        .ok_or_else(|| EngineError::BadInput("an audio task without its audio job".into()))?;
    let seed = job.seed;
    progress.report(5);
    let c2 = cancel.clone();
    let bytes = tokio::task::spawn_blocking(move || {
        let pcm = synthesise(
            &a.prompt,
            &a.negative_prompt,
            f64::from(a.duration.max(0.1)),
            &c2,
        )?;
        encode(&pcm, Format::M4a, &c2)
    })
    .await
    .map_err(|e| EngineError::Failed(format!("effect thread: {e}")))??;
    progress.report(95);
    Ok(EngineResult {
        outputs: vec![Produced {
            bytes,
            mime: Format::M4a.mime().into(),
            ext: Format::M4a.ext().into(),
            width: 0,
            height: 0,
            seed,
            files: Vec::new(),
        }],
        texts: Vec::new(),
        engine: info(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_choose_kinds_and_the_negative_prompt_removes_them() {
        assert_eq!(
            kinds_of("Heavy rain with distant thunder", ""),
            vec![Kind::Rain, Kind::Thunder]
        );
        assert_eq!(kinds_of("rain and thunder", "no thunder"), vec![Kind::Rain]);
        assert_eq!(kinds_of("footsteps on gravel", ""), vec![Kind::Footsteps]);
        assert_eq!(kinds_of("a sci-fi laser blaster", ""), vec![Kind::Laser]);
        assert!(kinds_of("a quiet mysterious place", "").is_empty());
    }
}
