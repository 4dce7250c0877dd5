//! The video page's configuration and restore calls: `task/v2/camera/config`,
//! `video/model-param`, `video/get-meta-info` (task_flow_version v2) and
//! `video/histories` (finished video tasks only, the caller's own).

use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::spawn_app;
use crate::tasks::{checkpoint, TASK_WAIT};

#[tokio::test]
async fn camera_config_model_param_meta_info_and_histories() {
    let app = spawn_app().await;
    let (_, c) = app.user("Restorer").await;
    let (_, other) = app.user("Peeker").await;

    let cam: Value = c
        .post("/api/v1/task/v2/camera/config", &json!({}))
        .await
        .unwrap();
    let modes: Vec<&str> = cam["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mode"].as_str().unwrap())
        .collect();
    assert_eq!(
        modes,
        ["camera_movement", "horizontal", "vertical", "zoom", "pan"]
    );
    assert_eq!(cam["modes"][0]["label"], "Camera Movement");
    assert_eq!(
        (cam["offset"]["min"].as_f64(), cam["offset"]["max"].as_f64()),
        (Some(-10.0), Some(10.0))
    );
    assert!(!cam["models"].as_array().unwrap().is_empty());

    let p: Value = c
        .post(
            "/api/v1/task/v2/video/model-param",
            &json!({"model_no": "wan_video"}),
        )
        .await
        .unwrap();
    assert_eq!(p["model_no"], "wan_video");
    let e = c
        .post::<_, Value>(
            "/api/v1/task/v2/video/model-param",
            &json!({"model_no": "nope"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        e.status().and_then(|s| s.key.clone()).as_deref(),
        Some("InvalidParams")
    );

    // The effect templates as AI-app cards with a preview picture.
    let apps: Value = c
        .post("/api/v1/square/v3/app/list", &json!({}))
        .await
        .unwrap();
    let first = &apps["items"][0];
    assert_eq!(
        (first["obj_type"].as_u64(), first["id"].as_str()),
        (Some(14), Some("zoom_burst"))
    );
    assert!(apps["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["inputs"] == 3));
    let (status, ct, png) = c
        .get_bytes(first["cover"]["url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!((status, ct.as_str()), (200, "image/png"));
    let img = image::load_from_memory(&png).unwrap();
    assert_eq!((img.width(), img.height()), (320, 320));
    let (again_status, _, again) = c
        .get_bytes("/api/v1/task/v2/video/effect-preview?id=zoom_burst")
        .await
        .unwrap();
    assert_eq!((again_status, again), (200, png), "made once, kept");
    let (missing, _, _) = c
        .get_bytes("/api/v1/task/v2/video/effect-preview?id=nope")
        .await
        .unwrap();
    assert_eq!(missing, 404);

    // An image task and a video task: histories has only the video.
    let sd = checkpoint(&c, "sd").await;
    let img = c
        .create_task(
            "/api/v1/task/v2/text-to-img",
            &json!({"category": 1, "art_model_ver_no": sd,
                "meta": {"prompt": "a cat", "width": 512, "height": 512, "n_iter": 1, "steps": 6}}),
        )
        .await
        .unwrap();
    let body = json!({"model_no": "wan_video", "model_ver_no": "wan_video",
        "meta": {"prompt": "tide pools", "width": 640, "height": 640, "aspect_ratio": "1:1",
                 "n_iter": 1, "generate_video": {"generate_video_duration": 5}}});
    let vid = c
        .create_task("/api/v1/task/v2/video/text-to-video", &body)
        .await
        .unwrap();
    assert_eq!(
        c.wait_task(&vid, TASK_WAIT).await.unwrap().status,
        TaskStatus::Success
    );
    let _ = c.wait_task(&img, TASK_WAIT).await;
    let h: Value = c
        .post("/api/v1/task/v2/video/histories", &json!({}))
        .await
        .unwrap();
    let ids: Vec<&str> = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [vid.as_str()]);
    let h: Value = other
        .post("/api/v1/task/v2/video/histories", &json!({}))
        .await
        .unwrap();
    assert!(h["items"].as_array().unwrap().is_empty());

    // The tools' estimate: by their action code.
    for action in [47, 48, 49] {
        let est: Value = c
            .post(
                "/api/v1/task/v2/video/estimate",
                &json!({"action": action, "parent_task_id": vid,
                    "meta": {"width": 1280, "height": 1280, "prompt": "",
                             "generate_video": {"generate_video_duration": 5}}}),
            )
            .await
            .unwrap();
        assert!(
            est["calculate_coins"].as_i64().unwrap() > 0,
            "{action}: {est}"
        );
    }

    // Restoring: the payload as sent and the tab it opens in.
    let m: Value = c
        .post(
            "/api/v1/task/v2/video/get-meta-info",
            &json!({"task_id": vid, "task_flow_version": "v2"}),
        )
        .await
        .unwrap();
    assert_eq!(m["tab"], "txt2video");
    assert_eq!(m["payload"]["meta"]["prompt"], "tide pools");
    assert_eq!(m["video_uris"].as_array().unwrap().len(), 1);
    for (who, body, key) in [
        (&other, json!({"task_id": vid}), "NotFound"),
        (&c, json!({"task_id": img}), "NotFound"),
        (
            &c,
            json!({"task_id": vid, "task_flow_version": "v1"}),
            "InvalidParams",
        ),
    ] {
        let e = who
            .post::<_, Value>("/api/v1/task/v2/video/get-meta-info", &body)
            .await
            .unwrap_err();
        assert_eq!(
            e.status().and_then(|s| s.key.clone()).as_deref(),
            Some(key),
            "{body}"
        );
    }
}

/// The ffmpeg processes whose parent is `pid`.
fn ffmpeg_children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let Some((comm, rest)) = stat.split_once(") ") else {
            continue;
        };
        let ppid = rest.split(' ').nth(1).and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) && comm.ends_with("(ffmpeg") {
            out.push(child);
        }
    }
    out
}

#[tokio::test]
async fn cancel_mid_encode_stops_ffmpeg_and_refunds_once() {
    use std::time::Duration;
    let app = crate::helpers::spawn_app_with(&[
        ("EASEL_REFERENCE_STEP_MS", "150"),
        ("EASEL_WORKERS", "1"),
    ])
    .await;
    let (_, c) = app.user("Quitter").await;
    let assets = || async {
        c.post::<_, Value>("/api/v1/payment/assets/get", &json!({}))
            .await
            .unwrap()
    };
    let before = assets().await;
    let body = json!({"model_no": "wan_video", "model_ver_no": "wan_video",
        "meta": {"prompt": "a slow tide", "width": 640, "height": 640, "aspect_ratio": "1:1",
                 "n_iter": 1, "generate_video": {"generate_video_duration": 5}}});
    let id = c
        .create_task("/api/v1/task/v2/video/text-to-video", &body)
        .await
        .unwrap();
    assert!(assets().await["held"].as_i64().unwrap() > 0);
    // Mid-encode: running, some frames written, ffmpeg alive.
    let deadline = std::time::Instant::now() + TASK_WAIT;
    loop {
        let t = c
            .batch_progress(std::slice::from_ref(&id))
            .await
            .unwrap()
            .remove(0);
        if t.status == TaskStatus::Running && t.process >= 5 {
            break;
        }
        assert!(
            t.status != TaskStatus::Success,
            "finished before it could be cancelled"
        );
        assert!(std::time::Instant::now() < deadline, "never ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid = app.pid().unwrap();
    assert!(!ffmpeg_children(pid).is_empty(), "the encoder runs");
    let t: protocol::task::TaskView = c
        .post(
            "/api/v1/task/operate",
            &json!({"id": id, "operate": "cancel"}),
        )
        .await
        .unwrap();
    assert_eq!(t.status, TaskStatus::Ended);
    assert_eq!(t.deduction_detail.state, "voided");
    // A second cancel changes nothing.
    let _ = c
        .post::<_, Value>(
            "/api/v1/task/operate",
            &json!({"id": id, "operate": "cancel"}),
        )
        .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !ffmpeg_children(pid).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "ffmpeg was not stopped"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let after = assets().await;
    assert_eq!(after["coins"], before["coins"], "refunded: nothing charged");
    assert_eq!(after["held"], 0);
    assert_eq!(
        after["available"], before["available"],
        "refunded once, not twice"
    );
    let t = c
        .batch_progress(std::slice::from_ref(&id))
        .await
        .unwrap()
        .remove(0);
    assert_eq!((t.status, t.video_uris.len()), (TaskStatus::Ended, 0));
}
