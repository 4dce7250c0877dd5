//! `GET /api/openapi.json` (DESIGN.md Contracts) from the real binary: every
//! documented call has a summary and is really routed, and every unknown
//! route, under any prefix, answers the envelope's 404.

use std::time::Duration;

use serde_json::Value;

use crate::helpers::spawn_app;

/// The message of the table's own 404 (`routes::system::not_found`).
const NO_ROUTE: &str = "no such API route";

#[tokio::test]
async fn openapi_describes_every_routed_call() {
    let app = spawn_app().await;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = http
        .get(format!("{}/api/openapi.json", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let doc: Value = res.json().await.unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(
        doc["components"]["securitySchemes"]["token"]["name"],
        "token"
    );
    let mut count = 0;
    let mut unrouted = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            count += 1;
            assert!(
                !op["summary"].as_str().unwrap_or_default().is_empty(),
                "{method} {path}: no summary"
            );
            // Fill path parameters; send no body and no token: the call
            // refuses (NeedLogin, InvalidParams, ...), but it is routed.
            let mut url = String::new();
            let mut in_param = false;
            for c in path.chars() {
                match c {
                    '{' => {
                        in_param = true;
                        url.push('x');
                    }
                    '}' => in_param = false,
                    _ if in_param => {}
                    _ => url.push(c),
                }
            }
            let url = format!("{}{url}", app.base);
            let req = match method.as_str() {
                "get" => http.get(&url),
                "post" => http.post(&url),
                "put" => http.put(&url),
                other => panic!("unexpected method {other}"),
            };
            let res = req.send().await.unwrap();
            let status = res.status().as_u16();
            let body = res.text().await.unwrap_or_default();
            if status == 404 && body.contains(NO_ROUTE) {
                unrouted.push(format!("{method} {path}"));
            }
            assert!(
                status < 500 || status == 503,
                "{method} {path}: {status} {body}"
            );
        }
    }
    assert!(count > 500, "{count} operations");
    assert!(
        unrouted.is_empty(),
        "documented but not routed: {unrouted:?}"
    );
}

#[tokio::test]
async fn unknown_routes_answer_the_envelope_under_every_prefix() {
    let app = spawn_app().await;
    let http = reqwest::Client::new();
    for (method, path) in [
        ("GET", "/api/nope"),
        ("POST", "/api/nope"),
        ("POST", "/api/v1/nope"),
        ("POST", "/api/v1/task/nope"),
        ("POST", "/api/v1/task/v2/video/nope"),
        ("POST", "/api/v1/im/channel/nope"),
        ("GET", "/api/stream/nope"),
        ("POST", "/api/stream/task/nope"),
        ("POST", "/files/some/key"),
        ("GET", "/s"),
        ("POST", "/s/abc"),
        ("POST", "/searchapi/v1/nope"),
        ("GET", "/searchapi/nope"),
        ("POST", "/log/v2/nope"),
        ("GET", "/nope"),
        ("GET", "/api/v1/account/sign-up"),
        ("GET", "/api/v1/resource/upload/x/1"),
        ("DELETE", "/api/v1/resource/upload/x/1"),
    ] {
        let res = http
            .request(method.parse().unwrap(), format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{method} {path}");
        let body: Value = res
            .json()
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON: {e}"));
        assert_eq!(body["status"]["code"], 40400, "{method} {path}: {body}");
        assert!(body.get("data").is_some(), "{method} {path}");
    }
}

/// A query string or path segment of the wrong type answers the envelope.
#[tokio::test]
async fn bad_query_strings_answer_the_envelope() {
    let app = spawn_app().await;
    let res = reqwest::get(format!("{}/api/v1/task/v2/video/effect-preview", app.base))
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert!(body["status"]["key"].is_string(), "{body}");
}
