//! Prompt dialects: parsing prompt text into words (spec 1 §3, §5) and
//! rendering words back, for the web-UI and the bot dialect. The TypeScript
//! port in `web/src/prompt/` implements the same rules; the JSON vectors in
//! `protocol/tests/vectors/prompt/` are run by both suites.
//!
//! # Result
//!
//! `{"words": [Word], "egWords": [Word], "params": Params}` ([`ParseResult`]),
//! every [`Word`] with the spec's fields in camelCase: `id`, `text`,
//! `rawText`, `langText` (empty), `type`, `subType`, `isEg`, `group` (0),
//! `lv`, `alv`, `desc`, `dir`, `link` (empty), `args`, `disabled` (false),
//! `isAlias` (false).
//!
//! - `rawText` is the word in prompt syntax without its weight, escapes kept
//!   as typed; `text` is `rawText` cut at 200 characters (Unicode scalar
//!   values in Rust, code points in TypeScript, never bytes or UTF-16 units).
//!   Command words are the exception: `text` is the first token (`--ar`),
//!   `rawText` the whole command (`--ar 16:9`, tokens joined by one space).
//! - `id` is `rawText` for its first occurrence and `rawText#n` for the n-th
//!   duplicate, counted over `words` then `egWords`, skipping ids already
//!   taken, so ids are unique within a result.
//! - `lv` is the weight rounded to two decimals (halves away from zero),
//!   clamped to ±10000 at every step, serialised as a JSON number (whole
//!   numbers without `.0`). `alv` is the same weight in 1.1 steps: `k` when
//!   `lv` is 1.1^k rounded for |k| <= 8, else 0.
//! - `params` holds the recognised parameters by canonical name with their
//!   values as typed (strings) and `unknown: [{name, value}]`; absent keys
//!   are omitted, so a prompt without parameters has `"params": {}`.
//!
//! # Web-UI dialect
//!
//! 1. Escapes: `\(` `\)` `\[` `\]` `\:` `\\` are literal; a backslash before
//!    anything else is itself literal.
//! 2. Brackets `()` and `[]` are matched with a stack; a closer of the wrong
//!    kind and openers never closed are literal text and the parser writes
//!    them escaped (`a(b` becomes `a\(b`), so every word is self-contained.
//!    Angle brackets are not grouping characters (they have no escape), so a
//!    comma inside `<...>` splits it.
//! 3. The text is split on `,`, the full-width `，`, `\n` and `\r` outside
//!    brackets; pieces are trimmed; empty pieces are dropped.
//! 4. A piece whose first token starts with `--` or a long dash `—` is a
//!    command (see below).
//! 5. Otherwise, bracket groups that wrap the whole piece are peeled,
//!    outermost first: `(x)` multiplies the weight by 1.1; `(x:w)` (the last
//!    top-level colon followed by a number) multiplies it by `w`; `[x]`
//!    divides it by 1.1, unless `x` is prompt editing, which stops peeling.
//!    `((a))` is 1.21, `[a]` 0.91, `((a:1.5))` 1.65, `(a:b)` is `a:b` at 1.1.
//!    A piece that brackets do not wrap whole keeps them as written at
//!    weight 1 (`(cat) and [dog]` is one word): a word has one weight.
//! 6. The core left is prompt editing when it is `[from:to:when]` or
//!    `[to:when]` (one or two top-level colons, `when` a number >= 0): type
//!    `editing`, `rawText` the inside, `args` `[from, to, when, kind]` with
//!    kind `steps` when `when >= 1` and `fraction` below 1. It is an extra
//!    network when it is `<kind:name[:weight][:more...]>` with a non-empty
//!    kind and name: type from the kind (`lora`, `lyco`, `hypernet`,
//!    `embedding`, anything else `extra`), `rawText` the name, `lv` the tag
//!    weight (default 1) times the bracket weight, `args` `[kind as typed,
//!    ...parts after the weight]`. Otherwise it is a `word`. An empty core
//!    (`()`) makes no word.
//! 7. The web-UI dialect has no negative syntax of its own: egWords come
//!    only from `--no` commands.
//!
//! # Bot dialect
//!
//! 1. Parameters start at the first token that starts with `--` or `—` and
//!    has a name after its dashes, a token starting at the beginning, after
//!    whitespace or right after `::`; everything before is the prompt.
//! 2. The prompt is split on `::`. A number written right after `::` (up to
//!    whitespace; negative allowed) is the weight of the part before it; a
//!    missing or non-numeric one means 1 and the text after `::` starts the
//!    next part. Parts are trimmed; empty parts are dropped. Brackets and
//!    `<...>` mean nothing in this dialect. Parts are not split on commas.
//! 3. Each parameter is the marker token plus the tokens up to the next
//!    marker token.
//!
//! # Commands (both dialects)
//!
//! `--name value` becomes a `command` word (`subType` `command`, `text` the
//! first token, `args` `[value]` when there is a value), except `--no`,
//! whose value is split at top-level commas and line breaks into negative
//! words (`subType` `eg`, `isEg` true). The name is the marker token without
//! its leading dashes; it is matched in ASCII lower case against `version`
//! (`v`), `aspect` (`ar`), `quality` (`q`), `chaos` (`c`), `seed`, `stop`,
//! `style`, `niji` (may have no value: `""`), `repeat` (`r`), `iw`, `width`
//! (`w`), `height` (`h`). The last occurrence wins in `params`; unknown
//! names are kept, in order, in `params.unknown`.
//!
//! # Rendering
//!
//! [`render`] writes the canonical text: web-UI words joined by `, `, a
//! weight as brackets when it is a small power of 1.1 and as `(x:lv)`
//! otherwise (also when brackets would change the meaning: a top-level
//! colon, or at weight 1 a top-level separator or a leading `--`), extra
//! networks as `<kind:name:lv>`, editing as `[rawText]`, commands as their
//! `rawText`, negative words as `--no x` pieces; bot words joined by spaces
//! as `x::lv` (`x::` for a weight of 1 before another part, with a space
//! before `::` after a text ending in `:` or a dash), then the commands, then
//! `--no a, b`, written so that it splits back into the same words: a word
//! that starts like a command (typed `a,--x`) follows a bare `,` (`--no ,--x`
//! when it comes first), a word whose last token is only dashes (`a --`)
//! gets a space before its comma (`--,` would be a command), and a word
//! that leaves a bracket open (`(a` from `--no (a --no b)`) ends its `--no`,
//! the next word starting another. The web-UI dialect has no negative prompt
//! in the same text, so its egWords are written as `--no x` pieces too. In
//! the bot dialect every non-command word is written as its `rawText` (the
//! dialect has no extra-network or editing syntax). `alv` is recomputed from
//! `lv`. Parameters not already written by a command word are written as
//! `--name value`. The invariant, checked by the tests, the property tests
//! and the fuzz target: `parse(render(parse(x)))` equals `parse(x)` in full,
//! ids and raw texts included.
//!
//! # Cost
//!
//! Long or deeply nested input must stay fast (libFuzzer also reports slow
//! inputs): nested brackets are peeled through ranges of one bracket match
//! rather than by re-matching every inner text, and the renderer looks
//! parameter names up in sets.

mod bot;
mod command;
mod render;
mod syntax;
mod webui;
mod word;

use std::str::FromStr;

pub use render::render;
pub use webui::editing_args;
pub use word::{
    assign_ids, format_number, round2, step_level, Params, ParseResult, SubType, UnknownParam,
    Word, WordType, DISPLAY_CHARS, LV_LIMIT, PARAM_NAMES, WEIGHT_STEP,
};

/// A prompt dialect (spec 1 §5).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Stable Diffusion web-UI style.
    Webui,
    /// Midjourney bot style.
    Bot,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 2] = [Dialect::Webui, Dialect::Bot];

    /// The dialect's name on the wire and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Webui => "webui",
            Dialect::Bot => "bot",
        }
    }
}

/// Errors of the prompt tools.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    /// Spec 1 §5: an unsupported dialect is an error, not a guess.
    #[error("unsupported prompt dialect {0:?} (expected webui or bot)")]
    UnsupportedDialect(String),
}

impl FromStr for Dialect {
    type Err = PromptError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "webui" => Ok(Dialect::Webui),
            "bot" => Ok(Dialect::Bot),
            other => Err(PromptError::UnsupportedDialect(other.to_owned())),
        }
    }
}

/// Parses prompt text in a dialect. Never fails and never panics.
pub fn parse(text: &str, dialect: Dialect) -> ParseResult {
    match dialect {
        Dialect::Webui => webui::parse(text),
        Dialect::Bot => bot::parse(text),
    }
}

/// Parses prompt text in a dialect named by a string; an unknown name is
/// [`PromptError::UnsupportedDialect`].
pub fn parse_named(text: &str, dialect: &str) -> Result<ParseResult, PromptError> {
    Ok(parse(text, dialect.parse()?))
}

/// The body of the cargo-fuzz target `prompt_parse`, exposed so the stable
/// test suite runs it too: the bytes (lossily decoded as UTF-8) are parsed in
/// both dialects, rendered, parsed again; the two results must be equal and
/// rendering the second must give the same text.
///
/// # Panics
///
/// When the round-trip invariant does not hold (that is the point).
pub fn fuzz_check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for dialect in Dialect::ALL {
        let first = parse(&text, dialect);
        let rendered = render(&first.words, &first.eg_words, &first.params, dialect);
        let second = parse(&rendered, dialect);
        assert_eq!(
            first, second,
            "{dialect:?} round trip changed the parse of {text:?} (rendered {rendered:?})"
        );
        let again = render(&second.words, &second.eg_words, &second.params, dialect);
        assert_eq!(
            rendered, again,
            "{dialect:?} render is not stable for {text:?}"
        );
    }
}
