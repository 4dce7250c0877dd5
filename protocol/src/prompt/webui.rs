//! The web-UI dialect (Stable Diffusion web-UI attention syntax): splitting,
//! weights, prompt editing and extra-network tags. The rules are listed in
//! the module doc of [`super`].

use super::command::{command_from_text, derive_params, Command};
use super::syntax::{escape_unmatched, is_separator, parse_number, split_top, trim, Bracketed};
use super::word::{assign_ids, clamp_lv, ParseResult, SubType, Word, WordType, WEIGHT_STEP};

/// Parses web-UI prompt text. Never fails: malformed input becomes text.
pub fn parse(text: &str) -> ParseResult {
    let chars: Vec<char> = text.chars().collect();
    let normalised = escape_unmatched(&chars);
    let mut words = Vec::new();
    let mut eg_words = Vec::new();
    for segment in split_top(&normalised, is_separator) {
        let segment = trim(&segment);
        if segment.is_empty() {
            continue;
        }
        match command_from_text(segment) {
            Some(Command::Word(word)) => words.push(word),
            Some(Command::Negative(negs)) => eg_words.extend(negs),
            None => words.extend(word(segment)),
        }
    }
    let params = derive_params(&words);
    assign_ids(&mut words, &mut eg_words);
    ParseResult {
        words,
        eg_words,
        params,
    }
}

/// Prompt editing parts of the inside of `[...]`: `[from, to, when, kind]`
/// when it has one or two top-level colons and the last part is a number
/// >= 0 (`[to:when]` has an empty `from`).
pub fn editing_args(inner: &[char]) -> Option<Vec<String>> {
    editing_args_in(&Bracketed::new(inner), 0, inner.len())
}

/// [`editing_args`] of the range `lo..hi` of a bracketed text.
fn editing_args_in(text: &Bracketed<'_>, lo: usize, hi: usize) -> Option<Vec<String>> {
    let colons = text.top_colons(lo, hi);
    if colons.is_empty() || colons.len() > 2 {
        return None;
    }
    let mut parts = Vec::with_capacity(3);
    let mut start = lo;
    for c in &colons {
        parts.push(trim(text.slice(start, *c)));
        start = c + 1;
    }
    let when = trim(text.slice(start, hi));
    let w = parse_number(when)?;
    if w < 0.0 {
        return None;
    }
    let s = |p: &[char]| p.iter().collect::<String>();
    let (from, to) = match parts.as_slice() {
        [to] => (String::new(), s(to)),
        [from, to] => (s(from), s(to)),
        _ => return None,
    };
    // A switch at 1 or later is a step count; below 1 a fraction of the steps.
    let kind = if w >= 1.0 { "steps" } else { "fraction" };
    Some(vec![from, to, s(when), kind.to_owned()])
}

/// The word of one non-empty, trimmed, non-command segment (`None` when the
/// weights wrap nothing). The core is a range of the segment (see
/// [`Bracketed`]), so peeling deep nesting stays linear.
fn word(segment: &[char]) -> Option<Word> {
    let text = Bracketed::new(segment);
    let (mut lo, mut hi) = (0, segment.len());
    let mut m = 1.0_f64;
    // Peel the bracket groups that wrap the whole text, outermost first.
    while let Some(open) = text.wrapping(lo, hi) {
        let (in_lo, in_hi) = text.trim(lo + 1, hi - 1);
        if open == '(' {
            let weight = text.top_colons(in_lo, in_hi).last().and_then(|&c| {
                let (w_lo, w_hi) = text.trim(c + 1, in_hi);
                Some((c, parse_number(text.slice(w_lo, w_hi))?))
            });
            if let Some((c, w)) = weight {
                m = clamp_lv(m * w);
                (lo, hi) = text.trim(in_lo, c);
            } else {
                m = clamp_lv(m * WEIGHT_STEP);
                (lo, hi) = (in_lo, in_hi);
            }
        } else {
            if editing_args_in(&text, in_lo, in_hi).is_some() {
                break;
            }
            m = clamp_lv(m / WEIGHT_STEP);
            (lo, hi) = (in_lo, in_hi);
        }
    }
    if lo >= hi {
        return None;
    }
    if text.wrapping(lo, hi) == Some('[') {
        let (in_lo, in_hi) = text.trim(lo + 1, hi - 1);
        if let Some(args) = editing_args_in(&text, in_lo, in_hi) {
            let raw: String = text.slice(in_lo, in_hi).iter().collect();
            return Some(
                Word::new(WordType::Editing, SubType::Normal, raw)
                    .with_lv(m)
                    .with_args(args),
            );
        }
    }
    let core = text.slice(lo, hi);
    if let Some(w) = extra_network(core, m) {
        return Some(w);
    }
    Some(Word::new(WordType::Word, SubType::Normal, core.iter().collect()).with_lv(m))
}

/// `<kind:name[:weight][:extra...]>` with a non-empty kind and name; the
/// weight (default 1) is multiplied by the enclosing bracket weight `m`.
/// A tag holding a separator is plain text: angle brackets do not group, so
/// rendered on its own the tag would split there (found by cargo-fuzz).
fn extra_network(core: &[char], m: f64) -> Option<Word> {
    if core.first() != Some(&'<') || core.last() != Some(&'>') || core.len() < 2 {
        return None;
    }
    let inner = core.get(1..core.len() - 1)?;
    if inner.iter().any(|c| is_separator(*c)) {
        return None;
    }
    let parts: Vec<&[char]> = inner.split(|c| *c == ':').map(trim).collect();
    let (kind, name) = match parts.as_slice() {
        [kind, name, ..] if !kind.is_empty() && !name.is_empty() => (*kind, *name),
        _ => return None,
    };
    let rest = parts.get(2..).unwrap_or(&[]);
    let (weight, extras) = match rest.split_first() {
        Some((w, more)) => match parse_number(w) {
            Some(w) => (w, more),
            None => (1.0, rest),
        },
        None => (1.0, rest),
    };
    let kind: String = kind.iter().collect();
    let mut args = vec![kind.clone()];
    args.extend(extras.iter().map(|e| e.iter().collect::<String>()));
    Some(
        Word::new(
            WordType::from_kind(&kind),
            SubType::Normal,
            name.iter().collect(),
        )
        .with_lv(clamp_lv(m * weight))
        .with_args(args),
    )
}
