//! Characters, datacards and character cards through the real binary:
//! publish, edit, detail, delete and who may do what; drafts hidden from
//! others; validation messages and HTTP statuses; the square lists with
//! their filters, orders and cursors; datacard CRUD and ownership; V2 card
//! import (JSON and PNG), export (PNG and JSON) and the round trip; bad and
//! oversize card files.

use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};
use crate::tasks::test_png;

/// A valid publish body; `extra` overrides fields.
fn body(name: &str, extra: Value) -> Value {
    let mut b = json!({
        "name": name,
        "description": format!("{name} in short"),
        "persona": format!("{name} is curious and kind."),
        "scenario": "A quiet library.",
        "greeting": format!("Hello, I am {name}."),
        "alternate_greetings": ["Welcome back."],
        "example_dialogue": "<START>\n{{user}}: Hi\n{{char}}: Hello.",
        "system_prompt": "",
        "post_history_instructions": "",
        "creator_notes": "notes",
        "tags": ["books"],
        "gender": "female",
        "character_type": 1,
    });
    if let (Some(b), Some(e)) = (b.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    b
}

async fn publish(c: &RestClient, b: &Value) -> Result<String, ClientError> {
    let v: Value = c.post("/api/v1/tavern-pro/publish", b).await?;
    Ok(v["id"].as_str().unwrap().to_owned())
}

async fn detail(c: &RestClient, id: &str) -> Result<Value, ClientError> {
    c.post("/api/v1/character/detail", &json!({ "id": id }))
        .await
}

/// The error's code and HTTP status.
fn fails(r: Result<impl std::fmt::Debug, ClientError>) -> (ErrorCode, u16, String) {
    let e = r.expect_err("expected an API error");
    let s = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    let code = ErrorCode::from_code(s.code).unwrap_or_else(|| panic!("unknown code {}", s.code));
    (code, e.http_status().unwrap(), s.msg.clone())
}

#[tokio::test]
async fn publish_detail_edit_delete_and_who_may() {
    let app = spawn_app().await;
    let (alice_data, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let visitor = app.client.clone();

    let avatar = alice
        .upload(&test_png(64, 64), "ada.png", "image/png")
        .await
        .unwrap();
    let id = publish(
        &alice,
        &body(
            "Ada",
            json!({"avatar": avatar, "settings": {"temperature": 1.1, "top_p": 0.8, "max_reply_tokens": 200}}),
        ),
    )
    .await
    .unwrap();

    let d = detail(&alice, &id).await.unwrap();
    assert_eq!(d["name"], "Ada");
    assert_eq!(d["persona"], "Ada is curious and kind.");
    assert_eq!(d["greeting"], "Hello, I am Ada.");
    assert_eq!(d["gender"], "female");
    assert_eq!(d["character_type"], 1);
    assert_eq!(d["published"], true);
    assert_eq!(d["is_owner"], true);
    assert_eq!(d["owner"]["id"], alice_data.account.id.as_str());
    assert_eq!(d["owner"]["name"], "Alice");
    assert_eq!(d["settings"]["max_reply_tokens"], 200);
    assert_eq!(d["chat_count"], 0);
    let stored_avatar = d["avatar"].as_str().unwrap().to_owned();
    assert!(stored_avatar.starts_with("/files/"), "{stored_avatar}");
    let (status, ct, _) = visitor.get_bytes(&stored_avatar).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "image/png"));
    let publish_at = d["publish_at"].as_i64().unwrap();
    assert!(publish_at > 0);

    // Visitors and other users read published characters.
    let v = detail(&visitor, &id).await.unwrap();
    assert_eq!(v["is_owner"], false);
    let v: Value = bob
        .post("/api/v1/tavern-pro/detail", &json!({ "id": id }))
        .await
        .unwrap();
    assert_eq!(v["name"], "Ada");

    // Only the owner edits; the others are told NoPermission (it is public).
    let mut edit = body(
        "Ada Lovelace",
        json!({ "id": id, "tags": ["math", "history"] }),
    );
    assert_eq!(fails(publish(&bob, &edit).await).0, ErrorCode::NoPermission);
    assert_eq!(fails(publish(&bob, &edit).await).1, 403);
    assert_eq!(publish(&alice, &edit).await.unwrap(), id);
    let d = detail(&bob, &id).await.unwrap();
    assert_eq!(d["name"], "Ada Lovelace");
    assert_eq!(d["tags"], json!(["math", "history"]));
    assert_eq!(d["avatar"], "", "the edit sent no avatar");
    assert_eq!(
        d["publish_at"].as_i64().unwrap(),
        publish_at,
        "edits keep the date"
    );
    assert!(d["update_at"].as_i64().unwrap() >= publish_at);

    // Unpublishing makes it a draft: gone for everyone else.
    edit["published"] = json!(false);
    publish(&alice, &edit).await.unwrap();
    assert_eq!(fails(detail(&bob, &id).await).0, ErrorCode::NotFound);
    assert_eq!(fails(detail(&visitor, &id).await).1, 404);
    assert_eq!(
        fails(publish(&bob, &edit).await).0,
        ErrorCode::NotFound,
        "someone else's draft is not revealed"
    );
    assert_eq!(detail(&alice, &id).await.unwrap()["published"], false);

    // A draft from the start, and `my` lists drafts for their owner only.
    let draft = publish(&alice, &body("Draft", json!({"published": false})))
        .await
        .unwrap();
    assert_eq!(detail(&alice, &draft).await.unwrap()["publish_at"], 0);
    let mine: Value = alice
        .post("/api/v1/tavern-pro/my", &json!({}))
        .await
        .unwrap();
    let items = mine["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["id"], draft.as_str(), "newest first");
    assert_eq!(items[0]["published"], false);
    let bobs: Value = bob.post("/api/v1/tavern-pro/my", &json!({})).await.unwrap();
    assert_eq!(bobs["items"], json!([]));

    // Delete: owner only; afterwards nothing finds it.
    assert_eq!(
        fails(
            bob.post::<_, Value>("/api/v1/tavern-pro/delete", &json!({ "id": draft }))
                .await
        )
        .0,
        ErrorCode::NotFound
    );
    let _: Value = alice
        .post("/api/v1/tavern-pro/delete", &json!({ "id": draft }))
        .await
        .unwrap();
    assert_eq!(fails(detail(&alice, &draft).await).0, ErrorCode::NotFound);
    let mine: Value = alice
        .post("/api/v1/tavern-pro/my", &json!({}))
        .await
        .unwrap();
    assert_eq!(mine["items"].as_array().unwrap().len(), 1);
    assert_eq!(
        fails(detail(&alice, "no-such-character").await).0,
        ErrorCode::NotFound
    );

    // Publishing needs a login.
    let (code, http, _) = fails(publish(&visitor, &body("Nobody", json!({}))).await);
    assert_eq!((code, http), (ErrorCode::NeedLogin, 401));
}

#[tokio::test]
async fn validation_answers_invalid_params_with_a_reason() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let bobs_upload = bob
        .upload(&test_png(32, 32), "b.png", "image/png")
        .await
        .unwrap();
    let cases = [
        (json!({"name": "  "}), "name"),
        (json!({"name": "n".repeat(65)}), "name"),
        (json!({"greeting": ""}), "greeting"),
        (json!({"greeting": "g".repeat(4001)}), "greeting"),
        (json!({"persona": "p".repeat(8001)}), "persona"),
        (
            json!({"tags": (0..11).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
            "tags",
        ),
        (json!({"tags": ["x".repeat(25)]}), "tags"),
        (json!({"character_type": 3}), "character_type"),
        (
            json!({"settings": {"temperature": 5.0, "top_p": 0.5, "max_reply_tokens": 100}}),
            "temperature",
        ),
        (
            json!({"avatar": "https://elsewhere.example/a.png"}),
            "avatar",
        ),
        (json!({"avatar": "/files/u/none/missing.png"}), "avatar"),
        (json!({"avatar": "javascript:alert(1)"}), "avatar"),
        (json!({"gender": "robot"}), "robot"),
    ];
    for (extra, word) in cases {
        let (code, http, msg) = fails(publish(&alice, &body("Ada", extra.clone())).await);
        assert_eq!((code, http), (ErrorCode::InvalidParams, 400), "{extra}");
        assert!(msg.contains(word), "{extra}: {msg}");
    }
    // An upload of this server is a fine avatar, whoever uploaded it (URLs
    // of uploads are shared freely; any host, path /files/...).
    let full = format!(
        "http://some.proxy.example{}",
        &bobs_upload[bobs_upload.find("/files/").unwrap()..]
    );
    let id = publish(&alice, &body("Ada", json!({ "avatar": full })))
        .await
        .unwrap();
    let d = detail(&alice, &id).await.unwrap();
    assert!(d["avatar"].as_str().unwrap().starts_with("/files/u/"));
    // Limits themselves pass.
    publish(
        &alice,
        &body(
            &"é".repeat(64),
            json!({"persona": "p".repeat(8000), "greeting": "g".repeat(4000),
                   "tags": (0..10).map(|i| format!("{i}").repeat(24)).collect::<Vec<_>>()}),
        ),
    )
    .await
    .unwrap();
}

/// Publishes characters and returns their ids, oldest first.
async fn seed(c: &RestClient) -> Vec<String> {
    let specs = [
        ("Knight", "male", 1, vec!["fantasy", "sword"]),
        ("Witch", "female", 1, vec!["fantasy", "magic"]),
        ("Calculator", "other", 2, vec!["math"]),
        ("Pilot", "non_binary", 1, vec!["space"]),
        ("Translator", "female", 2, vec!["language"]),
    ];
    let mut ids = Vec::new();
    for (name, gender, kind, tags) in specs {
        ids.push(
            publish(
                c,
                &body(
                    name,
                    json!({"gender": gender, "character_type": kind, "tags": tags,
                           "description": format!("About the {name}")}),
                ),
            )
            .await
            .unwrap(),
        );
        // Distinct publish times, so "newest first" is well defined.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    ids
}

async fn list(c: &RestClient, path: &str, b: Value) -> Value {
    c.post(path, &b).await.unwrap()
}

fn names(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn square_lists_filter_order_and_page() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    let visitor = app.client.clone();
    seed(&alice).await;
    publish(
        &alice,
        &body(
            "Hidden Draft",
            json!({"published": false, "tags": ["fantasy"]}),
        ),
    )
    .await
    .unwrap();

    for path in [
        "/api/v1/square/v3/character/list",
        "/api/v1/square/character/list",
    ] {
        let all = list(&visitor, path, json!({})).await;
        assert_eq!(
            names(&all),
            ["Translator", "Pilot", "Calculator", "Witch", "Knight"],
            "newest first, drafts never listed"
        );
        assert_eq!(all["cursor"], Value::Null);
        let card = &all["items"][0];
        assert_eq!(card["owner"]["name"], "Alice");
        assert_eq!(card["gender"], "female");
        assert_eq!(card["character_type"], 2);
        assert!(card.get("persona").is_none(), "cards are short");
        // Also a square content card, with the feeds' cursor field.
        assert_eq!(all["next_cursor"], Value::Null);
        assert_eq!(
            (card["obj_type"].as_i64(), card["author"]["name"].as_str()),
            (Some(9), Some("Alice"))
        );
        assert_eq!(card["cover"]["url"], card["avatar"]);
    }
    let p = "/api/v1/square/v3/character/list";
    assert_eq!(
        names(&list(&visitor, p, json!({"genders": ["female"]})).await),
        ["Translator", "Witch"]
    );
    assert_eq!(
        names(&list(&visitor, p, json!({"genders": ["male", "non_binary"]})).await),
        ["Pilot", "Knight"]
    );
    assert_eq!(
        names(&list(&visitor, p, json!({"character_type": 2})).await),
        ["Translator", "Calculator"]
    );
    assert_eq!(
        names(&list(&visitor, p, json!({"character_type": 0})).await).len(),
        5
    );
    assert_eq!(
        names(&list(&visitor, p, json!({"keyword": "FANTASY"})).await),
        ["Witch", "Knight"],
        "tags match, case-insensitively; the draft does not"
    );
    assert_eq!(
        names(&list(&visitor, p, json!({"keyword": "pil"})).await),
        ["Pilot"]
    );
    assert_eq!(
        names(&list(&visitor, p, json!({"keyword": "about the calc"})).await),
        ["Calculator"],
        "descriptions match"
    );
    assert_eq!(
        names(
            &list(
                &visitor,
                p,
                json!({"keyword": "a", "genders": ["female"], "character_type": 1})
            )
            .await
        ),
        ["Witch"]
    );

    // Pages of 2 with the cursor: every item once, in order.
    for order in ["new", "hot"] {
        let mut seen = Vec::new();
        let mut cursor = Value::Null;
        for _ in 0..10 {
            let page = list(
                &visitor,
                p,
                json!({"order_by": order, "limit": 2, "cursor": cursor}),
            )
            .await;
            assert!(page["items"].as_array().unwrap().len() <= 2);
            seen.extend(names(&page));
            cursor = page["cursor"].clone();
            if cursor.is_null() {
                break;
            }
        }
        // No chats yet: hot ties are broken newest first.
        assert_eq!(
            seen,
            ["Translator", "Pilot", "Calculator", "Witch", "Knight"],
            "{order}"
        );
    }
    let (code, http, _) = fails(
        visitor
            .post::<_, Value>(p, &json!({"cursor": "zz-not-a-cursor"}))
            .await,
    );
    assert_eq!((code, http), (ErrorCode::InvalidParams, 400));
    let (code, _, _) = fails(
        visitor
            .post::<_, Value>(p, &json!({"character_type": 7}))
            .await,
    );
    assert_eq!(code, ErrorCode::InvalidParams);

    for path in [
        "/api/v1/square/v3/character/recommend",
        "/api/v1/square/character/recommend",
    ] {
        let r = list(&visitor, path, json!({"limit": 3})).await;
        assert_eq!(names(&r).len(), 3);
    }

    // Nothing chatted yet: latest is empty; removing an unknown entry is NotFound.
    let latest: Value = alice
        .post("/api/v1/character/latest", &json!({"limit": 10}))
        .await
        .unwrap();
    assert_eq!(latest["items"], json!([]));
    assert_eq!(
        fails(
            alice
                .post::<_, Value>("/api/v1/tavern-pro/recently/remove", &json!({"id": "x"}))
                .await
        )
        .0,
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(
            visitor
                .post::<_, Value>("/api/v1/character/latest", &json!({}))
                .await
        )
        .0,
        ErrorCode::NeedLogin
    );

    // Settings, config and presets.
    let d: Value = visitor
        .post("/api/v1/character/default_setting", &json!({}))
        .await
        .unwrap();
    assert!(d["temperature"].as_f64().unwrap() > 0.0);
    assert!(d["model"]["name"].is_string());
    let c: Value = visitor
        .post("/api/v1/tavern-pro/config", &json!({}))
        .await
        .unwrap();
    assert_eq!(c["limits"]["name"], 64);
    assert_eq!(
        c["genders"],
        json!(["male", "female", "non_binary", "other"])
    );
    assert_eq!(c["character_types"][1]["value"], 2);
    let presets: Value = visitor
        .post("/api/v1/tavern-pro/preset/list", &json!({}))
        .await
        .unwrap();
    let first = &presets["items"][0];
    // A preset is a valid starting point: publishing it as is works.
    publish(
        &alice,
        &json!({"name": first["title"], "persona": first["persona"],
                "greeting": first["greeting"], "scenario": first["scenario"]}),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn datacards_are_their_owners() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let created: Value = alice
        .post(
            "/api/v1/datacard/create",
            &json!({"title": " World ", "content": "Magic is rare."}),
        )
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let d: Value = alice
        .post("/api/v1/datacard/detail", &json!({ "id": id }))
        .await
        .unwrap();
    assert_eq!(
        (d["title"].as_str(), d["content"].as_str()),
        (Some("World"), Some("Magic is rare."))
    );
    let second: Value = alice
        .post(
            "/api/v1/datacard/create",
            &json!({"title": "Me", "content": ""}),
        )
        .await
        .unwrap();

    for path in ["/api/v1/datacard/detail", "/api/v1/datacard/delete"] {
        let (code, http, _) = fails(bob.post::<_, Value>(path, &json!({ "id": id })).await);
        assert_eq!((code, http), (ErrorCode::NotFound, 404), "{path}");
    }
    assert_eq!(
        fails(
            bob.post::<_, Value>(
                "/api/v1/datacard/edit",
                &json!({"id": id, "title": "Mine now", "content": ""})
            )
            .await
        )
        .0,
        ErrorCode::NotFound
    );
    let bobs: Value = bob.post("/api/v1/datacard/my", &json!({})).await.unwrap();
    assert_eq!(bobs["items"], json!([]));

    let edited: Value = alice
        .post(
            "/api/v1/datacard/edit",
            &json!({"id": id, "title": "World", "content": "Magic is common."}),
        )
        .await
        .unwrap();
    assert_eq!(edited["content"], "Magic is common.");
    assert!(edited["update_at"].as_i64() >= edited["create_at"].as_i64());

    for bad in [
        json!({"title": "", "content": "x"}),
        json!({"title": "t".repeat(65), "content": "x"}),
        json!({"title": "t", "content": "c".repeat(8001)}),
    ] {
        let (code, http, msg) = fails(
            alice
                .post::<_, Value>("/api/v1/datacard/create", &bad)
                .await,
        );
        assert_eq!((code, http), (ErrorCode::InvalidParams, 400));
        assert!(msg.contains("title") || msg.contains("content"), "{msg}");
    }

    let mine: Value = alice.post("/api/v1/datacard/my", &json!({})).await.unwrap();
    let ids: Vec<&str> = mine["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [second["id"].as_str().unwrap(), id.as_str()]);
    let _: Value = alice
        .post("/api/v1/datacard/delete", &json!({ "id": id }))
        .await
        .unwrap();
    assert_eq!(
        fails(
            alice
                .post::<_, Value>("/api/v1/datacard/detail", &json!({ "id": id }))
                .await
        )
        .0,
        ErrorCode::NotFound
    );
    let mine: Value = alice.post("/api/v1/datacard/my", &json!({})).await.unwrap();
    assert_eq!(mine["items"].as_array().unwrap().len(), 1);
    assert_eq!(
        fails(
            app.client
                .post::<_, Value>("/api/v1/datacard/my", &json!({}))
                .await
        )
        .0,
        ErrorCode::NeedLogin
    );
}

// ---- Cards ----------------------------------------------------------------

/// CRC-32 (PNG's), written here independently of the server's.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn b64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for g in bytes.chunks(3) {
        let n = (u32::from(g[0]) << 16)
            | (u32::from(*g.get(1).unwrap_or(&0)) << 8)
            | u32::from(*g.get(2).unwrap_or(&0));
        s.push(A[(n >> 18) as usize & 63] as char);
        s.push(A[(n >> 12) as usize & 63] as char);
        s.push(if g.len() > 1 {
            A[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        s.push(if g.len() > 2 {
            A[n as usize & 63] as char
        } else {
            '='
        });
    }
    s
}

/// A PNG like other tools write: the picture with a `chara` tEXt chunk
/// (base64 of the card JSON) just before IEND.
fn png_card(picture: &[u8], card: &Value) -> Vec<u8> {
    let iend = picture.len() - 12;
    assert_eq!(&picture[iend + 4..iend + 8], b"IEND");
    let mut data = b"chara\0".to_vec();
    data.extend_from_slice(b64(card.to_string().as_bytes()).as_bytes());
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    chunk.extend_from_slice(b"tEXt");
    chunk.extend_from_slice(&data);
    let mut crc_input = b"tEXt".to_vec();
    crc_input.extend_from_slice(&data);
    chunk.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    let mut out = picture[..iend].to_vec();
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&picture[iend..]);
    out
}

/// Whether a PNG carries a `chara` text chunk (a plain byte search).
fn has_card_chunk(png: &[u8]) -> bool {
    png.windows(10).any(|w| w == b"tEXtchara\0")
}

async fn import(app: &TestApp, c: &RestClient, content_type: &str, bytes: Vec<u8>) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(format!("{}/api/v1/tavern-pro/card/import", app.base))
        .header("Content-Type", content_type)
        .body(bytes);
    if let Some(t) = c.token() {
        req = req.header("token", t);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

async fn export(c: &RestClient, id: &str, format: &str) -> (u16, String, Vec<u8>, String) {
    let url = format!(
        "{}/api/v1/tavern-pro/card/export?id={id}&format={format}",
        c.base()
    );
    let mut req = reqwest::Client::new().get(url);
    if let Some(t) = c.token() {
        req = req.header("token", t);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let header = |n: &str| {
        res.headers()
            .get(n)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let (ct, cd) = (header("content-type"), header("content-disposition"));
    (status, ct, res.bytes().await.unwrap().to_vec(), cd)
}

fn v2_card() -> Value {
    json!({
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": "Seraphina",
            "description": "A guardian of the forest.",
            "personality": "Kind and protective.",
            "scenario": "A glade at dusk.",
            "first_mes": "*She smiles.* You're safe now.",
            "mes_example": "<START>\n{{user}}: Who are you?\n{{char}}: A friend.",
            "creator_notes": "A gentle guardian.",
            "system_prompt": "",
            "post_history_instructions": "Stay gentle.",
            "alternate_greetings": ["Welcome back, traveller."],
            "tags": ["fantasy", "guardian"],
            "creator": "someone",
            "character_version": "1.0",
            "extensions": {"depth_prompt": {"prompt": "x", "depth": 4}}
        }
    })
}

/// The fields a card carries, for comparing characters across a round trip.
fn card_fields(d: &Value) -> Value {
    let keys = [
        "name",
        "description",
        "persona",
        "scenario",
        "greeting",
        "alternate_greetings",
        "example_dialogue",
        "system_prompt",
        "post_history_instructions",
        "creator_notes",
        "tags",
        "gender",
        "character_type",
        "settings",
    ];
    Value::Object(
        keys.iter()
            .map(|k| ((*k).to_owned(), d[*k].clone()))
            .collect(),
    )
}

#[tokio::test]
async fn card_import_and_export() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;

    // V2 JSON becomes a draft of the importer.
    let (status, env) = import(
        &app,
        &alice,
        "application/json",
        v2_card().to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 200, "{env}");
    let id = env["data"]["id"].as_str().unwrap().to_owned();
    let d = detail(&alice, &id).await.unwrap();
    assert_eq!(d["name"], "Seraphina");
    assert_eq!(
        d["persona"],
        "A guardian of the forest.\n\nKind and protective."
    );
    assert_eq!(d["greeting"], "*She smiles.* You're safe now.");
    assert_eq!(
        d["alternate_greetings"],
        json!(["Welcome back, traveller."])
    );
    assert_eq!(d["post_history_instructions"], "Stay gentle.");
    assert_eq!(d["tags"], json!(["fantasy", "guardian"]));
    assert_eq!(d["published"], false);
    assert_eq!(d["avatar"], "");
    assert_eq!(d["is_owner"], true);
    assert_eq!(fails(detail(&bob, &id).await).0, ErrorCode::NotFound);

    // V1 (flat) JSON too.
    let v1 = json!({"name": "Old Timer", "description": "Grumpy.", "first_mes": "What?",
                    "personality": "", "scenario": "", "mes_example": ""});
    let (status, env) = import(
        &app,
        &alice,
        "application/json",
        v1.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 200, "{env}");

    // A PNG card: the card is read and the picture becomes the avatar,
    // served without the card inside it.
    let png = png_card(&test_png(96, 64), &v2_card());
    let (status, env) = import(&app, &alice, "image/png", png).await;
    assert_eq!(status, 200, "{env}");
    let png_id = env["data"]["id"].as_str().unwrap().to_owned();
    let d = detail(&alice, &png_id).await.unwrap();
    assert_eq!(d["name"], "Seraphina");
    let avatar = d["avatar"].as_str().unwrap();
    assert!(avatar.starts_with("/files/"), "{avatar}");
    let (status, ct, bytes) = alice.get_bytes(avatar).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "image/png"));
    assert!(!has_card_chunk(&bytes));
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!((img.width(), img.height()), (96, 64));

    // Export as PNG (no avatar: a generated portrait) and import it back:
    // the same character.
    let published = publish(
        &alice,
        &body(
            "Ada \"The\" Countess/Lovelace",
            json!({"gender": "non_binary", "character_type": 2, "system_prompt": "Be Ada.",
                   "settings": {"temperature": 1.25, "top_p": 0.5, "max_reply_tokens": 300}}),
        ),
    )
    .await
    .unwrap();
    let original = detail(&alice, &published).await.unwrap();
    let (status, ct, png, cd) = export(&alice, &published, "png").await;
    assert_eq!((status, ct.as_str()), (200, "image/png"));
    assert_eq!(
        cd,
        "attachment; filename=\"Ada _The_ Countess_Lovelace.png\""
    );
    assert!(has_card_chunk(&png));
    let portrait = image::load_from_memory(&png).unwrap();
    assert_eq!(portrait.width(), 512);
    let (status, env) = import(&app, &bob, "image/png", png.clone()).await;
    assert_eq!(status, 200, "{env}");
    let copy = detail(&bob, env["data"]["id"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(card_fields(&copy), card_fields(&original));
    assert_eq!(copy["published"], false);
    assert_eq!(copy["owner"]["name"], "Bob");

    // Exported again, the same portrait: it is deterministic.
    let (_, _, png_again, _) = export(&bob, &published, "png").await;
    assert_eq!(
        image::load_from_memory(&png_again).unwrap().to_rgba8(),
        portrait.to_rgba8()
    );

    // A character with an avatar exports that picture.
    let (status, _, with_avatar, _) = export(&alice, &png_id, "png").await;
    assert_eq!(status, 200);
    let img = image::load_from_memory(&with_avatar).unwrap();
    assert_eq!((img.width(), img.height()), (96, 64));

    // JSON export, and its round trip.
    let (status, ct, json_bytes, cd) = export(&app.client, &published, "json").await;
    assert_eq!(
        (status, ct.as_str()),
        (200, "application/json"),
        "visitors export published ones"
    );
    assert!(cd.ends_with(".json\""), "{cd}");
    let card: Value = serde_json::from_slice(&json_bytes).unwrap();
    assert_eq!(card["spec"], "chara_card_v2");
    assert_eq!(card["spec_version"], "2.0");
    assert_eq!(card["data"]["description"], original["persona"]);
    assert_eq!(card["data"]["first_mes"], original["greeting"]);
    assert_eq!(card["data"]["creator"], "Alice");
    let (_, env) = import(&app, &alice, "application/json", json_bytes).await;
    let copy = detail(&alice, env["data"]["id"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(card_fields(&copy), card_fields(&original));

    // Drafts export for their owner only.
    assert_eq!(export(&alice, &id, "json").await.0, 200);
    assert_eq!(export(&bob, &id, "png").await.0, 404);
    assert_eq!(export(&alice, &id, "gif").await.0, 400);
    assert_eq!(export(&alice, "nope", "png").await.0, 404);
}

#[tokio::test]
async fn bad_card_files_are_refused() {
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    let key = |env: &Value| env["status"]["key"].as_str().unwrap_or("").to_owned();

    let mut garbage = b"\x89PNG\r\n\x1a\n".to_vec();
    garbage.extend_from_slice(&[0xAB; 200]);
    let plain_png = test_png(20, 20);
    let mut bad_crc = png_card(&test_png(20, 20), &v2_card());
    let n = bad_crc.len();
    bad_crc[n - 20] ^= 0xFF; // inside the chara chunk's data
    let not_a_card = png_card(&test_png(20, 20), &json!({"hello": "world"}));
    let too_big_picture = png_card(&test_png(4097, 1), &v2_card());
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("image/png", garbage),
        ("image/png", plain_png),
        ("image/png", bad_crc),
        ("image/png", not_a_card),
        ("image/png", too_big_picture),
        ("image/png", v2_card().to_string().into_bytes()),
        ("application/json", b"{not json".to_vec()),
        (
            "application/json",
            br#"{"name": "No greeting", "description": "x"}"#.to_vec(),
        ),
        ("application/json", br#"{"anything": "else"}"#.to_vec()),
    ];
    for (i, (ct, bytes)) in cases.into_iter().enumerate() {
        let (status, env) = import(&app, &alice, ct, bytes).await;
        assert_eq!(
            (status, key(&env).as_str()),
            (400, "CharacterCardInvalid"),
            "case {i}: {env}"
        );
    }
    let (status, env) = import(&app, &alice, "text/html", b"<html>".to_vec()).await;
    assert_eq!((status, key(&env).as_str()), (400, "InvalidParams"));

    // Over 8 MB: 413 with the envelope.
    let mut big = png_card(&test_png(8, 8), &v2_card());
    big.resize(8 * 1024 * 1024 + 1, 0);
    let (status, env) = import(&app, &alice, "image/png", big).await;
    assert_eq!((status, key(&env).as_str()), (413, "PayloadTooLarge"));

    // No token: NeedLogin.
    let (status, env) = import(
        &app,
        &app.client,
        "application/json",
        v2_card().to_string().into_bytes(),
    )
    .await;
    assert_eq!((status, key(&env).as_str()), (401, "NeedLogin"));

    // Nothing was created by any of these.
    let mine: Value = alice
        .post("/api/v1/tavern-pro/my", &json!({}))
        .await
        .unwrap();
    assert_eq!(mine["items"], json!([]));
}
