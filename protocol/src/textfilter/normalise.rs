//! Normalisation against evasion, keeping every normalised character's link
//! back to the original characters so that matches mask the right ones.
//!
//! The steps, in order (each original character is folded alone, so the map
//! back is exact):
//! 1. **Fold** (`decancer::cure_char`): case, full and half width, accents
//!    and other combining marks, homoglyphs and confusables (Cyrillic `а`,
//!    Greek `ο`, mathematical `𝐛𝐚𝐝`, circled and enclosed letters) to their
//!    lower-case Latin look-alikes; zero-width and other invisible format
//!    characters (zero-width spaces and joiners, soft hyphens, variation
//!    selectors, tags) vanish. Chinese, Japanese and Korean are kept as written.
//! 2. **Tokens**: runs of letters, digits and leet symbols; anything else
//!    (spaces, punctuation, emoji) separates tokens.
//! 3. **Leetspeak**, inside tokens that hold a letter: `0 o, 1 i, 3 e, 4 a,
//!    5 s, 7 t, 8 b, 9 g, $ s`, and `@ a, ! i, | l, + t` between two other
//!    token characters (so "@name", "bad!" and "2024" are left alone).
//! 4. **Separators inside words**: three or more one-letter tokens separated
//!    by short separator runs (at most 3 characters: `b.a.d`, `b a d`,
//!    `b-a-d`, `b_a_d`) are joined into one token.
//! 5. **Repeats**: each run of one character becomes one unit with its count
//!    (`baaad` is `b a d` with `a` three times); the matcher accepts a match
//!    when every text run is at least as long as the entry's (`ass` needs two
//!    `s`, so "as" is not it, but "asss" is).
//!
//! Tokens are joined by one space unit standing for the separator between
//! them.

/// Decancer's options: fold everything except the scripts written without
/// spaces between words, whose characters are entries in their own right.
fn fold_options() -> decancer::Options {
    decancer::Options::default()
        .retain_chinese()
        .retain_japanese()
        .retain_korean()
        .retain_thai()
}

/// Invisible characters (format controls, joiners, variation selectors,
/// fillers, tags): dropped, so they cannot split a word.
fn invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5
        | 0x180B..=0x180F
        | 0x200B..=0x200F
        | 0x202A..=0x202E
        | 0x2060..=0x206F
        | 0x3164
        | 0xFE00..=0xFE0F
        | 0xFEFF
        | 0xFFA0
        | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// Folds one original character (step 1).
pub(crate) fn fold_char(c: char, out: &mut Vec<char>) {
    // ASCII letters, digits and spaces fold to themselves in lower case
    // (`ascii_fast_path_matches_decancer` checks it): skip the table.
    if c.is_ascii_alphanumeric() || c == ' ' {
        out.push(c.to_ascii_lowercase());
        return;
    }
    if invisible(c) {
        return;
    }
    match decancer::cure_char(c, fold_options()) {
        decancer::Translation::Character(ch) => out.extend(ch.to_lowercase()),
        decancer::Translation::String(s) => {
            for ch in s.chars() {
                out.extend(ch.to_lowercase());
            }
        }
        decancer::Translation::None => {}
    }
}

/// Whether `c` belongs to a script written without spaces between words,
/// where whole-word matching has no meaning.
pub fn no_space_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF      // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1100..=0x11FF    // Hangul Jamo
        | 0x1780..=0x17FF    // Khmer
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3FFFF) // CJK extensions B and later
}

/// A letter of a word in a script that has spaces: the characters a whole
/// word may not be glued to.
pub(crate) fn word_char(c: char) -> bool {
    c.is_alphanumeric() && !no_space_script(c)
}

fn leet_anywhere(c: char) -> Option<char> {
    Some(match c {
        '0' => 'o',
        '1' => 'i',
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '7' => 't',
        '8' => 'b',
        '9' => 'g',
        '$' => 's',
        _ => return None,
    })
}

fn leet_inside(c: char) -> Option<char> {
    Some(match c {
        '@' => 'a',
        '!' => 'i',
        '|' => 'l',
        '+' => 't',
        _ => return None,
    })
}

fn token_char(c: char) -> bool {
    c.is_alphanumeric() || leet_anywhere(c).is_some() || leet_inside(c).is_some()
}

/// One unit of the normalised text: a character, how many times it was
/// repeated, and the original characters it stands for (`start..end`, in
/// `char`s of the original text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// The normalised character (`' '` between tokens).
    pub ch: char,
    /// How many times it was repeated in a row.
    pub count: u32,
    /// First original character.
    pub start: usize,
    /// One past the last original character.
    pub end: usize,
}

/// A text after normalisation.
#[derive(Debug, Clone, Default)]
pub struct Normalised {
    /// The units' characters, for the automaton.
    pub text: String,
    /// One unit per character of `text`.
    pub units: Vec<Unit>,
    /// Byte offset in `text` of each unit, ascending.
    pub byte_starts: Vec<usize>,
}

impl Normalised {
    /// The unit starting at byte `byte` of `text`.
    pub fn unit_at(&self, byte: usize) -> Option<usize> {
        self.byte_starts.binary_search(&byte).ok()
    }
}

/// A folded character and the original character it came from.
#[derive(Debug, Clone, Copy)]
struct Raw {
    ch: char,
    orig: usize,
}

/// Steps 1 only: every folded character with its original index (what
/// patterns are matched on).
pub(crate) fn fold_text(text: &str) -> Vec<(char, usize)> {
    let mut out = Vec::with_capacity(text.len());
    let mut buf = Vec::with_capacity(4);
    for (i, c) in text.chars().enumerate() {
        buf.clear();
        fold_char(c, &mut buf);
        out.extend(buf.iter().map(|&ch| (ch, i)));
    }
    out
}

/// A token: its characters after leetspeak, and the separator characters
/// that follow it (a count of folded characters).
struct Token {
    chars: Vec<Raw>,
    sep_after: usize,
    /// The separator after it is only white space (`a g-r-a-p-e`: the gap
    /// after `a` is blank, the ones inside the spelled-out word are not).
    blank_after: bool,
}

fn tokens(folded: &[(char, usize)]) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let mut current: Vec<Raw> = Vec::new();
    let mut sep = 0usize;
    let mut blank = true;
    let flush = |current: &mut Vec<Raw>, out: &mut Vec<Token>| {
        if let Some(token) = finish_token(std::mem::take(current)) {
            out.push(token);
        }
    };
    for &(ch, orig) in folded {
        if token_char(ch) {
            if current.is_empty() {
                if let Some(last) = out.last_mut() {
                    last.sep_after = sep;
                    last.blank_after = blank;
                }
                sep = 0;
                blank = true;
            }
            current.push(Raw { ch, orig });
        } else {
            if !current.is_empty() {
                flush(&mut current, &mut out);
            }
            sep += 1;
            blank &= ch.is_whitespace();
        }
    }
    flush(&mut current, &mut out);
    out
}

/// Applies leetspeak to a token; `@ ! | +` at its edges become separators
/// (dropped). Returns `None` when nothing is left.
fn finish_token(mut chars: Vec<Raw>) -> Option<Token> {
    while chars.first().is_some_and(|r| leet_inside(r.ch).is_some()) {
        chars.remove(0);
    }
    while chars.last().is_some_and(|r| leet_inside(r.ch).is_some()) {
        chars.pop();
    }
    if chars.is_empty() {
        return None;
    }
    let has_letter = chars.iter().any(|r| r.ch.is_alphabetic());
    if has_letter {
        for r in &mut chars {
            if let Some(l) = leet_anywhere(r.ch).or_else(|| leet_inside(r.ch)) {
                r.ch = l;
            }
        }
    }
    Some(Token {
        chars,
        sep_after: 0,
        blank_after: true,
    })
}

/// Step 4: joins runs of three or more one-letter tokens separated by at
/// most three separator characters.
fn join_spelled_out(tokens: Vec<Token>) -> Vec<Token> {
    let single = |t: &Token| t.chars.len() == 1 && t.chars.iter().all(|r| r.ch.is_alphabetic());
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut iter = tokens.into_iter().peekable();
    while let Some(first) = iter.next() {
        if !single(&first) {
            out.push(first);
            continue;
        }
        let mut group = vec![first];
        while let Some(next) = iter.peek() {
            let gap_ok = group.last().is_some_and(|t| t.sep_after <= 3);
            if gap_ok && single(next) {
                if let Some(t) = iter.next() {
                    group.push(t);
                }
            } else {
                break;
            }
        }
        // A one-letter word before or after a word spelled out with other
        // separators (`a g-r-a-p-e`, `g.r.a.p.e i`) stays a word of its own.
        let gaps: Vec<bool> = group
            .iter()
            .take(group.len().saturating_sub(1))
            .map(|t| t.blank_after)
            .collect();
        let mid_marks = gaps
            .get(1..gaps.len().saturating_sub(1))
            .is_some_and(|mid| !mid.is_empty() && mid.iter().all(|blank| !blank));
        let tail = if mid_marks && gaps.last() == Some(&true) {
            group.pop()
        } else {
            None
        };
        let head = if mid_marks && gaps.first() == Some(&true) {
            Some(group.remove(0))
        } else {
            None
        };
        out.extend(head);
        if group.len() >= 3 {
            let sep_after = group.last().map(|t| t.sep_after).unwrap_or(0);
            let blank_after = group.last().is_none_or(|t| t.blank_after);
            let chars = group.into_iter().flat_map(|t| t.chars).collect();
            out.push(Token {
                chars,
                sep_after,
                blank_after,
            });
        } else {
            out.extend(group);
        }
        out.extend(tail);
    }
    out
}

/// Steps 1 to 4 without the repeat counting: the words of `text` folded,
/// with leetspeak and spelled-out words joined, separated by one space.
/// For rules that look at whole words (the polish co-occurrence rule), so
/// they see through the same evasions as the lists.
pub fn folded_words(text: &str) -> String {
    let tokens = join_spelled_out(tokens(&fold_text(text)));
    let mut out = String::with_capacity(text.len());
    for token in tokens {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(token.chars.iter().map(|r| r.ch));
    }
    out
}

/// Normalises `text` (all five steps).
pub fn normalise(text: &str) -> Normalised {
    let folded = fold_text(text);
    let tokens = join_spelled_out(tokens(&folded));
    let mut out = Normalised::default();
    let push = |out: &mut Normalised, unit: Unit| {
        out.byte_starts.push(out.text.len());
        out.text.push(unit.ch);
        out.units.push(unit);
    };
    let mut previous_end: Option<usize> = None;
    for token in tokens {
        let Some(first) = token.chars.first() else {
            continue;
        };
        if let Some(end) = previous_end {
            push(
                &mut out,
                Unit {
                    ch: ' ',
                    count: 1,
                    start: end,
                    end: first.orig.max(end),
                },
            );
        }
        let mut run: Option<Unit> = None;
        for r in &token.chars {
            match run.as_mut() {
                Some(u) if u.ch == r.ch => {
                    u.count = u.count.saturating_add(1);
                    u.end = u.end.max(r.orig + 1);
                }
                _ => {
                    if let Some(u) = run.take() {
                        push(&mut out, u);
                    }
                    run = Some(Unit {
                        ch: r.ch,
                        count: 1,
                        start: r.orig,
                        end: r.orig + 1,
                    });
                }
            }
        }
        if let Some(u) = run {
            previous_end = Some(u.end);
            push(&mut out, u);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn skeleton(text: &str) -> String {
        normalise(text).text
    }

    #[test]
    fn ascii_fast_path_matches_decancer() {
        for c in (0u8..128).map(char::from) {
            if c.is_ascii_alphanumeric() || c == ' ' {
                let mut via_table = Vec::new();
                match decancer::cure_char(c, fold_options()) {
                    decancer::Translation::Character(ch) => via_table.extend(ch.to_lowercase()),
                    decancer::Translation::String(s) => via_table.extend(s.chars()),
                    decancer::Translation::None => {}
                }
                assert_eq!(via_table, vec![c.to_ascii_lowercase()], "{c:?}");
            }
        }
    }

    #[test]
    fn folds_case_width_accents_and_homoglyphs() {
        assert_eq!(skeleton("BAD"), "bad");
        assert_eq!(skeleton("ｂａｄ"), "bad");
        assert_eq!(skeleton("bâd"), "bad");
        assert_eq!(skeleton("bа\u{0064}"), "bad"); // Cyrillic а
        assert_eq!(skeleton("𝐛𝐚𝐝"), "bad");
        assert_eq!(skeleton("b\u{200B}a\u{200D}d"), "bad");
        assert_eq!(skeleton("b\u{0301}ad"), "bad");
    }

    #[test]
    fn leetspeak_only_inside_words() {
        assert_eq!(skeleton("b4d"), "bad");
        assert_eq!(skeleton("$h1t"), "shit");
        assert_eq!(skeleton("sh!t"), "shit");
        assert_eq!(skeleton("2024"), "2024");
        assert_eq!(skeleton("bad!"), "bad");
        assert_eq!(skeleton("@name"), "name");
    }

    #[test]
    fn spelled_out_words_are_joined() {
        assert_eq!(skeleton("b.a.d"), "bad");
        assert_eq!(skeleton("b a d"), "bad");
        assert_eq!(skeleton("b - a - d"), "bad");
        assert_eq!(skeleton("a cat"), "a cat");
        assert_eq!(skeleton("i a"), "i a");
        // A one-letter word beside a word spelled out with marks.
        assert_eq!(skeleton("a g-r-a-p-e"), "a grape");
        assert_eq!(skeleton("a l.o.l.i.c.o.n"), "a lolicon");
        assert_eq!(skeleton("g.r.a.p.e i like"), "grape i like");
        assert_eq!(skeleton("a g-r-a-p-e i"), "a grape i");
        // Spelled out with spaces throughout stays one word.
        assert_eq!(skeleton("g r a p e"), "grape");
    }

    #[test]
    fn repeats_become_counts() {
        let n = normalise("baaad");
        assert_eq!(n.text, "bad");
        assert_eq!(n.units[1].count, 3);
        assert_eq!((n.units[1].start, n.units[1].end), (1, 4));
    }

    #[test]
    fn folded_words_keep_repeats() {
        assert_eq!(
            folded_words("Little  g.i.r.l, ｎｕｄｅ!"),
            "little girl nude"
        );
        assert_eq!(folded_words("sch00lg1rl"), "schoolgirl");
    }

    #[test]
    fn cjk_is_kept() {
        assert_eq!(skeleton("你好，世界"), "你好 世界");
        assert_eq!(skeleton("バカ"), "バカ");
    }

    #[test]
    fn units_map_back_to_original_chars() {
        let n = normalise("é b.a.d");
        let b = n.units.iter().find(|u| u.ch == 'b').unwrap();
        assert_eq!((b.start, b.end), (2, 3));
        let d = n.units.iter().find(|u| u.ch == 'd').unwrap();
        assert_eq!((d.start, d.end), (6, 7));
    }
}
