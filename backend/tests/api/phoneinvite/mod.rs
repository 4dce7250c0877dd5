//! Phone sign-in against a fake Twilio, invite codes with their credits,
//! and the visitor and popup calls (issue 21 items 3, 4, 7).

mod deletion_cancel;
pub mod fake_twilio;

use std::sync::{Arc, Mutex};

use protocol::account::LoginData;
use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{rand_suffix, spawn_app_with, TestApp, PASSWORD};
use fake_twilio::Seen;

const SMS: &str = "/api/v1/account/login-in/sms";

fn assert_code<T: std::fmt::Debug>(r: Result<T, ClientError>, code: ErrorCode) {
    let e = r.expect_err("expected an error");
    let st = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    assert_eq!(st.code, code.code(), "{st:?}");
    assert_eq!(e.http_status(), Some(code.http_status()));
}

async fn app_with_sms(extra: &[(&str, &str)]) -> (TestApp, Arc<Mutex<Seen>>) {
    let (url, seen) = fake_twilio::start();
    let mut env = vec![
        ("EASEL_SMS_URL", url.as_str()),
        ("EASEL_SMS_ACCOUNT_SID", fake_twilio::SID),
        ("EASEL_SMS_AUTH_TOKEN", fake_twilio::TOKEN),
        ("EASEL_SMS_FROM", fake_twilio::FROM),
        ("EASEL_SMS_TIMEOUT_MS", "800"),
        ("EASEL_SMS_RESEND_SECS", "0"),
    ];
    env.extend_from_slice(extra);
    (spawn_app_with(&env).await, seen)
}

async fn send(c: &RestClient, phone: &str) -> Result<Value, ClientError> {
    c.post(SMS, &json!({"type": "phone", "phone": phone})).await
}

async fn sign_in(
    c: &RestClient,
    phone: &str,
    code: &str,
    extra: Value,
) -> Result<LoginData, ClientError> {
    let mut body = json!({"type": "phone", "phone": phone, "code": code});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    c.post(SMS, &body).await
}

fn code_of(seen: &Arc<Mutex<Seen>>, phone: &str) -> String {
    seen.lock()
        .unwrap()
        .code_for(phone)
        .expect("no code was sent")
}

#[tokio::test]
async fn a_phone_code_creates_the_account_then_signs_it_in() {
    let (app, seen) = app_with_sms(&[]).await;
    let phone = "+447911123456";
    let sent = send(&app.client, "+44 7911 123456").await.unwrap();
    assert_eq!(sent["sent"], true);
    assert_eq!(sent["expires_in"], 600);
    {
        let s = seen.lock().unwrap();
        let m = s.sent.last().unwrap();
        assert_eq!(m.to, phone, "sent to the E.164 form");
        assert_eq!(m.from, fake_twilio::FROM);
    }
    let code = code_of(&seen, phone);
    let first = sign_in(&app.client, phone, &code, json!({})).await.unwrap();
    assert_eq!(
        first.account.status, 3,
        "a new phone account completes its profile"
    );
    assert_eq!(first.account.email, "");
    // The code was spent.
    assert_code(
        sign_in(&app.client, phone, &code, json!({})).await,
        ErrorCode::VerifiCodeError,
    );
    // A second code signs the same account in.
    send(&app.client, phone).await.unwrap();
    let code = code_of(&seen, phone);
    let again = sign_in(&app.client, phone, &code, json!({})).await.unwrap();
    assert_eq!(again.account.id, first.account.id);
    assert_ne!(again.token, first.token);
}

#[tokio::test]
async fn wrong_guesses_burn_the_code() {
    let (app, seen) = app_with_sms(&[("EASEL_SMS_MAX_ATTEMPTS", "3")]).await;
    let phone = "+447911123457";
    send(&app.client, phone).await.unwrap();
    let code = code_of(&seen, phone);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..3 {
        assert_code(
            sign_in(&app.client, phone, wrong, json!({})).await,
            ErrorCode::VerifiCodeError,
        );
    }
    // The right code no longer works after the last allowed guess.
    assert_code(
        sign_in(&app.client, phone, &code, json!({})).await,
        ErrorCode::VerifiCodeError,
    );
    // No code was ever sent to this number.
    assert_code(
        sign_in(&app.client, "+447911123458", "123456", json!({})).await,
        ErrorCode::VerifiCodeError,
    );
}

#[tokio::test]
async fn codes_expire() {
    let (app, seen) = app_with_sms(&[("EASEL_SMS_CODE_TTL_SECS", "1")]).await;
    let phone = "+447911123459";
    send(&app.client, phone).await.unwrap();
    let code = code_of(&seen, phone);
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_code(
        sign_in(&app.client, phone, &code, json!({})).await,
        ErrorCode::VerifiCodeError,
    );
}

#[tokio::test]
async fn bad_numbers_and_an_unconfigured_provider_are_refused() {
    let (app, seen) = app_with_sms(&[]).await;
    for bad in ["07911123456", "+1 555", "+44 12", "not a number"] {
        assert_code(send(&app.client, bad).await, ErrorCode::PhoneInvalid);
    }
    assert!(seen.lock().unwrap().sent.is_empty());
    let plain = spawn_app_with(&[]).await;
    assert_code(
        send(&plain.client, "+447911123456").await,
        ErrorCode::LoginTypeUnsupported,
    );
}

#[tokio::test]
async fn sends_are_limited_per_number_and_per_address() {
    let (app, _seen) = app_with_sms(&[
        ("EASEL_SMS_RESEND_SECS", "60"),
        ("EASEL_SMS_PER_IP_PER_HOUR", "3"),
    ])
    .await;
    send(&app.client, "+447911123460").await.unwrap();
    // Again within the resend interval.
    assert_code(
        send(&app.client, "+447911123460").await,
        ErrorCode::SmsTooFrequent,
    );
    send(&app.client, "+447911123461").await.unwrap();
    send(&app.client, "+447911123462").await.unwrap();
    // The address asked for 3 codes this hour.
    assert_code(
        send(&app.client, "+447911123463").await,
        ErrorCode::TooManyRequests,
    );

    let (app, _seen) = app_with_sms(&[("EASEL_SMS_PER_NUMBER_PER_HOUR", "2")]).await;
    send(&app.client, "+447911123464").await.unwrap();
    send(&app.client, "+447911123464").await.unwrap();
    assert_code(
        send(&app.client, "+447911123464").await,
        ErrorCode::SmsTooFrequent,
    );
}

#[tokio::test]
async fn provider_failures_answer_send_failed_and_leave_no_code() {
    let (app, seen) = app_with_sms(&[]).await;
    // 400 error JSON, 500, a timeout, a 201 with bad JSON.
    for phone in [
        "+447911123400",
        "+447911123500",
        "+447911123408",
        "+447911123299",
    ] {
        assert_code(send(&app.client, phone).await, ErrorCode::SmsSendFailed);
        assert_code(
            sign_in(&app.client, phone, "123456", json!({})).await,
            ErrorCode::VerifiCodeError,
        );
    }
    assert!(seen.lock().unwrap().sent.is_empty());
    // A wrong auth token is the provider's 401: no code either.
    let (url, _seen) = fake_twilio::start();
    let app = spawn_app_with(&[
        ("EASEL_SMS_URL", url.as_str()),
        ("EASEL_SMS_ACCOUNT_SID", fake_twilio::SID),
        ("EASEL_SMS_AUTH_TOKEN", "wrong"),
        ("EASEL_SMS_FROM", fake_twilio::FROM),
    ])
    .await;
    assert_code(
        send(&app.client, "+447911123465").await,
        ErrorCode::SmsSendFailed,
    );
}

#[tokio::test]
async fn a_disabled_phone_account_is_refused() {
    let (app, seen) = app_with_sms(&[]).await;
    let admin = app.operator().await;
    let phone = "+447911123466";
    send(&app.client, phone).await.unwrap();
    let login = sign_in(
        &app.client,
        phone,
        &code_of(&seen, phone),
        json!({"name": "Phoebe"}),
    )
    .await
    .unwrap();
    assert_eq!(
        login.account.status, 1,
        "a name completes the profile at once"
    );
    let _: Value = admin
        .post(
            "/api/v1/admin/account/status",
            &json!({"account_id": login.account.id, "status": 2}),
        )
        .await
        .unwrap();
    send(&app.client, phone).await.unwrap();
    assert_code(
        sign_in(&app.client, phone, &code_of(&seen, phone), json!({})).await,
        ErrorCode::AccountDisabled,
    );
}

async fn balance(c: &RestClient) -> i64 {
    let v: Value = c
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap();
    v["balance"].as_i64().unwrap()
}

async fn invite_info(c: &RestClient) -> Value {
    c.post("/api/v1/account/invite/info", &json!({}))
        .await
        .unwrap()
}

#[tokio::test]
async fn invite_codes_credit_both_sides_once() {
    let (app, seen) = app_with_sms(&[
        ("EASEL_INVITE_CREDITS_INVITER", "30"),
        ("EASEL_INVITE_CREDITS_INVITEE", "20"),
        ("EASEL_SIGNUP_CREDITS", "100"),
    ])
    .await;
    let (_, inviter) = app.user("Inviter").await;
    let info = invite_info(&inviter).await;
    let code = info["code"].as_str().unwrap().to_owned();
    assert_eq!(code.len(), 8);
    assert_eq!(info["invited_count"], 0);
    assert_eq!(invite_info(&inviter).await["code"], code, "the code stays");
    assert_eq!(balance(&inviter).await, 100);

    // E-mail sign-up with the code, typed in lower case.
    let email = format!("guest-{}@example.com", rand_suffix());
    let guest: LoginData = app
        .client
        .post(
            "/api/v1/account/sign-up",
            &json!({"email": email, "password": PASSWORD, "name": "Guest",
                    "invite_user_code": code.to_lowercase()}),
        )
        .await
        .unwrap();
    let guest_c = app.client.with_token(&guest.token);
    assert_eq!(balance(&guest_c).await, 120);
    assert_eq!(balance(&inviter).await, 130);
    let gi = invite_info(&guest_c).await;
    assert_eq!(gi["invited_by"]["name"], "Inviter");
    assert_ne!(gi["code"], code);

    // Phone sign-up with the code (`invitation_code`).
    let phone = "+447911123467";
    send(&app.client, phone).await.unwrap();
    let p = sign_in(
        &app.client,
        phone,
        &code_of(&seen, phone),
        json!({"invitation_code": code, "name": "Phil"}),
    )
    .await
    .unwrap();
    assert_eq!(balance(&app.client.with_token(&p.token)).await, 120);
    assert_eq!(balance(&inviter).await, 160);
    assert_eq!(invite_info(&inviter).await["invited_count"], 2);
    // Signing the phone account in again grants nothing more.
    send(&app.client, phone).await.unwrap();
    sign_in(
        &app.client,
        phone,
        &code_of(&seen, phone),
        json!({"invitation_code": code}),
    )
    .await
    .unwrap();
    assert_eq!(balance(&inviter).await, 160);
}

#[tokio::test]
async fn a_wrong_invite_code_creates_no_account() {
    let (app, seen) = app_with_sms(&[]).await;
    let email = format!("nobody-{}@example.com", rand_suffix());
    for bad in ["NOSUCHCD", "bad code!", &"A".repeat(40)] {
        let r: Result<LoginData, _> = app
            .client
            .post(
                "/api/v1/account/sign-up",
                &json!({"email": email, "password": PASSWORD, "name": "No", "invitation_code": bad}),
            )
            .await;
        assert_code(r, ErrorCode::InviteCodeError);
    }
    assert_code(
        app.client.login(&email, PASSWORD).await,
        ErrorCode::AccountNoExistent,
    );
    // Phone: 40002 before the code is spent; the same code then works without it.
    let phone = "+447911123468";
    send(&app.client, phone).await.unwrap();
    let code = code_of(&seen, phone);
    assert_code(
        sign_in(
            &app.client,
            phone,
            &code,
            json!({"invite_user_code": "NOSUCHCD"}),
        )
        .await,
        ErrorCode::InviteCodeError,
    );
    sign_in(&app.client, phone, &code, json!({})).await.unwrap();
}

#[tokio::test]
async fn visitor_state_follows_the_device() {
    let app = spawn_app_with(&[]).await;
    let dev = format!("dev{}", rand_suffix());
    let visitor = app.client.with_device(&dev);
    let s: Value = visitor
        .post("/api/v1/rcpt/g/state", &json!({}))
        .await
        .unwrap();
    assert_eq!(s["status"], "new");
    assert_eq!(s["device_id"], dev);
    assert_eq!(s["visits"], 1);
    let first_seen = s["first_seen"].as_i64().unwrap();
    let s: Value = visitor
        .post("/api/v1/rcpt/g/state", &json!({}))
        .await
        .unwrap();
    assert_eq!(s["status"], "new", "the same visit");
    assert_eq!(s["first_seen"].as_i64().unwrap(), first_seen);
    // An account logs in on this device; afterwards the device is known.
    let (login, _) = app.user("Dev").await;
    let s: Value = visitor
        .with_token(&login.token)
        .post("/api/v1/rcpt/g/state", &json!({}))
        .await
        .unwrap();
    assert_eq!(s["status"], "logged_in");
    let s: Value = visitor
        .post("/api/v1/rcpt/g/state", &json!({}))
        .await
        .unwrap();
    assert_eq!(s["status"], "registered");
    // Another device is new.
    let other: Value = app
        .client
        .with_device(format!("oth{}", rand_suffix()))
        .post("/api/v1/rcpt/g/state", &json!({}))
        .await
        .unwrap();
    assert_eq!(other["status"], "new");
}

#[tokio::test]
async fn the_visitor_guide_remembers_seen_steps() {
    let guide =
        r#"[{"id":"welcome","title":"Welcome"},{"id":"make","title":"Make","target":"/generate"}]"#;
    let app = spawn_app_with(&[("EASEL_VISITOR_GUIDE", guide)]).await;
    let a = app.client.with_device(format!("gda{}", rand_suffix()));
    let g: Value = a
        .post("/api/v1/visitor-guide/config", &json!({}))
        .await
        .unwrap();
    assert_eq!(g["steps"].as_array().unwrap().len(), 2);
    assert_eq!(g["next"], "welcome");
    assert_eq!(g["steps"][1]["target"], "/generate");
    let g: Value = a
        .post(
            "/api/v1/visitor-guide/config",
            &json!({"seen": ["welcome"]}),
        )
        .await
        .unwrap();
    assert_eq!(g["steps"][0]["seen"], true);
    assert_eq!(g["next"], "make");
    let g: Value = a
        .post("/api/v1/visitor-guide/config", &json!({}))
        .await
        .unwrap();
    assert_eq!(g["next"], "make", "remembered");
    let g: Value = a
        .post("/api/v1/visitor-guide/config", &json!({"seen": ["make"]}))
        .await
        .unwrap();
    assert_eq!(g["done"], true);
    // Another device has seen nothing.
    let b = app.client.with_device(format!("gdb{}", rand_suffix()));
    let g: Value = b
        .post("/api/v1/visitor-guide/config", &json!({}))
        .await
        .unwrap();
    assert_eq!(g["next"], "welcome");
    assert_code(
        b.post::<_, Value>("/api/v1/visitor-guide/config", &json!({"seen": ["nope"]}))
            .await,
        ErrorCode::PopupParamInvalid,
    );
}

#[tokio::test]
async fn the_membership_popup_is_capped_remembered_and_never_shown_to_members() {
    let app = spawn_app_with(&[
        ("EASEL_VIP_POP_INTERVAL_SECS", "1"),
        ("EASEL_VIP_POP_MAX", "2"),
    ])
    .await;
    let (_, free) = app.user("Free").await;
    let pop = |c: RestClient| async move {
        c.post::<_, Value>("/api/v1/account/vip-pop", &json!({}))
            .await
            .unwrap()
    };
    let p = pop(free.clone()).await;
    assert_eq!(p["show"], true);
    assert_eq!(p["times_shown"], 1);
    let p = pop(free.clone()).await;
    assert_eq!(p["show"], false);
    assert_eq!(p["reason"], "recent");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(pop(free.clone()).await["show"], true);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(pop(free.clone()).await["reason"], "cap");

    // "never" stops it for good.
    let (_, other) = app.user("Other").await;
    assert_eq!(pop(other.clone()).await["show"], true);
    let m: Value = other
        .post(
            "/api/v1/account/confirm-pop",
            &json!({"pop_type": "vip", "action": "never"}),
        )
        .await
        .unwrap();
    assert_eq!(m["answers"], 1);
    assert_eq!(m["last_answer"], "never");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(pop(other.clone()).await["reason"], "declined");
    assert_code(
        other
            .post::<_, Value>(
                "/api/v1/account/confirm-pop",
                &json!({"pop_type": "vip", "action": "maybe"}),
            )
            .await,
        ErrorCode::PopupParamInvalid,
    );

    // A member is never asked.
    let admin = app.operator().await;
    let (member_login, member) = app.user("Member").await;
    let _: Value = admin
        .post(
            "/api/v1/admin/account/membership",
            &json!({"account_id": member_login.account.id,
                    "payment": {"activeState": true, "liteActiveState": false, "infiniteQueue": false, "productLevel": 1}}),
        )
        .await
        .unwrap();
    assert_eq!(pop(member).await["reason"], "member");
    assert_code(
        app.client
            .post::<_, Value>("/api/v1/account/vip-pop", &json!({}))
            .await,
        ErrorCode::NeedLogin,
    );
}

#[tokio::test]
async fn push_tokens_are_kept_per_session() {
    let app = spawn_app_with(&[]).await;
    let (login, a) = app.user("Pusher").await;
    let _: Value = a
        .post(
            "/api/v1/msg/token/update",
            &json!({"token": "fcm:abc123", "platform": "android"}),
        )
        .await
        .unwrap();
    let t: Value = a.post("/api/v1/msg/token/get", &json!({})).await.unwrap();
    assert_eq!(t["token"], "fcm:abc123");
    assert_eq!(t["platform"], "android");
    // Another session of the same account has its own (none yet).
    let b = app.client.with_token(
        app.client
            .login(&login.account.email, PASSWORD)
            .await
            .unwrap()
            .token,
    );
    let t: Value = b.post("/api/v1/msg/token/get", &json!({})).await.unwrap();
    assert!(t.is_null());
    // An empty token removes it.
    let _: Value = a
        .post("/api/v1/msg/token/update", &json!({"token": ""}))
        .await
        .unwrap();
    let t: Value = a.post("/api/v1/msg/token/get", &json!({})).await.unwrap();
    assert!(t.is_null());
    assert_code(
        a.post::<_, Value>(
            "/api/v1/msg/token/update",
            &json!({"token": "x", "platform": "pager"}),
        )
        .await,
        ErrorCode::PopupParamInvalid,
    );
    assert_code(
        a.post::<_, Value>("/api/v1/msg/token/update", &json!({"token": "has space"}))
            .await,
        ErrorCode::PopupParamInvalid,
    );
    // A visitor's device keeps one too; nothing identifies a bare client.
    let v = app.client.with_device(format!("psh{}", rand_suffix()));
    let _: Value = v
        .post("/api/v1/msg/token/update", &json!({"token": "web-push-1"}))
        .await
        .unwrap();
    let t: Value = v.post("/api/v1/msg/token/get", &json!({})).await.unwrap();
    assert_eq!(t["platform"], "web");
    assert_code(
        app.client
            .post::<_, Value>("/api/v1/msg/token/update", &json!({"token": "x"}))
            .await,
        ErrorCode::NeedLogin,
    );
}
