//! Sung vocals: each lyric word spoken by the speech engine, its pitch
//! measured (autocorrelation over voiced frames), shifted to the melody's
//! note and stretched to the note's length with ffmpeg's `rubberband`, then
//! placed on the note's onset over the backing (backing at -6 dB).

use engines::reference::video::ffmpeg::{run, tempdir};
use engines::{Cancel, EngineError};
use protocol::audio::VoiceSpec;

use super::compose::Score;
use super::render::{normalise, RATE};
use crate::ffmpeg::write_wav;
use crate::speech::{Speaker, SpeechRequest};
use crate::{AudioError, Pcm};

/// The median fundamental frequency (Hz) of the voiced frames of mono
/// `pcm`, searched in 70..=500 Hz; `None` when nothing is voiced.
pub fn median_f0(pcm: &Pcm) -> Option<f64> {
    let m = pcm.to_mono();
    let rate = f64::from(m.rate);
    let win = (rate * 0.04) as usize;
    let hop = win / 2;
    let (min_lag, max_lag) = ((rate / 500.0) as usize, (rate / 70.0) as usize);
    if win == 0 || hop == 0 || m.samples.len() < win + max_lag {
        return None;
    }
    let level = m.rms();
    let mut f0s = Vec::new();
    let mut start = 0;
    while start + win + max_lag <= m.samples.len() {
        let frame = m.samples.get(start..start + win + max_lag).unwrap_or(&[]);
        let head = frame.get(..win).unwrap_or(&[]);
        let e0: f64 = head.iter().map(|s| f64::from(*s).powi(2)).sum();
        if crate::analysis::rms(head) > level * 0.5 && e0 > 1e-8 {
            let corr = |lag: usize| -> f64 {
                let shifted = frame.get(lag..lag + win).unwrap_or(&[]);
                let e1: f64 = shifted.iter().map(|s| f64::from(*s).powi(2)).sum();
                let c: f64 = head
                    .iter()
                    .zip(shifted)
                    .map(|(a, b)| f64::from(*a) * f64::from(*b))
                    .sum();
                c / (e0 * e1).sqrt().max(1e-12)
            };
            if let Some((lag, c)) = (min_lag..=max_lag)
                .map(|l| (l, corr(l)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
            {
                if c > 0.6 {
                    f0s.push(rate / lag as f64);
                }
            }
        }
        start += hop;
    }
    if f0s.is_empty() {
        return None;
    }
    f0s.sort_by(f64::total_cmp);
    f0s.get(f0s.len() / 2).copied()
}

/// Hz of a MIDI key.
pub fn key_hz(key: u8) -> f64 {
    440.0 * 2f64.powf((f64::from(key) - 69.0) / 12.0)
}

/// The note's pitch moved by octaves to within a fifth or so of the
/// voice's own pitch (a melody written for a flute, sung by a voice).
pub fn target_hz(key: u8, voice_f0: f64) -> f64 {
    let mut t = key_hz(key);
    while t > voice_f0 * 1.5 {
        t /= 2.0;
    }
    while t < voice_f0 / 1.5 {
        t *= 2.0;
    }
    t
}

/// The speech with leading and trailing silence cut.
fn trim(pcm: &Pcm) -> Pcm {
    let m = pcm.to_mono();
    let thr = m.samples.iter().fold(0f32, |a, s| a.max(s.abs())) * 0.05;
    let first = m.samples.iter().position(|s| s.abs() > thr).unwrap_or(0);
    let last = m
        .samples
        .iter()
        .rposition(|s| s.abs() > thr)
        .map_or(m.samples.len(), |i| i + 1);
    Pcm::mono(
        m.rate,
        m.samples
            .get(first..last.max(first))
            .unwrap_or(&[])
            .to_vec(),
    )
}

/// `word` pitched by `pitch` and stretched to `secs`, mono at [`RATE`].
fn shift(word: &Pcm, pitch: f64, secs: f64, cancel: &Cancel) -> Result<Pcm, AudioError> {
    let dir = tempdir().map_err(|e| AudioError::Failed(e.to_string()))?;
    write_wav(word, &dir.path().join("w.wav"))?;
    let tempo = (word.duration() / secs.max(0.05)).clamp(0.1, 10.0);
    let args: Vec<String> = vec![
        "-nostdin".into(),
        "-v".into(),
        "error".into(),
        "-y".into(),
        "-i".into(),
        "w.wav".into(),
        "-af".into(),
        format!(
            "aresample={RATE},rubberband=pitch={:.5}:tempo={tempo:.5}:formant=preserved",
            pitch.clamp(0.25, 4.0)
        ),
        "-ac".into(),
        "1".into(),
        "-f".into(),
        "f32le".into(),
        "out.raw".into(),
    ];
    run(&args, dir.path(), &|| cancel.is_cancelled()).map_err(|e| match e {
        EngineError::Cancelled => AudioError::Cancelled,
        other => AudioError::Failed(format!("pitching a sung word: {other}")),
    })?;
    let raw = std::fs::read(dir.path().join("out.raw"))?;
    Ok(Pcm::mono(
        RATE,
        raw.chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
            .collect(),
    ))
}

/// Sings `score.words` with `voice` over `backing` (stereo at [`RATE`]).
/// Answers the mix, the engine that sang and whether it is neural.
pub async fn sing(
    speaker: &dyn Speaker,
    score: &Score,
    backing: Pcm,
    voice: VoiceSpec,
    cancel: &Cancel,
) -> Result<(Pcm, String, bool), AudioError> {
    let mut engine = voice.engine.clone();
    let mut neural = false;
    let mut spoken = Vec::with_capacity(score.words.len());
    for w in &score.words {
        if cancel.is_cancelled() {
            return Err(AudioError::Cancelled);
        }
        let speech = speaker
            .speak(
                SpeechRequest {
                    text: w.text.clone(),
                    voice: voice.clone(),
                    speed: 1.0,
                    emotion: String::new(),
                },
                cancel.clone(),
            )
            .await?;
        engine = speech.engine.clone();
        neural = speech.neural;
        spoken.push((w.clone(), speech.pcm));
    }
    let c2 = cancel.clone();
    let mix = tokio::task::spawn_blocking(move || {
        let mut out = backing;
        out.samples.iter_mut().for_each(|s| *s *= 0.5);
        let frames = out.frames();
        let voice_f0 = {
            let all: Vec<f32> = spoken
                .iter()
                .flat_map(|(_, p)| p.to_mono().samples)
                .collect();
            let rate = spoken.first().map_or(RATE, |(_, p)| p.rate);
            median_f0(&Pcm::mono(rate, all)).unwrap_or(120.0)
        };
        for (w, pcm) in spoken {
            let t = trim(&pcm);
            if t.samples.len() < 64 {
                continue;
            }
            let f0 = median_f0(&t).unwrap_or(voice_f0);
            let sung = shift(&t, target_hz(w.key, f0) / f0, w.len, &c2)?;
            let at = (w.at * f64::from(RATE)).round() as usize;
            for (i, s) in sung.samples.iter().enumerate() {
                let f = at + i;
                if f >= frames {
                    break;
                }
                for c in 0..2 {
                    if let Some(o) = out.samples.get_mut(f * 2 + c) {
                        *o += *s * 0.9;
                    }
                }
            }
        }
        normalise(&mut out, 0.891);
        Ok::<_, AudioError>(out)
    })
    .await
    .map_err(|e| AudioError::Failed(format!("vocal thread: {e}")))??;
    Ok((mix, engine, neural))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn f0_of_a_tone_and_octave_placement() {
        let rate = 22_050;
        let tone: Vec<f32> = (0..rate)
            .map(|i| {
                let t = i as f32 / rate as f32;
                0.5 * (t * 150.0 * std::f32::consts::TAU).sin()
                    + 0.2 * (t * 300.0 * std::f32::consts::TAU).sin()
            })
            .collect();
        let f0 = median_f0(&Pcm::mono(rate, tone)).unwrap();
        assert!((f0 - 150.0).abs() < 3.0, "{f0}");
        assert!(median_f0(&Pcm::mono(rate, vec![0.0; rate as usize])).is_none());
        // A4 for a 120 Hz voice: two octaves down, 110 Hz.
        assert!((target_hz(69, 120.0) - 110.0).abs() < 1e-9);
        assert!((key_hz(60) - 261.6256).abs() < 1e-3);
    }
}
