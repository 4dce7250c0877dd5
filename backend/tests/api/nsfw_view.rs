//! The viewer's NSFW view (issue 20 item 1): the mode is an account
//! setting (`account/profile/edit`, answered by the own profile and
//! `account/info`), visitors send theirs with the request (blur or hide,
//! never show), hide leaves NSFW cards out on the server with full pages
//! and correct cursors on every list, an owner always sees their own works,
//! and cards carry the rating.

use std::collections::HashSet;
use std::time::Duration;

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::*;

const FAST: &[(&str, &str)] = &[
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_SQUARE_RANK_MS", "100"),
    ("EASEL_SEARCH_COMMIT_MS", "20"),
];

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn article(c: &RestClient, title: &str, nsfw: bool) -> String {
    let v = post(
        c,
        "/api/v1/post/article/add",
        json!({"title": title, "content": format!("About {title}."), "visibility": "public", "nsfw": nsfw}),
    )
    .await;
    v["id"].as_str().unwrap().to_owned()
}

/// Every card of a list, page by page (`size` a page): the ids in order,
/// and each page's length.
async fn all_pages(c: &RestClient, path: &str, body: Value, size: u32) -> (Vec<Value>, Vec<usize>) {
    let mut cards = Vec::new();
    let mut lens = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut b = body.clone();
        b["page_size"] = json!(size);
        if let Some(c) = &cursor {
            b["cursor"] = json!(c);
        }
        let page = post(c, path, b).await;
        let items = page["items"].as_array().unwrap().clone();
        lens.push(items.len());
        cards.extend(items);
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return (cards, lens),
        }
    }
    panic!("{path}: the cursor never ended");
}

fn ids(cards: &[Value]) -> Vec<String> {
    cards
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Asserts the list is exactly `want` (in any order), without repeats,
/// and every page but the last was full.
fn exactly(what: &str, cards: &[Value], lens: &[usize], size: usize, want: &HashSet<String>) {
    let got = ids(cards);
    let set: HashSet<String> = got.iter().cloned().collect();
    assert_eq!(set.len(), got.len(), "{what}: repeats {got:?}");
    assert_eq!(&set, want, "{what}");
    if let Some((_, full)) = lens.split_last() {
        assert!(
            full.iter().all(|n| *n == size),
            "{what}: short page {lens:?}"
        );
    }
}

#[tokio::test]
async fn hide_is_an_account_setting_and_the_server_leaves_nsfw_cards_out() {
    let app = spawn_app_with(FAST).await;
    let (a, author) = app.user("Author").await;
    let (v, viewer) = app.user("Viewer").await;
    let own = json!({"account_id": v.account.id});
    let visitor = app.anonymous();
    // Twelve articles by time: every third is safe, the rest NSFW.
    let mut safe = HashSet::new();
    let mut every = HashSet::new();
    for i in 0..12 {
        let nsfw = i % 3 != 0;
        let id = article(&author, &format!("Piece {i}"), nsfw).await;
        every.insert(id.clone());
        if !nsfw {
            safe.insert(id.clone());
        }
        post(&viewer, "/api/v1/artwork/like", json!({"id": id})).await;
    }

    // An account starts at blur; the web app reads it at sign-in.
    let me = post(&viewer, "/api/v1/account/info", json!({})).await;
    assert_eq!(me["nsfw_mode"], "blur");
    let p = post(&viewer, "/api/v1/account/profile", own.clone()).await;
    assert_eq!(
        (&p["nsfw_mode"], &p["show_nsfw"]),
        (&json!("blur"), &json!(false))
    );
    // Another's profile does not tell it.
    let other = post(
        &viewer,
        "/api/v1/account/profile",
        json!({"account_id": a.account.id}),
    )
    .await;
    assert!(other.get("nsfw_mode").is_none_or(Value::is_null), "{other}");

    // Blur: every card comes, rated; NSFW ones say so.
    let home = "/api/v1/artwork/home/list";
    let (cards, lens) = all_pages(&viewer, home, json!({"order_by": "new"}), 5).await;
    exactly("blur, new", &cards, &lens, 5, &every);
    for c in &cards {
        let nsfw = !safe.contains(c["id"].as_str().unwrap());
        assert_eq!(c["nsfw"], nsfw, "{c}");
        assert_eq!(c["rating"], if nsfw { "nsfw" } else { "safe" }, "{c}");
    }

    // A visitor may hide; a visitor's "show" reads as blur.
    let (cards, lens) = all_pages(
        &visitor,
        home,
        json!({"order_by": "new", "nsfw_mode": "hide"}),
        2,
    )
    .await;
    exactly("visitor hide", &cards, &lens, 2, &safe);
    let (cards, lens) = all_pages(
        &visitor,
        home,
        json!({"order_by": "new", "nsfw_mode": "show"}),
        4,
    )
    .await;
    exactly("visitor show", &cards, &lens, 4, &every);
    // An unknown mode is read as none (blur), never a failed feed.
    let (cards, _) = all_pages(
        &visitor,
        home,
        json!({"order_by": "new", "nsfw_mode": 7}),
        20,
    )
    .await;
    assert_eq!(cards.len(), 12);

    // The viewer chooses hide on the account.
    let p = post(
        &viewer,
        "/api/v1/account/profile/edit",
        json!({"nsfw_mode": "hide"}),
    )
    .await;
    assert_eq!(
        (&p["nsfw_mode"], &p["show_nsfw"]),
        (&json!("hide"), &json!(false))
    );
    let me = post(&viewer, "/api/v1/account/info", json!({})).await;
    assert_eq!(me["nsfw_mode"], "hide");
    // Every list leaves NSFW cards out, with full pages; the request's own
    // mode does not override the account's.
    tokio::time::sleep(Duration::from_millis(400)).await;
    for (what, path, body) in [
        ("new", home, json!({"order_by": "new", "nsfw_mode": "show"})),
        ("hot", home, json!({"order_by": "hot"})),
        ("recommend", home, json!({"order_by": "recommend"})),
        (
            "profile works",
            "/api/v1/artwork/list/other",
            json!({"account_id": a.account.id}),
        ),
        (
            "likes",
            "/api/v1/account/like/list",
            json!({"account_id": me["id"]}),
        ),
    ] {
        let (cards, lens) = all_pages(&viewer, path, body, 3).await;
        exactly(what, &cards, &lens, 3, &safe);
    }
    // Search too.
    let found = post(
        &viewer,
        "/api/v1/square/v3/search/list",
        json!({"keyword": "Piece", "kind": "post", "page_size": 60}),
    )
    .await;
    let got: HashSet<String> = ids(found["items"].as_array().unwrap())
        .into_iter()
        .collect();
    assert_eq!(got, safe, "search");

    // The same account elsewhere (another sign-in) is served the same way.
    let l = app
        .client
        .login(me["email"].as_str().unwrap(), PASSWORD)
        .await
        .unwrap();
    let again = app.client.with_token(&l.token);
    let (cards, lens) = all_pages(&again, home, json!({"order_by": "new"}), 5).await;
    exactly("second sign-in", &cards, &lens, 5, &safe);

    // An owner who hides still sees their own works everywhere.
    post(
        &author,
        "/api/v1/account/profile/edit",
        json!({"nsfw_mode": "hide"}),
    )
    .await;
    let (cards, _) = all_pages(&author, home, json!({"order_by": "new"}), 20).await;
    assert_eq!(cards.len(), 12, "the author's own works");
    let (cards, _) = all_pages(&author, "/api/v1/artwork/list", json!({}), 20).await;
    assert_eq!(cards.len(), 12);

    // A bad mode answers a key and changes nothing (not even the name).
    let (http, env) = viewer
        .post_raw::<_, Value>(
            "/api/v1/account/profile/edit",
            &json!({"nsfw_mode": "sideways", "name": "Renamed"}),
        )
        .await
        .unwrap();
    assert_eq!(http, 400);
    assert_eq!(env.status.key.as_deref(), Some("nsfwModeInvalid"));
    assert_eq!(env.status.code, 40180);
    let p = post(&viewer, "/api/v1/account/profile", own.clone()).await;
    assert_eq!(
        (&p["nsfw_mode"], &p["name"]),
        (&json!("hide"), &json!("Viewer"))
    );

    // The old switch stays consistent: show_nsfw true is show, false blur.
    let p = post(
        &viewer,
        "/api/v1/account/profile/edit",
        json!({"show_nsfw": true}),
    )
    .await;
    assert_eq!(
        (&p["nsfw_mode"], &p["show_nsfw"]),
        (&json!("show"), &json!(true))
    );
    let p = post(
        &viewer,
        "/api/v1/account/profile/edit",
        json!({"show_nsfw": false}),
    )
    .await;
    assert_eq!(
        (&p["nsfw_mode"], &p["show_nsfw"]),
        (&json!("blur"), &json!(false))
    );
    let (cards, _) = all_pages(&viewer, home, json!({"order_by": "new"}), 20).await;
    assert_eq!(cards.len(), 12, "blur again: every card");
}

#[tokio::test]
async fn cards_are_rated_from_the_score_and_the_thresholds() {
    // Every score is at least suggestive and none reaches NSFW.
    let app = spawn_app_with(&[
        ("EASEL_NSFW_THRESHOLD", "1"),
        ("EASEL_NSFW_SUGGESTIVE", "0"),
        ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ])
    .await;
    let (_, c) = app.user("Painter").await;
    let sd = crate::tasks::checkpoint(&c, "sd").await;
    let id = c
        .create_task(
            "/api/v1/task/create",
            &crate::tasks::t2i(&sd, "a quiet lake under green hills", 5),
        )
        .await
        .unwrap();
    let t = c.wait_task(&id, crate::tasks::TASK_WAIT).await.unwrap();
    assert!(t.outputs[0].nsfw_score.is_some(), "scored");
    let w = post(
        &c,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [t.id], "title": "Lake", "visibility": "public"}),
    )
    .await;
    let work = w["id"].as_str().unwrap().to_owned();
    let plain = article(&c, "Words", false).await;
    let marked = article(&c, "Marked", true).await;
    let page = post(&c, "/api/v1/artwork/home/list", json!({"order_by": "new"})).await;
    let rating = |id: &str| {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .map(|x| (x["rating"].clone(), x["nsfw"].clone()))
            .unwrap_or_else(|| panic!("{id} missing in {page}"))
    };
    assert_eq!(rating(&work), (json!("suggestive"), json!(false)));
    assert_eq!(rating(&plain), (json!("safe"), json!(false)), "unscored");
    assert_eq!(
        rating(&marked),
        (json!("nsfw"), json!(true)),
        "the author's mark"
    );
    // Suggestive is not hidden by hide.
    post(
        &c,
        "/api/v1/account/profile/edit",
        json!({"nsfw_mode": "hide"}),
    )
    .await;
    let visitor = app.anonymous();
    let page = post(
        &visitor,
        "/api/v1/artwork/home/list",
        json!({"order_by": "new", "nsfw_mode": "hide"}),
    )
    .await;
    let got: HashSet<String> = ids(page["items"].as_array().unwrap()).into_iter().collect();
    assert_eq!(got, [work, plain].into_iter().collect());
}
