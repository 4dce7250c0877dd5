//! The compiled filter: one Aho-Corasick automaton over every word entry's
//! normalised form, the pattern entries' regular expressions, and the check
//! that turns a text and a scene into hits, a masked text and a verdict.

use super::entry::{Action, Entry, EntryError, Kind, Scene};
use super::normalise::{fold_text, no_space_script, normalise, word_char, Normalised};
use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};

/// The character that replaces masked ones.
pub const MASK: char = '*';

/// Largest compiled size of one pattern (bytes), so an operator's pattern
/// cannot make every check slow.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// A word entry after normalisation.
#[derive(Debug, Clone)]
struct WordEntry {
    entry: usize,
    /// The normalised characters' repeat counts.
    counts: Vec<u32>,
    /// Whether each end is in a script with spaces (checked for whole words).
    left_bounded: bool,
    right_bounded: bool,
}

/// A compiled list: immutable, cheap to share behind an `Arc`.
#[derive(Debug, Clone)]
pub struct TextFilter {
    entries: Vec<Entry>,
    words: Vec<WordEntry>,
    automaton: Option<AhoCorasick>,
    patterns: Vec<(usize, regex::Regex)>,
}

/// One match in a text.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// First matched character (Unicode scalar values from the text's start).
    pub start: usize,
    /// One past the last matched character.
    pub end: usize,
    /// The matched original text.
    pub text: String,
    /// The entry's category.
    pub category: String,
    /// Mask or refuse.
    pub action: Action,
    /// The entry's id (for operators; not sent to users).
    #[serde(skip_serializing, default)]
    pub entry: String,
}

/// What the filter says of a text in a scene.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Every match, by start.
    pub hits: Vec<Hit>,
    /// The text with every matched character but whitespace replaced by `*`
    /// (same number of characters as the text).
    pub masked: String,
    /// Whether a refusing entry matched.
    pub refused: bool,
}

impl Verdict {
    /// Whether nothing matched.
    pub fn is_clean(&self) -> bool {
        self.hits.is_empty()
    }
}

impl TextFilter {
    /// A list with no entries: every text is clean.
    pub fn empty() -> TextFilter {
        TextFilter {
            entries: Vec::new(),
            words: Vec::new(),
            automaton: None,
            patterns: Vec::new(),
        }
    }

    /// Compiles a list. Fails on the first entry that cannot be compiled.
    pub fn compile(entries: Vec<Entry>) -> Result<TextFilter, EntryError> {
        let mut words = Vec::new();
        let mut keys = Vec::new();
        let mut patterns = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            entry.check()?;
            match entry.kind {
                Kind::Word => {
                    let n = normalise(&entry.term);
                    if n.units.is_empty() {
                        return Err(EntryError::BadTerm(entry.id.clone()));
                    }
                    let first = n.units.first().map(|u| u.ch).unwrap_or(' ');
                    let last = n.units.last().map(|u| u.ch).unwrap_or(' ');
                    words.push(WordEntry {
                        entry: index,
                        counts: n.units.iter().map(|u| u.count).collect(),
                        left_bounded: entry.whole_word && !no_space_script(first),
                        right_bounded: entry.whole_word && !no_space_script(last),
                    });
                    keys.push(n.text);
                }
                Kind::Pattern => {
                    let regex = regex::RegexBuilder::new(&entry.term)
                        .case_insensitive(true)
                        .size_limit(PATTERN_SIZE_LIMIT)
                        .dfa_size_limit(PATTERN_SIZE_LIMIT)
                        .build()
                        .map_err(|e| EntryError::BadPattern(entry.id.clone(), e.to_string()))?;
                    patterns.push((index, regex));
                }
            }
        }
        let automaton = if keys.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .build(&keys)
                    .map_err(|e| EntryError::BadPattern("word list".to_owned(), e.to_string()))?,
            )
        };
        Ok(TextFilter {
            entries,
            words,
            automaton,
            patterns,
        })
    }

    /// The entries it was compiled from.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Checks `text` written in `scene`.
    pub fn check(&self, text: &str, scene: Scene) -> Verdict {
        let mut found: Vec<(usize, usize, usize)> = Vec::new(); // (start, end, entry)
        let mut allowed: Vec<(usize, usize)> = Vec::new();
        let mut record = |start: usize, end: usize, entry: usize| {
            if let Some(e) = self.entries.get(entry) {
                if !e.applies_to(scene) || start >= end {
                    return;
                }
                if e.action == Action::Allow {
                    allowed.push((start, end));
                } else {
                    found.push((start, end, entry));
                }
            }
        };
        if let Some(automaton) = &self.automaton {
            let n = normalise(text);
            for m in automaton.find_overlapping_iter(&n.text) {
                let Some(word) = self.words.get(m.pattern().as_usize()) else {
                    continue;
                };
                if let Some((start, end)) = accept(&n, m.start(), word) {
                    record(start, end, word.entry);
                }
            }
        }
        if !self.patterns.is_empty() {
            let folded = fold_text(text);
            let light: String = folded.iter().map(|(c, _)| *c).collect();
            // One folded character per character of `light`, in order.
            let origin: Vec<usize> = folded.iter().map(|(_, orig)| *orig).collect();
            let byte_of: Vec<usize> = light.char_indices().map(|(b, _)| b).collect();
            for (entry, regex) in &self.patterns {
                for m in regex.find_iter(&light) {
                    let (Ok(first), Some(last_char)) = (
                        byte_of.binary_search(&m.start()),
                        light.get(..m.end()).and_then(|s| s.char_indices().last()),
                    ) else {
                        continue;
                    };
                    if m.start() == m.end() {
                        continue;
                    }
                    let Ok(last) = byte_of.binary_search(&last_char.0) else {
                        continue;
                    };
                    if let (Some(&s), Some(&e)) = (origin.get(first), origin.get(last)) {
                        record(s, e + 1, *entry);
                    }
                }
            }
        }
        found.retain(|&(s, e, _)| !allowed.iter().any(|&(a, b)| a <= s && e <= b));
        found.sort_unstable();
        found.dedup();
        self.verdict(text, &found)
    }

    fn verdict(&self, text: &str, found: &[(usize, usize, usize)]) -> Verdict {
        let mut chars: Vec<char> = text.chars().collect();
        let mut hits = Vec::with_capacity(found.len());
        let mut refused = false;
        for &(start, end, entry) in found {
            let Some(e) = self.entries.get(entry) else {
                continue;
            };
            refused |= e.action == Action::Refuse;
            let original: String = chars
                .get(start..end.min(chars.len()))
                .unwrap_or_default()
                .iter()
                .collect();
            hits.push(Hit {
                start,
                end,
                text: original,
                category: e.category.clone(),
                action: e.action,
                entry: e.id.clone(),
            });
        }
        for hit in &hits {
            for c in chars.iter_mut().take(hit.end).skip(hit.start) {
                if !c.is_whitespace() {
                    *c = MASK;
                }
            }
        }
        Verdict {
            hits,
            masked: chars.into_iter().collect(),
            refused,
        }
    }
}

/// Checks an automaton match starting at byte `start` of the normalised
/// text: repeat counts at least the entry's, whole-word boundaries. Returns
/// the original character span.
fn accept(n: &Normalised, start: usize, word: &WordEntry) -> Option<(usize, usize)> {
    let first = n.unit_at(start)?;
    let last = first.checked_add(word.counts.len())?.checked_sub(1)?;
    let units = n.units.get(first..=last)?;
    if units
        .iter()
        .zip(&word.counts)
        .any(|(unit, &need)| unit.count < need)
    {
        return None;
    }
    if word.left_bounded {
        if let Some(before) = first.checked_sub(1).and_then(|i| n.units.get(i)) {
            if word_char(before.ch) {
                return None;
            }
        }
    }
    if word.right_bounded {
        if let Some(after) = n.units.get(last + 1) {
            if word_char(after.ch) {
                return None;
            }
        }
    }
    let span_start = units.first()?.start;
    let span_end = units.last()?.end;
    Some((span_start, span_end))
}
