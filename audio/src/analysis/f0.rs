//! Fundamental frequency by YIN (de Cheveigné and Kawahara, 2002): the
//! cumulative-mean-normalised difference function per frame, the first dip
//! under a threshold, refined by parabolic interpolation.

/// The lowest and highest pitch searched (Hz): deep male to child voices.
pub const MIN_HZ: f32 = 60.0;
pub const MAX_HZ: f32 = 500.0;

/// The F0 of one frame in Hz, or `None` when it is unvoiced (no dip under
/// `threshold`, 0.15 is usual). The frame must hold at least two periods of
/// [`MIN_HZ`].
pub fn yin_frame(frame: &[f32], rate: u32, threshold: f32) -> Option<f32> {
    let min_lag = (rate as f32 / MAX_HZ).floor() as usize;
    let max_lag = (rate as f32 / MIN_HZ).ceil() as usize;
    let w = frame.len().checked_sub(max_lag)?;
    if w < max_lag || min_lag < 2 {
        return None;
    }
    // Difference function d(tau).
    let mut d = vec![0.0f32; max_lag + 1];
    for (tau, slot) in d.iter_mut().enumerate().skip(1) {
        let a = frame.get(..w)?;
        let b = frame.get(tau..tau + w)?;
        *slot = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    }
    // Cumulative mean normalised.
    let mut cmnd = vec![1.0f32; max_lag + 1];
    let mut running = 0.0f32;
    for tau in 1..=max_lag {
        let dt = d.get(tau).copied().unwrap_or(0.0);
        running += dt;
        if let Some(c) = cmnd.get_mut(tau) {
            *c = if running > 0.0 {
                dt * tau as f32 / running
            } else {
                1.0
            };
        }
    }
    let at = |i: usize| cmnd.get(i).copied().unwrap_or(1.0);
    let mut tau = min_lag;
    while tau < max_lag {
        if at(tau) < threshold {
            while tau + 1 < max_lag && at(tau + 1) < at(tau) {
                tau += 1;
            }
            let (a, b, c) = (at(tau - 1), at(tau), at(tau + 1));
            let denom = a - 2.0 * b + c;
            let shift = if denom.abs() > 1e-9 {
                (0.5 * (a - c) / denom).clamp(-1.0, 1.0)
            } else {
                0.0
            };
            let lag = tau as f32 + shift;
            return (lag > 0.0).then(|| rate as f32 / lag);
        }
        tau += 1;
    }
    None
}

/// F0 per 10 ms hop over mono samples (frames of 40 ms); unvoiced or quiet
/// frames are `None`.
pub fn track(samples: &[f32], rate: u32) -> Vec<Option<f32>> {
    let hop = (rate / 100).max(1) as usize;
    let len = (rate as usize * 40 / 1000).max(2 * (rate as f32 / MIN_HZ) as usize + 1);
    let mut out = Vec::new();
    let mut start = 0;
    while start + len <= samples.len() {
        let frame = samples.get(start..start + len).unwrap_or(&[]);
        let quiet = super::rms(frame) < 0.01;
        out.push(if quiet {
            None
        } else {
            yin_frame(frame, rate, 0.15)
        });
        start += hop;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f32, rate: u32, secs: f32) -> Vec<f32> {
        (0..(rate as f32 * secs) as usize)
            .map(|i| {
                let t = i as f32 / rate as f32;
                // A voice-like tone: fundamental and two harmonics.
                0.5 * (t * hz * std::f32::consts::TAU).sin()
                    + 0.3 * (t * 2.0 * hz * std::f32::consts::TAU).sin()
                    + 0.2 * (t * 3.0 * hz * std::f32::consts::TAU).sin()
            })
            .collect()
    }

    #[test]
    fn yin_finds_the_fundamental_of_harmonic_tones() {
        for hz in [80.0, 120.0, 180.0, 250.0, 400.0] {
            let f = track(&tone(hz, 16_000, 0.5), 16_000);
            let voiced: Vec<f32> = f.iter().flatten().copied().collect();
            assert!(voiced.len() > f.len() * 9 / 10, "{hz}");
            for v in voiced {
                assert!((v - hz).abs() / hz < 0.02, "{hz}: {v}");
            }
        }
        assert!(track(&vec![0.0; 16_000], 16_000)
            .iter()
            .all(Option::is_none));
    }
}
