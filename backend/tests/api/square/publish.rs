//! The square: publishing, likes, paging, hot ranking and visibility.

use super::*;

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
