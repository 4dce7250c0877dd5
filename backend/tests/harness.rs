//! The load harness's `idle` scenario (the `easel-harness` crate, run in
//! process) against a real `easel serve`: the report's JSON contract and
//! that every session authenticates and gets heartbeat acks. The
//! `easel-harness` binary itself is tested in `harness/tests/cli.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use clap::Parser;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(data: &std::path::Path) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_easel"))
        .arg("serve")
        .env("EASEL_ADDR", "127.0.0.1:0")
        .env("EASEL_DATA", data)
        .env("EASEL_WEB_DIR", "")
        .env_remove("EASEL_CONFIG")
        .env_remove("EASEL_REDIS")
        .env_remove("EASEL_STORE")
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    std::thread::spawn(move || for _ in lines {});
    (Server(child), url)
}

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: harness::HarnessArgs,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_holds_every_session_and_reports_by_the_json_contract() {
    let data = tempfile::tempdir().unwrap();
    let (server, url) = start(data.path());
    let cli = Cli::try_parse_from([
        "easel-harness",
        "idle",
        "--target",
        &url,
        "--sessions",
        "20",
        "--duration-secs",
        "2",
        "--rate",
        "5",
        "--json",
    ])
    .unwrap();
    let report = harness::run(&cli.args).await.unwrap();
    let table = report.table();
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(v["scenario"], "idle");
    assert_eq!(v["target"], url.as_str());
    assert_eq!(v["sessions"], 20);
    let c = &v["counts"];
    assert_eq!(c["authenticated"], 20, "{v}");
    assert_eq!(c["failed"], 0, "{v}");
    assert_eq!(c["heartbeat_timeouts"], 0, "{v}");
    // 5 heartbeats/s for 2 s on each of 20 sessions, every one answered.
    let sent = c["heartbeats_sent"].as_u64().unwrap();
    assert!((180..=200).contains(&sent), "sent {sent}");
    assert_eq!(c["heartbeat_acks"].as_u64().unwrap(), sent);
    let l = &v["latency_ms"];
    assert_eq!(l["count"].as_u64().unwrap(), sent);
    let (p50, p99, max) = (
        l["p50"].as_f64().unwrap(),
        l["p99"].as_f64().unwrap(),
        l["max"].as_f64().unwrap(),
    );
    assert!(p50 > 0.0 && p50 <= p99 && p99 <= max, "{l}");
    assert!(v["auth_all_ms"].as_f64().unwrap() > 0.0);
    // The server is local: its pid is found from the port and its memory read.
    assert_eq!(v["server_memory"]["pid"], server.0.id());
    assert!(v["server_memory"]["rss_after_bytes"].as_u64().unwrap() > 0);
    assert!(table.contains("authenticated"), "the table: {table}");
}
