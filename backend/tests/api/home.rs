//! The home page's composition (issue 22 part 3) through the real server:
//! operators compose a draft, preview it, publish it; viewers get banners,
//! slots, modules and face-photo popups by audience, language, schedule and
//! frequency cap, with "don't show again". Day boundaries use the server's
//! test clock (`EASEL_HOME_TEST_CLOCK=1`, set by `admin/home/clock`).

use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{rand_suffix, spawn_app_with, TestApp};

const DAY: i64 = 86_400_000;
/// 2026-12-01 09:00 UTC: a fixed clock.
const T0: i64 = 1_796_115_600_000;

fn assert_code<T: std::fmt::Debug>(r: Result<T, ClientError>, code: ErrorCode) {
    let e = r.expect_err("expected an error");
    let st = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    assert_eq!(st.code, code.code(), "{st:?}");
    assert_eq!(st.key.as_deref(), Some(code.key()));
}

async fn app() -> (TestApp, RestClient) {
    let app = spawn_app_with(&[
        ("EASEL_HOME_TEST_CLOCK", "1"),
        ("EASEL_HOME_LINK_HOSTS", "cdn.example.com"),
    ])
    .await;
    let op = app.operator().await;
    set_clock(&op, T0).await;
    (app, op)
}

async fn set_clock(op: &RestClient, ms: i64) {
    let v: Value = op
        .post("/api/v1/admin/home/clock", &json!({"now_ms": ms}))
        .await
        .unwrap();
    assert_eq!(v["now_ms"], ms);
}

async fn save(op: &RestClient, kind: &str, item: Value) -> String {
    let v: Value = op
        .post(
            &format!("/api/v1/admin/home/{kind}/save"),
            &json!({"item": item}),
        )
        .await
        .unwrap();
    v["id"].as_str().unwrap().to_owned()
}

async fn publish(op: &RestClient) {
    let _: Value = op
        .post("/api/v1/admin/home/publish", &json!({}))
        .await
        .unwrap();
}

async fn get_popup(c: &RestClient, lang: &str) -> Value {
    c.post("/api/v1/face-photo/get", &json!({"lang": lang}))
        .await
        .unwrap()
}

fn visitor(app: &TestApp) -> RestClient {
    app.client.with_device(format!("home{}", rand_suffix()))
}

#[tokio::test]
async fn a_daily_popup_shows_once_a_day_and_dont_pop_ends_it() {
    let (app, op) = app().await;
    let id = save(
        &op,
        "popup",
        json!({"title": "Winter challenge", "body": "Paint the snow", "image": "/files/p/snow.png",
               "link": "/en/activity/1", "enabled": true, "cap": "daily", "allow_dont_pop": true}),
    )
    .await;
    publish(&op).await;
    let v = visitor(&app);

    let first = get_popup(&v, "en").await;
    assert_eq!(first["show"], true, "{first}");
    assert_eq!(first["popup"]["id"], id.as_str());
    assert_eq!(first["popup"]["title"], "Winter challenge");
    // Later the same day (and across another request): not again.
    set_clock(&op, T0 + 3 * 3_600_000).await;
    assert_eq!(get_popup(&v, "en").await["show"], false);
    let info: Value = v
        .post("/api/v1/face-photo/popup-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(info["popups"][0]["shown"], 1);
    assert_eq!(info["popups"][0]["decision"], "capped");
    assert_eq!(info["popups"][0]["next_at"], (T0 / DAY + 1) * DAY);
    // The next UTC day: once more.
    set_clock(&op, T0 + DAY).await;
    assert_eq!(get_popup(&v, "en").await["show"], true);
    assert_eq!(get_popup(&v, "en").await["show"], false);

    // Closing is recorded; "don't show again" ends it for good.
    let m: Value = v
        .post(
            "/api/v1/face-photo/mark-face-photo-popup",
            &json!({"id": id, "action": "close"}),
        )
        .await
        .unwrap();
    assert_eq!(m["closes"], 1);
    let _: Value = v
        .post("/api/v1/face-photo/dont-pop", &json!({"id": id}))
        .await
        .unwrap();
    set_clock(&op, T0 + 5 * DAY).await;
    assert_eq!(get_popup(&v, "en").await["show"], false);
    // Another visitor still gets it.
    assert_eq!(get_popup(&visitor(&app), "en").await["show"], true);
    // Unknown popups answer like missing ones; bad actions with a key.
    assert_code(
        v.post::<_, Value>("/api/v1/face-photo/dont-pop", &json!({"id": "nope"}))
            .await,
        ErrorCode::NotFound,
    );
    assert_code(
        v.post::<_, Value>(
            "/api/v1/face-photo/mark-face-photo-popup",
            &json!({"id": id, "action": "explode"}),
        )
        .await,
        ErrorCode::InvalidParams,
    );
}

#[tokio::test]
async fn targeting_schedule_and_drafts() {
    let (app, op) = app().await;
    let (member_login, member) = app.user("Member").await;
    let _: Value = op
        .post(
            "/api/v1/admin/account/membership",
            &json!({"account_id": member_login.account.id,
                    "payment": {"activeState": true, "liteActiveState": false, "infiniteQueue": false, "productLevel": 1}}),
        )
        .await
        .unwrap();
    let (_, free) = app.user("Free").await;
    let v = visitor(&app);

    save(
        &op,
        "banner",
        json!({"title": "For visitors", "image": "/files/b/1.png", "order": 2, "enabled": true,
                               "targeting": {"audiences": ["visitor"]}}),
    )
    .await;
    save(
        &op,
        "banner",
        json!({"title": "For members", "image": "https://cdn.example.com/m.png", "order": 1,
                               "enabled": true, "targeting": {"audiences": ["member"]}}),
    )
    .await;
    save(
        &op,
        "banner",
        json!({"title": "Chinese only", "image": "/files/b/zh.png", "enabled": true,
                               "targeting": {"languages": ["zh-CN"]}}),
    )
    .await;
    save(
        &op,
        "banner",
        json!({"title": "Next week", "image": "/files/b/w.png", "enabled": true,
                               "schedule": {"start": T0 + 7 * DAY, "end": T0 + 8 * DAY}}),
    )
    .await;
    save(
        &op,
        "banner",
        json!({"title": "Off", "image": "/files/b/off.png", "enabled": false}),
    )
    .await;
    save(
        &op,
        "banner",
        json!({"title": "Side", "image": "/files/b/side.png", "enabled": true,
                               "slot": "generator-side"}),
    )
    .await;

    // Nothing is published yet: the draft is invisible to users.
    let titles = |v: Value| -> Vec<String> {
        v["banners"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["title"].as_str().unwrap().to_owned())
            .collect()
    };
    let b: Value = v
        .post("/api/v1/banner/home", &json!({"lang": "en"}))
        .await
        .unwrap();
    assert!(titles(b).is_empty());
    publish(&op).await;

    let banners = |c: RestClient, lang: &'static str| async move {
        let b: Value = c
            .post(
                "/api/v1/banner/home",
                &json!({"lang": lang, "slot": "home-top"}),
            )
            .await
            .unwrap();
        titles(b)
    };
    assert_eq!(banners(v.clone(), "en").await, ["For visitors"]);
    assert_eq!(banners(free.clone(), "en").await, Vec::<String>::new());
    assert_eq!(banners(member.clone(), "en").await, ["For members"]);
    assert_eq!(banners(free.clone(), "zh").await, ["Chinese only"]);
    assert_eq!(
        banners(v.clone(), "zh-TW").await,
        ["Chinese only", "For visitors"]
    );
    // The schedule: on in its week only.
    set_clock(&op, T0 + 7 * DAY).await;
    assert_eq!(banners(free.clone(), "en").await, ["Next week"]);
    set_clock(&op, T0 + 8 * DAY).await;
    assert!(banners(free.clone(), "en").await.is_empty());

    // Slots group what shows where.
    let slots: Value = v
        .post("/api/v1/slot/list", &json!({"lang": "en"}))
        .await
        .unwrap();
    let names: Vec<&str> = slots["slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["generator-side", "home-top"]);

    // A draft change is invisible until published again.
    save(
        &op,
        "banner",
        json!({"title": "Draft only", "image": "/files/b/d.png", "enabled": true}),
    )
    .await;
    assert_eq!(banners(v.clone(), "en").await, ["For visitors"]);
    let preview: Value = op
        .post(
            "/api/v1/square/component/page/preview",
            &json!({"audience": "visitor", "lang": "en"}),
        )
        .await
        .unwrap();
    let ptitles: Vec<&str> = preview["banners"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["slot"] == "home-top")
        .map(|b| b["title"].as_str().unwrap())
        .collect();
    assert_eq!(ptitles, ["Draft only", "For visitors"]);
    // Preview is for operators only.
    assert_code(
        free.post::<_, Value>("/api/v1/square/component/page/preview", &json!({}))
            .await,
        ErrorCode::NoPermission,
    );
    assert_code(
        v.post::<_, Value>("/api/v1/square/component/page/preview", &json!({}))
            .await,
        ErrorCode::NeedLogin,
    );
    assert_code(
        free.post::<_, Value>("/api/v1/admin/home/draft", &json!({}))
            .await,
        ErrorCode::NoPermission,
    );

    // Popups are targeted too: a members-only popup never reaches a free account.
    save(
        &op,
        "popup",
        json!({"kind": "notice", "title": "Members' night", "enabled": true,
                              "cap": "once", "targeting": {"audiences": ["member"]}}),
    )
    .await;
    publish(&op).await;
    assert_eq!(get_popup(&free, "en").await["show"], false);
    assert_eq!(get_popup(&member, "en").await["show"], true);
    assert_eq!(get_popup(&member, "en").await["show"], false);

    // app/fetch tells the app what is on for this viewer.
    let cfg: Value = v
        .post("/api/v1/app/fetch", &json!({"lang": "en"}))
        .await
        .unwrap();
    assert_eq!(cfg["audience"], "visitor");
    assert_eq!(cfg["banners"], 3);
}

#[tokio::test]
async fn links_to_foreign_hosts_and_bad_items_are_refused() {
    let (_app, op) = app().await;
    let save_raw = |kind: &'static str, item: Value| {
        let op = op.clone();
        async move {
            op.post::<_, Value>(
                &format!("/api/v1/admin/home/{kind}/save"),
                &json!({"item": item}),
            )
            .await
        }
    };
    assert_code(
        save_raw(
            "banner",
            json!({"image": "/files/b.png", "link": "https://evil.example.net/win"}),
        )
        .await,
        ErrorCode::HomeLinkForeign,
    );
    assert_code(
        save_raw("banner", json!({"image": "//evil.example.net/b.png"})).await,
        ErrorCode::HomeLinkInvalid,
    );
    assert_code(
        save_raw(
            "popup",
            json!({"kind": "notice", "title": "x", "link": "javascript:alert(1)"}),
        )
        .await,
        ErrorCode::HomeLinkInvalid,
    );
    assert_code(
        save_raw(
            "banner",
            json!({"image": "/b.png", "schedule": {"start": T0, "end": T0}}),
        )
        .await,
        ErrorCode::HomeScheduleInvalid,
    );
    assert_code(
        save_raw("module", json!({"title": "Empty"})).await,
        ErrorCode::HomeModuleInvalid,
    );
    // An allowed host is fine.
    save(
        &op,
        "banner",
        json!({"image": "/files/b.png", "link": "https://cdn.example.com/sale"}),
    )
    .await;
    // A stale draft version is refused.
    let d: Value = op
        .post("/api/v1/admin/home/draft", &json!({}))
        .await
        .unwrap();
    let version = d["draft"]["version"].as_u64().unwrap();
    assert_code(
        op.post::<_, Value>(
            "/api/v1/admin/home/banner/save",
            &json!({"version": version - 1, "item": {"image": "/b.png"}}),
        )
        .await,
        ErrorCode::HomeDraftChanged,
    );
}

#[tokio::test]
async fn modules_list_their_elements_and_wakeup_waits_for_absence() {
    let (app, op) = app().await;
    let live = save(&op, "module", json!({"title": "Hot this week", "enabled": true,
                                          "live": {"source": "works", "order": "hot", "window": "week"}})).await;
    let ids = save(&op, "module", json!({"title": "Picked", "enabled": true, "slot": "generator-side",
                                         "elements": [{"kind": "work", "id": "missing-work"},
                                                      {"kind": "character", "id": "missing-char"}]})).await;
    save(
        &op,
        "popup",
        json!({"kind": "wakeup", "title": "Welcome back", "enabled": true,
                              "away_days": 3, "cap": "weekly"}),
    )
    .await;
    publish(&op).await;
    let (_, user) = app.user("Returning").await;

    let list: Value = user
        .post("/api/v1/theme-activity/face-popup/module-list", &json!({}))
        .await
        .unwrap();
    assert_eq!(list["modules"].as_array().unwrap().len(), 2);
    let batch: Value = user
        .post(
            "/api/v1/theme-activity/face-popup/batch-content",
            &json!({"module_ids": [live, ids, "unknown"]}),
        )
        .await
        .unwrap();
    let contents = batch["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 2, "{batch}");
    // Elements the viewer may not see (here: missing) are left out.
    assert_eq!(contents[1]["elements"], json!([]));
    assert_code(
        user.post::<_, Value>(
            "/api/v1/square/component/module/element",
            &json!({"module_id": "unknown"}),
        )
        .await,
        ErrorCode::NotFound,
    );
    let cols: Value = user
        .post("/api/v1/square/column/config", &json!({}))
        .await
        .unwrap();
    assert_eq!(cols["columns"].as_array().unwrap().len(), 2);
    assert!(cols["pages"].as_array().unwrap().len() > 5);

    // First visit: no wakeup. Back after 4 days away: once.
    let w: Value = user
        .post("/api/v1/face-photo/mark-wakeup-user-popup", &json!({}))
        .await
        .unwrap();
    assert_eq!(w["show"], false);
    set_clock(&op, T0 + 4 * DAY).await;
    let w: Value = user
        .post("/api/v1/face-photo/mark-wakeup-user-popup", &json!({}))
        .await
        .unwrap();
    assert_eq!(w["show"], true, "{w}");
    assert_eq!(w["away_days"], 4);
    assert_eq!(w["popup"]["title"], "Welcome back");
    let w: Value = user
        .post("/api/v1/face-photo/mark-wakeup-user-popup", &json!({}))
        .await
        .unwrap();
    assert_eq!(w["show"], false);
}
