//! Upload abuse (issue 23, part 4): types that could run in a browser,
//! bytes that are not what they claim, sizes that lie, decompression bombs
//! (a few bytes claiming a gigapixel), and path tricks in file names and
//! in `/files` URLs. Each is refused, or stored harmlessly, and the server
//! goes on.

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::spawn_app;

async fn pre_sign(c: &RestClient, size: usize, name: &str, ct: &str) -> Result<Value, String> {
    c.post(
        "/api/v1/resource/pre-sign/get",
        &json!({"file_size": size, "file_name": name, "content_type": ct, "category": 46}),
    )
    .await
    .map_err(|e| e.status().and_then(|s| s.key.clone()).unwrap_or_default())
}

async fn put(url: &str, bytes: Vec<u8>) -> u16 {
    reqwest::Client::new()
        .put(url)
        .body(bytes)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn confirm(c: &RestClient, pre: &Value) -> Result<Value, String> {
    c.post(
        "/api/v1/resource/pre-sign/confirm",
        &json!({"file_id": pre["file_id"]}),
    )
    .await
    .map_err(|e| e.to_string())
}

/// Uploads `bytes` in one part; the confirmation's answer or error.
async fn upload(c: &RestClient, bytes: &[u8], name: &str, ct: &str) -> Result<Value, String> {
    let pre = pre_sign(c, bytes.len(), name, ct).await?;
    let status = put(pre["pre_signs"][0].as_str().unwrap(), bytes.to_vec()).await;
    assert_eq!(status, 200, "the part itself is taken");
    confirm(c, &pre).await
}

/// A PNG whose header claims `w` × `h` pixels, with almost no data: what
/// a decompression bomb looks like before it is decoded.
fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    let real = crate::tasks::test_png(4, 4);
    // IHDR's width and height sit at bytes 16..24; its CRC at 29..33.
    let mut b = real.clone();
    b[16..20].copy_from_slice(&w.to_be_bytes());
    b[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&b[12..29]);
    b[29..33].copy_from_slice(&crc.to_be_bytes());
    b
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[tokio::test]
async fn wrong_types_and_bytes_that_lie_about_their_type_are_refused() {
    let app = spawn_app().await;
    let (_, c) = app.user("Types").await;
    for ct in [
        "text/html",
        "image/svg+xml",
        "application/javascript",
        "text/xml",
    ] {
        assert_eq!(
            pre_sign(&c, 10, "x.png", ct).await.unwrap_err(),
            "InvalidParams",
            "{ct} is not taken"
        );
    }
    let page = b"<html><script>alert(document.cookie)</script></html>".to_vec();
    let e = upload(&c, &page, "x.png", "image/png").await.unwrap_err();
    assert!(e.contains("not a readable image"), "{e}");
    // Sent as bytes, an HTML file is served as bytes, never as a page.
    let done = upload(&c, &page, "page.html", "application/octet-stream")
        .await
        .unwrap();
    let (status, ct, _) = c.get_bytes(done["url"].as_str().unwrap()).await.unwrap();
    assert_eq!(status, 200);
    assert!(!ct.contains("html"), "served as {ct}");
}

#[tokio::test]
async fn sizes_that_lie_are_refused() {
    let app = spawn_app().await;
    let (_, c) = app.user("Sizes").await;
    let png = crate::tasks::test_png(8, 8);
    // Declared smaller, sent bigger; declared bigger, sent smaller.
    for declared in [png.len() - 10, png.len() + 10] {
        let pre = pre_sign(&c, declared, "x.png", "image/png").await.unwrap();
        let status = put(pre["pre_signs"][0].as_str().unwrap(), png.clone()).await;
        assert_eq!(status, 400, "declared {declared}, sent {}", png.len());
        let e = confirm(&c, &pre).await.unwrap_err();
        assert!(e.contains("not every part"), "{e}");
    }
    // Bigger than any upload may be: refused before a byte is sent.
    assert_eq!(
        pre_sign(&c, 1 << 40, "x.png", "image/png")
            .await
            .unwrap_err(),
        "PayloadTooLarge"
    );
    // A part bigger than a part may be is cut off by the body limit.
    let pre = pre_sign(&c, 100, "x.png", "image/png").await.unwrap();
    let status = put(pre["pre_signs"][0].as_str().unwrap(), vec![0u8; 64 << 20]).await;
    assert!(status == 413 || status == 400, "{status}");
}

#[tokio::test]
async fn decompression_bombs_are_refused_from_their_header() {
    let app = spawn_app().await;
    let (_, c) = app.user("Bombs").await;
    for (w, h) in [(100_000, 100_000), (8193, 16), (16, 1 << 30)] {
        let e = upload(&c, &png_claiming(w, h), "bomb.png", "image/png")
            .await
            .unwrap_err();
        assert!(e.contains("8192"), "{w}x{h}: {e}");
    }
    // And the server is well.
    assert!(
        upload(&c, &crate::tasks::test_png(8, 8), "ok.png", "image/png")
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn path_tricks_in_names_and_urls_stay_inside_the_uploads() {
    let app = spawn_app().await;
    let (_, c) = app.user("Paths").await;
    let png = crate::tasks::test_png(8, 8);
    for name in [
        "../../../etc/passwd.png",
        "..\\..\\windows\\win.ini.png",
        "/etc/shadow.png",
        "%2e%2e%2fx.png",
        "a\u{0}b.png",
        ".hidden.png",
        "..",
    ] {
        let done = upload(&c, &png, name, "image/png").await.unwrap();
        let url = done["url"].as_str().unwrap();
        let path = url.split("/files/").nth(1).unwrap();
        let parts: Vec<&str> = path.split('/').collect();
        assert_eq!(parts.len(), 3, "{name} -> {url}");
        assert_eq!(parts[0], "u", "{name} -> {url}");
        let file = parts[2];
        assert!(
            !file.starts_with('.')
                && file
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch)),
            "{name} -> {file}"
        );
        let (status, _, bytes) = c.get_bytes(url).await.unwrap();
        assert_eq!((status, bytes.len()), (200, png.len()), "{name}");
    }
    // Walking out of the store through /files finds nothing.
    let data = app.data.path().to_string_lossy().into_owned();
    for path in [
        "/files/../../../../etc/passwd".to_owned(),
        "/files/%2e%2e/%2e%2e/%2e%2e/etc/passwd".to_owned(),
        "/files/u/..%2f..%2f..%2fetc%2fpasswd".to_owned(),
        "/files/%2fetc%2fpasswd".to_owned(),
        format!("/files/{data}/easel.redb"),
    ] {
        let (status, _, bytes) = c.get_bytes(&path).await.unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(status == 404 || status == 400, "{path}: {status}");
        assert!(!text.contains("root:"), "{path}");
    }
}
