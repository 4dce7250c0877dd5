//! Video tasks end to end (DESIGN.md Contracts "Video"): the spec's create
//! calls answer `{id}`, the task runs on the queue and workers like an
//! image, and a finished task carries one MP4 per output in `video_uris`
//! (read back with ffprobe: size, frame rate, duration) beside its poster
//! in `img_uris`; rule violations answer the spec's keys.

use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::spawn_app;
use crate::tasks::{test_png, TASK_WAIT};

async fn err_key(c: &protocol::client::RestClient, path: &str, body: Value) -> (u16, String) {
    let e = c.create_task(path, &body).await.unwrap_err();
    (
        e.http_status().unwrap_or(0),
        e.status().and_then(|s| s.key.clone()).unwrap_or_default(),
    )
}

#[tokio::test]
async fn video_tasks_make_mp4_files_with_posters() {
    let app = spawn_app().await;
    let (_, c) = app.user("Director").await;
    let cfg: Value = c
        .post("/api/v1/task/v2/video/model-gen-param", &json!({}))
        .await
        .unwrap();
    assert_eq!(cfg["neural"], false, "the reference engine says what it is");
    assert!(cfg["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["model_no"] == "wan_video"));

    // Text to video on Wan: 640x640, 5 s at 16 fps.
    let body = json!({"model_no": "wan_video", "model_ver_no": "wan_video",
        "meta": {"prompt": "a lighthouse at dusk, waves", "width": 640, "height": 640,
                 "aspect_ratio": "1:1", "n_iter": 1,
                 "generate_video": {"generate_video_duration": 5}}});
    let est: Value = c
        .post("/api/v1/task/v2/video/estimate", &body)
        .await
        .unwrap();
    assert!(est["calculate_coins"].as_i64().unwrap() > 0, "{est}");
    let before: Value = c
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap();
    let id = c
        .create_task("/api/v1/task/v2/video/text-to-video", &body)
        .await
        .unwrap();
    let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    assert_eq!((t.video_uris.len(), t.img_uris.len()), (1, 1));
    let (status, ct, mp4) = c.get_bytes(&t.video_uris[0]).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "video/mp4"));
    let p = engines::reference::video::probe(&mp4).unwrap();
    assert_eq!((p.width, p.height, p.codec.as_str()), (640, 640, "h264"));
    assert!((p.fps - 16.0).abs() < 0.01, "{p:?}");
    assert!((4900..=5100).contains(&p.duration_ms), "{p:?}");
    let (_, ct, _) = c.get_bytes(&t.img_uris[0]).await.unwrap();
    assert_eq!(ct, "image/png");
    // Adaptive streaming: an HLS master playlist with the 360p and 540p
    // variants (up to the video's own 640 px), whose playlists and
    // segments are served beside it.
    assert_eq!(t.hls_uris.len(), 1);
    let (status, ct, master) = c.get_bytes(&t.hls_uris[0]).await.unwrap();
    assert_eq!(
        (status, ct.as_str()),
        (200, "application/vnd.apple.mpegurl")
    );
    let master = String::from_utf8(master).unwrap();
    assert!(master.starts_with("#EXTM3U"), "{master}");
    let variants: Vec<&str> = master.lines().filter(|l| l.ends_with(".m3u8")).collect();
    assert_eq!(variants, ["360p/index.m3u8", "540p/index.m3u8"], "{master}");
    let base = t.hls_uris[0].rsplit_once('/').unwrap().0.to_owned();
    let (status, _, playlist) = c
        .get_bytes(&format!("{base}/360p/index.m3u8"))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let playlist = String::from_utf8(playlist).unwrap();
    let segment = playlist.lines().find(|l| l.ends_with(".ts")).unwrap();
    let (status, ct, ts) = c
        .get_bytes(&format!("{base}/360p/{segment}"))
        .await
        .unwrap();
    assert_eq!(
        (status, ct.as_str(), ts.first()),
        (200, "video/mp2t", Some(&0x47))
    );
    let after: Value = c
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        before["available"].as_i64().unwrap() - after["available"].as_i64().unwrap(),
        est["calculate_coins"].as_i64().unwrap(),
        "charged what the estimate said"
    );

    // The tools on that video: twice the frame rate; upscaled; extended.
    let parent = id.clone();
    let tools = [
        (
            "frame-interpolation",
            json!({"parent_task_id": parent, "meta": {"generate_video": {"duration": 5}}}),
            (640, 640),
            32.0,
            5000,
        ),
        (
            "upscale",
            json!({"parent_task_id": parent, "meta": {"width": 960, "height": 960, "generate_video": {"duration": 5}}}),
            (960, 960),
            16.0,
            5000,
        ),
        (
            "extend",
            json!({"parent_task_id": parent, "meta": {"generate_video": {"generate_video_duration": 5}}}),
            (640, 640),
            16.0,
            10000,
        ),
    ];
    for (path, body, size, fps, ms) in tools {
        let id = c
            .create_task(&format!("/api/v1/task/v2/video/{path}"), &body)
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
        assert_eq!(t.status, TaskStatus::Success, "{path}: {:?}", t.reason);
        let (_, _, mp4) = c.get_bytes(&t.video_uris[0]).await.unwrap();
        let p = engines::reference::video::probe(&mp4).unwrap();
        assert_eq!((p.width, p.height), size, "{path}");
        assert!((p.fps - fps).abs() < 0.01, "{path}: {p:?}");
        assert!(p.duration_ms.abs_diff(ms) <= 150, "{path}: {p:?}");
    }
    // Published as a video post: its page and its plays (spec 3 §7 ai-video).
    let post: Value = c
        .post(
            "/api/v1/post/video/add",
            &json!({"task_id": parent, "title": "Dusk"}),
        )
        .await
        .unwrap();
    let work = post["id"].as_str().unwrap().to_owned();
    let d: Value = c
        .post("/api/v1/ai-video/detail", &json!({"id": work}))
        .await
        .unwrap();
    assert_eq!(d["title"], "Dusk", "{d}");
    for n in 1..=2 {
        let p: Value = app
            .client
            .with_device("viewer-device-1234")
            .post("/api/v1/ai-video/play", &json!({"id": work}))
            .await
            .unwrap();
        assert_eq!(p["plays"], n);
    }
    let d: Value = c
        .post("/api/v1/ai-video/detail", &json!({"id": work}))
        .await
        .unwrap();
    assert_eq!(d["plays"], 2, "{d}");
    assert!(d["hls_url"].as_str().unwrap().ends_with(".m3u8"), "{d}");
    let e = c
        .post::<_, Value>("/api/v1/ai-video/play", &json!({"id": "no-such-work"}))
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(404));

    // Another account's video is not a source.
    let (_, other) = app.user("Other").await;
    // Reports (spec 3 §7 ai-video/report) go into the moderators' queue
    // (obj_type 15, a video work) under `report`'s rules: one open report
    // per reporter and post, never one's own.
    let report = |who: &protocol::client::RestClient, body: Value| {
        let who = who.clone();
        async move { who.post::<_, Value>("/api/v1/ai-video/report", &body).await }
    };
    for (who, body, key) in [
        (&c, json!({"id": work, "reason": "spam"}), "reportSelf"),
        (
            &other,
            json!({"id": work, "reason": "nonsense"}),
            "reportReasonInvalid",
        ),
        (
            &other,
            json!({"id": work, "reason": "other"}),
            "reportTextInvalid",
        ),
        (
            &other,
            json!({"id": "no-such-work", "reason": "spam"}),
            "NotFound",
        ),
    ] {
        let e = report(who, body.clone()).await.unwrap_err();
        assert_eq!(
            e.status().and_then(|s| s.key.clone()).as_deref(),
            Some(key),
            "{body}"
        );
    }
    let r = report(
        &other,
        json!({"id": work, "reason": "other", "detail": "stolen clip"}),
    )
    .await
    .unwrap();
    assert_eq!(r["updated"], false);
    assert!(!r["report_id"].as_str().unwrap().is_empty(), "{r}");
    let e = report(&other, json!({"id": work, "reason": "spam"}))
        .await
        .unwrap_err();
    assert_eq!(
        e.status().and_then(|s| s.key.clone()).as_deref(),
        Some("reportDuplicate")
    );
    let e = other
        .post::<_, Value>("/api/v1/moderation/queue", &json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(403));
    let q: Value = app
        .operator()
        .await
        .post("/api/v1/moderation/queue", &json!({"kind": "report"}))
        .await
        .unwrap();
    let items = q["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{q}");
    assert_eq!(items[0]["obj_id"].as_str(), Some(work.as_str()), "{q}");
    assert_eq!(items[0]["reports"]["count"], 1, "{q}");
    let (http, _) = err_key(
        &other,
        "/api/v1/task/v2/video/upscale",
        json!({"parent_task_id": parent, "meta": {"width": 960, "height": 960, "generate_video": {"duration": 5}}}),
    )
    .await;
    assert_eq!(http, 404);

    // Image to video with a Zoom camera move on an uploaded picture.
    let src = c
        .upload(&test_png(320, 180), "still.png", "image/png")
        .await
        .unwrap();
    let id = c
        .create_task(
            "/api/v1/task/v2/video/img-to-video",
            &json!({"model_no": "easelFlow", "model_ver_no": "easelFlow",
                "meta": {"prompt": "slow zoom", "aspect_ratio": "16:9", "n_iter": 1,
                    "generate_video": {"generate_video_duration": 5,
                        "camera_control_option": {"mode": "Zoom", "offset": 6},
                        "image_opts": [{"mode": "first_frame", "url": src}]}}}),
        )
        .await
        .unwrap();
    let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    let (_, _, mp4) = c.get_bytes(&t.video_uris[0]).await.unwrap();
    let p = engines::reference::video::probe(&mp4).unwrap();
    assert_eq!((p.width, p.height), (1280, 720));
    assert!((4900..=5100).contains(&p.duration_ms), "{p:?}");

    // The spec's keys for bad input.
    let cases = [
        (
            "/api/v1/task/v2/video/text-to-video",
            json!({"model_no": "wan_video", "meta": {"prompt": "  "}}),
            "PromptNotEmpty",
        ),
        (
            "/api/v1/task/v2/video/img-to-video",
            json!({"model_no": "easelFlow", "meta": {"prompt": "x", "generate_video": {"image_opts": []}}}),
            "pleaseSelectImage",
        ),
        (
            "/api/v1/task/v2/video/img-to-video",
            json!({"template_id": "no-such-effect", "meta": {"generate_video": {"image_opts": [{"mode": "image", "url": src}]}}}),
            "pleaseSelectEffect",
        ),
        (
            "/api/v1/task/v2/video/text-to-video",
            json!({"model_no": "pixVerse", "meta": {"prompt": "x", "generate_video": {"quality_mode": "1080p"}}}),
            "videoQualityMemberOnly",
        ),
    ];
    for (path, body, key) in cases {
        let (_, got) = err_key(&c, path, body.clone()).await;
        assert_eq!(got, key, "{path} {body}");
    }
    // Visitors make no video.
    let (http, _) = err_key(
        &app.client.with_device("visitor-device-123"),
        "/api/v1/task/v2/video/text-to-video",
        json!({"model_no": "wan_video", "meta": {"prompt": "x"}}),
    )
    .await;
    assert_eq!(http, 401);
}
