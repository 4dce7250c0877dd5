//! Music theory the composer draws on: moods read from a prompt's words and
//! what each implies (mode, tempo range, progressions, GM instruments),
//! scale degrees to MIDI keys, chords, a seeded motif, and a small seeded
//! random generator (so songs are reproducible without extra crates).

/// A prompt's mood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mood {
    Happy,
    Sad,
    Calm,
    Epic,
    Energetic,
    Jazz,
    Neutral,
}

/// General MIDI programs of a mood's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruments {
    pub melody: u8,
    pub chords: u8,
    pub bass: u8,
    pub pad: u8,
}

const MAJOR: [u8; 7] = [0, 2, 4, 5, 7, 9, 11];
const MINOR: [u8; 7] = [0, 2, 3, 5, 7, 8, 10];
const DORIAN: [u8; 7] = [0, 2, 3, 5, 7, 9, 10];

/// Words that set each mood, checked in this order (the first mood with a
/// word in the prompt wins).
const WORDS: [(Mood, &[&str]); 6] = [
    (
        Mood::Jazz,
        &[
            "jazz",
            "swing",
            "bossa",
            "blues",
            "lounge",
            "bebop",
            "saxophone",
        ],
    ),
    (
        Mood::Epic,
        &[
            "epic",
            "cinematic",
            "trailer",
            "orchestral",
            "heroic",
            "battle",
            "dramatic",
            "adventure",
            "film",
            "soundtrack",
            "war",
        ],
    ),
    (
        Mood::Energetic,
        &[
            "energetic",
            "rock",
            "dance",
            "edm",
            "techno",
            "house",
            "workout",
            "fast",
            "party",
            "electronic",
            "metal",
            "punk",
            "club",
            "upbeat",
            "hype",
        ],
    ),
    (
        Mood::Sad,
        &[
            "sad",
            "melancholic",
            "melancholy",
            "lonely",
            "heartbreak",
            "tears",
            "sorrow",
            "grief",
            "dark",
            "rain",
            "ballad",
            "nostalgic",
            "goodbye",
            "cry",
        ],
    ),
    (
        Mood::Calm,
        &[
            "calm",
            "chill",
            "lofi",
            "lo-fi",
            "relax",
            "relaxing",
            "ambient",
            "peaceful",
            "sleep",
            "soft",
            "gentle",
            "study",
            "meditation",
            "dreamy",
            "slow",
        ],
    ),
    (
        Mood::Happy,
        &[
            "happy", "bright", "joy", "joyful", "sunny", "summer", "pop", "cheerful", "fun",
            "love", "wedding", "birthday", "kids", "playful", "sunshine",
        ],
    ),
];

impl Mood {
    /// The mood of a prompt's words ([`Mood::Neutral`] when none matches).
    pub fn of(prompt: &str) -> Mood {
        let lower = prompt.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .filter(|w| !w.is_empty())
            .collect();
        for (mood, list) in WORDS {
            if words.iter().any(|w| list.contains(w)) {
                return mood;
            }
        }
        Mood::Neutral
    }

    /// Beats per minute, inclusive.
    pub fn bpm_range(self) -> (u32, u32) {
        match self {
            Mood::Happy => (110, 128),
            Mood::Sad => (64, 76),
            Mood::Calm => (70, 90),
            Mood::Epic => (90, 100),
            Mood::Energetic => (120, 150),
            Mood::Jazz => (96, 132),
            Mood::Neutral => (96, 116),
        }
    }

    pub fn scale(self) -> &'static [u8] {
        match self {
            Mood::Sad | Mood::Epic => &MINOR,
            Mood::Calm => &DORIAN,
            _ => &MAJOR,
        }
    }

    pub fn mode_name(self) -> &'static str {
        match self {
            Mood::Sad | Mood::Epic => "natural minor",
            Mood::Calm => "dorian",
            _ => "major",
        }
    }

    /// Chords with sevenths (jazz, calm).
    pub fn sevenths(self) -> bool {
        matches!(self, Mood::Jazz | Mood::Calm)
    }

    /// Progressions as 0-based scale degrees, one chord per bar.
    pub fn progressions(self) -> &'static [&'static [usize]] {
        match self {
            Mood::Sad | Mood::Epic => &[&[0, 5, 2, 6], &[0, 3, 4, 0], &[0, 5, 3, 4]],
            Mood::Jazz => &[&[1, 4, 0, 5], &[0, 5, 1, 4]],
            Mood::Calm => &[&[0, 3, 0, 4], &[1, 4, 0, 3]],
            _ => &[&[0, 4, 5, 3], &[5, 3, 0, 4], &[0, 5, 3, 4]],
        }
    }

    pub fn instruments(self) -> Instruments {
        let (melody, chords, bass, pad) = match self {
            Mood::Happy => (80, 0, 33, 89),
            Mood::Sad => (73, 0, 32, 48),
            Mood::Calm => (73, 4, 32, 89),
            Mood::Epic => (61, 48, 43, 49),
            Mood::Energetic => (81, 29, 38, 90),
            Mood::Jazz => (65, 4, 32, 48),
            Mood::Neutral => (80, 0, 33, 89),
        };
        Instruments {
            melody,
            chords,
            bass,
            pad,
        }
    }
}

/// FNV-1a of a text.
pub fn hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.trim().to_lowercase().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..1.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (0 for n = 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// The MIDI key of scale degree `degree` (any integer; 7 = an octave up)
/// above `base`.
pub fn degree_key(base: i32, scale: &[u8], degree: i32) -> u8 {
    let n = scale.len().max(1) as i32;
    let octave = degree.div_euclid(n);
    let step = scale
        .get(degree.rem_euclid(n) as usize)
        .copied()
        .unwrap_or(0);
    (base + 12 * octave + i32::from(step)).clamp(0, 127) as u8
}

/// The triad (or seventh chord) on `degree` of the scale from `tonic`.
pub fn chord(tonic: u8, scale: &[u8], degree: usize, seventh: bool) -> Vec<u8> {
    let d = degree as i32;
    let mut tones = vec![0, 2, 4];
    if seventh {
        tones.push(6);
    }
    tones
        .into_iter()
        .map(|t| degree_key(i32::from(tonic), scale, d + t))
        .collect()
}

/// A two-bar motif: `(beat, length in beats, scale degree from the chord
/// root)`, chord tones on the beats and passing notes between, ending on
/// the root.
pub fn motif(rng: &mut Rng) -> Vec<(f64, f64, i32)> {
    const RHYTHMS: [&[(f64, f64)]; 4] = [
        &[(0.0, 1.0), (1.0, 0.5), (1.5, 0.5), (2.0, 1.0), (3.0, 1.0)],
        &[(0.0, 1.5), (1.5, 0.5), (2.0, 2.0)],
        &[(0.0, 0.5), (0.5, 0.5), (1.0, 1.0), (2.5, 0.5), (3.0, 1.0)],
        &[(0.0, 1.0), (1.0, 1.0), (2.0, 0.5), (2.5, 0.5), (3.0, 1.0)],
    ];
    let first = RHYTHMS
        .get(rng.below(RHYTHMS.len()))
        .copied()
        .unwrap_or(&[]);
    let second = RHYTHMS
        .get(rng.below(RHYTHMS.len()))
        .copied()
        .unwrap_or(&[]);
    let mut out = Vec::new();
    let mut prev = [0, 2, 4].get(rng.below(3)).copied().unwrap_or(0);
    for (bar, rhythm) in [first, second].into_iter().enumerate() {
        for (i, &(at, len)) in rhythm.iter().enumerate() {
            let on_beat = at.fract() == 0.0;
            let d = if bar == 1 && i + 1 == rhythm.len() {
                0
            } else if on_beat {
                // The nearest chord tone, moving.
                let options = [0, 2, 4, 7];
                let pick = options.get(rng.below(options.len())).copied().unwrap_or(0);
                if pick == prev {
                    (pick + 2) % 7
                } else {
                    pick
                }
            } else {
                prev + if rng.below(2) == 0 { 1 } else { -1 }
            };
            prev = d;
            out.push((bar as f64 * 4.0 + at, len, d));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn moods_come_from_words() {
        for (p, m) in [
            ("a happy summer song", Mood::Happy),
            ("Melancholic piano in the rain", Mood::Sad),
            ("lo-fi chill beats to study", Mood::Calm),
            ("EPIC cinematic battle", Mood::Epic),
            ("fast rock anthem", Mood::Energetic),
            ("smooth jazz lounge", Mood::Jazz),
            ("a song about my cat", Mood::Neutral),
        ] {
            assert_eq!(Mood::of(p), m, "{p}");
        }
    }

    #[test]
    fn degrees_and_chords() {
        // C major from C4 = 60.
        assert_eq!(degree_key(60, &MAJOR, 0), 60);
        assert_eq!(degree_key(60, &MAJOR, 4), 67);
        assert_eq!(degree_key(60, &MAJOR, 7), 72);
        assert_eq!(degree_key(60, &MAJOR, -1), 59);
        assert_eq!(chord(60, &MAJOR, 5, false), vec![69, 72, 76]); // A minor
        assert_eq!(chord(57, &MINOR, 0, true), vec![57, 60, 64, 67]); // Am7
        assert_eq!(chord(60, &MAJOR, 4, true), vec![67, 71, 74, 77]); // G7
    }

    #[test]
    fn the_motif_ends_on_the_root_and_stays_in_two_bars() {
        for seed in 0..20 {
            let m = motif(&mut Rng::new(seed));
            assert_eq!(m.last().unwrap().2, 0);
            assert!(m.iter().all(|(at, len, _)| at + len <= 8.0 + 1e-9));
        }
    }
}
