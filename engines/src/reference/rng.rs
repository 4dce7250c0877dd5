//! Seeded randomness for the reference engine: FNV-1a for stable text
//! hashes, SplitMix64 for streams and lattice hashing, and value noise / fBm.
//! Written here (not taken from a crate) so that output bytes can never change
//! with a dependency's version: determinism is part of the engine's contract.

/// FNV-1a 64-bit hash of a string: stable across runs, platforms and versions
/// (unlike `std`'s `DefaultHasher`, which is explicitly not).
pub fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The SplitMix64 finaliser: a bijective avalanche mix of 64 bits.
pub fn mix(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of image `index` of a batch: the job seed plus the index (the
/// spec's rule, reported back in `Produced.seed`), mixed with the prompt so
/// that two prompts with one seed give different pictures.
pub fn image_seed(job_seed: u64, index: u32, prompt: &str) -> u64 {
    mix(job_seed.wrapping_add(u64::from(index)) ^ fnv1a(prompt))
}

/// A SplitMix64 stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(mix(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in `0..n` (`n` > 0; 0 when `n` is 0).
    pub fn below(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        ((self.next_u64() >> 32) % u64::from(n)) as u32
    }
}

/// Hash of an integer lattice point to `[0, 1)`.
pub fn hash2(seed: u64, ix: i64, iy: i64) -> f32 {
    let key = (ix as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (iy as u64).rotate_left(32);
    (mix(seed ^ key) >> 40) as f32 / (1u64 << 24) as f32
}

/// Lattice value noise with quintic interpolation, and its fractal sums.
#[derive(Debug, Clone, Copy)]
pub struct Noise {
    seed: u64,
}

impl Noise {
    pub fn new(seed: u64) -> Noise {
        Noise { seed: mix(seed) }
    }

    /// Value noise in `[0, 1]`.
    pub fn value(&self, x: f32, y: f32) -> f32 {
        let fx = x.floor();
        let fy = y.floor();
        let ix = fx as i64;
        let iy = fy as i64;
        let tx = fade(x - fx);
        let ty = fade(y - fy);
        let a = hash2(self.seed, ix, iy);
        let b = hash2(self.seed, ix + 1, iy);
        let c = hash2(self.seed, ix, iy + 1);
        let d = hash2(self.seed, ix + 1, iy + 1);
        let top = a + (b - a) * tx;
        let bottom = c + (d - c) * tx;
        top + (bottom - top) * ty
    }

    /// Fractional Brownian motion: `octaves` layers of value noise, each at
    /// twice the frequency and half the amplitude; normalised to `[0, 1]`.
    pub fn fbm(&self, x: f32, y: f32, octaves: u32) -> f32 {
        let mut sum = 0.0;
        let mut amp = 0.5;
        let mut norm = 0.0;
        let mut fx = x;
        let mut fy = y;
        for o in 0..octaves.max(1) {
            // A per-octave offset breaks the alignment of lattice points.
            let off = o as f32 * 17.13;
            sum += amp * self.value(fx + off, fy - off);
            norm += amp;
            amp *= 0.5;
            fx *= 2.03;
            fy *= 2.03;
        }
        sum / norm
    }

    /// Ridged fBm (sharp crests), for mountain ridges, in `[0, 1]`.
    pub fn ridged(&self, x: f32, y: f32, octaves: u32) -> f32 {
        let mut sum = 0.0;
        let mut amp = 0.5;
        let mut norm = 0.0;
        let mut fx = x;
        let mut fy = y;
        for o in 0..octaves.max(1) {
            let off = o as f32 * 31.7;
            let n = 1.0 - (2.0 * self.value(fx + off, fy + off) - 1.0).abs();
            sum += amp * n * n;
            norm += amp;
            amp *= 0.5;
            fx *= 2.1;
            fy *= 2.1;
        }
        sum / norm
    }
}

fn fade(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_the_published_function() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn streams_are_reproducible_and_seed_dependent() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let c = Rng::new(8).next_u64();
        assert_eq!(a, b);
        assert_ne!(a[0], c);
        assert_ne!(image_seed(1, 0, "x"), image_seed(1, 1, "x"));
        assert_ne!(image_seed(1, 0, "x"), image_seed(1, 0, "y"));
    }

    #[test]
    fn noise_stays_in_range_and_is_continuous() {
        let n = Noise::new(3);
        let mut prev = n.fbm(0.0, 0.5, 6);
        for i in 1..2000 {
            let x = i as f32 * 0.001;
            let v = n.fbm(x, 0.5, 6);
            assert!((0.0..=1.0).contains(&v));
            assert!((v - prev).abs() < 0.2, "jump at {x}");
            prev = v;
            let r = n.ridged(x, 0.3, 5);
            assert!((0.0..=1.0).contains(&r));
        }
        assert!((Rng::new(1).unit()) < 1.0);
    }
}
