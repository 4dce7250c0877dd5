//! The video editor end to end (spec 2 §7 "Video editor"): materials from
//! an upload (with sound), a finished video task and a music upload; a
//! timeline of two trimmed clips with music; the export as a video task
//! with progress and its MP4 read back by ffprobe; another account sees
//! none of it; bad timelines answer the envelope's keys.

use protocol::client::RestClient;
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::spawn_app;
use crate::tasks::TASK_WAIT;

/// `secs` seconds of ffmpeg's test picture (`w`x`h`, 24 fps) with a tone,
/// or only a tone (an M4A) when `w` is 0.
pub fn lavfi(w: u32, h: u32, secs: u32) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir
        .path()
        .join(if w == 0 { "music.m4a" } else { "clip.mp4" });
    let mut cmd = std::process::Command::new("ffmpeg");
    cmd.args(["-hide_banner", "-loglevel", "error"]);
    if w > 0 {
        cmd.args(["-f", "lavfi", "-i"])
            .arg(format!("testsrc=size={w}x{h}:rate=24:duration={secs}"));
    }
    cmd.args(["-f", "lavfi", "-i"])
        .arg(format!("sine=frequency=330:duration={secs}"));
    if w > 0 {
        cmd.args(["-pix_fmt", "yuv420p", "-c:v", "libx264"]);
    }
    cmd.args(["-c:a", "aac"]).arg(&out);
    assert!(cmd.status().unwrap().success());
    std::fs::read(out).unwrap()
}

/// Uploads through the chunked upload; answers the file id.
pub async fn upload(c: &RestClient, bytes: &[u8], name: &str, ct: &str, category: i64) -> String {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": name, "content_type": ct, "category": category}),
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
    let done: Value = c
        .post(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": pre["file_id"]}),
        )
        .await
        .unwrap();
    assert_eq!(done["status"], 0);
    pre["file_id"].as_str().unwrap().to_owned()
}

const BASE: &str = "/api/v1/task/v2/video/editor";

async fn call(c: &RestClient, path: &str, body: Value) -> Value {
    c.post(&format!("{BASE}/{path}"), &body).await.unwrap()
}

async fn key_of(c: &RestClient, path: &str, body: Value) -> String {
    let e = c
        .post::<_, Value>(&format!("{BASE}/{path}"), &body)
        .await
        .unwrap_err();
    e.status().and_then(|s| s.key.clone()).unwrap_or_default()
}

#[tokio::test]
async fn an_edit_of_two_clips_and_music_exports_as_a_video() {
    let app = spawn_app().await;
    let (_, c) = app.user("Editor").await;
    let (_, other) = app.user("Stranger").await;

    // A finished video task to cut from.
    let body = json!({"model_no": "wan_video", "model_ver_no": "wan_video",
        "meta": {"prompt": "a red kite over the dunes", "width": 640, "height": 640,
                 "aspect_ratio": "1:1", "n_iter": 1,
                 "generate_video": {"generate_video_duration": 5}}});
    let task = c
        .create_task("/api/v1/task/v2/video/text-to-video", &body)
        .await
        .unwrap();
    let t = c.wait_task(&task, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);

    // The media bin: the task's video, an upload with sound, music.
    let from_task = call(&c, "material/upload", json!({"task_id": task})).await;
    assert_eq!(
        (from_task["kind"].as_str(), from_task["source"].as_str()),
        (Some("video"), Some("task"))
    );
    assert_eq!(
        (from_task["width"].as_u64(), from_task["height"].as_u64()),
        (Some(640), Some(640))
    );
    assert!(
        (from_task["duration"].as_f64().unwrap() - 5.0).abs() < 0.1,
        "{from_task}"
    );
    assert!(from_task["poster_url"].as_str().is_some());
    let clip = upload(&c, &lavfi(320, 240, 3), "street.mp4", "video/mp4", 8).await;
    let uploaded = call(&c, "material/upload", json!({"file_id": clip})).await;
    assert_eq!(uploaded["has_audio"], true);
    assert_eq!(uploaded["name"], "street.mp4");
    assert!(uploaded["poster_url"]
        .as_str()
        .unwrap()
        .ends_with("/poster.png"));
    let song = upload(&c, &lavfi(0, 0, 8), "song.m4a", "audio/mp4", 59).await;
    let music = call(&c, "material/upload", json!({"file_id": song})).await;
    assert_eq!(music["kind"], "audio");
    let bin = call(&c, "material/list", json!({})).await;
    assert_eq!(bin["items"].as_array().unwrap().len(), 3);
    assert_eq!(
        bin["items"][0]["material_id"], music["material_id"],
        "newest first"
    );
    let videos = call(&c, "material/list", json!({"kind": "video"})).await;
    assert_eq!(videos["items"].as_array().unwrap().len(), 2);

    // A workspace with a timeline of two trimmed clips and music.
    let ws = call(
        &c,
        "workspace/create",
        json!({"name": "Kites", "width": 480, "height": 270}),
    )
    .await;
    let id = ws["workspace_id"].as_str().unwrap().to_owned();
    assert_eq!(
        (ws["width"].as_u64(), ws["fps"].as_u64()),
        (Some(480), Some(24))
    );
    // Nothing to export yet.
    assert_eq!(
        key_of(&c, "export", json!({"workspace_id": id})).await,
        "pleaseSelectVideo"
    );
    let timeline = json!({"clips": [
            {"material_id": from_task["material_id"], "start": 1.0, "end": 3.0},
            {"material_id": uploaded["material_id"], "start": 0.5, "end": 2.0}],
        "music": {"material_id": music["material_id"], "start": 1.0, "volume": 0.6}});
    let saved = call(
        &c,
        "workspace/edit",
        json!({"workspace_id": id, "timeline": timeline}),
    )
    .await;
    assert_eq!(saved["duration"], 3.5);
    let n = call(&c, "operation/save", json!({"workspace_id": id,
        "operations": [{"op": "add", "material_id": from_task["material_id"]}, {"op": "trim", "clip": 0, "start": 1.0}]})).await;
    assert_eq!(n["count"], 2);
    let detail = call(&c, "detail", json!({"workspace_id": id})).await;
    assert_eq!(detail["timeline"]["clips"][1]["start"], 0.5);
    assert_eq!(detail["operations"][1]["op"], "trim");
    assert_eq!(
        call(&c, "workspace/list", json!({})).await["items"][0]["name"],
        "Kites"
    );

    // Bad timelines are refused with the envelope's keys.
    let bad = |clips: Value| json!({"workspace_id": id, "timeline": {"clips": clips}});
    assert_eq!(
        key_of(
            &c,
            "workspace/edit",
            bad(json!([{"material_id": uploaded["material_id"], "start": 0, "end": 9}]))
        )
        .await,
        "InvalidParams"
    );
    assert_eq!(
        key_of(
            &c,
            "workspace/edit",
            bad(json!([{"material_id": music["material_id"], "start": 0, "end": 1}]))
        )
        .await,
        "InvalidParams"
    );
    assert_eq!(
        key_of(
            &c,
            "workspace/edit",
            bad(json!([{"material_id": "nope", "start": 0, "end": 1}]))
        )
        .await,
        "NotFound"
    );
    assert_eq!(
        key_of(&c, "workspace/create", json!({"width": 333})).await,
        "InvalidParams"
    );

    // Another account sees none of it, like missing objects.
    for (path, body) in [
        ("detail", json!({"workspace_id": id})),
        ("export", json!({"workspace_id": id})),
        ("workspace/del", json!({"workspace_id": id})),
        (
            "material/delete",
            json!({"material_id": uploaded["material_id"]}),
        ),
        ("material/upload", json!({"file_id": clip})),
        ("material/upload", json!({"task_id": task})),
    ] {
        assert_eq!(key_of(&other, path, body).await, "NotFound", "{path}");
    }
    let theirs = call(&other, "workspace/create", json!({})).await;
    assert_eq!(
        key_of(&other, "workspace/edit", json!({"workspace_id": theirs["workspace_id"],
            "timeline": {"clips": [{"material_id": uploaded["material_id"], "start": 0, "end": 1}]}})).await,
        "NotFound",
        "someone else's material cannot go on my timeline"
    );
    assert!(call(&other, "material/list", json!({})).await["items"]
        .as_array()
        .unwrap()
        .is_empty());

    // The export: a task with progress, then a 480x270 MP4 of 3.5 s with sound.
    let before: Value = c
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap();
    let export = call(&c, "export", json!({"workspace_id": id})).await;
    let export_id = export["task_id"].as_str().unwrap().to_owned();
    assert_eq!(
        key_of(&other, "export/check", json!({"task_id": export_id})).await,
        "NotFound"
    );
    // A task that is not an export is not checked as one.
    assert_eq!(
        key_of(&c, "export/check", json!({"task_id": task})).await,
        "NotFound"
    );
    let deadline = std::time::Instant::now() + TASK_WAIT;
    let done = loop {
        let s = call(&c, "export/check", json!({"task_id": export_id})).await;
        let p = s["progress"].as_u64().unwrap();
        assert!(p <= 100);
        match s["status"].as_str().unwrap() {
            "succeeded" => break s,
            "queued" | "running" => assert!(s["video_url"].is_null()),
            other => panic!("export {other}: {s}"),
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the export did not finish"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert_eq!(done["progress"], 100);
    let (status, ct, mp4) = c
        .get_bytes(done["video_url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!((status, ct.as_str()), (200, "video/mp4"));
    let p = engines::reference::video::probe(&mp4).unwrap();
    assert_eq!((p.width, p.height), (480, 270));
    assert!((p.fps - 24.0).abs() < 0.01, "{p:?}");
    assert_eq!(p.frames, 84, "3.5 s at 24 fps");
    assert!(p.has_audio, "the clips' sound and the music");
    assert!(done["poster_url"].as_str().is_some());
    // It is a task like any other: in the list, charged once.
    let view = c.wait_task(&export_id, TASK_WAIT).await.unwrap();
    assert_eq!(view.video_uris.len(), 1);
    let after: Value = c
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap();
    let spent = before["available"].as_i64().unwrap() - after["available"].as_i64().unwrap();
    assert_eq!(
        spent, 1,
        "3.5 s at 480x270 is one 5-second block: {before} {after}"
    );
    assert_eq!(
        call(&c, "detail", json!({"workspace_id": id})).await["last_export"]["task_id"],
        export_id
    );

    // Deleting: a material leaves the bin, the workspace goes.
    call(
        &c,
        "material/delete",
        json!({"material_id": music["material_id"]}),
    )
    .await;
    assert_eq!(
        key_of(&c, "export", json!({"workspace_id": id})).await,
        "NotFound",
        "the timeline names a material that is gone"
    );
    call(&c, "workspace/del", json!({"workspace_id": id})).await;
    assert_eq!(
        key_of(&c, "detail", json!({"workspace_id": id})).await,
        "NotFound"
    );
}
