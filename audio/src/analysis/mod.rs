//! Measurements of audio: loudness here; pitch and voice measurements in
//! their own modules ([`f0`]: YIN pitch, [`voice`]: voice measurements).

pub mod f0;
pub mod voice;

/// Root mean square of samples (0 for none).
pub fn rms(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples.iter().map(|s| f64::from(*s) * f64::from(*s)).sum();
    (sum / samples.len() as f64).sqrt() as f32
}

/// A level in dB relative to full scale (-inf for silence, clamped to -120).
pub fn dbfs(level: f32) -> f32 {
    if level <= 1e-6 {
        -120.0
    } else {
        20.0 * level.log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rms_of_a_full_scale_sine_is_minus_three_db() {
        let s: Vec<f32> = (0..48_000)
            .map(|i| (i as f32 * 440.0 * std::f32::consts::TAU / 48_000.0).sin())
            .collect();
        let db = dbfs(rms(&s));
        assert!((db + 3.01).abs() < 0.05, "{db}");
        assert_eq!(rms(&[]), 0.0);
        assert_eq!(dbfs(0.0), -120.0);
    }
}
