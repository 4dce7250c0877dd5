//! Theme activities through the real server (issue 22 part 1): the
//! contribution rules (wrong type, no activity, another's object, private,
//! duplicate, character-join), voting rules, the excellent list's order,
//! prizes paid once however often judging runs (checked in the ledger),
//! hidden works leaving the lists, and the marks on content cards. Period
//! boundaries with a fixed clock are tested on the service
//! (`backend/src/activities/tests.rs`); here periods are set around now.

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

const FAST: &[(&str, &str)] = &[
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_SQUARE_RANK_MS", "100"),
];

struct User {
    id: String,
    client: RestClient,
}

async fn user(app: &TestApp, name: &str) -> User {
    let (d, client) = app.user(name).await;
    User {
        id: d.account.id,
        client,
    }
}

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The (http status, key) of a refused call.
async fn refused(c: &RestClient, path: &str, body: Value) -> (u16, String) {
    let (http, env) = c.post_raw::<_, Value>(path, &body).await.unwrap();
    assert!(!env.status.is_ok(), "{path} should have been refused: {:?}", env.data);
    (http, env.status.key.clone().unwrap_or_default())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

async fn article(c: &RestClient, title: &str, visibility: &str) -> String {
    let v = post(
        c,
        "/api/v1/post/article/add",
        json!({"title": title, "content": format!("About {title}."), "tags": ["words"], "visibility": visibility}),
    )
    .await;
    v["id"].as_str().unwrap().to_owned()
}

/// An activity live now (one period from an hour ago to an hour ahead).
async fn activity(op: &RestClient, types: &[&str], judging: &str) -> String {
    let now = now_ms();
    let a = post(
        op,
        "/api/v1/admin/activity/create",
        json!({
            "title": "Autumn colours",
            "rules": "Paint **autumn**.<script>alert(1)</script>",
            "periods": [{"start": now - 3_600_000, "end": now + 3_600_000},
                        {"start": now + 3_600_000, "end": now + 7_200_000}],
            "types": types, "prizes": [500, 200], "judging": judging, "excellent_count": 3,
        }),
    )
    .await;
    assert_eq!(a["status"], "live");
    assert_eq!(a["current_period"], 0);
    assert!(!a["rules_html"].as_str().unwrap().contains("<script"));
    assert!(a["rules_html"].as_str().unwrap().contains("<strong>autumn</strong>"));
    a["id"].as_str().unwrap().to_owned()
}

async fn commit(c: &RestClient, kind: &str, obj: &str, activity: Option<&str>) -> Value {
    post(
        c,
        "/api/v1/activity/commit",
        json!({"type": kind, "obj_id": obj, "activity_id": activity}),
    )
    .await
}

async fn ledger_keys(c: &RestClient) -> (i64, Vec<String>) {
    let a = post(c, "/api/v1/payment/assets/get", json!({})).await;
    let keys = a["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap().to_owned())
        .collect();
    (a["balance"].as_i64().unwrap(), keys)
}

#[tokio::test]
async fn contributions_follow_the_rules() {
    let app = spawn_app_with(FAST).await;
    let op = app.operator().await;
    let ann = user(&app, "Ann").await;
    let bob = user(&app, "Bob").await;
    // Only operators define activities.
    let (http, key) = refused(&ann.client, "/api/v1/admin/activity/create", json!({"title": "x"})).await;
    assert_eq!((http, key.as_str()), (403, "NoPermission"));
    let (_, key) = refused(&op, "/api/v1/admin/activity/create", json!({"title": "x", "types": ["work"], "periods": []})).await;
    assert_eq!(key, "activityInvalid");
    let a = activity(&op, &["work", "character"], "votes").await;

    let art = article(&ann.client, "Leaves", "public").await;
    let private = article(&ann.client, "Diary", "private").await;
    let bobs = article(&bob.client, "Bob's", "public").await;
    // A contribution in the wrong type is refused.
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "article", "obj_id": art, "activity_id": a})).await;
    assert_eq!(key, "activityTypeNotAllowed");
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "work", "obj_id": art, "activity_id": a})).await;
    assert_eq!(key, "activityTypeMismatch");
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "Work", "obj_id": art, "activity_id": a})).await;
    assert_eq!(key, "activityTypeInvalid");
    // Another's object answers like a missing one.
    let (http, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "article", "obj_id": bobs})).await;
    assert_eq!((http, key.as_str()), (404, "NotFound"));
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "article", "obj_id": "nothing"})).await;
    assert_eq!(key, "NotFound");
    // Without an activity: posts only, public, once.
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "character", "obj_id": "c1"})).await;
    assert_eq!(key, "activityRequired");
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "article", "obj_id": private})).await;
    assert_eq!(key, "activityObjectNotPublic");
    let m = commit(&ann.client, "article", &art, None).await;
    assert_eq!((m["status"].as_str(), m["activity_id"].is_null()), (Some("published"), true));
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "article", "obj_id": art})).await;
    assert_eq!(key, "activityDuplicate");
    // Visitors cannot commit.
    let (http, _) = refused(&app.client, "/api/v1/activity/commit", json!({"type": "article", "obj_id": art})).await;
    assert_eq!(http, 401);
    let (_, key) = refused(&ann.client, "/api/v1/activity/commit", json!({"type": "work", "obj_id": art, "activity_id": "nope"})).await;
    assert_eq!(key, "activityNotFound");

    // A character joins.
    let c = post(
        &ann.client,
        "/api/v1/tavern-pro/publish",
        json!({"name": "Maple", "persona": "A tree spirit.", "greeting": "Hello."}),
    )
    .await;
    let cid = c["id"].as_str().unwrap();
    let j = post(&ann.client, "/api/v1/theme-activity/character-join", json!({"id": a, "character_id": cid})).await;
    assert_eq!(j["status"], "entered");
    assert_eq!(j["entry_id"], format!("{a}:character:{cid}"));
    let (_, key) = refused(&bob.client, "/api/v1/theme-activity/character-join", json!({"id": a, "character_id": cid})).await;
    assert_eq!(key, "NotFound");
    let (_, key) = refused(&ann.client, "/api/v1/theme-activity/character-join", json!({"id": a, "character_id": cid})).await;
    assert_eq!(key, "activityDuplicate");

    // my-apply and my-list.
    let mine = post(&ann.client, "/api/v1/activity/my-apply", json!({})).await;
    let statuses: Vec<&str> = mine["items"].as_array().unwrap().iter().map(|e| e["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["entered", "published"]);
    assert_eq!(mine["items"][0]["activity_title"], "Autumn colours");
    let ml = post(&ann.client, "/api/v1/activity/my-list", json!({})).await;
    assert_eq!(ml["items"][0]["id"], a);
    assert_eq!(ml["items"][0]["my_entries"], 1);
    let d = post(&ann.client, "/api/v1/theme-activity/detail", json!({"id": a})).await;
    assert_eq!((d["joined"].as_bool(), d["entries"].as_i64()), (Some(true), Some(1)));
    let d = post(&app.client, "/api/v1/theme-activity/detail", json!({"id": a})).await;
    assert_eq!(d["joined"], false);
    let l = post(&app.client, "/api/v1/theme-activity/list", json!({"status": "live"})).await;
    assert_eq!(l["items"][0]["id"], a);
    assert_eq!(l["items"][0]["card_id"], format!("event-center/{a}/0"));
    assert_eq!(l["items"][0]["obj_type"], 61);
    let l = post(&app.client, "/api/v1/theme-activity/list", json!({"status": "ended"})).await;
    assert!(l["items"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn votes_judging_and_prizes_paid_once() {
    let app = spawn_app_with(FAST).await;
    let op = app.operator().await;
    let ann = user(&app, "Ann").await;
    let bob = user(&app, "Bob").await;
    let cat = user(&app, "Cat").await;
    let dan = user(&app, "Dan").await;
    let a = activity(&op, &["article", "work"], "votes").await;

    // A published picture work joins, and three articles.
    let sd = checkpoint(&ann.client, "sd").await;
    let task = ann
        .client
        .create_task("/api/v1/task/create", &t2i(&sd, "maple leaves", 7))
        .await
        .unwrap();
    let t = ann.client.wait_task(&task, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, protocol::task::TaskStatus::Success, "{t:?}");
    let w = post(
        &ann.client,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [task], "title": "Maple road", "visibility": "public"}),
    )
    .await;
    let work = w["id"].as_str().unwrap().to_owned();
    let ea = commit(&ann.client, "work", &work, Some(&a)).await["entry_id"].as_str().unwrap().to_owned();
    let wb = article(&bob.client, "Bob's leaves", "public").await;
    let eb = commit(&bob.client, "article", &wb, Some(&a)).await["entry_id"].as_str().unwrap().to_owned();
    let wc = article(&cat.client, "Cat's leaves", "public").await;
    let ec = commit(&cat.client, "article", &wc, Some(&a)).await["entry_id"].as_str().unwrap().to_owned();
    let wd = article(&dan.client, "Dan's leaves", "public").await;
    let ed = commit(&dan.client, "article", &wd, Some(&a)).await["entry_id"].as_str().unwrap().to_owned();

    // Voting rules.
    let (_, key) = refused(&ann.client, "/api/v1/activity/vote", json!({"entry_id": ea})).await;
    assert_eq!(key, "activityVoteSelf");
    assert_eq!(post(&bob.client, "/api/v1/activity/vote", json!({"entry_id": ea})).await["votes"], 1);
    let (_, key) = refused(&bob.client, "/api/v1/activity/vote", json!({"entry_id": ea})).await;
    assert_eq!(key, "activityVoteDuplicate");
    let v = post(&bob.client, "/api/v1/activity/vote-cancel", json!({"entry_id": ea})).await;
    assert_eq!((v["votes"].as_i64(), v["voted"].as_bool()), (Some(0), Some(false)));
    let (_, key) = refused(&bob.client, "/api/v1/activity/vote-cancel", json!({"entry_id": ea})).await;
    assert_eq!(key, "activityNotVoted");
    let (http, _) = refused(&app.client, "/api/v1/activity/vote", json!({"entry_id": ea})).await;
    assert_eq!(http, 401);
    // Cat: 3 votes; Ann and Bob: 2 each (Ann committed first); Dan: 3, then hidden.
    for (voter, entry) in [
        (&bob, &ec), (&ann, &ec), (&dan, &ec),
        (&bob, &ea), (&cat, &ea),
        (&ann, &eb), (&cat, &eb),
        (&ann, &ed), (&bob, &ed), (&cat, &ed),
    ] {
        post(&voter.client, "/api/v1/activity/vote", json!({"entry_id": entry})).await;
    }
    let top = post(&cat.client, "/api/v1/theme-activity/post-list", json!({"id": a, "sort": "top"})).await;
    let order: Vec<&str> = top["items"].as_array().unwrap().iter().map(|e| e["entry_id"].as_str().unwrap()).collect();
    assert_eq!(order, [ec.as_str(), ed.as_str(), ea.as_str(), eb.as_str()]);
    assert_eq!(top["items"][2]["voted"], true);
    assert_eq!(top["items"][2]["card"]["id"], work);
    assert_eq!(top["period"], 0);

    // The operator hides Dan's article: it leaves the lists.
    post(&op, "/api/v1/review/hide", json!({"obj_id": wd, "obj_type": 4, "reason": "copied"})).await;
    let new = post(&app.client, "/api/v1/theme-activity/post-list", json!({"id": a})).await;
    let order: Vec<&str> = new["items"].as_array().unwrap().iter().map(|e| e["entry_id"].as_str().unwrap()).collect();
    assert_eq!(order, [ec.as_str(), eb.as_str(), ea.as_str()]);
    let (_, key) = refused(&bob.client, "/api/v1/activity/vote", json!({"entry_id": ed})).await;
    assert_eq!(key, "NotFound");

    // Judging an open period is refused; closing judges it.
    let (_, key) = refused(&op, "/api/v1/admin/activity/judge", json!({"id": a, "period": 0})).await;
    assert_eq!(key, "activityNotJudgeable");
    let (_, key) = refused(&ann.client, "/api/v1/admin/activity/close", json!({"id": a, "period": 0})).await;
    assert_eq!(key, "NoPermission");
    let r = post(&op, "/api/v1/admin/activity/close", json!({"id": a, "period": 0})).await;
    let winners = |r: &Value| -> Vec<(i64, String, i64)> {
        r["winners"].as_array().unwrap().iter().map(|w| {
            (w["rank"].as_i64().unwrap(), w["entry"]["entry_id"].as_str().unwrap().to_owned(), w["prize"].as_i64().unwrap())
        }).collect()
    };
    let want = vec![(1, ec.clone(), 500), (2, ea.clone(), 200), (3, eb.clone(), 0)];
    assert_eq!(r["status"], "judged");
    assert_eq!(winners(&r), want);
    // Judging runs three more times (close again, judge twice): paid once.
    let again = post(&op, "/api/v1/admin/activity/close", json!({"id": a, "period": 0})).await;
    assert_eq!(winners(&again), want);
    for _ in 0..2 {
        assert_eq!(winners(&post(&op, "/api/v1/admin/activity/judge", json!({"id": a, "period": 0})).await), want);
    }
    let (_, key) = refused(&op, "/api/v1/admin/activity/judge", json!({"id": a, "period": 0, "picks": [ea]})).await;
    assert_eq!(key, "activityPicksInvalid");
    let (cat_balance, cat_keys) = ledger_keys(&cat.client).await;
    let prize_keys: Vec<&String> = cat_keys.iter().filter(|k| k.starts_with("activity:")).collect();
    assert_eq!(prize_keys, [&format!("activity:{a}:0:1")]);
    let (ann_balance, ann_keys) = ledger_keys(&ann.client).await;
    assert_eq!(ann_keys.iter().filter(|k| k.starts_with("activity:")).count(), 1);
    let (bob_balance, bob_keys) = ledger_keys(&bob.client).await;
    assert_eq!(bob_keys.iter().filter(|k| k.starts_with("activity:")).count(), 0);
    let (dan_balance, _) = ledger_keys(&dan.client).await;
    // Fresh accounts start equal; the prizes are the difference.
    assert_eq!(cat_balance - dan_balance, 500);
    assert_eq!(bob_balance, dan_balance);
    let _ = ann_balance;
    // The period is closed: no more contributions or votes to it.
    let (_, key) = refused(&bob.client, "/api/v1/activity/vote", json!({"entry_id": ea})).await;
    assert_eq!(key, "activityPeriodClosed");
    // The excellent list and the standing.
    let ex = post(&app.client, "/api/v1/theme-activity/period-excellent-list", json!({"id": a})).await;
    assert_eq!(ex["items"].as_array().unwrap().len(), 1);
    assert_eq!(winners(&ex["items"][0]), want);
    let mine = post(&ann.client, "/api/v1/activity/my-apply", json!({"activity_id": a})).await;
    assert_eq!((mine["items"][0]["status"].as_str(), mine["items"][0]["rank"].as_i64()), (Some("excellent"), Some(2)));
    let dans = post(&dan.client, "/api/v1/activity/my-apply", json!({})).await;
    assert_eq!(dans["items"][0]["status"], "removed");

    // The mark on the work's card in the square.
    let feed = post(&app.client, "/api/v1/square/v3/recommend", json!({"order_by": "new", "page_size": 50})).await;
    let card = feed["items"].as_array().unwrap().iter().find(|c| c["id"] == work.as_str()).unwrap().clone();
    assert_eq!(card["activity_mark"]["id"], format!("event-center/{a}/0"));
    assert_eq!(card["activity_mark"]["obj_type"], 61);
    assert_eq!(card["activity_mark"]["title"], "Autumn colours");
    let plain = article(&ann.client, "Unmarked", "public").await;
    let feed = post(&app.client, "/api/v1/square/v3/recommend", json!({"order_by": "new", "page_size": 50})).await;
    let card = feed["items"].as_array().unwrap().iter().find(|c| c["id"] == plain.as_str()).unwrap().clone();
    assert!(card.get("activity_mark").is_none());
}

#[tokio::test]
async fn daily_challenges_and_picks() {
    let app = spawn_app_with(FAST).await;
    let op = app.operator().await;
    let ann = user(&app, "Ann").await;
    let now = now_ms();
    let daily = |start: i64| json!({
        "title": "Daily: a cat", "rules": "", "daily": true, "judging": "picks",
        "periods": [{"start": start, "end": start + 86_400_000}], "types": ["article"], "prizes": [50],
    });
    let d = post(&op, "/api/v1/admin/activity/create", daily(now - 1000)).await;
    let id = d["id"].as_str().unwrap().to_owned();
    assert_eq!(d["card_id"], format!("event-center/daily/{id}"));
    let (_, key) = refused(&op, "/api/v1/admin/activity/create", daily(now + 3_600_000)).await;
    assert_eq!(key, "activityDailyTaken");
    let art = article(&ann.client, "Cat", "public").await;
    let e = commit(&ann.client, "article", &art, Some(&id)).await["entry_id"].as_str().unwrap().to_owned();
    let (_, key) = refused(&op, "/api/v1/activity/vote", json!({"entry_id": e})).await;
    assert_eq!(key, "activityVotingOff");
    let feed = post(&app.client, "/api/v1/square/v3/recommend", json!({"order_by": "new", "page_size": 50})).await;
    let card = feed["items"].as_array().unwrap().iter().find(|c| c["id"] == art.as_str()).unwrap().clone();
    assert_eq!(card["activity_mark"]["id"], format!("event-center/daily/{id}"));
    assert_eq!(card["activity_mark"]["daily"], true);
    // Closing waits for picks; picks judge and pay once.
    let c = post(&op, "/api/v1/admin/activity/close", json!({"id": id, "period": 0})).await;
    assert_eq!(c["status"], "closed");
    let (_, key) = refused(&op, "/api/v1/admin/activity/judge", json!({"id": id, "period": 0})).await;
    assert_eq!(key, "activityNotJudgeable");
    for _ in 0..3 {
        let r = post(&op, "/api/v1/admin/activity/judge", json!({"id": id, "period": 0, "picks": [e]})).await;
        assert_eq!(r["winners"][0]["prize"], 50);
    }
    let (_, keys) = ledger_keys(&ann.client).await;
    assert_eq!(keys.iter().filter(|k| k.starts_with("activity:")).count(), 1);
    let list = post(&op, "/api/v1/admin/activity/list", json!({})).await;
    assert_eq!(list["items"][0]["period_entries"], json!([1]));
    assert_eq!(list["items"][0]["periods"][0]["status"], "judged");
}
