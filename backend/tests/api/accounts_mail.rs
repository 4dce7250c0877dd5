//! Issue 21 mail flows against a real SMTP server (aiosmtpd): sign-up
//! verification codes (wrong 20105, used or dead 20111, attempt limit,
//! expiry, resend limits), `forgot` and `reset` (20002 expired, 20003 used
//! or unknown, same answer for unknown addresses, every session ended),
//! change of e-mail and of password, the outbox's retries and crash safety,
//! and MailUnavailable without SMTP.

use std::time::Duration;

use protocol::account::{AccountInfo, LoginData};
use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{rand_suffix, spawn_app_with, TestApp, PASSWORD};
use crate::smtp::{code_in, token_in, SmtpServer};

const MAIL_WAIT: Duration = Duration::from_secs(20);

fn assert_code(e: ClientError, code: ErrorCode) {
    let s = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    assert_eq!(s.code, code.code(), "{e}");
    assert_eq!(s.key.as_deref(), Some(code.key()), "{e}");
    assert_eq!(e.http_status(), Some(code.http_status()));
}

async fn app(smtp: &SmtpServer, extra: &[(&str, &str)]) -> TestApp {
    let mut env = smtp.env();
    env.push(("EASEL_MAIL_SENDS_PER_IP_HOUR".into(), "1000".into()));
    env.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    spawn_app_with(&env).await
}

async fn sign_up(app: &TestApp) -> (String, LoginData, RestClient) {
    let email = format!("m{}@example.com", rand_suffix());
    let data = app.client.sign_up(&email, PASSWORD, "Mia").await.unwrap();
    let client = app.client.with_token(&data.token);
    (email, data, client)
}

async fn post(c: &RestClient, path: &str, body: Value) -> Result<Value, ClientError> {
    c.post::<_, Value>(path, &body).await
}

#[tokio::test]
async fn sign_up_mails_a_code_that_verifies_the_address_once() {
    let smtp = SmtpServer::start(0);
    let app = app(&smtp, &[]).await;
    let (email, _, me) = sign_up(&app).await;
    let mail = smtp.wait_nth(&email, 1, MAIL_WAIT).await;
    assert_eq!(mail.from, "Easel <no-reply@easel.test>");
    assert!(mail.html.contains("<html") && !mail.html.is_empty());
    let code = code_in(&mail);
    assert!(mail.subject.contains(&code));
    assert!(!me.info().await.unwrap().email_verified);

    let wrong = if code == "000000" { "111111" } else { "000000" };
    let e = post(&me, "/api/v1/account/verify/check", json!({"code": wrong}))
        .await
        .unwrap_err();
    assert_code(e, ErrorCode::VerifiCodeError);
    let info: AccountInfo = me
        .post("/api/v1/account/verify/check", &json!({"code": code}))
        .await
        .unwrap();
    assert!(info.email_verified);
    assert!(me.info().await.unwrap().email_verified);
    // Single use, and nothing left to verify.
    let e = post(&me, "/api/v1/account/verify/check", json!({"code": code}))
        .await
        .unwrap_err();
    assert_code(e, ErrorCode::VerifyCodeExpired);
    let e = post(&me, "/api/v1/account/verify/send", json!({}))
        .await
        .unwrap_err();
    assert_code(e, ErrorCode::EmailAlreadyVerified);

    // Another account asks again in Chinese: the new code replaces the first.
    let (email2, _, other) = sign_up(&app).await;
    let first = code_in(&smtp.wait_nth(&email2, 1, MAIL_WAIT).await);
    let sent = post(
        &other,
        "/api/v1/account/verify/send",
        json!({"locale": "zh"}),
    )
    .await
    .unwrap();
    assert_eq!(sent["expires_in"], 600);
    let zh = smtp.wait_nth(&email2, 2, MAIL_WAIT).await;
    assert!(zh.subject.contains("验证码"), "{}", zh.subject);
    let second = code_in(&zh);
    if first != second {
        let e = post(
            &other,
            "/api/v1/account/verify/check",
            json!({"code": first}),
        )
        .await
        .unwrap_err();
        assert_code(e, ErrorCode::VerifiCodeError);
    }
    post(
        &other,
        "/api/v1/account/verify/check",
        json!({"code": second}),
    )
    .await
    .unwrap();
    // Without a token: NeedLogin.
    let e = post(&app.client, "/api/v1/account/verify/send", json!({}))
        .await
        .unwrap_err();
    assert_code(e, ErrorCode::NeedLogin);
}

#[tokio::test]
async fn codes_die_after_five_wrong_attempts_and_expire() {
    let smtp = SmtpServer::start(0);
    let app = app(&smtp, &[("EASEL_VERIFY_CODE_TTL_SECS", "2")]).await;
    let (email, _, me) = sign_up(&app).await;
    let code = code_in(&smtp.wait_nth(&email, 1, MAIL_WAIT).await);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..5 {
        let e = post(&me, "/api/v1/account/verify/check", json!({"code": wrong}))
            .await
            .unwrap_err();
        assert_code(e, ErrorCode::VerifiCodeError);
    }
    // Dead: even the right code no longer works.
    let e = post(&me, "/api/v1/account/verify/check", json!({"code": code}))
        .await
        .unwrap_err();
    assert_code(e, ErrorCode::VerifyCodeExpired);

    post(&me, "/api/v1/account/verify/send", json!({}))
        .await
        .unwrap();
    let code = code_in(&smtp.wait_nth(&email, 2, MAIL_WAIT).await);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let e = post(&me, "/api/v1/account/verify/check", json!({"code": code}))
        .await
        .unwrap_err();
    assert_code(e, ErrorCode::VerifyCodeExpired);
    assert!(!me.info().await.unwrap().email_verified);
}

#[tokio::test]
async fn sends_are_limited_per_address_and_per_client() {
    let smtp = SmtpServer::start(0);
    let app = spawn_app_with(
        &smtp
            .env()
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .chain([
                ("EASEL_MAIL_SENDS_PER_HOUR", "3"),
                ("EASEL_MAIL_SENDS_PER_IP_HOUR", "5"),
            ])
            .collect::<Vec<_>>(),
    )
    .await;
    // Sign-up sent 1; two more are allowed, the 4th is refused.
    let (email, _, me) = sign_up(&app).await;
    for _ in 0..2 {
        post(&me, "/api/v1/account/verify/send", json!({}))
            .await
            .unwrap();
    }
    let e = post(&me, "/api/v1/account/verify/send", json!({}))
        .await
        .unwrap_err();
    assert_code(e, ErrorCode::TooManyRequests);
    let e = post(
        &app.client,
        "/api/v1/account/forgot",
        json!({"email": email}),
    )
    .await
    .unwrap_err();
    assert_code(e, ErrorCode::TooManyRequests);
    smtp.wait_nth(&email, 3, MAIL_WAIT).await;
    // The client address has used its 5 (the refused ones count too):
    // another address is refused now.
    let other = format!("x{}@example.com", rand_suffix());
    let e = post(
        &app.client,
        "/api/v1/account/forgot",
        json!({"email": other}),
    )
    .await
    .unwrap_err();
    assert_code(e, ErrorCode::TooManyRequests);
}

#[tokio::test]
async fn forgot_answers_the_same_and_reset_works_once_and_ends_sessions() {
    let smtp = SmtpServer::start(0);
    let app = app(&smtp, &[]).await;
    let (email, _, me) = sign_up(&app).await;
    let other_session = app.client.login(&email, PASSWORD).await.unwrap();
    let other = app.client.with_token(&other_session.token);

    let (h1, known) = app
        .client
        .post_raw::<_, Value>(
            "/api/v1/account/forgot",
            &json!({"email": email, "locale": "en"}),
        )
        .await
        .unwrap();
    let unknown_addr = format!("nobody{}@example.com", rand_suffix());
    let (h2, unknown) = app
        .client
        .post_raw::<_, Value>("/api/v1/account/forgot", &json!({"email": unknown_addr}))
        .await
        .unwrap();
    assert_eq!(h1, 200);
    assert_eq!(h2, 200);
    assert_eq!(
        serde_json::to_value(&known).unwrap(),
        serde_json::to_value(&unknown).unwrap()
    );
    let e = post(
        &app.client,
        "/api/v1/account/forgot",
        json!({"email": "not-mail"}),
    )
    .await
    .unwrap_err();
    assert_code(e, ErrorCode::InvalidEmail);

    // Mail 1 is the sign-up code, mail 2 the link.
    let mail = smtp.wait_nth(&email, 2, MAIL_WAIT).await;
    let (url, token) = token_in(&mail);
    assert!(
        url.starts_with("https://easel.test/en/reset?token="),
        "{url}"
    );
    assert_eq!(token.len(), 64);
    assert!(mail.html.contains("/en/reset?token="));
    assert!(smtp.mails_to(&unknown_addr).is_empty());

    let e = post(
        &app.client,
        "/api/v1/account/reset",
        json!({"token": token, "password": "short"}),
    )
    .await
    .unwrap_err();
    assert_code(e, ErrorCode::PasswordInvalid);
    let new_password = "a brand new password";
    post(
        &app.client,
        "/api/v1/account/reset",
        json!({"token": token, "password": new_password}),
    )
    .await
    .unwrap();
    // Every session ended.
    assert_code(me.info().await.unwrap_err(), ErrorCode::NeedLogin);
    assert_code(other.info().await.unwrap_err(), ErrorCode::NeedLogin);
    // Once per token; an unknown token answers the same code.
    let e = post(
        &app.client,
        "/api/v1/account/reset",
        json!({"token": token, "password": new_password}),
    )
    .await
    .unwrap_err();
    assert_code(e, ErrorCode::ResetLinkUsed);
    let e = post(
        &app.client,
        "/api/v1/account/reset",
        json!({"token": "ab".repeat(32), "password": new_password}),
    )
    .await
    .unwrap_err();
    assert_code(e, ErrorCode::ResetLinkUsed);
    assert_code(
        app.client.login(&email, PASSWORD).await.unwrap_err(),
        ErrorCode::PasswordError,
    );
    let back = app.client.login(&email, new_password).await.unwrap();
    let info = app.client.with_token(&back.token).info().await.unwrap();
    assert!(info.email_verified, "the link proved the address");
    // The owner is told the password changed.
    let told = smtp.wait_nth(&email, 3, MAIL_WAIT).await;
    assert!(told.subject.contains("password"), "{}", told.subject);
}

#[tokio::test]
async fn a_reset_link_expires() {
    let smtp = SmtpServer::start(0);
    let app = app(&smtp, &[("EASEL_RESET_TOKEN_TTL_SECS", "1")]).await;
    let (email, _, _) = sign_up(&app).await;
    post(
        &app.client,
        "/api/v1/account/forgot",
        json!({"email": email, "locale": "zh"}),
    )
    .await
    .unwrap();
    let mail = smtp.wait_nth(&email, 2, MAIL_WAIT).await;
    let (url, token) = token_in(&mail);
    assert!(
        url.starts_with("https://easel.test/zhCN/reset?token="),
        "{url}"
    );
    assert!(mail.subject.contains("密码"));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let e = post(
        &app.client,
        "/api/v1/account/reset",
        json!({"token": token, "password": "another password"}),
    )
    .await
    .unwrap_err();
    assert_code(e, ErrorCode::ResetLinkExpired);
    app.client.login(&email, PASSWORD).await.unwrap();
}

#[tokio::test]
async fn change_email_by_code_and_password_with_the_old_one() {
    let smtp = SmtpServer::start(0);
    let app = app(&smtp, &[]).await;
    let (email, _, me) = sign_up(&app).await;
    let (taken, _, _) = sign_up(&app).await;
    let second = app.client.login(&email, PASSWORD).await.unwrap();
    let second = app.client.with_token(&second.token);
    let new_email = format!("new{}@example.com", rand_suffix());

    let change = |email: &str, password: &str| json!({"email": email, "password": password});
    assert_code(
        post(
            &me,
            "/api/v1/account/email/change",
            change(&new_email, "wrong password"),
        )
        .await
        .unwrap_err(),
        ErrorCode::PasswordError,
    );
    assert_code(
        post(
            &me,
            "/api/v1/account/email/change",
            change(&taken, PASSWORD),
        )
        .await
        .unwrap_err(),
        ErrorCode::EmailRegistered,
    );
    assert_code(
        post(
            &me,
            "/api/v1/account/email/change",
            change("nope", PASSWORD),
        )
        .await
        .unwrap_err(),
        ErrorCode::InvalidEmail,
    );
    post(
        &me,
        "/api/v1/account/email/change",
        change(&new_email, PASSWORD),
    )
    .await
    .unwrap();
    let code = code_in(&smtp.wait_nth(&new_email, 1, MAIL_WAIT).await);
    let info: AccountInfo = me
        .post("/api/v1/account/email/confirm", &json!({"code": code}))
        .await
        .unwrap();
    assert_eq!(info.email, new_email);
    assert!(info.email_verified);
    // The old address is told (mail 1 was its sign-up code).
    let notice = smtp.wait_nth(&email, 2, MAIL_WAIT).await;
    assert!(notice.text.contains(&new_email));
    assert_code(
        app.client.login(&email, PASSWORD).await.unwrap_err(),
        ErrorCode::AccountNoExistent,
    );
    app.client.login(&new_email, PASSWORD).await.unwrap();
    // The old address is free again.
    app.client.sign_up(&email, PASSWORD, "Reuse").await.unwrap();

    // Password: the old one is required; the other sessions end.
    let pw = |old: &str, new: &str| json!({"old_password": old, "password": new});
    assert_code(
        post(
            &me,
            "/api/v1/account/password/change",
            pw("wrong password", "next password 1"),
        )
        .await
        .unwrap_err(),
        ErrorCode::PasswordError,
    );
    let out = post(
        &me,
        "/api/v1/account/password/change",
        pw(PASSWORD, "next password 1"),
    )
    .await
    .unwrap();
    // `second` and the login above were other sessions.
    assert_eq!(out["ended_sessions"], 2);
    me.info().await.unwrap();
    assert_code(second.info().await.unwrap_err(), ErrorCode::NeedLogin);
    app.client
        .login(&new_email, "next password 1")
        .await
        .unwrap();
}

#[tokio::test]
async fn the_outbox_retries_a_refusing_server_and_survives_a_crash() {
    // The server refuses twice (451), then accepts: the mail arrives once.
    let smtp = SmtpServer::start(2);
    let app = app(&smtp, &[("EASEL_MAIL_RETRY_BASE_MS", "100")]).await;
    let (email, _, _) = sign_up(&app).await;
    let mail = smtp.wait_nth(&email, 1, MAIL_WAIT).await;
    code_in(&mail);
    assert!(
        mail.message_id.ends_with("@easel.test>"),
        "{}",
        mail.message_id
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(smtp.mails_to(&email).len(), 1, "sent once");
    drop(app);

    // A server that refuses everything; the app is killed (SIGKILL) while
    // the mail waits for its retry; after the restart a working server gets it.
    let refusing = SmtpServer::start(u32::MAX / 2);
    let port = refusing.port;
    let mut app = app_on(port).await;
    let (email, _, _) = sign_up(&app).await;
    let start = std::time::Instant::now();
    while refusing.refused() == 0 {
        assert!(start.elapsed() < MAIL_WAIT, "the mail was never tried");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Within the first retry's wait (4 s): the refusal is recorded, no send runs.
    tokio::time::sleep(Duration::from_millis(500)).await;
    app.stop();
    drop(refusing);
    let good = SmtpServer::start_on(port, 0);
    app.start_again();
    let mail = good.wait_nth(&email, 1, MAIL_WAIT).await;
    code_in(&mail);
}

async fn app_on(port: u16) -> TestApp {
    let port = port.to_string();
    spawn_app_with(&[
        ("EASEL_SMTP_HOST", "127.0.0.1"),
        ("EASEL_SMTP_PORT", &port),
        ("EASEL_SMTP_TLS", "none"),
        ("EASEL_MAIL_RETRY_BASE_MS", "4000"),
    ])
    .await
}

#[tokio::test]
async fn without_smtp_mail_calls_say_so() {
    let app = spawn_app_with(&[]).await;
    let (email, _, me) = sign_up(&app).await;
    assert_code(
        post(
            &app.client,
            "/api/v1/account/forgot",
            json!({"email": email}),
        )
        .await
        .unwrap_err(),
        ErrorCode::MailUnavailable,
    );
    assert_code(
        post(&me, "/api/v1/account/verify/send", json!({}))
            .await
            .unwrap_err(),
        ErrorCode::MailUnavailable,
    );
    // Changing the password needs no mail.
    post(
        &me,
        "/api/v1/account/password/change",
        json!({"old_password": PASSWORD, "password": "changed password"}),
    )
    .await
    .unwrap();
}
