//! Models on the square (issue 19): comments on a published model (write,
//! reply, list, like, delete; the creator notified; the count on the model
//! and its card; someone else's draft answers NotFound; visitors read), and
//! the model's community gallery (`square/my-artwork/community` with a
//! model): a LoRA used by another user's task, the picture posted, listed
//! newest first as each viewer may see it, filtered by version, gone when
//! the work is deleted; `ver/can-del` refuses while the work exists.

use protocol::client::RestClient;
use protocol::models::{ModelType, PublishStatus};
use protocol::task::TaskStatus;
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::comments::{fails, ids};
use crate::helpers::spawn_app_with;
use crate::model_tasks::{lora_bytes, make_model, open, with_lora};
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

const MODEL: u8 = 2;

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn comment(
    c: &RestClient,
    model: &str,
    text: &str,
) -> Result<Value, protocol::client::ClientError> {
    c.post(
        "/api/v1/comment2/create",
        &json!({"obj_id": model, "obj_type": MODEL, "content": text}),
    )
    .await
}

async fn comments(c: &RestClient, model: &str) -> Value {
    post(
        c,
        "/api/v1/comment2/list",
        json!({"obj_id": model, "obj_type": MODEL}),
    )
    .await
}

async fn model_stats(c: &RestClient, model: &str) -> Value {
    post(c, "/api/v1/model/detail", json!({"model_id": model})).await["stats"].clone()
}

async fn gallery(c: &RestClient, body: Value) -> Result<Value, protocol::client::ClientError> {
    c.post("/api/v1/square/my-artwork/community", &body).await
}

fn card_ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Generates with the LoRA and posts the picture; the work's id.
async fn post_with_lora(c: &RestClient, body: &Value, visibility: &str, title: &str) -> String {
    let id = c.create_task("/api/v1/task/create", body).await.unwrap();
    let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    let w = post(
        c,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [id], "title": title, "visibility": visibility}),
    )
    .await;
    w["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn comments_and_the_community_gallery_of_a_model() {
    let mut app = spawn_app_with(&[
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000"),
        ("EASEL_COMMENTS_PER_MIN", "1000"),
    ])
    .await;
    let (creator_data, _) = app.user("Creator").await;
    let (user_data, _) = app.user("Painter").await;
    let (other_data, _) = app.user("Reader").await;
    app.stop();
    let lora = lora_bytes(5);
    let (published, other_ver, draft) = {
        let (store, objects) = open(&app);
        let mk = |publish| {
            make_model(
                &store,
                &objects,
                &creator_data.account.id,
                ModelType::Lora,
                "sd",
                0,
                publish,
                &lora,
                &lora,
            )
        };
        let p = mk(PublishStatus::Published).await;
        let o = mk(PublishStatus::Published).await;
        let d = mk(PublishStatus::Draft).await;
        (p, o, d)
    };
    app.start_again();
    let creator = app.client.with_token(&creator_data.token);
    let user = app.client.with_token(&user_data.token);
    let other = app.client.with_token(&other_data.token);
    let visitor = app.client.clone();
    let m = published.model_id.as_str();

    // --- Comments on the model.
    let c1 = comment(&user, m, "Lovely ink lines").await.unwrap();
    let c1 = c1["id"].as_str().unwrap().to_owned();
    let r1: Value = creator
        .post(
            "/api/v1/comment2/add-replies",
            &json!({"obj_id": m, "obj_type": MODEL, "content": "Thanks!", "parent_id": c1}),
        )
        .await
        .unwrap();
    let c2 = comment(&other, m, "Works well at 0.6").await.unwrap();
    let c2 = c2["id"].as_str().unwrap().to_owned();
    // A visitor reads them, newest first, replies under their comment.
    let page = comments(&visitor, m).await;
    assert_eq!(page["total"], 3, "{page}");
    assert_eq!(ids(&page), [c2.clone(), c1.clone()]);
    assert_eq!(page["items"][1]["replies"][0]["id"], r1["id"], "{page}");
    assert_eq!(page["items"][1]["reply_count"], 1);
    // Likes count once.
    for _ in 0..2 {
        let _: Value = other
            .post("/api/v1/comment2/like", &json!({"id": c1, "cancel": false}))
            .await
            .unwrap();
    }
    let page = comments(&user, m).await;
    assert_eq!(page["items"][1]["like_count"], 1, "{page}");
    // The creator was told, like a work's author.
    let notes = post(&creator, "/api/v1/notification/list", json!({})).await;
    let on_model: Vec<&Value> = notes["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["obj_id"] == m && n["obj_type"] == MODEL)
        .collect();
    assert_eq!(on_model.len(), 2, "{notes}");
    assert!(on_model.iter().all(|n| n["kind"] == "comment"), "{notes}");
    // The model's count, in its detail and its card.
    assert_eq!(model_stats(&visitor, m).await["comments"], 3);
    let cards = post(
        &visitor,
        "/api/v1/square/model/other",
        json!({"account_id": creator_data.account.id}),
    )
    .await;
    let card = cards["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == m)
        .cloned()
        .unwrap_or_else(|| panic!("{cards}"));
    assert_eq!(card["comments"], 3, "{card}");
    // Deleting: another's comment answers NotFound-like, one's own goes.
    fails(
        other
            .post::<_, Value>("/api/v1/comment2/delete", &json!({"id": c1}))
            .await,
    );
    let _: Value = other
        .post("/api/v1/comment2/delete", &json!({"id": c2}))
        .await
        .unwrap();
    let page = comments(&visitor, m).await;
    assert_eq!(ids(&page), [c1.as_str()]);
    assert_eq!(page["total"], 2);
    assert_eq!(model_stats(&visitor, m).await["comments"], 2);
    // Someone else's draft answers like a missing model; its owner may comment.
    let d = draft.model_id.as_str();
    assert_eq!(
        fails(comment(&other, d, "hello").await),
        (ErrorCode::NotFound, 404)
    );
    assert_eq!(
        fails(
            other
                .post::<_, Value>(
                    "/api/v1/comment2/list",
                    &json!({"obj_id": d, "obj_type": MODEL})
                )
                .await
        )
        .0,
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(comment(&visitor, m, "anonymous").await).1,
        401,
        "visitors read but do not write"
    );
    comment(&creator, d, "note to self").await.unwrap();
    assert_eq!(comments(&creator, d).await["total"], 1);

    // --- The community gallery.
    let sd = checkpoint(&user, "sd").await;
    let body = with_lora(&t2i(&sd, "an ink heron", 3), &published.ver_no);
    let w_public = post_with_lora(&user, &body, "public", "Heron").await;
    let w_private = post_with_lora(&user, &body, "private", "Private heron").await;
    let w_other = post_with_lora(
        &user,
        &with_lora(&t2i(&sd, "an ink crane", 4), &other_ver.ver_no),
        "public",
        "Crane",
    )
    .await;
    // A work without a user's model is in no gallery.
    let plain = user
        .create_task("/api/v1/task/create", &t2i(&sd, "a plain fox", 5))
        .await
        .unwrap();
    user.wait_task(&plain, TASK_WAIT).await.unwrap();
    post(
        &user,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [plain], "title": "Fox"}),
    )
    .await;

    let by_model = json!({"model_id": m, "page_size": 10});
    assert_eq!(
        card_ids(&gallery(&other, by_model.clone()).await.unwrap()),
        [w_public.as_str()]
    );
    assert_eq!(
        card_ids(&gallery(&visitor, by_model.clone()).await.unwrap()),
        [w_public.as_str()]
    );
    assert_eq!(
        card_ids(&gallery(&user, by_model.clone()).await.unwrap()),
        [w_private.clone(), w_public.clone()],
        "its author sees the private work"
    );
    // Paging: one a page, then the next.
    let first = gallery(&user, json!({"model_id": m, "page_size": 1}))
        .await
        .unwrap();
    assert_eq!(card_ids(&first), [w_private.as_str()]);
    let next = first["next_cursor"].as_str().unwrap();
    let second = gallery(
        &user,
        json!({"model_id": m, "page_size": 1, "cursor": next}),
    )
    .await
    .unwrap();
    assert_eq!(card_ids(&second), [w_public.as_str()]);
    assert!(second["next_cursor"].is_null(), "{second}");
    // By version (the version alone names the model; a mismatch is NotFound).
    let by_ver = gallery(&other, json!({"model_ver_no": published.ver_no}))
        .await
        .unwrap();
    assert_eq!(card_ids(&by_ver), [w_public.as_str()]);
    let other_model = gallery(&other, json!({"model_ver_no": other_ver.ver_no}))
        .await
        .unwrap();
    assert_eq!(card_ids(&other_model), [w_other.as_str()]);
    assert_eq!(
        fails(
            gallery(
                &other,
                json!({"model_id": m, "model_ver_no": other_ver.ver_no})
            )
            .await
        )
        .0,
        ErrorCode::NotFound
    );
    // Someone else's draft model: NotFound; a bad cursor: InvalidParams.
    assert_eq!(
        fails(gallery(&other, json!({"model_id": d})).await).0,
        ErrorCode::NotFound
    );
    assert_eq!(
        fails(gallery(&other, json!({"model_id": m, "cursor": "zzz"})).await).0,
        ErrorCode::InvalidParams
    );
    // Without a model: the caller's own works, as before (logged in only).
    let mine = gallery(&user, json!({"page_size": 10})).await.unwrap();
    assert_eq!(card_ids(&mine).len(), 4, "{mine}");
    assert_eq!(fails(gallery(&visitor, json!({})).await).1, 401);

    // The version cannot be deleted while a work made with it exists.
    let can = post(
        &creator,
        "/api/v1/model/ver/can-del",
        json!({"model_ver_no": published.ver_no}),
    )
    .await;
    assert_eq!(can["can_delete"], false, "{can}");
    assert!(
        can["reason"].as_str().unwrap().contains("published work"),
        "{can}"
    );
    for w in [&w_public, &w_private] {
        post(&user, "/api/v1/artwork/delete", json!({"id": w})).await;
    }
    assert!(card_ids(&gallery(&user, by_model.clone()).await.unwrap()).is_empty());
    let can = post(
        &creator,
        "/api/v1/model/ver/can-del",
        json!({"model_ver_no": published.ver_no}),
    )
    .await;
    assert_eq!(can["can_delete"], true, "{can}");
    // The other model's gallery is untouched.
    assert_eq!(
        card_ids(
            &gallery(&visitor, json!({"model_id": other_ver.model_id}))
                .await
                .unwrap()
        ),
        [w_other]
    );
}
