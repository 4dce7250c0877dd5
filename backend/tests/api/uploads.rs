//! Large uploads (spec 2 §7 chunked upload): a 1 GiB file through 20 MiB
//! parts, resumed after parts were lost, joined by the object store one
//! part at a time (the server's memory stays flat), served by HTTP ranges;
//! a video must be one ffprobe reads.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::spawn_app;

const MIB: u64 = 1024 * 1024;

/// Part `i` of the generated file (deterministic, not compressible to nothing).
fn part_bytes(i: u64, len: u64) -> Vec<u8> {
    (0..len)
        .map(|n| ((n * 31 + i * 7 + (n >> 12)) % 251) as u8)
        .collect()
}

/// A gigabyte that is a real video: a short MPEG-TS clip made by ffmpeg,
/// then MPEG-TS null packets (PID 0x1FFF) whose payloads carry a pattern,
/// so ffprobe reads it as the video it is and no two parts are alike.
struct TsFile {
    head: Vec<u8>,
}

impl TsFile {
    fn new() -> TsFile {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("head.ts");
        let ok = std::process::Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
            .arg("testsrc=size=320x240:rate=24:duration=2")
            .args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mpegts"])
            .arg(&out)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let head = std::fs::read(out).unwrap();
        assert_eq!(head.len() % 188, 0, "whole TS packets");
        TsFile { head }
    }

    /// `len` bytes of the file from `at`.
    fn bytes(&self, at: u64, len: u64) -> Vec<u8> {
        let h = self.head.len() as u64;
        (at..at + len)
            .map(|off| {
                if off < h {
                    return self.head[off as usize];
                }
                let rel = off - h;
                let (packet, pos) = (rel / 188, rel % 188);
                match pos {
                    0 => 0x47,
                    1 => 0x1F,
                    2 => 0xFF,
                    3 => 0x10 | (packet % 16) as u8,
                    _ => ((pos * 31 + packet * 7 + (packet >> 12)) % 251) as u8,
                }
            })
            .collect()
    }
}

/// Resident memory of a process, in bytes (Linux).
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

#[tokio::test]
async fn a_gigabyte_video_uploads_in_parts_resumes_and_streams_by_ranges() {
    let app = spawn_app().await;
    let (_, user) = app.user("Filmmaker").await;
    let pid = app.pid().unwrap();
    let size: u64 = 1024 * MIB;
    let file = TsFile::new();
    // Over the limit: refused before any part.
    let e = user
        .post::<_, Value>(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": 1_073_741_825u64, "file_name": "big.mp4",
                    "content_type": "video/mp4", "category": 8}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(413));
    let pre: Value = user
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": size, "file_name": "big.ts",
                    "content_type": "video/mp2t", "category": 8}),
        )
        .await
        .unwrap();
    let file_id = pre["file_id"].as_str().unwrap().to_owned();
    let chunk = pre["chunk_size"].as_u64().unwrap();
    assert_eq!(chunk, 20_971_520);
    let urls: Vec<String> = pre["pre_signs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(urls.len() as u64, size.div_ceil(chunk));
    let http = reqwest::Client::new();
    let put = |i: usize| {
        let (http, url) = (http.clone(), urls[i].clone());
        let len = chunk.min(size - chunk * i as u64);
        let body = file.bytes(chunk * i as u64, len);
        async move {
            let r = http
                .put(&url)
                .header("content-type", "application/octet-stream")
                .body(body)
                .send()
                .await
                .unwrap();
            assert!(r.status().is_success(), "part {i}: {}", r.status());
        }
    };
    let rss_before = rss(pid);
    // Every other part first, as if the connection was cut midway.
    for i in (0..urls.len()).step_by(2) {
        put(i).await;
    }
    let e = user
        .post::<_, Value>(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": file_id}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(409), "not every part is there");
    // The client asks what is missing and resumes from there.
    let addr: Value = user
        .post(
            "/api/v1/resource/pre-sign/getPreSignAddr",
            &json!({"file_id": file_id}),
        )
        .await
        .unwrap();
    let missing: Vec<usize> = addr["parts_done"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, d)| !d.as_bool().unwrap())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(missing, (1..urls.len()).step_by(2).collect::<Vec<_>>());
    for i in missing {
        put(i).await;
        let c: Value = user
            .post(
                "/api/v1/resource/pre-sign/confirmPart",
                &json!({"file_id": file_id, "pre_sign_url": urls[i]}),
            )
            .await
            .unwrap();
        assert!(c["url"].as_str().is_some());
    }
    let done: Value = user
        .post(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": file_id}),
        )
        .await
        .unwrap();
    assert_eq!(done["status"], 0);
    let url = done["url"].as_str().unwrap().to_owned();
    let grown = rss(pid).saturating_sub(rss_before);
    println!(
        "server RSS grew by {} MiB over a {} MiB upload",
        grown / MIB,
        size / MIB
    );
    assert!(
        grown < 256 * MIB,
        "the server held the file: RSS grew by {grown} bytes"
    );

    // A range, as a video player asks: 206 with exactly those bytes.
    let r = http
        .get(&url)
        .header(
            "range",
            format!("bytes={}-{}", chunk * 3 + 5, chunk * 3 + 20),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 206);
    assert_eq!(
        r.headers()["content-range"].to_str().unwrap(),
        format!("bytes {}-{}/{size}", chunk * 3 + 5, chunk * 3 + 20)
    );
    let body = r.bytes().await.unwrap();
    assert_eq!(&body[..], &file.bytes(chunk * 3 + 5, 16)[..]);
    // Past the end: 416.
    let r = http
        .get(&url)
        .header("range", format!("bytes={size}-"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 416);
    // The whole file, streamed: every byte in order.
    let mut r = http.get(&url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["accept-ranges"], "bytes");
    let (mut got, mut hash) = (0u64, Sha256::new());
    while let Some(c) = r.chunk().await.unwrap() {
        got += c.len() as u64;
        hash.update(&c);
    }
    let mut want = Sha256::new();
    for i in 0..urls.len() as u64 {
        want.update(file.bytes(chunk * i, chunk.min(size - chunk * i)));
    }
    assert_eq!(got, size);
    assert_eq!(hash.finalize(), want.finalize());
    let grown = rss(pid).saturating_sub(rss_before);
    assert!(
        grown < 256 * MIB,
        "serving held the file: RSS grew by {grown} bytes"
    );
}

async fn upload(
    c: &protocol::client::RestClient,
    bytes: &[u8],
    ct: &str,
) -> Result<Value, protocol::client::ClientError> {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": "clip.mp4", "content_type": ct, "category": 8}),
        )
        .await?;
    let url = pre["pre_signs"][0].as_str().unwrap();
    let r = reqwest::Client::new()
        .put(url)
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    c.post(
        "/api/v1/resource/pre-sign/confirm",
        &json!({"file_id": pre["file_id"]}),
    )
    .await
}

#[tokio::test]
async fn a_video_upload_must_be_a_video() {
    use engines::reference::video::{render, VideoKind, VideoSpec};
    let app = spawn_app().await;
    let (_, user) = app.user("Uploader").await;
    // Checked whether it says video/mp4 or (the spec's helper) octet-stream
    // with category 8.
    for ct in ["video/mp4", "application/octet-stream"] {
        let e = upload(&user, b"this is not a video at all", ct)
            .await
            .unwrap_err();
        assert_eq!(
            e.status().and_then(|s| s.key.clone()).as_deref(),
            Some("uploadVideoError"),
            "{ct}"
        );
    }
    let clip = render(
        &VideoSpec {
            width: 160,
            height: 90,
            fps: 12,
            frames: 24,
            seed: 7,
            prompt: "waves".into(),
            negative_prompt: String::new(),
            kind: VideoKind::TextToVideo,
            camera: None,
        },
        &mut |_| {},
        &|| false,
    )
    .unwrap();
    for sent in ["video/mp4", "application/octet-stream"] {
        let done = upload(&user, &clip.mp4, sent).await.unwrap();
        assert_eq!(done["status"], 0);
        let (status, ct, body) = user.get_bytes(done["url"].as_str().unwrap()).await.unwrap();
        assert_eq!(
            (status, ct.as_str(), body.len()),
            (200, "video/mp4", clip.mp4.len()),
            "sent as {sent}, served as a video"
        );
        // A poster for every video: its middle frame.
        let (status, ct, png) = user
            .get_bytes(done["poster_url"].as_str().unwrap())
            .await
            .unwrap();
        assert_eq!((status, ct.as_str()), (200, "image/png"));
        let poster = image::load_from_memory(&png).unwrap();
        assert_eq!((poster.width(), poster.height()), (160, 90));
    }
}

#[tokio::test]
async fn abandoned_uploads_are_swept_with_their_parts() {
    let app = crate::helpers::spawn_app_with(&[
        ("EASEL_UPLOAD_TTL_SECS", "1"),
        ("EASEL_UPLOAD_SWEEP_SECS", "1"),
    ])
    .await;
    let (_, user) = app.user("Quitter").await;
    // Two parts announced; one sent, then the client goes away.
    const CHUNK: u64 = 20 * MIB;
    let size = CHUNK + 10;
    let pre: Value = user
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": size, "file_name": "gone.mp4", "content_type": "video/mp4", "category": 8}),
        )
        .await
        .unwrap();
    let r = reqwest::Client::new()
        .put(pre["pre_signs"][0].as_str().unwrap())
        .body(part_bytes(0, CHUNK))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let parts = app
        .data
        .path()
        .join("objects")
        .join("up")
        .join(pre["file_id"].as_str().unwrap());
    assert!(parts.exists(), "the part is stored at {parts:?}");
    // A confirmed upload of the same moment is kept.
    // (Real audio: audio uploads are checked by decoding.)
    let tone = {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("tone.m4a");
        let ok = std::process::Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
            .arg("sine=frequency=330:duration=1")
            .args(["-c:a", "aac"])
            .arg(&out)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        std::fs::read(out).unwrap()
    };
    let kept = upload(&user, &tone, "audio/mp4").await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let e = user
            .post::<_, Value>(
                "/api/v1/resource/pre-sign/getPreSignAddr",
                &json!({"file_id": pre["file_id"]}),
            )
            .await;
        if e.is_err() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the upload was never swept"
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(!parts.join("part-0").exists(), "its part is deleted");
    let (status, _, body) = user.get_bytes(kept["url"].as_str().unwrap()).await.unwrap();
    assert_eq!((status, body.len()), (200, tone.len()));
}
