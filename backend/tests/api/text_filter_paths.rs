//! The text filter on the write paths issue 20 item 5 left: a character
//! card import (every text it writes, scene `character`), dataset names and
//! tags, training names and video-editor projects (scene `name`), private
//! character chats (the user's message refused before any token or masked,
//! the model's reply masked as it streams and as stored, scene `message`)
//! and prompt polish output (scene `prompt`: 70020 instead of delivering a
//! refused prompt, masked otherwise). Each with a listed word masked or
//! refused per its list setting.

use std::time::Duration;

use protocol::chat::{ChatDelta, MessageState, MessageView};
use protocol::client::{ClientError, RestClient, Socket};
use protocol::frame::FrameType;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};
use crate::polish::Sse;

const WAIT: Duration = Duration::from_secs(10);

async fn app() -> TestApp {
    spawn_app_with(&[
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000"),
        ("EASEL_LLM", "scripted"),
        ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "5"),
    ])
    .await
}

/// The error's code and key.
fn refused<T: std::fmt::Debug>(r: Result<T, ClientError>) -> (i32, String) {
    let e = r.expect_err("expected a refusal");
    let s = e.status().expect("an API error");
    (s.code, s.key.clone().unwrap_or_default())
}

fn is_text_refusal<T: std::fmt::Debug>(r: Result<T, ClientError>) {
    let (code, key) = refused(r);
    assert_eq!((code, key.as_str()), (40170, "textViolatesRules"));
}

async fn upsert(op: &RestClient, entry: Value) {
    let _: Value = op
        .post("/api/v1/admin/text-filter/upsert", &entry)
        .await
        .unwrap();
}

async fn import(app: &TestApp, c: &RestClient, card: &Value) -> Value {
    let res = reqwest::Client::new()
        .post(format!("{}/api/v1/tavern-pro/card/import", app.base))
        .header("Content-Type", "application/json")
        .header("token", c.token().unwrap())
        .body(card.to_string())
        .send()
        .await
        .unwrap();
    res.json().await.unwrap()
}

fn v2(data: Value) -> Value {
    json!({"spec": "chara_card_v2", "spec_version": "2.0", "data": data})
}

#[tokio::test]
async fn a_character_card_import_filters_every_text_it_writes() {
    let app = app().await;
    let (_, c) = app.user("Importer").await;

    // A refused word in any field refuses the card; nothing is stored.
    for field in [
        "name",
        "description",
        "first_mes",
        "scenario",
        "mes_example",
    ] {
        let mut data = json!({"name": "Ada", "description": "calm", "first_mes": "Hi",
                              "scenario": "", "mes_example": ""});
        data[field] = json!("the l.o.l.i.c.o.n story");
        let env = import(&app, &c, &v2(data)).await;
        assert_eq!(env["status"]["code"], 40170, "{field}: {env}");
        assert_eq!(env["status"]["key"], "textViolatesRules");
    }
    let env = import(
        &app,
        &c,
        &v2(json!({"name": "Ada", "first_mes": "Hi", "tags": ["fantasy", "jailbait"]})),
    )
    .await;
    assert_eq!(env["status"]["code"], 40170, "tags: {env}");
    let mine: Value = c.post("/api/v1/tavern-pro/my", &json!({})).await.unwrap();
    assert!(
        mine.to_string().matches("\"id\"").count() == 0,
        "nothing imported: {mine}"
    );

    // Masked words in every field are stored masked.
    let card = v2(json!({
        "name": "Sh1t Bob",
        "description": "she says f u c k a lot",
        "personality": "an a55hole at times",
        "scenario": "a sh!tty tavern",
        "first_mes": "what the fuuuck",
        "mes_example": "<START> holy sh1t",
        "creator_notes": "no bullsh1t here",
        "system_prompt": "never say fuck",
        "alternate_greetings": ["oh sh1t, you again"],
        "tags": ["sh1t", "fantasy"],
    }));
    let env = import(&app, &c, &card).await;
    assert_eq!(env["status"]["code"], 10000, "{env}");
    let id = env["data"]["id"].as_str().unwrap();
    let d: Value = c
        .post("/api/v1/character/detail", &json!({ "id": id }))
        .await
        .unwrap();
    assert_eq!(d["name"], "**** Bob");
    assert_eq!(d["greeting"], "what the ******");
    assert_eq!(d["scenario"], "a *****y tavern");
    assert_eq!(d["tags"], json!(["****", "fantasy"]));
    assert_eq!(d["alternate_greetings"], json!(["oh ****, you again"]));
    let text = d.to_string();
    for masked in [
        "she says * * * * a lot",
        "an ******* at times",
        "<START> holy ****",
        "no bull**** here",
        "never say ****",
    ] {
        assert!(text.contains(masked), "{masked}: {d}");
    }
    for raw in ["f u c k", "a55hole", "sh!t", "sh1t", "fuuuck"] {
        assert!(!text.contains(raw), "{raw} left in {d}");
    }
}

#[tokio::test]
async fn dataset_training_and_editor_names_are_filtered() {
    let app = app().await;
    let (_, c) = app.user("Maker").await;

    // Datasets: the name (scene name) and the tags (scene title).
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/dataset/create",
            &json!({"name": "j.a.i.l.b.a.i.t set"}),
        )
        .await,
    );
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/dataset/create",
            &json!({"name": "Reds", "tags": ["ok", "LOLI"]}),
        )
        .await,
    );
    let list: Value = c.post("/api/v1/dataset/list", &json!({})).await.unwrap();
    assert_eq!(list["items"], json!([]), "nothing stored");
    let d: Value = c
        .post(
            "/api/v1/dataset/create",
            &json!({"name": "Sh1t paintings", "tags": ["b1tch", "oil"]}),
        )
        .await
        .unwrap();
    assert_eq!(d["name"], "**** paintings", "{d}");
    assert_eq!(d["tags"], json!(["*****", "oil"]), "{d}");
    let id = d["dataset_id"].as_str().unwrap().to_owned();
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/dataset/edit",
            &json!({"dataset_id": id, "name": "child-porn"}),
        )
        .await,
    );
    let e: Value = c
        .post(
            "/api/v1/dataset/edit",
            &json!({"dataset_id": id, "name": "fuuuck yes"}),
        )
        .await
        .unwrap();
    assert_eq!(e["name"], "****** yes");
    // A training's new model name: refused before anything is planned.
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/train-model/create",
            &json!({"dataset_id": id, "name": "shotacon v1", "base_model": "sd15"}),
        )
        .await,
    );

    // The video editor's project names, on create and on edit.
    const ED: &str = "/api/v1/task/v2/video/editor";
    is_text_refusal(
        c.post::<_, Value>(
            &format!("{ED}/workspace/create"),
            &json!({"name": "csam cut"}),
        )
        .await,
    );
    let ws: Value = c
        .post(
            &format!("{ED}/workspace/create"),
            &json!({"name": "Holy sh1t montage"}),
        )
        .await
        .unwrap();
    assert_eq!(ws["name"], "Holy **** montage", "{ws}");
    let wid = ws["workspace_id"].as_str().unwrap();
    is_text_refusal(
        c.post::<_, Value>(
            &format!("{ED}/workspace/edit"),
            &json!({"workspace_id": wid, "name": "loli edit"}),
        )
        .await,
    );
    let ws: Value = c
        .post(
            &format!("{ED}/workspace/edit"),
            &json!({"workspace_id": wid, "name": "b.i.t.c.h please"}),
        )
        .await
        .unwrap();
    assert_eq!(ws["name"], "********* please", "{ws}");
    let list: Value = c
        .post(&format!("{ED}/workspace/list"), &json!({}))
        .await
        .unwrap();
    assert!(list.to_string().contains("********* please"), "{list}");
    assert!(!list.to_string().contains("loli"), "{list}");
}

// ---- Character chats ------------------------------------------------------

async fn character(c: &RestClient) -> String {
    let v: Value = c
        .post(
            "/api/v1/tavern-pro/publish",
            &json!({"name": "Mira", "greeting": "Hello.", "published": true}),
        )
        .await
        .unwrap();
    v["id"].as_str().unwrap().to_owned()
}

async fn session(c: &RestClient, cid: &str) -> String {
    let v: Value = c
        .post(
            "/api/v1/character/session/create",
            &json!({ "character_id": cid }),
        )
        .await
        .unwrap();
    v["session_id"].as_str().unwrap().to_owned()
}

async fn start(c: &RestClient, sid: &str, content: &str) -> Result<String, ClientError> {
    let v: Value = c
        .post(
            "/api/v1/character/session/chat/start",
            &json!({ "session_id": sid, "content": content }),
        )
        .await?;
    Ok(v["msg_id"].as_str().unwrap().to_owned())
}

async fn messages(c: &RestClient, sid: &str) -> Vec<MessageView> {
    let v: Value = c
        .post(
            "/api/v1/character/session/message/list",
            &json!({ "session_id": sid }),
        )
        .await
        .unwrap();
    serde_json::from_value(v["items"].clone()).unwrap()
}

/// Frames of `msg_id` until (and with) the closing one.
async fn frames(s: &mut Socket, msg_id: &str) -> Vec<ChatDelta> {
    let mut out = Vec::new();
    loop {
        let f = s.expect(FrameType::ChatStream, WAIT).await.unwrap();
        let d: ChatDelta = serde_json::from_value(f.content).unwrap();
        if d.msg_id != msg_id {
            continue;
        }
        let done = d.done;
        out.push(d);
        if done {
            return out;
        }
    }
}

fn joined(frames: &[ChatDelta]) -> String {
    frames.iter().map(|d| d.delta.as_str()).collect()
}

#[tokio::test]
async fn private_chats_refuse_or_mask_the_users_message_and_mask_the_reply() {
    let app = app().await;
    let (login, c) = app.user("Ann").await;
    let op = app.operator().await;
    // A phrase the scripted model writes ("You said: ...") but no user does:
    // it spans two of the model's deltas.
    upsert(
        &op,
        json!({"id": "op.yousaid", "term": "you said", "category": "test",
               "action": "refuse", "scenes": ["message"]}),
    )
    .await;
    let cid = character(&c).await;
    let sid = session(&c, &cid).await;
    let mut s = app.socket(&login.token).await;

    // Refused: the key answers the start; no message is stored, no frame sent.
    for bad in [
        "child-porn links",
        "ｊａｉｌｂａｉｔ pics",
        "so, you s.a.i.d that",
    ] {
        is_text_refusal(start(&c, &sid, bad).await);
    }
    let quick = c
        .post::<_, Value>(
            "/api/v1/character/quick-chat/start",
            &json!({"character_id": cid, "content": "l0l1c0n please"}),
        )
        .await;
    is_text_refusal(quick);
    assert_eq!(messages(&c, &sid).await.len(), 1, "only the greeting");
    assert!(
        matches!(
            s.recv_timeout(Duration::from_millis(300)).await,
            Err(ClientError::Timeout(_))
        ),
        "no frame for a refused message"
    );

    // Masked: the user's message as stored, the reply as streamed and stored.
    let words: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
    let content = format!("sh!t happens, {}", words.join(" "));
    let msg_id = start(&c, &sid, &content).await.unwrap();
    let f = frames(&mut s, &msg_id).await;
    let streamed = joined(&f);
    let expected = format!("*** ****: **** happens, {}", words.join(" "));
    assert_eq!(streamed, expected);
    assert!(f.len() > 10, "released word by word: {}", f.len());
    for (i, d) in f.iter().enumerate() {
        assert_eq!(d.seq, i as u64 + 1);
    }
    assert_eq!(f.last().unwrap().state, Some(MessageState::Done));
    let all = messages(&c, &sid).await;
    assert_eq!(all.len(), 3);
    assert_eq!(all[1].content, format!("**** happens, {}", words.join(" ")));
    assert_eq!(all[2].msg_id, msg_id);
    assert_eq!(all[2].content, expected);
    assert_eq!(all[2].seq, f.last().unwrap().seq);

    // An edit is filtered as a new message is.
    let user_msg = all[1].msg_id.clone();
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/character/session/message/edit",
            &json!({"session_id": sid, "msg_id": user_msg, "content": "csam"}),
        )
        .await,
    );
    let edited: Value = c
        .post(
            "/api/v1/character/session/message/edit",
            &json!({"session_id": sid, "msg_id": user_msg, "content": "what the fuck"}),
        )
        .await
        .unwrap();
    assert_eq!(edited["content"], "what the ****");

    // Stopped mid-reply: what the filter held back is masked and kept too.
    let long: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
    let slow = start(&c, &sid, &long.join(" ")).await.unwrap();
    let first = s.expect(FrameType::ChatStream, WAIT).await.unwrap();
    let first: ChatDelta = serde_json::from_value(first.content).unwrap();
    assert_eq!(first.msg_id, slow);
    let _: Value = c
        .post(
            "/api/v1/character/session/chat/stop",
            &json!({ "session_id": sid }),
        )
        .await
        .unwrap();
    let mut f = vec![first];
    f.extend(frames(&mut s, &slow).await);
    let stored = messages(&c, &sid).await.pop().unwrap();
    assert_eq!(stored.state, MessageState::Cancelled);
    assert_eq!(stored.content, joined(&f));
    assert!(
        stored.content.starts_with("*** ****: w0 w1"),
        "{}",
        stored.content
    );
}

// ---- Prompt polish ----------------------------------------------------------

async fn polish(app: &TestApp, token: &str, prompt: &str) -> Vec<Value> {
    Sse::get(
        app,
        "/api/v1/task/prompt-render",
        &[("prompt", prompt)],
        Some(token),
    )
    .await
    .all()
    .await
}

fn code(e: &Value) -> i64 {
    e["status"]["code"].as_i64().unwrap()
}

#[tokio::test]
async fn a_polished_prompt_that_breaks_a_list_ends_with_70020_or_is_masked() {
    let app = app().await;
    let (login, _) = app.user("Poppy").await;
    let op = app.operator().await;
    let idea = "a red fox sleeping in the snow at dawn near a frozen lake";

    // The scripted model answers "You said: Idea: <idea>"; the idea itself
    // is clean, so only the model's words break the list.
    let events = polish(&app, &login.token, idea).await;
    assert_eq!(code(events.last().unwrap()), 10000, "{events:?}");
    upsert(
        &op,
        json!({"id": "op.said", "term": "you said", "category": "test",
               "action": "refuse", "scenes": ["prompt"]}),
    )
    .await;
    let events = polish(&app, &login.token, idea).await;
    let last = events.last().unwrap();
    assert_eq!(code(last), 70020, "{events:?}");
    assert_eq!(last["status"]["key"], "taskPromptGenerateViolate");
    assert!(
        events.iter().all(|e| code(e) != 10000),
        "the prompt is not delivered: {events:?}"
    );
    let leaked: String = events
        .iter()
        .filter(|e| code(e) == 70005)
        .map(|e| e["data"]["prompt"].as_str().unwrap())
        .collect();
    assert!(!leaked.to_lowercase().contains("said"), "{leaked}");

    // The same entry masking: the fragments and the whole prompt are masked alike.
    upsert(
        &op,
        json!({"id": "op.said", "term": "you said", "category": "test",
               "action": "mask", "scenes": ["prompt"]}),
    )
    .await;
    let events = polish(&app, &login.token, idea).await;
    let (last, frags) = events.split_last().unwrap();
    assert_eq!(code(last), 10000, "{events:?}");
    assert!(frags.iter().all(|e| code(e) == 70005), "{events:?}");
    let joined: String = frags
        .iter()
        .map(|e| e["data"]["prompt"].as_str().unwrap())
        .collect();
    let whole = last["data"]["prompt"].as_str().unwrap();
    assert_eq!(joined, whole);
    assert!(whole.starts_with("*** ****: "), "{whole}");
    assert!(whole.contains(idea), "{whole}");
    assert!(frags.len() > 3, "still streamed: {}", frags.len());
}
