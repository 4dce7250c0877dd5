//! Datasets and LoRA training end to end through the API, on the real
//! binary: a dataset of uploaded pictures with drafted captions, the
//! estimate, a training task on the reference trainer (progress, credits),
//! the Ready version with its file and trigger word in the owner's model,
//! its style pulling the reference engine's pictures towards the dataset's
//! palette; cancel; privacy and the refusal keys.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

#[path = "api/helpers.rs"]
#[allow(dead_code)]
mod helpers;

use std::time::Duration;

use engines::reference::style::Style;
use engines::{Cancel, Engine, NoProgress};
use helpers::spawn_app;
use protocol::client::RestClient;
use serde_json::{json, Value};

const V1: &str = "/api/v1";

fn reddish_png(i: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(96, 64, |x, y| {
        let noise = ((x * 7 + y * 13 + i * 31) % 17) as u8;
        let band = if (y / 8 + i).is_multiple_of(3) { 50 } else { 0 };
        image::Rgb([
            (205 + noise).saturating_sub(band),
            40 + (x / 4) as u8,
            30 + noise,
        ])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

async fn upload(c: &RestClient, bytes: &[u8], name: &str) -> String {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": name, "content_type": "image/png"}),
        )
        .await
        .unwrap();
    let url = pre["pre_signs"][0].as_str().unwrap();
    let r = reqwest::Client::new()
        .put(url)
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let done: Value = c
        .post(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": pre["file_id"]}),
        )
        .await
        .unwrap();
    done["url"].as_str().unwrap().to_string()
}

async fn key_of(c: &RestClient, path: &str, body: Value) -> String {
    let e = c
        .post::<_, Value>(&format!("{V1}/{path}"), &body)
        .await
        .unwrap_err();
    e.status()
        .and_then(|s| s.key.clone())
        .unwrap_or_else(|| format!("{e:?}"))
}

async fn call(c: &RestClient, path: &str, body: Value) -> Value {
    c.post(&format!("{V1}/{path}"), &body).await.unwrap()
}

async fn balance(c: &RestClient) -> i64 {
    let v: Value = c
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap();
    v["available"].as_i64().unwrap()
}

/// Polls batch-progress until the training's version is no longer pending.
async fn wait(c: &RestClient, task: &str) -> (Value, Vec<u8>) {
    let mut percents = Vec::new();
    for _ in 0..600 {
        let p = call(c, "train-model/batch-progress", json!({"task_ids": [task]})).await;
        let item = p["items"][0].clone();
        percents.push(item["percent"].as_u64().unwrap() as u8);
        if item["version_status"] != json!(0) {
            return (item, percents);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("training {task} did not finish");
}

#[tokio::test]
async fn a_dataset_trains_into_a_ready_lora_whose_style_changes_the_reference_engine() {
    let app = spawn_app().await;
    let (_, c) = app.user("Trainer").await;
    let (_, other) = app.user("Other").await;

    // The kinds and their conventions.
    let t = call(&c, "dataset/template-list", json!({})).await;
    assert_eq!(t["items"].as_array().unwrap().len(), 4);
    assert!(t["items"][1]["caption_convention"]
        .as_str()
        .unwrap()
        .contains("trigger"));

    // A dataset of 8 reddish pictures, captions drafted by the descriptor.
    let d = call(
        &c,
        "dataset/create",
        json!({"name": "Red dust", "kind": "style", "tags": ["Red", "red", "warm"]}),
    )
    .await;
    let id = d["dataset_id"].as_str().unwrap().to_string();
    assert_eq!(d["tags"], json!(["red", "warm"]));
    // Empty: nothing to train on.
    assert_eq!(
        key_of(
            &c,
            "train-model/estimate",
            json!({"dataset_id": id, "base_model": "sd"})
        )
        .await,
        "datasetEmpty"
    );
    let mut urls = Vec::new();
    for i in 0..8 {
        urls.push(upload(&c, &reddish_png(i), &format!("red{i}.png")).await);
    }
    let d = call(
        &c,
        "dataset/image/add",
        json!({"dataset_id": id, "urls": urls}),
    )
    .await;
    assert_eq!(d["image_count"], 8);
    let first = &d["images"][0];
    assert_eq!(first["caption_source"], "descriptor");
    assert!(
        first["caption"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("red"),
        "{first}"
    );
    // The owner edits a caption; drafting again keeps it.
    let img = first["image_id"].as_str().unwrap().to_string();
    call(
        &c,
        "dataset/image/caption",
        json!({"dataset_id": id, "image_id": img, "caption": "a red field at dusk"}),
    )
    .await;
    let d = call(&c, "dataset/caption/auto", json!({"dataset_id": id})).await;
    assert_eq!(d["images"][0]["caption"], "a red field at dusk");
    assert_eq!(d["images"][0]["caption_source"], "user");
    assert_eq!(
        key_of(
            &c,
            "dataset/image/caption",
            json!({"dataset_id": id, "image_id": img, "caption": "x".repeat(1001)})
        )
        .await,
        "InvalidParams"
    );
    // Someone else's upload is not a picture of this dataset.
    let theirs = upload(&other, &reddish_png(9), "theirs.png").await;
    assert_eq!(
        key_of(
            &c,
            "dataset/image/add",
            json!({"dataset_id": id, "urls": [theirs]})
        )
        .await,
        "NotFound"
    );
    // Private to its owner.
    for path in [
        "dataset/detail",
        "dataset/delete",
        "train-model/estimate",
        "train-model/create",
    ] {
        assert_eq!(
            key_of(&other, path, json!({"dataset_id": id, "base_model": "sd"})).await,
            "NotFound",
            "{path}"
        );
    }
    assert_eq!(
        call(&other, "dataset/list", json!({})).await["items"],
        json!([])
    );
    assert_eq!(
        call(&c, "dataset/list", json!({})).await["items"][0]["image_count"],
        8
    );

    // Bad parameters.
    for params in [
        json!({"epochs": 0}),
        json!({"resolution": 333}),
        json!({"learning_rate": 1}),
        json!({"trigger_word": "a,b"}),
    ] {
        assert_eq!(
            key_of(
                &c,
                "train-model/estimate",
                json!({"dataset_id": id, "base_model": "sd", "params": params})
            )
            .await,
            "trainParamsInvalid",
            "{params}"
        );
    }
    assert_eq!(
        key_of(
            &c,
            "train-model/create",
            json!({"dataset_id": id, "base_model": "nope"})
        )
        .await,
        "trainParamsInvalid"
    );

    // The estimate: 8 pictures x 2 repeats x 4 epochs = 64 steps at 512 on
    // SD: 5 + ceil(64/100) * 1 * 1 = 6 credits.
    let body = json!({"dataset_id": id, "base_model": "sd", "name": "Red Dust LoRA",
        "params": {"epochs": 4, "repeats": 2, "trigger_word": "zx9", "network_dim": 8}});
    let e = call(&c, "train-model/estimate", body.clone()).await;
    assert_eq!(e["steps"], 64);
    assert_eq!(e["credits"], 6);
    assert_eq!(e["params"]["resolution"], 512);

    let before = balance(&c).await;
    let started = std::time::Instant::now();
    let created = call(&c, "train-model/create", body.clone()).await;
    let task = created["task_id"].as_str().unwrap().to_string();
    let model_id = created["model_id"].as_str().unwrap().to_string();
    let ver = created["model_ver_no"].as_str().unwrap().to_string();
    // Another account sees nothing of it.
    assert_eq!(
        call(
            &other,
            "train-model/batch-progress",
            json!({"task_ids": [task]})
        )
        .await["items"],
        json!([])
    );
    assert_eq!(
        key_of(&other, "train-model/log", json!({"task_id": task})).await,
        "NotFound"
    );

    let (item, percents) = wait(&c, &task).await;
    println!(
        "reference training of 8 pictures through the API: {:?}",
        started.elapsed()
    );
    assert_eq!(item["version_status"], 1, "{item}");
    assert_eq!(item["status"], 3);
    assert_eq!(item["percent"], 100);
    assert!(percents.windows(2).all(|w| w[0] <= w[1]), "{percents:?}");
    assert_eq!(balance(&c).await, before - 6);
    // Nothing pending any more.
    let listed = call(&c, "train-model/in-progress-list", json!({})).await;
    assert!(!listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["task_id"] == task.as_str()));

    // The log says what trained it.
    let log = call(&c, "train-model/log", json!({"task_id": task})).await;
    assert_eq!(log["trainer"]["name"], "reference");
    assert_eq!(log["trainer"]["neural"], false);
    assert!(log["lines"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l.as_str().unwrap().contains("epoch 4/4")));

    // A Ready LoRA version with its file and trigger word in the owner's model.
    let v = call(
        &c,
        "train-model/batch-progress",
        json!({"task_ids": [task]}),
    )
    .await["items"][0]
        .clone();
    assert_eq!(v["model_id"], model_id.as_str());
    assert_eq!(v["model_ver_no"], ver.as_str());
    assert_eq!(v["trigger_word"], "zx9");

    // The file, as stored under m/, is an Easel style file that pulls the
    // reference engine's picture towards the dataset's palette.
    let file = find_file(app.data.path(), &ver).expect("the version's file under m/");
    // The local object store writes a small header (the content type)
    // before the object's bytes: the safetensors file starts after it.
    let stored = std::fs::read(&file).unwrap();
    let bytes = (0..stored.len().min(1024))
        .map(|at| &stored[at..])
        .find(|b| Style::from_safetensors(b).is_some())
        .expect("an Easel style file")
        .to_vec();
    let style = Style::from_safetensors(&bytes).unwrap();
    let top = style.palette[0];
    assert!(top[0] > 0.6 && top[1] < 0.45, "{top:?}");
    let files = std::sync::Arc::new(OneFile(bytes));
    let plain = engines::reference::ReferenceEngine::new();
    let styled = engines::reference::ReferenceEngine::with_model_files(files);
    let mut job: protocol::task::JobSpec = serde_json::from_value(json!({
        "task_id": "x", "attempt": 1, "action": 1, "family": "sd", "model": "sd15",
        "prompt": "zx9, a lake under a blue sky with green trees", "width": 128, "height": 128,
        "n_iter": 1, "steps": 20, "cfg_scale": 7.0, "seed": 77, "sampler": "euler",
        "denoising_strength": 0.0
    }))
    .unwrap();
    job.loras = vec![protocol::task::LoraSpec {
        model: ver.clone(),
        weight: 1.0,
        file: Some(protocol::task::ModelFileRef {
            key: "m/x".into(),
            sha256: "00".into(),
            size: 0,
            name: "x.safetensors".into(),
            local_path: None,
        }),
    }];
    let a = plain
        .run(&job, vec![], std::sync::Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap();
    let b = styled
        .run(&job, vec![], std::sync::Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap();
    let (da, db) = (
        palette_distance(&a.outputs[0].bytes, &style),
        palette_distance(&b.outputs[0].bytes, &style),
    );
    println!(
        "mean colour distance to the dataset palette: without the LoRA {da:.3}, with it {db:.3}"
    );
    assert!(db < da * 0.6, "{da} {db}");
}

struct OneFile(Vec<u8>);
impl engines::reference::ModelFiles for OneFile {
    fn read(&self, _file: &protocol::task::ModelFileRef) -> Option<Vec<u8>> {
        Some(self.0.clone())
    }
}

fn palette_distance(png: &[u8], style: &Style) -> f32 {
    let img = image::load_from_memory(png).unwrap().to_rgb8();
    let n = img.pixels().len() as f32;
    img.pixels()
        .map(|p| {
            let c = p.0.map(|b| f32::from(b) / 255.0);
            style
                .palette
                .iter()
                .map(|q| {
                    ((q[0] - c[0]).powi(2) + (q[1] - c[1]).powi(2) + (q[2] - c[2]).powi(2)).sqrt()
                })
                .fold(f32::MAX, f32::min)
        })
        .sum::<f32>()
        / n
}

/// The stored file of a version (local object store under the data folder).
fn find_file(root: &std::path::Path, ver: &str) -> Option<std::path::PathBuf> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().contains(&format!("m/{ver}/"))
                && p.extension().is_some_and(|x| x == "safetensors")
            {
                return Some(p);
            }
        }
    }
    None
}

/// kohya-ss sd-scripts through the API with the fake `train_network.py`
/// of `trainer/tests/fake_sd_scripts` (a "*slow*" checkpoint makes each step
/// take 50 ms): the task reports progress, and cancel stops it and fails
/// the version.
#[tokio::test]
async fn a_kohya_training_reports_progress_and_cancel_fails_its_version() {
    let fake =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../trainer/tests/fake_sd_scripts");
    let ckpts = tempfile::tempdir().unwrap();
    let slow = ckpts.path().join("slow-sdxl.safetensors");
    std::fs::write(&slow, b"base").unwrap();
    let app = helpers::spawn_app_with(&[
        ("EASEL_TRAINER", "kohya"),
        ("EASEL_KOHYA_DIR", fake.to_str().unwrap()),
        ("EASEL_KOHYA_CKPT_SDXL", slow.to_str().unwrap()),
    ])
    .await;
    let (_, c) = app.user("Canceller").await;
    let d = call(&c, "dataset/create", json!({"name": "Reds"})).await;
    let id = d["dataset_id"].as_str().unwrap().to_string();
    let mut urls = Vec::new();
    for i in 0..3 {
        urls.push(upload(&c, &reddish_png(i), &format!("r{i}.png")).await);
    }
    let d = call(
        &c,
        "dataset/image/add",
        json!({"dataset_id": id, "urls": urls, "auto_caption": false}),
    )
    .await;
    assert_eq!(d["images"][0]["caption_source"], "none");
    // 3 x 10 repeats x 20 epochs = 600 steps of 50 ms: 30 s unless stopped.
    let created = call(
        &c,
        "train-model/create",
        json!({"dataset_id": id, "base_model": "sdxl", "params": {"epochs": 20, "repeats": 10}}),
    )
    .await;
    let task = created["task_id"].as_str().unwrap().to_string();
    let mut seen = 0;
    for _ in 0..300 {
        let p = call(
            &c,
            "train-model/batch-progress",
            json!({"task_ids": [task]}),
        )
        .await;
        seen = p["items"][0]["percent"].as_u64().unwrap();
        if seen > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(seen > 0 && seen < 100, "{seen}");
    // Still training: listed as in progress.
    let listed = call(&c, "train-model/in-progress-list", json!({})).await;
    assert!(listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["task_id"] == task.as_str()));
    let _: Value = c
        .post(
            "/api/v1/task/operate",
            &json!({"id": task, "operate": "cancel"}),
        )
        .await
        .unwrap();
    let (item, _) = wait(&c, &task).await;
    assert_eq!(item["version_status"], 2, "{item}");
    assert_eq!(item["status"], 4);
    let log = call(&c, "train-model/log", json!({"task_id": task})).await;
    assert!(
        log["lines"][0].as_str().unwrap().contains("failed"),
        "{log}"
    );
}
