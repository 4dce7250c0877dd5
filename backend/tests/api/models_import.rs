//! Model imports from a URL (issue 19): private addresses refused unless
//! allow-listed, redirects re-checked, the size limit, and a page's
//! linked file recommended.

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{spawn_app, spawn_app_with};
use crate::models::{key, lora, sha};

/// A fake file host: `/lora.safetensors`, `/big` (announces more than the
/// limit), `/hop` (redirects to the file), `/away` (redirects to another
/// local address), `/page` (an HTML page linking the file).
async fn fake_host(file: Vec<u8>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let file = file.clone();
            tokio::spawn(async move {
                let mut req = Vec::new();
                let mut buf = [0u8; 1024];
                while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                    let Ok(n) = sock.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    req.extend_from_slice(&buf[..n]);
                }
                let line = String::from_utf8_lossy(&req)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned();
                let path = line.split(' ').nth(1).unwrap_or("/").to_owned();
                let (head, body): (String, Vec<u8>) = match path.as_str() {
                    "/lora.safetensors" => (
                        format!("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\n", file.len()),
                        file,
                    ),
                    "/big" => (
                        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 300000\r\n".into(),
                        vec![0u8; 300_000],
                    ),
                    "/hop" => ("HTTP/1.1 302 Found\r\nLocation: /lora.safetensors\r\nContent-Length: 0\r\n".into(), vec![]),
                    "/away" => (
                        format!("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.2:{port}/lora.safetensors\r\nContent-Length: 0\r\n"),
                        vec![],
                    ),
                    "/page" => {
                        let html = r#"<html><head><title>ignored</title><meta property="og:title" content="My Char LoRA"><meta property="og:description" content="A character &amp; her style."></head><body><a href="/lora.safetensors">Download</a></body></html>"#;
                        (
                            format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n", html.len()),
                            html.as_bytes().to_vec(),
                        )
                    }
                    _ => ("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n".into(), vec![]),
                };
                let _ = sock
                    .write_all(format!("{head}Connection: close\r\n\r\n").as_bytes())
                    .await;
                let _ = sock.write_all(&body).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    port
}

#[tokio::test]
async fn imports_reach_only_allowed_hosts_within_the_size_limit() {
    let bytes = lora();
    let port = fake_host(bytes.clone()).await;
    let file_url = format!("http://127.0.0.1:{port}/lora.safetensors");

    // Without an allow-list: loopback, IPv6 loopback, a name that resolves
    // to loopback and non-http schemes are refused.
    let app = spawn_app().await;
    let (_, alice) = app.user("Alice").await;
    for url in [
        file_url.clone(),
        format!("http://[::1]:{port}/lora.safetensors"),
        format!("http://localhost:{port}/lora.safetensors"),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "file:///etc/passwd".to_owned(),
        "ftp://example.com/x.safetensors".to_owned(),
    ] {
        let e = alice
            .post::<_, Value>(
                "/api/v1/model/import/submit",
                &json!({"url": url, "model_type": "lora"}),
            )
            .await
            .unwrap_err();
        assert_eq!(key(&e), "modelImportRefused", "{url}");
        let e = alice
            .post::<_, Value>("/api/v1/model/recommend/byUrl", &json!({"url": url}))
            .await
            .unwrap_err();
        assert_eq!(key(&e), "modelImportRefused", "{url}");
    }
    drop(app);

    // Allow-listed: imported and checked like an upload; a redirect to
    // another private address is checked again and refused.
    let allow = format!("127.0.0.1:{port}");
    let app = spawn_app_with(&[
        ("EASEL_MODEL_IMPORT_HOSTS", allow.as_str()),
        ("EASEL_MAX_MODEL_UPLOAD_BYTES", "200000"),
    ])
    .await;
    let (_, alice) = app.user("Alice").await;
    let made: Value = alice
        .post(
            "/api/v1/model/import/submit",
            &json!({"url": file_url, "name": "Imported", "model_type": "lora"}),
        )
        .await
        .unwrap();
    assert_eq!(made["sha256"], sha(&bytes));
    let detail: Value = alice
        .post(
            "/api/v1/model/detail",
            &json!({"model_id": made["model_id"]}),
        )
        .await
        .unwrap();
    assert_eq!(detail["versions"][0]["source"], "import");
    assert_eq!(detail["base_model"], "sd");
    let again: Value = alice
        .post(
            "/api/v1/model/import/submit",
            &json!({"url": format!("http://127.0.0.1:{port}/hop"), "name": "Hopped", "model_type": "lora"}),
        )
        .await
        .unwrap();
    assert_eq!(again["sha256"], sha(&bytes));
    let e = alice
        .post::<_, Value>(
            "/api/v1/model/import/submit",
            &json!({"url": format!("http://127.0.0.1:{port}/away"), "model_type": "lora"}),
        )
        .await
        .unwrap_err();
    assert_eq!(key(&e), "modelImportRefused");
    let e = alice
        .post::<_, Value>(
            "/api/v1/model/import/submit",
            &json!({"url": format!("http://127.0.0.1:{port}/big"), "model_type": "lora"}),
        )
        .await
        .unwrap_err();
    assert_eq!(key(&e), "modelFileTooLarge");
    // Uploads obey the same limit.
    let e = alice
        .post::<_, Value>(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": 200_001, "file_name": "big.safetensors",
                    "content_type": "application/octet-stream", "category": 60}),
        )
        .await
        .unwrap_err();
    assert_eq!(key(&e), "modelFileTooLarge");

    // Proposals from a page: its title and description, and the linked file's facts.
    let p: Value = alice
        .post(
            "/api/v1/model/recommend/byUrl",
            &json!({"url": format!("http://127.0.0.1:{port}/page")}),
        )
        .await
        .unwrap();
    assert_eq!(p["name"], "My Char LoRA");
    assert_eq!(p["description"], "A character & her style.");
    assert_eq!(p["model_type"], "lora");
    assert_eq!(p["base_model"], "sd");
    assert_eq!(p["trained_words"], json!(["mychar", "1girl"]));
    assert_eq!(p["size"], bytes.len());
    assert_eq!(p["file_url"], file_url);
}
