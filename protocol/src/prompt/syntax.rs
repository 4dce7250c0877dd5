//! Character-level helpers both dialects share: the whitespace set, escapes,
//! bracket matching, splitting at the top level, numbers and command markers.
//! Everything works on `&[char]` (Unicode scalar values) so that indices mean
//! the same thing as the code points the TypeScript port iterates.

/// Whitespace for trimming and tokenising. An explicit list (not Rust's or
/// JavaScript's idea of white space, which differ on U+0085 and U+FEFF) so
/// both languages trim the same characters.
pub fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\n'
            | '\r'
            | '\u{0B}'
            | '\u{0C}'
            | '\u{85}'
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// Web-UI word separators: comma, full-width comma (CJK input methods type
/// it), and line breaks.
pub fn is_separator(c: char) -> bool {
    matches!(c, ',' | '\u{FF0C}' | '\n' | '\r')
}

/// Characters a backslash escapes: `\(` `\)` `\[` `\]` `\:` `\\`. A backslash
/// before anything else is a literal backslash.
pub fn is_escapable(c: char) -> bool {
    matches!(c, '(' | ')' | '[' | ']' | ':' | '\\')
}

/// The long dash that counts as `--` (phones turn `--` into it).
pub const LONG_DASH: char = '\u{2014}';

/// Trims [`is_space`] characters from both ends.
pub fn trim(chars: &[char]) -> &[char] {
    let start = chars
        .iter()
        .position(|c| !is_space(*c))
        .unwrap_or(chars.len());
    let end = chars
        .iter()
        .rposition(|c| !is_space(*c))
        .map_or(start, |i| i + 1);
    chars.get(start..end).unwrap_or(&[])
}

fn at(chars: &[char], i: usize) -> Option<char> {
    chars.get(i).copied()
}

/// True when position `i` starts an escape sequence.
fn escape_at(chars: &[char], i: usize) -> bool {
    at(chars, i) == Some('\\') && at(chars, i + 1).is_some_and(is_escapable)
}

/// For every unescaped `(`, `)`, `[`, `]` that has a partner, the partner's
/// index. Matching is by a stack: a closer matches only the innermost open
/// bracket of its own kind; a closer of the wrong kind and openers never
/// closed have no partner (they are literal text).
pub fn partners(chars: &[char]) -> Vec<Option<usize>> {
    let mut partner = vec![None; chars.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while let Some(c) = at(chars, i) {
        if escape_at(chars, i) {
            i += 2;
            continue;
        }
        match c {
            '(' | '[' => stack.push(i),
            ')' | ']' => {
                let want = if c == ')' { '(' } else { '[' };
                if let Some(&top) = stack.last() {
                    if at(chars, top) == Some(want) {
                        stack.pop();
                        if let Some(slot) = partner.get_mut(top) {
                            *slot = Some(i);
                        }
                        if let Some(slot) = partner.get_mut(i) {
                            *slot = Some(top);
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    partner
}

/// True when an unescaped `(` or `[` is left open (no partner). A closer
/// that follows this text could pair with it, so the bot renderer starts a
/// new `--no` after such a negative word.
pub fn has_unclosed_opener(chars: &[char]) -> bool {
    let partner = partners(chars);
    let mut i = 0;
    while let Some(c) = at(chars, i) {
        if escape_at(chars, i) {
            i += 2;
            continue;
        }
        if matches!(c, '(' | '[') && partner.get(i).copied().flatten().is_none() {
            return true;
        }
        i += 1;
    }
    false
}

/// Escapes every bracket that has no partner, so that all remaining
/// unescaped brackets are matched: the web-UI parser's first step. This makes
/// a word's text self-contained (joining words can never pair a bracket of
/// one word with a bracket of another).
pub fn escape_unmatched(chars: &[char]) -> Vec<char> {
    let partner = partners(chars);
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while let Some(c) = at(chars, i) {
        if escape_at(chars, i) {
            out.push('\\');
            out.push(at(chars, i + 1).unwrap_or('\\'));
            i += 2;
            continue;
        }
        if matches!(c, '(' | ')' | '[' | ']') && partner.get(i).copied().flatten().is_none() {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Visits the top level of `chars`: calls `f(index, char)` for every
/// unescaped character outside matched brackets (bracket groups are skipped
/// whole, escape sequences are skipped).
fn for_top_level(chars: &[char], f: impl FnMut(usize, char)) {
    for_top_level_in(chars, &partners(chars), 0, chars.len(), f);
}

/// [`for_top_level`] over `chars[lo..hi]`, with the partners of the whole
/// text (see [`Bracketed`] for when that is valid).
fn for_top_level_in(
    chars: &[char],
    partner: &[Option<usize>],
    lo: usize,
    hi: usize,
    mut f: impl FnMut(usize, char),
) {
    let mut i = lo;
    while let Some(c) = at(chars, i).filter(|_| i < hi) {
        if escape_at(chars, i) {
            i += 2;
            continue;
        }
        if matches!(c, '(' | '[') {
            if let Some(p) = partner.get(i).copied().flatten() {
                i = p + 1;
                continue;
            }
        }
        f(i, c);
        i += 1;
    }
}

/// A text with its bracket partners computed once, looked at through ranges
/// `lo..hi`. The web-UI parser peels nested brackets through ranges: building
/// each inner text and matching its brackets anew made deeply nested input
/// quadratic (16 000 brackets took seconds; found by cargo-fuzz). A range's
/// partners are the whole text's as long as the range holds whole bracket
/// groups and does not start inside an escape sequence, which is what
/// peeling a group, cutting at a top-level colon and trimming produce.
pub struct Bracketed<'a> {
    chars: &'a [char],
    partner: Vec<Option<usize>>,
}

impl<'a> Bracketed<'a> {
    /// Matches the brackets of `chars` (see [`partners`]).
    pub fn new(chars: &'a [char]) -> Self {
        Bracketed {
            chars,
            partner: partners(chars),
        }
    }

    /// The characters of a range.
    pub fn slice(&self, lo: usize, hi: usize) -> &'a [char] {
        self.chars.get(lo..hi).unwrap_or(&[])
    }

    /// The range without [`is_space`] characters at either end.
    pub fn trim(&self, lo: usize, hi: usize) -> (usize, usize) {
        let mut lo = lo;
        let mut hi = hi;
        while lo < hi && at(self.chars, lo).is_some_and(is_space) {
            lo += 1;
        }
        while hi > lo && at(self.chars, hi - 1).is_some_and(is_space) {
            hi -= 1;
        }
        (lo, hi)
    }

    /// The opening bracket when the range is exactly one matched group.
    pub fn wrapping(&self, lo: usize, hi: usize) -> Option<char> {
        let first = at(self.chars, lo)?;
        if !matches!(first, '(' | '[') || hi < lo + 2 {
            return None;
        }
        (self.partner.get(lo).copied().flatten() == Some(hi - 1)).then_some(first)
    }

    /// Indices (in the whole text) of the range's top-level unescaped colons.
    pub fn top_colons(&self, lo: usize, hi: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for_top_level_in(self.chars, &self.partner, lo, hi, |i, c| {
            if c == ':' {
                out.push(i);
            }
        });
        out
    }
}

/// Splits at top-level characters for which `is_sep` holds.
pub fn split_top(chars: &[char], is_sep: impl Fn(char) -> bool) -> Vec<Vec<char>> {
    let mut cuts = Vec::new();
    for_top_level(chars, |i, c| {
        if is_sep(c) {
            cuts.push(i);
        }
    });
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for cut in cuts {
        out.push(chars.get(start..cut).unwrap_or(&[]).to_vec());
        start = cut + 1;
    }
    out.push(chars.get(start..).unwrap_or(&[]).to_vec());
    out
}

/// Indices of the top-level unescaped colons.
pub fn top_colons(chars: &[char]) -> Vec<usize> {
    let mut out = Vec::new();
    for_top_level(chars, |i, c| {
        if c == ':' {
            out.push(i);
        }
    });
    out
}

/// True when a separator occurs at the top level.
pub fn has_top_separator(chars: &[char]) -> bool {
    let mut found = false;
    for_top_level(chars, |_, c| found |= is_separator(c));
    found
}

/// Parses a number of the form `[+-]?(digits[.digits?] | .digits)`, ASCII
/// digits only, no exponent: the grammar both languages accept.
pub fn parse_number(chars: &[char]) -> Option<f64> {
    let body = match chars.first() {
        Some('+' | '-') => chars.get(1..)?,
        _ => chars,
    };
    let dot = body.iter().position(|c| *c == '.');
    let (int, frac) = match dot {
        Some(d) => (body.get(..d)?, Some(body.get(d + 1..)?)),
        None => (body, None),
    };
    let digits = |s: &[char]| s.iter().all(char::is_ascii_digit);
    let ok = digits(int)
        && frac.is_none_or(digits)
        && (!int.is_empty() || frac.is_some_and(|f| !f.is_empty()));
    if !ok {
        return None;
    }
    let text: String = chars.iter().collect();
    text.parse::<f64>().ok()
}

/// Splits on [`is_space`] into non-empty tokens.
pub fn tokens(chars: &[char]) -> Vec<Vec<char>> {
    chars
        .split(|c| is_space(*c))
        .filter(|t| !t.is_empty())
        .map(<[char]>::to_vec)
        .collect()
}

/// The parameter name of a command marker token: a token starting with `--`
/// or the long dash, with the whole leading run of `-` and long dashes
/// removed; `None` when the token is not a marker or the name is empty.
pub fn marker_name(token: &[char]) -> Option<&[char]> {
    let is_marker = token.starts_with(&['-', '-']) || token.first() == Some(&LONG_DASH);
    if !is_marker {
        return None;
    }
    let start = token
        .iter()
        .position(|c| *c != '-' && *c != LONG_DASH)
        .unwrap_or(token.len());
    let name = token.get(start..).unwrap_or(&[]);
    (!name.is_empty()).then_some(name)
}

/// True when the text starts like a command (`--x` or a long dash).
pub fn starts_like_command(chars: &[char]) -> bool {
    let first = tokens(chars).into_iter().next();
    first.is_some_and(|t| marker_name(&t).is_some())
}

/// True when the last token is only dashes and starts like a marker (`--`,
/// `—`): it is no command, but one character more (`--,`) would make it one.
pub fn ends_with_bare_dashes(chars: &[char]) -> bool {
    let last = chars
        .rsplit(|c| is_space(*c))
        .find(|t| !t.is_empty())
        .unwrap_or(&[]);
    let starts = last.starts_with(&['-', '-']) || last.first() == Some(&LONG_DASH);
    starts && last.iter().all(|c| *c == '-' || *c == LONG_DASH)
}

/// True when `chars` ends with an odd run of backslashes (a closing bracket
/// or colon written right after it would be escaped).
pub fn ends_with_lone_backslash(chars: &[char]) -> bool {
    chars.iter().rev().take_while(|c| **c == '\\').count() % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number(&v("1.2")), Some(1.2));
        assert_eq!(parse_number(&v("-0.5")), Some(-0.5));
        assert_eq!(parse_number(&v(".5")), Some(0.5));
        assert_eq!(parse_number(&v("2.")), Some(2.0));
        assert_eq!(parse_number(&v("+3")), Some(3.0));
        for bad in [
            "", ".", "-", "1e3", "1.2.3", "abc", "1 ", "0x1", "inf", "NaN",
        ] {
            assert_eq!(parse_number(&v(bad)), None, "{bad}");
        }
    }

    #[test]
    fn unmatched_brackets_are_escaped() {
        let s: String = escape_unmatched(&v("(a[b)c]")).into_iter().collect();
        assert_eq!(s, "\\(a[b\\)c]");
        let s: String = escape_unmatched(&v("\\(a)")).into_iter().collect();
        assert_eq!(s, "\\(a\\)");
    }

    #[test]
    fn split_respects_brackets_and_escapes() {
        let parts: Vec<String> = split_top(&v("a,(b,c),\\(d,e"), is_separator)
            .into_iter()
            .map(|p| p.into_iter().collect())
            .collect();
        assert_eq!(parts, ["a", "(b,c)", "\\(d", "e"]);
    }

    #[test]
    fn markers() {
        assert_eq!(marker_name(&v("--ar")), Some(&v("ar")[..]));
        assert_eq!(marker_name(&v("\u{2014}ar")), Some(&v("ar")[..]));
        assert_eq!(marker_name(&v("--")), None);
        assert_eq!(marker_name(&v("-ar")), None);
    }
}
