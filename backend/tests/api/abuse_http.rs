//! Abuse over HTTP (issue 23, part 4): oversize and too many headers,
//! slow clients (slowloris) held off by the server's timeouts while others
//! are served, cookie flags, the security headers (CSP) on every kind of
//! response, and upload abuse: wrong types, lying sizes, decompression
//! bombs and path tricks in file names. (Socket abuse is in socket.rs,
//! login and code guessing in accounts_security.rs.)

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{spawn_app, spawn_app_with, TestApp};

/// Far above the server's own timeouts: only a server that never lets go fails.
const HOLD_OFF: Duration = Duration::from_secs(60);

fn addr(app: &TestApp) -> String {
    app.base.trim_start_matches("http://").to_owned()
}

/// Writes `request` and reads until the server closes (or HOLD_OFF); the
/// answer's text.
async fn raw(app: &TestApp, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr(app)).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(HOLD_OFF, s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

async fn pong(app: &TestApp) {
    let r = reqwest::get(format!("{}/api/v1/ping", app.base))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn oversize_and_too_many_headers_are_refused_and_the_server_goes_on() {
    let app = spawn_app().await;
    let big = format!(
        "GET /api/v1/ping HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
        "a".repeat(256 * 1024)
    );
    let answer = raw(&app, big.as_bytes()).await;
    let status = answer.lines().next().unwrap_or("");
    assert!(
        status.contains(" 431 ") || status.contains(" 400 ") || answer.is_empty(),
        "oversize header: {status:?}"
    );
    let mut many = String::from("GET /api/v1/ping HTTP/1.1\r\nHost: x\r\n");
    for i in 0..500 {
        many.push_str(&format!("X-H{i}: v\r\n"));
    }
    many.push_str("Connection: close\r\n\r\n");
    let answer = raw(&app, many.as_bytes()).await;
    let status = answer.lines().next().unwrap_or("");
    assert!(
        status.contains(" 431 ") || status.contains(" 400 ") || answer.is_empty(),
        "too many headers: {status:?}"
    );
    pong(&app).await;
}

/// Sends `fast` at once, then `slow` one byte every 400 ms; answers what
/// the server said and whether it closed the connection.
async fn trickle(addr: &str, fast: &str, slow: &str) -> (String, bool) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let deadline = tokio::time::Instant::now() + HOLD_OFF;
    s.write_all(fast.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    for b in slow.bytes() {
        if s.write_all(&[b]).await.is_err() {
            break;
        }
        let mut buf = [0u8; 1024];
        match tokio::time::timeout(Duration::from_millis(400), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&out).into_owned(), true),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
        if tokio::time::Instant::now() > deadline {
            return (String::from_utf8_lossy(&out).into_owned(), false);
        }
    }
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(HOLD_OFF, s.read_to_end(&mut rest))
        .await
        .is_ok();
    out.extend(rest);
    (String::from_utf8_lossy(&out).into_owned(), closed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_are_held_off_by_timeouts_while_others_are_served() {
    let app = spawn_app_with(&[("EASEL_BODY_TIMEOUT_MS", "2000")]).await;
    // Slowloris: request heads that never end, many at once.
    let fast = "GET /api/v1/ping HTTP/1.1\r\nHost: x\r\n";
    let slow = format!("X-A: {}", "b".repeat(400));
    let mut held = Vec::new();
    for _ in 0..20 {
        let (slow, to) = (slow.clone(), addr(&app));
        held.push(tokio::spawn(async move { trickle(&to, fast, &slow).await }));
    }
    // Meanwhile the server answers others.
    tokio::time::sleep(Duration::from_secs(1)).await;
    for _ in 0..5 {
        pong(&app).await;
    }
    for h in held {
        let (said, closed) = h.await.unwrap();
        assert!(closed, "a never-ending head is cut off: {said:?}");
        assert!(
            said.is_empty() || said.starts_with("HTTP/1.1 408"),
            "{said:?}"
        );
    }
    // A body that never ends: the head is whole, the body trickles.
    let body = format!("{{\"email\": \"a@example.com\"{}", " ".repeat(400));
    let head = format!(
        "POST /api/v1/account/login-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len() + 1000
    );
    let (said, closed) = trickle(&addr(&app), &head, &body).await;
    assert!(closed, "a never-ending body is cut off: {said:?}");
    pong(&app).await;
}

fn cookies(res: &reqwest::Response) -> Vec<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

fn cookie<'a>(all: &'a [String], name: &str) -> &'a str {
    all.iter()
        .find(|c| c.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no cookie {name} in {all:?}"))
}

#[tokio::test]
async fn cookies_carry_their_flags_and_secure_behind_https() {
    let app = spawn_app().await;
    let http = reqwest::Client::new();
    let email = format!("flags-{}@example.com", crate::helpers::rand_suffix());
    for (proto, secure) in [(None, false), (Some("https"), true)] {
        let mut req = http
            .post(format!("{}/api/v1/account/sign-up", app.base))
            .json(&json!({"email": format!("{}{email}", secure as u8), "password": crate::helpers::PASSWORD, "name": "Flags"}));
        if let Some(p) = proto {
            req = req.header("X-Forwarded-Proto", p);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 200);
        let all = cookies(&res);
        let t = cookie(&all, "T");
        let device = cookie(&all, "deviceId");
        for c in [t, device] {
            for flag in ["Path=/", "SameSite=Lax", "Max-Age="] {
                assert!(c.contains(flag), "{c} lacks {flag}");
            }
            assert_eq!(c.contains("Secure"), secure, "{c}");
        }
        // The device id is never read by scripts; the token cookie is (the
        // web app restores its token from it: docs/security.md says why).
        assert!(device.contains("HttpOnly"), "{device}");
    }
}

const CSP_PARTS: [&str; 6] = [
    "default-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
];

fn assert_headers(what: &str, res: &reqwest::Response) {
    let h = |n: &str| {
        res.headers()
            .get(n)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_else(|| panic!("{what}: no {n}"))
    };
    let csp = h("content-security-policy");
    for part in CSP_PARTS {
        assert!(csp.contains(part), "{what}: {csp} lacks {part}");
    }
    assert!(!csp.contains("unsafe-"), "{what}: {csp}");
    assert_eq!(h("x-content-type-options"), "nosniff", "{what}");
    assert_eq!(h("x-frame-options"), "DENY", "{what}");
    assert_eq!(h("referrer-policy"), "same-origin", "{what}");
}

#[tokio::test]
async fn every_kind_of_response_carries_the_security_headers() {
    let web = tempfile::tempdir().unwrap();
    std::fs::write(
        web.path().join("index.html"),
        "<!doctype html><script src=/a.js></script>",
    )
    .unwrap();
    let app = spawn_app_with(&[("EASEL_WEB_DIR", web.path().to_str().unwrap())]).await;
    let (_, client) = app.user("Heads").await;
    let png = crate::tasks::test_png(8, 8);
    let url = client.upload(&png, "h.png", "image/png").await.unwrap();
    let http = reqwest::Client::new();
    let base = &app.base;
    for (what, req) in [
        ("api", http.get(format!("{base}/api/v1/ping"))),
        (
            "api error",
            http.post(format!("{base}/api/v1/account/info")),
        ),
        (
            "unknown api",
            http.get(format!("{base}/api/v1/no/such/call")),
        ),
        ("web app", http.get(format!("{base}/"))),
        ("app route", http.get(format!("{base}/en/some/page"))),
        ("file", http.get(url.clone())),
        (
            "missing file",
            http.get(format!("{base}/files/u/none/x.png")),
        ),
    ] {
        let res = req.send().await.unwrap();
        assert_headers(what, &res);
    }
}
