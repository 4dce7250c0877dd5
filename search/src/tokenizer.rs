//! The text analysis shared by indexing and querying: words for spaced scripts, character
//! unigrams and bigrams for CJK runs, then lower-casing and ASCII folding.
//!
//! Chinese and Japanese are written without spaces, so a word tokenizer would index a whole
//! sentence as one token and a search for a word inside it would never match. Instead every run
//! of CJK characters (Han, kana, Hangul) is indexed as each of its characters plus each adjacent
//! pair. A query run of two or more characters asks for its bigrams only (all of them must be
//! present, which approximates "contains this substring" without a dictionary); a single-character
//! query asks for that unigram.

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// Name under which the indexing analyzer is registered on the index.
pub(crate) const INDEX_ANALYZER: &str = "easel_text";

/// Tokens longer than this (in bytes) are dropped: they are noise (hashes, base64) and would
/// bloat the term dictionary.
const MAX_TOKEN_BYTES: usize = 64;

/// Whether CJK runs are split the indexing way (unigrams and bigrams) or the query way
/// (bigrams, or the single character of a one-character run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Index,
    Query,
}

/// The analyzer for indexed text fields.
pub(crate) fn index_analyzer() -> TextAnalyzer {
    analyzer(Mode::Index)
}

/// The analyzer used to turn user keywords into terms.
pub(crate) fn query_analyzer() -> TextAnalyzer {
    analyzer(Mode::Query)
}

fn analyzer(mode: Mode) -> TextAnalyzer {
    TextAnalyzer::builder(CjkAwareTokenizer { mode })
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// Runs `text` through `analyzer` and returns the distinct token texts, in first-seen order.
pub(crate) fn distinct_terms(analyzer: &mut TextAnalyzer, text: &str, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while out.len() < max && stream.advance() {
        let t = &stream.token().text;
        if !t.is_empty() && !out.iter().any(|o| o == t) {
            out.push(t.clone());
        }
    }
    out
}

/// True for characters of scripts written without spaces between words.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF        // Hiragana, Katakana
        | 0x31F0..=0x31FF      // Katakana phonetic extensions
        | 0x3400..=0x4DBF      // CJK Extension A
        | 0x4E00..=0x9FFF      // CJK Unified Ideographs
        | 0xAC00..=0xD7AF      // Hangul syllables
        | 0xF900..=0xFAFF      // CJK Compatibility Ideographs
        | 0xFF66..=0xFF9F      // Half-width Katakana
        | 0x20000..=0x3134F    // CJK Extensions B..G
    )
}

/// Splits text into alphanumeric words; CJK runs become unigrams and/or bigrams per [`Mode`].
#[derive(Clone, Debug)]
pub(crate) struct CjkAwareTokenizer {
    mode: Mode,
}

/// The tokens of one text, produced eagerly (texts are titles and short bodies).
pub(crate) struct VecTokenStream {
    tokens: Vec<Token>,
    next: usize,
    current: Token,
}

impl Tokenizer for CjkAwareTokenizer {
    type TokenStream<'a> = VecTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        VecTokenStream {
            tokens: tokenize(text, self.mode),
            next: 0,
            current: Token::default(),
        }
    }
}

impl TokenStream for VecTokenStream {
    fn advance(&mut self) -> bool {
        match self.tokens.get_mut(self.next) {
            Some(tok) => {
                self.current = std::mem::take(tok);
                self.next += 1;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Word,
    Cjk,
    Other,
}

fn class(c: char) -> Class {
    if is_cjk(c) {
        Class::Cjk
    } else if c.is_alphanumeric() {
        Class::Word
    } else {
        Class::Other
    }
}

fn tokenize(text: &str, mode: Mode) -> Vec<Token> {
    let mut out = Vec::new();
    let mut position = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let cls = class(c);
        if cls == Class::Other {
            continue;
        }
        // Collect the run of same-class characters as (byte offset, char).
        let mut run = vec![(start, c)];
        while let Some(&(i, d)) = chars.peek() {
            if class(d) != cls {
                break;
            }
            run.push((i, d));
            chars.next();
        }
        let end = run.last().map_or(start, |&(i, d)| i + d.len_utf8());
        match cls {
            Class::Word => {
                out.push(token(text, start, end, position));
                position += 1;
            }
            Class::Cjk => cjk_run(text, &run, end, mode, &mut position, &mut out),
            Class::Other => {}
        }
    }
    out
}

/// Emits the tokens of one CJK run: in index mode each character and each adjacent pair (the
/// pair shares its first character's position); in query mode the pairs, or the lone character.
fn cjk_run(
    text: &str,
    run: &[(usize, char)],
    run_end: usize,
    mode: Mode,
    position: &mut usize,
    out: &mut Vec<Token>,
) {
    let end_of = |k: usize| run.get(k + 1).map_or(run_end, |&(i, _)| i);
    let emit_unigrams = mode == Mode::Index || run.len() == 1;
    for (k, &(from, _)) in run.iter().enumerate() {
        if emit_unigrams {
            out.push(token(text, from, end_of(k), *position));
        }
        if k + 1 < run.len() {
            out.push(token(text, from, end_of(k + 1), *position));
        }
        *position += 1;
    }
}

fn token(text: &str, from: usize, to: usize, position: usize) -> Token {
    Token {
        offset_from: from,
        offset_to: to,
        position,
        text: text.get(from..to).unwrap_or_default().to_string(),
        position_length: 1,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;

    fn terms(mode: Mode, text: &str) -> Vec<String> {
        let mut a = analyzer(mode);
        let mut s = a.token_stream(text);
        let mut out = Vec::new();
        while s.advance() {
            out.push(s.token().text.clone());
        }
        out
    }

    #[test]
    fn analysis_table() {
        let cases: &[(Mode, &str, &[&str])] = &[
            (Mode::Index, "Hello, World!", &["hello", "world"]),
            (
                Mode::Index,
                "Café Crème déjà-vu",
                &["cafe", "creme", "deja", "vu"],
            ),
            (
                Mode::Index,
                "中文标题",
                &["中", "中文", "文", "文标", "标", "标题", "题"],
            ),
            (Mode::Query, "中文标题", &["中文", "文标", "标题"]),
            (Mode::Query, "中", &["中"]),
            (
                Mode::Index,
                "Dragon龙王x",
                &["dragon", "龙", "龙王", "王", "x"],
            ),
            (
                Mode::Query,
                "東京タワー 2024",
                &["東京", "京タ", "タワ", "ワー", "2024"],
            ),
            (Mode::Index, "\"(AND)*:", &["and"]),
            (Mode::Query, "  ", &[]),
        ];
        for (mode, text, want) in cases {
            assert_eq!(terms(*mode, text), *want, "{mode:?} {text:?}");
        }
    }

    #[test]
    fn long_tokens_are_dropped() {
        let long = "a".repeat(MAX_TOKEN_BYTES + 1);
        assert_eq!(terms(Mode::Index, &format!("ok {long}")), vec!["ok"]);
    }

    #[test]
    fn distinct_terms_dedupes_and_caps() {
        let mut a = query_analyzer();
        assert_eq!(
            distinct_terms(&mut a, "cat Cat dog bird", 2),
            vec!["cat", "dog"]
        );
    }
}
