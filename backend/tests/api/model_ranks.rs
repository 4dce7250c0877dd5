//! Model ranking calls over HTTP: the boards answer and refuse bad windows,
//! the ranking survey validates and tallies, post heroes read the square's
//! likes, categories list, model likes are idempotent; creativity
//! templates: made by a work's author only, applied as a real task with
//! the slot text in its prompt, listed in the caller's history.

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

const ENV: &[(&str, &str)] = &[
    ("EASEL_MODEL_RANK_CACHE_MS", "0"),
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_SQUARE_RANK_MS", "100"),
];

async fn app() -> TestApp {
    spawn_app_with(ENV).await
}

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The (code, key, message) of a refused call.
async fn refused(c: &RestClient, path: &str, body: Value) -> (i32, String, String) {
    let (_, env) = c.post_raw::<_, Value>(path, &body).await.unwrap();
    assert!(
        !env.status.is_ok(),
        "{path} should be refused: {:?}",
        env.data
    );
    (
        env.status.code,
        env.status.key.clone().unwrap_or_default(),
        env.status.msg.clone(),
    )
}

#[tokio::test]
async fn boards_answer_and_refuse_bad_input() {
    let app = app().await;
    let (_, c) = app.user("Viewer").await;
    let idx = post(&c, "/api/v1/model/rank-index", json!({})).await;
    let boards = idx["boards"].as_array().unwrap();
    let kinds: Vec<&str> = boards
        .iter()
        .map(|b| b["rank_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "hottest",
            "most_used",
            "most_downloaded",
            "top_earning",
            "new_rising"
        ]
    );
    assert_eq!(idx["time_type"], "week");
    let d = post(
        &app.client,
        "/api/v1/model/rank-detail",
        json!({"rank_type": 2, "time_type": 3}),
    )
    .await;
    assert_eq!(d["rank_type"], "most_used");
    assert_eq!(d["time_type"], "month");
    assert_eq!(d["items"], json!([]));
    for body in [
        json!({"time_type": "year"}),
        json!({"rank_type": 9}),
        json!({"base_models": ["nonsense-family"]}),
        json!({"cursor": "x1"}),
    ] {
        let (code, key, _) = refused(&c, "/api/v1/model/rank-detail", body.clone()).await;
        assert_eq!((code, key.as_str()), (40000, "InvalidParams"), "{body}");
    }
    let all = post(
        &c,
        "/api/v1/model/rank-detail-all",
        json!({"time_type": "all"}),
    )
    .await;
    assert_eq!(all["boards"].as_array().unwrap().len(), 5);
    let calc = post(&c, "/api/v1/model/leaderboard/calculates", json!({})).await;
    assert_eq!(
        calc["formula"]["score"],
        "1*uses + 3*downloads + 2*likes + 2*collects + 0.5*earnings"
    );
    assert_eq!(calc["windows"].as_array().unwrap().len(), 4);
    assert!(calc["windows"][0]["computed_at"].as_i64().unwrap() > 0);
    let rec = post(&app.client, "/api/v1/model/recommend", json!({})).await;
    assert_eq!(rec["items"], json!([]));
    let (code, _, _) = refused(
        &c,
        "/api/v1/model/recommend/pack",
        json!({"model_id": "no-such-model"}),
    )
    .await;
    assert_eq!(code, protocol::ErrorCode::NotFound.code());
    let (code, _, _) = refused(&c, "/api/v1/model/like", json!({"model_id": "nope"})).await;
    assert_eq!(code, protocol::ErrorCode::NotFound.code());
    let stars = post(
        &c,
        "/api/v1/model/leaderboard/portfolio-star",
        json!({"time_type": 0}),
    )
    .await;
    assert_eq!(stars["items"], json!([]));

    let cats = post(&c, "/api/v1/source-category/sub-list", json!({})).await;
    let keys: Vec<&str> = cats["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert!(keys.starts_with(&["character", "style", "concept", "clothing", "background"]));
    assert!(keys.contains(&"poses"));
    let subs = post(
        &c,
        "/api/v1/source-category/sub-list",
        json!({"parent": "style"}),
    )
    .await;
    assert!(subs["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["key"] == "anime"));
    let (code, _, _) = refused(
        &c,
        "/api/v1/source-category/sub-list",
        json!({"parent": "zzz"}),
    )
    .await;
    assert_eq!(code, 40000);
}

#[tokio::test]
async fn surveys_validate_and_tally() {
    let app = app().await;
    let op = app.operator().await;
    let (_, u1) = app.user("Voter").await;
    let (_, u2) = app.user("Other").await;
    let survey = json!({
        "id": "best-lora-nov",
        "title": "Best LoRA of November",
        "options": [
            {"id": "a", "label": "Ink style"},
            {"id": "b", "label": "Paper cut"},
            {"id": "c", "label": "Neon city"}
        ],
        "max_choices": 2
    });
    // Only operators define surveys, and a bad definition is refused.
    let (code, _, _) = refused(&u1, "/api/v1/admin/rank/survey/upsert", survey.clone()).await;
    assert_eq!(code, protocol::ErrorCode::NoPermission.code());
    let mut bad = survey.clone();
    bad["options"] = json!([{"id": "a", "label": "Only one"}]);
    let (code, key, _) = refused(&op, "/api/v1/admin/rank/survey/upsert", bad).await;
    assert_eq!((code, key.as_str()), (40000, "InvalidParams"));
    post(&op, "/api/v1/admin/rank/survey/upsert", survey).await;

    for (body, want) in [
        (
            json!({"survey_id": "best-lora-nov", "choices": []}),
            "at least",
        ),
        (
            json!({"survey_id": "best-lora-nov", "choices": ["a", "b", "c"]}),
            "at most",
        ),
        (
            json!({"survey_id": "best-lora-nov", "choices": ["z"]}),
            "not an option",
        ),
        (
            json!({"survey_id": "best-lora-nov", "choices": ["a", "a"]}),
            "twice",
        ),
        (
            json!({"survey_id": "best-lora-nov", "choices": ["a"], "comment": "hi"}),
            "no comment",
        ),
    ] {
        let (code, key, msg) = refused(&u1, "/api/v1/rank/push-surveys", body.clone()).await;
        assert_eq!((code, key.as_str()), (40000, "InvalidParams"), "{body}");
        assert!(msg.contains(want), "{msg} / {want}");
    }
    let (code, _, _) = refused(
        &u1,
        "/api/v1/rank/push-surveys",
        json!({"survey_id": "nope", "choices": ["a"]}),
    )
    .await;
    assert_eq!(code, protocol::ErrorCode::NotFound.code());
    // Visitors cannot answer.
    let (code, _, _) = refused(
        &app.client,
        "/api/v1/rank/push-surveys",
        json!({"survey_id": "best-lora-nov", "choices": ["a"]}),
    )
    .await;
    assert_eq!(code, protocol::ErrorCode::NeedLogin.code());

    let v = post(
        &u1,
        "/api/v1/rank/push-surveys",
        json!({"survey_id": "best-lora-nov", "choices": ["c", "a"]}),
    )
    .await;
    assert_eq!(v["answers"], 1);
    post(
        &u2,
        "/api/v1/rank/push-surveys",
        json!({"survey_id": "best-lora-nov", "choices": ["a"]}),
    )
    .await;
    let votes = |v: &Value| -> Vec<i64> {
        v["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["votes"].as_i64().unwrap())
            .collect()
    };
    let list = post(&u1, "/api/v1/rank/get-surveys", json!({})).await;
    let s = &list["items"][0];
    assert_eq!(s["answers"], 2);
    assert_eq!(votes(s), [2, 0, 1]);
    assert_eq!(s["answered"], true);
    assert_eq!(s["options"][0]["chosen"], true);
    assert_eq!(s["options"][1]["chosen"], false);
    // Answering again replaces the answer: one per user.
    post(
        &u1,
        "/api/v1/rank/push-surveys",
        json!({"survey_id": "best-lora-nov", "choices": ["b"]}),
    )
    .await;
    let list = post(&app.client, "/api/v1/rank/get-surveys", json!({})).await;
    let s = &list["items"][0];
    assert_eq!(s["answers"], 2);
    assert_eq!(votes(s), [1, 1, 0]);
    assert_eq!(s["answered"], false);
}

/// A finished text-to-image task of `c`'s.
async fn finished_task(c: &RestClient, prompt: &str) -> String {
    let sd = checkpoint(c, "sd").await;
    let id = c
        .create_task("/api/v1/task/create", &t2i(&sd, prompt, 7))
        .await
        .unwrap();
    let t = c.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, protocol::task::TaskStatus::Success, "{t:?}");
    id
}

async fn picture(c: &RestClient, task: &str, visibility: &str) -> String {
    let w = post(
        c,
        "/api/v1/post/portfolio/add_v2",
        json!({"task_ids": [task], "title": "Fox", "description": "", "tags": ["fox"], "visibility": visibility}),
    )
    .await;
    w["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn templates_make_real_tasks_and_post_heroes_count_likes() {
    let app = app().await;
    let (ad, a) = app.user("Author").await;
    let (_, b) = app.user("Maker").await;
    let task = finished_task(&a, "a red fox in a snowy forest, oil painting").await;
    let public = picture(&a, &task, "public").await;
    let task2 = finished_task(&a, "a red fox at night").await;
    let private = picture(&a, &task2, "private").await;

    // Someone else's private work cannot become a template (nor their public one).
    let slots = json!([{"key": "animal", "label": "Animal", "text": "red fox"}]);
    for w in [&private, &public] {
        let (code, _, _) = refused(
            &b,
            "/api/v1/creativity/template/create",
            json!({"work_id": w, "slots": slots}),
        )
        .await;
        assert_eq!(code, protocol::ErrorCode::NotFound.code());
    }
    // Slots must name words of the prompt.
    let (code, _, msg) = refused(
        &a,
        "/api/v1/creativity/template/create",
        json!({"work_id": public, "slots": [{"key": "animal", "text": "grey wolf"}]}),
    )
    .await;
    assert_eq!(code, 40000);
    assert!(msg.contains("not in the prompt"), "{msg}");
    let t = post(
        &a,
        "/api/v1/creativity/template/create",
        json!({"work_id": public, "slots": slots}),
    )
    .await;
    let tid = t["template_id"].as_str().unwrap().to_owned();
    assert_eq!(
        t["prompt_template"],
        "a {animal} in a snowy forest, oil painting"
    );

    let d = post(
        &app.client,
        "/api/v1/creativity/square/template/detail",
        json!({"template_id": tid}),
    )
    .await;
    assert_eq!(d["slots"][0]["key"], "animal");
    assert_eq!(d["slots"][0]["default"], "red fox");
    assert_eq!(d["author"]["id"], ad.account.id.as_str());
    assert!(d["preview"].as_str().unwrap().contains("/files/"));
    let list = post(
        &app.client,
        "/api/v1/creativity/square/template/list",
        json!({}),
    )
    .await;
    assert_eq!(list["items"][0]["template_id"], tid.as_str());

    // Applying: a real task with the slot text in its prompt.
    let (code, _, _) = refused(
        &b,
        "/api/v1/creativity/square/template/generate/apply",
        json!({"template_id": tid, "inputs": {"colour": "green"}}),
    )
    .await;
    assert_eq!(code, 40000);
    let r = post(
        &b,
        "/api/v1/creativity/square/template/generate/apply",
        json!({"template_id": tid, "inputs": {"animal": "blue whale"}}),
    )
    .await;
    let task_id = r["task_id"].as_str().unwrap().to_owned();
    assert_eq!(r["prompt"], "a blue whale in a snowy forest, oil painting");
    let done = b.wait_task(&task_id, TASK_WAIT).await.unwrap();
    assert_eq!(done.status, protocol::task::TaskStatus::Success, "{done:?}");
    assert!(done.prompt.contains("blue whale"), "{}", done.prompt);
    assert_eq!(done.width, 512);
    let h = post(
        &b,
        "/api/v1/creativity/square/template/generate/history",
        json!({}),
    )
    .await;
    let items = h["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["task_id"], task_id.as_str());
    assert_eq!(items[0]["inputs"]["animal"], "blue whale");
    assert_eq!(items[0]["task"]["status"], json!(done.status));
    // Nobody else's history shows it.
    let h = post(
        &a,
        "/api/v1/creativity/square/template/generate/history",
        json!({}),
    )
    .await;
    assert_eq!(h["items"], json!([]));
    // The template counts its uses; once the work is private, it is gone for others.
    let d = post(
        &a,
        "/api/v1/creativity/square/template/detail",
        json!({"template_id": tid}),
    )
    .await;
    assert_eq!(d["uses"], 1);
    post(
        &a,
        "/api/v1/artwork/visibility",
        json!({"id": public, "visibility": "private"}),
    )
    .await;
    let (code, _, _) = refused(
        &b,
        "/api/v1/creativity/square/template/detail",
        json!({"template_id": tid}),
    )
    .await;
    assert_eq!(code, protocol::ErrorCode::NotFound.code());
    post(
        &a,
        "/api/v1/artwork/visibility",
        json!({"id": public, "visibility": "public"}),
    )
    .await;

    // Post heroes: the author's work got a like today.
    post(&b, "/api/v1/artwork/like", json!({"id": public})).await;
    let heroes = post(
        &app.client,
        "/api/v1/model/leaderboard/post-heroes",
        json!({"time_type": "day"}),
    )
    .await;
    assert_eq!(heroes["items"][0]["account"]["id"], ad.account.id.as_str());
    assert_eq!(heroes["items"][0]["likes"], 1);
    assert_eq!(heroes["total"], 1);
    post(&b, "/api/v1/artwork/like-cancel", json!({"id": public})).await;
    let heroes = post(
        &app.client,
        "/api/v1/model/leaderboard/post-heroes",
        json!({"time_type": "week"}),
    )
    .await;
    assert_eq!(heroes["total"], 0);
}
