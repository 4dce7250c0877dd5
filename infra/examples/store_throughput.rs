#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! Write throughput of the embedded store: a measurement, printed rather
//! than asserted (figures depend on the disk and on what else the machine
//! runs), so it is an example, not a test:
//!
//! ```text
//! cargo run --release -p easel-infra --example store_throughput [SECONDS]
//! ```
//!
//! It reports durable puts per second for one writer awaiting each put in
//! turn (bounded by commit latency: one fsync each) and for many concurrent
//! writers (where group commit shares one fsync among everything queued).

use std::sync::Arc;
use std::time::{Duration, Instant};

use easel_infra::store::embedded::EmbeddedStore;
use easel_infra::store::{tables, DynStore, Key, TableDef};

const T: &TableDef = &tables::CONFORMANCE;

/// Puts of `value_len` bytes from `writers` tasks for `run`; answers puts/s.
async fn puts_per_sec(store: &DynStore, writers: usize, run: Duration, value_len: usize) -> f64 {
    let started = Instant::now();
    let mut handles = Vec::new();
    for w in 0..writers {
        let store = store.clone();
        handles.push(tokio::spawn(async move {
            let pk = Key::of("throughput").u64(w as u64);
            let value = vec![0x5a_u8; value_len];
            let mut n = 0u64;
            while started.elapsed() < run {
                store
                    .put(T, &pk, &Key::empty().u64(n), value.clone())
                    .await
                    .unwrap();
                n += 1;
            }
            n
        }));
    }
    let mut total = 0u64;
    for h in handles {
        total += h.await.unwrap();
    }
    total as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let secs: f64 = match std::env::args().nth(1) {
        Some(a) => a.parse().expect("SECONDS must be a number"),
        None => 3.0,
    };
    let run = Duration::from_secs_f64(secs);
    for writers in [1usize, 8, 64, 256] {
        let dir = tempfile::tempdir().unwrap();
        let embedded = EmbeddedStore::open(dir.path()).unwrap();
        let store: DynStore = Arc::new(embedded.clone());
        let rate = puts_per_sec(&store, writers, run, 256).await;
        let stats = embedded.write_stats();
        eprintln!(
            "embedded store: {writers:>3} concurrent writers, 256-byte puts: {rate:>9.0} durable puts/s, {:.1} writes per commit",
            stats.ops as f64 / stats.commits.max(1) as f64
        );
    }
}
