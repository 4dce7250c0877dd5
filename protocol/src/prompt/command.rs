//! Double-dash commands, shared by both dialects: the command word, `--no`
//! turning into negative words, and the parameter summary derived from the
//! command words.

use super::syntax::{is_separator, marker_name, split_top, tokens, trim};
use super::word::{Params, SubType, UnknownParam, Word, WordType};

/// What one command (`--name value...`) turns into.
pub enum Command {
    /// A command word for `words`.
    Word(Word),
    /// `--no a, b`: the negative words.
    Negative(Vec<Word>),
}

/// Builds a command from its marker token and value tokens; `None` when the
/// first token is not a marker (see [`marker_name`]).
pub fn command(first: &[char], value: &[Vec<char>]) -> Option<Command> {
    let name = marker_name(first)?;
    let value: String = value
        .iter()
        .map(|t| t.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ");
    let name: String = name.iter().collect();
    if name.eq_ignore_ascii_case("no") {
        return Some(Command::Negative(negative_words(&value)));
    }
    let first: String = first.iter().collect();
    let raw = if value.is_empty() {
        first.clone()
    } else {
        format!("{first} {value}")
    };
    let mut word = Word::new(WordType::Command, SubType::Command, raw);
    // The display text of a command is its first token (spec 1 §5).
    word.text = super::word::cut_display(&first);
    if !value.is_empty() {
        word.args = vec![value];
    }
    Some(Command::Word(word))
}

/// Parses a command written as one piece of text (a web-UI segment).
pub fn command_from_text(chars: &[char]) -> Option<Command> {
    let toks = tokens(chars);
    let (first, rest) = toks.split_first()?;
    command(first, rest)
}

/// `--no` items: split at top-level commas and line breaks (bracket-aware,
/// like web-UI words), trimmed, empty ones dropped, kept verbatim.
pub fn negative_words(value: &str) -> Vec<Word> {
    let chars: Vec<char> = value.chars().collect();
    split_top(&chars, is_separator)
        .iter()
        .map(|item| trim(item))
        .filter(|item| !item.is_empty())
        .map(|item| Word::new(WordType::Word, SubType::Eg, item.iter().collect()))
        .collect()
}

/// The canonical parameter name for a typed name (ASCII case-insensitive,
/// aliases folded); `None` for unknown names.
pub fn canonical(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "version" | "v" => "version",
        "aspect" | "ar" => "aspect",
        "quality" | "q" => "quality",
        "chaos" | "c" => "chaos",
        "seed" => "seed",
        "stop" => "stop",
        "style" => "style",
        "niji" => "niji",
        "repeat" | "r" => "repeat",
        "iw" => "iw",
        "width" | "w" => "width",
        "height" | "h" => "height",
        _ => return None,
    })
}

/// The parameter name (dashes stripped, as typed) of a command word.
pub fn command_name(word: &Word) -> Option<String> {
    let raw: Vec<char> = word.raw_text.chars().collect();
    let first = tokens(&raw).into_iter().next()?;
    marker_name(&first).map(|n| n.iter().collect())
}

/// The parameter summary of the command words in `words`: known names by
/// canonical name (the last occurrence wins), the rest in `unknown`.
pub fn derive_params(words: &[Word]) -> Params {
    let mut params = Params::default();
    for word in words.iter().filter(|w| w.kind == WordType::Command) {
        let Some(name) = command_name(word) else {
            continue;
        };
        let value = word.args.first().cloned().unwrap_or_default();
        match canonical(&name).and_then(|c| params.slot_mut(c)) {
            Some(slot) => *slot = Some(value),
            None => params.unknown.push(UnknownParam { name, value }),
        }
    }
    params
}
