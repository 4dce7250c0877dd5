//! The square: text limits, rate limits, search, empty feeds and tags, comments, lists, recount.

use super::*;

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
    // The index commits in the background: wait until both are found.
    let mut found = Vec::new();
    for _ in 0..100 {
        found = ids(&post(
            &app.client,
            "/api/v1/square/v3/search/list",
            json!({"keyword": "lanterns"}),
        )
        .await);
        let zh_found = ids(&post(
            &app.client,
            "/api/v1/square/v3/search/list",
            json!({"keyword": "灯笼"}),
        )
        .await);
        if !found.is_empty() && !zh_found.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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
