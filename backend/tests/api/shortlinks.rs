//! Short links and health through the real binary: `url/short` answers
//! `data.cloud_cdn` on the instance, the same URL by the same account the
//! same code, `/s/{code}` redirects (302) and counts clicks, disallowed
//! targets are refused with their codes, new links are rate-limited; expiry
//! with a fixed clock on the service itself. `are/you/ok` answers each
//! part's status, and 503 while the store is down (the test fault switch).

use std::sync::Arc;

use easel::shortlinks::ShortLinkService;
use infra::config::ShortLinkSettings;
use infra::store::embedded::EmbeddedStore;
use protocol::client::{ClientError, RestClient};
use serde_json::{json, Value};

use crate::helpers::spawn_app_with;

fn code<T: std::fmt::Debug>(r: Result<T, ClientError>) -> (i32, String) {
    let e = r.expect_err("expected a refusal");
    let s = e.status().expect("an API error");
    (s.code, s.key.clone().unwrap_or_default())
}

async fn shorten(c: &RestClient, url: &str) -> Result<Value, ClientError> {
    c.post("/api/v1/url/short", &json!({ "url": url })).await
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

#[tokio::test]
async fn short_links_redirect_count_and_refuse_other_hosts() {
    let app = spawn_app_with(&[
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000"),
        ("EASEL_SHORTLINK_HOSTS", "cdn.example.com,*.partner.org"),
        ("EASEL_SHORTLINK_PER_HOUR", "4"),
    ])
    .await;
    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;
    let target = format!("{}/works/42?tab=comments", app.base);

    // Visitors cannot shorten.
    assert_eq!(code(shorten(&app.client, &target).await).0, 20000);

    let v = shorten(&ann, &target).await.unwrap();
    let short = v["cloud_cdn"].as_str().unwrap().to_owned();
    let c = v["code"].as_str().unwrap().to_owned();
    assert_eq!(short, format!("{}/s/{c}", app.base));
    assert_eq!(v["url"], target.as_str());
    // Same URL, same account: same code (also written as a path); another account: another.
    assert_eq!(shorten(&ann, &target).await.unwrap()["code"], c.as_str());
    assert_eq!(
        shorten(&ann, "/works/42?tab=comments").await.unwrap()["code"],
        c.as_str()
    );
    let bobs = shorten(&bob, &target).await.unwrap();
    assert_ne!(bobs["code"], c.as_str());

    // The redirect, counted.
    let http = no_redirects();
    for _ in 0..3 {
        let res = http.get(&short).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 302);
        assert_eq!(
            res.headers().get("location").unwrap().to_str().unwrap(),
            target
        );
    }
    let list: Value = ann
        .post("/api/v1/url/short/list", &json!({}))
        .await
        .unwrap();
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    assert_eq!(list["items"][0]["code"], c.as_str());
    assert_eq!(list["items"][0]["clicks"], 3);
    assert_eq!(list["items"][0]["expired"], false);
    let bob_list: Value = bob
        .post("/api/v1/url/short/list", &json!({}))
        .await
        .unwrap();
    assert_eq!(bob_list["items"][0]["clicks"], 0);

    // Unknown codes: the envelope with 404.
    let res = http
        .get(format!("{}/s/ZZZZZZZZ", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 404);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["status"]["code"], 40672);

    // Other hosts and tricks are refused; allowed hosts are not.
    for (url, want) in [
        ("https://evil.example/phish", 40671),
        ("//evil.example/x", 40671),
        ("https://cdn.example.com.evil.example/", 40671),
        ("https://cdn.exаmple.com/", 40671),
        ("javascript:alert(document.cookie)", 40670),
        ("data:text/html,<b>hi</b>", 40670),
        ("https://cdn.example.com@evil.example/", 40670),
    ] {
        assert_eq!(code(shorten(&bob, url).await).0, want, "{url}");
    }
    let cdn = shorten(&bob, "https://cdn.example.com/a.png")
        .await
        .unwrap();
    let res = http
        .get(cdn["cloud_cdn"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.headers().get("location").unwrap().to_str().unwrap(),
        "https://cdn.example.com/a.png"
    );
    shorten(&bob, "https://img.partner.org/b").await.unwrap();

    // New links are limited per account (4 an hour here: Bob has made 3).
    shorten(&bob, "/a").await.unwrap();
    let (c429, _) = code(shorten(&bob, "/b").await);
    assert_eq!(c429, 42900);
    // Asking again for a link already made is not a new link.
    shorten(&bob, "/a").await.unwrap();
}

#[tokio::test]
async fn links_expire_by_the_clock_and_a_new_code_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(EmbeddedStore::open(dir.path()).unwrap());
    let settings = ShortLinkSettings {
        hosts: Vec::new(),
        expiry_days: 2,
        per_hour: 0,
    };
    let links = ShortLinkService::new(store, settings, &easel::ratelimit::RateLimits::local());
    let base = "https://easel.example";
    let t0 = 1_800_000_000_000;
    let day = 86_400_000;
    let a = links
        .shorten("acct", "https://easel.example/w/1", base, t0)
        .await
        .unwrap();
    assert_eq!(a.expires_at, t0 + 2 * day);
    assert_eq!(a.cloud_cdn, format!("{base}/s/{}", a.code));
    assert_eq!(
        links.follow(&a.code, t0 + 2 * day - 1).await.unwrap(),
        "https://easel.example/w/1"
    );
    let expired = links.follow(&a.code, t0 + 2 * day).await.unwrap_err();
    assert_eq!(expired.code.code(), 40673);
    let listed = links.list("acct", base, t0 + 2 * day).await.unwrap();
    assert!(listed[0].expired);
    assert_eq!(listed[0].clicks, 1);
    // After expiry the same URL gets a new, live code.
    let b = links
        .shorten("acct", "https://easel.example/w/1", base, t0 + 3 * day)
        .await
        .unwrap();
    assert_ne!(a.code, b.code);
    assert_eq!(b.expires_at, t0 + 5 * day);
    assert!(links.follow(&b.code, t0 + 3 * day).await.is_ok());
    assert_eq!(
        links
            .shorten("acct", "https://easel.example/w/1", base, t0 + 4 * day)
            .await
            .unwrap()
            .code,
        b.code
    );
}

#[tokio::test]
async fn are_you_ok_checks_store_queue_and_bus_and_fails_with_the_store_down() {
    let switch = tempfile::tempdir().unwrap();
    let fault = switch.path().join("store-down");
    let app = spawn_app_with(&[("EASEL_TEST_STORE_FAULT_FILE", fault.to_str().unwrap())]).await;
    let http = reqwest::Client::new();
    let url = format!("{}/api/v1/are/you/ok", app.base);

    let res = http.get(&url).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["status"]["code"], 10000);
    assert_eq!(v["data"]["ok"], true);
    for part in ["store", "queue", "bus"] {
        assert_eq!(v["data"][part]["ok"], true, "{part}: {v}");
    }
    assert_eq!(v["data"]["store"]["backend"], "embedded");

    std::fs::write(&fault, b"down").unwrap();
    let (http_status, env) = app
        .client
        .post_raw::<_, Value>("/api/v1/are/you/ok", &json!({}))
        .await
        .unwrap();
    assert_eq!(http_status, 503);
    assert_eq!(env.status.code, 50300);
    assert_eq!(env.status.key.as_deref(), Some("ServiceUnavailable"));
    assert_eq!(env.status.msg, "down: store");
    assert_eq!(env.data["store"]["ok"], false);
    assert!(env.data["store"]["error"]
        .as_str()
        .unwrap()
        .contains("fault switch"));
    assert_eq!(env.data["queue"]["ok"], true);
    assert_eq!(env.data["bus"]["ok"], true);
    // ping stays cheap and up.
    let ping: Value = app.client.post("/api/v1/ping", &json!({})).await.unwrap();
    assert_eq!(ping, "pong");

    std::fs::remove_file(&fault).unwrap();
    let res = http.get(&url).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
}
