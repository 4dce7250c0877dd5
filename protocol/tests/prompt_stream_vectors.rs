//! The shared prompt-stream vectors (`tests/vectors/prompt-stream/*.json`),
//! also run by `web/src/agent/promptStream.test.ts`: every case's parts must
//! equal `expected` exactly (same JSON). Every prefix of every case, and of
//! random streams, must parse without panicking and monotonically: every part
//! but the last is complete, and a complete part stays identical at the same
//! index as more text arrives.
//!
//! `PROMPT_STREAM_BLESS=1 cargo test -p easel-protocol --test prompt_stream_vectors`
//! fills in `expected` of cases that have none (null); the filled values must
//! then be read and checked by hand against the rules in the module docs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use easel_protocol::prompt_stream::{complete_prompts, parse, PartType, PromptPart};
use proptest::prelude::*;
use serde_json::Value;

fn vector_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/prompt-stream");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Prefixes at every char boundary (what a stream of any chunking shows).
fn prefixes(text: &str) -> impl Iterator<Item = &str> {
    text.char_indices()
        .map(|(i, _)| &text[..i])
        .chain(std::iter::once(text))
}

/// The monotonicity rule between the parts of a prefix and of a longer text.
fn check_monotone(short: &[PromptPart], long: &[PromptPart]) -> Result<(), String> {
    for (i, part) in short.iter().enumerate() {
        let last = i + 1 == short.len();
        if !last && !part.is_complete {
            return Err(format!("part {i} is not last but incomplete: {part:?}"));
        }
        if part.is_complete && long.get(i) != Some(part) {
            return Err(format!(
                "complete part {i} changed: {part:?} -> {:?}",
                long.get(i)
            ));
        }
    }
    Ok(())
}

/// Invariants of one parse result that hold for any text.
fn check_shape(text: &str, parts: &[PromptPart]) -> Result<(), String> {
    for p in parts {
        if p.display_text.is_empty() && p.kind == PartType::Normal {
            return Err(format!("empty normal part kept: {p:?}"));
        }
        if p.display_text != p.display_text.trim() || p.display_text.contains("  ") {
            return Err(format!("display text not collapsed: {p:?}"));
        }
        if p.kind == PartType::Prompt && !p.text.starts_with("\"\"\"") {
            return Err(format!("prompt without opening marker: {p:?}"));
        }
        if p.kind == PartType::Prompt && p.is_complete && p.display_text.is_empty() {
            return Err(format!("blank complete prompt: {p:?}"));
        }
        if !text.contains(&p.text) {
            return Err(format!("part text not from the input: {p:?}"));
        }
    }
    Ok(())
}

#[test]
fn vectors_match() {
    let bless = std::env::var_os("PROMPT_STREAM_BLESS").is_some();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in vector_files() {
        let mut cases = load(&path);
        let mut changed = false;
        for case in cases.iter_mut() {
            count += 1;
            let name = case["name"].as_str().unwrap().to_owned();
            let input = case["input"].as_str().unwrap().to_owned();
            let got = serde_json::to_value(parse(&input)).unwrap();
            if bless && case["expected"].is_null() {
                case["expected"] = got.clone();
                changed = true;
            }
            if case["expected"] != got {
                failures.push(format!(
                    "{}: {name}\n  input:    {input:?}\n  expected: {}\n  got:      {got}",
                    path.display(),
                    case["expected"]
                ));
            }
        }
        if changed {
            let text = serde_json::to_string_pretty(&cases).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
        }
    }
    assert!(count >= 40, "only {count} vector cases");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_vector_prefix_is_monotone() {
    for path in vector_files() {
        for case in load(&path) {
            let input = case["input"].as_str().unwrap();
            let full = parse(input);
            let mut previous: Option<Vec<PromptPart>> = None;
            for prefix in prefixes(input) {
                let parts = parse(prefix);
                check_shape(prefix, &parts).unwrap();
                check_monotone(&parts, &full).unwrap();
                if let Some(prev) = &previous {
                    check_monotone(prev, &parts).unwrap();
                }
                previous = Some(parts);
            }
        }
    }
}

#[test]
fn complete_prompts_lists_closed_blocks_only() {
    let text = "A \"\"\"one\"\"\" B \"\"\" \"\"\" C \"\"\"two\"\"\" D \"\"\"three";
    assert_eq!(complete_prompts(text), vec!["one", "two"]);
}

/// Streams built from the pieces that matter: markers, lone quotes, blanks
/// of several kinds, CRLF, multi-byte characters and words.
fn stream_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"\"\"".to_owned()),
        Just("\"".to_owned()),
        Just("\"\"".to_owned()),
        Just(" ".to_owned()),
        Just("\r\n".to_owned()),
        Just("\t".to_owned()),
        Just("\u{3000}".to_owned()),
        Just("é".to_owned()),
        Just("猫".to_owned()),
        Just("🎨".to_owned()),
        "[a-z]{1,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_streams_are_monotone(pieces in proptest::collection::vec(stream_piece(), 0..24)) {
        let text: String = pieces.concat();
        let full = parse(&text);
        prop_assert!(check_shape(&text, &full).is_ok(), "{:?}", check_shape(&text, &full));
        let mut previous: Option<Vec<PromptPart>> = None;
        for prefix in prefixes(&text) {
            let parts = parse(prefix);
            let shape = check_shape(prefix, &parts);
            prop_assert!(shape.is_ok(), "{:?}", shape);
            let against_full = check_monotone(&parts, &full);
            prop_assert!(against_full.is_ok(), "{:?}", against_full);
            if let Some(prev) = &previous {
                let step = check_monotone(prev, &parts);
                prop_assert!(step.is_ok(), "{:?}", step);
            }
            previous = Some(parts);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let parts = parse(&text);
        prop_assert!(check_shape(&text, &parts).is_ok());
    }
}
