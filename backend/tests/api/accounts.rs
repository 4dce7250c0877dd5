//! Accounts: sign-up, login, logout, info, payment info, status 1/2/3,
//! tokens, cookies, and bad input answered with the catalogue's codes.

use protocol::account::{status, LoginData};
use protocol::client::{Incoming, Socket};
use protocol::frame::Codec;
use protocol::{Envelope, ErrorCode};
use serde_json::{json, Value};

use crate::helpers::{rand_suffix, spawn_app, spawn_app_with, PASSWORD, WAIT};

fn email() -> String {
    format!("user{}@example.com", rand_suffix())
}

async fn expect_error<T: std::fmt::Debug>(
    r: Result<T, protocol::client::ClientError>,
    code: ErrorCode,
) {
    let e = r.expect_err("expected an error");
    let st = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    assert_eq!(st.code, code.code(), "{st:?}");
    assert_eq!(st.key.as_deref(), Some(code.key()));
    assert_eq!(e.http_status(), Some(code.http_status()));
}

#[tokio::test]
async fn sign_up_and_login_answer_account_and_token_and_set_cookies() {
    let app = spawn_app().await;
    let mail = email();
    let http = reqwest::Client::new();
    let res = http
        .post(format!("{}/api/v1/account/sign-up", app.base))
        .json(&json!({"email": mail.to_uppercase(), "password": PASSWORD, "name": "  Ada  "}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let cookies: Vec<String> = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    let body: Envelope<LoginData> = res.json().await.unwrap();
    assert_eq!(body.status.code, 10000);
    let acc = &body.data.account;
    assert_eq!(acc.email, mail, "e-mail is normalised to lower case");
    assert_eq!(acc.name, "Ada");
    assert_eq!(acc.status, status::NORMAL);
    assert!(acc.create_at > 1_700_000_000);
    assert!(!acc.device_code.is_empty());
    assert_eq!(body.data.token.len(), 64);
    let t = cookies
        .iter()
        .find(|c| c.starts_with("T="))
        .expect("cookie T");
    assert!(t.starts_with(&format!("T={};", body.data.token)), "{t}");
    for attr in ["Max-Age=5184000", "Path=/", "SameSite=Lax"] {
        assert!(t.contains(attr), "{t} lacks {attr}");
    }
    assert!(!t.contains("Secure"), "plain HTTP must not set Secure");
    assert!(
        cookies.iter().any(|c| c.starts_with("deviceId=")),
        "{cookies:?}"
    );

    let again = app.client.login(&mail, PASSWORD).await.unwrap();
    assert_eq!(again.account.id, acc.id);
    assert_ne!(
        again.token, body.data.token,
        "every login gets its own token"
    );
    let info = app.client.with_token(&again.token).info().await.unwrap();
    assert_eq!(info.id, acc.id);
    assert_eq!(info.settings.task_flow_version, 2);
    assert!(!info.admin);
}

#[tokio::test]
async fn sign_up_rejects_bad_input_with_spec_codes() {
    let app = spawn_app().await;
    let c = &app.client;
    expect_error(
        c.sign_up("not-an-email", PASSWORD, "A").await,
        ErrorCode::InvalidEmail,
    )
    .await;
    expect_error(
        c.sign_up(&email(), "short", "A").await,
        ErrorCode::PasswordInvalid,
    )
    .await;
    expect_error(
        c.sign_up(&email(), PASSWORD, &"n".repeat(51)).await,
        ErrorCode::NameInvalid,
    )
    .await;
    let mail = email();
    c.sign_up(&mail, PASSWORD, "A").await.unwrap();
    expect_error(
        c.sign_up(&mail.to_uppercase(), PASSWORD, "B").await,
        ErrorCode::EmailRegistered,
    )
    .await;
    // Missing field and wrong JSON type: InvalidParams in the envelope, HTTP 400.
    let (http, env) = c
        .post_raw::<_, Value>("/api/v1/account/sign-up", &json!({"email": 5}))
        .await
        .unwrap();
    assert_eq!(
        (http, env.status.code, env.status.key.as_deref()),
        (400, 40000, Some("InvalidParams"))
    );
    let res = reqwest::Client::new()
        .post(format!("{}/api/v1/account/login-in", app.base))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let env: Envelope<Value> = res.json().await.unwrap();
    assert_eq!(env.status.code, 40000);
}

#[tokio::test]
async fn login_errors_are_the_spec_codes() {
    let app = spawn_app().await;
    let mail = email();
    app.client.sign_up(&mail, PASSWORD, "A").await.unwrap();
    expect_error(
        app.client.login(&email(), PASSWORD).await,
        ErrorCode::AccountNoExistent,
    )
    .await;
    expect_error(
        app.client.login(&mail, "wrong password!").await,
        ErrorCode::PasswordError,
    )
    .await;
    expect_error(
        app.client.login("bad", PASSWORD).await,
        ErrorCode::InvalidEmail,
    )
    .await;
    let (http, env) = app
        .client
        .post_raw::<_, Value>(
            "/api/v1/account/login-in",
            &json!({"type": "phone", "email": mail, "password": PASSWORD}),
        )
        .await
        .unwrap();
    assert_eq!(
        (http, env.status.key.as_deref()),
        (400, Some("LoginTypeUnsupported"))
    );
}

#[tokio::test]
async fn the_token_header_authenticates_and_the_cookie_alone_does_not() {
    let app = spawn_app().await;
    let (data, client) = app.user("Bob").await;
    assert_eq!(client.info().await.unwrap().name, "Bob");
    expect_error(app.client.info().await, ErrorCode::NeedLogin).await;
    let res = reqwest::Client::new()
        .post(format!("{}/api/v1/account/info", app.base))
        .header("cookie", format!("T={}", data.token))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        401,
        "a cookie must never authenticate a call (no CSRF)"
    );
    expect_error(
        app.client.with_token("f".repeat(64)).info().await,
        ErrorCode::NeedLogin,
    )
    .await;
}

#[tokio::test]
async fn logout_ends_the_token_and_closes_its_sockets_only() {
    let app = spawn_app().await;
    let (data, client) = app.user("Cy").await;
    let second = app
        .client
        .login(&data.account.email, PASSWORD)
        .await
        .unwrap();
    let mut first_socket = app.socket(&data.token).await;
    let mut second_socket = app.socket(&second.token).await;
    client.logout().await.unwrap();
    expect_error(client.info().await, ErrorCode::NeedLogin).await;
    match first_socket.recv_timeout(WAIT).await.unwrap() {
        Incoming::Closed(Some((code, _))) => assert_eq!(code, 4401),
        other => panic!("expected close 4401, got {other:?}"),
    }
    // The other token still works, and its socket stays open.
    assert_eq!(
        app.client
            .with_token(&second.token)
            .info()
            .await
            .unwrap()
            .id,
        data.account.id
    );
    second_socket
        .send(&protocol::Frame::heartbeat())
        .await
        .unwrap();
    second_socket
        .expect(protocol::FrameType::Heartbeat, WAIT)
        .await
        .unwrap();
}

#[tokio::test]
async fn payment_info_has_the_spec_fields() {
    let app = spawn_app().await;
    let (_, client) = app.user("Pay").await;
    let raw: Value = client
        .post("/api/v1/account/payment-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        raw,
        json!({"activeState": false, "liteActiveState": false, "infiniteQueue": false, "productLevel": 0})
    );
}

#[tokio::test]
async fn status_3_accounts_must_complete_their_profile() {
    let app = spawn_app().await;
    let mail = email();
    let data: LoginData = app
        .client
        .post(
            "/api/v1/account/sign-up",
            &json!({"email": mail, "password": PASSWORD}),
        )
        .await
        .unwrap();
    assert_eq!(data.account.status, status::INCOMPLETE);
    let login = app.client.login(&mail, PASSWORD).await.unwrap();
    assert_eq!(
        login.account.status,
        status::INCOMPLETE,
        "login answers status 3 with a token"
    );
    let c = app.client.with_token(&login.token);
    expect_error(c.payment_info().await, ErrorCode::ProfileIncomplete).await;
    assert_eq!(c.info().await.unwrap().status, status::INCOMPLETE);
    let (http, env) = c
        .post_raw::<_, Value>("/api/v1/account/complete-profile", &json!({"name": " "}))
        .await
        .unwrap();
    assert_eq!(
        (http, env.status.key.as_deref()),
        (400, Some("NameInvalid"))
    );
    let done: LoginData = c
        .post("/api/v1/account/complete-profile", &json!({"name": "Dee"}))
        .await
        .unwrap();
    assert_eq!(
        (done.account.status, done.account.name.as_str()),
        (status::NORMAL, "Dee")
    );
    c.payment_info().await.unwrap();
}

#[tokio::test]
async fn a_ban_disables_login_ends_tokens_and_closes_sockets() {
    let admin_mail = email();
    let app = spawn_app_with(&[("EASEL_ADMINS", &admin_mail)]).await;
    let admin = app.client.with_token(
        app.client
            .sign_up(&admin_mail, PASSWORD, "Op")
            .await
            .unwrap()
            .token,
    );
    assert!(admin.info().await.unwrap().admin);
    let (victim, victim_client) = app.user("Vic").await;
    let mut sock = app.socket(&victim.token).await;

    // A non-operator cannot ban.
    let (_, other) = app.user("Eve").await;
    let r: Result<Value, _> = other
        .post(
            "/api/v1/admin/account/status",
            &json!({"account_id": victim.account.id, "status": 2}),
        )
        .await;
    expect_error(r, ErrorCode::NoPermission).await;

    let banned: Value = admin
        .post(
            "/api/v1/admin/account/status",
            &json!({"account_id": victim.account.id, "status": 2}),
        )
        .await
        .unwrap();
    assert_eq!(banned["status"], 2);
    match sock.recv_timeout(WAIT).await.unwrap() {
        Incoming::Closed(Some((code, _))) => assert_eq!(code, 4403),
        other => panic!("expected close 4403, got {other:?}"),
    }
    expect_error(victim_client.info().await, ErrorCode::NeedLogin).await;
    expect_error(
        app.client.login(&victim.account.email, PASSWORD).await,
        ErrorCode::AccountDisabled,
    )
    .await;
    // A socket with the old token is refused.
    let mut s = Socket::connect(&app.ws_url(), Codec::Json).await.unwrap();
    assert!(s.authenticate(&victim.token).await.is_err());

    let _: Value = admin
        .post(
            "/api/v1/admin/account/status",
            &json!({"account_id": victim.account.id, "status": 1}),
        )
        .await
        .unwrap();
    app.client
        .login(&victim.account.email, PASSWORD)
        .await
        .unwrap();
    let r: Result<Value, _> = admin
        .post(
            "/api/v1/admin/account/status",
            &json!({"account_id": victim.account.id, "status": 3}),
        )
        .await;
    expect_error(r, ErrorCode::InvalidParams).await;
    let r: Result<Value, _> = admin
        .post(
            "/api/v1/admin/account/status",
            &json!({"account_id": "nobody", "status": 2}),
        )
        .await;
    expect_error(r, ErrorCode::NotFound).await;
}

#[tokio::test]
async fn accounts_and_tokens_survive_a_kill_9() {
    let mut app = spawn_app().await;
    let (data, _) = app.user("Dur").await;
    app.kill_and_restart();
    let info = app.client.with_token(&data.token).info().await.unwrap();
    assert_eq!(info.id, data.account.id);
    app.client
        .login(&data.account.email, PASSWORD)
        .await
        .unwrap();
}

#[tokio::test]
async fn login_attempts_are_rate_limited() {
    let app = spawn_app_with(&[("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "3")]).await;
    for _ in 0..3 {
        expect_error(
            app.client.login(&email(), PASSWORD).await,
            ErrorCode::AccountNoExistent,
        )
        .await;
    }
    expect_error(
        app.client.login(&email(), PASSWORD).await,
        ErrorCode::TooManyRequests,
    )
    .await;
}

#[tokio::test]
async fn oversize_bodies_and_unknown_routes_answer_in_the_envelope() {
    let app = spawn_app_with(&[("EASEL_MAX_BODY_BYTES", "1000")]).await;
    let big = json!({"email": "a@b.co", "password": "x".repeat(5000), "name": "A"});
    let (http, env) = app
        .client
        .post_raw::<_, Value>("/api/v1/account/sign-up", &big)
        .await
        .unwrap();
    assert_eq!((http, env.status.code), (413, 41300));
    let (http, env) = app
        .client
        .post_raw::<_, Value>("/api/v1/no/such/call", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        (http, env.status.code, env.status.key.as_deref()),
        (404, 40400, Some("NotFound"))
    );
    let health: Value = reqwest::get(format!("{}/api/v1/health", app.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["data"]["store"], "embedded");
    assert_eq!(health["data"]["bus"], "local");
}

#[tokio::test]
async fn responses_carry_security_headers() {
    let app = spawn_app().await;
    let res = reqwest::get(format!("{}/api/v1/ping", app.base))
        .await
        .unwrap();
    let csp = res
        .headers()
        .get("content-security-policy")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(
        csp.contains("default-src 'self'")
            && csp.contains("script-src 'self'")
            && !csp.contains("unsafe")
    );
    assert_eq!(
        res.headers().get("x-content-type-options").unwrap(),
        "nosniff"
    );
}

#[test]
fn unreachable_redis_or_object_store_stop_the_server_with_a_reason() {
    for (key, value, says) in [
        ("EASEL_REDIS", "redis://127.0.0.1:1", "EASEL_REDIS"),
        ("EASEL_OBJECTS", "s3://bucket", "EASEL_OBJECTS"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_easel"))
            .arg("serve")
            .env("EASEL_ADDR", "127.0.0.1:0")
            .env("EASEL_DATA", dir.path())
            .env("EASEL_S3_ENDPOINT", "http://127.0.0.1:1")
            .env("EASEL_S3_ALLOW_HTTP", "true")
            .env("EASEL_S3_ACCESS_KEY", "k")
            .env("EASEL_S3_SECRET_KEY", "s")
            .env(key, value)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{key} must not be silently ignored");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
}
