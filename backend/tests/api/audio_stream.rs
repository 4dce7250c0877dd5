//! Audio transport (spec 2 §7-§9): an audio upload (category 59) is checked
//! by decoding it, not by its name, within 50 MiB and 10 minutes; the
//! download event stream sends the stored bytes as base64 `chunk` events
//! and an `end` event, and answers the JSON envelope 404 for a file that is
//! missing or another account's.

use base64::Engine as _;
use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::spawn_app;

/// A file made by ffmpeg from lavfi sources (`-f` output format given).
fn ffmpeg(inputs: &[&str], out_args: &[&str], name: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(name);
    let mut cmd = std::process::Command::new("ffmpeg");
    cmd.args(["-hide_banner", "-loglevel", "error"]);
    for i in inputs {
        cmd.args(["-f", "lavfi", "-i", i]);
    }
    cmd.args(out_args).arg(&out);
    assert!(cmd.status().unwrap().success());
    std::fs::read(out).unwrap()
}

/// Pre-sign (category 59, declared as octet-stream like the spec's helper),
/// PUT each part, confirm each part, confirm the file: the final envelope.
async fn upload(c: &RestClient, bytes: &[u8], name: &str) -> Result<Value, (u16, Value)> {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": name,
                    "content_type": "application/octet-stream", "category": 59}),
        )
        .await
        .unwrap();
    let chunk = pre["chunk_size"].as_u64().unwrap() as usize;
    let http = reqwest::Client::new();
    for (url, part) in pre["pre_signs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(bytes.chunks(chunk))
    {
        let url = url.as_str().unwrap();
        let r = http
            .put(url)
            .header("content-type", "application/octet-stream")
            .body(part.to_vec())
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
        let _: Value = c
            .post(
                "/api/v1/resource/pre-sign/confirm",
                &json!({"file_id": pre["file_id"], "pre_sign_url": url}),
            )
            .await
            .unwrap();
    }
    let (http, env) = c
        .post_raw::<_, Value>(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": pre["file_id"]}),
        )
        .await
        .unwrap();
    if env.status.code == 10000 {
        Ok(env.data)
    } else {
        Err((http, json!({"key": env.status.key, "msg": env.status.msg})))
    }
}

/// The events of an event-stream body: (event name, data JSON).
fn events(body: &[u8]) -> Vec<(String, Value)> {
    let text = std::str::from_utf8(body).unwrap();
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let mut name = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event: ") {
                    name = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data.push_str(v);
                }
            }
            (name, serde_json::from_str(&data).unwrap())
        })
        .collect()
}

fn stream_path(url: &str) -> String {
    let q: String = url
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    format!("/api/stream/audio?url={q}")
}

#[tokio::test]
async fn audio_uploads_decode_and_download_as_a_byte_exact_event_stream() {
    let app = spawn_app().await;
    let (_, owner) = app.user("Singer").await;
    let (_, other) = app.user("Stranger").await;

    // 5 s of a 16-bit WAV: ~441 KB, so several 64 KiB chunks and a short last one.
    let wav = ffmpeg(
        &["sine=frequency=440:duration=5:sample_rate=44100"],
        &["-ac", "1", "-c:a", "pcm_s16le"],
        "tone.wav",
    );
    let done = upload(&owner, &wav, "tone.wav").await.unwrap();
    assert_eq!(done["status"], 0);
    let url = done["url"].as_str().unwrap().to_owned();
    let (status, ct, served) = owner.get_bytes(&url).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "audio/wav"));
    assert_eq!(served, wav);

    let (status, ct, body) = owner.get_bytes(&stream_path(&url)).await.unwrap();
    assert_eq!(status, 200);
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let evs = events(&body);
    let (last, chunks) = evs.split_last().unwrap();
    assert_eq!(last.0, "end");
    assert_eq!(chunks.len(), wav.len().div_ceil(64 * 1024));
    let mut joined = Vec::new();
    for (name, data) in chunks {
        assert_eq!(name, "chunk");
        let piece = base64::engine::general_purpose::STANDARD
            .decode(data["audioData"].as_str().unwrap())
            .unwrap();
        assert!(piece.len() <= 64 * 1024);
        joined.extend_from_slice(&piece);
    }
    assert_eq!(joined, wav, "the stream reassembles byte-exact");
    // The path form of the URL works the same.
    let path = url.find("/files/").map(|i| &url[i..]).unwrap();
    let (status, _, again) = owner.get_bytes(&stream_path(path)).await.unwrap();
    assert_eq!((status, again), (200, body));

    // Another account's file, a missing one, and a non-file URL: the envelope 404.
    let missing = url.replace("tone.wav", "nothing.wav");
    for (who, u) in [
        (&other, url.as_str()),
        (&owner, missing.as_str()),
        (&owner, "https://example.com/a.m4a"),
    ] {
        let (status, ct, body) = who.get_bytes(&stream_path(u)).await.unwrap();
        assert_eq!(status, 404, "{u}");
        assert!(ct.starts_with("application/json"), "{ct}");
        let env: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(env["status"]["code"], 40400, "{env}");
    }
    // Nobody at all (no token, no device): login first.
    let (status, _, _) = app.client.get_bytes(&stream_path(&url)).await.unwrap();
    assert_eq!(status, 401);

    // AAC in M4A named .mp3: accepted by what it is.
    let m4a = ffmpeg(
        &["sine=frequency=330:duration=3"],
        &["-c:a", "aac", "-f", "mp4"],
        "song.m4a",
    );
    let done = upload(&owner, &m4a, "song.mp3").await.unwrap();
    assert_eq!(done["status"], 0);
}

#[tokio::test]
async fn audio_uploads_that_are_not_audio_or_too_big_or_long_are_refused_with_keys() {
    // The files first: making them takes seconds, longer than an idle
    // keep-alive connection lives.
    let mute = ffmpeg(
        &["testsrc=size=160x120:rate=10:duration=1"],
        &["-pix_fmt", "yuv420p", "-c:v", "libx264", "-f", "mp4"],
        "mute.mp4",
    );
    // 601 s of a small Opus file.
    let long = ffmpeg(
        &["sine=frequency=200:duration=601:sample_rate=8000"],
        &["-ac", "1", "-c:a", "libopus", "-b:a", "6k", "-f", "ogg"],
        "long.ogg",
    );
    let app = spawn_app().await;
    let (_, user) = app.user("Mixer").await;
    // Text named like an MP3.
    let (http, e) = upload(&user, &[b'x'; 4000], "fake.mp3").await.unwrap_err();
    assert_eq!((http, e["key"].as_str()), (400, Some("uploadAudioError")));
    // A video with no sound track.
    let (_, e) = upload(&user, &mute, "mute.m4a").await.unwrap_err();
    assert_eq!(e["key"], "uploadAudioError", "{e}");
    // Over ten minutes: audioTooLong.
    assert!(long.len() < 50 * 1024 * 1024);
    let (_, e) = upload(&user, &long, "long.ogg").await.unwrap_err();
    assert_eq!(e["key"], "audioTooLong", "{e}");
    // Over 50 MiB: refused at pre-sign.
    let e = user
        .post::<_, Value>(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": 50 * 1024 * 1024 + 1, "file_name": "big.wav",
                    "content_type": "audio/wav", "category": 59}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(413));
    // A refused file is not served.
    let (status, _, _) = user.get_bytes("/files/u/none/fake.mp3").await.unwrap();
    assert_eq!(status, 404);
}
