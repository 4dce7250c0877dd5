//! Sampled audio as every engine yields it: interleaved `f32` samples in
//! -1..=1 at a rate, mono or stereo.

/// Interleaved samples.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pcm {
    /// Samples per second per channel.
    pub rate: u32,
    /// 1 or 2.
    pub channels: u16,
    pub samples: Vec<f32>,
}

impl Pcm {
    pub fn mono(rate: u32, samples: Vec<f32>) -> Pcm {
        Pcm {
            rate,
            channels: 1,
            samples,
        }
    }

    /// Frames (samples per channel).
    pub fn frames(&self) -> usize {
        self.samples.len() / usize::from(self.channels.max(1))
    }

    /// Length in seconds.
    pub fn duration(&self) -> f64 {
        if self.rate == 0 {
            return 0.0;
        }
        self.frames() as f64 / f64::from(self.rate)
    }

    /// Root mean square over every sample (0 for none).
    pub fn rms(&self) -> f32 {
        crate::analysis::rms(&self.samples)
    }

    /// The channels averaged into one.
    pub fn to_mono(&self) -> Pcm {
        if self.channels <= 1 {
            return self.clone();
        }
        let c = usize::from(self.channels);
        let samples = self
            .samples
            .chunks_exact(c)
            .map(|f| f.iter().sum::<f32>() / c as f32)
            .collect();
        Pcm::mono(self.rate, samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_counts_frames_not_samples() {
        let p = Pcm {
            rate: 10,
            channels: 2,
            samples: vec![0.5; 40],
        };
        assert_eq!(p.frames(), 20);
        assert!((p.duration() - 2.0).abs() < 1e-9);
        let m = p.to_mono();
        assert_eq!(m.samples.len(), 20);
        assert!((m.rms() - 0.5).abs() < 1e-6);
        assert_eq!(Pcm::default().duration(), 0.0);
    }
}
