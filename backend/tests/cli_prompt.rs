//! `easel prompt parse`: the contract's JSON on stdout (one line), and an
//! unsupported dialect failing with a clear message on stderr.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::process::{Command, Output};

use serde_json::Value;

fn easel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_easel"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn parse_ok(dialect: &str, text: &str) -> Value {
    let out = easel(&["prompt", "parse", "--dialect", dialect, text]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one line of JSON: {stdout:?}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn webui_parse_prints_the_contract_json() {
    let v = parse_ok(
        "webui",
        "masterpiece, (best quality:1.2), ((smile)), <lora:detail:0.6>, --no blurry",
    );
    let words = v["words"].as_array().unwrap();
    assert_eq!(words.len(), 4);
    assert_eq!(words[0]["text"], "masterpiece");
    assert_eq!(words[0]["lv"], 1);
    assert_eq!(words[0]["type"], "word");
    assert_eq!(words[0]["subType"], "normal");
    assert_eq!(words[1]["text"], "best quality");
    assert_eq!(words[1]["lv"], 1.2);
    assert_eq!(words[2]["lv"], 1.21);
    assert_eq!(words[3]["type"], "lora");
    assert_eq!(words[3]["lv"], 0.6);
    assert_eq!(v["egWords"][0]["text"], "blurry");
    assert_eq!(v["egWords"][0]["isEg"], true);
    assert_eq!(v["params"], serde_json::json!({}));
}

#[test]
fn bot_parse_reports_params_and_negative_words() {
    let v = parse_ok("bot", "cat::2 dog::-0.5 --ar 16:9 --no red, blue --s 750");
    assert_eq!(v["words"][0]["lv"], 2);
    assert_eq!(v["words"][1]["lv"], -0.5);
    assert_eq!(v["words"][2]["text"], "--ar");
    assert_eq!(v["words"][2]["subType"], "command");
    assert_eq!(v["params"]["aspect"], "16:9");
    assert_eq!(v["params"]["unknown"][0]["name"], "s");
    assert_eq!(v["egWords"].as_array().unwrap().len(), 2);
}

#[test]
fn text_may_start_with_dashes() {
    let v = parse_ok("bot", "--ar 16:9");
    assert_eq!(v["params"]["aspect"], "16:9");
}

#[test]
fn unsupported_dialect_fails_with_a_message() {
    let out = easel(&["prompt", "parse", "--dialect", "midjourney", "cat"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unsupported prompt dialect \"midjourney\""),
        "{stderr}"
    );
}
