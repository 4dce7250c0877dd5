//! The mall against fake payment providers: `tests/fakes/stripe_fake.py`
//! and `adyen_fake.py` (Python's standard library only) follow the
//! providers' documented APIs, including signed webhooks, replays and
//! reordering; the server under test is the real binary.

mod adyen;
mod packs;
mod perks;
mod refunds;
mod subscriptions;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

pub const STRIPE_KEY: &str = "sk_test_easel";
pub const STRIPE_WHSEC: &str = "whsec_easel_test";
pub const ADYEN_KEY: &str = "AQE_test_easel";
pub const ADYEN_HMAC: &str = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";

/// A fake provider process, killed when dropped.
pub struct Fake {
    child: Child,
    pub url: String,
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

impl Fake {
    fn start(script: &str, args: &[&str]) -> Fake {
        let mut child = Command::new("python3")
            .arg(repo_root().join("tests/fakes").join(script))
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
        let port: u16 = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .parse()
            .unwrap();
        Fake {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    pub async fn get(&self, path: &str) -> Value {
        reqwest::get(format!("{}{path}", self.url))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> Value {
        reqwest::Client::new()
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Presses a hosted page's button; answers where it redirects to.
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

    /// API requests the fake received (method, path, form).
    pub async fn requests(&self) -> Vec<Value> {
        self.get("/_test/requests").await["requests"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// Every webhook delivery so far.
    pub async fn events(&self) -> Vec<Value> {
        self.get("/_test/events").await["events"]
            .as_array()
            .unwrap()
            .clone()
    }
}

/// The server with Stripe (the fake) and manual payments on.
pub struct Mall {
    pub app: TestApp,
    pub stripe: Fake,
}

impl Mall {
    pub async fn start() -> Mall {
        Self::start_with(&[]).await
    }

    pub async fn start_with(extra: &[(&str, &str)]) -> Mall {
        let stripe = Fake::start(
            "stripe_fake.py",
            &["--api-key", STRIPE_KEY, "--webhook-secret", STRIPE_WHSEC],
        );
        let mut env = vec![
            ("EASEL_STRIPE_SECRET_KEY", STRIPE_KEY),
            ("EASEL_STRIPE_WEBHOOK_SECRET", STRIPE_WHSEC),
            ("EASEL_STRIPE_API_URL", stripe.url.as_str()),
            (
                "EASEL_MANUAL_PAYMENTS",
                "Transfer to IBAN XX00 0000, reference: the order id",
            ),
        ];
        env.extend_from_slice(extra);
        let app = spawn_app_with(&env).await;
        stripe
            .post(
                "/_test/config",
                json!({"webhook_url": format!("{}/api/v1/payment/webhook/stripe", app.base)}),
            )
            .await;
        Mall { app, stripe }
    }
}

/// Available credits.
pub async fn credits(c: &RestClient) -> i64 {
    let v: Value = c
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap();
    v["available"].as_i64().unwrap()
}

pub async fn assets(c: &RestClient) -> Value {
    c.post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap()
}

pub async fn order_status(c: &RestClient, id: &str) -> Value {
    c.post("/api/v1/payment/order/status", &json!({"order_id": id}))
        .await
        .unwrap()
}

/// Creates an order and answers its id and checkout URL.
pub async fn buy(c: &RestClient, path: &str, body: Value) -> (String, String) {
    let v: Value = c.post(path, &body).await.unwrap();
    (
        v["order_id"].as_str().unwrap().to_owned(),
        v["checkout_url"].as_str().unwrap_or_default().to_owned(),
    )
}

/// The error key of a failed call.
pub async fn error_key(c: &RestClient, path: &str, body: Value) -> (u16, String) {
    let e = c.post::<_, Value>(path, &body).await.unwrap_err();
    (
        e.http_status().unwrap_or(0),
        e.status()
            .map(|s| s.key.clone().unwrap_or_default())
            .unwrap_or_default(),
    )
}
