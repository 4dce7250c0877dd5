//! Rendering words, negative words and parameters back to prompt text in
//! either dialect, in the canonical form the parsers read back to the same
//! result.

use std::collections::HashSet;

use super::command::{canonical, command_name};
use super::syntax::{
    ends_with_bare_dashes, ends_with_lone_backslash, has_top_separator, has_unclosed_opener,
    starts_like_command, top_colons,
};
use super::word::{format_number, step_level, Params, Word, WordType, PARAM_NAMES};
use super::Dialect;

/// Renders a parse result (or an edited word list) as prompt text.
pub fn render(words: &[Word], eg_words: &[Word], params: &Params, dialect: Dialect) -> String {
    match dialect {
        Dialect::Webui => render_webui(words, eg_words, params),
        Dialect::Bot => render_bot(words, eg_words, params),
    }
}

fn render_webui(words: &[Word], eg_words: &[Word], params: &Params) -> String {
    let mut segments: Vec<String> = words
        .iter()
        .filter(|w| !w.raw_text.is_empty())
        .map(webui_word)
        .collect();
    segments.extend(uncovered_params(words, params));
    segments.extend(
        eg_words
            .iter()
            .filter(|w| !w.raw_text.is_empty())
            .map(|w| format!("--no {}", w.raw_text)),
    );
    segments.join(", ")
}

fn render_bot(words: &[Word], eg_words: &[Word], params: &Params) -> String {
    let prompt: Vec<&Word> = words
        .iter()
        .filter(|w| w.kind != WordType::Command && !w.raw_text.is_empty())
        .collect();
    let mut pieces: Vec<String> = Vec::new();
    for (i, w) in prompt.iter().enumerate() {
        let last = i + 1 == prompt.len();
        let mut piece = w.raw_text.clone();
        if !last || w.lv != 1.0 {
            // `a:` + `::` would read as `a` + `:::`, and `--` + `::` as a
            // command named `::`: a space keeps them apart.
            if piece.ends_with([':', '-', super::syntax::LONG_DASH]) {
                piece.push(' ');
            }
            piece.push_str("::");
            if w.lv != 1.0 {
                piece.push_str(&format_number(w.lv));
            }
        }
        pieces.push(piece);
    }
    pieces.extend(
        words
            .iter()
            .filter(|w| w.kind == WordType::Command && !w.raw_text.is_empty())
            .map(|w| w.raw_text.clone()),
    );
    pieces.extend(uncovered_params(words, params));
    pieces.extend(bot_negatives(eg_words));
    pieces.join(" ")
}

/// The bot dialect's negative words as `--no a, b` commands. The parser
/// splits a `--no` value at top-level commas, so the text must split back
/// into the same items, with the same tokens:
/// - a word that starts like a command (typed `a,--x`, without a space) is
///   attached with a bare `,` (`--no ,--x` when it comes first), since a
///   space before it would make it a command of its own;
/// - a word whose last token is only dashes (`a --`) gets a space before its
///   comma, since `--,` would be a command named `,`;
/// - a word that leaves a bracket open (`(a`, from `--no (a --no b)`) ends
///   its `--no`: a closer in the next word would pair with it and merge the
///   two words.
fn bot_negatives(eg_words: &[Word]) -> Vec<String> {
    let mut out = Vec::new();
    // The `--no` being written, and whether its last word ends in dashes.
    let mut open: Option<(String, bool)> = None;
    for w in eg_words.iter().filter(|w| !w.raw_text.is_empty()) {
        let chars: Vec<char> = w.raw_text.chars().collect();
        let attach = starts_like_command(&chars);
        let mut text = match open.take() {
            None if attach => "--no ,".to_owned(),
            None => "--no ".to_owned(),
            Some((mut text, dashes)) => {
                if dashes {
                    text.push(' ');
                }
                text.push_str(if attach { "," } else { ", " });
                text
            }
        };
        text.push_str(&w.raw_text);
        if has_unclosed_opener(&chars) {
            out.push(text);
        } else {
            open = Some((text, ends_with_bare_dashes(&chars)));
        }
    }
    out.extend(open.map(|(text, _)| text));
    out
}

/// `--name value` for every parameter that no command word in `words`
/// already renders (a parse result's params are all covered; an editor may
/// set params directly). The names are sets, not lists: thousands of
/// unknown commands made the lookups quadratic.
fn uncovered_params(words: &[Word], params: &Params) -> Vec<String> {
    let names: HashSet<String> = words
        .iter()
        .filter(|w| w.kind == WordType::Command)
        .filter_map(command_name)
        .collect();
    let known_covered: HashSet<&str> = names.iter().filter_map(|n| canonical(n)).collect();
    let mut out = Vec::new();
    for name in PARAM_NAMES {
        if let Some(Some(value)) = params.slot(name) {
            if !known_covered.contains(name) {
                out.push(param_text(name, value));
            }
        }
    }
    for u in &params.unknown {
        if !names.contains(&u.name) {
            out.push(param_text(&u.name, &u.value));
        }
    }
    out
}

fn param_text(name: &str, value: &str) -> String {
    if value.is_empty() {
        format!("--{name}")
    } else {
        format!("--{name} {value}")
    }
}

/// One web-UI word in canonical form.
fn webui_word(w: &Word) -> String {
    match w.kind {
        WordType::Command => w.raw_text.clone(),
        WordType::Editing => weighted(&format!("[{}]", w.raw_text), w.lv),
        WordType::Word => weighted(&w.raw_text, w.lv),
        _ => {
            let kind = w.args.first().cloned().unwrap_or_else(|| kind_name(w.kind));
            let extras = w.args.get(1..).unwrap_or(&[]);
            let mut out = format!("<{kind}:{}", w.raw_text);
            if w.lv != 1.0 || !extras.is_empty() {
                out.push(':');
                out.push_str(&format_number(w.lv));
            }
            for e in extras {
                out.push(':');
                out.push_str(e);
            }
            out.push('>');
            out
        }
    }
}

fn kind_name(kind: WordType) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Wraps a core in weight syntax: nothing at weight 1, brackets when the
/// weight is a small power of 1.1, else `(core:lv)`. The explicit form is
/// also used when brackets would change the meaning: a top-level colon (it
/// would read as a weight or as prompt editing), and at weight 1 a top-level
/// separator (it would split the word) or a leading `--` (it would read as a
/// command).
fn weighted(core: &str, lv: f64) -> String {
    let chars: Vec<char> = core.chars().collect();
    // `a\` + `)` would read as an escaped bracket: a space keeps it apart
    // (the parser trims it again).
    let pad = if ends_with_lone_backslash(&chars) {
        " "
    } else {
        ""
    };
    if lv == 1.0 {
        if has_top_separator(&chars) || starts_like_command(&chars) {
            return format!("({core}{pad}:1)");
        }
        return core.to_owned();
    }
    let k = step_level(lv);
    if k == 0 || !top_colons(&chars).is_empty() {
        return format!("({core}{pad}:{})", format_number(lv));
    }
    let n = k.unsigned_abs() as usize;
    let (open, close) = if k > 0 { ("(", ")") } else { ("[", "]") };
    format!("{}{core}{pad}{}", open.repeat(n), close.repeat(n))
}
