//! Tempo measured from audio: an onset-strength envelope of the low band
//! (kick and bass, below ~120 Hz: positive log-energy differences in short
//! hops) and its autocorrelation, the beat lag chosen with a comb over its
//! multiples and refined on the bar lag. Used to check rendered music
//! keeps its tempo.

use crate::Pcm;

const HOP: usize = 128;
const WIN: usize = 1024;

/// Cut-off of the low band (Hz).
const LOW_BAND: f64 = 120.0;

/// The onset strength per hop of `pcm`'s low band (mono mixdown, two
/// one-pole low-passes).
fn onsets(pcm: &Pcm) -> Vec<f64> {
    let mono = pcm.to_mono();
    let a = 1.0 - (-std::f64::consts::TAU * LOW_BAND / f64::from(pcm.rate.max(1))).exp();
    let (mut y1, mut y2) = (0.0f64, 0.0f64);
    let low: Vec<f32> = mono
        .samples
        .iter()
        .map(|s| {
            y1 += a * (f64::from(*s) - y1);
            y2 += a * (y1 - y2);
            y2 as f32
        })
        .collect();
    // Energy in 23 ms windows every hop (a window shorter than a bass
    // period would ripple with the waveform).
    let mut prefix = Vec::with_capacity(low.len() + 1);
    prefix.push(0f64);
    let mut acc = 0f64;
    for s in &low {
        acc += f64::from(*s) * f64::from(*s);
        prefix.push(acc);
    }
    let power: Vec<f64> = (0..low.len() / HOP)
        .map(|i| {
            let a = i * HOP;
            let b = (a + WIN).min(low.len());
            let sum = prefix.get(b).copied().unwrap_or(acc) - prefix.get(a).copied().unwrap_or(0.0);
            sum / (b - a).max(1) as f64
        })
        .collect();
    // A floor 40 dB under the loudest hop, so near-silence does not make
    // onsets of its noise.
    let floor = power.iter().fold(0f64, |m, p| m.max(*p)) * 1e-4 + 1e-12;
    let energies: Vec<f64> = power.iter().map(|p| (p + floor).ln()).collect();
    let mut out = vec![0.0];
    out.extend(energies.windows(2).map(|w| match w {
        [a, b] => (b - a).max(0.0),
        _ => 0.0,
    }));
    let mean = out.iter().sum::<f64>() / out.len().max(1) as f64;
    out.iter().map(|v| v - mean).collect()
}

fn autocorr(x: &[f64], lag: usize) -> f64 {
    if lag >= x.len() {
        return 0.0;
    }
    let n = x.len() - lag;
    x.iter()
        .zip(x.iter().skip(lag))
        .map(|(a, b)| a * b)
        .sum::<f64>()
        / n as f64
}

/// The tempo in beats per minute between `lo` and `hi`, or `None` when
/// the audio is too short (under four beats of `lo`) or has no onsets.
pub fn estimate_bpm(pcm: &Pcm, lo: f64, hi: f64) -> Option<f64> {
    if pcm.rate == 0 || lo <= 0.0 || hi <= lo {
        return None;
    }
    let x = onsets(pcm);
    let hops_per_sec = f64::from(pcm.rate) / HOP as f64;
    let lag_of = |bpm: f64| 60.0 * hops_per_sec / bpm;
    let (min_lag, max_lag) = (lag_of(hi).floor() as usize, lag_of(lo).ceil() as usize);
    if x.len() < 4 * max_lag + 8 || min_lag < 2 {
        return None;
    }
    let r0 = autocorr(&x, 0);
    if r0 <= 1e-12 {
        return None;
    }
    let score = |l: usize| autocorr(&x, l) + 0.5 * autocorr(&x, 2 * l) + 0.5 * autocorr(&x, 4 * l);
    let best = (min_lag..=max_lag).max_by(|a, b| score(*a).total_cmp(&score(*b)))?;
    // Refine on the bar (4 beats): a peak four times as far is four times
    // as precise.
    let span = 6usize;
    let centre = 4 * best;
    let bar = (centre.saturating_sub(span)..=centre + span)
        .max_by(|a, b| autocorr(&x, *a).total_cmp(&autocorr(&x, *b)))?;
    let (y0, y1, y2) = (
        autocorr(&x, bar - 1),
        autocorr(&x, bar),
        autocorr(&x, bar + 1),
    );
    let denom = y0 - 2.0 * y1 + y2;
    let offset = if denom.abs() > 1e-12 {
        (0.5 * (y0 - y2) / denom).clamp(-0.5, 0.5)
    } else {
        0.0
    };
    let lag = (bar as f64 + offset) / 4.0;
    Some(60.0 * hops_per_sec / lag)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn clicks(bpm: f64, secs: f64) -> Pcm {
        let rate = 22_050u32;
        let n = (secs * f64::from(rate)) as usize;
        let period = 60.0 / bpm * f64::from(rate);
        let mut s = vec![0f32; n];
        let mut k = 0.0;
        while (k as usize) < n {
            for i in 0..2000 {
                if let Some(v) = s.get_mut(k as usize + i) {
                    let t = i as f32 / rate as f32;
                    *v = 0.8 * (-t * 40.0).exp() * (t * 70.0 * std::f32::consts::TAU).sin();
                }
            }
            k += period;
        }
        Pcm::mono(rate, s)
    }

    #[test]
    fn a_click_track_gives_its_tempo() {
        for bpm in [84.0, 97.5, 120.0, 143.0] {
            let got = estimate_bpm(&clicks(bpm, 12.0), 80.0, 170.0).unwrap();
            assert!((got - bpm).abs() < 1.0, "{bpm}: {got}");
        }
        assert!(estimate_bpm(&Pcm::mono(22_050, vec![0.0; 22_050 * 10]), 80.0, 170.0).is_none());
        assert!(estimate_bpm(&clicks(120.0, 1.0), 80.0, 170.0).is_none());
    }
}
