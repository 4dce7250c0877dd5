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

#[tokio::test]
async fn publish_a_task_and_see_it_everywhere() {
    let app = app().await;
    let a = user(&app, "Painter").await;
    let b = user(&app, "Fan").await;
    let task = finished_task(&a.client, "a lighthouse at dawn", 11).await;

    let w = post(
        &a.client,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [task], "title": "Lighthouse", "description": "first light", "tags": ["sea", "#Dawn"], "visibility": "public"}),
    )
    .await;
    let id = w["id"].as_str().unwrap().to_owned();

    // The task knows it was published.
    let t = &a
        .client
        .batch_progress(std::slice::from_ref(&task))
        .await
        .unwrap()[0];
    assert!(t.pub_community);
    assert_eq!(t.pub_artwork_no.as_deref(), Some(id.as_str()));
    assert_eq!(t.pub_artwork_nos, vec![id.clone()]);

    // The detail, as the contract has it.
    let d = post(&b.client, "/api/v1/artwork/detail", json!({"id": id})).await;
    assert_eq!(d["title"], "Lighthouse");
    assert_eq!(d["description"], "first light");
    assert_eq!(d["tags"], json!(["sea", "Dawn"]));
    assert_eq!(d["visibility"], "public");
    assert_eq!(d["author"]["id"], a.id.as_str());
    assert_eq!(d["author"]["name"], "Painter");
    assert!(d["images"][0]["url"]
        .as_str()
        .unwrap()
        .starts_with("/files/"));
    assert_eq!(
        (
            d["likes"].as_i64(),
            d["collects"].as_i64(),
            d["comments"].as_i64()
        ),
        (Some(0), Some(0), Some(0))
    );
    assert_eq!(
        (d["liked"].as_bool(), d["collected"].as_bool()),
        (Some(false), Some(false))
    );
    assert_eq!(d["params"][0]["prompt"], "a lighthouse at dawn");
    assert_eq!(d["params"][0]["neural"], false);
    // post/detail answers the same work.
    let d2 = post(&b.client, "/api/v1/post/detail", json!({"id": id})).await;
    assert_eq!(d2["id"], d["id"]);

    // In new at once, as a card.
    let page = feed(&b.client, "new", None).await;
    let card = &page["items"][0];
    assert_eq!(card["id"], id.as_str());
    assert_eq!(card["obj_type"], 4);
    assert_eq!(card["content_sub_type"], "picture");
    assert_eq!(card["author"]["name"], "Painter");
    assert!(card["cover"]["url"]
        .as_str()
        .unwrap()
        .starts_with("/files/"));

    // A task is published once.
    let (http, _, key) = refused(
        &a.client,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [task]}),
    )
    .await;
    assert_eq!((http, key.as_str()), (400, "WorkTaskNotPublishable"));
    // Another account's task answers as if it did not exist.
    let (http, code, _) = refused(
        &b.client,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [task]}),
    )
    .await;
    assert_eq!((http, code), (404, 40400));

    // Follows: B follows A and sees the work there; A's notification.
    let mut sock = app.socket(&a.token).await;
    let f = post(
        &b.client,
        "/api/v1/account/follow",
        json!({"account_id": a.id}),
    )
    .await;
    assert_eq!(
        (f["following"].as_bool(), f["followers"].as_i64()),
        (Some(true), Some(1))
    );
    let n = sock.expect(FrameType::Notification, WAIT).await.unwrap();
    assert_eq!(n.content["kind"], "follow");
    assert_eq!(n.content["actor"]["id"], b.id.as_str());
    assert_eq!(
        ids(&feed(&b.client, "follows", None).await),
        vec![id.clone()]
    );

    // Like and collect: counts, flags, notification with the unread count.
    let r = post(&b.client, "/api/v1/artwork/like", json!({"id": id})).await;
    assert_eq!(
        (r["liked"].as_bool(), r["likes"].as_i64()),
        (Some(true), Some(1))
    );
    let n = sock.expect(FrameType::Notification, WAIT).await.unwrap();
    let c = n.content;
    assert_eq!(
        (
            c["kind"].as_str(),
            c["obj_id"].as_str(),
            c["unread"].as_i64()
        ),
        (Some("like"), Some(id.as_str()), Some(2))
    );
    post(&b.client, "/api/v1/artwork/collect", json!({"id": id})).await;
    let d = post(&b.client, "/api/v1/artwork/detail", json!({"id": id})).await;
    assert_eq!(
        (
            d["likes"].as_i64(),
            d["collects"].as_i64(),
            d["liked"].as_bool(),
            d["collected"].as_bool()
        ),
        (Some(1), Some(1), Some(true), Some(true))
    );
    assert_eq!(
        feed(&b.client, "new", None).await["items"][0]["liked"],
        true
    );
    let coll = post(&b.client, "/api/v1/square/v3/collect/list", json!({})).await;
    assert_eq!(ids(&coll), vec![id.clone()]);
    let list = post(&a.client, "/api/v1/notification/list", json!({})).await;
    assert_eq!(list["unread"], 3);
    assert_eq!(list["items"].as_array().unwrap().len(), 3);
    post(&a.client, "/api/v1/notification/read", json!({})).await;
    assert_eq!(
        post(&a.client, "/api/v1/notification/unread", json!({})).await["unread"],
        0
    );

    // Profile counts.
    let p = post(
        &b.client,
        "/api/v1/account/profile",
        json!({"account_id": a.id}),
    )
    .await;
    assert_eq!(
        (
            p["works"].as_i64(),
            p["followers"].as_i64(),
            p["likes_received"].as_i64(),
            p["followed"].as_bool()
        ),
        (Some(1), Some(1), Some(1), Some(true))
    );
    let fl = post(
        &b.client,
        "/api/v1/account/followers",
        json!({"account_id": a.id}),
    )
    .await;
    assert_eq!(fl["items"][0]["id"], b.id.as_str());

    // Deleting: gone everywhere, and the task may be published again.
    post(&a.client, "/api/v1/artwork/delete", json!({"id": id})).await;
    let (http, _, _) = refused(&b.client, "/api/v1/artwork/detail", json!({"id": id})).await;
    assert_eq!(http, 404);
    assert!(ids(&feed(&b.client, "new", None).await).is_empty());
    assert!(ids(&post(&b.client, "/api/v1/square/v3/collect/list", json!({})).await).is_empty());
    let t = &a
        .client
        .batch_progress(std::slice::from_ref(&task))
        .await
        .unwrap()[0];
    assert!(!t.pub_community);
    post(
        &a.client,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [task]}),
    )
    .await;
}

#[tokio::test]
async fn concurrent_likes_from_many_accounts_count_exactly() {
    let app = app().await;
    let a = user(&app, "Author").await;
    let id = article(&a.client, "Popular", "public").await;
    let mut fans = Vec::new();
    for i in 0..16 {
        fans.push(user(&app, &format!("Fan{i}")).await);
    }
    // Every fan likes twice at once: each counts once.
    let likes = fans.iter().flat_map(|f| {
        let id = id.clone();
        (0..2).map(move |_| {
            let (c, id) = (f.client.clone(), id.clone());
            async move { post(&c, "/api/v1/artwork/like", json!({"id": id})).await }
        })
    });
    futures_util::future::join_all(likes).await;
    let d = post(&a.client, "/api/v1/artwork/detail", json!({"id": id})).await;
    assert_eq!(d["likes"], 16);
    // Half cancel, twice each at once: each counts once.
    let cancels = fans.iter().take(8).flat_map(|f| {
        let id = id.clone();
        (0..2).map(move |_| {
            let (c, id) = (f.client.clone(), id.clone());
            async move { post(&c, "/api/v1/artwork/like-cancel", json!({"id": id})).await }
        })
    });
    futures_util::future::join_all(cancels).await;
    let d = post(&a.client, "/api/v1/artwork/detail", json!({"id": id})).await;
    assert_eq!(d["likes"], 8);
    let p = post(
        &a.client,
        "/api/v1/account/profile",
        json!({"account_id": a.id}),
    )
    .await;
    assert_eq!(p["likes_received"], 8);
    // The card in the feed says the same.
    let page = feed(&a.client, "new", None).await;
    assert_eq!(page["items"][0]["likes"], 8);
}

#[tokio::test]
async fn paging_while_others_publish_and_like_has_no_duplicate_and_no_gap() {
    let app = app().await;
    let a = user(&app, "Writer").await;
    let reader = user(&app, "Reader").await;
    let mut first = Vec::new();
    for i in 0..23 {
        first.push(article(&a.client, &format!("Piece {i}"), "public").await);
    }
    let first_set: HashSet<String> = first.iter().cloned().collect();

    // new: pages while more works are published between pages.
    let writer = &a.client;
    let seen = page_all(&reader.client, "new", |i| async move {
        article(writer, &format!("Later {i}"), "public").await;
    })
    .await;
    let set: HashSet<String> = seen.iter().cloned().collect();
    assert_eq!(set.len(), seen.len(), "a duplicate in new");
    assert_eq!(set, first_set, "new skipped or added works while paging");

    // hot: pages while works are liked between pages (the ranking shifts).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let all: Vec<String> = post(
        &reader.client,
        "/api/v1/square/v3/recommend",
        json!({"order_by": "new", "page_size": 60}),
    )
    .await["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    let liker = &reader.client;
    let all_ref = &all;
    let seen = page_all(&reader.client, "hot", |i| async move {
        // Like works that have not been shown yet, so they would jump up.
        let target = &all_ref[all_ref.len() - 1 - (i % all_ref.len())];
        post(liker, "/api/v1/artwork/like", json!({"id": target})).await;
        tokio::time::sleep(Duration::from_millis(150)).await; // a new snapshot is taken meanwhile
    })
    .await;
    let set: HashSet<String> = seen.iter().cloned().collect();
    assert_eq!(set.len(), seen.len(), "a duplicate in hot");
    assert!(
        set.len() >= first.len(),
        "hot lost works: {} of at least {}",
        set.len(),
        first.len()
    );

    // recommend, logged in: the same promise.
    let seen = page_all(&reader.client, "recommend", |i| async move {
        post(
            liker,
            "/api/v1/artwork/like",
            json!({"id": all_ref[i % all_ref.len()]}),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(150)).await;
    })
    .await;
    let set: HashSet<String> = seen.iter().cloned().collect();
    assert_eq!(set.len(), seen.len(), "a duplicate in recommend");
    assert!(set.len() >= first.len());
}

#[tokio::test]
async fn hot_ranks_by_the_documented_points() {
    let app = app().await;
    let a = user(&app, "Ranked").await;
    let works: Vec<String> = {
        let mut v = Vec::new();
        for i in 0..4 {
            v.push(article(&a.client, &format!("Rank {i}"), "public").await);
        }
        v
    };
    // Points: work 0 gets 1 like; 1 gets 2 collects (4 points); 2 gets 3 likes; 3 nothing.
    let mut fans = Vec::new();
    for i in 0..3 {
        fans.push(user(&app, &format!("Voter{i}")).await);
    }
    post(
        &fans[0].client,
        "/api/v1/artwork/like",
        json!({"id": works[0]}),
    )
    .await;
    for f in &fans[..2] {
        post(
            &f.client,
            "/api/v1/artwork/collect",
            json!({"id": works[1]}),
        )
        .await;
    }
    for f in &fans {
        post(&f.client, "/api/v1/artwork/like", json!({"id": works[2]})).await;
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    let order = ids(&post(
        &a.client,
        "/api/v1/square/v3/recommend",
        json!({"order_by": "hot", "page_size": 10}),
    )
    .await);
    assert_eq!(
        order,
        vec![
            works[1].clone(),
            works[2].clone(),
            works[0].clone(),
            works[3].clone()
        ]
    );
}

#[tokio::test]
async fn visibility_is_enforced_on_every_call_that_can_reveal_a_work() {
    let app = app().await;
    let author = user(&app, "Secretive").await;
    let follower = user(&app, "Follower").await;
    let stranger = user(&app, "Stranger").await;
    let visitor = app.client.clone();
    post(
        &follower.client,
        "/api/v1/account/follow",
        json!({"account_id": author.id}),
    )
    .await;
    let public = article(&author.client, "Open secret", "public").await;
    let followers = article(&author.client, "Followers secret", "followers").await;
    let private = article(&author.client, "Private secret", "private").await;
    // The search index commits in the background: wait until the author
    // finds all three (a loaded machine may take longer than a commit).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let found = post(
            &author.client,
            "/api/v1/square/v3/search/list",
            json!({"keyword": "secret"}),
        )
        .await;
        let got = ids(&found);
        if [&public, &followers, &private]
            .iter()
            .all(|w| got.contains(*w))
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "search never indexed the works"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // (who, may see public, followers-only, private)
    let table: [(&str, &RestClient, [bool; 3]); 4] = [
        ("author", &author.client, [true, true, true]),
        ("follower", &follower.client, [true, true, false]),
        ("stranger", &stranger.client, [true, false, false]),
        ("visitor", &visitor, [true, false, false]),
    ];
    let works = [&public, &followers, &private];
    for (who, c, may) in table {
        for (w, ok) in works.iter().zip(may) {
            for path in ["/api/v1/artwork/detail", "/api/v1/post/detail"] {
                let (http, env) = c
                    .post_raw::<_, Value>(path, &json!({"id": w}))
                    .await
                    .unwrap();
                assert_eq!(env.status.is_ok(), ok, "{who} {path} {w}");
                if !ok {
                    assert_eq!((http, env.status.code), (404, 40400), "{who} {path}");
                }
            }
            let other = post(
                c,
                "/api/v1/artwork/list/other",
                json!({"account_id": author.id, "page_size": 50}),
            )
            .await;
            assert_eq!(ids(&other).contains(w), ok, "{who} list/other {w}");
            let found = post(
                c,
                "/api/v1/square/v3/search/list",
                json!({"keyword": "secret"}),
            )
            .await;
            assert_eq!(ids(&found).contains(w), ok, "{who} search {w}");
        }
        // Shared feeds show public works only, to everyone.
        for order in ["new", "hot", "recommend"] {
            let got = ids(&post(
                c,
                "/api/v1/square/v3/recommend",
                json!({"order_by": order, "page_size": 50}),
            )
            .await);
            assert_eq!(got, vec![public.clone()], "{who} {order}");
        }
        // Reacting to what one may not see answers as if it did not exist.
        if who != "visitor" && who != "author" {
            let (http, _, _) = refused(c, "/api/v1/artwork/like", json!({"id": private})).await;
            assert_eq!(http, 404, "{who} like");
        }
    }
    // The follower's follows feed has the followers-only work; the author's own list has all three.
    let f = ids(&post(
        &follower.client,
        "/api/v1/square/v3/follow",
        json!({"page_size": 50}),
    )
    .await);
    assert_eq!(
        f.iter().collect::<HashSet<_>>(),
        [&public, &followers].into_iter().collect()
    );
    let mine = ids(&post(
        &author.client,
        "/api/v1/artwork/list",
        json!({"page_size": 50}),
    )
    .await);
    assert_eq!(mine.len(), 3);
    // Visitors may not ask for a follows feed.
    let (http, code, _) = refused(&visitor, "/api/v1/square/v3/follow", json!({})).await;
    assert_eq!((http, code), (401, 20000));

    // Making the private work public reveals it; a ban hides everything.
    post(
        &author.client,
        "/api/v1/artwork/visibility",
        json!({"id": private, "visibility": "public"}),
    )
    .await;
    post(
        &stranger.client,
        "/api/v1/artwork/detail",
        json!({"id": private}),
    )
    .await;
    let op = app.operator().await;
    post(
        &op,
        "/api/v1/admin/account/status",
        json!({"account_id": author.id, "status": 2}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    for order in ["new", "hot", "recommend"] {
        assert!(
            ids(&post(
                &stranger.client,
                "/api/v1/square/v3/recommend",
                json!({"order_by": order})
            )
            .await)
            .is_empty(),
            "{order}"
        );
    }
    let (http, _, _) = refused(
        &stranger.client,
        "/api/v1/artwork/detail",
        json!({"id": public}),
    )
    .await;
    assert_eq!(http, 404);
    assert!(ids(&post(
        &stranger.client,
        "/api/v1/square/v3/search/list",
        json!({"keyword": "secret"})
    )
    .await)
    .is_empty());
}

#[tokio::test]
async fn limits_and_unsafe_text() {
    let app = app().await;
    let a = user(&app, "Limits").await;
    let long = "x".repeat(101);
    for (body, key) in [
        (json!({"title": long, "content": "a"}), "WorkTitleTooLong"),
        (
            json!({"title": "t", "content": "y".repeat(50_001)}),
            "WorkTextTooLong",
        ),
        (json!({"title": "t", "content": ""}), "WorkTextInvalid"),
        (
            json!({"title": "t", "content": "a", "tags": ["<b>"]}),
            "WorkTagInvalid",
        ),
        (
            json!({"title": "t", "content": "a", "tags": (0..11).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
            "WorkTooManyTags",
        ),
    ] {
        let (http, _, k) = refused(&a.client, "/api/v1/post/article/add", body).await;
        assert_eq!((http, k.as_str()), (400, key));
    }
    let (_, _, k) = refused(
        &a.client,
        "/api/v1/post/content/check",
        json!({"title": "z".repeat(101)}),
    )
    .await;
    assert_eq!(k, "WorkTitleTooLong");
    // Script can never come through an article.
    let id = post(
        &a.client,
        "/api/v1/post/article/add",
        json!({"title": "Evil", "content": "Hi <script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))"}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let d = post(&app.client, "/api/v1/post/detail", json!({"id": id})).await;
    let html = d["content_html"].as_str().unwrap().to_lowercase();
    assert!(
        !html.contains("<script") && !html.contains("onerror") && !html.contains("javascript:"),
        "{html}"
    );
    assert!(
        d["content"].is_null(),
        "the Markdown source is the author's only"
    );
    // Bad cursors and orders are refused, not ignored.
    let (http, _, _) = refused(
        &a.client,
        "/api/v1/square/v3/recommend",
        json!({"cursor": "nonsense"}),
    )
    .await;
    assert_eq!(http, 400);
    let (http, _, _) = refused(
        &a.client,
        "/api/v1/square/v3/recommend",
        json!({"order_by": "sideways"}),
    )
    .await;
    assert_eq!(http, 400);
    // Following oneself.
    let (_, _, k) = refused(
        &a.client,
        "/api/v1/account/follow",
        json!({"account_id": a.id}),
    )
    .await;
    assert_eq!(k, "FollowSelf");
}

#[tokio::test]
async fn writes_are_rate_limited_per_account() {
    let app = spawn_app_with(&[("EASEL_SQUARE_WRITES_PER_MIN", "3")]).await;
    let a = user(&app, "Hasty").await;
    for i in 0..3 {
        article(&a.client, &format!("Quick {i}"), "public").await;
    }
    let (http, code, _) = refused(
        &a.client,
        "/api/v1/post/article/add",
        json!({"title": "One more", "content": "x"}),
    )
    .await;
    assert_eq!((http, code), (429, 42900));
}

#[tokio::test]
async fn search_finds_completes_and_rebuilds_from_the_store() {
    let mut app = app().await;
    let a = user(&app, "Searcher").await;
    let id = article(&a.client, "Lanterns over the harbour", "public").await;
    let zh = article(&a.client, "夜晚的灯笼", "public").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let found = ids(&post(
        &app.client,
        "/api/v1/square/v3/search/list",
        json!({"keyword": "lanterns"}),
    )
    .await);
    assert_eq!(found, vec![id.clone()]);
    let found = ids(&post(
        &app.client,
        "/api/v1/square/v3/search/list",
        json!({"keyword": "灯笼"}),
    )
    .await);
    assert_eq!(found, vec![zh.clone()]);
    let c = post(
        &app.client,
        "/api/v1/square/search/complete",
        json!({"keyword": "lan"}),
    )
    .await;
    assert!(
        c["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "Lanterns over the harbour"),
        "{c}"
    );
    let c2 = post(
        &app.client,
        "/searchapi/v1/search/complete",
        json!({"keyword": "lan"}),
    )
    .await;
    assert_eq!(c, c2);
    // Accounts are found by name.
    let acc = post(
        &app.client,
        "/api/v1/square/v3/search/list",
        json!({"keyword": "Searcher", "kind": "account"}),
    )
    .await;
    assert_eq!(acc["items"][0]["obj_type"], 100);
    // History and hot terms.
    post(
        &a.client,
        "/api/v1/square/v3/search/list",
        json!({"keyword": "harbour"}),
    )
    .await;
    let h = post(&a.client, "/api/v1/search/history", json!({})).await;
    assert_eq!(h["items"][0]["text"], "harbour");
    let hot = post(&app.client, "/api/v1/search/hot/v2", json!({})).await;
    assert!(hot["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["text"] == "lanterns"));
    post(
        &a.client,
        "/api/v1/search/history/del",
        json!({"keyword": "harbour"}),
    )
    .await;
    assert!(
        post(&a.client, "/api/v1/search/history", json!({})).await["items"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // The index folder goes; after a restart it is rebuilt from the Store.
    app.kill_and_restart();
    std::fs::remove_dir_all(app.data.path().join("search")).ok();
    app.kill_and_restart();
    let a = User {
        client: app.client.with_token(&a.token),
        ..a
    };
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let found = ids(&post(
            &app.client,
            "/api/v1/square/v3/search/list",
            json!({"keyword": "lanterns"}),
        )
        .await);
        if found == vec![id.clone()] {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the index was not rebuilt: {found:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Deleted works leave the index.
    post(&a.client, "/api/v1/artwork/delete", json!({"id": id})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(ids(&post(
        &app.client,
        "/api/v1/square/v3/search/list",
        json!({"keyword": "lanterns"})
    )
    .await)
    .is_empty());
}

#[tokio::test]
async fn feeds_of_missing_content_answer_empty_pages_and_tags_are_counted() {
    let app = app().await;
    let a = user(&app, "Tagger").await;
    for i in 0..3 {
        post(
            &a.client,
            "/api/v1/post/article/add",
            json!({"title": format!("T{i}"), "content": "x", "tags": ["Sunset", "sea"]}),
        )
        .await;
    }
    for path in [
        "/api/v1/square/v3/model/list",
        "/api/v1/square/v3/timbre/list",
        "/api/v1/square/v3/ebook/list",
    ] {
        let p = post(&app.client, path, json!({"order_by": "new"})).await;
        assert_eq!(p, json!({"items": [], "next_cursor": null}), "{path}");
    }
    let tags = post(&app.client, "/api/v1/tag/hot", json!({})).await;
    assert_eq!(tags["items"][0], json!({"text": "Sunset", "count": 3}));
    let by_tag = post(
        &app.client,
        "/api/v1/square/v3/post/list",
        json!({"tag": "sunset", "order_by": "new"}),
    )
    .await;
    assert_eq!(ids(&by_tag).len(), 3);
    let groups = post(
        &app.client,
        "/api/v1/tag/get_by_group",
        json!({"lang": "en"}),
    )
    .await;
    assert!(!groups["items"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn comments_on_works_count_notify_and_follow_visibility() {
    let app = app().await;
    let a = user(&app, "Host").await;
    let b = user(&app, "Guest").await;
    let id = article(&a.client, "Talk to me", "public").await;
    let mut sock = app.socket(&a.token).await;
    let c = post(
        &b.client,
        "/api/v1/comment2/create",
        json!({"obj_id": id, "obj_type": 4, "content": "Lovely :smile:", "parent_id": null}),
    )
    .await;
    let cid = c["id"].as_str().unwrap().to_owned();
    let n = sock.expect(FrameType::Notification, WAIT).await.unwrap();
    assert_eq!(
        (n.content["kind"].as_str(), n.content["obj_id"].as_str()),
        (Some("comment"), Some(id.as_str()))
    );
    let d = post(&app.client, "/api/v1/artwork/detail", json!({"id": id})).await;
    assert_eq!(d["comments"], 1);
    let list = post(
        &app.client,
        "/api/v1/comment2/list",
        json!({"obj_id": id, "obj_type": 4, "page_size": 10}),
    )
    .await;
    assert_eq!(list["items"][0]["content"], "Lovely :smile:");
    assert_eq!(list["items"][0]["author"]["id"], b.id.as_str());
    // The work's author may delete a comment on it; the count follows.
    post(&a.client, "/api/v1/comment2/delete", json!({"id": cid})).await;
    let d = post(&app.client, "/api/v1/artwork/detail", json!({"id": id})).await;
    assert_eq!(d["comments"], 0);
    // A banned account's comments are not shown.
    post(
        &b.client,
        "/api/v1/comment2/create",
        json!({"obj_id": id, "obj_type": 4, "content": "spam spam"}),
    )
    .await;
    let listed = |v: &Value| v["items"].as_array().unwrap().len();
    let before = post(
        &app.client,
        "/api/v1/comment2/list",
        json!({"obj_id": id, "obj_type": 4}),
    )
    .await;
    assert_eq!(listed(&before), 1);
    let op = app.operator().await;
    post(
        &op,
        "/api/v1/admin/account/status",
        json!({"account_id": b.id, "status": 2}),
    )
    .await;
    let after = post(
        &app.client,
        "/api/v1/comment2/list",
        json!({"obj_id": id, "obj_type": 4}),
    )
    .await;
    assert_eq!(listed(&after), 0);
    // A private work's comments are as hidden as the work.
    let c = user(&app, "Another").await;
    let b = c;
    let secret = article(&a.client, "Hush", "private").await;
    post(
        &a.client,
        "/api/v1/comment2/create",
        json!({"obj_id": secret, "obj_type": 4, "content": "note to self"}),
    )
    .await;
    for path in ["/api/v1/comment2/list", "/api/v1/comment2/create"] {
        let (http, _, _) = refused(
            &b.client,
            path,
            json!({"obj_id": secret, "obj_type": 4, "content": "peek"}),
        )
        .await;
        assert_eq!(http, 404, "{path}");
    }
}

#[tokio::test]
async fn follower_like_and_notification_lists_page_without_repeats() {
    let app = app().await;
    let star = user(&app, "Star").await;
    let fan = user(&app, "Keen").await;
    let mut fans = Vec::new();
    for i in 0..7 {
        let f = user(&app, &format!("Follower{i}")).await;
        post(
            &f.client,
            "/api/v1/account/follow",
            json!({"account_id": star.id}),
        )
        .await;
        fans.push(f.id);
    }
    let mut works = Vec::new();
    for i in 0..7 {
        let w = article(&star.client, &format!("Work {i}"), "public").await;
        post(&fan.client, "/api/v1/artwork/like", json!({"id": w})).await;
        works.push(w);
    }
    // Followers, 3 a page.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let p = post(
            &fan.client,
            "/api/v1/account/followers",
            json!({"account_id": star.id, "page_size": 3, "cursor": cursor}),
        )
        .await;
        seen.extend(ids(&p));
        match p["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    seen.sort();
    fans.sort();
    assert_eq!(seen, fans);
    // The fan's likes, newest first, 3 a page.
    let mut liked = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let p = post(
            &star.client,
            "/api/v1/account/like/list",
            json!({"account_id": fan.id, "page_size": 3, "cursor": cursor}),
        )
        .await;
        liked.extend(ids(&p));
        match p["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    works.reverse();
    assert_eq!(liked, works);
    // The star's notifications: 7 follows and 7 likes, newest first, 4 a page.
    let mut notes = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let p = post(
            &star.client,
            "/api/v1/notification/list",
            json!({"page_size": 4, "cursor": cursor}),
        )
        .await;
        notes.extend(
            p["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["id"].as_str().unwrap().to_owned()),
        );
        match p["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    let set: HashSet<&String> = notes.iter().collect();
    assert_eq!((notes.len(), set.len()), (14, 14));
}

#[tokio::test]
async fn operators_can_mend_counters_from_the_rows() {
    let app = app().await;
    let a = user(&app, "Counted").await;
    let b = user(&app, "Liker").await;
    let id = article(&a.client, "Count me", "public").await;
    post(&b.client, "/api/v1/artwork/like", json!({"id": id})).await;
    let op = app.operator().await;
    let r = post(&op, "/api/v1/admin/square/recount", json!({"id": id})).await;
    assert_eq!(r["likes"], json!({"was": 1, "now": 1}));
    let (http, _, _) = refused(&a.client, "/api/v1/admin/square/recount", json!({"id": id})).await;
    assert_eq!(http, 403);
}
