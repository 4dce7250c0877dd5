//! Voice measurements for training: voiced activity by energy, F0 median
//! and 5-95 % range (YIN), speaking rate (syllable nuclei per voiced
//! second), brightness (spectral centroid), and how they map onto eSpeak's
//! pitch, range and rate and the nearest stock voice.

use serde::{Deserialize, Serialize};

use super::f0;

/// What one sample (or several, merged) measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoiceMeasure {
    /// Seconds of the sample and of speech in it.
    pub seconds: f32,
    pub voiced_seconds: f32,
    /// Median F0 (Hz) and the 5th and 95th percentiles.
    pub f0_median_hz: f32,
    pub f0_p5_hz: f32,
    pub f0_p95_hz: f32,
    /// Syllables per second of speech.
    pub syllables_per_sec: f32,
    /// Spectral centroid of the speech (Hz).
    pub brightness_hz: f32,
}

impl VoiceMeasure {
    /// The 5-95 % pitch range in semitones.
    pub fn range_semitones(&self) -> f32 {
        if self.f0_p5_hz <= 0.0 {
            return 0.0;
        }
        12.0 * (self.f0_p95_hz / self.f0_p5_hz).log2()
    }
}

fn percentile(sorted: &[f32], p: f32) -> f32 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f32 * p).round() as usize;
    sorted.get(i).copied().unwrap_or(0.0)
}

/// Measures mono samples at `rate` (16 kHz is plenty). `None` when there is
/// too little voiced speech (under half a second of pitch).
pub fn measure(samples: &[f32], rate: u32) -> Option<VoiceMeasure> {
    let hop = (rate / 100).max(1) as usize;
    let energies: Vec<f32> = samples.chunks(hop).map(super::rms).collect();
    let peak = energies.iter().copied().fold(0.0f32, f32::max);
    // Speech frames: within 30 dB of the loudest.
    let active: Vec<bool> = energies
        .iter()
        .map(|e| *e > peak * 0.0316 && *e > 1e-3)
        .collect();
    let voiced_seconds = active.iter().filter(|a| **a).count() as f32 / 100.0;
    let mut pitches: Vec<f32> = f0::track(samples, rate).into_iter().flatten().collect();
    if pitches.len() < 50 {
        return None;
    }
    pitches.sort_by(|a, b| a.total_cmp(b));
    // Syllable nuclei: peaks of the smoothed energy envelope that stand
    // 3 dB over the dip before them, at least 100 ms apart.
    let smooth: Vec<f32> = (0..energies.len())
        .map(|i| {
            let lo = i.saturating_sub(2);
            let hi = (i + 3).min(energies.len());
            let w = energies.get(lo..hi).unwrap_or(&[]);
            w.iter().sum::<f32>() / w.len().max(1) as f32
        })
        .collect();
    let mut nuclei = 0usize;
    let mut dip = f32::MAX;
    let mut last_peak: Option<usize> = None;
    for i in 1..smooth.len().saturating_sub(1) {
        let (p, c, n) = (
            smooth.get(i - 1).copied().unwrap_or(0.0),
            smooth.get(i).copied().unwrap_or(0.0),
            smooth.get(i + 1).copied().unwrap_or(0.0),
        );
        dip = dip.min(c);
        let is_peak = c >= p && c > n && active.get(i).copied().unwrap_or(false);
        if is_peak && c > dip * 1.41 && last_peak.is_none_or(|l| i - l >= 10) {
            nuclei += 1;
            last_peak = Some(i);
            dip = c;
        }
    }
    Some(VoiceMeasure {
        seconds: samples.len() as f32 / rate as f32,
        voiced_seconds,
        f0_median_hz: percentile(&pitches, 0.5),
        f0_p5_hz: percentile(&pitches, 0.05),
        f0_p95_hz: percentile(&pitches, 0.95),
        syllables_per_sec: nuclei as f32 / voiced_seconds.max(0.1),
        brightness_hz: centroid(samples, rate, &active),
    })
}

/// Mean spectral centroid of the active 32 ms frames (a plain DFT over 64
/// bands: no FFT crate needed at this size).
fn centroid(samples: &[f32], rate: u32, active: &[bool]) -> f32 {
    let hop = (rate / 100).max(1) as usize;
    let n = 256usize;
    let bands = 64usize;
    let mut sum = 0.0f64;
    let mut count = 0usize;
    for (i, a) in active.iter().enumerate().step_by(3) {
        if !a {
            continue;
        }
        let Some(frame) = samples.get(i * hop..i * hop + n) else {
            continue;
        };
        let mut num = 0.0f64;
        let mut den = 0.0f64;
        for k in 1..bands {
            let bin = k * n / 2 / bands;
            let (mut re, mut im) = (0.0f64, 0.0f64);
            for (t, x) in frame.iter().enumerate() {
                let ph = std::f64::consts::TAU * (bin * t) as f64 / n as f64;
                re += f64::from(*x) * ph.cos();
                im -= f64::from(*x) * ph.sin();
            }
            let mag = (re * re + im * im).sqrt();
            num += mag * (bin as f64 * f64::from(rate) / n as f64);
            den += mag;
        }
        if den > 0.0 {
            sum += num / den;
            count += 1;
        }
    }
    if count == 0 {
        0.0
    } else {
        (sum / count as f64) as f32
    }
}

/// Several samples' measures merged, weighted by voiced seconds.
pub fn merge(all: &[VoiceMeasure]) -> Option<VoiceMeasure> {
    let total: f32 = all.iter().map(|m| m.voiced_seconds.max(0.01)).sum();
    if all.is_empty() {
        return None;
    }
    let avg = |f: &dyn Fn(&VoiceMeasure) -> f32| {
        all.iter()
            .map(|m| f(m) * m.voiced_seconds.max(0.01))
            .sum::<f32>()
            / total
    };
    Some(VoiceMeasure {
        seconds: all.iter().map(|m| m.seconds).sum(),
        voiced_seconds: all.iter().map(|m| m.voiced_seconds).sum(),
        f0_median_hz: avg(&|m| m.f0_median_hz),
        f0_p5_hz: avg(&|m| m.f0_p5_hz),
        f0_p95_hz: avg(&|m| m.f0_p95_hz),
        syllables_per_sec: avg(&|m| m.syllables_per_sec),
        brightness_hz: avg(&|m| m.brightness_hz),
    })
}

/// eSpeak parameters for a measured voice: pitch 0-99 (eSpeak's default 50
/// is about 118 Hz for male and 200 Hz for female variants, 2.2 per
/// semitone), range 0-99 (50 ≈ a 10-semitone 5-95 % range), rate in words
/// per minute (about 1.4 syllables a word), and the variant (`+m3`/`+f3`
/// by pitch, `+f4`/`+m6` for bright voices).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EspeakParams {
    pub espeak_pitch: u32,
    pub espeak_range: u32,
    pub rate_wpm: u32,
    pub variant: String,
    pub female: bool,
}

pub fn espeak_params(m: &VoiceMeasure) -> EspeakParams {
    let female = m.f0_median_hz >= 165.0;
    let base_hz = if female { 200.0 } else { 118.0 };
    let st = 12.0 * (m.f0_median_hz.max(1.0) / base_hz).log2();
    let pitch = (50.0 + st * 2.2).round().clamp(0.0, 99.0) as u32;
    let range = (m.range_semitones() * 5.0).round().clamp(0.0, 99.0) as u32;
    let rate = (m.syllables_per_sec * 60.0 / 1.4)
        .round()
        .clamp(80.0, 400.0) as u32;
    let bright = m.brightness_hz > if female { 2200.0 } else { 1800.0 };
    let variant = match (female, bright) {
        (true, true) => "f4",
        (true, false) => "f3",
        (false, true) => "m6",
        (false, false) => "m3",
    };
    EspeakParams {
        espeak_pitch: pitch,
        espeak_range: range,
        rate_wpm: rate,
        variant: variant.into(),
        female,
    }
}
