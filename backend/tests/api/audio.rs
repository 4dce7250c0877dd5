//! Music, sound effects, soundtracks and lyrics against the real server:
//! every call's bad input answers its key, the DESIGN.md contract
//! (`text-to-music {meta: {prompt, duration}}` → `{id}`, then a finished
//! task with `audio_uris`), soundtracks of the caller's own video (another
//! account's answers NotFound), and lyrics whole and streamed from the
//! scripted model.

use std::time::Duration;

use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, TestApp};
use crate::tasks::TASK_WAIT;

const AUDIO: &str = "/api/v1/task/v2/audio";

fn key(e: &protocol::client::ClientError) -> String {
    e.status()
        .and_then(|s| s.key.clone())
        .unwrap_or_else(|| format!("{e:?}"))
}

#[tokio::test]
async fn bad_input_answers_its_key() {
    let app = spawn_app().await;
    let (_, c) = app.user("Composer").await;
    let table = [
        (
            "text-to-audio-effect",
            json!({"meta": {}}),
            "audioPromptEmpty",
        ),
        (
            "text-to-audio-effect",
            json!({"meta": {"prompt": "rain", "duration": 31}}),
            "audioDurationInvalid",
        ),
        (
            "text-to-audio-effect",
            json!({"meta": {"prompt": "rain", "duration": "abc"}}),
            "InvalidParams",
        ),
        (
            "music/text-to-music",
            json!({"meta": {"prompt": "pop", "duration": 4}}),
            "audioDurationInvalid",
        ),
        (
            "music/text-to-music",
            json!({"meta": {"prompt": "pop", "duration": 241}}),
            "audioDurationInvalid",
        ),
        (
            "music/text-to-music",
            json!({"meta": {"prompt": "x".repeat(1001)}}),
            "audioPromptTooLong",
        ),
        (
            "music/text-to-music",
            json!({"meta": {"prompt": "pop", "lyrics": "la ".repeat(1001)}}),
            "lyricsTooLong",
        ),
        (
            "music/text-to-music",
            json!({"meta": {"prompt": "pop", "generate_mode": "vocalSongs"}}),
            "lyricsEmpty",
        ),
        (
            "music/text-to-music",
            json!({"meta": {"prompt": "pop", "generate_mode": "opera"}}),
            "InvalidParams",
        ),
        (
            "video-to-audio",
            json!({"meta": {"prompt": "calm"}}),
            "pleaseSelectVideo",
        ),
        (
            "video-to-audio",
            json!({"meta": {"parent_task_id": "no-such-task"}}),
            "NotFound",
        ),
        (
            "video-to-audio",
            json!({"meta": {"video_url": "/files/u/nope/a.mp4"}}),
            "NotFound",
        ),
        (
            "video-add-music",
            json!({"meta": {"prompt": "calm", "duration": 0, "video_url": "/files/u/x/a.mp4"}}),
            "audioDurationInvalid",
        ),
        (
            "video-add-music",
            json!({"meta": {"video_url": "/files/u/x/a.mp4"}}),
            "audioPromptEmpty",
        ),
        (
            "music/generate-lyrics",
            json!({"prompt": ""}),
            "audioPromptEmpty",
        ),
    ];
    for (path, body, want) in table {
        let e = c
            .post::<_, Value>(&format!("{AUDIO}/{path}"), &body)
            .await
            .unwrap_err();
        assert_eq!(key(&e), want, "{path} {body}");
    }
    // An unknown audio call answers the envelope.
    let e = c
        .post::<_, Value>(&format!("{AUDIO}/no-such-call"), &json!({}))
        .await
        .unwrap_err();
    assert_eq!(key(&e), "NotFound");
    // Visitors make no audio.
    let e = app
        .client
        .post::<_, Value>(
            &format!("{AUDIO}/text-to-audio-effect"),
            &json!({"meta": {"prompt": "rain"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(key(&e), "NeedLogin");
}

async fn audio_of(c: &protocol::client::RestClient, url: &str) -> Vec<u8> {
    let (status, ct, bytes) = c.get_bytes(url).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "audio/aac"), "{url}");
    bytes
}

/// Seconds of a media file by ffprobe (its first stream of `kind`).
fn probe_secs(bytes: &[u8], kind: &str) -> f64 {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), bytes).unwrap();
    let out = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            &format!("{}:0", &kind[..1]),
            "-show_entries",
            "stream=duration",
            "-of",
            "csv=p=0",
        ])
        .arg(f.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap_or(-1.0)
}

#[tokio::test]
async fn the_contract_music_and_effects_finish_with_audio_uris() {
    let app = spawn_app().await;
    let (_, c) = app.user("Songwriter").await;
    // DESIGN.md: {meta: {prompt, duration}} → {id}.
    let id = c
        .create_task(
            &format!("{AUDIO}/music/text-to-music"),
            &json!({"meta": {"prompt": "happy summer pop", "duration": 6}}),
        )
        .await
        .unwrap();
    let fx = c
        .create_task(
            &format!("{AUDIO}/text-to-audio-effect"),
            &json!({"meta": {"prompt": "rain and thunder", "duration": "3"}}),
        )
        .await
        .unwrap();
    for (id, secs) in [(id, 6.0), (fx, 3.0)] {
        let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
        assert_eq!(t.status, TaskStatus::Success, "{t:?}");
        assert_eq!(t.audio_uris.len(), 1, "{t:?}");
        assert!(t.video_uris.is_empty());
        let bytes = audio_of(&c, &t.audio_uris[0]).await;
        let got = probe_secs(&bytes, "audio");
        assert!((got - secs).abs() < 0.1, "{id}: {got} s");
    }
}

/// A finished reference video task of `c`.
async fn video_task(c: &protocol::client::RestClient) -> (String, String) {
    let body = json!({"model_no": "wan_video", "model_ver_no": "wan_video",
        "meta": {"prompt": "waves at dusk", "width": 320, "height": 320, "aspect_ratio": "1:1",
                 "n_iter": 1, "generate_video": {"generate_video_duration": 5}}});
    let id = c
        .create_task("/api/v1/task/v2/video/text-to-video", &body)
        .await
        .unwrap();
    let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success);
    let url = t.video_uris[0].clone();
    (id, url)
}

#[tokio::test]
async fn soundtracks_of_own_videos_only() {
    let app = spawn_app().await;
    let (_, c) = app.user("Editor").await;
    let (_, other) = app.user("Snooper").await;
    let (vid, url) = video_task(&c).await;
    let (_, _, video) = c.get_bytes(&url).await.unwrap();
    let vlen = probe_secs(&video, "video");

    // Another account's task or file answers like a missing one.
    for body in [
        json!({"meta": {"parent_task_id": vid}}),
        json!({"meta": {"video_url": url}}),
    ] {
        let e = other
            .post::<_, Value>(&format!("{AUDIO}/video-to-audio"), &body)
            .await
            .unwrap_err();
        assert_eq!(key(&e), "NotFound", "{body}");
    }

    let a = c
        .create_task(
            &format!("{AUDIO}/video-to-audio"),
            &json!({"meta": {"prompt": "calm", "parent_task_id": vid}}),
        )
        .await
        .unwrap();
    let b = c
        .create_task(
            &format!("{AUDIO}/video-add-music"),
            &json!({"meta": {"prompt": "epic", "duration": 30, "video_url": url}}),
        )
        .await
        .unwrap();
    for id in [a, b] {
        let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
        assert_eq!(t.status, TaskStatus::Success, "{t:?}");
        assert_eq!((t.audio_uris.len(), t.video_uris.len()), (1, 1), "{t:?}");
        let music = audio_of(&c, &t.audio_uris[0]).await;
        let (_, ct, mp4) = c.get_bytes(&t.video_uris[0]).await.unwrap();
        assert_eq!(ct, "video/mp4");
        let (v, au) = (probe_secs(&mp4, "video"), probe_secs(&mp4, "audio"));
        assert!((v - vlen).abs() < 0.05, "{v} {vlen}");
        assert!((au - v).abs() <= 0.065, "muxed audio {au}, video {v}");
        assert!((probe_secs(&music, "audio") - vlen).abs() <= 0.065);
    }
}

/// Named events (`event:` + `data:`) of a stream, in order.
async fn events(res: reqwest::Response) -> Vec<(String, Value)> {
    assert_eq!(res.status().as_u16(), 200);
    let ct = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let text = tokio::time::timeout(Duration::from_secs(30), res.text())
        .await
        .unwrap()
        .unwrap();
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            let mut name = String::new();
            let mut data = Value::Null;
            for line in e.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(d).unwrap();
                }
            }
            (name, data)
        })
        .collect()
}

async fn lyrics_stream(app: &TestApp, token: Option<&str>, body: Value) -> Vec<(String, Value)> {
    let mut req = reqwest::Client::new()
        .post(format!("{}/api/stream/audio/lyrics", app.base))
        .json(&body);
    if let Some(t) = token {
        req = req.header("token", t);
    }
    events(req.send().await.unwrap()).await
}

#[tokio::test]
async fn lyrics_whole_and_streamed() {
    let app = spawn_app_with(&[
        ("EASEL_LLM", "scripted"),
        ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "5"),
    ])
    .await;
    let (login, c) = app.user("Lyricist").await;
    let whole: Value = c
        .post(
            &format!("{AUDIO}/music/generate-lyrics"),
            &json!({"prompt": "rainy city nights", "title": "Neon"}),
        )
        .await
        .unwrap();
    assert_eq!(whole["title"], "Neon");
    let lyrics = whole["lyrics"].as_str().unwrap();
    // The scripted model echoes the instruction, which carries the prompt.
    assert!(lyrics.starts_with("[Verse]\n"), "{lyrics}");
    assert!(lyrics.contains("rainy city nights"), "{lyrics}");

    let ev = lyrics_stream(
        &app,
        Some(&login.token),
        json!({"prompt": "rainy city nights", "title": "Neon"}),
    )
    .await;
    let (last, deltas) = ev.split_last().unwrap();
    assert!(deltas.len() > 5, "{ev:?}");
    assert!(deltas.iter().all(|(n, _)| n == "delta"), "{ev:?}");
    let joined: String = deltas
        .iter()
        .map(|(_, d)| d["text"].as_str().unwrap())
        .collect();
    assert!(joined.contains("rainy city nights"));
    assert_eq!(last.0, "done");
    assert_eq!(last.1["lyrics"], whole["lyrics"]);
    assert_eq!(last.1["title"], "Neon");

    // Refusals are one error event.
    let ev = lyrics_stream(&app, None, json!({"prompt": "x"})).await;
    assert_eq!(ev.len(), 1);
    assert_eq!(
        (ev[0].0.as_str(), &ev[0].1["key"]),
        ("error", &json!("NeedLogin"))
    );
    let ev = lyrics_stream(&app, Some(&login.token), json!({"prompt": " "})).await;
    assert_eq!(ev[0].1["key"], "audioPromptEmpty");
}
