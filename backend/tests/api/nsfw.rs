//! NSFW scoring on a real model (open_nsfw): every finished task's outputs
//! carry a score and the task's `nsfw` follows the operator's threshold; a
//! work published from a flagged task is NSFW whatever its author says;
//! uploaded images are scored in the background.

use std::time::Duration;

use image::{Rgb, RgbImage};
use protocol::client::RestClient;
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::*;
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

async fn finished(client: &RestClient, sd: &str, prompt: &str) -> protocol::task::TaskView {
    let id = client
        .create_task("/api/v1/task/create", &t2i(sd, prompt, 5))
        .await
        .unwrap();
    let t = client.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    t
}

#[tokio::test]
async fn a_finished_task_carries_its_score_and_the_threshold_sets_nsfw() {
    // Default threshold (0.5): the reference engine's painting is safe.
    let app = spawn_app().await;
    let (_, client) = app.user("Painter").await;
    let sd = checkpoint(&client, "sd").await;
    let t = finished(&client, &sd, "a quiet lake under green hills").await;
    assert!(!t.nsfw);
    let out = &t.outputs[0];
    let score = out.nsfw_score.expect("every image output is scored");
    assert!((0.0..0.5).contains(&score), "{score}");
    assert!(matches!(out.rating.as_deref(), Some("safe" | "suggestive")));

    // Threshold 0: every score is NSFW, so the same kind of task is flagged,
    // and a work published from it is NSFW even when its author says not.
    let app = spawn_app_with(&[
        ("EASEL_NSFW_THRESHOLD", "0"),
        ("EASEL_NSFW_SUGGESTIVE", "0"),
    ])
    .await;
    let (_, client) = app.user("Painter").await;
    let sd = checkpoint(&client, "sd").await;
    let t = finished(&client, &sd, "a quiet lake under green hills").await;
    assert!(t.nsfw);
    assert_eq!(t.outputs[0].rating.as_deref(), Some("nsfw"));
    let w: Value = client
        .post(
            "/api/v1/post/portfolio/add_v2",
            &json!({"task_ids": [t.id], "title": "Lake", "visibility": "public", "nsfw": false}),
        )
        .await
        .unwrap();
    let id = w["id"].as_str().unwrap().to_owned();
    let d: Value = client
        .post("/api/v1/artwork/detail", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(d["nsfw"], true);
    assert_eq!(d["rating"], "nsfw");
    assert!(d["nsfw_score"].as_f64().is_some());
    // The author cannot clear the classifier's verdict by editing.
    let _: Value = client
        .post("/api/v1/portfolio/edit", &json!({"id": id, "nsfw": false}))
        .await
        .unwrap();
    let d: Value = client
        .post("/api/v1/artwork/detail", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(d["nsfw"], true);
}

#[tokio::test]
async fn without_a_model_tasks_still_finish_unscored() {
    let app = spawn_app_with(&[("EASEL_NSFW_MODEL_PATH", "/nonexistent/open-nsfw.onnx")]).await;
    let (_, client) = app.user("Painter").await;
    let sd = checkpoint(&client, "sd").await;
    let t = finished(&client, &sd, "a red barn").await;
    assert!(!t.nsfw);
    assert_eq!(t.outputs[0].nsfw_score, None);
}

fn png(img: &RgbImage) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// A skin-toned synthetic figure filling a warm frame (as in `nsfw/tests`).
fn skin_figure(w: u32, h: u32) -> RgbImage {
    let parts: [(f32, f32, f32, f32); 10] = [
        (0.5, 0.12, 0.09, 0.11),
        (0.5, 0.25, 0.05, 0.06),
        (0.5, 0.45, 0.2, 0.22),
        (0.5, 0.7, 0.22, 0.14),
        (0.26, 0.45, 0.06, 0.2),
        (0.74, 0.45, 0.06, 0.2),
        (0.41, 0.88, 0.08, 0.16),
        (0.59, 0.88, 0.08, 0.16),
        (0.42, 0.4, 0.09, 0.08),
        (0.58, 0.4, 0.09, 0.08),
    ];
    RgbImage::from_fn(w, h, |x, y| {
        let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
        let d = parts
            .iter()
            .map(|&(cx, cy, rx, ry)| ((fx - cx) / rx).powi(2) + ((fy - cy) / ry).powi(2))
            .fold(f32::MAX, f32::min);
        let nipple = [(0.42f32, 0.42f32), (0.58, 0.42)]
            .iter()
            .any(|&(cx, cy)| ((fx - cx) / 0.015).powi(2) + ((fy - cy) / 0.012).powi(2) <= 1.0);
        if nipple {
            Rgb([150, 80, 70])
        } else if d <= 1.0 {
            let s = 1.0 - 0.25 * d;
            Rgb([(232.0 * s) as u8, (180.0 * s) as u8, (150.0 * s) as u8])
        } else {
            Rgb([200, 170, 150])
        }
    })
}

fn landscape(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
        if fy < 0.55 + 0.08 * (fx * 9.0).sin() {
            Rgb([(90.0 + 80.0 * fy) as u8, (150.0 + 60.0 * fy) as u8, 225])
        } else {
            Rgb([40, (110.0 + 30.0 * (fx * 40.0).sin()) as u8, 45])
        }
    })
}

/// Uploads an image through the pre-signed flow; answers its file id.
async fn upload_image(c: &RestClient, bytes: &[u8]) -> String {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": "p.png", "content_type": "image/png", "category": 46}),
        )
        .await
        .unwrap();
    let r = reqwest::Client::new()
        .put(pre["pre_signs"][0].as_str().unwrap())
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let file_id = pre["file_id"].as_str().unwrap().to_owned();
    let done: Value = c
        .post(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": file_id}),
        )
        .await
        .unwrap();
    assert_eq!(done["status"], 0);
    file_id
}

/// Asks the confirmed upload again until the background queue has scored it.
async fn upload_score(c: &RestClient, file_id: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let a: Value = c
            .post(
                "/api/v1/resource/pre-sign/confirm",
                &json!({"file_id": file_id}),
            )
            .await
            .unwrap();
        if !a["nsfw"].is_null() {
            return a["nsfw"].clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "never scored");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn uploaded_images_are_scored_in_the_background() {
    let app = spawn_app().await;
    let (_, client) = app.user("Uploader").await;
    let safe = upload_image(&client, &png(&landscape(320, 240))).await;
    let figure = upload_image(&client, &png(&skin_figure(240, 320))).await;
    let s = upload_score(&client, &safe).await;
    let f = upload_score(&client, &figure).await;
    let (s_score, f_score) = (s["score"].as_f64().unwrap(), f["score"].as_f64().unwrap());
    assert!(s_score < 0.2, "{s}");
    assert!(f_score > s_score * 5.0 && f_score > 0.2, "{f} vs {s}");
    assert_eq!(s["model"], "open_nsfw");
    assert_eq!(s["rating"], "safe");
    assert_eq!(s["nsfw"], false);
    assert_eq!(f["labels"][0]["name"], "nsfw");
    // getPreSignAddr answers it too; another account's upload is missing.
    let a: Value = client
        .post(
            "/api/v1/resource/pre-sign/getPreSignAddr",
            &json!({"file_id": figure}),
        )
        .await
        .unwrap();
    assert_eq!(a["nsfw"]["score"], f["score"]);
    let (_, other) = app.user("Other").await;
    let e = other
        .post::<_, Value>(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": figure}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(404));
}

#[tokio::test]
async fn a_video_output_is_scored_on_sampled_frames() {
    let app = spawn_app_with(&[("EASEL_NSFW_VIDEO_FRAMES", "2")]).await;
    let (_, c) = app.user("Director").await;
    let body = json!({"model_no": "wan_video", "model_ver_no": "wan_video",
        "meta": {"prompt": "a lighthouse at dusk, waves", "width": 640, "height": 640,
                 "aspect_ratio": "1:1", "n_iter": 1,
                 "generate_video": {"generate_video_duration": 5}}});
    let id = c
        .create_task("/api/v1/task/v2/video/text-to-video", &body)
        .await
        .unwrap();
    let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    let video = t
        .outputs
        .iter()
        .find(|o| o.mime.starts_with("video/"))
        .unwrap();
    let score = video.nsfw_score.expect("a video output is scored");
    assert!((0.0..0.5).contains(&score), "{score}");
    assert!(!t.nsfw);
}
