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

/// A value of `schema` with only its required parts (`components` resolves
/// references): the least body a client written from the description sends.
fn sample(schema: &Value, components: &Value, depth: usize) -> Value {
    assert!(depth < 32, "schema too deep: {schema}");
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        return sample(&components[name], components, depth + 1);
    }
    if let Some(first) = schema["enum"].as_array().and_then(|v| v.first()) {
        return first.clone();
    }
    if schema.get("const").is_some() {
        return schema["const"].clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema[key].as_array().and_then(|v| v.first()) {
            return sample(first, components, depth + 1);
        }
    }
    if let Some(parts) = schema["allOf"].as_array() {
        let mut out = serde_json::Map::new();
        for part in parts {
            if let Value::Object(m) = sample(part, components, depth + 1) {
                out.extend(m);
            }
        }
        return Value::Object(out);
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.as_str(),
        // `[T, "null"]`: a value of T.
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema["properties"].is_object() => "object",
        _ => "any",
    };
    match kind {
        "string" => Value::from("x"),
        "integer" => Value::from(schema["minimum"].as_i64().unwrap_or(0).max(1)),
        "number" => Value::from(1.0),
        "boolean" => Value::from(false),
        "null" => Value::Null,
        "array" => {
            let min = schema["minItems"].as_u64().unwrap_or(0) as usize;
            Value::Array(vec![sample(&schema["items"], components, depth + 1); min])
        }
        "object" => {
            let mut out = serde_json::Map::new();
            for name in schema["required"].as_array().into_iter().flatten() {
                let name = name.as_str().unwrap();
                let prop = &schema["properties"][name];
                out.insert(name.to_owned(), sample(prop, components, depth + 1));
            }
            Value::Object(out)
        }
        _ => Value::Object(serde_json::Map::new()),
    }
}

/// Calls that would end the caller's token or account (the test's caller).
const ENDS_THE_CALLER: &[&str] = &["logout", "deletion", "delete-account", "password"];

/// The message of a body the server's JSON reading refused (serde's).
fn read_error(answer: &Value) -> Option<&str> {
    let msg = answer["status"]["msg"].as_str().unwrap_or_default();
    (answer["status"]["code"] == 40000 && msg.contains(" at line ") && msg.contains(" column "))
        .then_some(msg)
}

/// `path` with its parameters filled.
fn filled(path: &str) -> String {
    path.split('{')
        .enumerate()
        .map(|(i, p)| match p.split_once('}') {
            Some((_, rest)) if i > 0 => format!("x{rest}"),
            _ => p.to_owned(),
        })
        .collect()
}

async fn send(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    method: &str,
    path: &str,
    body: &Value,
) -> Value {
    let url = format!("{base}{}", filled(path));
    let req = if method == "put" {
        http.put(&url)
    } else {
        http.post(&url)
    };
    let res = req.header("token", token).json(body).send().await.unwrap();
    res.json::<Value>().await.unwrap_or(Value::Null)
}

/// Every call whose body the description types accepts the least body its
/// schema allows: the server's JSON reading never refuses it (a refusal by
/// the call's own rules, a missing object or a permission is fine). And a
/// body without one of the schema's required fields, when the reading
/// refuses it, is refused for that field.
#[tokio::test]
async fn each_typed_body_is_what_the_server_reads() {
    let app = spawn_app().await;
    let operator = app.operator().await;
    let token = operator.token().unwrap().to_owned();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let doc: Value = http
        .get(format!("{}/api/openapi.json", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let components = &doc["components"]["schemas"];
    let (mut typed, mut missing_refused) = (0, 0);
    let mut wrong = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if ENDS_THE_CALLER.iter().any(|w| path.contains(w)) {
            continue;
        }
        for (method, op) in item.as_object().unwrap() {
            let schema = &op["requestBody"]["content"]["application/json"]["schema"];
            if schema["$ref"].is_null() {
                continue;
            }
            typed += 1;
            let body = sample(schema, components, 0);
            let answer = send(&http, &app.base, &token, method, path, &body).await;
            if let Some(msg) = read_error(&answer) {
                wrong.push(format!("{method} {path} {body}: {msg}"));
            }
            // Without its first required field.
            let Some((field, _)) = body.as_object().and_then(|m| m.iter().next()) else {
                continue;
            };
            let mut less = body.clone();
            less.as_object_mut().unwrap().remove(field);
            let answer = send(&http, &app.base, &token, method, path, &less).await;
            if let Some(msg) = read_error(&answer) {
                if msg.contains(&format!("missing field `{field}`")) {
                    missing_refused += 1;
                } else {
                    wrong.push(format!("{method} {path} {less}: {msg}"));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "bodies built from the description, refused when read:\n{}",
        wrong.join("\n")
    );
    assert!(typed > 300, "{typed} typed bodies");
    assert!(missing_refused > 0, "no required field is really required");
    // The caller was signed in throughout (no call above ended its token).
    let info = send(
        &http,
        &app.base,
        &token,
        "post",
        "/api/v1/account/info",
        &Value::Null,
    )
    .await;
    assert_eq!(info["status"]["code"], 10000, "{info}");
}
