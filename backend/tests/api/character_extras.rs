//! The tavern's side calls through the real binary with the scripted model:
//! the model list, the weekly hot list, reports and who may see them, an
//! operator's unpublish (lists and new chats lose the character, existing
//! sessions go on, the owner cannot publish it again), the chat persona in
//! greetings and previews, the draft preview, and the avatar image prompts
//! with the shared model-call limit and an unavailable model.

use std::time::Duration;

use protocol::chat::{MessageState, MessageView};
use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

async fn app() -> TestApp {
    spawn_app_with(&[
        ("EASEL_LLM", "scripted"),
        ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "1"),
    ])
    .await
}

/// The error's code and HTTP status.
fn fails<T: std::fmt::Debug>(r: Result<T, ClientError>) -> (ErrorCode, u16) {
    let e = r.expect_err("expected an API error");
    let s = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    let code = ErrorCode::from_code(s.code).unwrap_or_else(|| panic!("unknown code {}", s.code));
    (code, e.http_status().unwrap())
}

async fn publish(c: &RestClient, name: &str, published: bool) -> String {
    let v: Value = c
        .post(
            "/api/v1/tavern-pro/publish",
            &json!({
                "name": name,
                "description": format!("{name}, the keeper of the light"),
                "greeting": "Hello {{user}}, I am {{char}}.",
                "persona": "{{char}} keeps a lighthouse and distrusts {{user}}.",
                "scenario": "A storm night at the lighthouse.",
                "tags": ["sea"],
                "published": published,
            }),
        )
        .await
        .unwrap();
    v["id"].as_str().unwrap().to_owned()
}

async fn new_session(c: &RestClient, character_id: &str) -> Result<String, ClientError> {
    let v: Value = c
        .post(
            "/api/v1/character/session/create",
            &json!({ "character_id": character_id }),
        )
        .await?;
    Ok(v["session_id"].as_str().unwrap().to_owned())
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

async fn hot(c: &RestClient, limit: u32) -> Vec<(String, u64)> {
    let v: Value = c
        .post(
            "/api/v1/character/chat/recommend_hot",
            &json!({ "limit": limit }),
        )
        .await
        .unwrap();
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["name"].as_str().unwrap().to_owned(),
                i["week_chats"].as_u64().unwrap(),
            )
        })
        .collect()
}

async fn report(
    c: &RestClient,
    character_id: &str,
    reason: &str,
    detail: &str,
) -> Result<bool, ClientError> {
    let v: Value = c
        .post(
            "/api/v1/report/ai-character",
            &json!({"character_id": character_id, "reason": reason, "detail": detail}),
        )
        .await?;
    Ok(v["updated"].as_bool().unwrap())
}

async fn reports(c: &RestClient, body: Value) -> Result<Value, ClientError> {
    c.post("/api/v1/admin/character/reports", &body).await
}

#[tokio::test]
async fn the_model_list_names_the_configured_model() {
    let app = app().await;
    let (_, ann) = app.user("Ann").await;
    for path in [
        "/api/v1/character/model_list",
        "/api/v1/tavern-pro/model-list/v2",
    ] {
        for c in [&app.client, &ann] {
            let v: Value = c.post(path, &json!({})).await.unwrap();
            assert_eq!(
                v["items"],
                json!([{
                    "name": "scripted",
                    "label": "Scripted test model (not a language model)",
                    "neural": false,
                    "context_tokens": 2048,
                    "default": true,
                }]),
                "{path}"
            );
        }
        let (status, _, body) = app.client.get_bytes(path).await.unwrap();
        assert_eq!(status, 200);
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["data"]["items"][0]["name"], "scripted");
    }
    // A bad token is NeedLogin, as everywhere.
    let bad = app.client.with_token("nope");
    let r = bad
        .post::<_, Value>("/api/v1/character/model_list", &json!({}))
        .await;
    assert_eq!(fails(r).0, ErrorCode::NeedLogin);
}

#[tokio::test]
async fn the_hot_list_ranks_this_weeks_chats_among_published_characters() {
    let app = app().await;
    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;
    let a = publish(&ann, "Alpha", true).await;
    let b = publish(&ann, "Beta", true).await;
    let _c = publish(&ann, "Gamma", true).await;
    let draft = publish(&ann, "Draft", false).await;
    assert!(hot(&app.client, 10).await.is_empty(), "no chats yet");

    for _ in 0..3 {
        new_session(&bob, &a).await.unwrap();
    }
    new_session(&ann, &b).await.unwrap();
    for _ in 0..5 {
        new_session(&ann, &draft).await.unwrap();
    }
    // Visitors may read it; drafts and unchatted characters are not listed.
    assert_eq!(
        hot(&app.client, 10).await,
        [("Alpha".to_owned(), 3), ("Beta".to_owned(), 1)]
    );
    assert_eq!(hot(&bob, 1).await, [("Alpha".to_owned(), 3)]);
    let v: Value = app
        .client
        .post("/api/v1/character/chat/recommend_hot", &json!({}))
        .await
        .unwrap();
    assert_eq!(v["items"][0]["chat_count"], 3);
    assert_eq!(v["items"][0]["owner"]["name"], "Ann");

    // A deleted character leaves the list.
    let _: Value = ann
        .post("/api/v1/tavern-pro/delete", &json!({ "id": a }))
        .await
        .unwrap();
    assert_eq!(hot(&app.client, 10).await, [("Beta".to_owned(), 1)]);
}

#[tokio::test]
async fn reports_are_one_per_reporter_checked_limited_and_for_operators_only() {
    let app = app().await;
    let (ann_data, ann) = app.user("Ann").await;
    let (bob_data, bob) = app.user("Bob").await;
    let (_, carl) = app.user("Carl").await;
    let op = app.operator().await;
    let mira = publish(&ann, "Mira", true).await;
    let other = publish(&ann, "Other", true).await;
    let draft = publish(&ann, "Secret", false).await;

    // Rules.
    let bad = |r| fails(r).0;
    assert_eq!(
        bad(report(&bob, &mira, "rude", "").await),
        ErrorCode::ReportReasonInvalid
    );
    assert_eq!(
        bad(report(&bob, &mira, "other", "  ").await),
        ErrorCode::ReportTextInvalid
    );
    assert_eq!(
        bad(report(&bob, &mira, "spam", &"x".repeat(501)).await),
        ErrorCode::ReportTextInvalid
    );
    assert_eq!(
        bad(report(&ann, &mira, "spam", "").await),
        ErrorCode::ReportSelf,
        "not one's own"
    );
    assert_eq!(
        bad(report(&bob, &draft, "spam", "").await),
        ErrorCode::NotFound
    );
    assert_eq!(
        bad(report(&bob, "missing", "spam", "").await),
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(report(&app.client, &mira, "spam", "").await),
        (ErrorCode::NeedLogin, 401)
    );

    // One open report per reporter (issue 20): a second one is refused.
    assert!(!report(&bob, &mira, "impersonation", &"é".repeat(500))
        .await
        .unwrap());
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(
        bad(report(&bob, &mira, "spam", "ads").await),
        ErrorCode::ReportDuplicate
    );
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(!report(&carl, &mira, "other", "creepy lines").await.unwrap());
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(!report(&carl, &other, "hate", "").await.unwrap());

    // Only operators list them.
    assert_eq!(
        fails(reports(&bob, json!({})).await),
        (ErrorCode::NoPermission, 403)
    );
    let all = reports(&op, json!({})).await.unwrap();
    let items = all["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{all}");
    assert_eq!(all["cursor"], Value::Null);
    let summary: Vec<(&str, &str, &str)> = items
        .iter()
        .map(|i| {
            (
                i["character"]["name"].as_str().unwrap(),
                i["reporter"]["name"].as_str().unwrap(),
                i["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("Other", "Carl", "hate"),
            ("Mira", "Carl", "other"),
            ("Mira", "Bob", "impersonation"),
        ]
    );
    let bobs = &items[2];
    assert_eq!(bobs["detail"], "é".repeat(500));
    assert_eq!(bobs["reporter"]["id"], bob_data.account.id.as_str());
    assert_eq!(
        bobs["character"]["owner"]["id"],
        ann_data.account.id.as_str()
    );
    assert_eq!(bobs["character"]["published"], true);
    assert_eq!(bobs["character"]["unpublished"], false);

    // Pages, and one character's reports.
    let p1 = reports(&op, json!({"limit": 2})).await.unwrap();
    assert_eq!(p1["items"].as_array().unwrap().len(), 2);
    let cursor = p1["cursor"].as_str().unwrap();
    let p2 = reports(&op, json!({"limit": 2, "cursor": cursor}))
        .await
        .unwrap();
    assert_eq!(p2["items"].as_array().unwrap().len(), 1);
    assert_eq!(p2["items"][0]["reporter"]["name"], "Bob");
    assert_eq!(p2["cursor"], Value::Null);
    let one = reports(&op, json!({"character_id": other})).await.unwrap();
    assert_eq!(one["items"].as_array().unwrap().len(), 1);
    assert_eq!(
        fails(reports(&op, json!({"cursor": "zz"})).await).0,
        ErrorCode::InvalidParams
    );

    // Reporters are rate-limited (30 attempts an hour, issue 20's
    // moderation limit; Carl has sent 2): repeats are refused as duplicates
    // and still count.
    for i in 0..28 {
        assert_eq!(
            fails(report(&carl, &mira, "spam", &format!("again {i}")).await).0,
            ErrorCode::ReportDuplicate
        );
    }
    assert_eq!(
        fails(report(&carl, &mira, "spam", "once more").await),
        (ErrorCode::TooManyRequests, 429)
    );
    assert!(
        report(&bob, &other, "spam", "").await.is_ok(),
        "per account"
    );
}

#[tokio::test]
async fn an_unpublished_character_leaves_lists_and_new_chats_but_sessions_go_on() {
    let app = app().await;
    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;
    let op = app.operator().await;
    let mira = publish(&ann, "Mira", true).await;
    let sid = new_session(&bob, &mira).await.unwrap();
    report(&bob, &mira, "violence", "threats").await.unwrap();

    let unpublish = |c: &RestClient, id: &str| {
        let c = c.clone();
        let id = id.to_owned();
        async move {
            c.post::<_, Value>(
                "/api/v1/admin/character/unpublish",
                &json!({"character_id": id, "reason": "threats in the greeting"}),
            )
            .await
        }
    };
    assert_eq!(
        fails(unpublish(&bob, &mira).await),
        (ErrorCode::NoPermission, 403)
    );
    assert_eq!(
        fails(unpublish(&op, "missing").await).0,
        ErrorCode::NotFound
    );
    let v = unpublish(&op, &mira).await.unwrap();
    assert_eq!(v["was_published"], true);
    let v = unpublish(&op, &mira).await.unwrap();
    assert_eq!(v["was_published"], false, "idempotent");

    // Gone for everyone else: detail, lists, recommend, hot, new sessions.
    let r = bob
        .post::<_, Value>("/api/v1/character/detail", &json!({"id": mira}))
        .await;
    assert_eq!(fails(r).0, ErrorCode::NotFound);
    for path in [
        "/api/v1/square/v3/character/list",
        "/api/v1/square/v3/character/recommend",
        "/api/v1/character/chat/recommend_hot",
    ] {
        let v: Value = app.client.post(path, &json!({})).await.unwrap();
        assert!(v["items"].as_array().unwrap().is_empty(), "{path}: {v}");
    }
    assert_eq!(fails(new_session(&bob, &mira).await).0, ErrorCode::NotFound);

    // Bob's session still chats.
    let v: Value = bob
        .post(
            "/api/v1/character/session/chat/start",
            &json!({"session_id": sid, "content": "still there?"}),
        )
        .await
        .unwrap();
    let msg_id = v["msg_id"].as_str().unwrap().to_owned();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let m = messages(&bob, &sid).await;
        let reply = m.iter().find(|m| m.msg_id == msg_id).unwrap();
        if reply.state == MessageState::Done {
            assert_eq!(reply.content, "You said: still there?");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }

    // The owner keeps a draft they can edit but not publish.
    let v: Value = ann.post("/api/v1/tavern-pro/my", &json!({})).await.unwrap();
    assert_eq!(v["items"][0]["published"], false);
    let edit = |published: bool| json!({"id": mira, "name": "Mira", "greeting": "Hi.", "published": published});
    let r = ann
        .post::<_, Value>("/api/v1/tavern-pro/publish", &edit(true))
        .await;
    assert_eq!(fails(r), (ErrorCode::NoPermission, 403));
    let _: Value = ann
        .post("/api/v1/tavern-pro/publish", &edit(false))
        .await
        .unwrap();
    new_session(&ann, &mira).await.unwrap();

    // The report list shows the decision.
    let v = reports(&op, json!({})).await.unwrap();
    assert_eq!(v["items"][0]["character"]["unpublished"], true);
    assert_eq!(v["items"][0]["character"]["published"], false);
}

#[tokio::test]
async fn the_chat_persona_is_stored_checked_and_used_for_user() {
    let app = app().await;
    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;
    let mira = publish(&ann, "Mira", true).await;
    let get = |c: &RestClient| {
        let c = c.clone();
        async move {
            c.post::<_, Value>("/api/v1/account/character/setting/get", &json!({}))
                .await
                .unwrap()
        }
    };
    let update = |c: &RestClient, body: Value| {
        let c = c.clone();
        async move {
            c.post::<_, Value>("/api/v1/account/character/setting/update", &body)
                .await
        }
    };
    assert_eq!(
        get(&bob).await,
        json!({"display_name": "", "persona": "", "user_name": "Bob"})
    );
    let sid = new_session(&bob, &mira).await.unwrap();
    assert_eq!(
        messages(&bob, &sid).await[0].content,
        "Hello Bob, I am Mira."
    );

    let v = update(&bob, json!({"display_name": "  Captain Reyes "}))
        .await
        .unwrap();
    assert_eq!(v["user_name"], "Captain Reyes");
    let v = update(
        &bob,
        json!({"persona": "A sea captain who owes {{char}} a favour."}),
    )
    .await
    .unwrap();
    assert_eq!(
        v,
        json!({
            "display_name": "Captain Reyes",
            "persona": "A sea captain who owes {{char}} a favour.",
            "user_name": "Captain Reyes",
        }),
        "the name was kept"
    );
    assert_eq!(get(&bob).await, v);
    assert_eq!(get(&ann).await["user_name"], "Ann", "per account");

    // New sessions greet the persona's name; old ones keep their greeting.
    let sid2 = new_session(&bob, &mira).await.unwrap();
    assert_eq!(
        messages(&bob, &sid2).await[0].content,
        "Hello Captain Reyes, I am Mira."
    );
    assert_eq!(
        messages(&bob, &sid).await[0].content,
        "Hello Bob, I am Mira."
    );

    // Rules: nothing is changed by a refused update.
    for body in [
        json!({"display_name": "x".repeat(65)}),
        json!({"display_name": "two\nlines"}),
        json!({"persona": "p".repeat(2001)}),
        json!({"display_name": "Fine", "persona": "p".repeat(2001)}),
    ] {
        assert_eq!(
            fails(update(&bob, body).await),
            (ErrorCode::InvalidParams, 400)
        );
    }
    assert_eq!(get(&bob).await["display_name"], "Captain Reyes");
    let r = app
        .client
        .post::<_, Value>("/api/v1/account/character/setting/get", &json!({}))
        .await;
    assert_eq!(fails(r).0, ErrorCode::NeedLogin);

    // Clearing the name goes back to the account name.
    let v = update(&bob, json!({"display_name": ""})).await.unwrap();
    assert_eq!(v["user_name"], "Bob");
    assert_eq!(v["persona"], "A sea captain who owes {{char}} a favour.");
}

#[tokio::test]
async fn the_preview_shows_a_draft_for_the_caller_without_saving_it() {
    let app = app().await;
    let (_, ann) = app.user("Ann").await;
    let _: Value = ann
        .post(
            "/api/v1/account/character/setting/update",
            &json!({"display_name": "Sam"}),
        )
        .await
        .unwrap();
    let draft = json!({
        "name": "Mira",
        "greeting": "Hello {{user}}, I am {{char}}.",
        "persona": "{{char}} keeps a lighthouse.",
        "scenario": "{{user}} knocks at night.",
        "example_dialogue": "<START>\n{{user}}: Hi?\n{{char}}: Who goes there?\n*raises the lamp*",
    });
    let v: Value = ann
        .post("/api/v1/tavern-pro/preview/list", &draft)
        .await
        .unwrap();
    assert_eq!(
        v["items"],
        json!([
            {"role": "system", "content": "Sam knocks at night.", "kind": "scenario"},
            {"role": "assistant", "content": "Hello Sam, I am Mira.", "kind": "greeting"},
            {"role": "user", "content": "Hi?", "kind": "example"},
            {"role": "assistant", "content": "Who goes there?\n*raises the lamp*", "kind": "example"},
        ])
    );
    // Nothing was saved.
    let mine: Value = ann.post("/api/v1/tavern-pro/my", &json!({})).await.unwrap();
    assert!(mine["items"].as_array().unwrap().is_empty());

    for bad in [
        json!({"name": " "}),
        json!({"name": "Mira", "greeting": "g".repeat(4001)}),
        json!({"name": "Mira", "scenario": "s".repeat(8001)}),
    ] {
        let r = ann
            .post::<_, Value>("/api/v1/tavern-pro/preview/list", &bad)
            .await;
        assert_eq!(fails(r), (ErrorCode::InvalidParams, 400));
    }
    let r = app
        .client
        .post::<_, Value>("/api/v1/tavern-pro/preview/list", &draft)
        .await;
    assert_eq!(fails(r).0, ErrorCode::NeedLogin);
}

async fn image_prompts(c: &RestClient, id: &str) -> Result<Vec<String>, ClientError> {
    let v: Value = c
        .post(
            "/api/v1/character/agent/recommend_promot",
            &json!({ "character_id": id }),
        )
        .await?;
    Ok(serde_json::from_value(v["items"].clone()).unwrap())
}

#[tokio::test]
async fn image_prompts_come_from_the_model_within_the_chat_limit() {
    let app = app().await;
    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;
    let mira = publish(&ann, "Mira", true).await;
    let draft = publish(&ann, "Secret", false).await;

    // The scripted model echoes what it was given, one prompt per line: the
    // character's fields, macros replaced.
    let items = image_prompts(&bob, &mira).await.unwrap();
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(items[0], "You said: Name: Mira");
    assert_eq!(items[1], "Description: Mira, the keeper of the light");
    assert_eq!(
        items[2],
        "Persona: Mira keeps a lighthouse and distrusts Bob."
    );
    assert_eq!(image_prompts(&ann, &draft).await.unwrap().len(), 3);
    assert_eq!(
        fails(image_prompts(&bob, &draft).await).0,
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(image_prompts(&bob, "missing").await).0,
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(image_prompts(&app.client, &mira).await).0,
        ErrorCode::NeedLogin
    );

    // The per-account model-call limit is the chat's (30 a minute): Bob has
    // made 1 call; 29 more pass, then image prompts and chat are refused.
    for _ in 0..29 {
        image_prompts(&bob, &mira).await.unwrap();
    }
    assert_eq!(
        fails(image_prompts(&bob, &mira).await),
        (ErrorCode::TooManyRequests, 429)
    );
    let sid = new_session(&bob, &mira).await.unwrap();
    let r = bob
        .post::<_, Value>(
            "/api/v1/character/session/chat/start",
            &json!({"session_id": sid, "content": "hi"}),
        )
        .await;
    assert_eq!(fails(r).0, ErrorCode::TooManyRequests);
    assert!(image_prompts(&ann, &mira).await.is_ok(), "per account");
}

#[tokio::test]
async fn image_prompts_without_a_model_are_language_model_unavailable() {
    let app = spawn_app_with(&[
        ("EASEL_LLM", "local"),
        ("EASEL_LLM_MODEL_PATH", "/nonexistent/model.gguf"),
    ])
    .await;
    let (_, ann) = app.user("Ann").await;
    let mira = publish(&ann, "Mira", true).await;
    assert_eq!(
        fails(image_prompts(&ann, &mira).await),
        (ErrorCode::LanguageModelUnavailable, 503)
    );
    let v: Value = ann
        .post("/api/v1/character/model_list", &json!({}))
        .await
        .unwrap();
    assert_eq!(v["items"][0]["default"], true);
}
