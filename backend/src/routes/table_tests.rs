//! The route table and its description cannot drift apart: every route goes
//! through the builder, every operation has a summary, the serving table and
//! the recorded one are the same, and the web app's snapshot of the
//! description is current.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::api::Api;

fn recorded() -> Vec<super::api::Operation> {
    let mut api = Api::recorder();
    super::table(&mut api);
    api.operations()
}

fn description() -> Value {
    serde_json::from_str(super::openapi::json()).unwrap()
}

/// Every (method, path) of the description.
fn described(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            out.push((method.clone(), path.clone(), op.clone()));
        }
    }
    out
}

#[test]
fn no_route_bypasses_the_builder() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/routes");
    let mut offenders = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.extend(
        std::fs::read_dir(dir.join("model"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".rs") || name == "api.rs" || name == "table_tests.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for needle in [
            "web::post()",
            "web::get()",
            "web::put()",
            "web::delete()",
            "web::patch()",
            "web::scope(",
            "web::resource(",
            ".route(",
            "ServiceConfig",
        ] {
            if text.contains(needle) && !(name == "mod.rs" && needle == "ServiceConfig") {
                offenders.push(format!("{name}: {needle}"));
            }
        }
    }
    // Outside routes/, only the socket's upgrade is registered (not REST).
    let app =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app.rs")).unwrap();
    assert_eq!(app.matches(".route(").count(), 2, "app.rs: /ws and / only");
    assert!(
        offenders.is_empty(),
        "routes registered around the builder (no OpenAPI description): {offenders:?}"
    );
}

#[test]
fn every_operation_is_described_once_with_a_summary() {
    let ops = recorded();
    assert!(ops.len() > 500, "{} operations", ops.len());
    let mut seen = BTreeSet::new();
    for op in &ops {
        assert!(
            seen.insert((op.method, op.path.clone())),
            "{} {} registered twice (the second is never reached)",
            op.method.as_str(),
            op.path
        );
        assert!(op.path.starts_with('/'), "{}", op.path);
        assert!(!op.tag.is_empty());
    }
    let doc = description();
    assert_eq!(doc["openapi"], "3.1.0");
    let described = described(&doc);
    assert_eq!(
        described.len(),
        ops.len(),
        "documented operations == registrations"
    );
    for (method, path, op) in &described {
        let summary = op["summary"].as_str().unwrap_or_default();
        assert!(!summary.trim().is_empty(), "{method} {path}: no summary");
        assert!(op["tags"][0].is_string(), "{method} {path}: no tag");
        assert!(op["responses"]["200"].is_object(), "{method} {path}");
        assert!(op["responses"]["default"].is_object(), "{method} {path}");
        for p in path.split('{').skip(1) {
            let name = p.split('}').next().unwrap();
            assert!(
                op["parameters"]
                    .as_array()
                    .is_some_and(|ps| ps.iter().any(|x| x["name"] == name && x["in"] == "path")),
                "{method} {path}: path parameter {name} undeclared"
            );
        }
    }
    // The contracts' calls are there, with their types.
    let sign_up = &doc["paths"]["/api/v1/account/sign-up"]["post"];
    assert_eq!(
        sign_up["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/SignUpRequest"
    );
    assert!(doc["components"]["schemas"]["LoginData"].is_object());
    // The most used families name their bodies' and replies' types.
    let schema_of = |m: &str, p: &str, at: &str| -> String {
        let op = &doc["paths"][p][m];
        let s = match at {
            "body" => &op["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            _ => {
                &op["responses"]["200"]["content"]["application/json"]["schema"]["properties"]
                    ["data"]["$ref"]
            }
        };
        s.as_str()
            .unwrap_or_default()
            .trim_start_matches("#/components/schemas/")
            .to_owned()
    };
    for (p, at, name) in [
        ("/api/v1/task/create", "body", "CreateTaskRequest"),
        ("/api/v1/task/progress", "body", "TaskRef"),
        ("/api/v1/task/progress", "reply", "TaskView"),
        ("/api/v1/task/list", "reply", "ListAnswer"),
        ("/api/v1/im/message/send", "body", "SendRequest"),
    ] {
        assert_eq!(schema_of("post", p, at), name, "post {p}: its {at}");
    }
    // Every reference resolves.
    let text = doc.to_string();
    for r in text.split("\"#/components/schemas/").skip(1) {
        let name = r.split('"').next().unwrap();
        assert!(
            doc["components"]["schemas"][name].is_object(),
            "{name} is not a component"
        );
    }
    let typed = described
        .iter()
        .filter(|(_, _, op)| {
            op["requestBody"]["content"]["application/json"]["schema"]["$ref"].is_string()
        })
        .count();
    assert!(typed > 300, "{typed} typed JSON bodies");
    for (m, p) in [
        ("post", "/api/v1/task/create"),
        ("post", "/api/v1/task/batch-progress"),
        ("post", "/api/v1/im/message/send"),
        ("put", "/api/v1/resource/upload/{file_id}/{part}"),
        ("get", "/files/{key}"),
        ("get", "/api/openapi.json"),
        ("post", "/api/v1/square/v3/recommend"),
    ] {
        assert!(doc["paths"][p][m].is_object(), "{m} {p} missing");
    }
}

/// The calls whose success names the type of its `data` (`.reply::<T>()`).
/// The API tests check every answer they receive against it
/// (backend/tests/api/reply_schema.rs). Raise the floor as replies get typed;
/// it may never drop.
const TYPED_REPLIES: usize = 395;

#[test]
fn typed_replies_only_grow() {
    let doc = description();
    let all = described(&doc);
    let typed = all
        .iter()
        .filter(|(_, _, op)| {
            op["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]
                ["$ref"]
                .is_string()
        })
        .count();
    println!("typed replies: {typed} of {}", all.len());
    assert!(
        typed >= TYPED_REPLIES,
        "{typed} calls name their reply's type, fewer than the {TYPED_REPLIES} reached"
    );
}

/// The table that serves is the table described: the same registrations,
/// and actix accepts every pattern.
#[actix_web::test]
async fn the_served_table_is_the_described_one() {
    use std::cell::Cell;
    use std::rc::Rc;
    let served = Rc::new(Cell::new(0usize));
    let count = served.clone();
    let app = actix_web::App::new().configure(move |cfg| {
        let mut api = Api::serve(cfg);
        super::table(&mut api);
        count.set(api.operations().len());
    });
    let _service = actix_web::test::init_service(app).await;
    assert_eq!(served.get(), recorded().len());
}

/// `web/src/api/openapi.json` is the web app's copy (its tests check the
/// calls it makes against it). `EASEL_WRITE_OPENAPI=1` rewrites it.
#[test]
fn the_web_apps_snapshot_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/src/api/openapi.json");
    let now = format!("{}\n", super::openapi::json());
    if std::env::var("EASEL_WRITE_OPENAPI").as_deref() == Ok("1") {
        std::fs::write(&path, &now).unwrap();
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == now,
        "web/src/api/openapi.json is stale: run `EASEL_WRITE_OPENAPI=1 cargo test --workspace \
         --lib routes::table_tests` (or `easel openapi > web/src/api/openapi.json`)"
    );
}
