//! The text filter through the real binary: `tool/text/detection` and
//! `tool/text/batch-filter`, the operators' list calls (refused to plain
//! users, validated, kept across a restart), and every scene's write path:
//! one text refused with its key and nothing stored, one text stored masked.

use protocol::client::{ClientError, RestClient};
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};
use crate::polish::Sse;

async fn app() -> TestApp {
    spawn_app_with(&[
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000"),
        ("EASEL_COMMENTS_PER_MIN", "1000"),
    ])
    .await
}

/// The error's code and key.
fn refused<T: std::fmt::Debug>(r: Result<T, ClientError>) -> (i32, String) {
    let e = r.expect_err("expected a refusal");
    let s = e.status().expect("an API error");
    (s.code, s.key.clone().unwrap_or_default())
}

const TEXT_REFUSED: (i32, &str) = (40170, "textViolatesRules");

fn is_text_refusal<T: std::fmt::Debug>(r: Result<T, ClientError>) {
    let (code, key) = refused(r);
    assert_eq!((code, key.as_str()), TEXT_REFUSED);
}

async fn detect(c: &RestClient, text: &str, scene: Option<&str>) -> Result<Value, ClientError> {
    let mut body = json!({ "text": text });
    if let Some(s) = scene {
        body["scene"] = json!(s);
    }
    c.post("/api/v1/tool/text/detection", &body).await
}

#[tokio::test]
async fn detection_and_batch_filter_answer_hits_masks_and_refusals() {
    let app = app().await;
    let (_, c) = app.user("Dana").await;

    let v = detect(&c, "héllo f.u.c.k you", Some("comment"))
        .await
        .unwrap();
    assert_eq!(v["masked"], "héllo ******* you");
    assert_eq!(v["refused"], false);
    assert_eq!(v["hit"], true);
    assert_eq!(v["scene"], "comment");
    assert_eq!(v["hits"][0]["start"], 6);
    assert_eq!(v["hits"][0]["end"], 13);
    assert_eq!(v["hits"][0]["category"], "profanity");
    assert_eq!(v["hits"][0]["action"], "mask");
    assert!(
        v["hits"][0].get("entry").is_none(),
        "entry ids stay server-side"
    );

    // No scene: a prompt. Profanity is not filtered in prompts; refusals are.
    let v = detect(&c, "fuck", None).await.unwrap();
    assert_eq!(
        (v["scene"].as_str(), v["hit"].as_bool()),
        (Some("prompt"), Some(false))
    );
    let v = detect(&c, "L0L1C0N art", None).await.unwrap();
    assert_eq!(v["refused"], true);
    assert_eq!(v["hits"][0]["category"], "sexual_minors");

    let (code, key) = refused(detect(&c, "x", Some("sonnet")).await);
    assert_eq!((code, key.as_str()), (40173, "textSceneInvalid"));
    let (code, _) = refused(
        app.client
            .post::<_, Value>("/api/v1/tool/text/detection", &json!({"text": "x"}))
            .await,
    );
    assert_eq!(code, 20000, "visitors log in first");
    let (code, _) = refused(
        c.post::<_, Value>("/api/v1/tool/text/detection", &json!({"txt": 1}))
            .await,
    );
    assert_eq!(code, 40000);

    let v: Value = c
        .post(
            "/api/v1/tool/text/batch-filter",
            &json!({"list": ["A quiet sunset", "Holy sh1t", "jailbait"], "scene": "title_description"}),
        )
        .await
        .unwrap();
    assert_eq!(v["scene"], "title");
    let items = v["list"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(
        (items[0]["masked"].as_str(), items[0]["hit"].as_bool()),
        (Some("A quiet sunset"), Some(false))
    );
    assert_eq!(items[1]["masked"], "Holy ****");
    assert_eq!(items[1]["refused"], false);
    assert_eq!(items[1]["categories"], json!(["profanity"]));
    assert_eq!(items[2]["refused"], true);

    let too_many: Vec<String> = (0..101).map(|i| format!("t{i}")).collect();
    let (code, _) = refused(
        c.post::<_, Value>("/api/v1/tool/text/batch-filter", &json!({"list": too_many}))
            .await,
    );
    assert_eq!(code, 40000);
}

#[tokio::test]
async fn operators_edit_the_list_and_it_survives_a_restart() {
    let mut app = app().await;
    let (_, user) = app.user("Plain").await;
    let op = app.operator().await;

    // Every operator call refuses a plain user and changes nothing.
    for (path, body) in [
        ("/api/v1/admin/text-filter/list", json!({})),
        (
            "/api/v1/admin/text-filter/upsert",
            json!({"id": "op.grape", "term": "grape", "action": "refuse"}),
        ),
        (
            "/api/v1/admin/text-filter/delete",
            json!({"id": "default.en.shit"}),
        ),
        (
            "/api/v1/admin/text-filter/restore",
            json!({"id": "default.en.shit"}),
        ),
    ] {
        let (code, _) = refused(user.post::<_, Value>(path, &body).await);
        assert_eq!(code, 40300, "{path}");
    }
    assert_eq!(
        detect(&user, "shit", Some("comment")).await.unwrap()["masked"],
        "****"
    );

    let list: Value = op
        .post("/api/v1/admin/text-filter/list", &json!({}))
        .await
        .unwrap();
    let entries = list["list"].as_array().unwrap();
    assert!(entries
        .iter()
        .any(|e| e["id"] == "default.zh.shabi" && e["source"] == "default"));

    // A new refusing entry for comments, caught through evasion.
    let v: Value = op
        .post(
            "/api/v1/admin/text-filter/upsert",
            &json!({"id": "op.grape", "term": "grape", "lang": "en", "category": "fruit",
                    "action": "refuse", "scenes": ["comment"]}),
        )
        .await
        .unwrap();
    assert_eq!(v["source"], "operator");
    assert_eq!(
        detect(&user, "g r a p e", Some("comment")).await.unwrap()["refused"],
        true
    );
    assert_eq!(
        detect(&user, "grape", Some("title")).await.unwrap()["hit"],
        false
    );
    assert_eq!(
        detect(&user, "grapefruit", Some("comment")).await.unwrap()["hit"],
        false
    );

    // Bad entries answer their key and change nothing.
    for bad in [
        json!({"id": "op.bad", "term": "(", "kind": "pattern", "action": "mask"}),
        json!({"id": "Op Bad", "term": "x", "action": "mask"}),
        json!({"id": "op.bad", "term": "  ", "action": "mask"}),
    ] {
        let (code, key) = refused(
            op.post::<_, Value>("/api/v1/admin/text-filter/upsert", &bad)
                .await,
        );
        assert_eq!(
            (code, key.as_str()),
            (40172, "textFilterEntryInvalid"),
            "{bad}"
        );
    }
    let (code, _) = refused(
        op.post::<_, Value>("/api/v1/admin/text-filter/upsert", &json!({"id": "x"}))
            .await,
    );
    assert_eq!(code, 40000);

    // Deleting a default entry; unknown ids are NotFound.
    let _: Value = op
        .post(
            "/api/v1/admin/text-filter/delete",
            &json!({"id": "default.en.shit"}),
        )
        .await
        .unwrap();
    assert_eq!(
        detect(&user, "shit", Some("comment")).await.unwrap()["hit"],
        false
    );
    let (code, _) = refused(
        op.post::<_, Value>(
            "/api/v1/admin/text-filter/delete",
            &json!({"id": "default.en.shit"}),
        )
        .await,
    );
    assert_eq!(code, 40400);
    let (code, _) = refused(
        op.post::<_, Value>(
            "/api/v1/admin/text-filter/delete",
            &json!({"id": "op.never"}),
        )
        .await,
    );
    assert_eq!(code, 40400);

    // Both changes are in the Store: a restarted server has them.
    let email = user_email(&user).await;
    app.kill_and_restart();
    let user = app
        .client
        .login(&email, crate::helpers::PASSWORD)
        .await
        .unwrap();
    let user = app.client.with_token(&user.token);
    assert_eq!(
        detect(&user, "shit", Some("comment")).await.unwrap()["hit"],
        false
    );
    assert_eq!(
        detect(&user, "a grape", Some("comment")).await.unwrap()["refused"],
        true
    );
    let op = app
        .client
        .login(crate::helpers::ADMIN_EMAIL, crate::helpers::PASSWORD)
        .await
        .unwrap();
    let op = app.client.with_token(&op.token);
    let list: Value = op
        .post("/api/v1/admin/text-filter/list", &json!({}))
        .await
        .unwrap();
    assert_eq!(list["deleted_defaults"], json!(["default.en.shit"]));

    // Restored to the shipped form; the operator's entry deleted.
    let _: Value = op
        .post(
            "/api/v1/admin/text-filter/restore",
            &json!({"id": "default.en.shit"}),
        )
        .await
        .unwrap();
    let _: Value = op
        .post(
            "/api/v1/admin/text-filter/delete",
            &json!({"id": "op.grape"}),
        )
        .await
        .unwrap();
    assert_eq!(
        detect(&user, "shit", Some("comment")).await.unwrap()["masked"],
        "****"
    );
    assert_eq!(
        detect(&user, "a grape", Some("comment")).await.unwrap()["hit"],
        false
    );
}

async fn user_email(c: &RestClient) -> String {
    c.info().await.unwrap().email
}

#[tokio::test]
async fn every_scene_masks_or_refuses_what_users_write() {
    let app = app().await;

    // name: the nickname at sign-up.
    let refused_signup = app
        .client
        .sign_up(
            "loli-fan@example.com",
            crate::helpers::PASSWORD,
            "lolicon fan",
        )
        .await;
    is_text_refusal(refused_signup);
    assert!(
        app.client
            .login("loli-fan@example.com", crate::helpers::PASSWORD)
            .await
            .is_err(),
        "no account was made"
    );
    let (login, c) = app.user("Sh1tLord").await;
    assert_eq!(login.account.name, "****Lord");

    // name: a channel's name; message: what is said in it.
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/im/channel/create",
            &json!({"name": "jailbait club"}),
        )
        .await,
    );
    let ch: Value = c
        .post(
            "/api/v1/im/channel/create",
            &json!({"name": "f.u.c.k club"}),
        )
        .await
        .unwrap();
    let id = ch["channel_id"].as_str().unwrap();
    let info: Value = c
        .post("/api/v1/im/channel/info", &json!({"channel_id": id}))
        .await
        .unwrap();
    assert!(info.to_string().contains("******* club"), "{info}");
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/im/message/send",
            &json!({"channel_id": id, "content": "child-porn links"}),
        )
        .await,
    );
    let _: Value = c
        .post(
            "/api/v1/im/message/send",
            &json!({"channel_id": id, "content": "sh!t happens"}),
        )
        .await
        .unwrap();
    let h: Value = c
        .post("/api/v1/im/history", &json!({"channel_id": id}))
        .await
        .unwrap();
    let items = h["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "the refused message was not stored: {h}");
    assert!(
        items[0]["content"].to_string().contains("**** happens"),
        "{h}"
    );

    // title and description: an article.
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/post/article/add",
            &json!({"title": "csam", "content": "text", "visibility": "public"}),
        )
        .await,
    );
    let w: Value = c
        .post(
            "/api/v1/post/article/add",
            &json!({"title": "Holy sh1t", "content": "what a fuuuck day", "tags": ["ok"], "visibility": "public"}),
        )
        .await
        .unwrap();
    let d: Value = c
        .post("/api/v1/post/detail", &json!({"id": w["id"]}))
        .await
        .unwrap();
    assert_eq!(d["title"], "Holy ****");
    assert!(d.to_string().contains("what a ****** day"), "{d}");
    // The content check answers refusals too.
    is_text_refusal(
        c.post::<_, Value>(
            "/api/v1/post/content/check",
            &json!({"title": "pedophilia"}),
        )
        .await,
    );

    // character: its texts.
    let mut ch =
        json!({"name": "Lolicon", "greeting": "Hi", "gender": "female", "character_type": 1});
    is_text_refusal(c.post::<_, Value>("/api/v1/tavern-pro/publish", &ch).await);
    ch["name"] = json!("Ada");
    ch["description"] = json!("she says f u c k a lot");
    let v: Value = c.post("/api/v1/tavern-pro/publish", &ch).await.unwrap();
    let cid = v["id"].as_str().unwrap().to_owned();
    let d: Value = c
        .post("/api/v1/character/detail", &json!({"id": cid}))
        .await
        .unwrap();
    assert!(d.to_string().contains("she says * * * * a lot"), "{d}");

    // comment: on that character.
    let (_, other) = app.user("Commenter").await;
    is_text_refusal(
        other
            .post::<_, Value>(
                "/api/v1/comment2/create",
                &json!({"obj_id": cid, "obj_type": 9, "content": "ｌｏｌｉ pics?"}),
            )
            .await,
    );
    let _: Value = other
        .post(
            "/api/v1/comment2/create",
            &json!({"obj_id": cid, "obj_type": 9, "content": "you are an a55hole"}),
        )
        .await
        .unwrap();
    let list: Value = other
        .post(
            "/api/v1/comment2/list",
            &json!({"obj_id": cid, "obj_type": 9}),
        )
        .await
        .unwrap();
    let text = list.to_string();
    assert!(text.contains("you are an *******"), "{list}");
    assert!(
        !text.contains("pics?"),
        "the refused comment was not stored"
    );

    // name and description: a voice.
    let voice = json!({"name": "Jailbait voice", "description": "calm", "gender": "male",
                       "age": "senior", "language": "fr", "intonation": "calm", "is_public": true});
    is_text_refusal(c.post::<_, Value>("/api/v1/timbre/edit", &voice).await);
    let mut voice = voice;
    voice["name"] = json!("Narrator");
    voice["description"] = json!("calm, no bullsh1t");
    let v: Value = c.post("/api/v1/timbre/edit", &voice).await.unwrap();
    assert_eq!(v["name"], "Narrator");
    assert!(v.to_string().contains("calm, no bull****"), "{v}");

    // prompt: task create answers its own key; polish answers 70020.
    let sd = crate::tasks::checkpoint(&c, "sd").await;
    let (code, key) = refused(c.post::<_, Value>(
        "/api/v1/task/v2/text-to-img",
        &json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "sh0tac0n, a park", "width": 512, "height": 512}}),
    ).await);
    assert_eq!((code, key.as_str()), (40171, "taskPromptViolate"));
    // The polish co-occurrence rule, seen through evasions, refuses tasks too.
    let (code, _) = refused(c.post::<_, Value>(
        "/api/v1/task/v2/text-to-img",
        &json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "a ｎｕｄｅ k1d", "width": 512, "height": 512}}),
    ).await);
    assert_eq!(code, 40171);
    let events = Sse::get(
        &app,
        "/api/v1/task/prompt-render",
        &[("prompt", "l.o.l.i, beach")],
        Some(&login_token(&c)),
    )
    .await
    .all()
    .await;
    assert_eq!(
        events.last().unwrap()["status"]["code"],
        70020,
        "{events:?}"
    );
    assert_eq!(
        events.last().unwrap()["status"]["key"],
        "taskPromptGenerateViolate"
    );

    // prompt, masked: an operator's masking entry for prompts.
    let op = app.operator().await;
    let _: Value = op
        .post(
            "/api/v1/admin/text-filter/upsert",
            &json!({"id": "op.brand", "term": "acme", "category": "trademark", "action": "mask", "scenes": ["prompt"]}),
        )
        .await
        .unwrap();
    let task: Value = c
        .post(
            "/api/v1/task/v2/text-to-img",
            &json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "an ACME rocket", "width": 512, "height": 512}}),
        )
        .await
        .unwrap();
    let t = c
        .batch_progress(&[task["id"].as_str().unwrap().to_owned()])
        .await
        .unwrap();
    assert_eq!(t[0].prompt, "an **** rocket");
}

fn login_token(c: &RestClient) -> String {
    c.token().unwrap().to_owned()
}
