//! The square: publishing, detail, feeds and their paging, likes, follows,
//! visibility on every call that can reveal a work, notifications, search
//! and its rebuild, limits.

use std::collections::HashSet;
use std::time::Duration;

use protocol::client::RestClient;
use protocol::frame::FrameType;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp, WAIT};
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

const FAST: &[(&str, &str)] = &[
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_SQUARE_RANK_MS", "100"),
    ("EASEL_SEARCH_COMMIT_MS", "20"),
];

async fn app() -> TestApp {
    spawn_app_with(FAST).await
}

struct User {
    id: String,
    client: RestClient,
    token: String,
}

async fn user(app: &TestApp, name: &str) -> User {
    let (d, client) = app.user(name).await;
    User {
        id: d.account.id,
        client,
        token: d.token,
    }
}

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The (http status, code, key) of a refused call.
async fn refused(c: &RestClient, path: &str, body: Value) -> (u16, i32, String) {
    let (http, env) = c.post_raw::<_, Value>(path, &body).await.unwrap();
    assert!(
        !env.status.is_ok(),
        "{path} should have been refused: {:?}",
        env.data
    );
    (
        http,
        env.status.code,
        env.status.key.clone().unwrap_or_default(),
    )
}

/// A finished picture task of `c`'s.
async fn finished_task(c: &RestClient, prompt: &str, seed: i64) -> String {
    let sd = checkpoint(c, "sd").await;
    let id = c
        .create_task("/api/v1/task/create", &t2i(&sd, prompt, seed))
        .await
        .unwrap();
    let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, protocol::task::TaskStatus::Success, "{t:?}");
    id
}

async fn article(c: &RestClient, title: &str, visibility: &str) -> String {
    let v = post(
        c,
        "/api/v1/post/article/add",
        json!({"title": title, "content": format!("About {title}."), "tags": ["words"], "visibility": visibility}),
    )
    .await;
    v["id"].as_str().unwrap().to_owned()
}

fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn feed(c: &RestClient, order: &str, cursor: Option<&str>) -> Value {
    post(
        c,
        "/api/v1/square/v3/recommend",
        json!({"order_by": order, "time_type": "all", "page_size": 5, "cursor": cursor}),
    )
    .await
}

/// Every id of a feed, page by page, with `between` run after each page.
async fn page_all<F, Fut>(c: &RestClient, order: &str, mut between: F) -> Vec<String>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for i in 0.. {
        let p = feed(c, order, cursor.as_deref()).await;
        out.extend(ids(&p));
        between(i).await;
        match p["next_cursor"].as_str() {
            Some(n) => cursor = Some(n.to_owned()),
            None => break,
        }
        assert!(i < 200, "paging does not end");
    }
    out
}

mod lists;
mod publish;
