//! Comments through the real binary, on characters (obj_type 9): threads
//! one level deep, `new` and `top` order, paging while others write and
//! like, likes counted once (also concurrently), who may delete and what
//! deleting takes with it, the text limits and their keys, hidden objects'
//! comments, visitors, the rate limit, the emoji table, and markup kept as
//! plain text.

mod writes;

use std::collections::HashSet;

use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

pub const CHARACTER: u8 = 9;

/// An app where the tests' many sign-ups and comments stay under the limits.
pub async fn app() -> TestApp {
    spawn_app_with(&[
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000"),
        ("EASEL_COMMENTS_PER_MIN", "1000"),
    ])
    .await
}

/// Publishes (or, with `published: false`, drafts) a character; its id.
pub async fn character(c: &RestClient, name: &str, published: bool) -> String {
    let v: Value = c
        .post(
            "/api/v1/tavern-pro/publish",
            &json!({
                "name": name,
                "description": format!("{name} in short"),
                "persona": format!("{name} is curious."),
                "greeting": format!("Hello, I am {name}."),
                "tags": ["books"],
                "gender": "female",
                "character_type": 1,
                "published": published,
            }),
        )
        .await
        .unwrap();
    v["id"].as_str().unwrap().to_owned()
}

pub async fn comment(c: &RestClient, obj: &str, content: &str) -> Result<String, ClientError> {
    let v: Value = c
        .post(
            "/api/v1/comment2/create",
            &json!({"obj_id": obj, "obj_type": CHARACTER, "content": content,
                    "scene": "detail", "source": "/en/tavern/character"}),
        )
        .await?;
    Ok(v["id"].as_str().unwrap().to_owned())
}

pub async fn reply(
    c: &RestClient,
    obj: &str,
    parent: &str,
    content: &str,
) -> Result<String, ClientError> {
    let v: Value = c
        .post(
            "/api/v1/comment2/add-replies",
            &json!({"obj_id": obj, "obj_type": CHARACTER, "content": content, "parent_id": parent}),
        )
        .await?;
    Ok(v["id"].as_str().unwrap().to_owned())
}

pub async fn list(c: &RestClient, obj: &str, extra: Value) -> Result<Value, ClientError> {
    let mut body = json!({"obj_id": obj, "obj_type": CHARACTER});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    c.post("/api/v1/comment2/list", &body).await
}

pub async fn replies(c: &RestClient, parent: &str, extra: Value) -> Result<Value, ClientError> {
    let mut body = json!({ "parent_id": parent });
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    c.post("/api/v1/comment2/replies-list", &body).await
}

pub async fn like(c: &RestClient, id: &str, cancel: bool) -> Result<Value, ClientError> {
    c.post(
        "/api/v1/comment2/like",
        &json!({"id": id, "cancel": cancel}),
    )
    .await
}

pub async fn delete(c: &RestClient, id: &str) -> Result<Value, ClientError> {
    c.post("/api/v1/comment2/delete", &json!({ "id": id }))
        .await
}

pub fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The error's code and HTTP status.
pub fn fails(r: Result<impl std::fmt::Debug, ClientError>) -> (ErrorCode, u16) {
    let e = r.expect_err("expected an API error");
    let s = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    let code = ErrorCode::from_code(s.code).unwrap_or_else(|| panic!("unknown code {}", s.code));
    (code, e.http_status().unwrap())
}

/// Every page of a listing, following `next_cursor`; `between` runs after each page.
pub async fn all_pages(
    c: &RestClient,
    obj: &str,
    extra: Value,
    mut between: impl AsyncFnMut(usize),
) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for n in 0..100 {
        let mut body = extra.clone();
        if let Some(cur) = &cursor {
            body["cursor"] = json!(cur);
        }
        let page = list(c, obj, body).await.unwrap();
        out.extend(ids(&page));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return out,
        }
        between(n).await;
    }
    panic!("paging did not end");
}

#[tokio::test]
async fn threads_one_level_deep_in_new_and_top_order() {
    let app = app().await;
    let (alice_data, alice) = app.user("Alice").await;
    let (bob_data, bob) = app.user("Bob").await;
    let (_, carol) = app.user("Carol").await;
    let visitor = app.client.clone();
    let ch = character(&alice, "Ada", true).await;

    let c1 = comment(&bob, &ch, "First!").await.unwrap();
    let c2 = comment(&carol, &ch, "Second").await.unwrap();
    let c3 = comment(&bob, &ch, "Third").await.unwrap();
    // A reply, and a reply to that reply: both land under c1.
    let r1 = reply(&alice, &ch, &c1, "Thanks, Bob").await.unwrap();
    let r2 = reply(&carol, &ch, &r1, "Agreed").await.unwrap();
    // `comment/add` is the same call; with a parent it is a reply too.
    let v: Value = bob
        .post(
            "/api/v1/comment/add",
            &json!({"obj_id": ch, "obj_type": CHARACTER, "content": "me too", "parent_id": r2}),
        )
        .await
        .unwrap();
    let r3 = v["id"].as_str().unwrap().to_owned();

    let page = list(&visitor, &ch, json!({})).await.unwrap();
    assert_eq!(
        ids(&page),
        [c3.as_str(), c2.as_str(), c1.as_str()],
        "new order: newest first"
    );
    assert_eq!(page["total"], 6, "comments and replies");
    assert_eq!(page["next_cursor"], Value::Null);
    let top1 = &page["items"][2];
    assert_eq!(top1["content"], "First!");
    assert_eq!(top1["author"]["id"], bob_data.account.id.as_str());
    assert_eq!(top1["author"]["name"], "Bob");
    assert_eq!(top1["parent_id"], Value::Null);
    assert_eq!(top1["reply_count"], 3);
    assert_eq!(top1["obj_type"], CHARACTER);
    assert_eq!(top1["obj_id"], ch.as_str());
    let preview: Vec<&str> = top1["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        preview,
        [r1.as_str(), r2.as_str(), r3.as_str()],
        "first replies, oldest first"
    );
    let pr2 = &top1["replies"][1];
    assert_eq!(
        pr2["parent_id"],
        c1.as_str(),
        "a reply to a reply goes under the top comment"
    );
    assert_eq!(pr2["reply_to"]["id"], alice_data.account.id.as_str());
    assert_eq!(pr2["reply_to"]["name"], "Alice");
    assert_eq!(top1["replies"][0]["reply_to"], Value::Null);
    assert_eq!(page["items"][0]["reply_count"], 0);
    assert_eq!(page["items"][0]["replies"], json!([]));
    // Visitors may delete nothing; the author of the character may delete everything.
    assert_eq!(top1["can_delete"], false);
    let as_alice = list(&alice, &ch, json!({})).await.unwrap();
    assert!(as_alice["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["can_delete"] == true));
    let as_carol = list(&carol, &ch, json!({})).await.unwrap();
    let flags: Vec<bool> = as_carol["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["can_delete"].as_bool().unwrap())
        .collect();
    assert_eq!(flags, [false, true, false], "only her own");

    // The thread, oldest first; asking with a reply lists the same thread.
    let t = replies(&visitor, &c1, json!({})).await.unwrap();
    assert_eq!(ids(&t), [r1.as_str(), r2.as_str(), r3.as_str()]);
    assert_eq!(t["total"], 3);
    let t2 = replies(&visitor, &r2, json!({})).await.unwrap();
    assert_eq!(ids(&t2), [r1.as_str(), r2.as_str(), r3.as_str()]);
    let v: Value = visitor
        .post(
            "/api/v1/comment/replies-list",
            &json!({"parent_id": c1, "page_size": 2}),
        )
        .await
        .unwrap();
    assert_eq!(ids(&v), [r1.as_str(), r2.as_str()]);
    let rest = replies(
        &visitor,
        &c1,
        json!({"page_size": 2, "cursor": v["next_cursor"]}),
    )
    .await
    .unwrap();
    assert_eq!(ids(&rest), [r3.as_str()]);
    assert_eq!(rest["next_cursor"], Value::Null);

    // Top: most likes first, then newest.
    like(&alice, &c1, false).await.unwrap();
    like(&carol, &c1, false).await.unwrap();
    like(&alice, &c2, false).await.unwrap();
    let top = list(&alice, &ch, json!({"order": "top"})).await.unwrap();
    assert_eq!(ids(&top), [c1.as_str(), c2.as_str(), c3.as_str()]);
    assert_eq!(top["items"][0]["like_count"], 2);
    assert_eq!(top["items"][0]["liked"], true);
    assert_eq!(top["items"][2]["liked"], false);
    let top_bob = list(&bob, &ch, json!({"order": "top"})).await.unwrap();
    assert_eq!(
        top_bob["items"][0]["liked"], false,
        "liked is the viewer's own"
    );
    // `comment/list` is the same call.
    let v: Value = visitor
        .post(
            "/api/v1/comment/list",
            &json!({"obj_id": ch, "obj_type": CHARACTER, "order": "new"}),
        )
        .await
        .unwrap();
    assert_eq!(ids(&v), [c3.as_str(), c2.as_str(), c1.as_str()]);
}

#[tokio::test]
async fn markup_stays_plain_text_and_visitors_only_read() {
    let app = app().await;
    let (_, alice) = app.user("Alice").await;
    let visitor = app.client.clone();
    let ch = character(&alice, "Ada", true).await;
    let html =
        "<script>alert('x')</script> <b>bold</b> &amp; <img src=x onerror=alert(1)>\nline two";
    let id = comment(&alice, &ch, &format!("  {html}\r\n"))
        .await
        .unwrap();
    let page = list(&visitor, &ch, json!({})).await.unwrap();
    assert_eq!(page["items"][0]["id"], id.as_str());
    assert_eq!(
        page["items"][0]["content"], html,
        "stored and answered as typed, trimmed"
    );

    // Visitors read but do not write.
    assert_eq!(
        fails(comment(&visitor, &ch, "hi").await),
        (ErrorCode::NeedLogin, 401)
    );
    assert_eq!(
        fails(like(&visitor, &id, false).await).0,
        ErrorCode::NeedLogin
    );
    assert_eq!(fails(delete(&visitor, &id).await).0, ErrorCode::NeedLogin);
    // A bad token is NeedLogin even where visitors may read.
    let forged = app.client.with_token("not-a-token");
    assert_eq!(
        fails(list(&forged, &ch, json!({})).await).0,
        ErrorCode::NeedLogin
    );

    // Objects nobody may see, and obj_types nothing answers for yet.
    assert_eq!(
        fails(list(&visitor, "nope", json!({})).await),
        (ErrorCode::NotFound, 404)
    );
    assert_eq!(
        fails(comment(&alice, "nope", "hi").await).0,
        ErrorCode::NotFound
    );
    let v: Result<Value, _> = alice
        .post(
            "/api/v1/comment2/create",
            &json!({"obj_id": ch, "obj_type": 4, "content": "hi"}),
        )
        .await;
    assert_eq!(fails(v).0, ErrorCode::NotFound, "not a work");
    assert_eq!(
        fails(list(&visitor, &ch, json!({"cursor": "garbage"})).await).0,
        ErrorCode::InvalidParams
    );
    assert_eq!(
        fails(reply(&alice, &ch, "nope", "hi").await).0,
        ErrorCode::NotFound
    );
    let other = character(&alice, "Bea", true).await;
    assert_eq!(
        fails(reply(&alice, &other, &id, "hi").await).0,
        ErrorCode::InvalidParams,
        "a parent on another object"
    );
    let no_parent: Result<Value, _> = alice
        .post(
            "/api/v1/comment2/add-replies",
            &json!({"obj_id": ch, "obj_type": CHARACTER, "content": "hi"}),
        )
        .await;
    assert_eq!(fails(no_parent).0, ErrorCode::InvalidParams);
}

#[tokio::test]
async fn text_limits_answer_their_keys() {
    let app = app().await;
    let (_, alice) = app.user("Alice").await;
    let ch = character(&alice, "Ada", true).await;
    let max = protocol::square::comment::MAX_COMMENT_CHARS;
    assert_eq!(
        fails(comment(&alice, &ch, "").await),
        (ErrorCode::WorkTextInvalid, 400)
    );
    assert_eq!(
        fails(comment(&alice, &ch, " \n\t ").await).0,
        ErrorCode::WorkTextInvalid
    );
    assert_eq!(
        fails(comment(&alice, &ch, "bell\u{7}").await).0,
        ErrorCode::WorkTextInvalid
    );
    assert_eq!(
        fails(comment(&alice, &ch, "a\u{0}b").await).0,
        ErrorCode::WorkTextInvalid
    );
    assert_eq!(
        fails(comment(&alice, &ch, &"x".repeat(max + 1)).await),
        (ErrorCode::WorkTextTooLong, 400)
    );
    let e = comment(&alice, &ch, &"x".repeat(max + 1))
        .await
        .unwrap_err();
    assert!(
        e.status().unwrap().msg.contains("1000"),
        "the message names the limit"
    );
    assert_eq!(e.status().unwrap().key.as_deref(), Some("WorkTextTooLong"));
    // Exactly the limit, counted in characters, is fine; so are newlines.
    comment(&alice, &ch, &"é".repeat(max)).await.unwrap();
    comment(&alice, &ch, "two\nlines").await.unwrap();
    let page = list(&alice, &ch, json!({})).await.unwrap();
    assert_eq!(page["total"], 2, "refused comments stored nothing");
    assert_eq!(page["items"][0]["content"], "two\nlines");
}

#[tokio::test]
async fn rate_limit_answers_42900() {
    let app = spawn_app_with(&[("EASEL_COMMENTS_PER_MIN", "3")]).await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let ch = character(&alice, "Ada", true).await;
    for i in 0..3 {
        comment(&alice, &ch, &format!("c{i}")).await.unwrap();
    }
    assert_eq!(
        fails(comment(&alice, &ch, "one more").await),
        (ErrorCode::TooManyRequests, 429)
    );
    // Per account: Bob may still write.
    comment(&bob, &ch, "hello").await.unwrap();
    let page = list(&bob, &ch, json!({})).await.unwrap();
    assert_eq!(page["total"], 4);
}

#[tokio::test]
async fn emoji_table_for_everyone() {
    let app = app().await;
    let v: Value = app
        .client
        .post("/api/v1/comment2/emoji/list", &json!({}))
        .await
        .unwrap();
    let items = v["items"].as_array().unwrap();
    assert!(
        (700..=1000).contains(&items.len()),
        "about 800: {}",
        items.len()
    );
    let find = |code: &str| {
        items
            .iter()
            .find(|i| i["shortcode"] == code)
            .map(|i| i["emoji"].as_str().unwrap().to_owned())
    };
    assert_eq!(find("smile").as_deref(), Some("😄"));
    assert_eq!(find("+1").as_deref(), Some("👍"));
    assert_eq!(find("heart").as_deref(), Some("❤️"));
    let codes: HashSet<&str> = items
        .iter()
        .map(|i| i["shortcode"].as_str().unwrap())
        .collect();
    assert_eq!(codes.len(), items.len(), "shortcodes are unique");
    // The same table by GET, in the same order.
    let (status, _, body) = app
        .client
        .get_bytes("/api/v1/comment2/emoji/list")
        .await
        .unwrap();
    assert_eq!(status, 200);
    let got: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(got["data"]["items"], v["items"]);
}
