//! The shared prompt vectors (`tests/vectors/prompt/*.json`), also run by
//! `web/src/prompt/vectors.test.ts`: every case's parse result must equal
//! `expected` exactly (same JSON), its rendering must equal `render`, and the
//! round trip must hold.
//!
//! `PROMPT_VECTORS_BLESS=1 cargo test -p easel-protocol --test prompt_vectors`
//! fills in `expected`/`render` of cases that have none (null); the filled
//! values must then be read and checked by hand against the rules.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use easel_protocol::prompt::{
    fuzz_check, parse, parse_named, render, Dialect, ParseResult, PromptError,
};
use serde_json::Value;

fn vector_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/prompt")
}

fn vector_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vector_dir())
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

fn dialect_of(case: &Value) -> Dialect {
    case["dialect"].as_str().unwrap().parse().unwrap()
}

#[test]
fn vectors_match() {
    let bless = std::env::var_os("PROMPT_VECTORS_BLESS").is_some();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in vector_files() {
        let mut cases = load(&path);
        let mut changed = false;
        for case in cases.iter_mut() {
            count += 1;
            let name = case["name"].as_str().unwrap().to_owned();
            let input = case["input"].as_str().unwrap().to_owned();
            let dialect = dialect_of(case);
            let got = parse(&input, dialect);
            let got_json = serde_json::to_value(&got).unwrap();
            let rendered = render(&got.words, &got.eg_words, &got.params, dialect);
            if bless && case["expected"].is_null() {
                case["expected"] = got_json.clone();
                case["render"] = Value::String(rendered.clone());
                changed = true;
            }
            let file = path.file_name().unwrap().to_string_lossy();
            if case["expected"] != got_json {
                failures.push(format!(
                    "{file} / {name}: parse differs\n  expected {}\n  got      {}",
                    case["expected"], got_json
                ));
            } else {
                // The file's JSON also deserialises to the same typed result.
                let typed: ParseResult = serde_json::from_value(case["expected"].clone()).unwrap();
                assert_eq!(typed, got, "{file} / {name}");
            }
            if let Some(want) = case.get("render").and_then(Value::as_str) {
                if want != rendered {
                    failures.push(format!(
                        "{file} / {name}: render differs\n  expected {want:?}\n  got      {rendered:?}"
                    ));
                }
            }
            let again = parse(&rendered, dialect);
            if again != got {
                failures.push(format!(
                    "{file} / {name}: round trip differs via {rendered:?}"
                ));
            }
        }
        if changed {
            let text = serde_json::to_string_pretty(&cases).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
        }
    }
    assert!(count >= 150, "only {count} vectors");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn vectors_cover_both_dialects_and_have_unique_names() {
    let mut names = std::collections::HashSet::new();
    let (mut webui, mut bot) = (0, 0);
    for path in vector_files() {
        for case in load(&path) {
            let key = format!("{}/{}", case["dialect"], case["name"]);
            assert!(names.insert(key.clone()), "duplicate vector {key}");
            assert!(case["render"].is_string(), "{key} has no render");
            match dialect_of(&case) {
                Dialect::Webui => webui += 1,
                Dialect::Bot => bot += 1,
            }
        }
    }
    assert!(webui >= 75 && bot >= 50, "webui {webui}, bot {bot}");
}

#[test]
fn fuzz_body_holds_on_every_vector_input() {
    for path in vector_files() {
        for case in load(&path) {
            fuzz_check(case["input"].as_str().unwrap().as_bytes());
        }
    }
}

#[test]
fn unsupported_dialect_is_an_error() {
    assert_eq!(
        parse_named("cat", "midjourney"),
        Err(PromptError::UnsupportedDialect("midjourney".into()))
    );
    assert!(parse_named("cat", "").is_err());
    assert!(parse_named("cat", "WEBUI").is_err());
    assert_eq!(parse_named("cat", "bot").unwrap().words[0].text, "cat");
}

#[test]
fn contract_shape_has_the_camel_case_fields() {
    let json = serde_json::to_value(parse("(cat:1.2), --no dog", Dialect::Webui)).unwrap();
    let word = json["words"][0].as_object().unwrap();
    let mut keys: Vec<&str> = word.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "alv", "args", "desc", "dir", "disabled", "group", "id", "isAlias", "isEg", "langText",
            "link", "lv", "rawText", "subType", "text", "type"
        ]
    );
    assert_eq!(json["words"][0]["lv"], serde_json::json!(1.2));
    assert_eq!(json["egWords"][0]["subType"], "eg");
    assert_eq!(json["egWords"][0]["isEg"], true);
    assert_eq!(json["params"], serde_json::json!({}));
}
