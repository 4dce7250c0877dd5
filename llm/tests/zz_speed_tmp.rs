#![cfg(feature = "local")]
use easel_llm::*;
use futures_util::StreamExt;
#[tokio::test]
async fn speed() {
    let m = LocalModel::load(&LocalSettings{model_path: "../models/smollm2-135m-instruct.gguf".into(), threads: std::env::var("T").map(|t| t.parse().unwrap()).unwrap_or(1), context_tokens: 2048, max_concurrent: 1}).unwrap();
    for _ in 0..2 {
    let req = ChatRequest{messages: vec![ChatMessage::user("Write a very long story about a dragon, a knight and a baker.")], max_tokens: 256, temperature: 0.0, ..Default::default()};
    let t0 = std::time::Instant::now();
    let before = m.stats().tokens;
    let mut s = m.stream(req).await.unwrap();
    let mut first = None;
    while let Some(d) = s.next().await { d.unwrap(); if first.is_none() { first = Some(t0.elapsed()); } }
    let n = m.stats().tokens - before;
    let total = t0.elapsed();
    let f = first.unwrap();
    eprintln!("tokens {n}, first token {:?}, gen {:.1} tok/s overall {:.1}", f, (n-1) as f64 / (total - f).as_secs_f64(), n as f64/total.as_secs_f64());
    }
}
