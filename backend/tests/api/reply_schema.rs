//! Every JSON answer the API tests receive through the reference client fits
//! the schema its call declares in `/api/openapi.json`: a success (HTTP 200)
//! the call's `200` response (the envelope, `data` of the reply type where
//! the route names one), a failure the `default` one (the envelope). A
//! mismatch panics in the test that made the call, naming the call, the
//! place in the answer and the error, so a declared reply type can't lie.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use protocol::client::{Observer, RestClient};
use serde_json::{json, Value};

/// One described call: its method, its path's segments (`{name}` parts
/// match any text) and its answers' schemas by status (`200`, `default`).
struct Call {
    method: String,
    path: String,
    segments: Vec<String>,
    params: usize,
    responses: Value,
}

pub struct ReplyCheck {
    calls: Vec<Call>,
    components: Value,
    /// Compiled schemas by (call, status key).
    compiled: Mutex<HashMap<(usize, String), Arc<jsonschema::Validator>>>,
}

fn segment_fits(template: &str, actual: &str) -> bool {
    match (template.find('{'), template.rfind('}')) {
        (Some(open), Some(close)) if open < close => {
            let (pre, post) = (&template[..open], &template[close + 1..]);
            actual.len() >= pre.len() + post.len()
                && actual.starts_with(pre)
                && actual.ends_with(post)
        }
        _ => template == actual,
    }
}

impl ReplyCheck {
    pub fn new(doc: &Value) -> ReplyCheck {
        let mut calls = Vec::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("path item") {
                let segments: Vec<String> = path.split('/').map(str::to_owned).collect();
                calls.push(Call {
                    method: method.clone(),
                    path: path.clone(),
                    params: segments.iter().filter(|s| s.contains('{')).count(),
                    segments,
                    responses: op["responses"].clone(),
                });
            }
        }
        ReplyCheck {
            calls,
            components: doc["components"].clone(),
            compiled: Mutex::default(),
        }
    }

    /// The described call `method path` is (the most literal match).
    fn call(&self, method: &str, path: &str) -> Option<usize> {
        let actual: Vec<&str> = path.split('/').collect();
        self.calls
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                c.method == method
                    && c.segments.len() == actual.len()
                    && c.segments
                        .iter()
                        .zip(&actual)
                        .all(|(t, a)| segment_fits(t, a))
            })
            .min_by_key(|(_, c)| c.params)
            .map(|(i, _)| i)
    }

    fn validator(&self, call: usize, status: &str) -> Option<Arc<jsonschema::Validator>> {
        let key = (call, status.to_owned());
        if let Some(v) = self.compiled.lock().unwrap().get(&key) {
            return Some(v.clone());
        }
        let c = &self.calls[call];
        let mut schema = c.responses[status]["content"]["application/json"]["schema"].clone();
        let obj = schema.as_object_mut()?;
        // `#/components/schemas/X` resolves inside this document.
        obj.insert("components".into(), self.components.clone());
        let v = Arc::new(
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&schema)
                .unwrap_or_else(|e| {
                    panic!("{} {}: its schema does not compile: {e}", c.method, c.path)
                }),
        );
        self.compiled.lock().unwrap().insert(key, v.clone());
        Some(v)
    }

    /// Panics when `body` does not fit what `method path` declares for `http`.
    pub fn check(&self, method: &str, path: &str, http: u16, body: &Value) {
        let Some(call) = self.call(method, path) else {
            return; // not a described call (an unknown path answers 404)
        };
        let status = if http == 200 { "200" } else { "default" };
        let Some(v) = self.validator(call, status) else {
            return; // a call that answers another media type
        };
        let errors: Vec<String> = v
            .iter_errors(body)
            .take(5)
            .map(|e| format!("at {}: {e}", e.instance_path()))
            .collect();
        if !errors.is_empty() {
            let mut shown = body.to_string();
            shown.truncate(2000);
            panic!(
                "{method} {path} (described as {}) answered {http} with a body that does not fit \
                 its declared {status} schema:\n  {}\nbody: {shown}",
                self.calls[call].path,
                errors.join("\n  ")
            );
        }
    }
}

static CHECK: OnceLock<Arc<ReplyCheck>> = OnceLock::new();

/// Reads the description `base` serves, once: every app of the test binary
/// serves the same description.
pub async fn fetch(base: &str) {
    if CHECK.get().is_some() {
        return;
    }
    let doc: Value = reqwest::get(format!("{base}/api/openapi.json"))
        .await
        .expect("GET /api/openapi.json")
        .json()
        .await
        .expect("the description is JSON");
    assert_eq!(doc["openapi"], json!("3.1.0"));
    CHECK.get_or_init(|| Arc::new(ReplyCheck::new(&doc)));
}

/// A client of `base` whose every JSON answer is checked (after [`fetch`]).
pub fn checked(base: &str) -> RestClient {
    let check = CHECK.get().expect("reply_schema::fetch first").clone();
    let observer: Observer =
        Arc::new(move |method, path, http, body| check.check(method, path, http, body));
    RestClient::new(base).observed(observer)
}

/// The check itself fails when it should.
#[test]
fn a_reply_that_does_not_fit_is_caught() {
    let doc = json!({
        "openapi": "3.1.0",
        "paths": {"/api/v1/x/{id}": {"post": {"responses": {
            "200": {"content": {"application/json": {"schema": {
                "type": "object", "required": ["data"],
                "properties": {"data": {"$ref": "#/components/schemas/X"}}}}}},
            "default": {"content": {"application/json": {"schema": {"type": "object"}}}}
        }}}},
        "components": {"schemas": {"X": {"type": "object", "required": ["n"],
            "properties": {"n": {"type": "integer"}}}}}
    });
    let check = ReplyCheck::new(&doc);
    check.check("post", "/api/v1/x/7", 200, &json!({"data": {"n": 1}}));
    check.check("post", "/api/v1/x/7", 404, &json!({"data": null}));
    check.check("post", "/api/v1/y", 200, &json!({"data": "unknown call"}));
    let bad = std::panic::catch_unwind(|| {
        check.check("post", "/api/v1/x/7", 200, &json!({"data": {"n": "1"}}))
    });
    let msg = bad.unwrap_err();
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("/data/n"), "{msg}");
}
