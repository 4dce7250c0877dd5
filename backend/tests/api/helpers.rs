//! `spawn_app()`: start the real binary and hand back typed helpers.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use protocol::account::LoginData;
use protocol::client::{RestClient, Socket};
use protocol::frame::Codec;
use serde_json::{json, Value};

// Beside this file; `#[path]` so the other test binaries that include
// helpers.rs by path find it too.
#[path = "reply_schema.rs"]
pub mod reply_schema;

pub const PASSWORD: &str = "correct horse battery";
/// Listed in EASEL_ADMINS by `spawn_app_with` unless a test sets its own.
pub const ADMIN_EMAIL: &str = "operator@example.com";

pub struct TestApp {
    pub base: String,
    pub client: RestClient,
    child: Option<Child>,
    pub data: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl TestApp {
    pub fn ws_url(&self) -> String {
        self.client.ws_url()
    }

    /// Signs a fresh user up; returns the login data and a client holding its token.
    pub async fn user(&self, name: &str) -> (LoginData, RestClient) {
        sign_up(&self.client, name).await
    }

    /// A client without a token (a visitor).
    pub fn anonymous(&self) -> RestClient {
        reply_schema::checked(&self.base)
    }

    pub async fn socket(&self, token: &str) -> Socket {
        let mut s = Socket::connect(&self.ws_url(), Codec::Json)
            .await
            .expect("connect");
        s.authenticate(token).await.expect("auth");
        s
    }

    /// Signs up an operator (an e-mail listed in EASEL_ADMINS) and a client for it.
    pub async fn operator(&self) -> RestClient {
        let data = self
            .client
            .sign_up(ADMIN_EMAIL, PASSWORD, "Operator")
            .await
            .expect("operator sign-up");
        self.client.with_token(&data.token)
    }

    /// Starts an `easel worker` process on this app's data folder and settings.
    /// Its consumers in the queue's group are `{name}-0`, `{name}-1`, ... (one
    /// per job it runs at a time; see [`is_consumer_of`]).
    pub fn worker(&self, name: &str) -> Proc {
        Proc(Some(
            worker_command(self.data.path(), name, &self.env)
                .spawn()
                .expect("spawn easel worker"),
        ))
    }

    /// The server's process id (to read its memory from /proc).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the server (SIGKILL), so that a test may open its data folder.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }

    /// Starts the server again on its data folder after [`TestApp::stop`].
    pub fn start_again(&mut self) {
        let (child, base) = start(self.data.path().to_path_buf(), &self.env);
        self.child = Some(child);
        self.client = reply_schema::checked(&base);
        self.base = base;
    }

    /// Kills the server with SIGKILL (no shutdown) and starts it again on the same data.
    pub fn kill_and_restart(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
        let (child, base) = start(self.data.path().to_path_buf(), &self.env);
        self.child = Some(child);
        self.client = reply_schema::checked(&base);
        self.base = base;
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "{}{}{}",
        std::process::id(),
        nanos,
        N.fetch_add(1, Ordering::Relaxed)
    )
}

pub fn start(data: PathBuf, env: &[(String, String)]) -> (Child, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_easel"));
    cmd.arg("serve")
        .env("EASEL_ADDR", "127.0.0.1:0")
        .env("EASEL_DATA", &data)
        .env("EASEL_WEB_DIR", "")
        .env_remove("EASEL_CONFIG")
        .env_remove("EASEL_REDIS")
        .env_remove("EASEL_STORE")
        .env("EASEL_ADMINS", ADMIN_EMAIL)
        .env("RUST_LOG", "error")
        // The NSFW classifier (scripts/fetch-model puts it there) scores
        // every output and upload, as in production.
        .env(
            "EASEL_NSFW_MODEL_PATH",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../models/open-nsfw.onnx"),
        )
        // Task awards (issue 22) would add credits to every first post, follow and
        // generation; tests of balances expect none. `checkin` turns them on.
        .env("EASEL_TASK_AWARDS", "off")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn easel");
    let url = announced_url(&mut child);
    (child, url)
}

/// The `http://` address on a child's first stdout line (`easel serve`,
/// `easel store-serve`); the rest of stdout is drained so the child never
/// blocks on a full pipe.
pub fn announced_url(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("stdout piped");
    let mut lines = BufReader::new(stdout).lines();
    let line = lines.next().expect("printed nothing").expect("read stdout");
    std::thread::spawn(move || for _ in lines {});
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .trim_end_matches('/')
        .to_owned()
}

/// An `easel store-serve` on a random port, on the data folder `data`,
/// answering `token`: the process and its `http://` address.
pub fn store_server(data: &Path, token: &str) -> (Proc, String) {
    let mut store = Command::new(env!("CARGO_BIN_EXE_easel"));
    store
        .args(["store-serve", "--addr", "127.0.0.1:0"])
        .env("EASEL_DATA", data)
        .env("EASEL_STORE_TOKEN", token)
        .env_remove("EASEL_CONFIG")
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut store = store.spawn().expect("spawn easel store-serve");
    let url = announced_url(&mut store);
    (Proc(Some(store)), url)
}

/// An `easel worker --name {name}` on the data folder `data` with `env`.
pub fn worker_command(data: &Path, name: &str, env: &[(String, String)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_easel"));
    cmd.args(["worker", "--name", name])
        .env("EASEL_DATA", data)
        .env_remove("EASEL_CONFIG")
        .env("RUST_LOG", "error")
        .env(
            "EASEL_NSFW_MODEL_PATH",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../models/open-nsfw.onnx"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Whether `consumer` (a name in the queue's consumer group) is one of the
/// `easel worker --name {name}` process's: it names them `{name}-{i}`.
pub fn is_consumer_of(consumer: &str, name: &str) -> bool {
    consumer
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
}

/// A child process killed (SIGKILL) and reaped by [`Proc::kill`] or when
/// dropped, so a failing test leaves no process behind.
pub struct Proc(pub Option<Child>);

impl Proc {
    /// SIGKILL, then reap; nothing once killed.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The process id while it runs.
    pub fn id(&self) -> Option<u32> {
        self.0.as_ref().map(Child::id)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Signs a fresh user up through `via`; the login data and a client holding its token.
pub async fn sign_up(via: &RestClient, name: &str) -> (LoginData, RestClient) {
    let email = format!("{}-{}@example.com", name.to_lowercase(), rand_suffix());
    let data = via.sign_up(&email, PASSWORD, name).await.expect("sign-up");
    let client = via.with_token(&data.token);
    (data, client)
}

/// The caller's balance and ledger (`payment/assets/get`).
pub async fn assets(c: &RestClient) -> Value {
    c.post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap()
}

/// The ledger check of the queue tests: each task's hold resolved exactly
/// once (one settle or one void, never both, never two), held at most once,
/// nothing left held, the entries summing to a balance that is not negative.
/// Answers the assets.
pub async fn ledger_is_whole(c: &RestClient, ids: &[String]) -> Value {
    let a = assets(c).await;
    let entries = a["entries"].as_array().unwrap();
    for id in ids {
        let of = |kind: &str| {
            entries
                .iter()
                .filter(|e| e["kind"] == kind && e["key"] == json!(id))
                .count()
        };
        assert_eq!(
            of("settle") + of("void"),
            1,
            "task {id}: its hold resolved exactly once: {entries:?}"
        );
        assert!(of("hold") <= 1, "task {id}: held once: {entries:?}");
    }
    assert_eq!(a["held"], 0, "nothing left held: {a}");
    let sum: i64 = entries.iter().map(|e| e["delta"].as_i64().unwrap()).sum();
    assert_eq!(
        sum,
        a["coins"].as_i64().unwrap(),
        "entries sum to the balance"
    );
    assert!(a["coins"].as_i64().unwrap() >= 0);
    a
}

/// The sum of the ledger's grants (what the account was given).
pub fn granted(assets: &Value) -> i64 {
    assets["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "grant")
        .map(|e| e["delta"].as_i64().unwrap())
        .sum()
}

/// Starts the server with extra environment settings.
pub async fn spawn_app_with(env: &[(&str, &str)]) -> TestApp {
    let data = tempfile::tempdir().unwrap();
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let (child, base) = start(data.path().to_path_buf(), &env);
    reply_schema::fetch(&base).await;
    TestApp {
        client: reply_schema::checked(&base),
        base,
        child: Some(child),
        data,
        env,
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

pub const WAIT: Duration = Duration::from_secs(5);
