//! Issue 21's last gaps: a deleted phone account frees its number; the
//! deletion sweep also removes the reports the person filed, their
//! ornaments and their uploads; the export holds their comments, likes,
//! follows and moderation rows; password re-entry on sensitive calls counts
//! in the sign-in lockout; a sign-in from a new device is mailed.

use std::time::Duration;

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp, PASSWORD};
use crate::phoneinvite::fake_twilio;
use crate::smtp::SmtpServer;

const FAST: &[(&str, &str)] = &[
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_SEARCH_COMMIT_MS", "20"),
    ("EASEL_ACCOUNT_DELETION_GRACE_DAYS", "0"),
    // The test drives the sweep itself.
    ("EASEL_ACCOUNT_DELETION_SWEEP_SECS", "100000"),
];

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The (code, key) of a refused call.
async fn refused(c: &RestClient, path: &str, body: Value) -> (i32, String) {
    let (_, env) = c.post_raw::<_, Value>(path, &body).await.unwrap();
    assert!(
        !env.status.is_ok(),
        "{path} should be refused: {:?}",
        env.data
    );
    (env.status.code, env.status.key.clone().unwrap_or_default())
}

async fn sweep(op: &RestClient, account: &str) {
    post(op, "/api/v1/admin/account/deletion/sweep", json!({})).await;
    let done = post(
        op,
        "/api/v1/admin/account/deletion/get",
        json!({"account_id": account}),
    )
    .await;
    assert_eq!(done["deletion"]["state"], "done", "{done}");
}

fn zip_json(bytes: &[u8], name: &str) -> Value {
    use std::io::Read;
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut f = z
        .by_name(name)
        .unwrap_or_else(|_| panic!("{name} in the export"));
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    serde_json::from_str(&s).unwrap()
}

async fn export(c: &RestClient) -> Vec<u8> {
    post(c, "/api/v1/account/export/request", json!({})).await;
    for _ in 0..400 {
        let s = post(c, "/api/v1/account/export/status", json!({})).await;
        if s["state"] == "ready" {
            let (status, _, bytes) = c
                .get_bytes("/api/v1/account/export/download")
                .await
                .unwrap();
            assert_eq!(status, 200);
            return bytes;
        }
        assert_ne!(s["state"], "failed", "{s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the export never finished");
}

#[tokio::test]
async fn a_deleted_phone_account_frees_its_number() {
    let (url, seen) = fake_twilio::start();
    let mut env: Vec<(&str, &str)> = FAST.to_vec();
    env.extend([
        ("EASEL_SMS_URL", url.as_str()),
        ("EASEL_SMS_ACCOUNT_SID", fake_twilio::SID),
        ("EASEL_SMS_AUTH_TOKEN", fake_twilio::TOKEN),
        ("EASEL_SMS_FROM", fake_twilio::FROM),
        ("EASEL_SMS_RESEND_SECS", "0"),
    ]);
    let app: TestApp = spawn_app_with(&env).await;
    let op = app.operator().await;
    let phone = "+447911123477";
    let sms = "/api/v1/account/login-in/sms";
    let code = || seen.lock().unwrap().code_for(phone).expect("a code");

    post(&app.client, sms, json!({"phone": "+44 7911 123477"})).await;
    let first: Value = post(
        &app.client,
        sms,
        json!({"phone": phone, "code": code(), "name": "Phoebe"}),
    )
    .await;
    let me = first["account"]["id"].as_str().unwrap().to_owned();
    let phoebe = app.client.with_token(first["token"].as_str().unwrap());

    // No password: the deletion is confirmed by a fresh code to the number.
    let (c, _) = refused(
        &phoebe,
        "/api/v1/account/delete/request",
        json!({"password": "anything"}),
    )
    .await;
    assert_eq!(c, protocol::ErrorCode::PasswordError.code());
    post(&app.client, sms, json!({"phone": phone})).await;
    let (c, _) = refused(
        &phoebe,
        "/api/v1/account/delete/request",
        json!({"phone_code": "000000"}),
    )
    .await;
    assert_eq!(c, protocol::ErrorCode::VerifiCodeError.code());
    post(&app.client, sms, json!({"phone": phone})).await;
    post(
        &phoebe,
        "/api/v1/account/delete/request",
        json!({"phone_code": code()}),
    )
    .await;
    sweep(&op, &me).await;

    // The number is free: its next sign-in makes a new account.
    post(&app.client, sms, json!({"phone": phone})).await;
    let again: Value = post(
        &app.client,
        sms,
        json!({"phone": phone, "code": code(), "name": "Penny"}),
    )
    .await;
    assert_ne!(again["account"]["id"], me.as_str(), "{again}");
    assert_eq!(again["account"]["name"], "Penny");
}

#[tokio::test]
async fn password_re_entry_counts_in_the_sign_in_lockout() {
    let mut env: Vec<(&str, &str)> = FAST.to_vec();
    env.push(("EASEL_LOCKOUT_FREE_FAILURES", "2"));
    env.push(("EASEL_LOCKOUT_BASE_DELAY_MS", "600000"));
    let app: TestApp = spawn_app_with(&env).await;
    let (d, alice) = app.user("Alice").await;
    let wrong = json!({"old_password": "not my password", "password": "a brand new secret"});
    for _ in 0..2 {
        let (c, _) = refused(&alice, "/api/v1/account/password/change", wrong.clone()).await;
        assert_eq!(c, protocol::ErrorCode::PasswordError.code());
    }
    // The pair now waits, whichever sensitive call, even with the right password.
    for (path, body) in [
        (
            "/api/v1/account/password/change",
            json!({"old_password": PASSWORD, "password": "a brand new secret"}),
        ),
        (
            "/api/v1/account/delete/request",
            json!({"password": PASSWORD}),
        ),
    ] {
        let (c, key) = refused(&alice, path, body).await;
        assert_eq!(
            c,
            protocol::ErrorCode::TooManyAttempts.code(),
            "{path} {key}"
        );
    }
    // And sign-in from the same address waits too: one guard for all.
    let (c, _) = refused(
        &app.client,
        "/api/v1/account/login-in",
        json!({"type": "email", "email": d.account.email, "password": PASSWORD}),
    )
    .await;
    assert_eq!(c, protocol::ErrorCode::TooManyAttempts.code());
    // The counters live in the store: a restarted server still waits.
    let mut app = app;
    app.kill_and_restart();
    let (c, _) = refused(
        &app.client,
        "/api/v1/account/login-in",
        json!({"type": "email", "email": d.account.email, "password": PASSWORD}),
    )
    .await;
    assert_eq!(c, protocol::ErrorCode::TooManyAttempts.code());
}

#[tokio::test]
async fn export_and_sweep_cover_comments_reactions_follows_moderation_ornaments_and_uploads() {
    let app: TestApp = spawn_app_with(FAST).await;
    let op = app.operator().await;
    let (d, alice) = app.user("Alice").await;
    let (bd, bob) = app.user("Bob").await;
    let me = d.account.id.clone();
    let bobs_work = crate::moderation::article(&bob, "Bob's harbour", false).await;
    let bobs_char = post(
        &bob,
        "/api/v1/tavern-pro/publish",
        json!({"name": "Keeper", "greeting": "Hello {{user}}.", "persona": "{{char}} keeps a lighthouse.", "published": true}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Her comment, like, collect, follows both ways and a report.
    let comment = crate::comments::comment(&alice, &bobs_char, "Lovely lamp")
        .await
        .unwrap();
    post(&alice, "/api/v1/artwork/like", json!({"id": bobs_work})).await;
    post(&alice, "/api/v1/artwork/collect", json!({"id": bobs_work})).await;
    let bob_id = bd.account.id.clone();
    post(
        &alice,
        "/api/v1/account/follow",
        json!({"account_id": bob_id}),
    )
    .await;
    post(&bob, "/api/v1/account/follow", json!({"account_id": me})).await;
    let report = post(
        &alice,
        "/api/v1/report/portfolio",
        json!({"obj_id": bobs_work, "reason": "spam", "text": "ads everywhere"}),
    )
    .await;
    // Her ornament, bought and worn, and a file she uploaded.
    let url = op
        .upload(&crate::tasks::test_png(32, 32), "halo.png", "image/png")
        .await
        .unwrap();
    let halo = post(
        &op,
        "/api/v1/admin/ornament/upsert",
        json!({"slot": "avatar", "name": "Halo", "description": "shiny", "price": 10, "image": {"url": url}}),
    )
    .await;
    let halo_id = halo["ornament_id"].as_str().unwrap().to_owned();
    post(
        &op,
        "/api/v1/admin/credits/grant",
        json!({"account_id": me, "amount": 100, "key": "gaps-test"}),
    )
    .await;
    post(
        &alice,
        "/api/v1/ornament-shop/buy",
        json!({"ornament_id": halo_id}),
    )
    .await;
    post(
        &alice,
        "/api/v1/ornament-shop/wear",
        json!({"ornament_id": halo_id}),
    )
    .await;
    let file = alice
        .upload(&crate::tasks::test_png(40, 40), "mine.png", "image/png")
        .await
        .unwrap();
    let (status, _, _) = app.client.get_bytes(&file).await.unwrap();
    assert_eq!(status, 200, "{file}");

    // The export holds them.
    let bytes = export(&alice).await;
    let comments = zip_json(&bytes, "comments.json");
    assert_eq!(comments[0]["id"], comment.as_str(), "{comments}");
    assert_eq!(comments[0]["content"], "Lovely lamp");
    let reactions = zip_json(&bytes, "reactions.json");
    assert_eq!(reactions["liked"][0]["work_id"], bobs_work.as_str());
    assert_eq!(reactions["collected"][0]["work_id"], bobs_work.as_str());
    let follows = zip_json(&bytes, "follows.json");
    assert_eq!(follows["following"][0]["account_id"], bob_id.as_str());
    assert_eq!(follows["followers"][0]["account_id"], bob_id.as_str());
    let moderation = zip_json(&bytes, "moderation.json");
    assert_eq!(
        moderation["reports_filed"][0]["id"], report["report_id"],
        "{moderation}"
    );
    assert_eq!(moderation["reports_filed"][0]["text"], "ads everywhere");
    assert!(moderation["ban"].is_null());
    // Bob's export has none of her rows (his followers are hers to name, not her comments).
    let bobs = export(&bob).await;
    assert_eq!(zip_json(&bobs, "comments.json"), json!([]));
    assert_eq!(
        zip_json(&bobs, "moderation.json")["reports_filed"],
        json!([])
    );

    post(
        &alice,
        "/api/v1/account/delete/request",
        json!({"password": PASSWORD}),
    )
    .await;
    sweep(&op, &me).await;

    // Her report is gone and Bob's work left the moderators' queue.
    let q = post(&op, "/api/v1/moderation/queue", json!({})).await;
    assert!(
        !q.to_string().contains(bobs_work.as_str()),
        "the queue still holds the report: {q}"
    );
    // Her ornaments: neither owned nor worn.
    let of = post(
        &app.client,
        "/api/v1/ornament-shop/worn-of",
        json!({"account_ids": [me]}),
    )
    .await;
    assert_eq!(of["items"], json!({}), "{of}");
    let theirs = post(
        &bob,
        "/api/v1/ornament-shop/other-list",
        json!({"account_id": me}),
    )
    .await;
    assert!(
        theirs["items"].as_array().is_none_or(|a| a.is_empty()),
        "{theirs}"
    );
    // Her upload is gone from the object store; the operator's stays.
    let (status, _, _) = app.client.get_bytes(&file).await.unwrap();
    assert_eq!(status, 404, "{file}");
    let (status, _, _) = app.client.get_bytes(&url).await.unwrap();
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_sign_in_from_a_new_device_is_mailed_in_the_users_language() {
    let smtp = SmtpServer::start(0);
    let mut env = smtp.env();
    env.push(("EASEL_MAIL_SENDS_PER_IP_HOUR".into(), "1000".into()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let app: TestApp = spawn_app_with(&env).await;
    let email = format!("n{}@example.com", crate::helpers::rand_suffix());
    app.client.sign_up(&email, PASSWORD, "Nina").await.unwrap();
    let wait = Duration::from_secs(10);
    smtp.wait_nth(&email, 1, wait).await; // the verification code
    let login = |device: &str| {
        let c = app.client.with_device(device);
        let email = email.clone();
        async move {
            post(
                &c,
                "/api/v1/account/login-in",
                json!({"type": "email", "email": email, "password": PASSWORD}),
            )
            .await
        }
    };
    // The first sign-in after sign-up, and the same device again: no mail.
    login("device-aaaa-1").await;
    let l = login("device-aaaa-1").await;
    // A new device: mailed, in English (the browser sent no language).
    login("device-bbbb-2").await;
    let m = smtp.wait_nth(&email, 2, wait).await;
    assert_eq!(m.subject, "New sign-in to your Easel account");
    assert!(
        m.text.contains("https://easel.test/en/settings/security"),
        "{}",
        m.text
    );
    assert!(m
        .html
        .contains("href=\"https://easel.test/en/settings/security\""));
    // The stored language wins.
    let me = app.client.with_token(l["token"].as_str().unwrap());
    post(
        &me,
        "/api/v1/account/prefs/update",
        json!({"language": "zhCN"}),
    )
    .await;
    login("device-cccc-3").await;
    let m = smtp.wait_nth(&email, 3, wait).await;
    assert_eq!(m.subject, "您的 Easel 账户有新的登录");
    assert!(m.text.contains("https://easel.test/zhCN/settings/security"));
    // Turned off: no mail; the next mail is the reset link asked after.
    let p = post(
        &me,
        "/api/v1/account/prefs/update",
        json!({"notify": {"sign_in": false}}),
    )
    .await;
    assert_eq!(p["notify"]["sign_in"], false);
    login("device-dddd-4").await;
    post(
        &app.client,
        "/api/v1/account/forgot",
        json!({"email": email}),
    )
    .await;
    let m = smtp.wait_nth(&email, 4, wait).await;
    assert!(m.text.contains("/reset?token="), "{}", m.subject);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(smtp.mails_to(&email).len(), 4);
}
