//! Review: a hidden work leaves feeds, search, detail and comments for
//! everyone but its owner, who sees the reason and a notification; a feed
//! ban keeps the link; comments are hidden; moderators cannot act on
//! operators; restore brings everything back; the audit log has it all.

use protocol::client::RestClient;
use protocol::frame::FrameType;
use serde_json::json;

use super::{article, feed, ids, post, refused, search_until, staff, user, FAST};
use crate::helpers::{spawn_app_with, WAIT};

#[tokio::test]
async fn a_hidden_work_disappears_for_others_but_not_for_its_owner_and_comes_back() {
    let app = spawn_app_with(FAST).await;
    let author = user(&app, "Author").await;
    let viewer = user(&app, "Viewer").await;
    let (op, m) = staff(&app).await;
    let work = article(&author.client, "Moonlit quarry", false).await;
    let other = article(&author.client, "Sunny quarry", false).await;
    assert!(feed(&viewer.client).await.contains(&work));
    assert_eq!(
        search_until(&viewer.client, "moonlit", |f| !f.is_empty()).await,
        vec![work.clone()]
    );
    let mut sock = app.socket(&author.token).await;

    // Bad calls change nothing.
    for (body, want) in [
        (
            json!({"obj_id": work, "obj_type": 4}),
            "moderationReasonRequired",
        ),
        (
            json!({"obj_id": work, "obj_type": 100, "reason": "r"}),
            "moderationObjTypeInvalid",
        ),
        (
            json!({"obj_id": "missing", "obj_type": 4, "reason": "r"}),
            "NotFound",
        ),
    ] {
        let (_, key) = refused(&m.client, "/api/v1/review/hide", body).await;
        assert_eq!(key, want);
    }
    assert!(feed(&viewer.client).await.contains(&work));

    let h = post(
        &m.client,
        "/api/v1/review/hide",
        json!({"obj_id": work, "obj_type": 4, "reason": "copied from another artist"}),
    )
    .await;
    assert_eq!(h["state"], "hidden");
    let (_, key) = refused(
        &m.client,
        "/api/v1/review/hide",
        json!({"obj_id": work, "obj_type": 4, "reason": "twice"}),
    )
    .await;
    assert_eq!(key, "moderationStateConflict");

    // Others: gone from feeds, search, detail, comments; the visitor too.
    for c in [&viewer.client, &app.client] {
        let f = feed(c).await;
        assert!(!f.contains(&work) && f.contains(&other), "{f:?}");
        let (http, key) = refused(c, "/api/v1/post/detail", json!({"id": work})).await;
        assert_eq!((http, key.as_str()), (404, "NotFound"));
    }
    assert!(search_until(&viewer.client, "moonlit", |f| f.is_empty())
        .await
        .is_empty());
    let (_, key) = refused(
        &viewer.client,
        "/api/v1/comment2/list",
        json!({"obj_id": work, "obj_type": 4}),
    )
    .await;
    assert_eq!(key, "NotFound");
    // The owner still sees it, with the reason, and was told.
    let d = post(&author.client, "/api/v1/post/detail", json!({"id": work})).await;
    assert_eq!(d["moderation"]["state"], "hidden");
    assert_eq!(d["moderation"]["reason"], "copied from another artist");
    let n = sock.expect(FrameType::Notification, WAIT).await.unwrap();
    assert_eq!(n.content["kind"], "moderation");
    assert_eq!(n.content["obj_id"], work.as_str());
    assert!(n.content["text"]
        .as_str()
        .unwrap()
        .contains("copied from another artist"));
    // Others' detail of the still-visible work carries no moderation field.
    let d = post(&viewer.client, "/api/v1/post/detail", json!({"id": other})).await;
    assert!(d.get("moderation").is_none(), "{d}");

    // Restore.
    post(
        &m.client,
        "/api/v1/review/unhide",
        json!({"obj_id": work, "obj_type": 4, "reason": "the artist gave permission"}),
    )
    .await;
    assert!(feed(&viewer.client).await.contains(&work));
    assert_eq!(
        search_until(&viewer.client, "moonlit", |f| !f.is_empty()).await,
        vec![work.clone()]
    );
    let d = post(&viewer.client, "/api/v1/post/detail", json!({"id": work})).await;
    assert_eq!(d["title"], "Moonlit quarry");
    let d = post(&author.client, "/api/v1/post/detail", json!({"id": work})).await;
    assert!(d.get("moderation").is_none(), "{d}");
    let (_, key) = refused(
        &m.client,
        "/api/v1/review/unhide",
        json!({"obj_id": work, "obj_type": 4, "reason": "again"}),
    )
    .await;
    assert_eq!(key, "moderationStateConflict");

    // A feed ban: out of feeds and search, still opened by its link.
    post(
        &m.client,
        "/api/v1/review/ban",
        json!({"obj_id": other, "obj_type": 4, "reason": "low effort spam"}),
    )
    .await;
    assert!(!feed(&viewer.client).await.contains(&other));
    assert!(search_until(&viewer.client, "sunny", |f| f.is_empty())
        .await
        .is_empty());
    let d = post(&viewer.client, "/api/v1/post/detail", json!({"id": other})).await;
    assert_eq!(d["title"], "Sunny quarry");
    let d = post(&author.client, "/api/v1/post/detail", json!({"id": other})).await;
    assert_eq!(d["moderation"]["state"], "feed_banned");
    post(
        &m.client,
        "/api/v1/review/unban",
        json!({"obj_id": other, "obj_type": 4, "reason": "fine after all"}),
    )
    .await;
    assert!(feed(&viewer.client).await.contains(&other));

    // A moderator cannot act on an operator's work, nor undo an operator's hide.
    let op_work = article(&op, "Operator notes", false).await;
    let (http, key) = refused(
        &m.client,
        "/api/v1/review/hide",
        json!({"obj_id": op_work, "obj_type": 4, "reason": "r"}),
    )
    .await;
    assert_eq!((http, key.as_str()), (403, "moderationTargetProtected"));
    assert!(feed(&viewer.client).await.contains(&op_work));
    post(
        &op,
        "/api/v1/review/hide",
        json!({"obj_id": work, "obj_type": 4, "reason": "operator decision"}),
    )
    .await;
    let (_, key) = refused(
        &m.client,
        "/api/v1/review/unhide",
        json!({"obj_id": work, "obj_type": 4, "reason": "r"}),
    )
    .await;
    assert_eq!(key, "moderationTargetProtected");

    // The audit log: every action, newest first, with who and why.
    let log = post(&op, "/api/v1/moderation/audit/list", json!({"limit": 100})).await;
    let actions: Vec<(&str, &str)> = log["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["actor_role"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        vec![
            ("hide", "operator"),
            ("feed_unban", "moderator"),
            ("feed_ban", "moderator"),
            ("unhide", "moderator"),
            ("hide", "moderator"),
            ("grant_moderator", "operator"),
        ]
    );
    let first = &log["items"][4];
    assert_eq!(first["actor"], m.id.as_str());
    assert_eq!(first["obj_id"], work.as_str());
    assert_eq!(first["target_account"], author.id.as_str());
    assert_eq!(first["reason"], "copied from another artist");
    // Paged.
    let p1 = post(&op, "/api/v1/moderation/audit/list", json!({"limit": 4})).await;
    assert_eq!(p1["items"].as_array().unwrap().len(), 4);
    let p2 = post(
        &op,
        "/api/v1/moderation/audit/list",
        json!({"limit": 4, "cursor": p1["cursor"]}),
    )
    .await;
    assert_eq!(p2["items"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_hidden_comment_shows_to_its_author_only() {
    let app = spawn_app_with(FAST).await;
    let author = user(&app, "Author").await;
    let writer = user(&app, "Writer").await;
    let (_op, m) = staff(&app).await;
    let work = article(&author.client, "Commented canal", false).await;
    let c: serde_json::Value = post(
        &writer.client,
        "/api/v1/comment2/create",
        json!({"obj_id": work, "obj_type": 4, "content": "buy cheap pills"}),
    )
    .await;
    let cid = c["id"].as_str().unwrap().to_owned();
    post(
        &writer.client,
        "/api/v1/comment2/create",
        json!({"obj_id": work, "obj_type": 4, "content": "lovely"}),
    )
    .await;
    let list = |who: &protocol::client::RestClient| {
        let who = who.clone();
        let work = work.clone();
        async move {
            let v = post(
                &who,
                "/api/v1/comment2/list",
                json!({"obj_id": work, "obj_type": 4}),
            )
            .await;
            v["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["content"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    // Reported by the work's author, hidden by the moderator.
    post(
        &author.client,
        "/api/v1/report",
        json!({"obj_id": cid, "obj_type": 30, "reason": "spam"}),
    )
    .await;
    let (_, key) = refused(
        &writer.client,
        "/api/v1/report",
        json!({"obj_id": cid, "obj_type": 30, "reason": "spam"}),
    )
    .await;
    assert_eq!(key, "reportSelf");
    post(
        &m.client,
        "/api/v1/review/hide",
        json!({"obj_id": cid, "obj_type": 30, "reason": "spam link"}),
    )
    .await;
    assert_eq!(list(&author.client).await, vec!["lovely"]);
    assert_eq!(list(&app.client).await, vec!["lovely"]);
    assert_eq!(
        list(&writer.client).await,
        vec!["lovely", "buy cheap pills"]
    );
    let it = post(
        &m.client,
        "/api/v1/moderation/item",
        json!({"obj_id": cid, "obj_type": 30}),
    )
    .await;
    assert_eq!(it["moderation"]["reason"], "spam link");
    assert_eq!(it["summary"]["text"], "buy cheap pills");
    post(
        &m.client,
        "/api/v1/moderation/report/resolve",
        json!({"obj_id": cid, "obj_type": 30, "reason": "hidden"}),
    )
    .await;
    post(
        &m.client,
        "/api/v1/review/unhide",
        json!({"obj_id": cid, "obj_type": 30, "reason": "appeal granted"}),
    )
    .await;
    assert_eq!(list(&author.client).await.len(), 2);
}

#[tokio::test]
async fn a_hidden_character_and_a_hidden_channel_message_show_to_their_owners_only() {
    let app = spawn_app_with(FAST).await;
    let author = user(&app, "Keeper").await;
    let viewer = user(&app, "Visitor").await;
    let (_op, m) = staff(&app).await;
    let ch = post(
        &author.client,
        "/api/v1/tavern-pro/publish",
        json!({"name": "Mira", "description": "Mira, the keeper of the light",
               "greeting": "Hello {{user}}.", "persona": "{{char}} keeps a lighthouse.",
               "scenario": "A storm night.", "tags": ["sea"], "published": true}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed = |c: RestClient| async move {
        ids(&post(&c, "/api/v1/square/v3/character/list", json!({})).await)
    };
    assert!(listed(viewer.client.clone()).await.contains(&ch));

    post(
        &m.client,
        "/api/v1/review/hide",
        json!({"obj_id": ch, "obj_type": 9, "reason": "impersonates a real person"}),
    )
    .await;
    // Others: gone from the list and the detail; the owner still has it.
    for c in [&viewer.client, &app.client] {
        assert!(!listed(c.clone()).await.contains(&ch));
        let (http, key) = refused(c, "/api/v1/character/detail", json!({"id": ch})).await;
        assert_eq!((http, key.as_str()), (404, "NotFound"));
    }
    let d = post(
        &author.client,
        "/api/v1/character/detail",
        json!({"id": ch}),
    )
    .await;
    assert_eq!(d["id"], ch.as_str());
    post(
        &m.client,
        "/api/v1/review/unhide",
        json!({"obj_id": ch, "obj_type": 9, "reason": "the owner showed it is original"}),
    )
    .await;
    assert!(listed(viewer.client.clone()).await.contains(&ch));

    // A channel message: hidden from the other member, kept for its sender.
    let c = post(
        &author.client,
        "/api/v1/im/channel/create",
        json!({"name": "Harbour", "private": false}),
    )
    .await;
    let channel = c["channel_id"].as_str().unwrap().to_owned();
    post(
        &viewer.client,
        "/api/v1/im/channel/join",
        json!({"invite_code": c["invite_code"]}),
    )
    .await;
    let seq = post(
        &author.client,
        "/api/v1/im/message/send",
        json!({"channel_id": channel, "content": "buy cheap followers here"}),
    )
    .await["seq"]
        .as_u64()
        .unwrap();
    post(
        &author.client,
        "/api/v1/im/message/send",
        json!({"channel_id": channel, "content": "good morning"}),
    )
    .await;
    let texts = |c: RestClient, channel: String| async move {
        post(&c, "/api/v1/im/history", json!({"channel_id": channel})).await["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    post(
        &m.client,
        "/api/v1/review/hide",
        json!({"obj_id": format!("{channel}:{seq}"), "obj_type": 31, "reason": "spam"}),
    )
    .await;
    let seen = texts(viewer.client.clone(), channel.clone()).await;
    assert!(
        !seen.iter().any(|t| t.contains("followers")) && seen.iter().any(|t| t == "good morning"),
        "{seen:?}"
    );
    let own = texts(author.client.clone(), channel.clone()).await;
    assert!(own.iter().any(|t| t.contains("followers")), "{own:?}");
}
