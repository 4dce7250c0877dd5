//! Account bans: a timed ban ends the account's sockets at once, takes its
//! works out of feeds, cancels its running task with the hold released
//! exactly once, refuses protected targets, and lifts itself when its time
//! is up. NSFW appeals: once per work, within the daily limit, decided with
//! a notification.

use std::time::{Duration, Instant};

use protocol::client::Incoming;
use protocol::frame::FrameType;
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use super::{article, feed, post, refused, staff, user, FAST};
use crate::helpers::{rand_suffix, spawn_app_with, PASSWORD, WAIT};
use crate::tasks::{checkpoint, t2i};

#[tokio::test]
async fn a_ban_ends_sockets_cancels_tasks_once_and_expires() {
    let mut env = FAST.to_vec();
    env.extend([
        ("EASEL_REFERENCE_STEP_MS", "200"),
        ("EASEL_WORKERS", "1"),
        ("EASEL_BAN_SWEEP_SECS", "1"),
    ]);
    let app = spawn_app_with(&env).await;
    let email = format!("banned-{}@example.com", rand_suffix());
    let login = app
        .client
        .sign_up(&email, PASSWORD, "Banned")
        .await
        .unwrap();
    let banned = app.client.with_token(&login.token);
    let id = login.account.id.clone();
    let viewer = user(&app, "Viewer").await;
    let (op, m) = staff(&app).await;
    let other_mod = user(&app, "OtherMod").await;
    post(
        &op,
        "/api/v1/moderation/moderator/grant",
        json!({"account_id": other_mod.id}),
    )
    .await;
    let work = article(&banned, "Soon banned gallery", false).await;
    let before: Value = post(&banned, "/api/v1/payment/assets/get", json!({})).await;
    let sd = checkpoint(&banned, "sd").await;
    let mut body = t2i(&sd, "a very long night", 7);
    body["meta"]["steps"] = json!(60);
    let task = banned
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let during: Value = post(&banned, "/api/v1/payment/assets/get", json!({})).await;
    assert!(during["held"].as_i64().unwrap() > 0, "{during}");
    let mut sock = app.socket(&login.token).await;

    // Refused: bad duration, oneself, an operator, another moderator.
    let bad = [
        (
            &m.client,
            json!({"account_id": id, "reason": "r", "duration_secs": 5}),
            "banDurationInvalid",
        ),
        (
            &m.client,
            json!({"account_id": id, "duration_secs": 60}),
            "moderationReasonRequired",
        ),
        (
            &m.client,
            json!({"account_id": m.id, "reason": "r", "duration_secs": 60}),
            "moderationSelf",
        ),
        (
            &m.client,
            json!({"account_id": other_mod.id, "reason": "r", "duration_secs": 60}),
            "moderationTargetProtected",
        ),
        (
            &m.client,
            json!({"account_id": "nobody", "reason": "r", "duration_secs": 60}),
            "NotFound",
        ),
    ];
    for (c, b, want) in bad {
        let (_, key) = refused(c, "/api/v1/moderation/ban", b.clone()).await;
        assert_eq!(key, want, "{b}");
    }
    let op_id = post(&op, "/api/v1/account/info", json!({})).await["id"].clone();
    assert!(op_id.is_string());
    let (_, key) = refused(
        &m.client,
        "/api/v1/moderation/ban",
        json!({"account_id": op_id, "reason": "r", "duration_secs": 60}),
    )
    .await;
    assert_eq!(key, "moderationTargetProtected");
    post(&other_mod.client, "/api/v1/account/info", json!({})).await;

    let b = post(
        &m.client,
        "/api/v1/moderation/ban",
        json!({"account_id": id, "reason": "posting scams", "duration_secs": 60}),
    )
    .await;
    assert_eq!(b["account_id"], id.as_str());
    assert!(b["until"].as_i64().unwrap() > b["create_at"].as_i64().unwrap());
    // The socket is closed at once with 4403.
    let code = loop {
        match sock.recv_timeout(WAIT).await.expect("socket should close") {
            Incoming::Closed(c) => break c.map(|c| c.0).unwrap_or(0),
            Incoming::Frame(_) => continue,
        }
    };
    assert_eq!(code, 4403);
    // The token is dead, the works are out of the feed, the ban is listed.
    let (http, _) = refused(&banned, "/api/v1/account/info", json!({})).await;
    assert_eq!(http, 401);
    assert!(!feed(&viewer.client).await.contains(&work));
    let list = post(&m.client, "/api/v1/moderation/ban/list", json!({})).await;
    assert_eq!(list["items"][0]["account_id"], id.as_str());
    assert_eq!(list["items"][0]["reason"], "posting scams");
    // Another moderator may change a moderator's ban; a plain unban needs a reason.
    let (_, key) = refused(
        &m.client,
        "/api/v1/moderation/unban",
        json!({"account_id": id}),
    )
    .await;
    assert_eq!(key, "moderationReasonRequired");

    // Expiry lifts it (the sweeper runs every second).
    let start = Instant::now();
    let relogin = loop {
        match app.client.login(&email, PASSWORD).await {
            Ok(l) => break l,
            Err(_) if start.elapsed() < Duration::from_secs(120) => {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => panic!("the ban never expired: {e}"),
        }
    };
    let back = app.client.with_token(&relogin.token);
    assert!(feed(&viewer.client).await.contains(&work));
    // The running task was cancelled, its hold voided exactly once, nothing charged.
    let t = back
        .batch_progress(std::slice::from_ref(&task))
        .await
        .unwrap()
        .remove(0);
    assert_eq!(t.status, TaskStatus::Ended);
    assert_eq!(t.deduction_detail.state, "voided");
    let after: Value = post(&back, "/api/v1/payment/assets/get", json!({})).await;
    assert_eq!(after["held"], 0);
    assert_eq!(after["coins"], before["coins"]);
    let voids = after["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "void")
        .count();
    assert_eq!(voids, 1, "{after}");
    let list = post(&m.client, "/api/v1/moderation/ban/list", json!({})).await;
    assert!(list["items"].as_array().unwrap().is_empty(), "{list}");
    let log = post(&op, "/api/v1/moderation/audit/list", json!({})).await;
    assert_eq!(log["items"][0]["action"], "unban");
    assert_eq!(log["items"][0]["actor_name"], "ban expiry");
    assert_eq!(log["items"][1]["action"], "ban");

    // A permanent ban by the operator cannot be lifted by a moderator.
    post(
        &op,
        "/api/v1/moderation/ban",
        json!({"account_id": id, "reason": "repeat", "duration_secs": 0}),
    )
    .await;
    let (_, key) = refused(
        &m.client,
        "/api/v1/moderation/unban",
        json!({"account_id": id, "reason": "r"}),
    )
    .await;
    assert_eq!(key, "moderationTargetProtected");
    post(
        &op,
        "/api/v1/moderation/unban",
        json!({"account_id": id, "reason": "forgiven"}),
    )
    .await;
    app.client.login(&email, PASSWORD).await.unwrap();
}

#[tokio::test]
async fn appeals_are_once_per_work_within_the_daily_limit_and_decided_with_a_notification() {
    let mut env = FAST.to_vec();
    env.push(("EASEL_NSFW_APPEALS_PER_DAY", "2"));
    let app = spawn_app_with(&env).await;
    let owner = user(&app, "Owner").await;
    let stranger = user(&app, "Stranger").await;
    let (_op, m) = staff(&app).await;
    let w1 = article(&owner.client, "Beach one", true).await;
    let w2 = article(&owner.client, "Beach two", true).await;
    let w3 = article(&owner.client, "Beach three", true).await;
    let safe = article(&owner.client, "Mountain", false).await;
    let limit = post(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/rate-limit",
        json!({}),
    )
    .await;
    assert_eq!(
        (limit["limit"].as_i64(), limit["remaining"].as_i64()),
        (Some(2), Some(2))
    );
    let appeal = |id: &str| json!({"obj_id": id, "obj_type": 4, "text": "it is a beach photo"});
    for (c, body, want) in [
        (&owner.client, appeal(&safe), "appealNotFlagged"),
        (&stranger.client, appeal(&w1), "NotFound"),
        (
            &owner.client,
            json!({"obj_id": w1, "obj_type": 9}),
            "moderationObjTypeInvalid",
        ),
        (
            &owner.client,
            json!({"obj_id": w1, "text": "x".repeat(501)}),
            "reportTextInvalid",
        ),
    ] {
        let (_, key) = refused(c, "/api/v1/resource/nsfw-appeal/create", body.clone()).await;
        assert_eq!(key, want, "{body}");
    }
    let a1 = post(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/create",
        appeal(&w1),
    )
    .await;
    assert_eq!(a1["remaining"], 1);
    let (_, key) = refused(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/create",
        appeal(&w1),
    )
    .await;
    assert_eq!(key, "appealDuplicate");
    let a2 = post(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/create",
        appeal(&w2),
    )
    .await;
    assert_eq!(a2["remaining"], 0);
    let (http, key) = refused(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/create",
        appeal(&w3),
    )
    .await;
    assert_eq!((http, key.as_str()), (429, "appealLimit"));
    let limit = post(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/rate-limit",
        json!({}),
    )
    .await;
    assert_eq!(limit["remaining"], 0);
    assert!(limit["reset_at"].as_i64().unwrap() > 0);

    // In the queue, oldest first.
    let q = post(
        &m.client,
        "/api/v1/moderation/queue",
        json!({"kind": "appeal"}),
    )
    .await;
    let items = q["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{q}");
    assert_eq!(items[0]["obj_id"], w1.as_str());
    assert_eq!(items[0]["appeal"]["status"], "open");
    assert_eq!(items[0]["summary"]["nsfw"], true);
    let mut sock = app.socket(&owner.token).await;
    let d = post(
        &m.client,
        "/api/v1/moderation/appeal/decide",
        json!({"appeal_id": a1["appeal_id"], "nsfw": false, "reason": "no nudity"}),
    )
    .await;
    assert_eq!(d["status"], "changed");
    let n = sock.expect(FrameType::Notification, WAIT).await.unwrap();
    assert_eq!(n.content["kind"], "moderation");
    assert!(n.content["text"].as_str().unwrap().contains("no nudity"));
    let w = post(&owner.client, "/api/v1/post/detail", json!({"id": w1})).await;
    assert_eq!(w["nsfw"], false);
    let d = post(
        &m.client,
        "/api/v1/moderation/appeal/decide",
        json!({"appeal_id": a2["appeal_id"], "nsfw": true, "reason": "explicit"}),
    )
    .await;
    assert_eq!(d["status"], "kept");
    let (_, key) = refused(
        &m.client,
        "/api/v1/moderation/appeal/decide",
        json!({"appeal_id": a2["appeal_id"], "nsfw": false, "reason": "again"}),
    )
    .await;
    assert_eq!(key, "moderationStateConflict");
    let w = post(&owner.client, "/api/v1/post/detail", json!({"id": w2})).await;
    assert_eq!(w["nsfw"], true);
    let q = post(
        &m.client,
        "/api/v1/moderation/queue",
        json!({"kind": "appeal"}),
    )
    .await;
    assert!(q["items"].as_array().unwrap().is_empty(), "{q}");
}

#[tokio::test]
async fn a_hidden_work_is_appealed_and_restored_with_the_decision() {
    let app = spawn_app_with(FAST).await;
    let owner = user(&app, "Painter").await;
    let viewer = user(&app, "Looker").await;
    let (_op, m) = staff(&app).await;
    let w = article(&owner.client, "Harbour at dawn", false).await;
    let flagged = article(&owner.client, "Harbour at night", true).await;
    post(
        &m.client,
        "/api/v1/review/hide",
        json!({"obj_id": w, "obj_type": 4, "reason": "looks copied"}),
    )
    .await;
    let a = post(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/create",
        json!({"obj_id": w, "obj_type": 4, "text": "I painted it myself"}),
    )
    .await;
    let d = post(&owner.client, "/api/v1/post/detail", json!({"id": w})).await;
    assert_eq!(d["moderation"]["state"], "hidden");
    assert_eq!(d["appeal"]["status"], "open", "{d}");
    assert_eq!(d["appeal"]["appeal_id"], a["appeal_id"]);
    // Others never see the appeal, nor the work meanwhile.
    let (http, _) = refused(&viewer.client, "/api/v1/post/detail", json!({"id": w})).await;
    assert_eq!(http, 404);

    // Restoring an appeal of a work nobody hid is a conflict and changes nothing.
    let b = post(
        &owner.client,
        "/api/v1/resource/nsfw-appeal/create",
        json!({"obj_id": flagged, "obj_type": 4, "text": "a night photo"}),
    )
    .await;
    let (_, key) = refused(
        &m.client,
        "/api/v1/moderation/appeal/decide",
        json!({"appeal_id": b["appeal_id"], "nsfw": true, "restore": true, "reason": "r"}),
    )
    .await;
    assert_eq!(key, "moderationStateConflict");

    let decided = post(
        &m.client,
        "/api/v1/moderation/appeal/decide",
        json!({"appeal_id": a["appeal_id"], "nsfw": false, "restore": true,
               "reason": "the sketches prove it"}),
    )
    .await;
    assert_eq!(decided["status"], "changed");
    let seen = post(&viewer.client, "/api/v1/post/detail", json!({"id": w})).await;
    assert_eq!(seen["id"], w.as_str());
    assert!(
        seen.get("appeal").is_none() && seen.get("moderation").is_none(),
        "{seen}"
    );
    let d = post(&owner.client, "/api/v1/post/detail", json!({"id": w})).await;
    assert!(d.get("moderation").is_none(), "{d}");
    assert_eq!(d["appeal"]["status"], "changed");
    assert_eq!(d["appeal"]["reason"], "the sketches prove it");
    assert!(feed(&viewer.client).await.contains(&w));
}
