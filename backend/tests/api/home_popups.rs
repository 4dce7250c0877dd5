//! The home page's popups and modules, more (issue 22 part 3): what viewers
//! did with each popup (`admin/home/popup/stats`: shows, closes, clicks,
//! "don't show again", in all and by distinct accounts and visitors), daily
//! caps counted in the viewer's time zone across a midnight (with the
//! check-in's file clock, `EASEL_AWARDS_CLOCK_FILE`), modules listing theme
//! activities, and the feature switches `app/fetch` answers.

use std::path::PathBuf;

use protocol::awards::{Day, Zone};
use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{rand_suffix, spawn_app_with, TestApp};

const H: i64 = 3_600_000;

fn assert_code<T: std::fmt::Debug>(r: Result<T, ClientError>, code: ErrorCode) {
    let e = r.expect_err("expected an error");
    let st = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    assert_eq!(st.code, code.code(), "{st:?}");
}

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn save(op: &RestClient, kind: &str, item: Value) -> String {
    let v = post(
        op,
        &format!("/api/v1/admin/home/{kind}/save"),
        json!({ "item": item }),
    )
    .await;
    v["id"].as_str().unwrap().to_owned()
}

async fn publish(op: &RestClient) {
    post(op, "/api/v1/admin/home/publish", json!({})).await;
}

fn visitor(app: &TestApp) -> RestClient {
    app.client.with_device(format!("hp{}", rand_suffix()))
}

/// An app whose clock (check-ins' and the home page's) is read from a file.
struct Clocked {
    app: TestApp,
    file: PathBuf,
    _dir: tempfile::TempDir,
}

impl Clocked {
    async fn start(at: i64) -> Clocked {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("now");
        std::fs::write(&file, at.to_string()).unwrap();
        let app = spawn_app_with(&[("EASEL_AWARDS_CLOCK_FILE", file.to_str().unwrap())]).await;
        Clocked {
            app,
            file,
            _dir: dir,
        }
    }

    fn set(&self, at: i64) {
        std::fs::write(&self.file, at.to_string()).unwrap();
    }
}

/// `iso` at `hour` o'clock UTC, in milliseconds.
fn utc(iso: &str, hour: i64) -> i64 {
    Zone::utc().start_of(Day::parse_iso(iso).unwrap()) + hour * H
}

async fn shows(c: &RestClient, tz: Option<&str>) -> bool {
    let body = match tz {
        Some(tz) => json!({"lang": "en", "tz": tz}),
        None => json!({"lang": "en"}),
    };
    let v = post(c, "/api/v1/face-photo/get", body).await;
    v["show"].as_bool().unwrap()
}

#[tokio::test]
async fn daily_caps_count_days_in_the_viewers_zone_across_midnight() {
    // 23:30 in Shanghai (15:30 UTC).
    let t = Clocked::start(utc("2026-11-27", 15) + 30 * 60_000).await;
    let op = t.app.operator().await;
    save(
        &op,
        "popup",
        json!({"kind": "notice", "title": "Daily tip", "enabled": true, "cap": "daily"}),
    )
    .await;
    publish(&op).await;

    // An account whose check-in pinned Asia/Shanghai; whatever zone its
    // client sends later, its days are Shanghai's.
    let (_, chen) = t.app.user("Chen").await;
    post(
        &chen,
        "/api/v1/activity/checkin",
        json!({"tz": "Asia/Shanghai"}),
    )
    .await;
    // A visitor in Shanghai (by the zone it sends), one in Los Angeles and
    // one that sends none (UTC).
    let (sh, la, plain) = (visitor(&t.app), visitor(&t.app), visitor(&t.app));
    assert!(shows(&chen, Some("America/Los_Angeles")).await);
    assert!(shows(&sh, Some("Asia/Shanghai")).await);
    assert!(shows(&la, Some("America/Los_Angeles")).await);
    assert!(shows(&plain, Some("Not/AZone")).await);
    let info = post(&chen, "/api/v1/face-photo/popup-info", json!({})).await;
    assert_eq!(info["time_zone"], "Asia/Shanghai");
    assert_eq!(info["popups"][0]["decision"], "capped");
    // The next day starts at Shanghai's midnight: 16:00 UTC.
    assert_eq!(info["popups"][0]["next_at"], utc("2026-11-27", 16));

    // 23:59 in Shanghai: still the same day for everyone.
    t.set(utc("2026-11-27", 16) - 60_000);
    assert!(!shows(&chen, None).await);
    assert!(!shows(&sh, Some("Asia/Shanghai")).await);

    // 00:30 in Shanghai (16:30 UTC, 08:30 in Los Angeles): a new day in
    // Shanghai only.
    t.set(utc("2026-11-27", 16) + 30 * 60_000);
    assert!(shows(&chen, Some("America/Los_Angeles")).await);
    assert!(shows(&sh, Some("Asia/Shanghai")).await);
    assert!(!shows(&la, Some("America/Los_Angeles")).await);
    assert!(!shows(&plain, None).await);

    // UTC midnight: a new day for the visitor without a zone; Los Angeles
    // is still on the 27th (16:00 there).
    t.set(utc("2026-11-28", 0));
    assert!(shows(&plain, None).await);
    assert!(!shows(&la, Some("America/Los_Angeles")).await);
    // Los Angeles' midnight is 08:00 UTC.
    t.set(utc("2026-11-28", 8));
    assert!(shows(&la, Some("America/Los_Angeles")).await);
    assert!(!shows(&chen, None).await);
}

async fn stats(op: &RestClient) -> Value {
    post(op, "/api/v1/admin/home/popup/stats", json!({})).await["stats"].clone()
}

#[tokio::test]
async fn popup_stats_count_events_and_distinct_viewers() {
    let app = spawn_app_with(&[("EASEL_HOME_TEST_CLOCK", "1")]).await;
    let op = app.operator().await;
    let t0 = 1_796_115_600_000_i64; // 2026-12-01 09:00 UTC
    post(&op, "/api/v1/admin/home/clock", json!({"now_ms": t0})).await;
    let id = save(
        &op,
        "popup",
        json!({"kind": "notice", "title": "Every visit", "enabled": true,
               "cap": "every_visit", "allow_dont_pop": true, "link": "/en/activities"}),
    )
    .await;
    let other = save(
        &op,
        "popup",
        json!({"kind": "notice", "title": "Never shown", "enabled": false}),
    )
    .await;
    publish(&op).await;

    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;
    let v = visitor(&app);
    // Ann sees it on two visits, Bob and a visitor on one.
    assert!(shows(&ann, None).await);
    assert!(!shows(&ann, None).await);
    post(&op, "/api/v1/admin/home/clock", json!({"now_ms": t0 + H})).await;
    assert!(shows(&ann, None).await);
    assert!(shows(&bob, None).await);
    assert!(shows(&v, None).await);
    let mark = |c: &RestClient, action: &str| {
        let c = c.clone();
        let body = json!({"id": id, "action": action});
        async move { post(&c, "/api/v1/face-photo/mark-face-photo-popup", body).await }
    };
    // One reaction per show: Ann (shown twice) closes, clicks, and a third
    // report is not counted; Bob clicks; the visitor closes; a stranger
    // never shown it reports a click that is not counted.
    mark(&ann, "close").await;
    mark(&ann, "click").await;
    let extra = mark(&ann, "close").await;
    assert_eq!(
        (extra["closes"].as_i64(), extra["clicks"].as_i64()),
        (Some(1), Some(1))
    );
    mark(&bob, "click").await;
    mark(&v, "close").await;
    let stranger = visitor(&app);
    assert_eq!(mark(&stranger, "click").await["clicks"], 0);
    // "Don't show again": Ann twice (counted once), the visitor, and the
    // stranger (kept for them, not counted: never shown).
    for c in [&ann, &ann, &v, &stranger] {
        post(c, "/api/v1/face-photo/dont-pop", json!({"id": id})).await;
    }

    let s = stats(&op).await;
    let all = s.as_array().unwrap();
    assert_eq!(all.len(), 2, "{s}");
    assert_eq!(all[0]["id"], id.as_str());
    assert_eq!(
        all[0]["shown"],
        json!({"total": 4, "accounts": 2, "visitors": 1})
    );
    assert_eq!(
        all[0]["closed"],
        json!({"total": 2, "accounts": 1, "visitors": 1})
    );
    assert_eq!(
        all[0]["clicked"],
        json!({"total": 2, "accounts": 2, "visitors": 0})
    );
    assert_eq!(
        all[0]["dont_pop"],
        json!({"total": 2, "accounts": 1, "visitors": 1})
    );
    assert_eq!(all[1]["id"], other.as_str());
    assert_eq!(all[1]["shown"]["total"], 0);
    // Looking (app/fetch) is not a show.
    post(&bob, "/api/v1/app/fetch", json!({})).await;
    let one = post(
        &op,
        "/api/v1/admin/home/popup/stats",
        json!({ "ids": [id] }),
    )
    .await;
    assert_eq!(one["stats"][0]["shown"]["total"], 4);
    // Operators only.
    assert_code(
        ann.post::<_, Value>("/api/v1/admin/home/popup/stats", &json!({}))
            .await,
        ErrorCode::NoPermission,
    );
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

async fn activity(op: &RestClient, title: &str, from: i64, to: i64) -> String {
    let a = post(
        op,
        "/api/v1/admin/activity/create",
        json!({"title": title, "rules": "Paint.", "periods": [{"start": from, "end": to}],
               "types": ["work"], "prizes": [100], "judging": "votes", "excellent_count": 3}),
    )
    .await;
    a["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn modules_list_theme_activities_by_id_or_the_open_ones() {
    let app = spawn_app_with(&[]).await;
    let op = app.operator().await;
    let now = now_ms();
    let open = activity(&op, "Autumn colours", now - H, now + H).await;
    let later = activity(&op, "Winter light", now + 24 * H, now + 48 * H).await;
    let picked = save(
        &op,
        "module",
        json!({"title": "Challenges", "enabled": true, "slot": "home-modules",
               "elements": [{"kind": "activity", "id": later}, {"kind": "activity", "id": "nope"},
                            {"kind": "activity", "id": open}]}),
    )
    .await;
    let live = save(
        &op,
        "module",
        json!({"title": "Open now", "enabled": true, "live": {"source": "activities", "size": 5}}),
    )
    .await;
    publish(&op).await;
    let v = visitor(&app);
    let page = post(
        &v,
        "/api/v1/square/component/module/element",
        json!({ "module_id": picked }),
    )
    .await;
    let els = page["elements"].as_array().unwrap();
    // An unknown activity is left out; the others keep the operator's order.
    let ids: Vec<&str> = els.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [later.as_str(), open.as_str()]);
    assert_eq!(els[0]["kind"], "activity");
    assert_eq!(els[0]["card"]["title"], "Winter light");
    assert_eq!(els[0]["card"]["status"], "upcoming");
    assert_eq!(els[1]["card"]["status"], "live");
    // The live query lists the open activities only.
    let page = post(
        &v,
        "/api/v1/square/component/module/element",
        json!({ "module_id": live }),
    )
    .await;
    let ids: Vec<&str> = page["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [open.as_str()]);
    assert_eq!(page["elements"][0]["card"]["title"], "Autumn colours");
}

#[tokio::test]
async fn operators_flip_feature_switches_that_app_fetch_answers() {
    let app = spawn_app_with(&[]).await;
    let op = app.operator().await;
    let (_, user) = app.user("Plain").await;
    let d = post(
        &op,
        "/api/v1/admin/home/features",
        json!({"features": {"checkin": true, "surveys": false}}),
    )
    .await;
    let version = d["draft"]["version"].as_u64().unwrap();
    // A draft until published.
    let cfg = post(&user, "/api/v1/app/fetch", json!({})).await;
    assert_eq!(cfg["features"], json!({}));
    post(
        &op,
        "/api/v1/admin/home/publish",
        json!({ "version": version }),
    )
    .await;
    let cfg = post(&user, "/api/v1/app/fetch", json!({})).await;
    assert_eq!(cfg["features"], json!({"checkin": true, "surveys": false}));
    // Flipped with a stale version: refused, nothing changes.
    assert_code(
        op.post::<_, Value>(
            "/api/v1/admin/home/features",
            &json!({"version": version - 1, "features": {"checkin": false}}),
        )
        .await,
        ErrorCode::HomeDraftChanged,
    );
    // Bad names are refused; users may not set switches.
    assert_code(
        op.post::<_, Value>(
            "/api/v1/admin/home/features",
            &json!({"features": {"Check In": true}}),
        )
        .await,
        ErrorCode::HomeSlotInvalid,
    );
    assert_code(
        user.post::<_, Value>(
            "/api/v1/admin/home/features",
            &json!({"features": {"checkin": false}}),
        )
        .await,
        ErrorCode::NoPermission,
    );
    assert_code(
        app.client
            .post::<_, Value>(
                "/api/v1/admin/home/features",
                &json!({"features": {"checkin": false}}),
            )
            .await,
        ErrorCode::NeedLogin,
    );
    let cfg = post(&user, "/api/v1/app/fetch", json!({})).await;
    assert_eq!(cfg["features"]["checkin"], true);
}
