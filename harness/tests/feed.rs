//! `easel-harness feed` against a small fake square (actix-web, the
//! contract's calls only): set-up signs up, follows and publishes finished
//! tasks by their owners; reads follow cursors; likes never repeat and
//! undos only follow likes; every call the run made is accounted for.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use clap::Parser;
use easel_harness as harness;
use serde_json::{json, Value};

const WORKS: usize = 200;
const ORDERS: [&str; 4] = ["recommend", "follows", "hot", "new"];

#[derive(Default)]
struct Fake {
    accounts: u64,
    tasks: HashMap<String, String>,
    published: HashSet<String>,
    follows: HashMap<String, u64>,
    likes: HashSet<(String, String)>,
    calls: HashMap<&'static str, u64>,
    /// Calls the harness should never make.
    wrong: Vec<String>,
}

type State = web::Data<Arc<Mutex<Fake>>>;

fn ok(data: Value) -> HttpResponse {
    HttpResponse::Ok()
        .json(json!({"status": {"code": 10000, "msg": "ok", "key": null}, "data": data}))
}

fn refuse(msg: &str) -> HttpResponse {
    HttpResponse::BadRequest()
        .json(json!({"status": {"code": 40000, "msg": msg, "key": null}, "data": null}))
}

fn token(req: &HttpRequest) -> String {
    req.headers()
        .get("token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

async fn sign_up(state: State) -> HttpResponse {
    let mut f = state.lock().unwrap();
    f.accounts += 1;
    let n = f.accounts;
    ok(
        json!({"account": {"id": format!("acc{n}"), "name": "h", "email": "h@example.com",
                          "create_at": 0, "status": 1, "device_code": ""},
              "token": format!("tok{n}")}),
    )
}

async fn config() -> HttpResponse {
    ok(json!({"checkpoints": [{"model_ver_no": "m1"}]}))
}

async fn create(state: State, req: HttpRequest) -> HttpResponse {
    let mut f = state.lock().unwrap();
    let id = format!("t{}", f.tasks.len());
    f.tasks.insert(id.clone(), token(&req));
    ok(json!({ "id": id }))
}

async fn progress(state: State, req: HttpRequest, body: web::Json<Value>) -> HttpResponse {
    let f = state.lock().unwrap();
    let me = token(&req);
    let items: Vec<Value> = body["task_ids"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|id| f.tasks.get(*id) == Some(&me))
        .map(|id| json!({"id": id, "status": 3}))
        .collect();
    ok(json!({ "items": items }))
}

async fn feed(state: State, req: HttpRequest, body: web::Json<Value>) -> HttpResponse {
    let mut f = state.lock().unwrap();
    let order = body["order_by"].as_str().unwrap_or("");
    if !ORDERS.contains(&order) || body["time_type"] != "all" {
        f.wrong.push(format!("feed body {body}"));
        return refuse("bad feed body");
    }
    let size = body["page_size"].as_u64().unwrap() as usize;
    let offset: usize = match &body["cursor"] {
        Value::Null => 0,
        Value::String(c) => {
            *f.calls.entry("next_page").or_insert(0) += 1;
            c.parse().unwrap()
        }
        other => {
            f.wrong.push(format!("cursor {other}"));
            return refuse("bad cursor");
        }
    };
    *f.calls.entry("page").or_insert(0) += 1;
    // "follows" shows nothing to an account that follows no one.
    let none = order == "follows" && !f.follows.contains_key(&token(&req));
    let end = if none { 0 } else { (offset + size).min(WORKS) };
    let items: Vec<Value> = (offset.min(end)..end)
        .map(|i| {
            json!({"obj_type": 4, "id": format!("w{i}"), "cover": {"url": "/x.png"},
                        "author": {"id": format!("author{}", i % 7), "name": "a"}})
        })
        .collect();
    let next = (end < WORKS && !none).then(|| end.to_string());
    ok(json!({"items": items, "next_cursor": next}))
}

async fn follow(state: State, req: HttpRequest, body: web::Json<Value>) -> HttpResponse {
    let mut f = state.lock().unwrap();
    if !body["account_id"]
        .as_str()
        .is_some_and(|a| a.starts_with("author"))
    {
        f.wrong.push(format!("follow {body}"));
    }
    *f.follows.entry(token(&req)).or_insert(0) += 1;
    ok(Value::Null)
}

async fn like(state: State, req: HttpRequest, body: web::Json<Value>) -> HttpResponse {
    let mut f = state.lock().unwrap();
    let key = (token(&req), body["id"].as_str().unwrap().to_owned());
    if !f.likes.insert(key) {
        f.wrong.push("a like of a liked work".into());
    }
    *f.calls.entry("like").or_insert(0) += 1;
    ok(Value::Null)
}

async fn unlike(state: State, req: HttpRequest, body: web::Json<Value>) -> HttpResponse {
    let mut f = state.lock().unwrap();
    let key = (token(&req), body["id"].as_str().unwrap().to_owned());
    if !f.likes.remove(&key) {
        f.wrong.push("an undo of a work not liked".into());
    }
    *f.calls.entry("like_cancel").or_insert(0) += 1;
    ok(Value::Null)
}

async fn comment(state: State, body: web::Json<Value>) -> HttpResponse {
    let mut f = state.lock().unwrap();
    if body["obj_type"] != 4 || !body["parent_id"].is_null() || body["content"] == "" {
        f.wrong.push(format!("comment {body}"));
    }
    *f.calls.entry("comment").or_insert(0) += 1;
    ok(json!({"id": "c1"}))
}

async fn publish(state: State, req: HttpRequest, body: web::Json<Value>) -> HttpResponse {
    let mut f = state.lock().unwrap();
    let task = body["task_ids"][0].as_str().unwrap_or("").to_owned();
    if f.tasks.get(&task) != Some(&token(&req)) || !f.published.insert(task.clone()) {
        f.wrong.push(format!("publish of {task}"));
        return refuse("not yours, or published");
    }
    if body["visibility"] != "public" {
        f.wrong.push(format!("publish {body}"));
    }
    *f.calls.entry("publish").or_insert(0) += 1;
    ok(json!({"id": format!("p-{task}")}))
}

/// Starts the fake on its own thread; answers its URL.
fn start(state: Arc<Mutex<Fake>>) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let data = web::Data::new(state);
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(data.clone())
                    .route("/api/v1/account/sign-up", web::post().to(sign_up))
                    .route("/api/v1/task/v2/config/model", web::post().to(config))
                    .route("/api/v1/task/create", web::post().to(create))
                    .route("/api/v1/task/batch-progress", web::post().to(progress))
                    .route("/api/v1/square/v3/recommend", web::post().to(feed))
                    .route("/api/v1/square/v3/artwork/list", web::post().to(feed))
                    .route("/api/v1/account/follow", web::post().to(follow))
                    .route("/api/v1/artwork/like", web::post().to(like))
                    .route("/api/v1/artwork/like-cancel", web::post().to(unlike))
                    .route("/api/v1/comment2/create", web::post().to(comment))
                    .route("/api/v1/post/portfolio/add_v2", web::post().to(publish))
            })
            .workers(1)
            .bind("127.0.0.1:0")
            .unwrap();
            let port = server.addrs()[0].port();
            tx.send(format!("http://127.0.0.1:{port}")).unwrap();
            server.run().await.unwrap();
        });
    });
    rx.recv().unwrap()
}

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: harness::HarnessArgs,
}

#[tokio::test]
async fn a_feed_run_reads_follows_cursors_and_writes_by_the_contract() {
    let state = Arc::new(Mutex::new(Fake::default()));
    let url = start(state.clone());
    let cli = Cli::try_parse_from([
        "harness",
        "feed",
        "--target",
        &url,
        "--rate",
        "200",
        "--write-rate",
        "60",
        "--write-mix",
        "2,1,1",
        "--accounts",
        "6",
        "--follows",
        "2",
        "--duration-secs",
        "1",
    ])
    .unwrap();
    let report = harness::run(&cli.args).await.unwrap();
    let v = serde_json::to_value(&report).unwrap();
    let c = &v["counts"];
    let f = state.lock().unwrap();
    assert!(f.wrong.is_empty(), "{:?}", f.wrong);
    assert_eq!(f.accounts, 6);
    assert_eq!(f.follows.len(), 6, "every account follows");
    assert_eq!(f.follows.values().sum::<u64>(), 12);
    // Every read sent was answered and counted; a quarter followed a cursor.
    assert_eq!(c["read_errors"], 0, "{v}");
    assert_eq!(c["reads_ok"], c["reads_sent"]);
    assert_eq!(c["reads_sent"], 200);
    assert_eq!(
        c["first_pages"].as_u64().unwrap() + c["next_pages"].as_u64().unwrap(),
        200
    );
    // Set-up read one first page per order and followed cursors after it.
    let seed_pages = v["setup"]["seed_pages"].as_u64().unwrap();
    assert_eq!(
        c["next_pages"].as_u64().unwrap() + seed_pages - 4,
        f.calls["next_page"]
    );
    // Reads 3, 7, 11, ... are due as next pages: 50 of 200, each one a
    // next page or, when no cursor waited, a first page instead.
    assert_eq!(
        c["next_pages"].as_u64().unwrap() + c["next_page_fallbacks"].as_u64().unwrap(),
        50
    );
    assert!(c["next_pages"].as_u64().unwrap() > 0, "{v}");
    // Set-up's seed pages are not in the window's figures.
    assert_eq!(
        f.calls["page"],
        200 + v["setup"]["seed_pages"].as_u64().unwrap()
    );
    assert_eq!(c["empty_pages"], 0, "follows feeds have pages: {v}");
    // Writes: the mix's shares, each made as the fake counted it.
    assert_eq!(c["write_errors"], 0, "{v}");
    assert_eq!(c["writes_sent"], 60);
    for (count, call) in [
        ("likes", "like"),
        ("like_cancels", "like_cancel"),
        ("comments", "comment"),
        ("publishes", "publish"),
    ] {
        assert_eq!(
            c[count].as_u64().unwrap(),
            f.calls.get(call).copied().unwrap_or(0),
            "{count}"
        );
    }
    assert_eq!(
        c["likes"].as_u64().unwrap() + c["like_cancels"].as_u64().unwrap(),
        30
    );
    assert_eq!(
        (c["comments"].as_u64(), c["publishes"].as_u64()),
        (Some(15), Some(15))
    );
    assert_eq!(
        v["setup"]["publish_tasks_finished"], 17,
        "15 publishes and a tenth"
    );
    assert_eq!(v["publish_tasks_left"], 2);
    assert_eq!(v["latency_ms"]["count"], 200);
    assert_eq!(v["write_latency_ms"]["count"], 60);
    for k in [
        "reads_per_sec",
        "writes_per_sec",
        "server_cpu_secs",
        "cpu_us_per_page",
    ] {
        assert!(v[k].as_f64().unwrap() >= 0.0, "{k}: {v}");
    }
    assert_eq!(v["order_latency_ms"].as_object().unwrap().len(), 4);
    assert_eq!(v["errors"], json!({}));
}

#[tokio::test]
async fn an_empty_square_is_a_set_up_error() {
    // A server with no feed at all: the seed read fails and says so.
    let state = Arc::new(Mutex::new(Fake::default()));
    let url = start(state);
    let cli = Cli::try_parse_from([
        "harness",
        "feed",
        "--target",
        &url,
        "--accounts",
        "1",
        "--feed-paths",
        "/nope",
    ])
    .unwrap();
    let e = harness::run(&cli.args).await.unwrap_err().to_string();
    assert!(e.contains("reading the square"), "{e}");
}

#[test]
fn feed_arguments_parse_with_their_defaults_and_refuse_a_bad_mix() {
    let a = Cli::try_parse_from(["harness", "feed", "--target", "http://x"])
        .unwrap()
        .args;
    assert_eq!(a.write_rate, 200.0);
    assert_eq!(a.write_mix.to_string(), "70,20,10");
    assert_eq!(
        (a.accounts, a.follows, a.max_pages, a.page_size),
        (100, 10, 5, 20)
    );
    assert_eq!(a.next_page_pct, 25.0);
    assert_eq!(a.orders, ["recommend", "follows", "hot", "new"]);
    assert_eq!(
        a.feed_paths,
        [
            "/api/v1/square/v3/recommend",
            "/api/v1/square/v3/artwork/list"
        ]
    );
    assert_eq!(a.publish_tasks, None);
    let b = Cli::try_parse_from([
        "harness",
        "feed",
        "--target",
        "http://x",
        "--write-mix",
        "5,0,5",
        "--orders",
        "new,hot",
        "--publish-tasks",
        "9",
    ])
    .unwrap()
    .args;
    assert_eq!((b.write_mix.likes, b.write_mix.publishes), (5, 5));
    assert_eq!(b.orders, ["new", "hot"]);
    assert_eq!(b.publish_tasks, Some(9));
    for bad in ["70,30", "0,0,0", "x,1,1"] {
        assert!(
            Cli::try_parse_from([
                "harness",
                "feed",
                "--target",
                "http://x",
                "--write-mix",
                bad
            ])
            .is_err(),
            "{bad}"
        );
    }
}
