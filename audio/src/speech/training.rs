//! Voice training: measures uploaded samples (pitch, range, rate, brightness) and maps them onto a stock voice's parameters.
//!
//! Easel measures pitch, pitch range, speaking rate and brightness and
//! applies them to a stock voice; it does not clone the speaker's identity.
//! The result travels as JSON in `EngineResult.texts[0]` ([`TrainResult`]);
//! the output is the trained voice speaking a preview sentence.

use std::sync::Arc;

use engines::{Cancel, EngineError, EngineResult, LoadedInput, Produced, Progress};
use protocol::audio::VoiceSpec;
use protocol::task::{EngineInfo, InputRole, JobSpec};
use serde::{Deserialize, Serialize};

use super::{espeak, SpeechRequest};
use crate::analysis::voice::{self, VoiceMeasure};
use crate::engine::AudioContext;
use crate::ffmpeg::{self, Format};
use crate::AudioError;

/// Sample limits (seconds), like the API's.
pub const MIN_SAMPLE_SECS: f32 = 3.0;
pub const MAX_SAMPLE_SECS: f32 = 60.0;

/// What training found and what it sets on the voice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainResult {
    pub measure: VoiceMeasure,
    /// `engine` espeak, `base` e.g. `en-us+f3`, `params` for
    /// [`espeak::prosody`] plus the measured values.
    pub voice: VoiceSpec,
    pub log: Vec<String>,
    /// Length of the preview clip (the task's audio output), seconds.
    #[serde(default)]
    pub preview_secs: f64,
}

/// The preview sentence a trained voice speaks.
pub fn preview_text(language: &str) -> &'static str {
    match language {
        "ja" => "こんにちは。これはわたしのこえです。",
        "zh-cn" => "你好，这是我的声音。",
        "fr" => "Bonjour, voici ma voix.",
        "de" => "Hallo, das ist meine Stimme.",
        "es" => "Hola, esta es mi voz.",
        _ => "Hello, this is my voice. Easel measured it and applied it to a stock voice.",
    }
}

/// Measures every sample (blocking).
pub fn measure_samples(
    samples: &[Vec<u8>],
    progress: &dyn Progress,
    cancel: &Cancel,
    log: &mut Vec<String>,
) -> Result<VoiceMeasure, AudioError> {
    let mut all = Vec::new();
    let n = samples.len().max(1);
    for (i, bytes) in samples.iter().enumerate() {
        if cancel.is_cancelled() {
            return Err(AudioError::Cancelled);
        }
        let pcm = ffmpeg::decode(bytes, 16_000, 1, cancel)
            .map_err(|e| AudioError::BadInput(format!("sample {}: {e}", i + 1)))?;
        let secs = pcm.duration() as f32;
        if !(MIN_SAMPLE_SECS - 0.05..=MAX_SAMPLE_SECS + 0.5).contains(&secs) {
            return Err(AudioError::BadInput(format!(
                "sample {} lasts {secs:.1} s; samples must last {MIN_SAMPLE_SECS}-{MAX_SAMPLE_SECS} s",
                i + 1
            )));
        }
        progress.report((10 + 30 * (2 * i + 1) / (2 * n)) as u8);
        let m = voice::measure(&pcm.samples, pcm.rate).ok_or_else(|| {
            AudioError::BadInput(format!(
                "sample {}: too little voiced speech to measure",
                i + 1
            ))
        })?;
        log.push(format!(
            "sample {}: {:.1} s, speech {:.1} s, F0 median {:.0} Hz (5-95 %: {:.0}-{:.0} Hz, {:.1} semitones), {:.1} syllables/s, brightness {:.0} Hz",
            i + 1,
            m.seconds,
            m.voiced_seconds,
            m.f0_median_hz,
            m.f0_p5_hz,
            m.f0_p95_hz,
            m.range_semitones(),
            m.syllables_per_sec,
            m.brightness_hz
        ));
        all.push(m);
        progress.report((10 + 60 * (i + 1) / n) as u8);
    }
    voice::merge(&all).ok_or_else(|| AudioError::BadInput("no voice samples".into()))
}

/// The voice a measure maps to in `language`.
pub fn voice_for(m: &VoiceMeasure, language: &str) -> VoiceSpec {
    let p = voice::espeak_params(m);
    let lang_voice = espeak::language_voice(language).unwrap_or("en-us");
    VoiceSpec {
        engine: "espeak".into(),
        base: format!("{lang_voice}+{}", p.variant),
        language: language.into(),
        params: serde_json::json!({
            "espeak_pitch": p.espeak_pitch,
            "espeak_range": p.espeak_range,
            "rate_wpm": p.rate_wpm,
            "pitch_hz": m.f0_median_hz.round(),
            "pitch_range_st": (m.range_semitones() * 10.0).round() / 10.0,
            "syllables_per_sec": (m.syllables_per_sec * 10.0).round() / 10.0,
            "brightness": m.brightness_hz.round(),
        }),
    }
}

/// Runs one voice-training job for the audio engine.
pub async fn run_task(
    _ctx: Arc<AudioContext>,
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
    progress: Arc<dyn Progress>,
    cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    let samples: Vec<Vec<u8>> = inputs
        .into_iter()
        .filter(|i| i.role == InputRole::Audio)
        .map(|i| i.bytes)
        .collect();
    if samples.is_empty() || samples.len() > 5 {
        return Err(EngineError::BadInput(format!(
            "a voice is trained on 1-5 samples, got {}",
            samples.len()
        )));
    }
    let language = job
        .audio
        .as_ref()
        .and_then(|a| a.speech.as_ref())
        .map(|s| s.voice.language.clone())
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "en".into());
    progress.report(5);
    let result = tokio::task::spawn_blocking(move || -> Result<_, AudioError> {
        let mut log = vec![format!(
            "{} sample(s); Easel measures pitch, pitch range, speaking rate and brightness and \
             applies them to a stock voice; it does not clone the speaker's identity.",
            samples.len()
        )];
        let m = measure_samples(&samples, progress.as_ref(), &cancel, &mut log)?;
        let v = voice_for(&m, &language);
        let p = voice::espeak_params(&m);
        log.push(format!(
            "voice: eSpeak {} with pitch {}, range {}, rate {} wpm",
            v.base, p.espeak_pitch, p.espeak_range, p.rate_wpm
        ));
        progress.report(75);
        let speech = espeak::speak_blocking(
            &SpeechRequest {
                text: preview_text(&language).into(),
                voice: v.clone(),
                speed: 1.0,
                emotion: String::new(),
            },
            &cancel,
        )?;
        progress.report(90);
        let audio = ffmpeg::encode(&speech.pcm, Format::M4a, &cancel)?;
        log.push(format!("preview: {:.1} s", speech.pcm.duration()));
        Ok((
            TrainResult {
                measure: m,
                voice: v,
                log,
                preview_secs: speech.pcm.duration(),
            },
            audio,
        ))
    })
    .await
    .map_err(|e| EngineError::Failed(format!("training panicked: {e}")))??;
    let (result, audio) = result;
    let text = serde_json::to_string(&result)
        .map_err(|e| EngineError::Failed(format!("cannot encode the result: {e}")))?;
    Ok(EngineResult {
        outputs: vec![Produced {
            bytes: audio,
            mime: Format::M4a.mime().into(),
            ext: Format::M4a.ext().into(),
            width: 0,
            height: 0,
            seed: 0,
            files: Vec::new(),
        }],
        texts: vec![text],
        engine: EngineInfo {
            name: "voice-analysis".into(),
            neural: false,
            label: "Easel voice measurement on eSpeak NG (non-neural)".into(),
            notes: Vec::new(),
        },
    })
}
