//! Sessions, two-factor, lockout and preferences (issue 21): the sessions
//! list and sign-out (sockets close at once), TOTP enrolment, the second
//! sign-in step with a code and a recovery code, a code used twice, the
//! per-pair back-off, the avatar crop and resize, links, language and
//! notification choices.

use std::io::Cursor;

use base64::Engine;
use protocol::account::LoginData;
use protocol::client::{ClientError, Incoming, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};
use totp_rs::{Algorithm, Secret, TOTP};

use crate::helpers::{rand_suffix, spawn_app, spawn_app_with, TestApp, PASSWORD, WAIT};

fn code_of<T: std::fmt::Debug>(r: Result<T, ClientError>) -> i32 {
    r.expect_err("expected an error")
        .status()
        .expect("an API error")
        .code
}

fn totp(secret: &str) -> TOTP {
    TOTP::new(
        Algorithm::SHA1,
        6,
        1,
        30,
        Secret::Encoded(secret.to_owned()).to_bytes().unwrap(),
        None,
        "x".into(),
    )
    .unwrap()
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A code of a step later than any used so far (`step` counts from now).
fn code_at(secret: &str, step: i64) -> String {
    totp(secret).generate((now() as i64 + step * 30) as u64)
}

async fn new_user(app: &TestApp) -> (String, LoginData, RestClient) {
    let email = format!("sec{}@example.com", rand_suffix());
    let data = app.client.sign_up(&email, PASSWORD, "Sec").await.unwrap();
    let client = app.client.with_token(&data.token);
    (email, data, client)
}

async fn login_raw(app: &TestApp, email: &str, password: &str) -> (u16, Value) {
    let (http, env) = app
        .client
        .post_raw::<_, Value>(
            "/api/v1/account/login-in",
            &json!({"type": "email", "email": email, "password": password}),
        )
        .await
        .unwrap();
    (http, serde_json::to_value(env).unwrap())
}

/// Turns two-factor on; answers the secret and the recovery codes.
async fn enable_2fa(client: &RestClient) -> (String, Vec<String>) {
    let e: Value = client
        .post("/api/v1/account/2fa/enrol", &json!({"password": PASSWORD}))
        .await
        .unwrap();
    let secret = e["secret"].as_str().unwrap().to_owned();
    assert!(e["uri"].as_str().unwrap().starts_with("otpauth://totp/"));
    assert!(e["uri"]
        .as_str()
        .unwrap()
        .contains(&format!("secret={secret}")));
    assert!(e["qr"]
        .as_str()
        .unwrap()
        .starts_with("data:image/svg+xml;base64,"));
    let wrong = client
        .post::<_, Value>("/api/v1/account/2fa/confirm", &json!({"code": "000000"}))
        .await;
    assert_eq!(code_of(wrong), ErrorCode::TwoFactorCodeError.code());
    let r: Value = client
        .post(
            "/api/v1/account/2fa/confirm",
            &json!({"code": code_at(&secret, -1)}),
        )
        .await
        .unwrap();
    let codes: Vec<String> = serde_json::from_value(r["recovery_codes"].clone()).unwrap();
    assert_eq!(codes.len(), 10);
    (secret, codes)
}

#[tokio::test]
async fn sessions_are_listed_and_signed_out_one_or_all_others() {
    let app = spawn_app().await;
    let (email, data, first) = new_user(&app).await;
    let http = reqwest::Client::new();
    let second: Value = http
        .post(format!("{}/api/v1/account/login-in", app.base))
        .header(
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
        )
        .json(&json!({"type": "email", "email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let second_token = second["data"]["token"].as_str().unwrap().to_owned();
    let third = app.client.login(&email, PASSWORD).await.unwrap();
    let list: Vec<Value> = first
        .post("/api/v1/account/sessions", &json!({}))
        .await
        .unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[0]["current"], true, "the current session comes first");
    assert_eq!(list.iter().filter(|s| s["current"] == true).count(), 1);
    assert!(list.iter().any(|s| s["device"] == "Chrome on Linux"));
    for s in &list {
        assert_eq!(s["address"], "127.0.0.1");
        assert!(s["created_at"].as_i64().unwrap() > 1_700_000_000);
        let id = s["id"].as_str().unwrap();
        assert!(!id.is_empty() && !data.token.contains(id) && !second_token.contains(id));
    }
    // Sign out the Chrome session: its socket closes, its token ends.
    let mut chrome_socket = app.socket(&second_token).await;
    let chrome_id = list
        .iter()
        .find(|s| s["device"] == "Chrome on Linux")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let _: Value = first
        .post("/api/v1/account/sessions/revoke", &json!({"id": chrome_id}))
        .await
        .unwrap();
    match chrome_socket.recv_timeout(WAIT).await.unwrap() {
        Incoming::Closed(Some((code, _))) => assert_eq!(code, 4401),
        other => panic!("expected close 4401, got {other:?}"),
    }
    assert_eq!(
        code_of(app.client.with_token(&second_token).info().await),
        ErrorCode::NeedLogin.code()
    );
    // Another account's session id answers like a missing one.
    let (_, _, stranger) = new_user(&app).await;
    let mine: Vec<Value> = first
        .post("/api/v1/account/sessions", &json!({}))
        .await
        .unwrap();
    let other_id = mine.iter().find(|s| s["current"] == false).unwrap()["id"].clone();
    assert_eq!(
        code_of(
            stranger
                .post::<_, Value>("/api/v1/account/sessions/revoke", &json!({"id": other_id}))
                .await
        ),
        ErrorCode::NotFound.code()
    );
    // Sign out all others: the third session ends, the current one stays.
    let mut third_socket = app.socket(&third.token).await;
    let ended: Value = first
        .post("/api/v1/account/sessions/revoke-others", &json!({}))
        .await
        .unwrap();
    assert_eq!(ended["ended"], 1);
    match third_socket.recv_timeout(WAIT).await.unwrap() {
        Incoming::Closed(Some((code, _))) => assert_eq!(code, 4401),
        other => panic!("expected close 4401, got {other:?}"),
    }
    assert_eq!(
        code_of(app.client.with_token(&third.token).info().await),
        ErrorCode::NeedLogin.code()
    );
    first.info().await.unwrap();
    let left: Vec<Value> = first
        .post("/api/v1/account/sessions", &json!({}))
        .await
        .unwrap();
    assert_eq!(left.len(), 1);
    // Without a token: NeedLogin.
    assert_eq!(
        code_of(
            app.client
                .post::<_, Value>("/api/v1/account/sessions", &json!({}))
                .await
        ),
        ErrorCode::NeedLogin.code()
    );
}

#[tokio::test]
async fn two_factor_sign_in_with_a_code_then_a_recovery_code() {
    // Wrong codes here are on purpose: the back-off has its own tests.
    let app = spawn_app_with(&[("EASEL_LOCKOUT_FREE_FAILURES", "50")]).await;
    let (email, _, client) = new_user(&app).await;
    // Enrolment needs the password.
    assert_eq!(
        code_of(
            client
                .post::<_, Value>(
                    "/api/v1/account/2fa/enrol",
                    &json!({"password": "wrong password"})
                )
                .await
        ),
        ErrorCode::PasswordError.code()
    );
    // Confirm without enrolment: wrong state.
    assert_eq!(
        code_of(
            client
                .post::<_, Value>("/api/v1/account/2fa/confirm", &json!({"code": "123456"}))
                .await
        ),
        ErrorCode::TwoFactorState.code()
    );
    let (secret, recovery) = enable_2fa(&client).await;
    let st: Value = client
        .post("/api/v1/account/2fa/status", &json!({}))
        .await
        .unwrap();
    assert_eq!(st["enabled"], true);
    assert_eq!(st["recovery_left"], 10);
    assert_eq!(
        code_of(
            client
                .post::<_, Value>("/api/v1/account/2fa/enrol", &json!({"password": PASSWORD}))
                .await
        ),
        ErrorCode::TwoFactorState.code()
    );

    // The password alone answers the second step, no token.
    let (http, env) = login_raw(&app, &email, PASSWORD).await;
    assert_eq!(http, 200);
    assert_eq!(env["status"]["code"], 10000);
    assert_eq!(env["data"]["second_step"], "totp");
    assert_eq!(env["data"]["expires_in"], 300);
    assert!(env["data"].get("token").is_none());
    let challenge = env["data"]["challenge"].as_str().unwrap().to_owned();
    let step = |body: Value| {
        let c = app.client.clone();
        async move {
            c.post::<_, LoginData>("/api/v1/account/login-in/2fa", &body)
                .await
        }
    };
    assert_eq!(
        code_of(step(json!({"challenge": challenge, "code": "000000"})).await),
        ErrorCode::TwoFactorCodeError.code()
    );
    // The code used at confirmation (step -1) is not accepted again.
    assert_eq!(
        code_of(step(json!({"challenge": challenge, "code": code_at(&secret, -1)})).await),
        ErrorCode::TwoFactorCodeError.code()
    );
    let code = code_at(&secret, 0);
    let done = step(json!({"challenge": challenge, "code": code}))
        .await
        .unwrap();
    assert_eq!(done.account.email, email);
    app.client.with_token(&done.token).info().await.unwrap();
    // The challenge is single use.
    assert_eq!(
        code_of(step(json!({"challenge": challenge, "code": code_at(&secret, 1)})).await),
        ErrorCode::TwoFactorChallengeExpired.code()
    );
    // The same code on a new challenge: refused (used).
    let (_, env) = login_raw(&app, &email, PASSWORD).await;
    let challenge = env["data"]["challenge"].as_str().unwrap().to_owned();
    assert_eq!(
        code_of(step(json!({"challenge": challenge, "code": code})).await),
        ErrorCode::TwoFactorCodeError.code()
    );
    // A recovery code works once.
    let r = recovery[3].to_uppercase();
    step(json!({"challenge": challenge, "recovery_code": r}))
        .await
        .unwrap();
    let (_, env) = login_raw(&app, &email, PASSWORD).await;
    let challenge = env["data"]["challenge"].as_str().unwrap().to_owned();
    assert_eq!(
        code_of(step(json!({"challenge": challenge, "recovery_code": r})).await),
        ErrorCode::TwoFactorCodeError.code()
    );
    let st: Value = client
        .post("/api/v1/account/2fa/status", &json!({}))
        .await
        .unwrap();
    assert_eq!(st["recovery_left"], 9);
    // An unknown challenge.
    assert_eq!(
        code_of(step(json!({"challenge": "ab".repeat(32), "code": "123456"})).await),
        ErrorCode::TwoFactorChallengeExpired.code()
    );

    // Disable: password and a code.
    assert_eq!(
        code_of(
            client
                .post::<_, Value>(
                    "/api/v1/account/2fa/disable",
                    &json!({"password": PASSWORD, "code": "000000"})
                )
                .await
        ),
        ErrorCode::TwoFactorCodeError.code()
    );
    let _: Value = client
        .post(
            "/api/v1/account/2fa/disable",
            &json!({"password": PASSWORD, "recovery_code": recovery[0]}),
        )
        .await
        .unwrap();
    let again = app.client.login(&email, PASSWORD).await.unwrap();
    assert!(!again.token.is_empty());
}

#[tokio::test]
async fn a_challenge_ends_after_five_wrong_codes() {
    let app = spawn_app_with(&[("EASEL_LOCKOUT_FREE_FAILURES", "50")]).await;
    let (email, _, client) = new_user(&app).await;
    let (secret, _) = enable_2fa(&client).await;
    let (_, env) = login_raw(&app, &email, PASSWORD).await;
    let challenge = env["data"]["challenge"].as_str().unwrap().to_owned();
    for _ in 0..5 {
        let r = app
            .client
            .post::<_, Value>(
                "/api/v1/account/login-in/2fa",
                &json!({"challenge": challenge, "code": "000000"}),
            )
            .await;
        assert_eq!(code_of(r), ErrorCode::TwoFactorCodeError.code());
    }
    let r = app
        .client
        .post::<_, Value>(
            "/api/v1/account/login-in/2fa",
            &json!({"challenge": challenge, "code": code_at(&secret, 0)}),
        )
        .await;
    assert_eq!(code_of(r), ErrorCode::TwoFactorChallengeExpired.code());
}

#[tokio::test]
async fn wrong_passwords_back_off_per_account_and_address() {
    // Default policy: three free failures, then 30 s doubling.
    let app = spawn_app().await;
    let (email, _, _) = new_user(&app).await;
    let (other_email, _, _) = new_user(&app).await;
    for _ in 0..3 {
        let (_, env) = login_raw(&app, &email, "wrong password!").await;
        assert_eq!(env["status"]["code"], ErrorCode::PasswordError.code());
    }
    // Even the right password waits now, from this address.
    let (http, env) = login_raw(&app, &email, PASSWORD).await;
    assert_eq!(http, 429);
    assert_eq!(env["status"]["code"], ErrorCode::TooManyAttempts.code());
    assert_eq!(env["status"]["key"], "tooManyAttempts");
    // Another account from the same address is not slowed.
    app.client.login(&other_email, PASSWORD).await.unwrap();
}

#[tokio::test]
async fn the_account_cap_stops_new_devices_but_not_a_known_one() {
    let app = spawn_app_with(&[
        ("EASEL_LOCKOUT_FREE_FAILURES", "100"),
        ("EASEL_LOCKOUT_ACCOUNT_CAP", "4"),
    ])
    .await;
    let (email, _, _) = new_user(&app).await;
    let http = reqwest::Client::new();
    let login = |device: &'static str, password: &'static str| {
        let http = http.clone();
        let url = format!("{}/api/v1/account/login-in", app.base);
        let email = email.clone();
        async move {
            let v: Value = http
                .post(url)
                .header("cookie", format!("deviceId={device}"))
                .json(&json!({"type": "email", "email": email, "password": password}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            v["status"]["code"].as_i64().unwrap()
        }
    };
    // The owner signs in once on their device: it becomes known.
    assert_eq!(login("ownerdevice1", PASSWORD).await, 10000);
    for _ in 0..4 {
        assert_eq!(
            login("attacker0001", "wrong password!").await,
            i64::from(ErrorCode::PasswordError.code())
        );
    }
    // Over the cap: a new device is refused even with the right password...
    assert_eq!(
        login("newdevice001", PASSWORD).await,
        i64::from(ErrorCode::TooManyAttempts.code())
    );
    // ...the owner's known device is not.
    assert_eq!(login("ownerdevice1", PASSWORD).await, 10000);
}

#[tokio::test]
async fn wrong_two_factor_codes_back_off_too() {
    let app = spawn_app().await;
    let (_, _, client) = new_user(&app).await;
    let _: Value = client
        .post("/api/v1/account/2fa/enrol", &json!({"password": PASSWORD}))
        .await
        .unwrap();
    for _ in 0..3 {
        let r = client
            .post::<_, Value>("/api/v1/account/2fa/confirm", &json!({"code": "000000"}))
            .await;
        assert_eq!(code_of(r), ErrorCode::TwoFactorCodeError.code());
    }
    let r = client
        .post::<_, Value>("/api/v1/account/2fa/confirm", &json!({"code": "000000"}))
        .await;
    assert_eq!(code_of(r), ErrorCode::TooManyAttempts.code());
}

fn png(w: u32, h: u32) -> String {
    let img = image::RgbImage::from_fn(w, h, |x, _| {
        if x < w / 2 {
            image::Rgb([250, 0, 0])
        } else {
            image::Rgb([0, 0, 250])
        }
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    base64::engine::general_purpose::STANDARD.encode(out)
}

#[tokio::test]
async fn avatar_is_cropped_and_resized_and_prefs_are_checked() {
    let app = spawn_app().await;
    let (_, data, client) = new_user(&app).await;
    let profile: Value = client
        .post(
            "/api/v1/account/avatar",
            &json!({"image": png(400, 200), "crop": {"x": 0, "y": 0, "size": 200}}),
        )
        .await
        .unwrap();
    let url = profile["avatar"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("/files/avatars/{}/", data.account.id)),
        "{url}"
    );
    let bytes = reqwest::get(format!("{}{url}", app.base))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!((img.width(), img.height()), (256, 256));
    // The left half was kept: red everywhere.
    let px = img.to_rgb8();
    assert!(px.get_pixel(250, 128)[0] > 200);
    // A second avatar replaces the first, which is removed.
    let profile: Value = client
        .post("/api/v1/account/avatar", &json!({"image": png(300, 300)}))
        .await
        .unwrap();
    assert_ne!(profile["avatar"], url.as_str());
    let gone = reqwest::get(format!("{}{url}", app.base)).await.unwrap();
    assert_eq!(gone.status(), 404);
    for bad in [
        json!({"image": "not base64!"}),
        json!({"image": base64::engine::general_purpose::STANDARD.encode(b"text")}),
        json!({"image": png(100, 100), "crop": {"x": 50, "y": 0, "size": 100}}),
    ] {
        let r = client
            .post::<_, Value>("/api/v1/account/avatar", &bad)
            .await;
        assert_eq!(code_of(r), ErrorCode::AvatarInvalid.code());
    }

    let p: Value = client
        .post("/api/v1/account/prefs", &json!({}))
        .await
        .unwrap();
    assert_eq!(p["links"], json!([]));
    assert_eq!(p["notify"]["like"], true);
    let p: Value = client
        .post(
            "/api/v1/account/prefs/update",
            &json!({"links": ["https://example.com/me"], "language": "fr", "notify": {"like": false}}),
        )
        .await
        .unwrap();
    assert_eq!(p["links"], json!(["https://example.com/me"]));
    assert_eq!(p["language"], "fr");
    assert_eq!(p["notify"]["like"], false);
    assert_eq!(p["notify"]["follow"], true);
    let six: Vec<String> = (0..6).map(|i| format!("https://x{i}.example")).collect();
    for (bad, code) in [
        (
            json!({"links": ["javascript:alert(1)"]}),
            ErrorCode::ProfileLinkInvalid,
        ),
        (json!({"links": six}), ErrorCode::ProfileLinkInvalid),
        (json!({"language": "xx"}), ErrorCode::ProfileSettingInvalid),
        (
            json!({"notify": {"moderation": false}}),
            ErrorCode::ProfileSettingInvalid,
        ),
        (json!({"colour": "red"}), ErrorCode::InvalidParams),
    ] {
        let r = client
            .post::<_, Value>("/api/v1/account/prefs/update", &bad)
            .await;
        assert_eq!(code_of(r), code.code(), "{bad}");
    }
}

#[tokio::test]
async fn a_kind_turned_off_does_not_notify() {
    let app = spawn_app().await;
    let (_, a, a_client) = new_user(&app).await;
    let (_, b, b_client) = new_user(&app).await;
    let _: Value = a_client
        .post(
            "/api/v1/account/prefs/update",
            &json!({"notify": {"follow": false}}),
        )
        .await
        .unwrap();
    let _: Value = b_client
        .post(
            "/api/v1/account/follow",
            &json!({"account_id": a.account.id}),
        )
        .await
        .unwrap();
    let _: Value = a_client
        .post(
            "/api/v1/account/follow",
            &json!({"account_id": b.account.id}),
        )
        .await
        .unwrap();
    let a_list: Value = a_client
        .post("/api/v1/notification/list", &json!({}))
        .await
        .unwrap();
    let b_list: Value = b_client
        .post("/api/v1/notification/list", &json!({}))
        .await
        .unwrap();
    let count = |v: &Value| v["items"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(count(&a_list), 0, "{a_list}");
    assert_eq!(count(&b_list), 1, "{b_list}");
}

#[tokio::test]
async fn without_two_factor_login_answers_the_token_at_once() {
    let app = spawn_app().await;
    let (email, _, _) = new_user(&app).await;
    let (_, env) = login_raw(&app, &email, PASSWORD).await;
    assert!(env["data"]["token"].as_str().is_some());
    assert!(env["data"].get("second_step").is_none());
}
