//! Tests of the character service (`mod.rs`).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;
use protocol::character::{ListRequest, OrderBy};

#[test]
fn file_names_are_safe() {
    assert_eq!(file_stem("Ada Lovelace"), "Ada Lovelace");
    assert_eq!(file_stem("a\"/../b\r\n"), "a_____b");
    assert_eq!(file_stem("Zoë"), "Zo");
    assert_eq!(file_stem("..."), "character");
    assert_eq!(file_stem(""), "character");
    assert_eq!(file_stem(&"x".repeat(100)).len(), 64);
}

fn service() -> (CharacterService, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store: DynStore = std::sync::Arc::new(
        infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap(),
    );
    let objects: DynObjects =
        std::sync::Arc::new(infra::objects::LocalObjects::new(dir.path().join("o")).unwrap());
    (
        CharacterService::new(store, objects, &crate::ratelimit::RateLimits::local()),
        dir,
    )
}

fn req(name: &str, published: bool) -> PublishRequest {
    serde_json::from_value(serde_json::json!({
        "name": name, "greeting": "Hi.", "published": published
    }))
    .unwrap()
}

#[tokio::test]
async fn chat_calls() {
    let (s, _dir) = service();
    let public = s.publish("alice", req("Pub", true)).await.unwrap();
    let draft = s.publish("alice", req("Draft", false)).await.unwrap();

    // load_for_chat: published for anyone, drafts for their owner only.
    assert_eq!(s.load_for_chat("bob", &public).await.unwrap().name, "Pub");
    assert_eq!(
        s.load_for_chat("alice", &draft).await.unwrap().name,
        "Draft"
    );
    let e = s.load_for_chat("bob", &draft).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = s.load_for_chat("bob", "missing").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);

    // touch_recent: counts chats and feeds `latest`, newest first.
    s.touch_recent("bob", &public).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    s.touch_recent("alice", &draft).await.unwrap();
    // Times are in milliseconds: two touches in one would tie.
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    s.touch_recent("alice", &public).await.unwrap();
    assert_eq!(s.load_for_chat("bob", &public).await.unwrap().chat_count, 2);
    let e = s.touch_recent("bob", "missing").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert_eq!(s.latest("bob", 10).await.unwrap().len(), 1);
    let latest = s.latest("alice", 10).await.unwrap();
    let ids: Vec<&str> = latest.iter().map(|r| r.card.id.as_str()).collect();
    assert_eq!(ids, [public.as_str(), draft.as_str()]);
    assert!(latest[0].last_chat_at >= latest[1].last_chat_at);
    assert_eq!(s.latest("alice", 1).await.unwrap().len(), 1);
    s.remove_recent("alice", &public).await.unwrap();
    assert_eq!(s.latest("alice", 10).await.unwrap().len(), 1);
    // A character that became invisible leaves bob's latest.
    let mut unpublish = req("Pub", false);
    unpublish.id = Some(public.clone());
    s.publish("alice", unpublish).await.unwrap();
    assert!(s.latest("bob", 10).await.unwrap().is_empty());

    // load_datacards: the owner's, in the order asked, others skipped.
    let a = s.create_datacard("alice", "A", "a").await.unwrap();
    let b = s.create_datacard("alice", "B", "b").await.unwrap();
    let theirs = s.create_datacard("bob", "C", "c").await.unwrap();
    let got = s
        .load_datacards("alice", &[b.clone(), "missing".into(), theirs, a.clone()])
        .await
        .unwrap();
    let titles: Vec<&str> = got.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(titles, ["B", "A"]);
}

#[tokio::test]
async fn hot_and_recommend_rank_by_chats() {
    let (s, _dir) = service();
    let mut ids = Vec::new();
    for name in ["One", "Two", "Three"] {
        ids.push(s.publish("alice", req(name, true)).await.unwrap());
    }
    for _ in 0..3 {
        s.touch_recent("bob", &ids[0]).await.unwrap();
    }
    s.touch_recent("bob", &ids[1]).await.unwrap();
    let names =
        |cards: Vec<CharacterCard>| -> Vec<String> { cards.into_iter().map(|c| c.name).collect() };
    assert_eq!(
        names(s.recommend(10).await.unwrap()),
        ["One", "Two", "Three"]
    );
    let hot = ListRequest {
        order_by: OrderBy::Hot,
        limit: 2,
        ..ListRequest::default()
    };
    let page = s.list(&hot).await.unwrap();
    assert_eq!(names(page.items), ["One", "Two"]);
    let next = ListRequest {
        cursor: page.cursor,
        ..hot
    };
    let page = s.list(&next).await.unwrap();
    assert_eq!(names(page.items), ["Three"]);
    assert_eq!(page.cursor, None);
    // Deleted characters leave the lists.
    s.delete("alice", &ids[0]).await.unwrap();
    assert_eq!(names(s.recommend(10).await.unwrap()), ["Two", "Three"]);
    let new = s.list(&ListRequest::default()).await.unwrap();
    assert_eq!(names(new.items), ["Three", "Two"]);
    assert!(s
        .mine("alice")
        .await
        .unwrap()
        .iter()
        .all(|c| c.id != ids[0]));
}

#[test]
fn card_formats() {
    assert_eq!(CardFormat::parse(None), Some(CardFormat::Png));
    assert_eq!(CardFormat::parse(Some("JSON")), Some(CardFormat::Json));
    assert_eq!(CardFormat::parse(Some("gif")), None);
}
