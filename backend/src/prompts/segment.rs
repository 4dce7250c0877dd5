//! Splitting text into units and matching dictionary phrases over them,
//! longest match first. Scripts written without spaces (Han, kana, Thai) are
//! split into single characters, so `红色连衣裙女孩` finds `红色连衣裙` then
//! `女孩`; spaced scripts are split into words, so `coucher de soleil`
//! matches as one three-word phrase before `soleil` alone.

use std::collections::HashMap;

/// Lowercased, trimmed, inner whitespace collapsed to one space: the form of
/// every key, so `Red  Dress` finds `red dress`.
pub fn normalise_key(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether `c` is written without spaces between words, so each character
/// is its own unit (Han, Japanese kana, Thai).
pub fn is_unspaced_char(c: char) -> bool {
    super::share::is_han(c)
        || matches!(c as u32,
            0x3040..=0x30FF      // hiragana, katakana
            | 0x31F0..=0x31FF    // katakana extensions
            | 0xFF66..=0xFF9F    // half-width katakana
            | 0x0E00..=0x0E7F) // Thai
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// A run of letters and digits of a spaced script (`dress`, `8k`, `1girl`).
    Word,
    /// One character of an unspaced script.
    Char,
    /// Whitespace and punctuation between words.
    Sep,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit<'a> {
    pub kind: UnitKind,
    pub text: &'a str,
}

/// Splits `text` into words, unspaced characters and separators; the units
/// concatenated give `text` back.
pub fn units(text: &str) -> Vec<Unit<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<UnitKind> = None;
    for (i, c) in text.char_indices() {
        let kind = if is_unspaced_char(c) {
            UnitKind::Char
        } else if c.is_alphanumeric() || c == '\'' || c == '\u{2019}' {
            UnitKind::Word
        } else {
            UnitKind::Sep
        };
        let continues = match (current, kind) {
            (Some(UnitKind::Word), UnitKind::Word) | (Some(UnitKind::Sep), UnitKind::Sep) => true,
            // Combining marks (Thai vowels and tones) stay with their letter.
            (Some(UnitKind::Char), UnitKind::Char) => is_thai_mark(c),
            _ => false,
        };
        if !continues {
            if let (Some(k), Some(t)) = (current, text.get(start..i)) {
                if !t.is_empty() {
                    out.push(Unit { kind: k, text: t });
                }
            }
            start = i;
            current = Some(kind);
        }
    }
    if let (Some(k), Some(t)) = (current, text.get(start..)) {
        if !t.is_empty() {
            out.push(Unit { kind: k, text: t });
        }
    }
    out
}

fn is_thai_mark(c: char) -> bool {
    matches!(c as u32, 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E)
}

/// Phrases (normalised keys) to values, with the longest phrase's length in
/// units so matching tries no longer spans than can exist.
#[derive(Debug, Default)]
pub struct PhraseMap {
    map: HashMap<String, usize>,
    max_units: usize,
}

impl PhraseMap {
    /// The first value given for a key wins.
    pub fn build<'a>(pairs: impl Iterator<Item = (&'a str, usize)>) -> PhraseMap {
        let mut map = HashMap::new();
        let mut max_units = 1;
        for (phrase, value) in pairs {
            let key = normalise_key(phrase);
            if key.is_empty() {
                continue;
            }
            let n = units(&key).len();
            max_units = max_units.max(n);
            map.entry(key).or_insert(value);
        }
        PhraseMap { map, max_units }
    }

    pub fn get(&self, phrase: &str) -> Option<usize> {
        self.map.get(&normalise_key(phrase)).copied()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// One piece of segmented text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    /// A dictionary phrase: the matched text and the map's value.
    Known(&'a str, usize),
    /// A word or a run of unspaced characters the map does not know.
    Unknown(&'a str),
    Sep(&'a str),
}

/// Longest-match segmentation of `text` over `map` (and over `extra`, a
/// small table tried at the same positions: function words).
pub fn segment<'a>(text: &'a str, map: &PhraseMap, extra: &PhraseMap) -> Vec<Piece<'a>> {
    let us = units(text);
    // Byte offsets of every unit's start, and the text's end.
    let mut starts = Vec::with_capacity(us.len() + 1);
    let mut off = 0;
    for u in &us {
        starts.push(off);
        off += u.text.len();
    }
    starts.push(off);
    let span = |a: usize, b: usize| -> &'a str {
        match (starts.get(a), starts.get(b)) {
            (Some(x), Some(y)) => text.get(*x..*y).unwrap_or(""),
            _ => "",
        }
    };
    let longest = map.max_units.max(extra.max_units);
    let mut out: Vec<Piece<'a>> = Vec::new();
    // Where the unknown run of unspaced characters at the end of `out` began.
    let mut unknown_run: Option<usize> = None;
    let mut i = 0;
    while let Some(u) = us.get(i) {
        if u.kind == UnitKind::Sep {
            out.push(Piece::Sep(u.text));
            unknown_run = None;
            i += 1;
            continue;
        }
        let mut found = None;
        let last = (i + longest).min(us.len());
        for j in (i + 1..=last).rev() {
            // A phrase ends on a word or character, never on a separator.
            if us.get(j - 1).is_none_or(|e| e.kind == UnitKind::Sep) {
                continue;
            }
            let phrase = span(i, j);
            if let Some(v) = map.get(phrase).or_else(|| extra.get(phrase)) {
                found = Some((j, phrase, v));
                break;
            }
        }
        match found {
            Some((j, phrase, v)) => {
                out.push(Piece::Known(phrase, v));
                unknown_run = None;
                i = j;
            }
            None if u.kind == UnitKind::Char => {
                let begin = match unknown_run {
                    Some(b) => {
                        out.pop();
                        b
                    }
                    None => starts.get(i).copied().unwrap_or(0),
                };
                let end = starts.get(i + 1).copied().unwrap_or(off);
                out.push(Piece::Unknown(text.get(begin..end).unwrap_or(u.text)));
                unknown_run = Some(begin);
                i += 1;
            }
            None => {
                out.push(Piece::Unknown(u.text));
                unknown_run = None;
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, usize)]) -> PhraseMap {
        PhraseMap::build(pairs.iter().copied())
    }

    #[test]
    fn units_split_scripts() {
        let u: Vec<_> = units("红色 dress, 8k猫")
            .into_iter()
            .map(|u| u.text)
            .collect();
        assert_eq!(u, vec!["红", "色", " ", "dress", ", ", "8k", "猫"]);
        let thai: Vec<_> = units("แมว").into_iter().map(|u| u.text).collect();
        assert_eq!(thai, vec!["แ", "ม", "ว"]);
        let marks: Vec<_> = units("ที่").into_iter().map(|u| u.text).collect();
        assert_eq!(marks, vec!["ที่"], "marks stay with their letter");
        assert_eq!(units("").len(), 0);
    }

    #[test]
    fn longest_match_first() {
        let m = map(&[("红色", 1), ("连衣裙", 2), ("红色连衣裙", 3), ("女孩", 4)]);
        let p = segment("红色连衣裙女孩", &m, &PhraseMap::default());
        assert_eq!(
            p,
            vec![Piece::Known("红色连衣裙", 3), Piece::Known("女孩", 4)]
        );
        let p = segment("红色的女孩", &m, &PhraseMap::default());
        assert_eq!(
            p,
            vec![
                Piece::Known("红色", 1),
                Piece::Unknown("的"),
                Piece::Known("女孩", 4)
            ]
        );
    }

    #[test]
    fn spaced_phrases_and_unknown_runs() {
        let m = map(&[("coucher de soleil", 1), ("soleil", 2), ("red dress", 3)]);
        let p = segment(
            "Coucher  de soleil, RED dress xyz",
            &m,
            &PhraseMap::default(),
        );
        assert_eq!(
            p,
            vec![
                Piece::Known("Coucher  de soleil", 1),
                Piece::Sep(", "),
                Piece::Known("RED dress", 3),
                Piece::Sep(" "),
                Piece::Unknown("xyz"),
            ]
        );
        let p = segment("阿巴阿巴 soleil", &m, &PhraseMap::default());
        assert_eq!(
            p,
            vec![
                Piece::Unknown("阿巴阿巴"),
                Piece::Sep(" "),
                Piece::Known("soleil", 2)
            ]
        );
    }

    #[test]
    fn extra_table_fills_gaps() {
        let m = map(&[("猫", 1)]);
        let extra = map(&[("和", 9)]);
        let p = segment("猫和猫", &m, &extra);
        assert_eq!(
            p,
            vec![
                Piece::Known("猫", 1),
                Piece::Known("和", 9),
                Piece::Known("猫", 1)
            ]
        );
    }
}
