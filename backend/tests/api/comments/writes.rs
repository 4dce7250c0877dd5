//! Comments under concurrent writes: likes counted once, paging while
//! others write and like, who may delete and what goes with it, and a
//! draft's comments hidden like the draft.

use std::collections::HashSet;

use protocol::ErrorCode;
use serde_json::{json, Value};

use super::{all_pages, app, character, comment, delete, fails, ids, like, list, replies, reply};

#[tokio::test]
async fn likes_count_once_even_concurrently() {
    let app = app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let ch = character(&alice, "Ada", true).await;
    let id = comment(&bob, &ch, "like me").await.unwrap();

    let v = like(&alice, &id, false).await.unwrap();
    assert_eq!(
        (v["liked"].clone(), v["like_count"].clone()),
        (json!(true), json!(1))
    );
    let v = like(&alice, &id, false).await.unwrap();
    assert_eq!(v["like_count"], 1, "a double like counts once");
    let v = like(&alice, &id, true).await.unwrap();
    assert_eq!(
        (v["liked"].clone(), v["like_count"].clone()),
        (json!(false), json!(0))
    );
    let v = like(&alice, &id, true).await.unwrap();
    assert_eq!(v["like_count"], 0, "undoing nothing changes nothing");
    assert_eq!(
        fails(like(&alice, "nope", false).await).0,
        ErrorCode::NotFound
    );

    // Many accounts at once, each liking twice at the same time.
    let mut users = Vec::new();
    for i in 0..16 {
        users.push(app.user(&format!("Fan{i}")).await.1);
    }
    let calls = users
        .iter()
        .flat_map(|u| [like(u, &id, false), like(u, &id, false)]);
    for r in futures_util::future::join_all(calls).await {
        r.unwrap();
    }
    let page = list(&alice, &ch, json!({})).await.unwrap();
    assert_eq!(page["items"][0]["like_count"], 16);
    // And half of them undo at once, twice each.
    let undo = users
        .iter()
        .take(8)
        .flat_map(|u| [like(u, &id, true), like(u, &id, true)]);
    for r in futures_util::future::join_all(undo).await {
        r.unwrap();
    }
    let page = list(&users[0], &ch, json!({})).await.unwrap();
    assert_eq!(page["items"][0]["like_count"], 8);
    assert_eq!(page["items"][0]["liked"], false);
    let page = list(&users[15], &ch, json!({})).await.unwrap();
    assert_eq!(page["items"][0]["liked"], true);
}

#[tokio::test]
async fn paging_under_inserts_has_no_duplicate_and_no_gap() {
    let app = app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let (_, carol) = app.user("Carol").await;
    let ch = character(&alice, "Ada", true).await;
    let mut first = Vec::new();
    for i in 0..23 {
        first.push(comment(&bob, &ch, &format!("c{i}")).await.unwrap());
    }

    // New order: comments written between pages come before the first page.
    let mut written = Vec::new();
    let seen = all_pages(&bob, &ch, json!({"page_size": 5}), async |n| {
        written.push(comment(&carol, &ch, &format!("between {n}")).await.unwrap());
    })
    .await;
    let expect: Vec<String> = first.iter().rev().cloned().collect();
    assert_eq!(seen, expect, "every comment once, newest first");
    assert_eq!(written.len(), 4);
    let now = all_pages(&bob, &ch, json!({"page_size": 50}), async |_| {}).await;
    assert_eq!(now.len(), 27);
    assert_eq!(now[0], written[3]);

    // Top order while likes move and comments arrive: the first page's ranking holds.
    for (i, id) in now.iter().enumerate().take(10) {
        if i % 3 == 0 {
            like(&alice, id, false).await.unwrap();
        }
    }
    let mut liked_late = now.clone();
    liked_late.reverse();
    let first_page = list(&bob, &ch, json!({"order": "top", "page_size": 4}))
        .await
        .unwrap();
    let mut top = ids(&first_page);
    let mut cursor = first_page["next_cursor"].as_str().map(str::to_owned);
    let mut round = 0;
    while let Some(cur) = cursor {
        // The oldest comments gain likes and new ones arrive between pages.
        like(&carol, &liked_late[round], false).await.unwrap();
        like(&alice, &liked_late[round], false).await.unwrap();
        comment(&carol, &ch, &format!("late {round}"))
            .await
            .unwrap();
        round += 1;
        let page = list(
            &bob,
            &ch,
            json!({"order": "top", "page_size": 4, "cursor": cur}),
        )
        .await
        .unwrap();
        top.extend(ids(&page));
        cursor = page["next_cursor"].as_str().map(str::to_owned);
    }
    assert_eq!(top.len(), 27, "every comment of the first page's time once");
    let unique: HashSet<&String> = top.iter().collect();
    assert_eq!(unique.len(), 27, "no duplicate");
    assert_eq!(unique, now.iter().collect::<HashSet<_>>(), "no gap");
    // The four liked ones first (newest first among equals), then the rest newest first.
    let liked: Vec<&String> = now.iter().take(10).step_by(3).collect();
    assert_eq!(top.iter().take(4).collect::<Vec<_>>(), liked);

    // Replies page oldest first; replies written meanwhile come last.
    let thread = &first[0];
    for i in 0..7 {
        reply(&carol, &ch, thread, &format!("r{i}")).await.unwrap();
    }
    let mut got = Vec::new();
    let mut cursor: Option<String> = None;
    let mut added = 0;
    loop {
        let mut body = json!({"page_size": 3});
        if let Some(c) = &cursor {
            body["cursor"] = json!(c);
        }
        let page = replies(&bob, thread, body).await.unwrap();
        got.extend(ids(&page));
        match page["next_cursor"].as_str() {
            Some(n) => cursor = Some(n.to_owned()),
            None => break,
        }
        if added < 2 {
            reply(&bob, &ch, thread, &format!("late r{added}"))
                .await
                .unwrap();
            added += 1;
        }
    }
    assert_eq!(got.len(), 9, "7 replies and the 2 written while paging");
    assert_eq!(got.iter().collect::<HashSet<_>>().len(), 9);
    let all = replies(&bob, thread, json!({"page_size": 50}))
        .await
        .unwrap();
    assert_eq!(ids(&all), got, "oldest first");
}

#[tokio::test]
async fn who_may_delete_and_what_goes_with_it() {
    let app = app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let (_, carol) = app.user("Carol").await;
    let (_, dave) = app.user("Dave").await;
    let ch = character(&alice, "Ada", true).await;
    let c1 = comment(&bob, &ch, "Bob's").await.unwrap();
    let c2 = comment(&carol, &ch, "Carol's").await.unwrap();
    let r1 = reply(&carol, &ch, &c1, "reply 1").await.unwrap();
    let r2 = reply(&dave, &ch, &r1, "reply 2").await.unwrap();
    like(&dave, &c1, false).await.unwrap();
    assert_eq!(list(&bob, &ch, json!({})).await.unwrap()["total"], 4);

    // Someone who may see it but neither wrote it nor owns the character.
    assert_eq!(
        fails(delete(&dave, &c1).await),
        (ErrorCode::NoPermission, 403)
    );
    assert_eq!(
        fails(delete(&bob, &r1).await).0,
        ErrorCode::NoPermission,
        "a thread's author neither"
    );
    assert_eq!(fails(delete(&dave, "nope").await).0, ErrorCode::NotFound);

    // Its author deletes a reply: the counts follow.
    delete(&dave, &r2).await.unwrap();
    let page = list(&bob, &ch, json!({})).await.unwrap();
    assert_eq!(page["total"], 3);
    assert_eq!(page["items"][1]["reply_count"], 1);
    assert_eq!(
        ids(&replies(&bob, &c1, json!({})).await.unwrap()),
        [r1.as_str()]
    );
    assert_eq!(
        fails(delete(&dave, &r2).await).0,
        ErrorCode::NotFound,
        "gone already"
    );

    // The character's owner deletes Bob's comment: its replies go with it.
    delete(&alice, &c1).await.unwrap();
    let page = list(&bob, &ch, json!({})).await.unwrap();
    assert_eq!(ids(&page), [c2.as_str()]);
    assert_eq!(page["total"], 1);
    assert_eq!(
        fails(replies(&bob, &c1, json!({})).await).0,
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(replies(&bob, &r1, json!({})).await).0,
        ErrorCode::NotFound
    );
    assert_eq!(fails(like(&dave, &r1, false).await).0, ErrorCode::NotFound);
    assert_eq!(
        fails(reply(&dave, &ch, &c1, "late").await).0,
        ErrorCode::NotFound
    );
    assert_eq!(fails(delete(&carol, &r1).await).0, ErrorCode::NotFound);

    // An author deletes their own top-level comment.
    delete(&carol, &c2).await.unwrap();
    let page = list(&bob, &ch, json!({})).await.unwrap();
    assert_eq!(page["items"], json!([]));
    assert_eq!(page["total"], 0);
}

#[tokio::test]
async fn a_drafts_comments_are_hidden_like_the_draft() {
    let app = app().await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let visitor = app.client.clone();
    let draft = character(&alice, "Secret", false).await;
    let own = comment(&alice, &draft, "note to self").await.unwrap();
    let r = reply(&alice, &draft, &own, "more").await.unwrap();
    assert_eq!(
        ids(&list(&alice, &draft, json!({})).await.unwrap()),
        [own.as_str()]
    );

    for who in [&bob, &visitor] {
        assert_eq!(
            fails(list(who, &draft, json!({})).await).0,
            ErrorCode::NotFound
        );
        assert_eq!(
            fails(list(who, &draft, json!({"order": "top"})).await).0,
            ErrorCode::NotFound
        );
        assert_eq!(
            fails(replies(who, &own, json!({})).await).0,
            ErrorCode::NotFound
        );
        assert_eq!(
            fails(replies(who, &r, json!({})).await).0,
            ErrorCode::NotFound
        );
    }
    assert_eq!(
        fails(comment(&bob, &draft, "hi").await).0,
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(reply(&bob, &draft, &own, "hi").await).0,
        ErrorCode::NotFound
    );
    assert_eq!(fails(like(&bob, &own, false).await).0, ErrorCode::NotFound);
    assert_eq!(fails(delete(&bob, &own).await).0, ErrorCode::NotFound);

    // Published, the comments show; a draft again, they hide again.
    let edit = |published: bool| {
        json!({"id": draft, "name": "Secret", "description": "d", "persona": "p",
               "greeting": "g", "gender": "female", "character_type": 1, "published": published})
    };
    let _: Value = alice
        .post("/api/v1/tavern-pro/publish", &edit(true))
        .await
        .unwrap();
    assert_eq!(
        ids(&list(&bob, &draft, json!({})).await.unwrap()),
        [own.as_str()]
    );
    like(&bob, &own, false).await.unwrap();
    let _: Value = alice
        .post("/api/v1/tavern-pro/publish", &edit(false))
        .await
        .unwrap();
    assert_eq!(
        fails(list(&bob, &draft, json!({})).await).0,
        ErrorCode::NotFound
    );
    assert_eq!(fails(like(&bob, &own, true).await).0, ErrorCode::NotFound);
}
