//! IM channels through the real binary: ordered delivery to every member
//! under concurrent senders, kick and quit stopping delivery, unread state,
//! history paging, resume after reconnect, roles and limits, and a channel
//! task seen live by every member with its result posted to the history, a
//! busy channel (sends stored in groups) keeping every guarantee, and a
//! refused burst taking no sequence numbers.

use std::time::Duration;

use protocol::client::{ClientError, Incoming, RestClient, Socket};
use protocol::frame::{Frame, FrameType, ResumeResult};
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

const WAIT: Duration = Duration::from_secs(5);

struct Member {
    id: String,
    token: String,
    client: RestClient,
}

async fn member(app: &TestApp, name: &str) -> Member {
    let (data, client) = app.user(name).await;
    Member {
        id: data.account.id.clone(),
        token: data.token.clone(),
        client,
    }
}

/// A channel owned by the first of `names`, joined by the rest.
async fn channel(app: &TestApp, names: &[&str], private: bool) -> (String, String, Vec<Member>) {
    let mut ms = Vec::new();
    for n in names {
        ms.push(member(app, n).await);
    }
    let c: Value = ms[0]
        .client
        .post(
            "/api/v1/im/channel/create",
            &json!({"name": "Studio", "private": private}),
        )
        .await
        .unwrap();
    let id = c["channel_id"].as_str().unwrap().to_owned();
    let code = c["invite_code"].as_str().unwrap().to_owned();
    for m in &ms[1..] {
        let _: Value = m
            .client
            .post("/api/v1/im/channel/join", &json!({"invite_code": code}))
            .await
            .unwrap();
    }
    (id, code, ms)
}

async fn send(c: &RestClient, channel: &str, text: &str) -> Result<u64, ClientError> {
    let v: Value = c
        .post(
            "/api/v1/im/message/send",
            &json!({"channel_id": channel, "content": text}),
        )
        .await?;
    Ok(v["seq"].as_u64().unwrap())
}

fn code(e: ClientError) -> i32 {
    e.status().map(|s| s.code).unwrap_or(0)
}

/// Frame-12 contents received until `n` arrived (or panics after WAIT).
async fn collect(s: &mut Socket, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    while out.len() < n {
        let f = s.expect(FrameType::ImMessage, WAIT).await.unwrap();
        out.push(f.content);
    }
    out
}

/// Whether any frame 12 arrives within `d`.
async fn hears_message(s: &mut Socket, d: Duration) -> bool {
    s.expect(FrameType::ImMessage, d).await.is_ok()
}

#[tokio::test]
async fn every_member_sees_one_order_under_concurrent_senders() {
    let app = spawn_app().await;
    let (id, _, ms) = channel(&app, &["Ann", "Bob", "Cid"], false).await;
    let mut sockets = Vec::new();
    for m in &ms {
        sockets.push(app.socket(&m.token).await);
    }
    let per_sender = 8;
    let mut sends = Vec::new();
    for m in &ms {
        let c = m.client.clone();
        let id = id.clone();
        let name = m.id.clone();
        sends.push(tokio::spawn(async move {
            for i in 0..per_sender {
                send(&c, &id, &format!("{name} {i}")).await.unwrap();
            }
        }));
    }
    for s in sends {
        s.await.unwrap();
    }
    let total = per_sender * ms.len();
    let mut seen = Vec::new();
    for s in &mut sockets {
        let got = collect(s, total).await;
        let order: Vec<(u64, String)> = got
            .iter()
            .map(|m| {
                (
                    m["seq"].as_u64().unwrap(),
                    m["content"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        seen.push(order);
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[1], seen[2]);
    let seqs: Vec<u64> = seen[0].iter().map(|(s, _)| *s).collect();
    assert_eq!(
        seqs,
        (1..=total as u64).collect::<Vec<_>>(),
        "gapless, increasing"
    );
    // Each sender's own messages keep their sending order.
    for m in &ms {
        let mine: Vec<&String> = seen[0]
            .iter()
            .map(|(_, t)| t)
            .filter(|t| t.starts_with(&m.id))
            .collect();
        let want: Vec<String> = (0..per_sender).map(|i| format!("{} {i}", m.id)).collect();
        assert_eq!(mine, want.iter().collect::<Vec<_>>());
    }
    // Frame 12 carries the contract's fields.
    let h: Value = ms[0]
        .client
        .post("/api/v1/im/history", &json!({"channel_id": id, "limit": 1}))
        .await
        .unwrap();
    let newest = &h["items"][0];
    assert_eq!(newest["seq"], total as u64);
    assert_eq!(newest["channel_id"], id.as_str());
    assert!(newest["sender"].is_string() && newest["kind"] == "text");
}

#[tokio::test]
async fn kick_and_quit_stop_delivery_at_once() {
    let app = spawn_app().await;
    let (id, _, ms) = channel(&app, &["Own", "Kik", "Qui"], false).await;
    let mut own = app.socket(&ms[0].token).await;
    let mut kik = app.socket(&ms[1].token).await;
    let mut qui = app.socket(&ms[2].token).await;
    send(&ms[0].client, &id, "hello all").await.unwrap();
    for s in [&mut own, &mut kik, &mut qui] {
        assert_eq!(collect(s, 1).await[0]["content"], "hello all");
    }

    // A plain member cannot kick; the owner can.
    let e = ms[2]
        .client
        .post::<_, Value>(
            "/api/v1/im/channel/kick-out",
            &json!({"channel_id": id, "account_id": ms[1].id}),
        )
        .await
        .unwrap_err();
    assert_eq!(code(e), 40300);
    let _: Value = ms[0]
        .client
        .post(
            "/api/v1/im/channel/kick-out",
            &json!({"channel_id": id, "account_id": ms[1].id}),
        )
        .await
        .unwrap();
    let _: Value = ms[2]
        .client
        .post("/api/v1/im/channel/quit", &json!({"channel_id": id}))
        .await
        .unwrap();
    send(&ms[0].client, &id, "after").await.unwrap();
    assert_eq!(collect(&mut own, 1).await[0]["content"], "after");
    assert!(
        !hears_message(&mut kik, Duration::from_secs(1)).await,
        "kicked member heard it"
    );
    assert!(
        !hears_message(&mut qui, Duration::from_secs(1)).await,
        "quitter heard it"
    );

    // Former members get NotFound (as for a missing channel) and nothing.
    for m in &ms[1..] {
        assert_eq!(code(send(&m.client, &id, "x").await.unwrap_err()), 40400);
        let e = m
            .client
            .post::<_, Value>("/api/v1/im/history", &json!({"channel_id": id}))
            .await
            .unwrap_err();
        assert_eq!(code(e), 40400);
        let l: Value = m
            .client
            .post("/api/v1/im/channel/joined/list", &json!({}))
            .await
            .unwrap();
        assert_eq!(l["items"].as_array().unwrap().len(), 0);
    }
    let mem: Value = ms[0]
        .client
        .post("/api/v1/im/channel/members", &json!({"channel_id": id}))
        .await
        .unwrap();
    let ids: Vec<&str> = mem["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["account_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![ms[0].id.as_str()]);
}

/// (unread in a, unread in b, total) for the caller.
async fn unread(c: &RestClient, a: &str, b: &str) -> (u64, u64, u64) {
    let r: Value = c
        .post("/api/v1/im/message/unread-record", &json!({}))
        .await
        .unwrap();
    let get = |id: &str| {
        r["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["channel_id"] == id)
            .unwrap()["unread"]
            .as_u64()
            .unwrap()
    };
    (get(a), get(b), r["total"].as_u64().unwrap())
}

#[tokio::test]
async fn unread_counts_follow_read_and_all_read() {
    let app = spawn_app().await;
    let (a, code_a, ms) = channel(&app, &["Uno", "Dos"], false).await;
    let c: Value = ms[0]
        .client
        .post("/api/v1/im/channel/create", &json!({"name": "Second"}))
        .await
        .unwrap();
    let b = c["channel_id"].as_str().unwrap().to_owned();
    let _: Value = ms[1]
        .client
        .post(
            "/api/v1/im/channel/join",
            &json!({"invite_code": c["invite_code"]}),
        )
        .await
        .unwrap();
    assert_ne!(code_a, c["invite_code"].as_str().unwrap());
    for i in 0..5 {
        send(&ms[0].client, &a, &format!("a{i}")).await.unwrap();
    }
    for i in 0..3 {
        send(&ms[0].client, &b, &format!("b{i}")).await.unwrap();
    }
    assert_eq!(unread(&ms[1].client, &a, &b).await, (5, 3, 8));
    assert_eq!(
        unread(&ms[0].client, &a, &b).await,
        (0, 0, 0),
        "the sender read its own"
    );

    let r: Value = ms[1]
        .client
        .post(
            "/api/v1/im/message/read",
            &json!({"channel_id": a, "seq": 2}),
        )
        .await
        .unwrap();
    assert_eq!(r["unread"], 3);
    assert_eq!(unread(&ms[1].client, &a, &b).await, (3, 3, 6));
    // Reading never moves backwards.
    let _: Value = ms[1]
        .client
        .post(
            "/api/v1/im/message/read",
            &json!({"channel_id": a, "seq": 1}),
        )
        .await
        .unwrap();
    assert_eq!(unread(&ms[1].client, &a, &b).await, (3, 3, 6));
    let _: Value = ms[1]
        .client
        .post("/api/v1/im/message/all-read", &json!({}))
        .await
        .unwrap();
    assert_eq!(unread(&ms[1].client, &a, &b).await, (0, 0, 0));
    send(&ms[0].client, &b, "again").await.unwrap();
    assert_eq!(unread(&ms[1].client, &a, &b).await, (0, 1, 1));
    let l: Value = ms[1]
        .client
        .post("/api/v1/im/channel/joined/list", &json!({}))
        .await
        .unwrap();
    let names: Vec<&str> = l["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Studio", "Second"]);
}

#[tokio::test]
async fn history_pages_without_gaps_or_duplicates() {
    let app = spawn_app().await;
    let (id, _, ms) = channel(&app, &["Pag", "Ger"], false).await;
    let n = 23u64;
    for i in 0..n {
        // Two senders, each within the rate limit.
        let c = &ms[(i % 2) as usize].client;
        send(c, &id, &format!("m{i}")).await.unwrap();
        if i % 8 == 7 {
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
    }
    let mut seqs = Vec::new();
    let mut before: Option<u64> = None;
    loop {
        let mut body = json!({"channel_id": id, "limit": 5});
        if let Some(b) = before {
            body["before_seq"] = json!(b);
        }
        let h: Value = ms[1]
            .client
            .post("/api/v1/im/history", &body)
            .await
            .unwrap();
        let items = h["items"].as_array().unwrap();
        if items.is_empty() {
            break;
        }
        assert!(items.len() <= 5);
        for it in items {
            seqs.push(it["seq"].as_u64().unwrap());
        }
        before = items.last().unwrap()["seq"].as_u64();
        if !h["has_more"].as_bool().unwrap() {
            break;
        }
    }
    assert_eq!(
        seqs,
        (1..=n).rev().collect::<Vec<_>>(),
        "newest first, every one once"
    );
    // Bad input.
    for body in [
        json!({"channel_id": id, "limit": 0}),
        json!({"channel_id": id, "limit": 101}),
    ] {
        let e = ms[0]
            .client
            .post::<_, Value>("/api/v1/im/history", &body)
            .await
            .unwrap_err();
        assert_eq!(code(e), 40000);
    }
}

#[tokio::test]
async fn resume_after_reconnect_gets_missed_messages() {
    let app = spawn_app().await;
    let (id, _, ms) = channel(&app, &["Res", "Snd"], false).await;
    let mut s = app.socket(&ms[0].token).await;
    send(&ms[1].client, &id, "first").await.unwrap();
    collect(&mut s, 1).await;
    let stream = s.stream.clone().unwrap();
    let last_seq = s.last_seq;
    s.close().await.unwrap();
    for i in 0..3 {
        send(&ms[1].client, &id, &format!("missed {i}"))
            .await
            .unwrap();
    }
    let mut s = app.socket(&ms[0].token).await;
    s.send(&Frame::resume(last_seq, Some(&stream)))
        .await
        .unwrap();
    let mut got = Vec::new();
    let result: ResumeResult = loop {
        let f = match s.recv_timeout(WAIT).await.unwrap() {
            Incoming::Frame(f) => f,
            Incoming::Closed(c) => panic!("closed {c:?}"),
        };
        match f.frame_type() {
            Some(FrameType::ImMessage) => {
                got.push(f.content["content"].as_str().unwrap().to_owned())
            }
            Some(FrameType::Resume) => break serde_json::from_value(f.content).unwrap(),
            _ => {}
        }
    };
    assert!(result.resumed);
    assert_eq!(got, vec!["missed 0", "missed 1", "missed 2"]);
}

#[tokio::test]
async fn limits_roles_and_disband() {
    let app = spawn_app().await;
    let (id, code_s, ms) = channel(&app, &["Boss", "Adm", "Mem"], false).await;
    let outsider = member(&app, "Out").await;

    // Non-members: NotFound, exactly as for a missing channel, and nothing.
    assert_eq!(
        code(send(&outsider.client, &id, "hi").await.unwrap_err()),
        40400
    );
    for path in [
        "/api/v1/im/channel/detail",
        "/api/v1/im/channel/members",
        "/api/v1/im/channel/info",
    ] {
        let e = outsider
            .client
            .post::<_, Value>(path, &json!({"channel_id": id}))
            .await
            .unwrap_err();
        assert_eq!(code(e), 40400, "{path}");
    }
    // Bad input.
    assert_eq!(
        code(send(&ms[0].client, &id, "   ").await.unwrap_err()),
        40000
    );
    assert_eq!(
        code(
            send(&ms[0].client, &id, &"x".repeat(4001))
                .await
                .unwrap_err()
        ),
        40000
    );
    assert!(send(&ms[0].client, &id, &"é".repeat(4000)).await.is_ok());
    let e = ms[0]
        .client
        .post::<_, Value>("/api/v1/im/channel/create", &json!({"name": ""}))
        .await
        .unwrap_err();
    assert_eq!(code(e), 40000);
    let e = ms[0]
        .client
        .post::<_, Value>("/api/v1/im/channel/join", &json!({"invite_code": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(code(e), 40400);

    // Rate limit per member: a burst of 10, then TooManyRequests. The 14
    // go at once, so a slow machine's refill between them cannot hide it.
    let texts: Vec<String> = (0..14).map(|i| format!("spam {i}")).collect();
    let burst = texts.iter().map(|t| send(&ms[2].client, &id, t));
    let mut refused = 0;
    for r in futures_util::future::join_all(burst).await {
        if let Err(e) = r {
            assert_eq!(code(e), 42900);
            refused += 1;
        }
    }
    assert!(refused >= 3, "refused {refused}");

    // Roles: a member cannot edit; the owner makes an admin, who can.
    let edit = json!({"channel_id": id, "name": "Renamed"});
    let e = ms[1]
        .client
        .post::<_, Value>("/api/v1/im/channel/edit", &edit)
        .await
        .unwrap_err();
    assert_eq!(code(e), 40300);
    let _: Value = ms[0]
        .client
        .post(
            "/api/v1/im/channel/role",
            &json!({"channel_id": id, "account_id": ms[1].id, "role": "admin"}),
        )
        .await
        .unwrap();
    let v: Value = ms[1]
        .client
        .post("/api/v1/im/channel/edit", &edit)
        .await
        .unwrap();
    assert_eq!(v["name"], "Renamed");
    let info: Value = ms[2]
        .client
        .post("/api/v1/im/channel/info", &json!({"channel_id": id}))
        .await
        .unwrap();
    assert_eq!(info["name"], "Renamed");
    // An admin cannot kick the owner; the owner cannot quit.
    let e = ms[1]
        .client
        .post::<_, Value>(
            "/api/v1/im/channel/kick-out",
            &json!({"channel_id": id, "account_id": ms[0].id}),
        )
        .await
        .unwrap_err();
    assert_eq!(code(e), 40300);
    let e = ms[0]
        .client
        .post::<_, Value>("/api/v1/im/channel/quit", &json!({"channel_id": id}))
        .await
        .unwrap_err();
    assert_eq!(code(e), 40000);

    // Disband: every later call is NotFound.
    let e = ms[2]
        .client
        .post::<_, Value>("/api/v1/im/channel/disband", &json!({"channel_id": id}))
        .await
        .unwrap_err();
    assert_eq!(code(e), 40300);
    let _: Value = ms[0]
        .client
        .post("/api/v1/im/channel/disband", &json!({"channel_id": id}))
        .await
        .unwrap();
    assert_eq!(
        code(send(&ms[0].client, &id, "gone?").await.unwrap_err()),
        40400
    );
    let e = ms[2]
        .client
        .post::<_, Value>("/api/v1/im/history", &json!({"channel_id": id}))
        .await
        .unwrap_err();
    assert_eq!(code(e), 40400);
    let e = outsider
        .client
        .post::<_, Value>("/api/v1/im/channel/join", &json!({"invite_code": code_s}))
        .await
        .unwrap_err();
    assert_eq!(code(e), 40400);
    let l: Value = ms[1]
        .client
        .post("/api/v1/im/channel/joined/list", &json!({}))
        .await
        .unwrap();
    assert_eq!(l["items"].as_array().unwrap().len(), 0);
}

/// Frame-10 contents for `task` until one is final.
async fn task_frames(s: &mut Socket, task: &str) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let f = s.expect(FrameType::TaskUpdate, TASK_WAIT).await.unwrap();
        if f.content["id"] != task {
            continue;
        }
        let status = f.content["status"].as_u64().unwrap();
        out.push(f.content);
        if status == 3 || status == 4 {
            return out;
        }
    }
}

#[tokio::test]
async fn a_channel_task_reaches_every_member_and_lands_in_history() {
    let app = spawn_app().await;
    let (id, _, ms) = channel(&app, &["Gen", "See", "Too"], false).await;
    let outsider = member(&app, "Nope").await;
    let sd = checkpoint(&ms[0].client, "sd").await;
    let mut body = t2i(&sd, "a red kite over hills", 7);

    // Only members generate in a channel; to anyone else it is NotFound.
    body["channel_id"] = json!(id);
    let e = outsider
        .client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap_err();
    assert_eq!(code(e), 40400);

    let mut sockets = Vec::new();
    for m in &ms[1..] {
        sockets.push(app.socket(&m.token).await);
    }
    let mut out_socket = app.socket(&outsider.token).await;
    let task = ms[0]
        .client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let done = ms[0].client.wait_task(&task, TASK_WAIT).await.unwrap();
    assert_eq!(done.status, TaskStatus::Success);
    assert_eq!(done.channel_id.as_deref(), Some(id.as_str()));
    for s in &mut sockets {
        let frames = task_frames(s, &task).await;
        assert_eq!(frames.last().unwrap()["status"], 3);
        // Members' screens tell a channel's tasks by this field.
        assert!(frames.iter().all(|f| f["channel_id"] == id.as_str()));
        assert!(!frames.last().unwrap()["img_uris"]
            .as_array()
            .unwrap()
            .is_empty());
        // And the posted result, as a message.
        let m = s.expect(FrameType::ImMessage, WAIT).await.unwrap().content;
        assert_eq!(m["kind"], "task");
        assert_eq!(m["content"]["task_id"], task.as_str());
    }
    assert!(out_socket
        .expect(FrameType::TaskUpdate, Duration::from_millis(500))
        .await
        .is_err());
    let h: Value = ms[2]
        .client
        .post(
            "/api/v1/im/history",
            &json!({"channel_id": id, "limit": 10}),
        )
        .await
        .unwrap();
    let items = h["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{h}");
    assert_eq!(items[0]["kind"], "task");
    assert_eq!(items[0]["sender"], ms[0].id.as_str());
    assert_eq!(items[0]["content"]["img_uris"], json!(done.img_uris));

    // Sharing: only one's own finished task.
    let share = json!({"channel_id": id, "kind": "task", "task_id": task});
    let e = ms[1]
        .client
        .post::<_, Value>("/api/v1/im/message/send", &share)
        .await
        .unwrap_err();
    assert_eq!(code(e), 40400);
    let v: Value = ms[0]
        .client
        .post("/api/v1/im/message/send", &share)
        .await
        .unwrap();
    assert_eq!(v["seq"], 2);
}

#[tokio::test]
async fn a_private_channel_keeps_generation_to_its_creator() {
    let app = spawn_app().await;
    let (id, _, ms) = channel(&app, &["Pri", "Vat"], true).await;
    let sd = checkpoint(&ms[0].client, "sd").await;
    let mut body = t2i(&sd, "a quiet lake", 3);
    body["channel_id"] = json!(id);
    let mut other = app.socket(&ms[1].token).await;
    let mut mine = app.socket(&ms[0].token).await;
    let task = ms[0]
        .client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let last = task_frames(&mut mine, &task).await.last().unwrap().clone();
    assert_eq!(last["status"], 3);
    assert_eq!(
        last["channel_private"], true,
        "a user-cancelled task of it stays listed"
    );
    assert!(other
        .expect(FrameType::TaskUpdate, Duration::from_millis(500))
        .await
        .is_err());
    let h: Value = ms[1]
        .client
        .post("/api/v1/im/history", &json!({"channel_id": id}))
        .await
        .unwrap();
    assert_eq!(h["items"].as_array().unwrap().len(), 0);
}

/// The next `channel.members` notification (frame 13) for `channel`,
/// skipping other notifications; an error after `d`.
async fn members_notice(s: &mut Socket, channel: &str, d: Duration) -> Result<(), ClientError> {
    let deadline = tokio::time::Instant::now() + d;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let f = s.expect(FrameType::Notification, left).await?;
        if f.content["kind"] == "channel.members" && f.content["channel_id"] == channel {
            return Ok(());
        }
    }
}

#[tokio::test]
async fn member_changes_are_pushed_to_members_and_the_removed() {
    let app = spawn_app().await;
    let (id, code, ms) = channel(&app, &["Own", "Mem"], false).await;
    let mut own = app.socket(&ms[0].token).await;
    let mut mem = app.socket(&ms[1].token).await;

    // A join reaches the members already there, and the newcomer.
    let new = member(&app, "New").await;
    let mut new_s = app.socket(&new.token).await;
    let _: Value = new
        .client
        .post("/api/v1/im/channel/join", &json!({"invite_code": code}))
        .await
        .unwrap();
    for s in [&mut own, &mut mem, &mut new_s] {
        members_notice(s, &id, WAIT).await.unwrap();
    }

    // A notice is not a message: the sequence is untouched.
    assert_eq!(send(&ms[0].client, &id, "first").await.unwrap(), 1);

    // A role change.
    let _: Value = ms[0]
        .client
        .post(
            "/api/v1/im/channel/role",
            &json!({"channel_id": id, "account_id": ms[1].id, "role": "admin"}),
        )
        .await
        .unwrap();
    for s in [&mut own, &mut mem, &mut new_s] {
        members_notice(s, &id, WAIT).await.unwrap();
    }

    // A kick reaches those who stay and the kicked one.
    let _: Value = ms[0]
        .client
        .post(
            "/api/v1/im/channel/kick-out",
            &json!({"channel_id": id, "account_id": new.id}),
        )
        .await
        .unwrap();
    for s in [&mut own, &mut mem, &mut new_s] {
        members_notice(s, &id, WAIT).await.unwrap();
    }

    // A quit likewise; afterwards the one who left hears no more.
    let _: Value = ms[1]
        .client
        .post("/api/v1/im/channel/quit", &json!({"channel_id": id}))
        .await
        .unwrap();
    for s in [&mut own, &mut mem] {
        members_notice(s, &id, WAIT).await.unwrap();
    }
    assert!(members_notice(&mut new_s, &id, Duration::from_millis(500))
        .await
        .is_err());
    let outsider = member(&app, "Out").await;
    let mut out_s = app.socket(&outsider.token).await;
    let again = member(&app, "Again").await;
    let _: Value = again
        .client
        .post("/api/v1/im/channel/join", &json!({"invite_code": code}))
        .await
        .unwrap();
    members_notice(&mut own, &id, WAIT).await.unwrap();
    for s in [&mut mem, &mut new_s, &mut out_s] {
        assert!(members_notice(s, &id, Duration::from_millis(500))
            .await
            .is_err());
    }
}

/// Durable commits the embedded store has made so far (operator call).
async fn store_commits(operator: &RestClient) -> u64 {
    let s: Value = operator
        .post("/api/v1/admin/store", &json!({}))
        .await
        .unwrap();
    assert_eq!(s["backend"], "embedded");
    s["writes"]["commits"].as_u64().unwrap()
}

#[tokio::test]
async fn a_busy_channel_stores_and_delivers_every_message_once_in_order() {
    let app = spawn_app().await;
    let names: Vec<String> = (0..10).map(|i| format!("Busy{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (id, _, ms) = channel(&app, &refs, false).await;
    let mut sockets = Vec::new();
    for m in &ms {
        sockets.push(app.socket(&m.token).await);
    }
    let operator = app.operator().await;
    let commits_before = store_commits(&operator).await;
    let refused = ms[0]
        .client
        .post::<_, Value>("/api/v1/admin/store", &json!({}))
        .await
        .unwrap_err();
    assert_eq!(code(refused), 40300, "members are not operators");
    // Every member sends its whole burst at once: the sends pile up behind
    // the actor's running round and are stored in groups.
    let per_sender = 10;
    let mut sends = Vec::new();
    for m in &ms {
        for i in 0..per_sender {
            let c = m.client.clone();
            let id = id.clone();
            let who = m.id.clone();
            sends.push(tokio::spawn(async move {
                let text = format!("{who} {i}");
                let seq = send(&c, &id, &text).await.unwrap();
                (who, seq, text)
            }));
        }
    }
    let mut answered = Vec::new();
    for s in sends {
        answered.push(s.await.unwrap());
    }
    let total = per_sender * ms.len();
    // Stored in rounds: one message at a time took three commits in a row
    // (seq, row, read mark), so `total` messages took at least 3 x total.
    // In rounds, the messages queued behind a round share its commits.
    let commits = store_commits(&operator).await - commits_before;
    eprintln!("{total} concurrent sends: {commits} store commits");
    assert!(
        commits < total as u64,
        "{total} concurrent sends took {commits} store commits"
    );
    let mut by_seq: Vec<(u64, String)> = answered.iter().map(|(_, s, t)| (*s, t.clone())).collect();
    by_seq.sort();
    let seqs: Vec<u64> = by_seq.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        seqs,
        (1..=total as u64).collect::<Vec<_>>(),
        "distinct, consecutive"
    );

    // Every member's socket gets every message exactly once, in seq order;
    // the message at each answered seq is the one that caller sent.
    for s in &mut sockets {
        let got: Vec<(u64, String)> = collect(s, total)
            .await
            .iter()
            .map(|m| {
                (
                    m["seq"].as_u64().unwrap(),
                    m["content"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(got, by_seq);
        assert!(
            !hears_message(s, Duration::from_millis(300)).await,
            "no duplicate"
        );
    }

    // History holds them all, newest first.
    let h: Value = ms[0]
        .client
        .post(
            "/api/v1/im/history",
            &json!({"channel_id": id, "limit": 100}),
        )
        .await
        .unwrap();
    let items: Vec<(u64, String)> = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["seq"].as_u64().unwrap(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut newest_first = by_seq.clone();
    newest_first.reverse();
    assert_eq!(items, newest_first);
    assert_eq!(h["has_more"], false);

    // Each sender's read mark ends at its own last message.
    for m in &ms {
        let last = answered
            .iter()
            .filter(|(who, _, _)| *who == m.id)
            .map(|(_, s, _)| *s)
            .max()
            .unwrap();
        let r: Value = m
            .client
            .post("/api/v1/im/message/unread-record", &json!({}))
            .await
            .unwrap();
        let item = r["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["channel_id"] == id.as_str())
            .unwrap()
            .clone();
        assert_eq!(item["last_seq"], total as u64);
        assert_eq!(item["read_seq"], last, "{}", m.id);
        assert_eq!(item["unread"], total as u64 - last);
    }
}

#[tokio::test]
async fn a_refused_burst_takes_no_sequence_numbers() {
    let app = spawn_app().await;
    let (id, _, ms) = channel(&app, &["Ann", "Bob"], false).await;
    // One sender fires far more than its burst at once: the ones over the
    // limit are refused with TooManyRequests and leave no gap.
    let mut sends = Vec::new();
    for i in 0..30 {
        let c = ms[1].client.clone();
        let id = id.clone();
        sends.push(tokio::spawn(async move {
            send(&c, &id, &format!("spam {i}")).await.map_err(code)
        }));
    }
    let mut accepted = Vec::new();
    let mut refused = 0;
    for s in sends {
        match s.await.unwrap() {
            Ok(seq) => accepted.push(seq),
            Err(c) => {
                assert_eq!(c, 42900);
                refused += 1;
            }
        }
    }
    accepted.sort_unstable();
    let n = accepted.len() as u64;
    assert!((10..=13).contains(&n), "accepted {n}");
    assert_eq!(refused as u64, 30 - n);
    assert_eq!(
        accepted,
        (1..=n).collect::<Vec<_>>(),
        "refused ones took no seq"
    );
    // The next message follows directly.
    assert_eq!(send(&ms[0].client, &id, "after").await.unwrap(), n + 1);
    let h: Value = ms[0]
        .client
        .post(
            "/api/v1/im/history",
            &json!({"channel_id": id, "limit": 100}),
        )
        .await
        .unwrap();
    assert_eq!(h["items"].as_array().unwrap().len() as u64, n + 1);
}
