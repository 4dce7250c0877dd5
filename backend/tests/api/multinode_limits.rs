//! Request-rate limits across nodes, for real: one `easel store-serve`,
//! Debian's `redis-server`, two `easel serve` nodes on them. Proves that
//! - a limit counts across the nodes: sign-in attempts of one address,
//!   alternating between node A and node B, are refused (42900) once their sum
//!   passes the limit, where each node alone would still allow them;
//! - when Redis dies, each node limits by its own count: requests go on being
//!   answered (no 5xx), and refused past the limit on that node.
//!
//! (`multinode.rs` is the whole cluster with nginx, S3 and workers; this one
//! needs only Redis.)

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use infra::testing::RedisServer;
use protocol::account::LoginRequest;
use protocol::client::RestClient;
use serde_json::Value;

use crate::helpers::{rand_suffix, start, store_server, Proc};

const STORE_TOKEN: &str = "limits-store-token";
/// Sign-in attempts per address per minute on the nodes.
const PER_MINUTE: u32 = 4;
const TOO_MANY: i32 = 42900;

/// Two nodes on one store server and one Redis.
struct Nodes {
    clients: Vec<RestClient>,
    _nodes: Vec<Proc>,
    _store: Proc,
    _dirs: Vec<tempfile::TempDir>,
}

async fn two_nodes(redis: &RedisServer) -> Nodes {
    let store_dir = tempfile::tempdir().unwrap();
    let (store, store_url) = store_server(store_dir.path(), STORE_TOKEN);
    let env: Vec<(String, String)> = [
        (
            "EASEL_STORE",
            format!("easel://{}", store_url.trim_start_matches("http://")),
        ),
        ("EASEL_STORE_TOKEN", STORE_TOKEN.to_owned()),
        ("EASEL_REDIS", redis.url()),
        ("EASEL_WORKERS", "0".into()),
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", PER_MINUTE.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let mut dirs = vec![store_dir];
    let (mut nodes, mut clients) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let dir = tempfile::tempdir().unwrap();
        let (child, base) = start(dir.path().to_path_buf(), &env);
        nodes.push(Proc(Some(child)));
        clients.push(RestClient::new(&base));
        dirs.push(dir);
    }
    Nodes {
        clients,
        _nodes: nodes,
        _store: store,
        _dirs: dirs,
    }
}

/// One e-mail sign-in attempt with a wrong password: its HTTP status and code.
async fn attempt(via: &RestClient) -> (u16, i32) {
    let body = LoginRequest {
        login_type: "email".into(),
        email: format!("nobody-{}@example.com", rand_suffix()),
        password: "not the password".into(),
        ..Default::default()
    };
    let (http, env) = via
        .post_raw::<_, Value>("/api/v1/account/login-in", &body)
        .await
        .expect("an answer");
    (http, env.status.code)
}

/// Waits for the next minute when this one ends within `margin` (the
/// shared count's windows are the minutes of the clock).
async fn fresh_minute(margin: Duration) {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let left = 60_000 - ms % 60_000;
    if left < margin.as_millis() as u64 {
        tokio::time::sleep(Duration::from_millis(left + 50)).await;
    }
}

#[tokio::test]
async fn sign_in_attempts_count_across_nodes_and_per_node_without_redis() {
    let mut redis = RedisServer::start();
    let nodes = two_nodes(&redis).await;
    let (a, b) = (&nodes.clients[0], &nodes.clients[1]);
    fresh_minute(Duration::from_secs(20)).await;

    // A, B, A, B: the limit's four attempts, each node having seen two.
    for (i, via) in [a, b, a, b].into_iter().enumerate() {
        let (http, code) = attempt(via).await;
        assert!(code != TOO_MANY && http < 500, "attempt {i}: {http} {code}");
    }
    // The fifth and sixth, one on each node (3 each, under the limit of 4
    // alone), are refused: the count is the nodes' sum.
    assert_eq!(attempt(a).await, (429, TOO_MANY), "fifth, on node A");
    assert_eq!(attempt(b).await, (429, TOO_MANY), "sixth, on node B");

    // Redis dies: each node decides by its own count (3 attempts each so
    // far): one more passes on each, then each refuses; nothing fails.
    redis.kill();
    for (name, via) in [("A", a), ("B", b)] {
        let t = Instant::now();
        let (http, code) = attempt(via).await;
        assert!(
            code != TOO_MANY && http < 500,
            "node {name}'s fourth: {http} {code}"
        );
        assert_eq!(
            attempt(via).await,
            (429, TOO_MANY),
            "node {name}'s fifth, by its own count"
        );
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "answered without waiting on Redis: {:?}",
            t.elapsed()
        );
    }
}
