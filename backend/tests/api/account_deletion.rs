//! Account deletion and data export (issue 21 item 6): the export holds the
//! person's data and nobody else's and is theirs only; deletion waits for
//! its grace (sign-in answers 20010, cancel brings the account back), then
//! the sweep removes the works from detail, feeds and search for everyone,
//! leaves channels, keeps the ledger whole, frees the e-mail, and resumes
//! after the server is killed mid-sweep.

use std::io::Read;
use std::time::Duration;

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp, PASSWORD};

const FAST: &[(&str, &str)] = &[
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_SEARCH_COMMIT_MS", "20"),
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

async fn article(c: &RestClient, title: &str) -> String {
    let v = post(
        c,
        "/api/v1/post/article/add",
        json!({"title": title, "content": format!("About {title}."), "tags": ["words"], "visibility": "public"}),
    )
    .await;
    v["id"].as_str().unwrap().to_owned()
}

async fn character(c: &RestClient, name: &str) -> String {
    let v = post(
        c,
        "/api/v1/tavern-pro/publish",
        json!({"name": name, "greeting": "Hello {{user}}.", "persona": "{{char}} keeps a lighthouse.", "published": true}),
    )
    .await;
    v["id"].as_str().unwrap().to_owned()
}

async fn chat_session(c: &RestClient, character_id: &str) -> String {
    let v = post(
        c,
        "/api/v1/character/session/create",
        json!({ "character_id": character_id }),
    )
    .await;
    v["session_id"].as_str().unwrap().to_owned()
}

async fn search(c: &RestClient, word: &str) -> Vec<String> {
    let v = post(c, "/api/v1/square/v3/search/list", json!({"keyword": word})).await;
    v["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|i| i["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Polls `f` until it holds (the search index commits in the background).
async fn eventually<F, Fut>(what: &str, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..200 {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never: {what}");
}

fn zip_json(bytes: &[u8], name: &str) -> Value {
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut f = z
        .by_name(name)
        .unwrap_or_else(|_| panic!("{name} in the export"));
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    serde_json::from_str(&s).unwrap()
}

#[tokio::test]
async fn the_export_holds_the_persons_data_only_and_only_they_download_it() {
    let app = spawn_app_with(FAST).await;
    let (alice_d, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let own_work = article(&alice, "Alice's lighthouse notes").await;
    let other_work = article(&bob, "Bob's private harbour").await;
    let ch = character(&alice, "Keeper").await;
    let sid = chat_session(&alice, &ch).await;
    let channel = post(
        &alice,
        "/api/v1/im/channel/create",
        json!({"name": "Alice studio"}),
    )
    .await;
    // Bob chats with Alice's character: his session is not hers.
    let bob_sid = chat_session(&bob, &ch).await;

    // No export yet: the status is null.
    assert!(post(&alice, "/api/v1/account/export/status", json!({}))
        .await
        .is_null());
    let first = post(&alice, "/api/v1/account/export/request", json!({})).await;
    assert_eq!(first["state"], "running");
    let mut ready = Value::Null;
    for _ in 0..400 {
        ready = post(&alice, "/api/v1/account/export/status", json!({})).await;
        if ready["state"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(ready["state"], "ready", "{ready}");
    assert_eq!(ready["progress"], 100);
    assert!(ready["expires_at"].as_i64().unwrap() > ready["finished_at"].as_i64().unwrap());

    let (status, ctype, bytes) = alice
        .get_bytes("/api/v1/account/export/download")
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(ctype, "application/zip");
    let account = zip_json(&bytes, "account.json");
    assert_eq!(account["id"], alice_d.account.id.as_str());
    assert!(account.get("password_hash").is_none());
    let works = zip_json(&bytes, "works.json");
    let work_ids: Vec<&str> = works
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["id"].as_str())
        .collect();
    assert_eq!(work_ids, vec![own_work.as_str()]);
    assert!(!String::from_utf8_lossy(&bytes).contains("Bob's private harbour"));
    assert!(!work_ids.contains(&other_work.as_str()));
    let chars = zip_json(&bytes, "characters.json");
    assert_eq!(chars.as_array().unwrap().len(), 1);
    assert_eq!(chars[0]["id"], ch.as_str());
    let chats = zip_json(&bytes, "chats.json");
    let chat_ids: Vec<&str> = chats
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(chat_ids, vec![sid.as_str()]);
    assert!(!chat_ids.contains(&bob_sid.as_str()));
    let channels = zip_json(&bytes, "channels.json");
    assert_eq!(channels.as_array().unwrap().len(), 1);
    assert_eq!(channels[0]["name"], "Alice studio", "{channel}");
    let ledger = zip_json(&bytes, "ledger.json");
    assert!(
        !ledger["entries"].as_array().unwrap().is_empty(),
        "the sign-up grant"
    );

    // Bob has no export, and cannot reach Alice's; visitors neither.
    assert!(post(&bob, "/api/v1/account/export/status", json!({}))
        .await
        .is_null());
    let (status, _, body) = bob
        .get_bytes("/api/v1/account/export/download")
        .await
        .unwrap();
    assert_eq!(status, 404);
    assert!(String::from_utf8_lossy(&body).contains("exportUnavailable"));
    let (status, _, _) = app
        .client
        .get_bytes("/api/v1/account/export/download")
        .await
        .unwrap();
    assert_ne!(status, 200);

    // A second request while one runs is refused; after it, a new one starts.
    let again = post(&alice, "/api/v1/account/export/request", json!({})).await;
    assert_ne!(again["id"], first["id"]);
    // One at a time: refused unless the second job already finished.
    let (_, env) = alice
        .post_raw::<_, Value>("/api/v1/account/export/request", &json!({}))
        .await
        .unwrap();
    if !env.status.is_ok() {
        assert_eq!(env.status.code, 20151);
        assert_eq!(env.status.key.as_deref(), Some("exportRunning"));
    }
}

#[tokio::test]
async fn during_the_grace_sign_in_answers_20010_and_cancel_brings_the_account_back() {
    let app = spawn_app_with(&[
        ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
        ("EASEL_SEARCH_COMMIT_MS", "20"),
        ("EASEL_LOCKOUT_BASE_DELAY_MS", "300"),
    ])
    .await;
    let (d, alice) = app.user("Grace").await;
    let email = d.account.email.clone();
    let work = article(&alice, "Still here after cancel").await;
    let mut socket = app.socket(&d.token).await;

    let (code, key) = refused(
        &alice,
        "/api/v1/account/delete/request",
        json!({"password": "wrong password!"}),
    )
    .await;
    assert_eq!((code, key.as_str()), (20005, "PasswordError"));
    let v = post(
        &alice,
        "/api/v1/account/delete/request",
        json!({"password": PASSWORD}),
    )
    .await;
    assert_eq!(v["state"], "pending");
    assert_eq!(v["grace_days"], 14);
    let grace = v["purge_at"].as_i64().unwrap() - v["requested_at"].as_i64().unwrap();
    assert_eq!(grace, 14 * 86_400_000);

    // Every session ended: the token, and the socket is closed.
    let (code, _) = refused(&alice, "/api/v1/account/info", json!({})).await;
    assert_eq!(code, 20000);
    let mut closed = false;
    for _ in 0..50 {
        match socket.recv_timeout(Duration::from_millis(100)).await {
            Ok(protocol::client::Incoming::Closed(_)) | Err(_) => {
                closed = true;
                break;
            }
            Ok(_) => {}
        }
    }
    assert!(closed, "the socket is closed at the request");

    // Sign-in: 20010 actNotAvailable, saying when.
    let (_, env) = app
        .client
        .post_raw::<_, Value>(
            "/api/v1/account/login-in",
            &json!({"type": "email", "email": email, "password": PASSWORD}),
        )
        .await
        .unwrap();
    assert_eq!(env.status.code, 20010);
    assert_eq!(env.status.key.as_deref(), Some("actNotAvailable"));
    assert!(
        env.status.msg.contains(&v["purge_at"].to_string()),
        "{}",
        env.status.msg
    );
    // A wrong password still answers 20005 (nothing told without it).
    let (code, _) = refused(
        &app.client,
        "/api/v1/account/login-in",
        json!({"type": "email", "email": email, "password": "not the password"}),
    )
    .await;
    assert_eq!(code, 20005);
    // The address stays taken during the grace.
    let (code, _) = refused(
        &app.client,
        "/api/v1/account/sign-up",
        json!({"email": email, "password": PASSWORD, "name": "Thief"}),
    )
    .await;
    assert_eq!(code, 20101);

    // Cancel: wrong password refused; right one signs in again.
    let (code, _) = refused(
        &app.client,
        "/api/v1/account/delete/cancel",
        json!({"email": email, "password": "not the password"}),
    )
    .await;
    assert_eq!(code, 20005);
    // Three wrong passwords (the request, a sign-in, this cancel) put the account and address in
    // back-off: a password re-entered counts like a sign-in. After the delay the right one passes.
    let (code, key) = refused(
        &app.client,
        "/api/v1/account/delete/cancel",
        json!({"email": email, "password": PASSWORD}),
    )
    .await;
    assert_eq!((code, key.as_str()), (20141, "tooManyAttempts"));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let back = post(
        &app.client,
        "/api/v1/account/delete/cancel",
        json!({"email": email, "password": PASSWORD}),
    )
    .await;
    let token = back["token"].as_str().unwrap().to_owned();
    let again = app.client.with_token(&token);
    assert_eq!(
        post(&again, "/api/v1/account/info", json!({})).await["id"],
        d.account.id.as_str()
    );
    assert_eq!(
        post(&app.client, "/api/v1/post/detail", json!({"id": work})).await["id"],
        work.as_str()
    );
    app.client
        .login(&email, PASSWORD)
        .await
        .expect("sign-in works again");
    let (code, key) = refused(
        &app.client,
        "/api/v1/account/delete/cancel",
        json!({"email": email, "password": PASSWORD}),
    )
    .await;
    assert_eq!((code, key.as_str()), (20150, "deletionNotPending"));

    // The operator sees no deletion due and the sweep leaves the account alone.
    let op = app.operator().await;
    assert_eq!(
        post(&op, "/api/v1/admin/account/deletion/sweep", json!({})).await["finished"],
        0
    );
    let (code, _) = refused(
        &op,
        "/api/v1/admin/account/deletion/get",
        json!({"account_id": d.account.id}),
    )
    .await;
    assert_eq!(code, protocol::ErrorCode::NotFound.code());
    let (code, _) = refused(&again, "/api/v1/admin/account/deletion/sweep", json!({})).await;
    assert_eq!(code, protocol::ErrorCode::NoPermission.code());
}

#[tokio::test]
async fn after_the_grace_the_sweep_removes_everywhere_keeps_the_ledger_and_resumes_after_a_crash() {
    let mut env: Vec<(&str, &str)> = FAST.to_vec();
    env.push(("EASEL_ACCOUNT_DELETION_GRACE_DAYS", "0"));
    let mut app: TestApp = spawn_app_with(&env).await;
    let op = app.operator().await;
    let (d, alice) = app.user("Leaving").await;
    let (bd, bob) = app.user("Staying").await;
    let me = d.account.id.clone();
    let email = d.account.email.clone();
    let mut works = Vec::new();
    for i in 0..4 {
        works.push(article(&alice, &format!("zephyrine lantern {i}")).await);
    }
    let bobs = article(&bob, "zephyrine harbour").await;
    let ch = character(&alice, "Vanishing keeper").await;
    let _sid = chat_session(&alice, &ch).await;
    let own = post(
        &alice,
        "/api/v1/im/channel/create",
        json!({"name": "Alice own"}),
    )
    .await;
    let bobs_channel = post(
        &bob,
        "/api/v1/im/channel/create",
        json!({"name": "Bob hall"}),
    )
    .await;
    post(
        &alice,
        "/api/v1/im/channel/join",
        json!({"invite_code": bobs_channel["invite_code"]}),
    )
    .await;
    let bc = bobs_channel["channel_id"].as_str().unwrap().to_owned();
    post(
        &op,
        "/api/v1/admin/credits/grant",
        json!({"account_id": me, "amount": 77, "key": "gift-1"}),
    )
    .await;
    let balance_before = post(&alice, "/api/v1/payment/assets/get", json!({})).await["balance"]
        .as_i64()
        .unwrap();
    eventually("alice's works are searchable", || {
        let c = app.client.clone();
        async move { search(&c, "zephyrine").await.len() == 5 }
    })
    .await;

    // Her likes, collects and follows both ways, as Bob's profile counts them.
    let bob_id = bd.account.id.clone();
    post(&alice, "/api/v1/artwork/like", json!({"id": bobs})).await;
    post(&alice, "/api/v1/artwork/collect", json!({"id": bobs})).await;
    post(
        &alice,
        "/api/v1/account/follow",
        json!({"account_id": bob_id}),
    )
    .await;
    post(&bob, "/api/v1/account/follow", json!({"account_id": me})).await;
    let figures = |p: serde_json::Value| {
        (
            p["followers"].as_i64(),
            p["following"].as_i64(),
            p["likes_received"].as_i64(),
        )
    };
    let bob_profile = json!({"account_id": bob_id});
    assert_eq!(
        figures(post(&bob, "/api/v1/account/profile", bob_profile.clone()).await),
        (Some(1), Some(1), Some(1))
    );

    post(
        &alice,
        "/api/v1/account/delete/request",
        json!({"password": PASSWORD}),
    )
    .await;
    // Part of the sweep, then the server dies.
    assert_eq!(
        post(
            &op,
            "/api/v1/admin/account/deletion/sweep",
            json!({"limit": 2})
        )
        .await["finished"],
        0
    );
    let mid = post(
        &op,
        "/api/v1/admin/account/deletion/get",
        json!({"account_id": me}),
    )
    .await;
    assert_eq!(mid["deletion"]["state"], "sweeping");
    assert_eq!(mid["deletion"]["step_name"], "works");
    assert_eq!(mid["deletion"]["removed"], 2);
    app.kill_and_restart();
    let op = app.client.with_token(op.token().unwrap());
    let bob = app.client.with_token(bob.token().unwrap());
    // The restarted server's sweeper resumes at once from the cursor; the
    // operator's call waits for it, or finishes the sweep itself.
    let n = post(&op, "/api/v1/admin/account/deletion/sweep", json!({})).await["finished"]
        .as_i64()
        .unwrap();
    assert!(n == 0 || n == 1, "{n}");
    let done = post(
        &op,
        "/api/v1/admin/account/deletion/get",
        json!({"account_id": me}),
    )
    .await;
    assert_eq!(done["deletion"]["state"], "done", "{done}");
    assert_eq!(done["deletion"]["step_name"], "done");
    // Her like, collect and follows are taken back: Bob's figures are 0.
    assert_eq!(
        figures(post(&bob, "/api/v1/account/profile", bob_profile.clone()).await),
        (Some(0), Some(0), Some(0))
    );
    let detail = post(&bob, "/api/v1/artwork/detail", json!({"id": bobs})).await;
    assert_eq!(
        (detail["likes"].as_i64(), detail["collects"].as_i64()),
        (Some(0), Some(0)),
        "{detail}"
    );
    // The ledger is kept and still sums to the balance (her first follow earned a task award
    // after `balance_before` was read, so the balance may only have grown).
    let kept = done["ledger"]["balance"].as_i64().unwrap();
    assert!(kept >= balance_before, "{kept} < {balance_before}");
    assert_eq!(done["ledger"]["sum_of_deltas"].as_i64().unwrap(), kept);
    // Idempotent: a second run finds nothing.
    assert_eq!(
        post(&op, "/api/v1/admin/account/deletion/sweep", json!({})).await["finished"],
        0
    );

    // Works: gone from detail, feeds and search, for everyone.
    for w in &works {
        let (code, _) = refused(&bob, "/api/v1/post/detail", json!({"id": w})).await;
        assert_eq!(code, protocol::ErrorCode::NotFound.code());
    }
    let feed = post(
        &bob,
        "/api/v1/square/v3/recommend",
        json!({"order_by": "new", "time_type": "all", "page_size": 50}),
    )
    .await;
    let feed_ids: Vec<&str> = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["id"].as_str())
        .collect();
    assert!(
        works.iter().all(|w| !feed_ids.contains(&w.as_str())),
        "{feed_ids:?}"
    );
    assert!(feed_ids.contains(&bobs.as_str()));
    eventually("only bob's work is found", || {
        let c = bob.clone();
        let bobs = bobs.clone();
        async move { search(&c, "zephyrine").await == vec![bobs] }
    })
    .await;
    // The character is gone; Alice left Bob's channel; her own channel is disbanded.
    let (code, _) = refused(&bob, "/api/v1/tavern-pro/detail", json!({"id": ch})).await;
    assert_ne!(code, 0);
    let members = post(
        &bob,
        "/api/v1/im/channel/members",
        json!({"channel_id": bc}),
    )
    .await;
    assert!(!members.to_string().contains(&me), "{members}");
    let (code, _) = refused(
        &bob,
        "/api/v1/im/channel/join",
        json!({"invite_code": own["invite_code"]}),
    )
    .await;
    assert_ne!(code, 0);
    // The address is free: signing up again makes a new account.
    let (code, _) = refused(
        &app.client,
        "/api/v1/account/login-in",
        json!({"type": "email", "email": email, "password": PASSWORD}),
    )
    .await;
    assert_eq!(code, 20001);
    let fresh = app
        .client
        .sign_up(&email, PASSWORD, "Returning")
        .await
        .unwrap();
    assert_ne!(fresh.account.id, me);
    let _ = bd;
}
