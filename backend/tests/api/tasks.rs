//! Generation through the real binary: every action, the rules and their
//! keys, roles, determinism, live progress, cancel, restart mid-task,
//! credits under concurrency, downloads, lists and ownership.

use std::collections::HashSet;
use std::io::Cursor;
use std::time::Duration;

use protocol::client::RestClient;
use protocol::frame::FrameType;
use protocol::task::{TaskStatus, TaskView};
use serde_json::{json, Value};

use crate::helpers::{assets, spawn_app, spawn_app_with, TestApp};

pub const TASK_WAIT: Duration = Duration::from_secs(120);

/// A PNG with a red square on a blue field (so descriptions and masks have structure).
pub fn test_png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(w, h, |x, y| {
        if x > w / 4 && x < 3 * w / 4 && y > h / 4 && y < 3 * h / 4 {
            image::Rgba([220, 30, 30, 255])
        } else {
            image::Rgba([30, 60, 200, 255])
        }
    });
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// A mask: opaque everywhere except a transparent (painted) left half.
fn mask_png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(w, h, |x, _| {
        if x < w / 2 {
            image::Rgba([0, 0, 0, 0])
        } else {
            image::Rgba([0, 0, 0, 255])
        }
    });
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// The catalogue's first checkpoint of `family`.
pub async fn checkpoint(client: &RestClient, family: &str) -> String {
    let c: Value = client
        .post("/api/v1/task/v2/config/model", &json!({}))
        .await
        .unwrap();
    c["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["family"] == family)
        .unwrap_or_else(|| panic!("no {family} checkpoint"))["model_ver_no"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub async fn loras(client: &RestClient, family: &str, n: usize) -> Vec<Value> {
    let c: Value = client
        .post("/api/v1/task/v2/config/model", &json!({}))
        .await
        .unwrap();
    let all: Vec<Value> = c["loras"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["base_model"] == family)
        .cloned()
        .collect();
    assert!(!all.is_empty(), "no {family} LoRA in the catalogue");
    (0..n)
        .map(|i| {
            let l = &all[i % all.len()];
            json!({"model_id": l["model_id"], "model_ver_no": l["model_ver_no"], "weight": 0.7, "base_model": family})
        })
        .collect()
}

/// A small text-to-image body for the sd family.
pub fn t2i(model: &str, prompt: &str, seed: i64) -> Value {
    json!({
        "action": 1, "category": 1, "art_model_ver_no": model,
        "meta": {"prompt": prompt, "negative_prompt": "blurry", "width": 512, "height": 512,
                 "n_iter": 1, "steps": 8, "seed": seed}
    })
}

async fn err_key(client: &RestClient, path: &str, body: &Value) -> (u16, String) {
    let e = client
        .create_task(path, body)
        .await
        .expect_err("the call should fail");
    (
        e.http_status().unwrap_or(0),
        e.status().and_then(|s| s.key.clone()).unwrap_or_default(),
    )
}

async fn fetch_image(client: &RestClient, url: &str) -> (String, Vec<u8>) {
    let (status, ct, bytes) = client.get_bytes(url).await.unwrap();
    assert_eq!(status, 200, "GET {url}");
    (ct, bytes)
}

/// (path, body, expected mime, output count, size of the outputs if fixed)
type Case<'a> = (&'a str, Value, &'a str, usize, Option<(u32, u32)>);

#[tokio::test]
async fn every_action_produces_its_output() {
    // Every action at once: more tasks in progress than a free account's
    // queue allows (the limit has its own test in mall::perks).
    let app = spawn_app_with(&[("EASEL_QUEUE_LIMIT", "0")]).await;
    let (_, client) = app.user("Maker").await;
    let sd = checkpoint(&client, "sd").await;
    let src = client
        .upload(&test_png(160, 120), "source.png", "image/png")
        .await
        .unwrap();
    let face = client
        .upload(&test_png(128, 128), "face.png", "image/png")
        .await
        .unwrap();
    let mask = client
        .upload(&mask_png(160, 120), "mask.png", "image/png")
        .await
        .unwrap();
    let meta_img = |extra: Value| {
        let mut m = json!({"prompt": "a red house by the blue sea", "imageUrl": src, "width": 512,
                           "height": 512, "n_iter": 1, "steps": 6, "seed": 42});
        for (k, v) in extra.as_object().unwrap() {
            m[k] = v.clone();
        }
        m
    };
    // (path, body, expected mime, expected output count, expected (w, h) of the first output or None)
    let cases: Vec<Case> = vec![
        (
            "/api/v1/task/v2/text-to-img",
            json!({"category": 1, "art_model_ver_no": sd,
            "meta": {"prompt": "a sunset over mountains", "width": 512, "height": 768, "n_iter": 2, "steps": 6, "seed": 7}}),
            "image/png",
            2,
            Some((512, 768)),
        ),
        (
            "/api/v1/task/v2/img-to-img",
            json!({"category": 1, "art_model_ver_no": sd, "meta": meta_img(json!({"mask": mask}))}),
            "image/png",
            1,
            Some((512, 512)),
        ),
        (
            "/api/v1/task/v2/controlNet-to-img",
            json!({"category": 1, "art_model_ver_no": sd,
            "meta": {"prompt": "a city at night", "width": 512, "height": 512, "n_iter": 1, "steps": 6, "seed": 3,
                     "controlnet_units": [{"module": "canny", "weight": 1, "input_image": src}]}}),
            "image/png",
            1,
            Some((512, 512)),
        ),
        (
            "/api/v1/task/v2/upscale",
            json!({"meta": {"imageUrl": src, "scaling_ratio": 2}}),
            "image/png",
            1,
            Some((320, 240)),
        ),
        (
            "/api/v1/task/create",
            json!({"action": 6, "meta": {"imageUrl": src, "scaling_ratio": 3}}),
            "image/png",
            1,
            Some((480, 360)),
        ),
        (
            "/api/v1/task/v2/make-variation",
            json!({"category": 1, "art_model_ver_no": sd, "meta": meta_img(json!({"n_iter": 2}))}),
            "image/png",
            2,
            None,
        ),
        (
            "/api/v1/task/create",
            json!({"action": 7, "meta": {"imageUrl": src}}),
            "image/png",
            1,
            Some((160, 120)),
        ),
        (
            "/api/v1/task/create",
            json!({"action": 12, "meta": {"imageUrl": src,
            "controlnet_units": [{"module": "canny", "input_image": src}]}}),
            "image/png",
            1,
            Some((160, 120)),
        ),
        (
            "/api/v1/task/create",
            json!({"action": 13, "category": 1, "art_model_ver_no": sd,
            "meta": meta_img(json!({"width": 512, "height": 512, "left_margin": 100, "up_margin": 150}))}),
            "image/png",
            1,
            Some((512, 512)),
        ),
        (
            "/api/v1/task/create",
            json!({"action": 22, "meta": {"exchange_face": {"source_uri": face, "target_uri": src}}}),
            "image/png",
            1,
            Some((160, 120)),
        ),
        (
            "/api/v1/task/create",
            json!({"action": 24, "meta": {"imageUrl": src, "width": 512, "height": 512,
            "animatediff": {"frames": 8}}}),
            "image/gif",
            1,
            Some((512, 512)),
        ),
        (
            "/api/v1/task/create",
            json!({"action": 25, "meta": {"imageUrl": src}}),
            "image/png",
            1,
            Some((160, 120)),
        ),
    ];
    let mut ids = Vec::new();
    for (path, body, ..) in &cases {
        let id = client
            .create_task(path, body)
            .await
            .unwrap_or_else(|e| panic!("{path} {body}: {e}"));
        ids.push(id);
    }
    let describe = client
        .create_task(
            "/api/v1/task/v2/img-to-text",
            &json!({"meta": {"imageUrl": src}}),
        )
        .await
        .unwrap();
    for ((path, body, mime, count, size), id) in cases.iter().zip(&ids) {
        let t = client.wait_task(id, TASK_WAIT).await.unwrap();
        assert_eq!(
            t.status,
            TaskStatus::Success,
            "{path} {body}: {:?}",
            t.reason
        );
        assert_eq!(t.process, 100);
        assert_eq!(t.img_uris.len(), *count, "{path} {body}");
        let engine = t.engine.clone().unwrap();
        assert_eq!(engine.name, "reference");
        assert!(
            !engine.neural,
            "the reference engine is labelled non-neural"
        );
        for (out, url) in t.outputs.iter().zip(&t.img_uris) {
            assert_eq!(&out.mime, mime, "{path} {body}");
            let (ct, bytes) = fetch_image(&client, url).await;
            assert_eq!(&ct, mime);
            let img = image::load_from_memory(&bytes).unwrap();
            assert_eq!((img.width(), img.height()), (out.width, out.height));
            if let Some(s) = size {
                assert_eq!((out.width, out.height), *s, "{path} {body}");
            }
        }
        assert_eq!(t.deduction_detail.state, "settled");
    }
    let d = client.wait_task(&describe, TASK_WAIT).await.unwrap();
    assert_eq!(d.status, TaskStatus::Success);
    assert!(d.img_uris.is_empty());
    let text = d.reverse_prompts.join(" ").to_lowercase();
    assert!(text.contains("blue"), "description: {text}");
}

#[tokio::test]
async fn validation_rules_answer_their_keys() {
    let app = spawn_app().await;
    let (_, client) = app.user("Rules").await;
    let sd = checkpoint(&client, "sd").await;
    let big = client
        .upload(&test_png(1100, 1100), "big.png", "image/png")
        .await
        .unwrap();
    let cases = vec![
        (
            "/api/v1/task/v2/text-to-img",
            json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "   "}}),
            400,
            "PromptNotEmpty",
        ),
        (
            "/api/v1/task/v2/text-to-img",
            json!({"category": 1, "meta": {"prompt": "a cat"}}),
            400,
            "PleaseSelectBaseName",
        ),
        (
            "/api/v1/task/v2/text-to-img",
            json!({"category": 1, "art_model_ver_no": "no-such-model", "meta": {"prompt": "a cat"}}),
            400,
            "PleaseSelectBaseName",
        ),
        (
            "/api/v1/task/v2/img-to-img",
            json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "a cat"}}),
            400,
            "pleaseUoloadImage",
        ),
        (
            "/api/v1/task/create",
            json!({"action": 24, "meta": {}}),
            400,
            "pleaseSelectImage",
        ),
        (
            "/api/v1/task/v2/upscale",
            json!({"meta": {"imageUrl": big, "scaling_ratio": 4}}),
            400,
            "ImageSizeExceedsError",
        ),
        (
            "/api/v1/task/v2/img-to-img",
            json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "a cat", "imageUrl": big, "mask": "ftp://example.com/m.png"}}),
            400,
            "uploadError",
        ),
        (
            "/api/v1/task/v2/img-to-img",
            json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "a cat", "imageUrl": "https://elsewhere.example/x.png"}}),
            400,
            "uploadError",
        ),
        (
            "/api/v1/task/create",
            json!({"meta": {"prompt": "no action"}}),
            400,
            "InvalidParams",
        ),
        (
            "/api/v1/task/create",
            json!({"action": 1, "meta": {"width": "wide"}}),
            400,
            "InvalidParams",
        ),
    ];
    // A mask over 4096 px a side is refused before any credit is held.
    let huge_mask = client
        .upload(&mask_png(4200, 16), "huge-mask.png", "image/png")
        .await
        .unwrap();
    let small = client
        .upload(&test_png(512, 512), "small.png", "image/png")
        .await
        .unwrap();
    let (h, k) = err_key(
        &client,
        "/api/v1/task/v2/img-to-img",
        &json!({"category": 1, "art_model_ver_no": sd, "meta": {"prompt": "a cat", "imageUrl": small, "mask": huge_mask}}),
    )
    .await;
    assert_eq!((h, k.as_str()), (400, "ImageSizeExceedsError"));
    for (path, body, http, key) in cases {
        let (h, k) = err_key(&client, path, &body).await;
        assert_eq!((h, k.as_str()), (http, key), "{path} {body}");
    }
    // Free accounts: at most 3 LoRAs.
    let mut body = t2i(&sd, "a cat", 1);
    body["meta"]["lora_models"] = json!(loras(&client, "sd", 4).await);
    assert_eq!(
        err_key(&client, "/api/v1/task/create", &body).await,
        (403, "LoRALimit5TipWeb".into())
    );
    // Nothing was held or charged for refused tasks.
    let a = assets(&client).await;
    assert_eq!(a["held"], 0, "{a}");
    assert_eq!(a["available"], a["coins"]);
    body["meta"]["lora_models"] = json!(loras(&client, "sd", 3).await);
    let id = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    assert_eq!(
        client.wait_task(&id, TASK_WAIT).await.unwrap().status,
        TaskStatus::Success
    );
}

#[tokio::test]
async fn normalisations_are_applied_on_the_server() {
    let app = spawn_app().await;
    let (_, client) = app.user("Norm").await;
    let sd = checkpoint(&client, "sd").await;
    let mut body = t2i(&sd, "a lighthouse --auto --s2", -1);
    body["speed_type"] = json!(2);
    body["meta"]["n_iter"] = Value::Null;
    let id = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let t = client.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.prompt.trim(), "a lighthouse", "flags stripped");
    assert!(
        t.seed >= 1 && t.seed <= 2_147_483_643,
        "seed -1 is random: {}",
        t.seed
    );
    assert_eq!(t.n_iter, 2, "free default n_iter 2");
    let detail: Value = client
        .post("/api/v1/task/detail", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(detail["id"], json!(id));
    // Width or height <= 0 becomes 1024 (then the family's limits apply).
    let mut body = t2i(&sd, "a tower", 5);
    body["meta"]["width"] = json!(0);
    body["meta"]["steps"] = json!(4);
    let id = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let t = client.wait_task(&id, TASK_WAIT).await.unwrap();
    assert!(t.width > 0 && t.width <= 1024, "width {}", t.width);
}

#[tokio::test]
async fn roles_visitor_free_and_paid() {
    let app = spawn_app_with(&[("EASEL_VISITOR_QUOTA", "2")]).await;
    let visitor = app.client.with_device("device-visitor-0001");
    let (_, free) = app.user("Free").await;
    let sd = checkpoint(&free, "sd").await;
    // Visitors: text-to-image only, n_iter 1, a daily quota, no credits.
    let mut body = t2i(&sd, "a visitor's first picture", 9);
    body["meta"]["n_iter"] = json!(4);
    let id = visitor
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let t = visitor.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success);
    assert_eq!(t.n_iter, 1);
    assert_eq!(t.deduction_detail.coins, 0);
    let src = free
        .upload(&test_png(64, 64), "x.png", "image/png")
        .await
        .unwrap();
    let (h, key) = err_key(
        &visitor,
        "/api/v1/task/v2/upscale",
        &json!({"meta": {"imageUrl": src}}),
    )
    .await;
    assert_eq!((h, key.as_str()), (401, "NeedLogin"));
    visitor
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let (h, key) = err_key(&visitor, "/api/v1/task/create", &body).await;
    assert_eq!((h, key.as_str()), (429, "VisitorLimit"));
    // Another visitor cannot see the first one's task; no device at all is NeedLogin.
    let other = app.client.with_device("device-visitor-0002");
    assert!(other
        .batch_progress(std::slice::from_ref(&id))
        .await
        .unwrap()
        .is_empty());
    let (h, key) = err_key(&app.client, "/api/v1/task/create", &body).await;
    assert_eq!((h, key.as_str()), (401, "NeedLogin"));

    // Free: speed 1 whatever is asked; paid: speed 2, n_iter 4 by default, unlimited LoRAs.
    let mut body = t2i(&sd, "speed", 3);
    body["speed_type"] = json!(2);
    body["meta"]["n_iter"] = Value::Null;
    let id = free
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let row: Value = free
        .post("/api/v1/task/detail", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(row["n_iter"], 2);
    let op = app.operator().await;
    let (paid_login, paid) = app.user("Paid").await;
    op.post::<_, Value>(
        "/api/v1/admin/account/membership",
        &json!({"account_id": paid_login.account.id,
                "payment": {"activeState": true, "liteActiveState": false, "infiniteQueue": true, "productLevel": 2}}),
    )
    .await
    .unwrap();
    assert!(paid.payment_info().await.unwrap().active_state);
    let mut body = t2i(&sd, "paid", 4);
    body["meta"]["n_iter"] = Value::Null;
    body["meta"]["lora_models"] = json!(loras(&paid, "sd", 5).await);
    let id = paid
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let t = paid.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    assert_eq!(t.n_iter, 4);
    assert_eq!(t.img_uris.len(), 4);
    // Speed-up is for members; a free account gets actNotAvailable.
    let e = free
        .post::<_, Value>("/api/v1/task/speed-up", &json!({"id": id}))
        .await
        .unwrap_err();
    assert!(matches!(
        e.status().and_then(|s| s.key.clone()).as_deref(),
        Some("NotFound" | "actNotAvailable")
    ));
}

#[tokio::test]
async fn same_seed_same_bytes() {
    let app = spawn_app().await;
    let (_, client) = app.user("Seed").await;
    let sd = checkpoint(&client, "sd").await;
    let mut outs = Vec::new();
    for seed in [1234, 1234, 1235] {
        let id = client
            .create_task("/api/v1/task/create", &t2i(&sd, "a green forest", seed))
            .await
            .unwrap();
        let t = client.wait_task(&id, TASK_WAIT).await.unwrap();
        assert_eq!(t.status, TaskStatus::Success);
        let (_, bytes) = fetch_image(&client, &t.img_uris[0]).await;
        outs.push(bytes);
    }
    assert_eq!(outs[0], outs[1], "same seed and parameters, same bytes");
    assert_ne!(outs[0], outs[2], "another seed, another picture");
}

fn assert_monotone(seen: &[(TaskStatus, u8)], what: &str) {
    for w in seen.windows(2) {
        let ((_, a), (s, b)) = (w[0], w[1]);
        assert!(
            b >= a || b == 0 || s.is_final(),
            "{what}: progress went back {a} -> {b} in {seen:?}"
        );
    }
}

#[tokio::test]
async fn progress_is_monotone_on_the_socket_and_in_batch_progress() {
    let app = spawn_app_with(&[("EASEL_REFERENCE_STEP_MS", "40")]).await;
    let (login, client) = app.user("Watcher").await;
    let mut socket = app.socket(&login.token).await;
    let mut second = app.socket(&login.token).await;
    let sd = checkpoint(&client, "sd").await;
    let mut body = t2i(&sd, "a slow sunrise", 77);
    body["meta"]["steps"] = json!(30);
    let id = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let poller = {
        let client = client.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let mut seen = Vec::new();
            loop {
                let t = client
                    .batch_progress(std::slice::from_ref(&id))
                    .await
                    .unwrap()
                    .remove(0);
                seen.push((t.status, t.process));
                if t.status.is_final() {
                    return seen;
                }
                tokio::time::sleep(Duration::from_millis(30)).await;
            }
        })
    };
    let mut pushed = Vec::new();
    loop {
        let f = socket
            .expect(FrameType::TaskUpdate, TASK_WAIT)
            .await
            .unwrap();
        let t: TaskView = serde_json::from_value(f.content).unwrap();
        assert_eq!(t.id, id);
        pushed.push((t.status, t.process));
        if t.status.is_final() {
            break;
        }
    }
    assert_monotone(&pushed, "socket");
    assert_eq!(pushed.last().unwrap(), &(TaskStatus::Success, 100));
    let distinct: HashSet<u8> = pushed.iter().map(|p| p.1).collect();
    assert!(
        distinct.len() >= 4,
        "several progress steps were pushed: {pushed:?}"
    );
    let polled = poller.await.unwrap();
    assert_monotone(&polled, "batch-progress");
    // The other socket of the same user got the same final update.
    loop {
        let f = second
            .expect(FrameType::TaskUpdate, TASK_WAIT)
            .await
            .unwrap();
        if f.content["status"] == 3 {
            break;
        }
    }
}

#[tokio::test]
async fn cancel_ends_the_task_and_releases_the_hold() {
    let app = spawn_app_with(&[("EASEL_REFERENCE_STEP_MS", "200"), ("EASEL_WORKERS", "1")]).await;
    let (_, client) = app.user("Canceller").await;
    let (_, stranger) = app.user("Stranger").await;
    let before = assets(&client).await;
    let sd = checkpoint(&client, "sd").await;
    let mut body = t2i(&sd, "a long night", 11);
    body["meta"]["steps"] = json!(60);
    let id = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let during = assets(&client).await;
    assert!(
        during["held"].as_i64().unwrap() > 0,
        "the cost is held: {during}"
    );
    // Someone else can neither see nor cancel it.
    let e = stranger
        .post::<_, Value>(
            "/api/v1/task/operate",
            &json!({"id": id, "operate": "cancel"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.status().unwrap().key.as_deref(), Some("NotFound"));
    let t: TaskView = client
        .post(
            "/api/v1/task/operate",
            &json!({"id": id, "operate": "cancel"}),
        )
        .await
        .unwrap();
    assert_eq!(t.status, TaskStatus::Ended);
    assert_eq!(t.status_desc, "user cancelled");
    assert_eq!(t.deduction_detail.state, "voided");
    let after = assets(&client).await;
    assert_eq!(after["coins"], before["coins"], "nothing charged");
    assert_eq!(after["held"], 0);
    // It stays ended: a late result of the running job is not taken.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let t = client
        .batch_progress(std::slice::from_ref(&id))
        .await
        .unwrap()
        .remove(0);
    assert_eq!(t.status, TaskStatus::Ended);
}

#[tokio::test]
async fn a_restart_mid_task_leaves_no_task_stuck() {
    let mut app =
        spawn_app_with(&[("EASEL_REFERENCE_STEP_MS", "100"), ("EASEL_WORKERS", "1")]).await;
    let (login, client) = app.user("Restart").await;
    let sd = checkpoint(&client, "sd").await;
    let mut ids = Vec::new();
    for seed in 1..=3 {
        let mut body = t2i(&sd, "through a restart", seed);
        body["meta"]["steps"] = json!(20);
        ids.push(
            client
                .create_task("/api/v1/task/create", &body)
                .await
                .unwrap(),
        );
    }
    // Wait until the first one is running.
    loop {
        let t = client.batch_progress(&ids[..1]).await.unwrap().remove(0);
        if t.status == TaskStatus::Running && t.process > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.kill_and_restart();
    let client = app.client.with_token(&login.token);
    let mut cost = 0;
    for id in &ids {
        let t = client.wait_task(id, TASK_WAIT).await.unwrap();
        assert_eq!(t.status, TaskStatus::Success, "{id}: {:?}", t.reason);
        assert_eq!(t.deduction_detail.state, "settled");
        cost += t.deduction_detail.coins;
    }
    let a = assets(&client).await;
    assert_eq!(a["held"], 0);
    let entries = a["entries"].as_array().unwrap();
    let settles = entries.iter().filter(|e| e["kind"] == "settle").count();
    assert_eq!(settles, 3, "each task charged exactly once: {entries:?}");
    let grant: i64 = entries
        .iter()
        .filter(|e| e["kind"] == "grant")
        .map(|e| e["delta"].as_i64().unwrap())
        .sum();
    assert_eq!(a["coins"].as_i64().unwrap(), grant - cost);
}

#[tokio::test]
async fn concurrent_tasks_never_overdraw_the_balance() {
    let app = spawn_app_with(&[("EASEL_SIGNUP_CREDITS", "7")]).await;
    let (_, client) = app.user("Spender").await;
    let sd = checkpoint(&client, "sd").await;
    let body = t2i(&sd, "one credit each", 1);
    let estimate: Value = client
        .post("/api/v1/task/v2/estimate", &body)
        .await
        .unwrap();
    let cost = estimate["calculate_coins"].as_i64().unwrap();
    assert!(cost >= 1);
    let mut handles = Vec::new();
    for _ in 0..50 {
        let client = client.clone();
        let body = body.clone();
        handles.push(tokio::spawn(async move {
            client.create_task("/api/v1/task/create", &body).await
        }));
    }
    let mut accepted = Vec::new();
    let mut refused = 0;
    for h in handles {
        match h.await.unwrap() {
            Ok(id) => accepted.push(id),
            Err(e) => {
                assert_eq!(
                    e.status().unwrap().key.as_deref(),
                    Some("CoinsNotEnough"),
                    "{e}"
                );
                refused += 1;
            }
        }
        let a = assets(&client).await;
        assert!(a["available"].as_i64().unwrap() >= 0, "{a}");
    }
    assert_eq!(
        accepted.len() as i64,
        7 / cost,
        "exactly as many as the balance covers"
    );
    assert_eq!(refused, 50 - accepted.len());
    for id in &accepted {
        assert_eq!(
            client.wait_task(id, TASK_WAIT).await.unwrap().status,
            TaskStatus::Success
        );
    }
    let a = assets(&client).await;
    assert_eq!(
        a["coins"].as_i64().unwrap(),
        7 - cost * accepted.len() as i64
    );
    assert!(a["coins"].as_i64().unwrap() >= 0);
    let sum: i64 = a["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["delta"].as_i64().unwrap())
        .sum();
    assert_eq!(
        sum,
        a["coins"].as_i64().unwrap(),
        "the ledger sums to the balance"
    );
}

#[tokio::test]
async fn lists_downloads_and_deletes() {
    let app = spawn_app().await;
    let (_, client) = app.user("Lister").await;
    let (_, stranger) = app.user("Other").await;
    let sd = checkpoint(&client, "sd").await;
    let start = protocol_now();
    let a = client
        .create_task("/api/v1/task/create", &t2i(&sd, "a yellow boat", 1))
        .await
        .unwrap();
    let b = client
        .create_task("/api/v1/task/create", &t2i(&sd, "a purple castle", 2))
        .await
        .unwrap();
    for id in [&a, &b] {
        client.wait_task(id, TASK_WAIT).await.unwrap();
    }
    let list: Value = client
        .post("/api/v1/task/list", &json!({"time_from": start - 1000}))
        .await
        .unwrap();
    let ids: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![b.as_str(), a.as_str()], "newest first");
    let list: Value = client
        .post("/api/v1/task/list", &json!({"keyword": "CASTLE"}))
        .await
        .unwrap();
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    let list: Value = client
        .post(
            "/api/v1/task/list",
            &json!({"time_from": 0, "time_to": start - 1000}),
        )
        .await
        .unwrap();
    assert!(list["items"].as_array().unwrap().is_empty());
    let hist: Value = client
        .post("/api/v1/task/v2/histories", &json!({}))
        .await
        .unwrap();
    assert_eq!(hist["items"].as_array().unwrap().len(), 2);
    assert!(stranger
        .batch_progress(&[a.clone(), b.clone()])
        .await
        .unwrap()
        .is_empty());

    let (status, ct, bytes) = client
        .post_bytes("/api/v1/task/v2/download", &json!({"id": a}))
        .await
        .unwrap();
    assert_eq!((status, ct.as_str()), (200, "image/png"));
    image::load_from_memory(&bytes).unwrap();
    let (status, ct, bytes) = client
        .post_bytes("/api/v1/task/v2/batch-download", &json!({"ids": [a, b]}))
        .await
        .unwrap();
    assert_eq!((status, ct.as_str()), (200, "application/zip"));
    assert_eq!(&bytes[..2], b"PK");
    let (status, _, _) = stranger
        .post_bytes("/api/v1/task/v2/download", &json!({"id": a}))
        .await
        .unwrap();
    assert_eq!(status, 404);

    let saved: TaskView = client
        .post("/api/v1/task/save-personal", &json!({"id": a}))
        .await
        .unwrap();
    assert!(saved.saved);
    let t = client
        .batch_progress(std::slice::from_ref(&a))
        .await
        .unwrap()
        .remove(0);
    let url = t.img_uris[0].clone();
    let (status, _, _) = client.get_bytes(&url).await.unwrap();
    assert_eq!(status, 200);
    let _: Value = client
        .post("/api/v1/task/index/batch-delete", &json!({"ids": [a]}))
        .await
        .unwrap();
    assert!(client
        .batch_progress(std::slice::from_ref(&a))
        .await
        .unwrap()
        .is_empty());
    let (status, _, _) = client.get_bytes(&url).await.unwrap();
    assert_eq!(status, 404, "outputs go with the task");
    let list: Value = client.post("/api/v1/task/list", &json!({})).await.unwrap();
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn catalogue_and_uploads() {
    let app = spawn_app().await;
    let c: Value = app
        .client
        .post("/api/v1/task/v2/config/model", &json!({}))
        .await
        .unwrap();
    let families: HashSet<&str> = c["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    for f in ["sd", "sdxl", "flux", "sd3.5"] {
        assert!(families.contains(f), "{f} in {families:?}");
    }
    assert!(c["engine_note"].as_str().unwrap().contains("non-neural"));
    let p: Value = app
        .client
        .post("/api/v1/task/v2/config/generation-param", &json!({}))
        .await
        .unwrap();
    assert!(!p["items"].as_array().unwrap().is_empty());
    let r: Value = app
        .client
        .post("/api/v1/task/v2/model-rec", &json!({}))
        .await
        .unwrap();
    assert!(!r["items"].as_array().unwrap().is_empty());

    let (_, client) = app.user("Uploader").await;
    // Not an image, declared as one: refused at confirmation.
    let e = client
        .upload(b"not a png at all", "x.png", "image/png")
        .await
        .unwrap_err();
    assert_eq!(e.status().unwrap().key.as_deref(), Some("uploadError"));
    // Over the size limit: refused before any byte is sent.
    let e = client
        .post::<_, Value>(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": 1u64 << 40, "file_name": "huge.png", "content_type": "image/png"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(413));
    let e = client
        .post::<_, Value>("/api/v1/resource/pre-sign/get", &json!({"file_size": 10, "file_name": "x.exe", "content_type": "application/x-msdownload"}))
        .await
        .unwrap_err();
    assert_eq!(e.status().unwrap().key.as_deref(), Some("InvalidParams"));
    let url = client
        .upload(&test_png(40, 30), "../../etc/passwd.png", "image/png")
        .await
        .unwrap();
    assert!(url.contains("/files/u/") && !url.contains(".."), "{url}");
    let (status, ct, bytes) = client.get_bytes(&url).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "image/png"));
    assert_eq!(bytes, test_png(40, 30));
    // A file over one 20 MB chunk goes up in parts and comes back whole
    // (not a video: videos must be real, see uploads.rs).
    let big: Vec<u8> = (0..21 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
    let url = client
        .upload(&big, "clip.bin", "application/octet-stream")
        .await
        .unwrap();
    let (status, ct, bytes) = client.get_bytes(&url).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "application/octet-stream"));
    assert!(bytes == big, "the parts joined in order");
    // Visitors cannot upload.
    let e = app
        .client
        .with_device("device-visitor-0003")
        .post::<_, Value>(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": 10, "file_name": "a.png", "content_type": "image/png"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(401));
}

fn protocol_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Used by the queue tests.
pub async fn app_with_user(env: &[(&str, &str)]) -> (TestApp, RestClient, String) {
    let app = spawn_app_with(env).await;
    let (_, client) = app.user("Queue").await;
    let sd = checkpoint(&client, "sd").await;
    (app, client, sd)
}

/// Outputs and uploads in S3 (moto's S3 server under `scripts/test`).
#[tokio::test]
async fn outputs_go_to_s3_when_configured() {
    let Ok(endpoint) = std::env::var("EASEL_TEST_S3") else {
        eprintln!("SKIPPED: EASEL_TEST_S3 not set (generation with S3 objects)");
        return;
    };
    let bucket = "easel-api-test";
    let http = reqwest::Client::new();
    // An unsigned bucket creation is enough for a local S3 emulator.
    let _ = http.put(format!("{endpoint}/{bucket}")).send().await;
    let objects = format!("s3://{bucket}");
    let app = spawn_app_with(&[
        ("EASEL_OBJECTS", objects.as_str()),
        ("EASEL_S3_ENDPOINT", endpoint.as_str()),
        ("EASEL_S3_ALLOW_HTTP", "true"),
        ("EASEL_S3_ACCESS_KEY", "test"),
        ("EASEL_S3_SECRET_KEY", "test"),
    ])
    .await;
    let (_, client) = app.user("Cloud").await;
    let src = client
        .upload(&test_png(96, 64), "cloud.png", "image/png")
        .await
        .unwrap();
    let id = client
        .create_task(
            "/api/v1/task/v2/upscale",
            &json!({"meta": {"imageUrl": src, "scaling_ratio": 2}}),
        )
        .await
        .unwrap();
    let t = client.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    let (ct, bytes) = fetch_image(&client, &t.img_uris[0]).await;
    assert_eq!(ct, "image/png");
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!((img.width(), img.height()), (192, 128));
    // Nothing went to local disk: the objects live in the bucket.
    let key = t.img_uris[0].trim_start_matches("/files/");
    assert!(!app.data.path().join("objects").join(key).exists());
    assert!(
        !app.data.path().join("objects").exists()
            || std::fs::read_dir(app.data.path().join("objects"))
                .unwrap()
                .count()
                == 0
    );
}

#[tokio::test]
async fn speed_up_moves_a_members_task_to_the_fast_lane() {
    let app = spawn_app_with(&[("EASEL_REFERENCE_STEP_MS", "60"), ("EASEL_WORKERS", "1")]).await;
    let op = app.operator().await;
    let (login, paid) = app.user("Hurry").await;
    let (_, free) = app.user("Patient").await;
    op.post::<_, Value>(
        "/api/v1/admin/account/membership",
        &json!({"account_id": login.account.id,
                "payment": {"activeState": true, "liteActiveState": false, "infiniteQueue": true, "productLevel": 2}}),
    )
    .await
    .unwrap();
    let sd = checkpoint(&paid, "sd").await;
    let slow = |seed: i64, speed: i64| {
        let mut b = t2i(&sd, "in line", seed);
        b["meta"]["steps"] = json!(12);
        b["speed_type"] = json!(speed);
        b
    };
    let first = paid
        .create_task("/api/v1/task/create", &slow(1, 2))
        .await
        .unwrap();
    let second = paid
        .create_task("/api/v1/task/create", &slow(2, 1))
        .await
        .unwrap();
    let third = paid
        .create_task("/api/v1/task/create", &slow(3, 1))
        .await
        .unwrap();
    let t: TaskView = paid
        .post("/api/v1/task/speed-up", &json!({"id": third}))
        .await
        .unwrap();
    assert_eq!(t.speed_type, protocol::task::SpeedType::Fast);
    // The one worker takes the fast lane first: the third task ends before the second.
    let done = paid.wait_task(&third, TASK_WAIT).await.unwrap();
    assert_eq!(done.status, TaskStatus::Success);
    let second_now = paid
        .batch_progress(std::slice::from_ref(&second))
        .await
        .unwrap()
        .remove(0);
    assert_ne!(
        second_now.status,
        TaskStatus::Success,
        "the sped-up task overtook"
    );
    for id in [&first, &second] {
        assert_eq!(
            paid.wait_task(id, TASK_WAIT).await.unwrap().status,
            TaskStatus::Success
        );
    }
    // Charged once each.
    let a = assets(&paid).await;
    let settles = a["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "settle")
        .count();
    assert_eq!(settles, 3);
    // Free accounts cannot speed up.
    let mine = free
        .create_task("/api/v1/task/create", &t2i(&sd, "free", 4))
        .await
        .unwrap();
    let e = free
        .post::<_, Value>("/api/v1/task/speed-up", &json!({"id": mine}))
        .await
        .unwrap_err();
    assert_eq!(e.status().unwrap().key.as_deref(), Some("actNotAvailable"));
}
