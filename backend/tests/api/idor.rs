//! IDOR (issue 23, part 4): every call below takes an object id. Alice
//! owns one object of each kind; Bob calls each with Alice's id and with a
//! missing id of the same shape, and the two answers must be the same bytes
//! (status and body, the ids themselves blanked): a stranger cannot tell
//! another account's object from one that does not exist. Afterwards
//! Alice's objects are all still there, unchanged by Bob's deletes.

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::spawn_app_with;
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

/// A missing id of the same shape: the last character changed.
fn missing(id: &str) -> String {
    let mut s = id.to_owned();
    let last = s.pop().unwrap();
    s.push(if last == '0' { '1' } else { '0' });
    s
}

/// `template` with every string "$ID" replaced by `id`.
fn fill(template: &Value, id: &str) -> Value {
    match template {
        Value::String(s) if s == "$ID" => Value::String(id.to_owned()),
        Value::Array(a) => Value::Array(a.iter().map(|v| fill(v, id)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), fill(v, id))).collect())
        }
        v => v.clone(),
    }
}

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn id_in(v: &Value, keys: &[&str]) -> String {
    keys.iter()
        .find_map(|k| v[*k].as_str())
        .unwrap_or_else(|| panic!("no id among {keys:?} in {v}"))
        .to_owned()
}

struct Owned {
    kind: &'static str,
    id: String,
    /// A read by the owner that must succeed, before and after.
    probe: (&'static str, Value),
    /// Calls a stranger makes with the id ("$ID" in the body).
    calls: Vec<(&'static str, Value)>,
}

/// The (status, body) of a call, with `id` blanked.
async fn answer(c: &RestClient, path: &str, body: &Value, id: &str) -> (u16, String) {
    let (status, _, bytes) = c.post_bytes(path, body).await.unwrap();
    let text = String::from_utf8(bytes).unwrap();
    (status, text.replace(id, "<ID>"))
}

async fn objects_of(alice: &RestClient) -> Vec<Owned> {
    let mut out = Vec::new();
    // A task, finished.
    let sd = checkpoint(alice, "sd").await;
    let task = alice
        .create_task("/api/v1/task/create", &t2i(&sd, "mine alone", 1))
        .await
        .unwrap();
    alice.wait_task(&task, TASK_WAIT).await.unwrap();
    out.push(Owned {
        kind: "task",
        id: task,
        probe: ("/api/v1/task/progress", json!({"id": "$ID"})),
        calls: vec![
            ("/api/v1/task/progress", json!({"id": "$ID"})),
            ("/api/v1/task/detail", json!({"id": "$ID"})),
            ("/api/v1/task/save-personal", json!({"id": "$ID"})),
            ("/api/v1/task/speed-up", json!({"id": "$ID"})),
            (
                "/api/v1/task/operate",
                json!({"id": "$ID", "operate": "cancel"}),
            ),
            ("/api/v1/task/v2/download", json!({"id": "$ID"})),
            ("/api/v1/task/delete", json!({"id": "$ID"})),
            ("/api/v1/task/index/delete", json!({"id": "$ID"})),
        ],
    });
    // A character draft, and a chat with a published character.
    let draft = id_in(
        &post(
            alice,
            "/api/v1/tavern-pro/publish",
            json!({"name": "Draft", "greeting": "Hi.", "persona": "Quiet.", "published": false}),
        )
        .await,
        &["id"],
    );
    out.push(Owned {
        kind: "character draft",
        id: draft.clone(),
        probe: ("/api/v1/tavern-pro/detail", json!({"id": "$ID"})),
        calls: vec![
            ("/api/v1/tavern-pro/detail", json!({"id": "$ID"})),
            ("/api/v1/character/detail", json!({"id": "$ID"})),
            (
                "/api/v1/tavern-pro/publish",
                json!({"id": "$ID", "name": "Taken", "greeting": "Hi.", "persona": "Mine now.", "published": true}),
            ),
            ("/api/v1/tavern-pro/delete", json!({"id": "$ID"})),
        ],
    });
    let public = id_in(
        &post(
            alice,
            "/api/v1/tavern-pro/publish",
            json!({"name": "Echo", "greeting": "Hi.", "persona": "Kind.", "published": true}),
        )
        .await,
        &["id"],
    );
    let session = id_in(
        &post(
            alice,
            "/api/v1/character/session/create",
            json!({"character_id": public}),
        )
        .await,
        &["session_id"],
    );
    let sid = json!({"session_id": "$ID"});
    out.push(Owned {
        kind: "chat",
        id: session,
        probe: ("/api/v1/character/session/message/list", sid.clone()),
        calls: vec![
            ("/api/v1/character/session/message/list", sid.clone()),
            (
                "/api/v1/character/session/msg/latest_state_info",
                sid.clone(),
            ),
            (
                "/api/v1/character/session/chat/start",
                json!({"session_id": "$ID", "content": "hello"}),
            ),
            ("/api/v1/character/session/chat/stop", sid.clone()),
            (
                "/api/v1/character/session/edit",
                json!({"session_id": "$ID", "title": "Mine"}),
            ),
            ("/api/v1/character/session/delete", sid.clone()),
        ],
    });
    // A datacard.
    let card = id_in(
        &post(
            alice,
            "/api/v1/datacard/create",
            json!({"title": "Isle", "content": "Fog."}),
        )
        .await,
        &["id"],
    );
    out.push(Owned {
        kind: "datacard",
        id: card,
        probe: ("/api/v1/datacard/detail", json!({"id": "$ID"})),
        calls: vec![
            ("/api/v1/datacard/detail", json!({"id": "$ID"})),
            (
                "/api/v1/datacard/edit",
                json!({"id": "$ID", "title": "Mine", "content": "x"}),
            ),
            ("/api/v1/datacard/delete", json!({"id": "$ID"})),
        ],
    });
    // A private channel.
    let ch = post(
        alice,
        "/api/v1/im/channel/create",
        json!({"name": "Private", "private": true}),
    )
    .await;
    let cid = json!({"channel_id": "$ID"});
    out.push(Owned {
        kind: "channel",
        id: id_in(&ch, &["channel_id"]),
        probe: ("/api/v1/im/channel/detail", cid.clone()),
        calls: vec![
            ("/api/v1/im/channel/detail", cid.clone()),
            ("/api/v1/im/channel/info", cid.clone()),
            ("/api/v1/im/channel/members", cid.clone()),
            ("/api/v1/im/history", cid.clone()),
            (
                "/api/v1/im/message/send",
                json!({"channel_id": "$ID", "content": "let me in"}),
            ),
            (
                "/api/v1/im/channel/edit",
                json!({"channel_id": "$ID", "name": "Mine"}),
            ),
            (
                "/api/v1/im/message/read",
                json!({"channel_id": "$ID", "seq": 1}),
            ),
            ("/api/v1/im/channel/quit", cid.clone()),
            ("/api/v1/im/channel/disband", cid.clone()),
        ],
    });
    // A private article (a work).
    let work = id_in(
        &post(
            alice,
            "/api/v1/post/article/add",
            json!({"title": "Diary", "content": "Mine alone.", "tags": ["words"], "visibility": "private"}),
        )
        .await,
        &["id"],
    );
    out.push(Owned {
        kind: "work (private article)",
        id: work,
        probe: ("/api/v1/post/detail", json!({"id": "$ID"})),
        calls: vec![
            ("/api/v1/post/detail", json!({"id": "$ID"})),
            ("/api/v1/artwork/detail", json!({"id": "$ID"})),
            (
                "/api/v1/post/article/edit",
                json!({"id": "$ID", "title": "Mine", "content": "x"}),
            ),
            (
                "/api/v1/artwork/visibility",
                json!({"id": "$ID", "visibility": "public"}),
            ),
            ("/api/v1/artwork/like", json!({"id": "$ID"})),
            ("/api/v1/artwork/delete", json!({"id": "$ID"})),
        ],
    });
    // A comment on Alice's draft, which only she sees. (A comment on what
    // is public is public too: deleting someone else's answers NoPermission,
    // which tells a stranger nothing the comment list does not.)
    let comment = crate::comments::comment(alice, &draft, "first")
        .await
        .unwrap();
    out.push(Owned {
        kind: "comment (on a draft)",
        id: comment,
        probe: (
            "/api/v1/comment2/list",
            json!({"obj_id": draft, "obj_type": 9}),
        ),
        calls: vec![("/api/v1/comment2/delete", json!({"id": "$ID"}))],
    });
    // A model, not published.
    let bytes = crate::models::lora();
    let file = crate::models::upload(alice, &bytes, "mine.safetensors")
        .await
        .unwrap();
    let model = id_in(
        &post(
            alice,
            "/api/v1/resource/createModel",
            json!({"file_id": file["file_id"], "name": "Mine", "model_type": "lora", "base_model": "sd"}),
        )
        .await,
        &["model_id"],
    );
    let mid = json!({"model_id": "$ID"});
    out.push(Owned {
        kind: "model (draft)",
        id: model,
        probe: ("/api/v1/model/detail", mid.clone()),
        calls: vec![
            ("/api/v1/model/detail", mid.clone()),
            ("/api/v1/model/detail-with-ver", mid.clone()),
            (
                "/api/v1/model/edit",
                json!({"model_id": "$ID", "name": "Taken"}),
            ),
            ("/api/v1/model/publish", mid.clone()),
            ("/api/v1/model/delist", mid.clone()),
            ("/api/v1/model/download", mid.clone()),
            ("/api/v1/resource/publish", mid.clone()),
            ("/api/v1/resource/delModel", mid.clone()),
        ],
    });
    // An upload, not yet confirmed.
    let pre = post(
        alice,
        "/api/v1/resource/pre-sign/get",
        json!({"file_size": 10, "file_name": "a.png", "content_type": "image/png", "category": 46}),
    )
    .await;
    out.push(Owned {
        kind: "upload",
        id: id_in(&pre, &["file_id"]),
        probe: (
            "/api/v1/resource/pre-sign/getPreSignAddr",
            json!({"file_id": "$ID", "part_number": 1}),
        ),
        calls: vec![
            (
                "/api/v1/resource/pre-sign/confirm",
                json!({"file_id": "$ID"}),
            ),
            (
                "/api/v1/resource/pre-sign/getPreSignAddr",
                json!({"file_id": "$ID", "part_number": 1}),
            ),
        ],
    });
    // A dataset.
    let ds = post(alice, "/api/v1/dataset/create", json!({"name": "Reds"})).await;
    let did = json!({"dataset_id": "$ID"});
    out.push(Owned {
        kind: "dataset",
        id: id_in(&ds, &["dataset_id", "id"]),
        probe: ("/api/v1/dataset/detail", did.clone()),
        calls: vec![
            ("/api/v1/dataset/detail", did.clone()),
            (
                "/api/v1/dataset/edit",
                json!({"dataset_id": "$ID", "name": "Mine"}),
            ),
            (
                "/api/v1/dataset/image/add",
                json!({"dataset_id": "$ID", "urls": []}),
            ),
            (
                "/api/v1/dataset/image/delete",
                json!({"dataset_id": "$ID", "image_ids": ["x"]}),
            ),
            ("/api/v1/dataset/caption/auto", did.clone()),
            ("/api/v1/dataset/delete", did.clone()),
        ],
    });
    // A video editor workspace.
    let ed = "/api/v1/task/v2/video/editor";
    let ws = post(
        alice,
        &format!("{ed}/workspace/create"),
        json!({"name": "Kites", "width": 480, "height": 270}),
    )
    .await;
    let wid = json!({"workspace_id": "$ID"});
    out.push(Owned {
        kind: "editor workspace",
        id: id_in(&ws, &["workspace_id"]),
        probe: ("/api/v1/task/v2/video/editor/detail", wid.clone()),
        // (`material/list` takes no workspace: the media bin is the
        // caller's own; the materials are their own kind below.)
        calls: vec![
            ("/api/v1/task/v2/video/editor/detail", wid.clone()),
            ("/api/v1/task/v2/video/editor/export", wid.clone()),
            ("/api/v1/task/v2/video/editor/export/check", wid.clone()),
            (
                "/api/v1/task/v2/video/editor/workspace/edit",
                json!({"workspace_id": "$ID", "name": "Mine"}),
            ),
            ("/api/v1/task/v2/video/editor/workspace/del", wid.clone()),
        ],
    });
    // A material in the editor's media bin (a second of sound).
    let song = crate::editor::upload(
        alice,
        &crate::editor::lavfi(0, 0, 1),
        "song.m4a",
        "audio/mp4",
        59,
    )
    .await;
    let material = post(
        alice,
        &format!("{ed}/material/upload"),
        json!({"file_id": song}),
    )
    .await;
    out.push(Owned {
        kind: "editor material",
        id: id_in(&material, &["material_id"]),
        probe: ("/api/v1/task/v2/video/editor/material/list", json!({})),
        calls: vec![(
            "/api/v1/task/v2/video/editor/material/delete",
            json!({"material_id": "$ID"}),
        )],
    });
    // An agent conversation.
    let conv = post(
        alice,
        "/api/v1/task/gen-agent/conv/create",
        json!({"conv_type": 1}),
    )
    .await;
    out.push(Owned {
        kind: "agent conversation",
        id: id_in(&conv, &["conv_id"]),
        probe: (
            "/api/v1/task/gen-agent/conv/history",
            json!({"conv_id": "$ID"}),
        ),
        calls: vec![(
            "/api/v1/task/gen-agent/conv/history",
            json!({"conv_id": "$ID"}),
        )],
    });
    // An order.
    let order = post(
        alice,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-100", "provider": "manual"}),
    )
    .await;
    out.push(Owned {
        kind: "order",
        id: id_in(&order, &["order_id"]),
        probe: ("/api/v1/payment/order/status", json!({"order_id": "$ID"})),
        calls: vec![
            ("/api/v1/payment/order/status", json!({"order_id": "$ID"})),
            ("/api/v1/payment/order/checkout", json!({"order_id": "$ID"})),
        ],
    });
    out
}

#[tokio::test]
async fn another_accounts_object_answers_exactly_like_a_missing_one() {
    let app = spawn_app_with(&[
        ("EASEL_LLM", "scripted"),
        ("EASEL_MANUAL_PAYMENTS", "Transfer to IBAN XX00 0000"),
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000"),
    ])
    .await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let owned = objects_of(&alice).await;
    let mut before = Vec::new();
    for o in &owned {
        let (status, body) = answer(&alice, o.probe.0, &fill(&o.probe.1, &o.id), &o.id).await;
        assert!(
            status == 200 && body.contains("\"code\":10000"),
            "{}: the owner reads it: {status} {body}",
            o.kind
        );
        before.push(body);
    }
    let mut leaks = Vec::new();
    let mut calls = 0;
    for o in &owned {
        let other = missing(&o.id);
        for (path, template) in &o.calls {
            calls += 1;
            let theirs = answer(&bob, path, &fill(template, &o.id), &o.id).await;
            let none = answer(&bob, path, &fill(template, &other), &other).await;
            if theirs.1.contains("\"code\":10000") {
                leaks.push(format!("{} {path}: ANSWERED {theirs:?}", o.kind));
            } else if theirs != none {
                leaks.push(format!(
                    "{} {path}: another's {theirs:?} but missing {none:?}",
                    o.kind
                ));
            }
        }
    }
    println!("{calls} calls over {} kinds of object", owned.len());
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
    // Bob's deletes, edits and cancels changed nothing.
    for (o, was) in owned.iter().zip(&before) {
        let (status, now) = answer(&alice, o.probe.0, &fill(&o.probe.1, &o.id), &o.id).await;
        assert_eq!(status, 200, "{}", o.kind);
        assert_eq!(&now, was, "{}: unchanged by the stranger", o.kind);
    }
}
