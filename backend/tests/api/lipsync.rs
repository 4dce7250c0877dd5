//! Faces and lip-sync (spec 2 §7): `resource/video/detectFace`,
//! `resource/video/frameDescription`, `tool/face/detection` on the caller's
//! own uploads and task outputs, and `task/v2/audio/audio-to-lip-video`
//! from an uploaded clip to a finished MP4 whose streams last as long; the
//! bad input of each call answers the envelope with its key, and another
//! account's files answer like missing ones.

use std::path::PathBuf;
use std::process::Command;

use protocol::client::RestClient;
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::spawn_app;
use crate::tasks::TASK_WAIT;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/faces")
            .join(name),
    )
    .unwrap()
}

/// Runs ffmpeg with `args` writing `out` in a temp dir; answers its bytes.
fn ffmpeg(args: &[&str], input: Option<(&str, &[u8])>, out: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    if let Some((name, bytes)) = input {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let ok = Command::new("ffmpeg")
        .current_dir(dir.path())
        .args(["-v", "error", "-y"])
        .args(args)
        .arg(out)
        .status()
        .unwrap();
    assert!(ok.success());
    std::fs::read(dir.path().join(out)).unwrap()
}

/// A `secs` long voiced buzz as a WAV file.
fn wav(secs: f32) -> Vec<u8> {
    ffmpeg(
        &[
            "-f",
            "lavfi",
            "-i",
            &format!("sine=frequency=180:duration={secs}:sample_rate=22050"),
            "-af",
            "volume='0.6+0.4*sin(2*PI*4*t)':eval=frame",
        ],
        None,
        "a.wav",
    )
}

/// Uploads through the chunked upload; answers the file's URL.
async fn upload(c: &RestClient, bytes: &[u8], name: &str, ct: &str, category: i64) -> String {
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
    done["url"].as_str().unwrap().to_owned()
}

async fn key_of(c: &RestClient, path: &str, body: Value) -> String {
    let e = c.post::<_, Value>(path, &body).await.unwrap_err();
    e.status()
        .and_then(|s| s.key.clone())
        .unwrap_or_else(|| format!("{e:?}"))
}

const DETECT: &str = "/api/v1/resource/video/detectFace";
const DESCRIBE: &str = "/api/v1/resource/video/frameDescription";
const TOOL: &str = "/api/v1/tool/face/detection";
const LIP: &str = "/api/v1/task/v2/audio/audio-to-lip-video";

fn painted_png() -> Vec<u8> {
    let img = image::RgbImage::from_fn(320, 240, |x, y| {
        image::Rgb([(x % 256) as u8, (90 + y / 4) as u8, 140])
    });
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png).unwrap();
    png.into_inner()
}

#[tokio::test]
async fn face_calls_on_pictures_and_videos_and_their_bad_input() {
    let app = spawn_app().await;
    let (_, c) = app.user("Facer").await;
    let (_, other) = app.user("Stranger").await;

    let einstein = upload(&c, &fixture("solvay-einstein.png"), "e.png", "image/png", 0).await;
    let group = upload(&c, &fixture("solvay-group.png"), "g.png", "image/png", 0).await;
    let video_bytes = ffmpeg(
        &[
            "-loop", "1", "-i", "e.png", "-t", "3", "-r", "10", "-pix_fmt", "yuv420p", "-c:v",
            "libx264",
        ],
        Some(("e.png", &fixture("solvay-einstein.png"))),
        "e.mp4",
    );
    let video = upload(&c, &video_bytes, "e.mp4", "video/mp4", 8).await;
    let sound = upload(&c, &wav(1.0), "a.wav", "audio/wav", 59).await;

    // tool/face/detection on a picture.
    let d: Value = c.post(TOOL, &json!({"url": einstein})).await.unwrap();
    assert_eq!(
        (d["width"].as_u64(), d["height"].as_u64()),
        (Some(480), Some(480))
    );
    assert_eq!(d["faces"].as_array().unwrap().len(), 1, "{d}");
    assert!(d["faces"][0]["score"].as_f64().unwrap() >= 2.0);
    let g: Value = c.post(TOOL, &json!({"url": group})).await.unwrap();
    assert!(g["faces"].as_array().unwrap().len() >= 3, "{g}");

    // detectFace on a picture and on a video sampled at 2 fps.
    let f: Value = c.post(DETECT, &json!({"url": einstein})).await.unwrap();
    assert_eq!(
        (f["has_face"].as_bool(), f["single_face"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(f["frames_checked"], 1);
    let v: Value = c.post(DETECT, &json!({"url": video})).await.unwrap();
    assert_eq!(v["frames_checked"], 6, "{v}");
    assert_eq!(v["single_face"], true, "{v}");
    assert_eq!(v["faces"].as_array().unwrap().len(), 6);
    assert_eq!(v["faces"][1]["time_ms"], 500);
    let gv: Value = c.post(DETECT, &json!({"url": group})).await.unwrap();
    assert_eq!(
        (gv["has_face"].as_bool(), gv["single_face"].as_bool()),
        (Some(true), Some(false))
    );
    let none: Value = c
        .post(
            DETECT,
            &json!({"url": upload(&c, &painted_png(), "p.png", "image/png", 0).await}),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            none["has_face"].as_bool(),
            none["faces"].as_array().map(Vec::len)
        ),
        (Some(false), Some(0))
    );

    // frameDescription of a picture and of a video's frame.
    let p: Value = c.post(DESCRIBE, &json!({"url": einstein})).await.unwrap();
    assert!(!p["description"].as_str().unwrap().is_empty());
    assert_eq!(p["engine"]["neural"], false);
    let vf: Value = c
        .post(DESCRIBE, &json!({"url": video, "time_ms": 99_999}))
        .await
        .unwrap();
    assert!(!vf["description"].as_str().unwrap().is_empty());
    assert!(vf["time_ms"].as_u64().unwrap() < 3000);

    // Bad input.
    assert_eq!(key_of(&c, DETECT, json!({})).await, "InvalidParams");
    assert_eq!(
        key_of(
            &c,
            DETECT,
            json!({"url": "https://elsewhere.example/a.png"})
        )
        .await,
        "uploadError"
    );
    assert_eq!(
        key_of(&c, DETECT, json!({"url": "/files/u/nope/x.png"})).await,
        "NotFound"
    );
    assert_eq!(
        key_of(&c, DETECT, json!({"url": sound})).await,
        "uploadVideoError"
    );
    assert_eq!(
        key_of(&c, DESCRIBE, json!({"url": sound})).await,
        "uploadVideoError"
    );
    assert_eq!(key_of(&c, TOOL, json!({"url": video})).await, "uploadError");
    // Another account's files answer like missing ones.
    for path in [DETECT, DESCRIBE, TOOL] {
        assert_eq!(
            key_of(&other, path, json!({"url": einstein})).await,
            "NotFound",
            "{path}"
        );
    }
}

#[tokio::test]
async fn lip_sync_from_an_uploaded_clip_and_the_rules_of_its_request() {
    let app = spawn_app().await;
    let (_, c) = app.user("Speaker").await;
    let (_, other) = app.user("Onlooker").await;

    let face = upload(&c, &fixture("solvay-einstein.png"), "e.png", "image/png", 0).await;
    let clip = upload(&c, &wav(2.0), "a.wav", "audio/wav", 59).await;

    let t: Value = c
        .post(LIP, &json!({"meta": {"image_url": face, "lip_sync_tab": "lipSyncAudio", "audio_url": clip}}))
        .await
        .unwrap();
    let id = t["id"].as_str().unwrap().to_owned();
    let done = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(done.status, TaskStatus::Success, "{:?}", done.reason);
    assert_eq!(done.audio_uris.len(), 1);
    assert_eq!(done.video_uris.len(), 1);
    assert_eq!(done.img_uris.len(), 1);
    let engine = done.engine.clone().unwrap();
    assert_eq!(
        (engine.label.as_str(), engine.neural),
        ("Easel reference lip-sync (non-neural)", false)
    );
    let (status, ct, mp4) = c.get_bytes(&done.video_uris[0]).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "video/mp4"));
    let (_, act, _) = c.get_bytes(&done.audio_uris[0]).await.unwrap();
    assert_eq!(act, "audio/aac");
    // Both streams last the clip's 2 s (within a frame).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.mp4");
    std::fs::write(&path, &mp4).unwrap();
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "stream=codec_type,duration",
            "-of",
            "csv=p=0",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let streams: Vec<(String, f64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (t, d) = l.split_once(',')?;
            Some((t.to_owned(), d.parse().ok()?))
        })
        .collect();
    let dur = |kind: &str| streams.iter().find(|s| s.0 == kind).unwrap().1;
    assert!((dur("video") - dur("audio")).abs() <= 0.041, "{streams:?}");
    assert!((dur("video") - 2.0).abs() <= 0.041, "{streams:?}");

    // The text tab with the default voice queues a task.
    let t: Value = c
        .post(
            LIP,
            &json!({"meta": {"parent_task_id": id, "text": "Hello there"}}),
        )
        .await
        .unwrap();
    assert!(t["id"].as_str().is_some());

    // Bad input, each with its key.
    let no_face = upload(&c, &painted_png(), "p.png", "image/png", 0).await;
    let long = upload(&c, &wav(61.0), "long.wav", "audio/wav", 59).await;
    let cases = [
        (json!({"text": "hi"}), "pleaseSelectVideo"),
        (json!({"image_url": face}), "audioTextEmpty"),
        (
            json!({"image_url": face, "text": "a".repeat(1001)}),
            "audioTextTooLong",
        ),
        (
            json!({"image_url": face, "text": "hi", "speed": 3}),
            "InvalidParams",
        ),
        (
            json!({"image_url": face, "lip_sync_tab": "lipSyncAudio"}),
            "pleaseUploadAudio",
        ),
        (
            json!({"image_url": face, "lip_sync_tab": "dance", "text": "hi"}),
            "InvalidParams",
        ),
        (
            json!({"image_url": face, "video_url": face, "text": "hi"}),
            "InvalidParams",
        ),
        (json!({"image_url": no_face, "text": "hi"}), "noFaceFound"),
        (
            json!({"image_url": face, "lip_sync_tab": "lipSyncAudio", "audio_url": long}),
            "audioTooLong",
        ),
        (
            json!({"image_url": face, "lip_sync_tab": "lipSyncAudio", "audio_url": face}),
            "uploadAudioError",
        ),
        (json!({"image_url": clip, "text": "hi"}), "uploadVideoError"),
        (
            json!({"image_url": face, "text": "hi", "timbre_id": "no-such-voice"}),
            "NotFound",
        ),
        (
            json!({"image_url": "https://elsewhere.example/a.png", "text": "hi"}),
            "uploadError",
        ),
    ];
    for (meta, key) in cases {
        assert_eq!(
            key_of(&c, LIP, json!({ "meta": meta })).await,
            key,
            "{meta}"
        );
    }
    // Another account's picture, clip or task answer like missing ones;
    // a visitor must log in.
    let foreign = [
        json!({"image_url": face, "text": "hi"}),
        json!({"parent_task_id": id, "text": "hi"}),
    ];
    for meta in foreign {
        assert_eq!(
            key_of(&other, LIP, json!({ "meta": meta })).await,
            "NotFound",
            "{meta}"
        );
    }
    let mine = upload(
        &other,
        &fixture("solvay-einstein.png"),
        "e.png",
        "image/png",
        0,
    )
    .await;
    assert_eq!(
        key_of(
            &other,
            LIP,
            json!({"meta": {"image_url": mine, "lip_sync_tab": "lipSyncAudio", "audio_url": clip}})
        )
        .await,
        "NotFound"
    );
    assert_eq!(
        key_of(
            &app.client,
            LIP,
            json!({"meta": {"image_url": face, "text": "hi"}})
        )
        .await,
        "NeedLogin"
    );
}
