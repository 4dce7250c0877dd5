//! Prompt polish streams (spec 1 §4, §8; spec 3 §7) against the real server
//! and the scripted model: every code (20000, 40000, 70005 + 10000, 70006,
//! 70017, 70020), both routes, headers, and the "running" mark released when
//! the client goes away.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{spawn_app_with, TestApp};

const RENDER: &str = "/api/v1/task/prompt-render";
const TEXT: &str = "/api/stream/tool/prompt/text";

const SCRIPTED: [(&str, &str); 2] = [
    ("EASEL_LLM", "scripted"),
    ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "20"),
];

/// An open event stream.
pub struct Sse {
    res: reqwest::Response,
    buf: String,
}

impl Sse {
    pub async fn get(
        app: &TestApp,
        path: &str,
        query: &[(&str, &str)],
        token: Option<&str>,
    ) -> Sse {
        let url = reqwest::Url::parse_with_params(&format!("{}{path}", app.base), query).unwrap();
        let mut req = reqwest::Client::new()
            .get(url)
            .header("language", "en")
            .header("deviceid", "test-device-1");
        if let Some(t) = token {
            req = req.header("token", t);
        }
        Sse::open(req).await
    }

    pub async fn open(req: reqwest::RequestBuilder) -> Sse {
        let res = req.send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        let ct = res.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(ct.starts_with("text/event-stream"), "{ct}");
        assert_eq!(res.headers()["cache-control"], "no-cache");
        Sse {
            res,
            buf: String::new(),
        }
    }

    /// The next event's JSON, or `None` at the end of the stream.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(at) = self.buf.find("\n\n") {
                let event: String = self.buf.drain(..at + 2).collect();
                let data = event.trim_end().strip_prefix("data: ").expect("data: line");
                return Some(serde_json::from_str(data).unwrap());
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.res.chunk())
                .await
                .expect("event stream stalled")
                .unwrap()?;
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// Every remaining event.
    pub async fn all(mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(e) = self.next().await {
            out.push(e);
        }
        assert!(self.buf.is_empty(), "trailing bytes: {:?}", self.buf);
        out
    }
}

pub fn code(e: &Value) -> i64 {
    e["status"]["code"].as_i64().unwrap()
}

async fn polish(app: &TestApp, token: Option<&str>, prompt: &str) -> Vec<Value> {
    Sse::get(app, RENDER, &[("prompt", prompt)], token)
        .await
        .all()
        .await
}

/// Fragments joined and the final prompt of a successful polish.
fn fragments_and_whole(events: &[Value]) -> (String, String, usize) {
    let (last, frags) = events.split_last().unwrap();
    assert_eq!(code(last), 10000, "{events:?}");
    assert!(frags.iter().all(|e| code(e) == 70005), "{events:?}");
    let joined: String = frags
        .iter()
        .map(|e| e["data"]["prompt"].as_str().unwrap())
        .collect();
    (
        joined,
        last["data"]["prompt"].as_str().unwrap().to_owned(),
        frags.len(),
    )
}

#[tokio::test]
async fn no_or_bad_token_is_one_need_login_event() {
    let app = spawn_app_with(&SCRIPTED).await;
    for token in [None, Some("not-a-token")] {
        let events = polish(&app, token, "a cat").await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(code(&events[0]), 20000);
        assert_eq!(events[0]["status"]["key"], "NeedLogin");
    }
}

#[tokio::test]
async fn polished_prompt_streams_as_fragments_then_done() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, _) = app.user("Poppy").await;
    let events = polish(
        &app,
        Some(&login.token),
        "a red fox sleeping in the snow at dawn",
    )
    .await;
    let (joined, whole, n) = fragments_and_whole(&events);
    assert_eq!(joined, whole);
    assert!(n > 3, "expected many fragments, got {n}");
    // The scripted model echoes the instruction's first line; the cleaner
    // keeps that one line.
    assert!(
        whole.contains("a red fox sleeping in the snow at dawn"),
        "{whole}"
    );
    assert!(!whole.contains('\n'));

    // The second route, with a style and a prompt object.
    let events = Sse::get(
        &app,
        TEXT,
        &[
            ("prompt", r#"{"prompt":"a lighthouse in a storm"}"#),
            ("style", "oil painting"),
        ],
        Some(&login.token),
    )
    .await
    .all()
    .await;
    let (joined, whole, _) = fragments_and_whole(&events);
    assert_eq!(joined, whole);
    assert!(whole.contains("a lighthouse in a storm"), "{whole}");
}

#[tokio::test]
async fn empty_prompt_is_invalid_params() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, _) = app.user("Ed").await;
    for p in ["", "   "] {
        let events = polish(&app, Some(&login.token), p).await;
        assert_eq!(events.len(), 1);
        assert_eq!(code(&events[0]), 40000);
    }
    let events = Sse::get(&app, TEXT, &[], Some(&login.token))
        .await
        .all()
        .await;
    assert_eq!(code(&events[0]), 40000);
}

#[tokio::test]
async fn content_rule_is_70020() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, _) = app.user("Rae").await;
    let events = polish(&app, Some(&login.token), "a nude child on the beach").await;
    assert_eq!(events.len(), 1);
    assert_eq!(code(&events[0]), 70020);
    assert_eq!(events[0]["status"]["key"], "taskPromptGenerateViolate");
    // Either word alone is fine.
    let events = polish(&app, Some(&login.token), "a child flying a kite").await;
    assert_eq!(code(events.last().unwrap()), 10000);
}

#[tokio::test]
async fn a_second_polish_while_one_streams_is_70006_and_the_mark_is_released() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, _) = app.user("Ivy").await;
    let (other, _) = app.user("Oz").await;
    let long = "a castle on a cliff above a stormy sea ".repeat(4);
    let mut first = Sse::get(&app, RENDER, &[("prompt", &long)], Some(&login.token)).await;
    assert_eq!(code(&first.next().await.unwrap()), 70005);

    let events = polish(&app, Some(&login.token), "a cat").await;
    assert_eq!(events.len(), 1);
    assert_eq!(code(&events[0]), 70006);
    assert_eq!(events[0]["status"]["key"], "taskPromptGenerateExecuting");
    // Another user is not blocked.
    let events = polish(&app, Some(&other.token), "a dog").await;
    assert_eq!(code(events.last().unwrap()), 10000);

    // The first one finishes normally, then a new one may start.
    let rest = first.all().await;
    assert_eq!(code(rest.last().unwrap()), 10000);
    let events = polish(&app, Some(&login.token), "a cat").await;
    assert_eq!(code(events.last().unwrap()), 10000);

    // A client that goes away mid-stream releases the mark too.
    let mut gone = Sse::get(&app, RENDER, &[("prompt", &long)], Some(&login.token)).await;
    assert_eq!(code(&gone.next().await.unwrap()), 70005);
    drop(gone);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let events = polish(&app, Some(&login.token), "a cat").await;
        if code(events.last().unwrap()) == 10000 {
            break;
        }
        assert_eq!(code(&events[0]), 70006);
        assert!(
            Instant::now() < deadline,
            "the running mark was never released"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn per_user_limit_is_70017() {
    let app = spawn_app_with(&[SCRIPTED[0], SCRIPTED[1], ("EASEL_POLISH_PER_HOUR", "2")]).await;
    let (login, _) = app.user("Lim").await;
    let (other, _) = app.user("Other").await;
    for _ in 0..2 {
        let events = polish(&app, Some(&login.token), "a cat").await;
        assert_eq!(code(events.last().unwrap()), 10000);
    }
    let events = polish(&app, Some(&login.token), "a cat").await;
    assert_eq!(events.len(), 1);
    assert_eq!(code(&events[0]), 70017);
    assert_eq!(events[0]["status"]["key"], "taskPromptGenerateLimit");
    // The limit is per user.
    let events = polish(&app, Some(&other.token), "a cat").await;
    assert_eq!(code(events.last().unwrap()), 10000);
}

#[tokio::test]
async fn unavailable_model_is_one_error_event() {
    let app = spawn_app_with(&[("EASEL_LLM", "openai")]).await;
    let (login, _) = app.user("Una").await;
    let events = polish(&app, Some(&login.token), "a cat").await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(code(&events[0]), 50310);
    // The mark was released: the same error again, not 70006.
    let events = polish(&app, Some(&login.token), "a cat").await;
    assert_eq!(code(&events[0]), 50310);
}
