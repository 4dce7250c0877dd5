//! Test plumbing: the fake providers as child processes, their `/_test/`
//! controls, and a tiny webhook receiver on a tokio `TcpListener`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use easel_payments::Headers;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The repository root (the crate's parent).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fake provider process; killed when dropped.
pub struct Fake {
    child: Child,
    pub port: u16,
}

impl Fake {
    pub fn start(script: &str, args: &[&str]) -> Fake {
        let path = repo_root().join("tests/fakes").join(script);
        let mut child = Command::new("python3")
            .arg(path)
            .args(["--port", "0"])
            .args(args)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 on PATH");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .parse()
            .unwrap();
        Fake { child, port }
    }

    pub fn stripe(extra: &[&str]) -> Fake {
        let mut args = vec!["--api-key", STRIPE_KEY, "--webhook-secret", STRIPE_WHSEC];
        args.extend_from_slice(extra);
        Fake::start("stripe_fake.py", &args)
    }

    pub fn adyen() -> Fake {
        Fake::start(
            "adyen_fake.py",
            &[
                "--api-key",
                ADYEN_KEY,
                "--hmac-key",
                ADYEN_HMAC,
                "--merchant-account",
                "EaselECOM",
            ],
        )
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub async fn get(&self, path: &str) -> Value {
        reqwest::get(format!("{}{path}", self.url()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> Value {
        let resp = reqwest::Client::new()
            .post(format!("{}{path}", self.url()))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        resp.json().await.unwrap()
    }

    /// Presses a button of a hosted page; answers the redirect's location.
    pub async fn press(&self, page_url: &str, action: &str) -> String {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let resp = client
            .post(page_url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("action={action}"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 303, "pressing {action}");
        resp.headers()["location"].to_str().unwrap().to_string()
    }

    /// API requests the fake received.
    pub async fn requests(&self) -> Vec<Value> {
        self.get("/_test/requests").await["requests"]
            .as_array()
            .unwrap()
            .clone()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub const STRIPE_KEY: &str = "sk_test_51EaselFakeKey";
pub const STRIPE_WHSEC: &str = "whsec_easel_fake_secret";
pub const ADYEN_KEY: &str = "AQEyhmfxK4_easel_fake";
/// The key of Adyen's documentation example.
pub const ADYEN_HMAC: &str = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";

/// One webhook delivery the receiver got.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub headers: Headers,
    pub body: Vec<u8>,
}

type Answer = Arc<dyn Fn(&Headers, &[u8]) -> (u16, String) + Send + Sync>;

/// A webhook endpoint: records every request and answers with `answer`.
pub struct Receiver {
    pub url: String,
    got: Arc<Mutex<Vec<Delivery>>>,
}

impl Receiver {
    pub async fn start(answer: Answer) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/webhook", listener.local_addr().unwrap());
        let got = Arc::new(Mutex::new(Vec::new()));
        let store = got.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut sock, _)) = listener.accept().await else {
                    return;
                };
                let store = store.clone();
                let answer = answer.clone();
                tokio::spawn(async move {
                    let Some((headers, body)) = read_request(&mut sock).await else {
                        return;
                    };
                    let (status, text) = answer(&headers, &body);
                    store.lock().unwrap().push(Delivery { headers, body });
                    let resp = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                        text.len()
                    );
                    let _ = sock.write_all(resp.as_bytes()).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        Receiver { url, got }
    }

    pub fn deliveries(&self) -> Vec<Delivery> {
        self.got.lock().unwrap().clone()
    }
}

async fn read_request(sock: &mut tokio::net::TcpStream) -> Option<(Headers, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let headers: Headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = easel_payments::header(&headers, "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((headers, body))
}

/// Unix seconds now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}
