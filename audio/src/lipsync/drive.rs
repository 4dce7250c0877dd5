//! What moves the mouth, frame by frame: the audio's loudness envelope
//! (RMS per frame, 30 ms attack, 80 ms release, normalised to the clip's
//! 95th percentile) times the openness of the viseme spoken at that frame
//! (from the speech engine's phonemes, or from the spectral centroid when
//! there are none), and the viseme's mouth shape (spread or rounded).

use crate::speech::Phoneme;
use crate::Pcm;

/// Mouth shapes of speech.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viseme {
    /// Silence, pauses.
    Rest,
    /// p b m: lips pressed together.
    Closed,
    /// f v: lower lip under the teeth.
    Labiodental,
    /// θ ð: tongue between the teeth.
    Dental,
    /// a ɑ æ aɪ aʊ ʌ: jaw wide open.
    Open,
    /// e ɛ ə eɪ: half open.
    Mid,
    /// i ɪ j s z: lips spread.
    Spread,
    /// o ɔ u ʊ w: lips rounded.
    Rounded,
    /// Other consonants (t d n l k g r h ...): slightly open, neutral.
    Other,
}

/// How a viseme shapes the mouth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// How far the jaw may drop (0..=1, times the loudness).
    pub open: f32,
    /// Mouth width factor (1 = at rest; > 1 spread, < 1 rounded).
    pub width: f32,
}

impl Viseme {
    pub const fn shape(self) -> Shape {
        let (open, width) = match self {
            Viseme::Rest => (0.0, 1.0),
            Viseme::Closed => (0.05, 0.97),
            Viseme::Labiodental => (0.25, 1.0),
            Viseme::Dental => (0.35, 1.02),
            Viseme::Open => (1.0, 1.04),
            Viseme::Mid => (0.7, 1.08),
            Viseme::Spread => (0.4, 1.18),
            Viseme::Rounded => (0.55, 0.78),
            Viseme::Other => (0.4, 1.0),
        };
        Shape { open, width }
    }

    /// The viseme of one phoneme in IPA (stress and length marks ignored).
    pub fn of_ipa(ipa: &str) -> Viseme {
        let p: String = ipa
            .chars()
            .filter(|c| !matches!(c, 'ˈ' | 'ˌ' | 'ː' | 'ˑ' | '\'' | ',' | ':' | '̃' | '̩'))
            .collect();
        let p = p.trim();
        let Some(first) = p.chars().next() else {
            return Viseme::Rest;
        };
        if p.starts_with("tʃ") || p.starts_with("dʒ") {
            return Viseme::Spread;
        }
        match first {
            '_' | ' ' | '.' | '|' => Viseme::Rest,
            'p' | 'b' | 'm' => Viseme::Closed,
            'f' | 'v' | 'ʋ' => Viseme::Labiodental,
            'θ' | 'ð' => Viseme::Dental,
            'a' | 'ɑ' | 'æ' | 'ʌ' | 'ɐ' | 'ä' => Viseme::Open,
            'e' | 'ɛ' | 'ə' | 'ɜ' | 'ɚ' | 'ɝ' | 'ø' | 'œ' => Viseme::Mid,
            'i' | 'ɪ' | 'j' | 's' | 'z' | 'ʃ' | 'ʒ' | 'ç' | 'ɕ' | 'ʑ' | 'ɨ' | 'y' => {
                Viseme::Spread
            }
            'o' | 'ɔ' | 'u' | 'ʊ' | 'w' | 'ɒ' | 'ɯ' | 'ʉ' | 'ɥ' => Viseme::Rounded,
            _ => Viseme::Other,
        }
    }

    /// A viseme from the spectral centroid (Hz) of voiced sound, for audio
    /// that came with no phonemes: low = rounded, high = spread (sibilants).
    pub fn of_centroid(hz: f32) -> Viseme {
        if hz < 900.0 {
            Viseme::Rounded
        } else if hz < 2000.0 {
            Viseme::Open
        } else if hz < 3500.0 {
            Viseme::Mid
        } else {
            Viseme::Spread
        }
    }
}

/// The mouth of one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MouthPose {
    /// 0 = closed, 1 = wide open.
    pub open: f32,
    /// Width factor (1 = at rest).
    pub width: f32,
}

/// Loudness per frame, smoothed (attack 30 ms, release 80 ms) and
/// normalised so the clip's 95th percentile is 1; sound below a tenth of
/// that (and a clip that is silence) is 0.
pub fn envelope(pcm: &Pcm, fps: f64, frames: usize) -> Vec<f32> {
    let mono = pcm.to_mono();
    let rate = f64::from(mono.rate.max(1));
    let per = rate / fps;
    let mut raw = Vec::with_capacity(frames);
    for i in 0..frames {
        let a = (i as f64 * per) as usize;
        let b = (((i + 1) as f64 * per) as usize).min(mono.samples.len());
        raw.push(mono.samples.get(a..b).map_or(0.0, crate::analysis::rms));
    }
    let dt = 1.0 / fps as f32;
    let up = 1.0 - (-dt / 0.030).exp();
    let down = 1.0 - (-dt / 0.080).exp();
    let mut level = 0.0f32;
    let smooth: Vec<f32> = raw
        .iter()
        .map(|r| {
            let k = if *r > level { up } else { down };
            level += (r - level) * k;
            level
        })
        .collect();
    let mut sorted = smooth.clone();
    sorted.sort_by(f32::total_cmp);
    let p95 = sorted
        .get(((sorted.len() as f32 * 0.95) as usize).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0);
    if p95 < 1e-3 {
        return vec![0.0; frames];
    }
    smooth
        .iter()
        .map(|v| {
            let n = v / p95;
            if n < 0.1 {
                0.0
            } else {
                ((n - 0.1) / 0.9).clamp(0.0, 1.0)
            }
        })
        .collect()
}

/// The spectral centroid (Hz) of each frame's sound (a 512-point DFT of
/// its middle; 0 for silence).
pub fn centroids(pcm: &Pcm, fps: f64, frames: usize) -> Vec<f32> {
    const N: usize = 512;
    let mono = pcm.to_mono();
    let rate = mono.rate.max(1) as f32;
    let per = f64::from(mono.rate.max(1)) / fps;
    // Hann window and the DFT's twiddles for the bins up to 8 kHz.
    let bins = ((8000.0 / rate * N as f32) as usize).clamp(1, N / 2);
    let window: Vec<f32> = (0..N)
        .map(|i| 0.5 - 0.5 * (std::f32::consts::TAU * i as f32 / N as f32).cos())
        .collect();
    let cos: Vec<f32> = (0..N)
        .map(|i| (std::f32::consts::TAU * i as f32 / N as f32).cos())
        .collect();
    let sin: Vec<f32> = (0..N)
        .map(|i| (std::f32::consts::TAU * i as f32 / N as f32).sin())
        .collect();
    (0..frames)
        .map(|i| {
            let mid = ((i as f64 + 0.5) * per) as usize;
            let start = mid.saturating_sub(N / 2);
            let Some(chunk) = mono.samples.get(start..start + N) else {
                return 0.0;
            };
            if crate::analysis::rms(chunk) < 1e-3 {
                return 0.0;
            }
            let (mut num, mut den) = (0.0f32, 0.0f32);
            let windowed: Vec<f32> = chunk.iter().zip(&window).map(|(s, h)| s * h).collect();
            for k in 1..bins {
                let (mut re, mut im) = (0.0f32, 0.0f32);
                for (n, v) in windowed.iter().enumerate() {
                    let at = (k * n) % N;
                    re += v * cos.get(at).copied().unwrap_or(0.0);
                    im -= v * sin.get(at).copied().unwrap_or(0.0);
                }
                let mag = (re * re + im * im).sqrt();
                num += mag * k as f32 * rate / N as f32;
                den += mag;
            }
            if den > 0.0 {
                num / den
            } else {
                0.0
            }
        })
        .collect()
}

/// The viseme at each frame: the phoneme sounding at the frame's middle
/// when there are phonemes, else the spectral centroid's.
pub fn visemes(pcm: &Pcm, phonemes: &[Phoneme], fps: f64, frames: usize) -> Vec<Viseme> {
    if phonemes.is_empty() {
        return centroids(pcm, fps, frames)
            .into_iter()
            .map(|c| {
                if c <= 0.0 {
                    Viseme::Rest
                } else {
                    Viseme::of_centroid(c)
                }
            })
            .collect();
    }
    let mut sorted: Vec<&Phoneme> = phonemes.iter().collect();
    sorted.sort_by_key(|p| p.at_ms);
    let mut j = 0usize;
    (0..frames)
        .map(|i| {
            let t = ((i as f64 + 0.5) / fps * 1000.0) as u32;
            while sorted.get(j + 1).is_some_and(|p| p.at_ms <= t) {
                j += 1;
            }
            match sorted.get(j) {
                Some(p) if p.at_ms <= t => Viseme::of_ipa(&p.ipa),
                _ => Viseme::Rest,
            }
        })
        .collect()
}

/// The mouth pose of every frame: loudness x the viseme's openness, its
/// width, both eased over about two frames so the mouth never snaps.
pub fn poses(pcm: &Pcm, phonemes: &[Phoneme], fps: f64, frames: usize) -> Vec<MouthPose> {
    let env = envelope(pcm, fps, frames);
    let vis = visemes(pcm, phonemes, fps, frames);
    let mut open = 0.0f32;
    let mut width = 1.0f32;
    env.iter()
        .zip(&vis)
        .map(|(e, v)| {
            let s = v.shape();
            // Lips close for p/b/m however loud the sound.
            let target = if *v == Viseme::Closed {
                0.0
            } else {
                e * s.open
            };
            let target_w = 1.0 + (s.width - 1.0) * e.min(1.0).max(0.3 * f32::from(*e > 0.0));
            open += (target - open) * 0.6;
            width += (target_w - width) * 0.5;
            MouthPose { open, width }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn phonemes_map_to_visemes() {
        let cases = [
            ("p", Viseme::Closed),
            ("m", Viseme::Closed),
            ("f", Viseme::Labiodental),
            ("ð", Viseme::Dental),
            ("ˈaɪ", Viseme::Open),
            ("ɑː", Viseme::Open),
            ("ə", Viseme::Mid),
            ("eɪ", Viseme::Mid),
            ("iː", Viseme::Spread),
            ("s", Viseme::Spread),
            ("tʃ", Viseme::Spread),
            ("oʊ", Viseme::Rounded),
            ("uː", Viseme::Rounded),
            ("w", Viseme::Rounded),
            ("t", Viseme::Other),
            ("_", Viseme::Rest),
            ("", Viseme::Rest),
        ];
        for (ipa, want) in cases {
            assert_eq!(Viseme::of_ipa(ipa), want, "{ipa}");
        }
        assert_eq!(Viseme::of_centroid(500.0), Viseme::Rounded);
        assert_eq!(Viseme::of_centroid(5000.0), Viseme::Spread);
    }

    fn tone(hz: f32, secs: f32, amp: f32) -> Vec<f32> {
        let n = (secs * 16_000.0) as usize;
        (0..n)
            .map(|i| amp * (i as f32 * hz * std::f32::consts::TAU / 16_000.0).sin())
            .collect()
    }

    #[test]
    fn the_envelope_follows_sound_and_silence() {
        let mut s = tone(220.0, 1.0, 0.5);
        s.extend(vec![0.0; 16_000]);
        let pcm = Pcm::mono(16_000, s);
        let env = envelope(&pcm, 25.0, 50);
        assert!(env[10..24].iter().all(|v| *v > 0.8), "{env:?}");
        assert!(env[35..].iter().all(|v| *v == 0.0), "{env:?}");
        let silent = envelope(&Pcm::mono(16_000, vec![0.0; 16_000]), 25.0, 25);
        assert!(silent.iter().all(|v| *v == 0.0));
    }

    #[test]
    fn centroids_tell_low_from_high_sound() {
        let mut s = tone(300.0, 0.5, 0.5);
        s.extend(tone(5000.0, 0.5, 0.5));
        let c = centroids(&Pcm::mono(16_000, s), 25.0, 25);
        assert!(c[5] < 900.0, "{c:?}");
        assert!(c[20] > 3500.0, "{c:?}");
    }

    #[test]
    fn poses_open_on_vowels_and_close_on_p_and_silence() {
        let mut s = tone(220.0, 1.0, 0.5);
        s.extend(vec![0.0; 16_000]);
        let pcm = Pcm::mono(16_000, s);
        let ph = |at_ms: u32, ipa: &str| Phoneme {
            at_ms,
            ipa: ipa.into(),
        };
        let phonemes = [ph(0, "a"), ph(400, "p"), ph(600, "uː"), ph(1000, "_")];
        let p = poses(&pcm, &phonemes, 25.0, 50);
        assert!(p[7].open > 0.7, "{:?}", p[7]);
        assert!(p[14].open < 0.1, "{:?}", p[14]);
        assert!(p[20].width < 0.9 && p[20].open > 0.3, "{:?}", p[20]);
        assert!(p[45].open < 0.01, "{:?}", p[45]);
        let v = visemes(&pcm, &phonemes, 25.0, 50);
        assert_eq!(
            (v[0], v[12], v[20], v[30]),
            (Viseme::Open, Viseme::Closed, Viseme::Rounded, Viseme::Rest)
        );
    }
}
