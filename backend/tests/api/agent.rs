//! The generation agent (spec 3 §7 "Gen-agent", spec 2 §4) against the real
//! server and the scripted model: conversations, the answer stream whose
//! text parses into a sentence and a complete prompt, history with parent
//! links, topics, image parts, ownership, visitors, and a disconnect that
//! keeps the partial answer.

use std::time::{Duration, Instant};

use protocol::client::RestClient;
use protocol::prompt_stream::{parse, PartType};
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};
use crate::polish::{code, Sse};
use crate::tasks::test_png;

const STREAM: &str = "/api/stream/task/gen-agent/conv";
const SCRIPTED: [(&str, &str); 2] = [
    ("EASEL_LLM", "scripted"),
    ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "5"),
];

async fn open(app: &TestApp, token: Option<&str>, body: &Value) -> Sse {
    let mut req = reqwest::Client::new()
        .post(format!("{}{STREAM}", app.base))
        .json(body);
    if let Some(t) = token {
        req = req.header("token", t);
    }
    Sse::open(req).await
}

fn turn(conv_id: &str, text: &str) -> Value {
    json!({
        "conv_id": conv_id,
        "parent_msg_id": null,
        "seg_id": "seg-1",
        "start_new_topic": false,
        "messages": [{"role": "user", "content_type": "text", "parts": [text], "image_url": ""}],
        "biz_param": {"curr_base_model_name": "sdxl", "duration": 0, "task_type": "txt2img", "conv_type": 1},
        "safe_scene": 52
    })
}

/// The answer's text and ids, after checking the event sequence.
fn answer(events: &[Value]) -> (String, String, String) {
    let (last, deltas) = events.split_last().unwrap();
    assert!(events.iter().all(|e| code(e) == 10000), "{events:?}");
    assert_eq!(last["data"]["done"], true);
    assert_eq!(last["data"]["delta"], "");
    assert!(deltas.iter().all(|e| e["data"]["done"] == false));
    let msg_id = last["data"]["msg_id"].as_str().unwrap().to_owned();
    assert!(events
        .iter()
        .all(|e| e["data"]["msg_id"] == msg_id.as_str()));
    assert!(events.iter().all(|e| e["data"]["seg_id"] == "seg-1"));
    let text: String = deltas
        .iter()
        .map(|e| e["data"]["delta"].as_str().unwrap())
        .collect();
    let user = last["data"]["user_msg_id"].as_str().unwrap().to_owned();
    (text, msg_id, user)
}

async fn create(c: &RestClient) -> String {
    let v: Value = c
        .post(
            "/api/v1/task/gen-agent/conv/create",
            &json!({"conv_type": 1}),
        )
        .await
        .unwrap();
    v["conv_id"].as_str().unwrap().to_owned()
}

async fn history(c: &RestClient, conv: &str) -> Vec<Value> {
    let v: Value = c
        .post(
            "/api/v1/task/gen-agent/conv/history",
            &json!({"conv_id": conv}),
        )
        .await
        .unwrap();
    v["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_turn_streams_a_sentence_and_a_complete_prompt_and_is_stored() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, c) = app.user("Agnes").await;
    let conv = create(&c).await;

    let events = open(
        &app,
        Some(&login.token),
        &turn(&conv, "a castle in the fog"),
    )
    .await
    .all()
    .await;
    let (text, msg_id, user_msg_id) = answer(&events);
    assert!(events.len() > 5, "expected many deltas: {events:?}");
    let parts = parse(&text);
    assert_eq!(parts.len(), 2, "{text:?} -> {parts:?}");
    assert_eq!(parts[0].kind, PartType::Normal);
    assert!(parts[0].is_complete);
    assert_eq!(parts[1].kind, PartType::Prompt);
    assert!(parts[1].is_complete, "{parts:?}");
    assert!(
        parts[1].display_text.contains("a castle in the fog"),
        "{parts:?}"
    );

    let items = history(&c, &conv).await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0]["role"], "user");
    assert_eq!(items[0]["msg_id"], user_msg_id.as_str());
    assert_eq!(items[0]["content"]["parts"], json!(["a castle in the fog"]));
    assert_eq!(items[1]["role"], "assistant");
    assert_eq!(items[1]["msg_id"], msg_id.as_str());
    assert_eq!(items[1]["parent_msg_id"], user_msg_id.as_str());
    assert_eq!(items[1]["content"]["parts"], json!([text]));
    assert_eq!(items[1]["state"], "done");

    // A follow-up links to the answer and the prompt carries the whole topic.
    let mut body = turn(&conv, "make it night");
    body["parent_msg_id"] = json!(msg_id);
    let events = open(&app, Some(&login.token), &body).await.all().await;
    let (text2, _, user2) = answer(&events);
    let prompt = parse(&text2)
        .into_iter()
        .find(|p| p.kind == PartType::Prompt)
        .unwrap();
    assert!(
        prompt
            .display_text
            .contains("a castle in the fog; make it night"),
        "{prompt:?}"
    );
    // A new topic forgets it.
    let mut body = turn(&conv, "a bowl of ramen");
    body["start_new_topic"] = json!(true);
    let events = open(&app, Some(&login.token), &body).await.all().await;
    let (text3, _, _) = answer(&events);
    let prompt = parse(&text3)
        .into_iter()
        .find(|p| p.kind == PartType::Prompt)
        .unwrap();
    assert!(!prompt.display_text.contains("castle"), "{prompt:?}");
    assert!(
        prompt.display_text.contains("a bowl of ramen"),
        "{prompt:?}"
    );

    let items = history(&c, &conv).await;
    assert_eq!(items.len(), 6);
    assert_eq!(items[2]["msg_id"], user2.as_str());
    assert_eq!(items[2]["parent_msg_id"], msg_id.as_str());

    // The conversation is listed, titled by its first message.
    let list: Value = c
        .post("/api/v1/task/gen-agent/convs", &json!({}))
        .await
        .unwrap();
    assert_eq!(list["items"][0]["conv_id"], conv.as_str());
    assert_eq!(list["items"][0]["title"], "a castle in the fog");
}

#[tokio::test]
async fn ownership_visitors_and_bad_requests() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, c) = app.user("Owner").await;
    let (intruder, ic) = app.user("Intruder").await;
    let conv = create(&c).await;

    // Another user's conversation does not exist for them.
    let e = ic
        .post::<_, Value>(
            "/api/v1/task/gen-agent/conv/history",
            &json!({"conv_id": conv}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.status().unwrap().code, 40400);
    let events = open(&app, Some(&intruder.token), &turn(&conv, "a cat"))
        .await
        .all()
        .await;
    assert_eq!(events.len(), 1);
    assert_eq!(code(&events[0]), 40400);
    let list: Value = ic
        .post("/api/v1/task/gen-agent/convs", &json!({}))
        .await
        .unwrap();
    assert_eq!(list["items"], json!([]));

    // Visitors are asked to log in.
    let events = open(&app, None, &turn(&conv, "a cat")).await.all().await;
    assert_eq!(events.len(), 1);
    assert_eq!(code(&events[0]), 20000);

    // Bad bodies, foreign images, unknown parents, the content rule.
    let mut foreign = turn(&conv, "like this");
    foreign["messages"] = json!([{"role": "user", "content_type": "image", "parts": [],
        "image_url": "https://elsewhere.example/files/u/x.png"}]);
    let mut unknown_parent = turn(&conv, "a cat");
    unknown_parent["parent_msg_id"] = json!("gm-nope");
    let mut empty = turn(&conv, "a cat");
    empty["messages"] = json!([]);
    for (body, want) in [
        (foreign, 40000),
        (unknown_parent, 40000),
        (empty, 40000),
        (turn(&conv, "   "), 40000),
        (json!({"conv_id": 5}), 40000),
        (turn(&conv, "sexy schoolgirl"), 70020),
    ] {
        let events = open(&app, Some(&login.token), &body).await.all().await;
        assert_eq!(events.len(), 1, "{body} -> {events:?}");
        assert_eq!(code(&events[0]), want, "{body} -> {events:?}");
    }
    assert!(
        history(&c, &conv).await.is_empty(),
        "refused turns store nothing"
    );
}

#[tokio::test]
async fn turns_are_limited_per_account() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, c) = app.user("Busy").await;
    let conv = create(&c).await;
    // Every turn counts, refused ones included, so empty turns use the allowance up quickly.
    for _ in 0..20 {
        let events = open(&app, Some(&login.token), &turn(&conv, "  "))
            .await
            .all()
            .await;
        assert_eq!(code(&events[0]), 40000);
    }
    let events = open(&app, Some(&login.token), &turn(&conv, "a cat"))
        .await
        .all()
        .await;
    assert_eq!(events.len(), 1);
    assert_eq!(code(&events[0]), 42900);
    // Another account is not affected.
    let (other, oc) = app.user("Calm").await;
    let conv2 = create(&oc).await;
    let events = open(&app, Some(&other.token), &turn(&conv2, "a cat"))
        .await
        .all()
        .await;
    assert!(events.iter().all(|e| code(e) == 10000), "{events:?}");
}

#[tokio::test]
async fn an_uploaded_image_part_is_accepted() {
    let app = spawn_app_with(&SCRIPTED).await;
    let (login, c) = app.user("Pix").await;
    let conv = create(&c).await;
    let url = c
        .upload(&test_png(32, 32), "ref.png", "image/png")
        .await
        .unwrap();
    let mut body = turn(&conv, "in this style");
    body["messages"] = json!([
        {"role": "user", "content_type": "image", "parts": [], "image_url": url},
        {"role": "user", "content_type": "text", "parts": ["in this style, a harbour"]}
    ]);
    let events = open(&app, Some(&login.token), &body).await.all().await;
    let (text, _, _) = answer(&events);
    assert!(parse(&text)
        .iter()
        .any(|p| p.kind == PartType::Prompt && p.is_complete));
    // The model is told what the picture shows (the scripted model echoes
    // what it was told): the test image is mostly blue around a red square.
    assert!(text.contains("attached an image"), "{text}");
    assert!(text.contains("blue"), "{text}");
    let items = history(&c, &conv).await;
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["content_type"], "image");
    let key = url.split("/files/").nth(1).unwrap();
    assert_eq!(items[0]["image_url"], format!("/files/{key}"));
    assert_eq!(items[1]["parent_msg_id"], items[0]["msg_id"]);
    assert_eq!(items[2]["parent_msg_id"], items[1]["msg_id"]);
}

#[tokio::test]
async fn a_client_that_goes_away_leaves_a_cancelled_partial_answer() {
    let app = spawn_app_with(&[
        ("EASEL_LLM", "scripted"),
        ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "40"),
    ])
    .await;
    let (login, c) = app.user("Gone").await;
    let conv = create(&c).await;
    let long = "a very long description of a quiet village by a lake with boats ".repeat(3);
    let mut s = open(&app, Some(&login.token), &turn(&conv, &long)).await;
    let first = s.next().await.unwrap();
    assert_eq!(first["data"]["done"], false);
    drop(s);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let items = history(&c, &conv).await;
        let reply = &items[1];
        if reply["state"] == "cancelled" {
            let text = reply["content"]["parts"][0].as_str().unwrap();
            assert!(!text.is_empty());
            assert!(
                !text.contains("\"\"\""),
                "stopped before the prompt: {text}"
            );
            break;
        }
        assert_eq!(reply["state"], "streaming");
        assert!(Instant::now() < deadline, "never cancelled: {items:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn presets_and_config() {
    let app = spawn_app_with(&SCRIPTED).await;
    let v: Value = app
        .client
        .post("/api/v1/task/gen-agent/prompt/preset-template", &json!({}))
        .await
        .unwrap();
    let items = v["items"].as_array().unwrap();
    assert!(items.len() >= 8);
    assert!(items
        .iter()
        .all(|t| t["id"].is_string() && t["prompt"].is_string()));
    let v: Value = app
        .client
        .post("/api/v1/task/gen-agent/config", &json!({}))
        .await
        .unwrap();
    assert_eq!(v["retry_delay_ms"], 1000);
    assert_eq!(v["max_retries"], 3);
    assert_eq!(v["model"]["name"], "scripted");
}
