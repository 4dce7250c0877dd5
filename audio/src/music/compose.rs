//! Composition: a prompt's mood chooses mode, tempo, key, progression and
//! General MIDI instruments; the song is laid out in 4-bar phrases (intro,
//! verses, choruses, outro) with drums, bass, chords, a pad and a melody
//! (one note per lyric syllable when lyrics are given). Pure and
//! deterministic: the same brief gives the same [`Score`].

use super::theory::{self, Mood, Rng};

/// One note of a score (seconds from the start).
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub at: f64,
    pub len: f64,
    /// MIDI channel 0..=15 (9 = drums).
    pub channel: u8,
    pub key: u8,
    pub velocity: u8,
}

/// A lyric word on the melody: sung from `at` for `len` seconds at MIDI
/// pitch `key`.
#[derive(Debug, Clone, PartialEq)]
pub struct SungWord {
    pub text: String,
    pub at: f64,
    pub len: f64,
    pub key: u8,
}

/// What a song is made from.
#[derive(Debug, Clone, Default)]
pub struct Brief {
    pub prompt: String,
    pub lyrics: String,
    /// Exact length in seconds.
    pub seconds: f64,
    pub seed: u64,
    /// Times (s) of a video's cuts: the tempo is chosen so they fall near
    /// bar lines, and each gets an accent.
    pub cuts: Vec<f64>,
}

/// A composed song.
#[derive(Debug, Clone)]
pub struct Score {
    pub mood: Mood,
    pub bpm: f64,
    /// MIDI key of the tonic.
    pub tonic: u8,
    pub mode: &'static str,
    pub seconds: f64,
    /// `(channel, program)` set before the first note.
    pub programs: Vec<(u8, u8)>,
    pub notes: Vec<Note>,
    /// The melody's words (empty without lyrics).
    pub words: Vec<SungWord>,
}

pub const MELODY: u8 = 0;
pub const CHORDS: u8 = 1;
pub const BASS: u8 = 2;
pub const PAD: u8 = 3;
pub const DRUMS: u8 = 9;

const KICK: u8 = 36;
const SNARE: u8 = 38;
const RIM: u8 = 37;
const HAT: u8 = 42;
const OPEN_HAT: u8 = 46;
const CRASH: u8 = 49;
const RIDE: u8 = 51;

/// The kind of a 4-bar phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Intro,
    Verse,
    Chorus,
    Outro,
}

/// The section of phrase `p` of `n`.
fn section(p: usize, n: usize) -> Section {
    if n >= 4 && p == 0 {
        return Section::Intro;
    }
    if n >= 3 && p + 1 == n {
        return Section::Outro;
    }
    let k = if n >= 4 { p - 1 } else { p };
    if (k / 2).is_multiple_of(2) {
        Section::Verse
    } else {
        Section::Chorus
    }
}

/// The tempo for a mood: from the prompt's hash within the mood's range,
/// or, given cuts, the tempo in that range whose bar lines fall nearest them.
pub fn choose_bpm(mood: Mood, prompt_hash: u64, cuts: &[f64]) -> f64 {
    let (lo, hi) = mood.bpm_range();
    if cuts.is_empty() {
        return f64::from(lo + (prompt_hash % u64::from(hi - lo + 1)) as u32);
    }
    let mut best = (f64::MAX, f64::from(lo));
    let mut bpm = f64::from(lo);
    while bpm <= f64::from(hi) + 1e-9 {
        let beat = 60.0 / bpm;
        // Cuts on a bar line score best; on a beat nearly as well.
        let cost: f64 = cuts
            .iter()
            .map(|c| {
                let bar_off = (c / (4.0 * beat))
                    .fract()
                    .min(1.0 - (c / (4.0 * beat)).fract());
                let beat_off = (c / beat).fract().min(1.0 - (c / beat).fract());
                (bar_off * 4.0 * beat).powi(2) * 0.5 + (beat_off * beat).powi(2)
            })
            .sum();
        if cost < best.0 - 1e-12 {
            best = (cost, bpm);
        }
        bpm += 0.5;
    }
    best.1
}

/// The syllables of a word (vowel groups; at least one).
pub fn syllables(word: &str) -> usize {
    let lower: Vec<char> = word
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphabetic())
        .collect();
    if lower.is_empty() {
        return 1;
    }
    if !lower.iter().all(|c| c.is_ascii()) {
        // Other scripts: one syllable per character (CJK) is the usual count.
        return lower.len().clamp(1, 8);
    }
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let mut n = 0;
    let mut prev = false;
    for c in &lower {
        let v = vowel(*c);
        if v && !prev {
            n += 1;
        }
        prev = v;
    }
    // A silent final e ("love", "time") is not a syllable.
    if lower.len() > 2 && lower.last() == Some(&'e') && n > 1 {
        let before = lower.get(lower.len() - 2).copied().unwrap_or('a');
        if !vowel(before) && before != 'l' {
            n -= 1;
        }
    }
    n.max(1)
}

/// The sung lines of lyrics: `[Verse]`-style tags and blank lines dropped.
pub fn lyric_lines(lyrics: &str) -> Vec<Vec<String>> {
    lyrics
        .lines()
        .map(str::trim)
        .filter(|l| !(l.is_empty() || (l.starts_with('[') && l.ends_with(']'))))
        .map(|l| {
            l.split_whitespace()
                .map(|w| {
                    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                        .to_owned()
                })
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// Composes the song of `brief`.
pub fn compose(brief: &Brief) -> Score {
    let hash = theory::hash(&brief.prompt);
    let mood = Mood::of(&brief.prompt);
    let bpm = choose_bpm(mood, hash >> 8, &brief.cuts);
    let beat = 60.0 / bpm;
    let bar = 4.0 * beat;
    let seconds = brief.seconds.max(0.5);
    let bars = (seconds / bar).ceil().max(1.0) as usize;
    let phrases = bars.div_ceil(4);
    let scale = mood.scale();
    let tonic = 45 + (hash % 12) as u8; // A2..G#3: the bass register.
    let mut rng = Rng::new(hash ^ brief.seed.rotate_left(17));
    let progs = mood.progressions();
    let verse_prog = progs
        .get((hash >> 20) as usize % progs.len().max(1))
        .copied()
        .unwrap_or(&[0, 4, 5, 3]);
    let chorus_prog = progs
        .get(((hash >> 20) as usize + 1) % progs.len().max(1))
        .copied()
        .unwrap_or(verse_prog);
    let inst = mood.instruments();
    let mut notes = Vec::new();
    let mut words = Vec::new();
    let mut lines = lyric_lines(&brief.lyrics).into_iter();
    let motif = theory::motif(&mut rng);

    for p in 0..phrases {
        let sec = section(p, phrases);
        let prog = if sec == Section::Chorus {
            chorus_prog
        } else {
            verse_prog
        };
        for b in 0..4 {
            let bar_index = p * 4 + b;
            if bar_index >= bars {
                break;
            }
            let t0 = bar_index as f64 * bar;
            let degree = prog.get(b % prog.len().max(1)).copied().unwrap_or(0);
            let chord = theory::chord(tonic, scale, degree, mood.sevenths());
            drums(&mut notes, mood, sec, t0, beat, b == 0 && p > 0);
            bass(&mut notes, mood, sec, &chord, t0, beat);
            chords(&mut notes, mood, sec, &chord, t0, beat);
            if sec != Section::Intro {
                notes.push(Note {
                    at: t0,
                    len: bar,
                    channel: PAD,
                    key: chord.first().copied().unwrap_or(tonic) + 12,
                    velocity: 50,
                });
            }
        }
        // The melody, two bars per lyric line (or the motif).
        if matches!(sec, Section::Verse | Section::Chorus) {
            for half in 0..2 {
                let t0 = (p * 4 + half * 2) as f64 * bar;
                if t0 >= seconds {
                    break;
                }
                let degree = prog.get(half * 2).copied().unwrap_or(0);
                let up = if sec == Section::Chorus { 7 } else { 0 };
                match lines.next() {
                    Some(line) => sing_line(
                        &mut notes, &mut words, &line, tonic, scale, degree, up, t0, beat,
                    ),
                    None => play_motif(&mut notes, &motif, tonic, scale, degree, up, t0, beat),
                }
            }
        }
    }
    // Accents at the cuts: a crash and a kick, whatever the section.
    for &c in &brief.cuts {
        if c > 0.05 && c < seconds - 0.05 {
            for key in [CRASH, KICK] {
                notes.push(Note {
                    at: c,
                    len: beat,
                    channel: DRUMS,
                    key,
                    velocity: 120,
                });
            }
        }
    }
    notes.retain(|n| n.at < seconds);
    notes.sort_by(|a, b| a.at.total_cmp(&b.at));
    Score {
        mood,
        bpm,
        tonic,
        mode: mood.mode_name(),
        seconds,
        programs: vec![
            (MELODY, inst.melody),
            (CHORDS, inst.chords),
            (BASS, inst.bass),
            (PAD, inst.pad),
        ],
        notes,
        words,
    }
}

fn hit(notes: &mut Vec<Note>, at: f64, key: u8, velocity: u8) {
    notes.push(Note {
        at,
        len: 0.1,
        channel: DRUMS,
        key,
        velocity,
    });
}

/// One bar of drums: a grid of eighths per style.
fn drums(notes: &mut Vec<Note>, mood: Mood, sec: Section, t0: f64, beat: f64, crash: bool) {
    let e = beat / 2.0;
    let swing = if mood == Mood::Jazz { beat / 6.0 } else { 0.0 };
    let at = |step: usize| t0 + step as f64 * e + if step % 2 == 1 { swing } else { 0.0 };
    if sec == Section::Intro {
        for s in (0..8).step_by(2) {
            hit(
                notes,
                at(s),
                if mood == Mood::Jazz { RIDE } else { HAT },
                60,
            );
        }
        return;
    }
    if crash {
        hit(notes, t0, CRASH, 100);
    }
    let soft = sec == Section::Outro;
    let v = |x: u8| if soft { x.saturating_sub(25) } else { x };
    match mood {
        Mood::Energetic => {
            for s in [0, 2, 4, 6] {
                hit(notes, at(s), KICK, v(115));
            }
            for s in [2, 6] {
                hit(notes, at(s), SNARE, v(105));
            }
            for s in [1, 3, 5, 7] {
                hit(notes, at(s), OPEN_HAT, v(70));
            }
        }
        Mood::Sad | Mood::Calm => {
            for s in [0, 4] {
                hit(notes, at(s), KICK, v(100));
            }
            hit(notes, at(2), RIM, v(75));
            hit(notes, at(6), RIM, v(75));
            for s in (0..8).step_by(2) {
                hit(notes, at(s), HAT, v(55));
            }
        }
        Mood::Epic => {
            for s in [0, 2, 4, 6] {
                hit(notes, at(s), KICK, v(105));
            }
            hit(notes, at(2), SNARE, v(100));
            hit(notes, at(6), SNARE, v(100));
            for s in (0..8).step_by(2) {
                hit(notes, at(s), HAT, v(55));
            }
        }
        Mood::Jazz => {
            for s in 0..8 {
                hit(notes, at(s), RIDE, v(if s % 2 == 0 { 80 } else { 60 }));
            }
            for s in [0, 4] {
                hit(notes, at(s), KICK, v(80));
            }
            hit(notes, at(2), 44, v(70));
            hit(notes, at(6), 44, v(70));
        }
        Mood::Happy | Mood::Neutral => {
            for s in [0, 2, 4, 6] {
                hit(notes, at(s), KICK, v(if s % 4 == 0 { 112 } else { 92 }));
            }
            for s in [2, 6] {
                hit(notes, at(s), SNARE, v(105));
            }
            for s in 0..8 {
                hit(notes, at(s), HAT, v(if s % 2 == 0 { 75 } else { 55 }));
            }
        }
    }
}

/// One bar of bass: roots and fifths in the style's rhythm.
fn bass(notes: &mut Vec<Note>, mood: Mood, sec: Section, chord: &[u8], t0: f64, beat: f64) {
    let root = chord
        .first()
        .copied()
        .unwrap_or(45)
        .saturating_sub(12)
        .max(28);
    let fifth = root + 7;
    let pattern: &[(f64, f64, u8)] = match (mood, sec) {
        (_, Section::Intro) => &[(0.0, 4.0, 0)],
        (Mood::Energetic, _) => &[
            (0.0, 0.5, 0),
            (0.5, 0.5, 0),
            (1.0, 0.5, 0),
            (1.5, 0.5, 1),
            (2.0, 0.5, 0),
            (2.5, 0.5, 0),
            (3.0, 0.5, 0),
            (3.5, 0.5, 1),
        ],
        (Mood::Sad | Mood::Calm, _) => &[(0.0, 2.0, 0), (2.0, 2.0, 1)],
        (Mood::Jazz, _) => &[(0.0, 1.0, 0), (1.0, 1.0, 2), (2.0, 1.0, 1), (3.0, 1.0, 3)],
        _ => &[(0.0, 1.5, 0), (1.5, 0.5, 0), (2.0, 1.0, 1), (3.0, 1.0, 0)],
    };
    for &(at, len, which) in pattern {
        let key = match which {
            0 => root,
            1 => fifth,
            2 => chord.get(1).map_or(root + 4, |k| k.saturating_sub(12)),
            _ => chord.get(2).map_or(fifth, |k| k.saturating_sub(12)),
        };
        notes.push(Note {
            at: t0 + at * beat,
            len: len * beat * 0.95,
            channel: BASS,
            key,
            velocity: 96,
        });
    }
}

/// One bar of chords (voiced an octave above the bass).
fn chords(notes: &mut Vec<Note>, mood: Mood, sec: Section, chord: &[u8], t0: f64, beat: f64) {
    let hits: &[(f64, f64)] = match (mood, sec) {
        (_, Section::Intro | Section::Outro) => &[(0.0, 4.0)],
        (Mood::Energetic | Mood::Happy, _) => &[(0.0, 1.5), (1.5, 1.0), (2.5, 1.5)],
        (Mood::Jazz, _) => &[(0.0, 1.0), (1.5, 1.0), (3.0, 1.0)],
        _ => &[(0.0, 2.0), (2.0, 2.0)],
    };
    for &(at, len) in hits {
        for &k in chord {
            notes.push(Note {
                at: t0 + at * beat,
                len: len * beat * 0.95,
                channel: CHORDS,
                key: k + 12,
                velocity: 70,
            });
        }
    }
}

/// A lyric line over two bars: one note per syllable, chord tones on the
/// strong slots, the line ending on the chord's root.
#[allow(clippy::too_many_arguments)]
fn sing_line(
    notes: &mut Vec<Note>,
    words: &mut Vec<SungWord>,
    line: &[String],
    tonic: u8,
    scale: &[u8],
    degree: usize,
    up: i32,
    t0: f64,
    beat: f64,
) {
    let syl: Vec<usize> = line.iter().map(|w| syllables(w)).collect();
    let total: usize = syl.iter().sum::<usize>().max(1);
    // Eighths (16 in two bars), or sixteenths for long lines; the line is
    // sung in the first seven beats and breathes on the last.
    let slot = if total <= 14 { beat / 2.0 } else { beat / 4.0 };
    let slots = ((7.0 * beat) / slot).round() as usize;
    let step = (slots as f64 / total as f64).max(1.0);
    let base = i32::from(tonic) + 12 + up;
    let mut i = 0usize;
    for (w, n) in line.iter().zip(&syl) {
        let start_i = i;
        let mut key = 0u8;
        for s in 0..*n {
            let pos = ((i as f64) * step).floor();
            let at = t0 + pos * slot;
            let len = (step * slot * 0.92).min(2.0 * beat);
            let last = i + 1 == total;
            let strong = (pos as usize).is_multiple_of(4);
            let deg = if last {
                degree as i32
            } else if strong {
                degree as i32 + 2 * ((i / 2) % 3) as i32
            } else {
                degree as i32 + (i % 5) as i32 - 1
            };
            let k = theory::degree_key(base, scale, deg);
            if s == 0 {
                key = k;
            }
            notes.push(Note {
                at,
                len: if last { len.max(beat) } else { len },
                channel: MELODY,
                key: k,
                velocity: 96,
            });
            i += 1;
        }
        let start = t0 + ((start_i as f64) * step).floor() * slot;
        let end = t0 + ((i as f64) * step).floor() * slot;
        words.push(SungWord {
            text: w.clone(),
            at: start,
            len: (end - start).max(slot) * 0.95,
            key,
        });
    }
}

/// Two bars of the instrumental motif over the chord of `degree`.
#[allow(clippy::too_many_arguments)]
fn play_motif(
    notes: &mut Vec<Note>,
    motif: &[(f64, f64, i32)],
    tonic: u8,
    scale: &[u8],
    degree: usize,
    up: i32,
    t0: f64,
    beat: f64,
) {
    let base = i32::from(tonic) + 12 + up;
    for &(at, len, d) in motif {
        notes.push(Note {
            at: t0 + at * beat,
            len: len * beat * 0.9,
            channel: MELODY,
            key: theory::degree_key(base, scale, degree as i32 + d),
            velocity: 90,
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn syllables_are_vowel_groups() {
        for (w, n) in [
            ("love", 1),
            ("melody", 3),
            ("fire", 1),
            ("tonight", 2),
            ("a", 1),
            ("rhythm", 1),
            ("beautiful", 3),
            ("little", 2),
        ] {
            assert_eq!(syllables(w), n, "{w}");
        }
    }

    #[test]
    fn sections_follow_the_form() {
        let kinds: Vec<Section> = (0..8).map(|p| section(p, 8)).collect();
        assert_eq!(kinds[0], Section::Intro);
        assert_eq!(kinds[7], Section::Outro);
        assert_eq!(kinds[1], Section::Verse);
        assert_eq!(kinds[3], Section::Chorus);
        assert_eq!(section(0, 1), Section::Verse);
    }

    #[test]
    fn a_song_fills_its_length_with_every_part() {
        let s = compose(&Brief {
            prompt: "happy summer pop".into(),
            seconds: 30.0,
            seed: 7,
            ..Brief::default()
        });
        assert_eq!(s.mood, Mood::Happy);
        assert!((110.0..=128.0).contains(&s.bpm));
        for ch in [MELODY, CHORDS, BASS, PAD, DRUMS] {
            assert!(s.notes.iter().any(|n| n.channel == ch), "channel {ch}");
        }
        assert!(s.notes.iter().all(|n| n.at < 30.0));
        assert!(s.notes.iter().any(|n| n.at > 25.0));
        // Deterministic.
        let again = compose(&Brief {
            prompt: "happy summer pop".into(),
            seconds: 30.0,
            seed: 7,
            ..Brief::default()
        });
        assert_eq!(again.notes, s.notes);
    }

    #[test]
    fn lyrics_give_one_melody_note_per_syllable() {
        let lyrics = "[Verse]\nHello sunny morning\n\n[Chorus]\nWe are dancing tonight";
        let s = compose(&Brief {
            prompt: "sad piano ballad".into(),
            lyrics: lyrics.into(),
            seconds: 60.0,
            seed: 1,
            ..Brief::default()
        });
        assert_eq!(s.mood, Mood::Sad);
        let words: Vec<&str> = s.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            words,
            ["Hello", "sunny", "morning", "We", "are", "dancing", "tonight"]
        );
        let sung: usize = [2, 2, 2, 1, 1, 2, 2].iter().sum();
        let first = s.words[0].at;
        let last = s.words[6].at + s.words[6].len;
        let melody = s
            .notes
            .iter()
            .filter(|n| n.channel == MELODY && n.at >= first - 1e-9 && n.at < last)
            .count();
        assert_eq!(melody, sung);
        assert!(s.words.windows(2).all(|w| w[0].at < w[1].at));
    }

    #[test]
    fn the_tempo_puts_cuts_on_bar_lines() {
        // Cuts every 2.4 s: 100 bpm puts them on every bar line.
        let cuts = [2.4, 4.8, 7.2];
        let bpm = choose_bpm(Mood::Epic, 0, &cuts);
        assert!((bpm - 100.0).abs() < 1e-9, "{bpm}");
        let s = compose(&Brief {
            prompt: "epic trailer".into(),
            seconds: 9.0,
            cuts: cuts.to_vec(),
            ..Brief::default()
        });
        for c in cuts {
            assert!(s
                .notes
                .iter()
                .any(|n| n.channel == DRUMS && n.key == CRASH && (n.at - c).abs() < 1e-9));
        }
    }
}
