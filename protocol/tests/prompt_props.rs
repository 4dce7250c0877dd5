//! Property tests of the prompt dialects: no panic on any input, the
//! round trip `parse(render(parse(x))) == parse(x)` (via the fuzz target's
//! body, `fuzz_check`), the fuzz seed corpus, and render-then-parse of
//! generated word lists.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;

use easel_protocol::prompt::{
    assign_ids, fuzz_check, parse, render, Dialect, Params, SubType, Word, WordType,
};
use proptest::prelude::*;

/// Text made mostly of the characters the dialects give meaning to.
fn prompt_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex(
        "([a-c ]|[()\\[\\]<>:,\\\\\n\r]|::|--|\u{2014}|\u{FF0C}|\u{3000}|[0-9.+-]|lora|猫|🐱){0,40}",
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn prompt_like_text_round_trips(text in prompt_like()) {
        fuzz_check(text.as_bytes());
    }

    #[test]
    fn any_string_round_trips(text in any::<String>()) {
        fuzz_check(text.as_bytes());
    }

    #[test]
    fn any_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        fuzz_check(&bytes);
    }

    #[test]
    fn generated_webui_words_survive_render_and_parse(specs in proptest::collection::vec(word_spec(), 0..8)) {
        let (mut words, mut eg) = build(&specs, Dialect::Webui);
        assign_ids(&mut words, &mut eg);
        let text = render(&words, &eg, &Params::default(), Dialect::Webui);
        let back = parse(&text, Dialect::Webui);
        prop_assert_eq!(back.words, words, "rendered {:?}", text);
        prop_assert_eq!(back.eg_words, eg);
    }

    #[test]
    fn generated_bot_words_survive_render_and_parse(specs in proptest::collection::vec(word_spec(), 0..8)) {
        let (mut words, mut eg) = build(&specs, Dialect::Bot);
        assign_ids(&mut words, &mut eg);
        let text = render(&words, &eg, &Params::default(), Dialect::Bot);
        let back = parse(&text, Dialect::Bot);
        prop_assert_eq!(back.words, words, "rendered {:?}", text);
        prop_assert_eq!(back.eg_words, eg);
    }
}

/// (kind 0..4, text, weight index): 0 word, 1 lora, 2 editing, 3 negative.
fn word_spec() -> impl Strategy<Value = (u8, String, usize)> {
    (0u8..4, "[a-z]{1,6}( [a-z0-9]{1,6})?", 0usize..WEIGHTS.len())
}

const WEIGHTS: [f64; 9] = [1.0, 1.1, 1.21, 0.91, 0.83, 1.5, 0.5, -1.0, 2.0];

fn build(specs: &[(u8, String, usize)], dialect: Dialect) -> (Vec<Word>, Vec<Word>) {
    let mut words = Vec::new();
    let mut eg = Vec::new();
    for (kind, text, w) in specs {
        let lv = WEIGHTS[*w];
        match (kind, dialect) {
            (3, _) => eg.push(Word::new(WordType::Word, SubType::Eg, text.clone())),
            (1, Dialect::Webui) => words.push(
                Word::new(WordType::Lora, SubType::Normal, text.replace(' ', "_"))
                    .with_lv(lv)
                    .with_args(vec!["lora".into()]),
            ),
            (2, Dialect::Webui) => {
                let raw = format!("{text}:{}", text.len() + 1);
                let args = vec![
                    String::new(),
                    text.clone(),
                    (text.len() + 1).to_string(),
                    "steps".into(),
                ];
                words.push(
                    Word::new(WordType::Editing, SubType::Normal, raw)
                        .with_lv(lv)
                        .with_args(args),
                );
            }
            _ => words.push(Word::new(WordType::Word, SubType::Normal, text.clone()).with_lv(lv)),
        }
    }
    (words, eg)
}

#[test]
fn fuzz_seed_corpus_round_trips() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/prompt_parse");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        fuzz_check(&bytes);
        n += 1;
    }
    assert!(n >= 10, "seed corpus has {n} files");
}

#[test]
fn pathological_inputs_do_not_panic() {
    let deep_open = "(".repeat(5000);
    let deep = format!("{}x{}", "(".repeat(3000), ")".repeat(3000));
    let brackets = format!("{}x{}", "[".repeat(3000), "]".repeat(3000));
    let colons = ":".repeat(3000);
    let backslashes = "\\".repeat(3001);
    for text in [
        deep_open.as_str(),
        &deep,
        &brackets,
        &colons,
        &backslashes,
        "\u{0}",
        "\u{FEFF}",
    ] {
        fuzz_check(text.as_bytes());
    }
    // Deep nesting is clamped, never infinite.
    let lv = parse(&deep, Dialect::Webui).words[0].lv;
    assert_eq!(lv, 10_000.0);
    assert_eq!(parse(&brackets, Dialect::Webui).words[0].lv, 0.0);
}

/// Peeling nested brackets used to rebuild and re-match every inner text:
/// quadratic, seconds for 16 000 brackets under the fuzzer. The parser now
/// peels through ranges of one bracket match, so 100 000 brackets (each
/// kind, with and without explicit weights) parse well within the bound even
/// in a debug build, where the quadratic version took minutes.
#[test]
fn deep_nesting_parses_in_linear_time() {
    let n = 50_000;
    let round = format!("{}x{}", "(".repeat(n), ")".repeat(n));
    let square = format!("{}x{}", "[".repeat(n), "]".repeat(n));
    let weighted = format!("{}x{}", "(".repeat(n), ":1)".repeat(n));
    let start = std::time::Instant::now();
    let words = parse(&round, Dialect::Webui).words;
    assert_eq!((words[0].raw_text.as_str(), words[0].lv), ("x", 10_000.0));
    let words = parse(&square, Dialect::Webui).words;
    assert_eq!((words[0].raw_text.as_str(), words[0].lv), ("x", 0.0));
    let words = parse(&weighted, Dialect::Webui).words;
    assert_eq!((words[0].raw_text.as_str(), words[0].lv), ("x", 1.0));
    let elapsed = start.elapsed();
    assert!(elapsed.as_secs() < 10, "deep nesting took {elapsed:?}");
}
