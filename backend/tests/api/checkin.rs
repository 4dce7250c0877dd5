//! Daily check-in and task awards (issue 22 part 2) against the real
//! server, with a fixed clock: the server reads "now" from the file named
//! by `EASEL_AWARDS_CLOCK_FILE`, which these tests move across days.

use std::path::PathBuf;
use std::time::Duration;

use protocol::awards::{Day, Zone};
use protocol::client::RestClient;
use protocol::frame::FrameType;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

pub(crate) const H: i64 = 3_600_000;

pub(crate) struct Clocked {
    pub(crate) app: TestApp,
    file: PathBuf,
    _dir: tempfile::TempDir,
}

impl Clocked {
    pub(crate) async fn start(at: i64) -> Clocked {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("now");
        std::fs::write(&file, at.to_string()).unwrap();
        let app = spawn_app_with(&[
            ("EASEL_AWARDS_CLOCK_FILE", file.to_str().unwrap()),
            ("EASEL_TASK_AWARDS", "on"),
        ])
        .await;
        Clocked {
            app,
            file,
            _dir: dir,
        }
    }

    pub(crate) fn set(&self, at: i64) {
        std::fs::write(&self.file, at.to_string()).unwrap();
    }
}

/// `iso` at `hour` o'clock UTC, in milliseconds.
pub(crate) fn utc(iso: &str, hour: i64) -> i64 {
    Zone::utc().start_of(Day::parse_iso(iso).unwrap()) + hour * H
}

pub(crate) async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The (http status, code, key) of a refused call.
pub(crate) async fn refused(c: &RestClient, path: &str, body: Value) -> (u16, i32, String) {
    let (http, env) = c.post_raw::<_, Value>(path, &body).await.unwrap();
    assert!(
        !env.status.is_ok(),
        "{path} should be refused: {:?}",
        env.data
    );
    (http, env.status.code, env.status.key.unwrap_or_default())
}

pub(crate) async fn balance(c: &RestClient) -> i64 {
    post(c, "/api/v1/payment/assets/get", json!({})).await["balance"]
        .as_i64()
        .unwrap()
}

/// Ledger entries whose key starts with `prefix`.
pub(crate) async fn entries(c: &RestClient, prefix: &str) -> Vec<Value> {
    post(c, "/api/v1/payment/assets/get", json!({})).await["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["key"].as_str().unwrap().starts_with(prefix))
        .cloned()
        .collect()
}

pub(crate) async fn check_in(c: &RestClient, tz: Option<&str>) -> Value {
    post(c, "/api/v1/activity/checkin", json!({ "tz": tz })).await
}

#[tokio::test]
async fn check_in_once_a_day_streak_grows_and_resets_after_a_missed_day() {
    let t = Clocked::start(utc("2026-11-27", 10)).await;
    let (d, c) = t.app.user("Ann").await;
    let id = d.account.id;
    let start = balance(&c).await;

    let info = post(&c, "/api/v1/activity/checkin/info", json!({})).await;
    assert_eq!(info["checked_today"], false);
    assert_eq!(info["streak"], 0);
    assert_eq!(info["today"], "2026-11-27");
    assert_eq!(info["time_zone"], "UTC");
    assert_eq!(info["reward_today"], 5);
    assert_eq!(info["calendar"].as_array().unwrap().len(), 7);
    assert_eq!(info["calendar"][6]["reward"], 30);

    // Day 1: 5 credits; twice the same day grants once.
    let r = check_in(&c, None).await;
    assert_eq!(
        (r["granted"].clone(), r["reward"].clone()),
        (json!(true), json!(5))
    );
    assert_eq!(r["info"]["streak"], 1);
    assert_eq!(r["balance"], start + 5);
    t.set(utc("2026-11-27", 23) + 59 * 60_000);
    let r = check_in(&c, None).await;
    assert_eq!(r["granted"], false);
    assert_eq!(r["reward"], 5);
    assert_eq!(balance(&c).await, start + 5);
    let keys = entries(&c, "checkin:").await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_eq!(keys[0]["key"], format!("checkin:{id}:2026-11-27"));

    // Days 2 and 3 continue the streak: 5, then 10.
    t.set(utc("2026-11-28", 0));
    assert_eq!(check_in(&c, None).await["info"]["streak"], 2);
    t.set(utc("2026-11-29", 8));
    let r = check_in(&c, None).await;
    assert_eq!(
        (r["info"]["streak"].clone(), r["reward"].clone()),
        (json!(3), json!(10))
    );
    assert_eq!(balance(&c).await, start + 20);
    let cal = r["info"]["calendar"].as_array().unwrap().clone();
    let checked: Vec<bool> = cal
        .iter()
        .map(|d| d["checked"].as_bool().unwrap())
        .collect();
    assert_eq!(checked, [true, true, true, false, false, false, false]);
    assert_eq!(cal[0]["date"], "2026-11-27");

    // The 30th is missed: on the 1st the streak shows 0, and restarts at 1.
    t.set(utc("2026-11-30", 12));
    assert_eq!(
        post(&c, "/api/v1/activity/checkin/info", json!({})).await["streak"],
        3
    );
    t.set(utc("2026-12-01", 12));
    let info = post(&c, "/api/v1/activity/checkin/info", json!({})).await;
    assert_eq!(
        (info["streak"].clone(), info["reward_today"].clone()),
        (json!(0), json!(5))
    );
    let r = check_in(&c, None).await;
    assert_eq!(
        (r["info"]["streak"].clone(), r["reward"].clone()),
        (json!(1), json!(5))
    );
    assert_eq!(r["info"]["total_days"], 4);
    assert_eq!(balance(&c).await, start + 25);
    assert_eq!(entries(&c, "checkin:").await.len(), 4);
}

#[tokio::test]
async fn concurrent_check_ins_grant_once() {
    let t = Clocked::start(utc("2026-11-27", 10)).await;
    let (_, c) = t.app.user("Ben").await;
    let start = balance(&c).await;
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let c = c.clone();
        set.spawn(async move { check_in(&c, Some("Europe/Paris")).await });
    }
    let mut granted = 0;
    while let Some(r) = set.join_next().await {
        let r = r.unwrap();
        assert_eq!(r["reward"], 5);
        if r["granted"] == true {
            granted += 1;
        }
    }
    assert_eq!(granted, 1);
    assert_eq!(balance(&c).await, start + 5);
    assert_eq!(entries(&c, "checkin:").await.len(), 1);
}

#[tokio::test]
async fn days_follow_the_pinned_time_zone() {
    // 23:30 in Shanghai.
    let t = Clocked::start(utc("2026-11-27", 15) + 30 * 60_000).await;
    let (_, c) = t.app.user("Chen").await;
    let (http, code, key) =
        refused(&c, "/api/v1/activity/checkin", json!({"tz": "Mars/Base"})).await;
    assert_eq!(
        (http, code, key.as_str()),
        (400, 40620, "checkinTimeZoneInvalid")
    );
    let r = check_in(&c, Some("Asia/Shanghai")).await;
    assert_eq!(r["info"]["today"], "2026-11-27");
    assert_eq!(r["info"]["time_zone"], "Asia/Shanghai");
    // The next local midnight is 16:00 UTC.
    assert_eq!(r["info"]["next_at"], utc("2026-11-27", 16));
    // 00:30 in Shanghai, still the 27th in UTC and in Los Angeles: the
    // pinned zone counts, whatever zone the client sends now.
    t.set(utc("2026-11-27", 16) + 30 * 60_000);
    let r = check_in(&c, Some("America/Los_Angeles")).await;
    assert_eq!(r["granted"], true);
    assert_eq!(r["info"]["today"], "2026-11-28");
    assert_eq!(r["info"]["streak"], 2);
    assert_eq!(r["info"]["time_zone"], "Asia/Shanghai");
    // Visitors are asked to log in.
    let (_, code, _) = refused(&t.app.client, "/api/v1/activity/checkin", json!({})).await;
    assert_eq!(code, 20000);
}

#[tokio::test]
async fn temp_coins_popup_shows_until_marked() {
    let t = Clocked::start(utc("2026-11-27", 10)).await;
    let (_, c) = t.app.user("Dee").await;
    let mark = "/api/v1/face-photo/mark-temp-coins-popup";
    assert_eq!(post(&c, mark, json!({})).await["marked"], false);
    check_in(&c, None).await;
    let info = post(&c, "/api/v1/activity/checkin/info", json!({})).await;
    assert_eq!(info["temp_coins_popup"], 5);
    assert_eq!(post(&c, mark, json!({})).await["marked"], true);
    assert_eq!(post(&c, mark, json!({})).await["marked"], false);
    let info = post(&c, "/api/v1/activity/checkin/info", json!({})).await;
    assert_eq!(info["temp_coins_popup"], 0);
}

async fn article(c: &RestClient, title: &str) {
    post(
        c,
        "/api/v1/post/article/add",
        json!({"title": title, "content": format!("About {title}."), "visibility": "public"}),
    )
    .await;
}

#[tokio::test]
async fn first_post_of_the_day_pays_20_once_a_day_and_pops_up() {
    let t = Clocked::start(utc("2026-11-27", 9)).await;
    let (d, c) = t.app.user("Eve").await;
    let id = d.account.id.clone();
    let mut socket = t.app.socket(&d.token).await;
    let start = balance(&c).await;
    article(&c, "Morning").await;
    // Spec 3 §9: +20 for the first post of the day, and the first
    // publication ever (20 by default).
    assert_eq!(balance(&c).await, start + 40);
    let pushed = socket
        .expect(FrameType::Notification, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(
        pushed.content["kind"], "award.granted",
        "{:?}",
        pushed.content
    );
    article(&c, "Noon").await;
    assert_eq!(balance(&c).await, start + 40);
    let daily = entries(&c, "award:first_post_of_day:").await;
    assert_eq!(daily.len(), 1);
    assert_eq!(
        daily[0]["key"],
        format!("award:first_post_of_day:{id}:2026-11-27")
    );
    assert_eq!(daily[0]["delta"], 20);

    // The popup lists both once, then nothing.
    let list = "/api/v1/face-photo/mark-user-activity-award-list";
    let seen = post(&c, list, json!({})).await;
    let triggers: Vec<&str> = seen["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["trigger"].as_str().unwrap())
        .collect();
    assert_eq!(triggers.len(), 2, "{seen}");
    assert!(triggers.contains(&"first_post_of_day") && triggers.contains(&"first_publish"));
    assert_eq!(seen["list"][0]["amount"], 20);
    assert_eq!(post(&c, list, json!({})).await["list"], json!([]));

    // The next day pays the daily one again, the first publication not.
    t.set(utc("2026-11-28", 9));
    article(&c, "Tomorrow").await;
    article(&c, "Tomorrow again").await;
    assert_eq!(balance(&c).await, start + 60);
    assert_eq!(entries(&c, "award:first_post_of_day:").await.len(), 2);
    assert_eq!(entries(&c, "award:first_publish:").await.len(), 1);
    let seen = post(&c, list, json!({})).await;
    assert_eq!(seen["list"].as_array().unwrap().len(), 1);
    assert_eq!(seen["list"][0]["title"], "First post of the day");
}

#[tokio::test]
async fn operators_set_the_schedule_and_the_awards() {
    let t = Clocked::start(utc("2026-11-27", 10)).await;
    let op = t.app.operator().await;
    let (_, c) = t.app.user("Finn").await;
    let other_id = t.app.user("Gus").await.0.account.id;

    // Users may not.
    let (_, code, _) = refused(&c, "/api/v1/admin/award/list", json!({})).await;
    assert_eq!(code, 40300);
    let (_, code, _) = refused(
        &c,
        "/api/v1/admin/checkin/schedule/set",
        json!({"rewards": [1]}),
    )
    .await;
    assert_eq!(code, 40300);

    let cfg = post(&op, "/api/v1/admin/award/list", json!({})).await;
    assert_eq!(cfg["schedule"], json!([5, 5, 10, 10, 15, 15, 30]));
    assert_eq!(cfg["awards"].as_array().unwrap().len(), 5);

    // A schedule of three days.
    let (_, code, key) = refused(
        &op,
        "/api/v1/admin/checkin/schedule/set",
        json!({"rewards": []}),
    )
    .await;
    assert_eq!((code, key.as_str()), (40621, "checkinScheduleInvalid"));
    post(
        &op,
        "/api/v1/admin/checkin/schedule/set",
        json!({"rewards": [1, 2, 3]}),
    )
    .await;
    let r = check_in(&c, None).await;
    assert_eq!(r["reward"], 1);
    assert_eq!(r["info"]["calendar"].as_array().unwrap().len(), 3);

    // The first follow pays what the operator says; a bad award is refused.
    let (_, code, key) = refused(
        &op,
        "/api/v1/admin/award/upsert",
        json!({"trigger": "first_dance", "title": "x", "amount": 5}),
    )
    .await;
    assert_eq!((code, key.as_str()), (40622, "awardInvalid"));
    let (_, code, _) = refused(
        &op,
        "/api/v1/admin/award/upsert",
        json!({"trigger": "first_follow", "title": "Hi", "amount": 0}),
    )
    .await;
    assert_eq!(code, 40622);
    post(
        &op,
        "/api/v1/admin/award/upsert",
        json!({"trigger": "first_follow", "title": "A new friend", "amount": 7}),
    )
    .await;
    let before = balance(&c).await;
    post(
        &c,
        "/api/v1/account/follow",
        json!({"account_id": other_id}),
    )
    .await;
    post(
        &c,
        "/api/v1/account/follow-cancel",
        json!({"account_id": other_id}),
    )
    .await;
    post(
        &c,
        "/api/v1/account/follow",
        json!({"account_id": other_id}),
    )
    .await;
    assert_eq!(balance(&c).await, before + 7);
    let seen = post(
        &c,
        "/api/v1/face-photo/mark-user-activity-award-list",
        json!({}),
    )
    .await;
    assert_eq!(seen["list"][0]["title"], "A new friend");

    // Deleted or disabled awards pay nothing.
    post(
        &op,
        "/api/v1/admin/award/delete",
        json!({"trigger": "first_post_of_day"}),
    )
    .await;
    post(
        &op,
        "/api/v1/admin/award/upsert",
        json!({"trigger": "first_publish", "title": "First", "amount": 9, "enabled": false}),
    )
    .await;
    let (_, code, _) = refused(
        &op,
        "/api/v1/admin/award/delete",
        json!({"trigger": "first_post_of_day"}),
    )
    .await;
    assert_eq!(code, 40400);
    let before = balance(&c).await;
    article(&c, "Quiet").await;
    assert_eq!(balance(&c).await, before);
}
