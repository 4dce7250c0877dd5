//! Moderation (issue 20): roles and the table of calls a plain user is
//! refused, reports and the queue, review (hide, feed ban, restore) on
//! works, comments and characters, account bans, appeals, the audit log.

mod bans;
mod review;

use std::time::Duration;

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

pub const FAST: &[(&str, &str)] = &[
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_SQUARE_RANK_MS", "100"),
    ("EASEL_SEARCH_COMMIT_MS", "20"),
];

pub struct User {
    pub id: String,
    pub client: RestClient,
    pub token: String,
}

pub async fn user(app: &TestApp, name: &str) -> User {
    let (d, client) = app.user(name).await;
    User {
        id: d.account.id,
        client,
        token: d.token,
    }
}

pub async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The (http status, key) of a refused call.
pub async fn refused(c: &RestClient, path: &str, body: Value) -> (u16, String) {
    let (http, env) = c.post_raw::<_, Value>(path, &body).await.unwrap();
    assert!(
        !env.status.is_ok(),
        "{path} should have been refused: {:?}",
        env.data
    );
    (http, env.status.key.clone().unwrap_or_default())
}

pub async fn article(c: &RestClient, title: &str, nsfw: bool) -> String {
    let v = post(
        c,
        "/api/v1/post/article/add",
        json!({"title": title, "content": format!("About {title}."), "tags": ["words"], "visibility": "public", "nsfw": nsfw}),
    )
    .await;
    v["id"].as_str().unwrap().to_owned()
}

pub fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The `new` feed as `c` sees it.
pub async fn feed(c: &RestClient) -> Vec<String> {
    ids(&post(
        c,
        "/api/v1/square/v3/recommend",
        json!({"order_by": "new", "page_size": 50}),
    )
    .await)
}

/// The search results for `keyword` once they satisfy `settled` (the
/// index commits in the background), or the last ones after about 10 s.
pub async fn search_until(
    c: &RestClient,
    keyword: &str,
    settled: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    let mut found = Vec::new();
    for _ in 0..100 {
        found = ids(&post(
            c,
            "/api/v1/square/v3/search/list",
            json!({"keyword": keyword}),
        )
        .await);
        if settled(&found) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    found
}

/// An operator and a moderator it granted.
pub async fn staff(app: &TestApp) -> (RestClient, User) {
    let op = app.operator().await;
    let m = user(app, "Mod").await;
    let g = post(
        &op,
        "/api/v1/moderation/moderator/grant",
        json!({"account_id": m.id, "reason": "trusted"}),
    )
    .await;
    assert_eq!(g["account_id"], m.id);
    (op, m)
}

#[tokio::test]
async fn every_moderation_call_refuses_a_plain_user_and_changes_nothing() {
    let app = spawn_app_with(FAST).await;
    let author = user(&app, "Author").await;
    let plain = user(&app, "Plain").await;
    let work = article(&author.client, "Untouched lighthouse", true).await;
    let calls: &[(&str, Value)] = &[
        (
            "review/hide",
            json!({"obj_id": work, "obj_type": 4, "reason": "x"}),
        ),
        (
            "review/unhide",
            json!({"obj_id": work, "obj_type": 4, "reason": "x"}),
        ),
        (
            "review/ban",
            json!({"obj_id": work, "obj_type": 4, "reason": "x"}),
        ),
        (
            "review/unban",
            json!({"obj_id": work, "obj_type": 4, "reason": "x"}),
        ),
        ("moderation/queue", json!({})),
        ("moderation/item", json!({"obj_id": work, "obj_type": 4})),
        (
            "moderation/report/resolve",
            json!({"obj_id": work, "obj_type": 4, "reason": "x"}),
        ),
        (
            "moderation/report/dismiss",
            json!({"obj_id": work, "obj_type": 4, "reason": "x"}),
        ),
        (
            "moderation/ban",
            json!({"account_id": author.id, "reason": "x", "duration_secs": 0}),
        ),
        (
            "moderation/unban",
            json!({"account_id": author.id, "reason": "x"}),
        ),
        ("moderation/ban/list", json!({})),
        (
            "moderation/appeal/decide",
            json!({"appeal_id": "a", "nsfw": false, "reason": "x"}),
        ),
        ("moderation/audit/list", json!({})),
        (
            "moderation/moderator/grant",
            json!({"account_id": plain.id}),
        ),
        (
            "moderation/moderator/revoke",
            json!({"account_id": plain.id}),
        ),
        ("moderation/moderator/list", json!({})),
    ];
    for (path, body) in calls {
        let (http, key) = refused(&plain.client, &format!("/api/v1/{path}"), body.clone()).await;
        assert_eq!((http, key.as_str()), (403, "moderatorOnly"), "{path}");
    }
    // A moderator is still refused the operators' calls.
    let (op, m) = staff(&app).await;
    for path in [
        "moderation/audit/list",
        "moderation/moderator/grant",
        "moderation/moderator/revoke",
        "moderation/moderator/list",
    ] {
        let (_, key) = refused(
            &m.client,
            &format!("/api/v1/{path}"),
            json!({"account_id": plain.id}),
        )
        .await;
        assert_eq!(key, "moderatorOnly", "{path}");
    }
    // Nothing changed: the work is in the feed, the author not banned, the log empty but the grant.
    assert!(feed(&app.client).await.contains(&work));
    post(&author.client, "/api/v1/account/info", json!({})).await;
    let log = post(&op, "/api/v1/moderation/audit/list", json!({})).await;
    let actions: Vec<&str> = log["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, vec!["grant_moderator"]);
    // Roles as the console asks them.
    for (c, role) in [
        (&plain.client, "user"),
        (&m.client, "moderator"),
        (&op, "operator"),
    ] {
        assert_eq!(
            post(c, "/api/v1/moderation/me", json!({})).await["role"],
            role
        );
    }
    // Revoked: a plain user again.
    post(
        &op,
        "/api/v1/moderation/moderator/revoke",
        json!({"account_id": m.id, "reason": "done"}),
    )
    .await;
    let (_, key) = refused(&m.client, "/api/v1/moderation/queue", json!({})).await;
    assert_eq!(key, "moderatorOnly");
}

#[tokio::test]
async fn reports_are_checked_one_open_per_reporter_and_grouped_in_the_queue() {
    let app = spawn_app_with(FAST).await;
    let author = user(&app, "Author").await;
    let r1 = user(&app, "Reporter1").await;
    let r2 = user(&app, "Reporter2").await;
    let (_op, m) = staff(&app).await;
    let work = article(&author.client, "Reported harbour", false).await;
    let report = |reason: &str, text: &str| json!({"obj_id": work, "obj_type": 4, "reason": reason, "text": text});
    let cases: Vec<(&RestClient, &str, Value, &str)> = vec![
        (&author.client, "report", report("spam", ""), "reportSelf"),
        (
            &r1.client,
            "report",
            report("rude", ""),
            "reportReasonInvalid",
        ),
        (
            &r1.client,
            "report",
            report("other", " "),
            "reportTextInvalid",
        ),
        (
            &r1.client,
            "report",
            report("spam", &"x".repeat(501)),
            "reportTextInvalid",
        ),
        (
            &r1.client,
            "report",
            json!({"obj_id": "nope", "obj_type": 4, "reason": "spam"}),
            "NotFound",
        ),
        (
            &r1.client,
            "report",
            json!({"obj_id": work, "obj_type": 77, "reason": "spam"}),
            "moderationObjTypeInvalid",
        ),
        (
            &r1.client,
            "report/palette",
            json!({"obj_id": "any", "reason": "spam"}),
            "NotFound",
        ),
    ];
    for (c, path, body, want) in cases {
        let (_, key) = refused(c, &format!("/api/v1/{path}"), body.clone()).await;
        assert_eq!(key, want, "{path} {body}");
    }
    // Nothing was queued by the refused reports.
    let q = post(&m.client, "/api/v1/moderation/queue", json!({})).await;
    assert!(q["items"].as_array().unwrap().is_empty(), "{q}");
    let a = post(
        &r1.client,
        "/api/v1/report/portfolio",
        json!({"obj_id": work, "reason": "spam", "text": "ads"}),
    )
    .await;
    assert!(a["report_id"].as_str().is_some());
    let (http, key) = refused(&r1.client, "/api/v1/report", report("hate", "")).await;
    assert_eq!((http, key.as_str()), (409, "reportDuplicate"));
    post(
        &r2.client,
        "/api/v1/report",
        report("other", "looks stolen"),
    )
    .await;
    // A report of an account too.
    post(
        &r2.client,
        "/api/v1/report",
        json!({"obj_id": author.id, "obj_type": 100, "reason": "harassment"}),
    )
    .await;
    let q = post(
        &m.client,
        "/api/v1/moderation/queue",
        json!({"kind": "report"}),
    )
    .await;
    let items = q["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{q}");
    let it = &items[0];
    assert_eq!(it["obj_id"], work.as_str());
    assert_eq!(it["owner"], author.id.as_str());
    assert_eq!(it["summary"]["title"], "Reported harbour");
    assert_eq!(it["reports"]["count"], 2);
    assert_eq!(it["reports"]["reasons"], json!({"spam": 1, "other": 1}));
    assert_eq!(it["reports"]["items"][0]["text"], "looks stolen");
    assert_eq!(items[1]["obj_type"], 100);
    // Dismissing closes both; the object leaves the queue; the reporter may report again.
    let (_, key) = refused(
        &m.client,
        "/api/v1/moderation/report/dismiss",
        json!({"obj_id": work, "obj_type": 4}),
    )
    .await;
    assert_eq!(key, "moderationReasonRequired");
    let d = post(
        &m.client,
        "/api/v1/moderation/report/dismiss",
        json!({"obj_id": work, "obj_type": 4, "reason": "not spam"}),
    )
    .await;
    assert_eq!(d["closed"], 2);
    let (_, key) = refused(
        &m.client,
        "/api/v1/moderation/report/dismiss",
        json!({"obj_id": work, "obj_type": 4, "reason": "again"}),
    )
    .await;
    assert_eq!(key, "moderationStateConflict");
    let q = post(&m.client, "/api/v1/moderation/queue", json!({})).await;
    assert_eq!(q["items"].as_array().unwrap().len(), 1, "{q}");
    post(&r1.client, "/api/v1/report", report("spam", "again")).await;
    let it = post(
        &m.client,
        "/api/v1/moderation/item",
        json!({"obj_id": work, "obj_type": 4}),
    )
    .await;
    assert_eq!(it["reports"]["count"], 1);
    assert_eq!(it["history"][0]["action"], "dismiss");
    assert_eq!(it["history"][0]["reason"], "not spam");
    // Reasons list for the dialogs.
    let r = post(&r1.client, "/api/v1/report/reasons", json!({})).await;
    assert_eq!(r["items"].as_array().unwrap().len(), 9);
}
