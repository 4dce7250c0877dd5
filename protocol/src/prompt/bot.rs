//! The bot dialect (Midjourney style): `::` multi-prompt weights and the
//! double-dash parameters. The rules are listed in the module doc of
//! [`super`].

use super::command::{command, derive_params, Command};
use super::syntax::{is_space, marker_name, parse_number, tokens, trim, LONG_DASH};
use super::word::{assign_ids, ParseResult, SubType, Word, WordType};

/// Parses bot prompt text. Never fails: malformed input becomes text.
pub fn parse(text: &str) -> ParseResult {
    let chars: Vec<char> = text.chars().collect();
    let split = params_start(&chars);
    let (prompt, commands) = chars.split_at(split);
    let mut words = prompt_words(prompt);
    let mut eg_words = Vec::new();
    let toks = tokens(commands);
    let mut i = 0;
    while let Some(first) = toks.get(i) {
        let end = toks
            .iter()
            .skip(i + 1)
            .position(|t| marker_name(t).is_some())
            .map_or(toks.len(), |p| i + 1 + p);
        match command(first, toks.get(i + 1..end).unwrap_or(&[])) {
            Some(Command::Word(word)) => words.push(word),
            Some(Command::Negative(negs)) => eg_words.extend(negs),
            None => {}
        }
        i = end;
    }
    let params = derive_params(&words);
    assign_ids(&mut words, &mut eg_words);
    ParseResult {
        words,
        eg_words,
        params,
    }
}

/// Where the parameters start: the first command marker (see
/// [`marker_name`]) at a token start, that is at the beginning of the text,
/// after whitespace or right after `::` (so no prompt part can begin like a
/// command); the text length if there is none.
fn params_start(chars: &[char]) -> usize {
    (0..chars.len())
        .find(|&i| {
            let token_start = i == 0
                || chars.get(i - 1).is_some_and(|c| is_space(*c))
                || (i >= 2 && chars.get(i - 2..i) == Some(&[':', ':'][..]));
            token_start && marker_at(chars, i)
        })
        .unwrap_or(chars.len())
}

/// True when a marker token starts at `i`: `--` or a long dash, then after
/// the run of dashes at least one character that is not whitespace.
fn marker_at(chars: &[char], i: usize) -> bool {
    let starts = match chars.get(i) {
        Some('-') => chars.get(i + 1) == Some(&'-'),
        Some(&c) => c == LONG_DASH,
        None => false,
    };
    if !starts {
        return false;
    }
    let name = chars
        .iter()
        .skip(i)
        .find(|c| **c != '-' && **c != LONG_DASH);
    name.is_some_and(|c| !is_space(*c))
}

/// Splits the prompt part on `::`. A number written right after `::` (up to
/// whitespace or the end) is the weight of the part before it; a missing
/// number means weight 1; empty parts are dropped.
fn prompt_words(prompt: &[char]) -> Vec<Word> {
    let mut pieces: Vec<&[char]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < prompt.len() {
        if prompt.get(i) == Some(&':') && prompt.get(i + 1) == Some(&':') {
            pieces.push(prompt.get(start..i).unwrap_or(&[]));
            i += 2;
            start = i;
        } else {
            i += 1;
        }
    }
    pieces.push(prompt.get(start..).unwrap_or(&[]));

    let mut parts: Vec<(&[char], f64)> = Vec::new();
    let mut iter = pieces.into_iter();
    let mut current = iter.next().unwrap_or(&[]);
    for piece in iter {
        let tok_len = piece
            .iter()
            .position(|c| is_space(*c))
            .unwrap_or(piece.len());
        let (tok, rest) = piece.split_at(tok_len);
        match parse_number(tok) {
            Some(w) => {
                parts.push((current, w));
                current = rest;
            }
            None => {
                parts.push((current, 1.0));
                current = piece;
            }
        }
    }
    parts.push((current, 1.0));
    parts
        .into_iter()
        .map(|(text, w)| (trim(text), w))
        .filter(|(text, _)| !text.is_empty())
        .map(|(text, w)| {
            Word::new(WordType::Word, SubType::Normal, text.iter().collect()).with_lv(w)
        })
        .collect()
}
