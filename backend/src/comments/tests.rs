//! The service against an embedded store and a recording `CommentTargets`:
//! who is notified of what, and the count changes the object hears of.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::sync::{Arc, Mutex};

use infra::store::embedded::EmbeddedStore;
use protocol::square::comment::{CreateCommentRequest, ListCommentsRequest};
use protocol::ErrorCode;

use super::*;

/// One work, `w1`, owned by alice; private works are `p*` (alice only).
#[derive(Default)]
struct Recorder {
    counts: Mutex<Vec<i64>>,
    notes: Mutex<Vec<(String, String, bool)>>,
}

#[async_trait::async_trait]
impl CommentTargets for Recorder {
    async fn resolve(
        &self,
        viewer: Option<&str>,
        obj_type: u8,
        obj_id: &str,
    ) -> Result<CommentTarget, ApiError> {
        let visible = obj_type == 4 && (obj_id == "w1" || viewer == Some("alice"));
        if visible {
            Ok(CommentTarget {
                owner: "alice".into(),
                title: "A work".into(),
            })
        } else {
            Err(ErrorCode::NotFound.into())
        }
    }
    async fn count_changed(&self, _: u8, _: &str, delta: i64) {
        self.counts.lock().unwrap().push(delta);
    }
    async fn notify(&self, to: &str, actor: &str, _: u8, _: &str, text: &str, reply: bool) {
        assert!(!text.is_empty());
        self.notes
            .lock()
            .unwrap()
            .push((to.into(), actor.into(), reply));
    }
}

fn service(dir: &tempfile::TempDir, per_min: u32) -> (CommentService, Arc<Recorder>) {
    let store: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("store")).unwrap());
    let rec = Arc::new(Recorder::default());
    (
        CommentService::new(store, rec.clone(), per_min, &RateLimits::local()),
        rec,
    )
}

fn on(obj: &str, content: &str, parent: Option<&str>) -> CreateCommentRequest {
    CreateCommentRequest {
        obj_id: obj.into(),
        obj_type: 4,
        content: content.into(),
        parent_id: parent.map(str::to_owned),
        scene: Some("artwork_detail".into()),
        source: Some("/en/artwork/w1".into()),
    }
}

fn notes(rec: &Recorder) -> Vec<(String, String, bool)> {
    std::mem::take(&mut *rec.notes.lock().unwrap())
}

#[tokio::test]
async fn notifies_owner_and_addressee_once_each_never_oneself() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, rec) = service(&dir, 100);
    let s = |a: &str, b: &str, r: bool| (a.to_owned(), b.to_owned(), r);

    let c = svc.create("bob", &on("w1", "nice", None)).await.unwrap();
    assert_eq!(notes(&rec), [s("alice", "bob", false)]);
    // Carol answers Bob: Bob hears of a reply, Alice of a comment.
    let r = svc
        .create("carol", &on("w1", "agreed", Some(&c)))
        .await
        .unwrap();
    assert_eq!(
        notes(&rec),
        [s("bob", "carol", true), s("alice", "carol", false)]
    );
    // Alice answers Carol's reply: only Carol hears (Alice is the owner).
    svc.create("alice", &on("w1", "thanks", Some(&r)))
        .await
        .unwrap();
    assert_eq!(notes(&rec), [s("carol", "alice", true)]);
    // Bob answers Alice's comment on her own work: Alice once, as the addressee.
    let a = svc.create("alice", &on("w1", "mine", None)).await.unwrap();
    assert!(notes(&rec).is_empty(), "nobody hears of their own comment");
    svc.create("bob", &on("w1", "hi", Some(&a))).await.unwrap();
    assert_eq!(notes(&rec), [s("alice", "bob", true)]);

    // The stored row keeps the thread, whom a reply answers, scene and source.
    let row = svc.row(&r).await.unwrap().unwrap();
    assert_eq!(row.parent_id.as_deref(), Some(c.as_str()));
    assert_eq!(row.scene.as_deref(), Some("artwork_detail"));
    assert_eq!(row.source.as_deref(), Some("/en/artwork/w1"));
    let page = svc
        .replies_list(
            None,
            &ListCommentsRequest {
                parent_id: Some(c.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let nested = &page.items[1];
    assert_eq!(nested.parent_id.as_deref(), Some(c.as_str()));
    assert_eq!(
        nested.reply_to.as_ref().map(|a| a.id.as_str()),
        Some("carol")
    );
    let stored = svc.row(&nested.id).await.unwrap().unwrap();
    assert_eq!(stored.reply_to_comment.as_deref(), Some(r.as_str()));
}

#[tokio::test]
async fn the_object_hears_every_count_change() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, rec) = service(&dir, 100);
    let c = svc.create("bob", &on("w1", "one", None)).await.unwrap();
    let r1 = svc
        .create("carol", &on("w1", "two", Some(&c)))
        .await
        .unwrap();
    svc.create("dave", &on("w1", "three", Some(&r1)))
        .await
        .unwrap();
    svc.create("dave", &on("w1", "four", None)).await.unwrap();
    assert_eq!(svc.total(4, "w1").await.unwrap(), 4);
    svc.delete("carol", &r1).await.unwrap();
    svc.delete("alice", &c).await.unwrap();
    assert_eq!(*rec.counts.lock().unwrap(), [1, 1, 1, 1, -1, -2]);
    assert_eq!(svc.total(4, "w1").await.unwrap(), 1);
    assert_eq!(
        svc.delete("alice", &c).await.unwrap_err().code,
        ErrorCode::NotFound
    );

    // A private work: its owner comments, nobody else sees or writes.
    svc.create("alice", &on("p1", "draft note", None))
        .await
        .unwrap();
    let code = svc
        .create("bob", &on("p1", "hi", None))
        .await
        .unwrap_err()
        .code;
    assert_eq!(code, ErrorCode::NotFound);
    let req = ListCommentsRequest {
        obj_id: "p1".into(),
        obj_type: 4,
        ..Default::default()
    };
    assert_eq!(
        svc.list(Some("bob"), &req).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(svc.list(Some("alice"), &req).await.unwrap().total, 1);
}

#[tokio::test]
async fn limits_comments_per_account_and_shares_the_square_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, _) = service(&dir, 2);
    let shared = Arc::new(RateLimits::local().limiter("writes", 3, Duration::from_secs(60)));
    let svc = svc.with_write_limit(shared);
    let c = svc.create("bob", &on("w1", "1", None)).await.unwrap();
    svc.create("bob", &on("w1", "2", None)).await.unwrap();
    let code = |r: Result<String, ApiError>| r.unwrap_err().code;
    assert_eq!(
        code(svc.create("bob", &on("w1", "3", None)).await),
        ErrorCode::TooManyRequests
    );
    // A refused comment did not count against the shared limit: one like is left.
    svc.like("bob", &c, false).await.unwrap();
    assert_eq!(
        svc.like("bob", &c, true).await.unwrap_err().code,
        ErrorCode::TooManyRequests
    );
    // Limits are per account.
    svc.create("carol", &on("w1", "hello", None)).await.unwrap();
}

/// Every id of a `top` listing of w1, `n` a page, running `between` after each page.
async fn top_pages(
    svc: &CommentService,
    n: u32,
    mut between: impl AsyncFnMut(usize),
) -> Vec<String> {
    let mut out = Vec::new();
    let mut req = ListCommentsRequest {
        obj_id: "w1".into(),
        obj_type: 4,
        order: Some(protocol::square::comment::CommentOrder::Top),
        page_size: Some(n),
        ..Default::default()
    };
    for round in 0..50 {
        let page = svc.list(Some("bob"), &req).await.unwrap();
        out.extend(page.items.into_iter().map(|i| i.id));
        match page.next_cursor {
            Some(c) => req.cursor = Some(c),
            None => return out,
        }
        between(round).await;
    }
    panic!("paging did not end");
}

#[tokio::test]
async fn top_ranks_the_newest_then_pages_the_older_by_time() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, _) = service(&dir, 1000);
    let mut svc = svc;
    svc.max_ranked = 5;
    // Oldest first: c0 .. c11.
    let mut c = Vec::new();
    for i in 0..12 {
        c.push(
            svc.create("bob", &on("w1", &format!("c{i}"), None))
                .await
                .unwrap(),
        );
    }
    // Likes: c10 two, c8 one, and c1 (old, beyond the ranked five) three.
    for who in ["u1", "u2"] {
        svc.like(who, &c[10], false).await.unwrap();
    }
    svc.like("u1", &c[8], false).await.unwrap();
    for who in ["u1", "u2", "u3"] {
        svc.like(who, &c[1], false).await.unwrap();
    }
    let mut late = Vec::new();
    let got = top_pages(&svc, 3, async |round| {
        // Likes move and comments arrive while paging.
        svc.like(&format!("v{round}"), &c[7], false).await.unwrap();
        svc.like(&format!("w{round}"), &c[7], false).await.unwrap();
        svc.like(&format!("x{round}"), &c[7], false).await.unwrap();
        late.push(svc.create("carol", &on("w1", "late", None)).await.unwrap());
    })
    .await;
    // The newest five ranked by likes then newest: c10, c8, then c11, c9, c7
    // (c7's likes came after the first page); then c6 .. c0 newest first.
    let want: Vec<&String> = [10, 8, 11, 9, 7, 6, 5, 4, 3, 2, 1, 0]
        .iter()
        .map(|&i| &c[i])
        .collect();
    assert_eq!(got.iter().collect::<Vec<_>>(), want);
    assert_eq!(late.len(), 4, "five pages: 3 + 2 ranked, 3 + 3 + 1 older");

    // A fresh listing ranks the newest five anew: the late ones and c11, no
    // likes among them, so newest first; c10 and c7 are older than those.
    let fresh = top_pages(&svc, 50, async |_| {}).await;
    assert_eq!(fresh.len(), 16);
    assert_eq!(fresh[0], late[3]);
    assert_eq!(fresh[4], c[11]);
    assert_eq!(fresh[5], c[10], "then the older ones by time");
}

#[tokio::test]
async fn readers_of_the_same_order_share_a_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, _) = service(&dir, 1000);
    let mut c = Vec::new();
    for i in 0..5 {
        c.push(
            svc.create("bob", &on("w1", &format!("c{i}"), None))
                .await
                .unwrap(),
        );
    }
    let req = ListCommentsRequest {
        obj_id: "w1".into(),
        obj_type: 4,
        order: Some(protocol::square::comment::CommentOrder::Top),
        page_size: Some(2),
        ..Default::default()
    };
    let first = svc.list(None, &req).await.unwrap().next_cursor.unwrap();
    let again = svc
        .list(Some("carol"), &req)
        .await
        .unwrap()
        .next_cursor
        .unwrap();
    assert_eq!(first, again, "same order, same snapshot");
    svc.like("carol", &c[0], false).await.unwrap();
    let moved = svc.list(None, &req).await.unwrap();
    assert_ne!(
        moved.next_cursor.unwrap(),
        first,
        "a new order, a new snapshot"
    );
    assert_eq!(moved.items[0].id, c[0]);
    // The first snapshot still pages its own order.
    let page = svc
        .list(
            None,
            &ListCommentsRequest {
                cursor: Some(first),
                ..req.clone()
            },
        )
        .await
        .unwrap();
    let got: Vec<&str> = page.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(got, [c[2].as_str(), c[1].as_str()]);
}
