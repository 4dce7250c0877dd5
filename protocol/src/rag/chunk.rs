//! Chunking: a document's blocks (headings and paragraphs, as the parsers
//! read them) cut into datacards of bounded size. Pure and deterministic.
//!
//! The rules:
//! - Every heading starts a section; a section's paragraphs are packed in
//!   order into cards of at most `max_chars` characters, whole paragraphs
//!   joined by a blank line, no overlap.
//! - A paragraph longer than `max_chars` is cut, preferring a sentence end
//!   (`. ! ? ; 。 ！ ？ ；` and the like) in the second half of the window, then a
//!   space, then the boundary between two CJK characters (which write no
//!   spaces: each is a word). Never inside a word; only a single "word"
//!   longer than a card (a long URL) is cut where the card is full.
//! - Titles: the section's heading ("Heading (2/3)" when its section made
//!   several cards); without a heading, the card's first sentence; when
//!   that is empty, "Part N" (N the card's place in the document). A title
//!   longer than `max_title_chars` is cut at a word and ends with "…".
//! - Whitespace runs inside a line become one space, empty lines inside a
//!   paragraph go, control characters go; headings without text under them
//!   make no card; an empty document makes none.
//! - At most `max_cards` cards; [`chunk`] says whether the rest was cut off.

use super::{MAX_CARDS_PER_DOCUMENT, MAX_CARD_CHARS};
use crate::character::MAX_DATACARD_TITLE_CHARS;

/// One block of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A heading of level 1 (largest) to 6.
    Heading { level: u8, text: String },
    /// A paragraph, list item, quote or code block. Newlines inside are kept.
    Paragraph(String),
}

/// A datacard to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub title: String,
    pub content: String,
}

/// The bounds of [`chunk`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkRules {
    pub max_chars: usize,
    pub max_title_chars: usize,
    pub max_cards: usize,
}

impl Default for ChunkRules {
    fn default() -> Self {
        ChunkRules {
            max_chars: MAX_CARD_CHARS,
            max_title_chars: MAX_DATACARD_TITLE_CHARS,
            max_cards: MAX_CARDS_PER_DOCUMENT,
        }
    }
}

/// The result of [`chunk`]: the cards and whether some were left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunked {
    pub cards: Vec<Chunk>,
    pub truncated: bool,
}

struct Section {
    heading: Option<String>,
    paragraphs: Vec<String>,
}

/// Cuts `blocks` into cards (see the module's rules).
pub fn chunk(blocks: &[Block], rules: &ChunkRules) -> Chunked {
    let max = rules.max_chars.max(16);
    let mut sections: Vec<Section> = vec![Section {
        heading: None,
        paragraphs: Vec::new(),
    }];
    for b in blocks {
        match b {
            Block::Heading { text, .. } => {
                let t = clean_line(text);
                if !t.is_empty() {
                    sections.push(Section {
                        heading: Some(t),
                        paragraphs: Vec::new(),
                    });
                }
            }
            Block::Paragraph(p) => {
                let p = clean_paragraph(p);
                if !p.is_empty() {
                    if let Some(s) = sections.last_mut() {
                        s.paragraphs.push(p);
                    }
                }
            }
        }
    }
    let mut out = Chunked::default();
    for s in sections {
        let bodies = pack(&s.paragraphs, max);
        let n = bodies.len();
        for (i, content) in bodies.into_iter().enumerate() {
            if out.cards.len() >= rules.max_cards {
                out.truncated = true;
                return out;
            }
            let place = out.cards.len() + 1;
            let title = match &s.heading {
                Some(h) if n > 1 => {
                    let suffix = format!(" ({}/{n})", i + 1);
                    let room = rules.max_title_chars.saturating_sub(suffix.chars().count());
                    format!("{}{suffix}", shorten(h, room))
                }
                Some(h) => shorten(h, rules.max_title_chars),
                None => {
                    let first = first_sentence(&content);
                    if first.is_empty() {
                        format!("Part {place}")
                    } else {
                        shorten(&first, rules.max_title_chars)
                    }
                }
            };
            let title = if title.is_empty() {
                format!("Part {place}")
            } else {
                title
            };
            out.cards.push(Chunk { title, content });
        }
    }
    out
}

/// Packs paragraphs (cut first when longer than `max`) into bodies of at
/// most `max` characters.
fn pack(paragraphs: &[String], max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_len = 0usize;
    for p in paragraphs {
        for piece in split_long(p, max) {
            let len = piece.chars().count();
            if current_len > 0 && current_len + 2 + len > max {
                out.push(std::mem::take(&mut current));
                current_len = 0;
            }
            if current_len > 0 {
                current.push_str("\n\n");
                current_len += 2;
            }
            current.push_str(&piece);
            current_len += len;
        }
    }
    if current_len > 0 {
        out.push(current);
    }
    out
}

/// Whether `c` is written without spaces between words (CJK ideographs,
/// kana, and their punctuation): a cut may fall between two of them.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F   // CJK symbols and punctuation
        | 0x3040..=0x30FF // hiragana, katakana
        | 0x3400..=0x4DBF // extension A
        | 0x4E00..=0x9FFF // unified ideographs
        | 0xF900..=0xFAFF // compatibility ideographs
        | 0xFF00..=0xFFEF // full-width forms
        | 0x20000..=0x2FA1F)
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | ';' | '…' | '。' | '！' | '？' | '；')
}

/// Closing marks that must stay with what they close.
fn is_closing(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | '!'
            | '?'
            | ';'
            | ':'
            | ')'
            | ']'
            | '}'
            | '"'
            | '\''
            | '…'
            | '。'
            | '，'
            | '、'
            | '！'
            | '？'
            | '；'
            | '：'
            | '）'
            | '」'
            | '』'
            | '》'
            | '〉'
            | '】'
    )
}

/// How good a cut before `chars[p]` is: 3 after a sentence end, 2 at a
/// space, 1 between CJK characters, 0 not allowed (inside a word).
fn break_quality(chars: &[char], p: usize) -> u8 {
    let (Some(&a), Some(&b)) = (chars.get(p.wrapping_sub(1)), chars.get(p)) else {
        return 0;
    };
    if is_closing(b) && !b.is_whitespace() && (is_cjk(b) || !a.is_whitespace()) {
        // Never start a piece with a closing mark.
        return 0;
    }
    if is_sentence_end(a) && (b.is_whitespace() || is_cjk(b) || is_cjk(a)) {
        return 3;
    }
    if a.is_whitespace() || b.is_whitespace() {
        return 2;
    }
    if is_cjk(a) || is_cjk(b) {
        return 1;
    }
    0
}

/// Cuts one paragraph into pieces of at most `max` characters.
fn split_long(text: &str, max: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut start = 0usize;
    while chars.len().saturating_sub(start) > max {
        let end = start + max;
        let half = start + max / 2;
        let mut best: Option<(u8, usize)> = None;
        for p in (start + 1..=end).rev() {
            let q = break_quality(&chars, p);
            if q == 0 {
                continue;
            }
            // A sentence end only counts in the window's second half.
            let q = if q == 3 && p < half { 2 } else { q };
            if best.is_none_or(|(bq, _)| q > bq) {
                best = Some((q, p));
                if q == 3 {
                    break;
                }
            }
        }
        let cut = best.map_or(end, |(_, p)| p);
        push_piece(&mut out, chars.get(start..cut).unwrap_or(&[]));
        start = cut;
        while chars.get(start).is_some_and(|c| c.is_whitespace()) {
            start += 1;
        }
    }
    push_piece(&mut out, chars.get(start..).unwrap_or(&[]));
    out
}

fn push_piece(out: &mut Vec<String>, chars: &[char]) {
    let s: String = chars.iter().collect();
    let s = s.trim();
    if !s.is_empty() {
        out.push(s.to_owned());
    }
}

/// One line: whitespace runs to one space, control characters dropped.
fn clean_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
        } else if c.is_control() || matches!(c, '\u{200B}' | '\u{FEFF}') {
            continue;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// A paragraph: each line cleaned, empty lines dropped, lines kept.
fn clean_paragraph(text: &str) -> String {
    text.lines()
        .map(clean_line)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text up to the first sentence end or line break, without the
/// closing mark when it is a full stop.
fn first_sentence(content: &str) -> String {
    let line = content.lines().next().unwrap_or("");
    let chars: Vec<char> = line.chars().collect();
    let mut end = chars.len();
    for (i, &c) in chars.iter().enumerate() {
        if is_sentence_end(c) {
            let next = chars.get(i + 1);
            if next.is_none_or(|n| n.is_whitespace() || is_cjk(c) || is_cjk(*n)) {
                end = i + 1;
                break;
            }
        }
    }
    let s: String = chars.get(..end).unwrap_or(&[]).iter().collect();
    let s = s.trim();
    let s = s.strip_suffix(['.', '。']).unwrap_or(s);
    s.trim().to_owned()
}

/// `text` when it has at most `max` characters, else cut at the last word
/// boundary that leaves room for "…" (at any CJK character; at `max - 1`
/// when a single word is longer).
fn shorten(text: &str, max: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let room = max - 1;
    let mut cut = room;
    for p in (1..=room).rev() {
        if break_quality(&chars, p) > 0 {
            cut = p;
            break;
        }
    }
    let s: String = chars.get(..cut).unwrap_or(&[]).iter().collect();
    let s = s.trim_end().trim_end_matches([',', ';', ':', '，', '、']);
    format!("{s}…")
}
