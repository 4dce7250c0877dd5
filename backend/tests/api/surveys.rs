//! Questionnaires through the real binary: operators create, list, edit,
//! close; users get the open survey for them, answers are validated with
//! clear codes, one answer per account (also under concurrent submits);
//! results count options and average ratings; the CSV export escapes
//! commas, quotes, line breaks and formula cells.

use protocol::client::{ClientError, RestClient};
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

async fn app() -> TestApp {
    spawn_app_with(&[("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000")]).await
}

fn code<T: std::fmt::Debug>(r: Result<T, ClientError>) -> (i32, String) {
    let e = r.expect_err("expected a refusal");
    let s = e.status().expect("an API error");
    (s.code, s.key.clone().unwrap_or_default())
}

fn survey_def() -> Value {
    json!({
        "title": "Easel, one month in",
        "description": "Two minutes",
        "questions": [
            {"id": "fav", "kind": "single", "title": "Favourite tool", "required": true,
             "options": [{"id": "img", "label": "Images"}, {"id": "vid", "label": "Video, \"new\""}]},
            {"id": "also", "kind": "multiple", "title": "Also used", "max_choices": 2,
             "options": [{"id": "a", "label": "Audio"}, {"id": "c", "label": "Chat"}, {"id": "t", "label": "Training"}]},
            {"id": "stars", "kind": "rating", "title": "How good, 1-5?", "required": true},
            {"id": "why", "kind": "text", "title": "Why?", "max_chars": 200}
        ]
    })
}

async fn open_for(c: &RestClient) -> Vec<Value> {
    let v: Value = c
        .post("/api/v1/app/questionnaire_survey", &json!({}))
        .await
        .unwrap();
    v["items"].as_array().cloned().unwrap_or_default()
}

async fn submit(c: &RestClient, id: &str, answers: Value) -> Result<Value, ClientError> {
    c.post(
        "/api/v1/app/questionnaire_survey_submit",
        &json!({"survey_id": id, "answers": answers}),
    )
    .await
}

#[tokio::test]
async fn operators_make_surveys_users_answer_once_and_results_and_csv_add_up() {
    let app = app().await;
    let op = app.operator().await;
    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;

    // Only operators manage surveys; bad definitions say what is wrong.
    assert_eq!(
        code(
            ann.post::<_, Value>("/api/v1/admin/survey/create", &survey_def())
                .await
        )
        .0,
        40300
    );
    let mut bad = survey_def();
    bad["questions"][0]["options"] = json!([{"id": "x", "label": "Only one"}]);
    let (c, k) = code(
        op.post::<_, Value>("/api/v1/admin/survey/create", &bad)
            .await,
    );
    assert_eq!((c, k.as_str()), (40660, "surveyInvalid"));

    let created: Value = op
        .post("/api/v1/admin/survey/create", &survey_def())
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["closed"], false);

    // Visitors get none; users get it until they answer.
    let visitor: Value = app
        .client
        .post("/api/v1/app/questionnaire_survey", &json!({}))
        .await
        .unwrap();
    assert_eq!(visitor["items"], json!([]));
    let items = open_for(&ann).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], id.as_str());
    assert_eq!(items[0]["questions"].as_array().unwrap().len(), 4);

    // Validation with clear codes.
    let cases = [
        (
            json!([{"question_id": "stars", "rating": 4}]),
            40664,
            "surveyAnswerMissing",
        ),
        (
            json!([{"question_id": "fav", "choices": ["nope"]}, {"question_id": "stars", "rating": 4}]),
            40665,
            "surveyAnswerInvalid",
        ),
        (
            json!([{"question_id": "fav", "choices": ["img"]}, {"question_id": "stars", "rating": 9}]),
            40665,
            "surveyAnswerInvalid",
        ),
        (
            json!([{"question_id": "fav", "choices": ["img"]}, {"question_id": "stars", "rating": 3},
                   {"question_id": "also", "choices": ["a", "c", "t"]}]),
            40665,
            "surveyAnswerInvalid",
        ),
        (
            json!([{"question_id": "fav", "choices": ["img"]}, {"question_id": "stars", "rating": 3},
                   {"question_id": "why", "text": "x".repeat(201)}]),
            40666,
            "surveyTextTooLong",
        ),
    ];
    for (answers, want_code, want_key) in cases {
        let (c, k) = code(submit(&ann, &id, answers.clone()).await);
        assert_eq!((c, k.as_str()), (want_code, want_key), "{answers}");
    }
    let (c, _) = code(submit(&ann, "no-such-survey", json!([])).await);
    assert_eq!(c, 40661);

    // Ann answers; a second answer is refused and the survey is gone for her.
    let ann_answers = json!([
        {"question_id": "fav", "choices": ["vid"]},
        {"question_id": "also", "choices": ["c", "a"]},
        {"question_id": "stars", "rating": 5},
        {"question_id": "why", "text": "Fast, \"fun\", and\nfree =1+1, très 好"}
    ]);
    submit(&ann, &id, ann_answers.clone()).await.unwrap();
    let (c, k) = code(submit(&ann, &id, ann_answers).await);
    assert_eq!((c, k.as_str()), (40663, "surveyAnswered"));
    assert!(open_for(&ann).await.is_empty());
    assert_eq!(open_for(&bob).await.len(), 1);

    // Bob submits eight times at once: exactly one is taken.
    let bob_answers = json!([
        {"question_id": "fav", "choices": ["img"]},
        {"question_id": "stars", "rating": 2}
    ]);
    let tries = (0..8).map(|_| submit(&bob, &id, bob_answers.clone()));
    let outcomes = futures_util::future::join_all(tries).await;
    assert_eq!(outcomes.iter().filter(|r| r.is_ok()).count(), 1);
    for r in outcomes.into_iter().filter(|r| r.is_err()) {
        assert_eq!(code(r).0, 40663);
    }

    // Results: counts per option, the average rating, texts.
    let r: Value = op
        .post("/api/v1/admin/survey/results", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(r["responses"], 2);
    let q = &r["questions"];
    assert_eq!(q[0]["options"][0]["count"], 1);
    assert_eq!(q[0]["options"][1]["count"], 1);
    assert_eq!(q[1]["answered"], 1);
    assert_eq!(q[1]["options"][0]["count"], 1);
    assert_eq!(q[1]["options"][1]["count"], 1);
    assert_eq!(q[1]["options"][2]["count"], 0);
    assert_eq!(q[2]["rating_counts"], json!([0, 1, 0, 0, 1]));
    assert_eq!(q[2]["rating_average"], 3.5);
    assert_eq!(
        q[3]["texts"],
        json!(["Fast, \"fun\", and\nfree =1+1, très 好"])
    );
    let list: Value = op
        .post("/api/v1/admin/survey/list", &json!({}))
        .await
        .unwrap();
    assert_eq!(list["items"][0]["responses"], 2);

    // CSV: a header, one row per response, quoting done right.
    let (http, ctype, body) = op
        .post_bytes("/api/v1/admin/survey/export", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(http, 200);
    assert!(ctype.starts_with("text/csv"), "{ctype}");
    // A UTF-8 byte order mark first, so Excel reads non-ASCII answers right.
    let body = body
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .expect("the CSV starts with a UTF-8 BOM")
        .to_vec();
    let text = String::from_utf8(body).unwrap();
    let mut rows = csv_rows(&text);
    rows.sort_by(|a, b| a[2].cmp(&b[2]));
    assert_eq!(
        rows[0],
        vec![
            "submitted_at",
            "account",
            "Favourite tool",
            "Also used",
            "How good, 1-5?",
            "Why?"
        ]
    );
    assert!(
        text.starts_with("submitted_at,account,Favourite tool,Also used,\"How good, 1-5?\",Why?\n")
    );
    assert_eq!(&rows[1][2..], &["Images", "", "2", ""]);
    assert_eq!(
        &rows[2][2..],
        &[
            "Video, \"new\"",
            "Audio; Chat",
            "5",
            "Fast, \"fun\", and\nfree =1+1, très 好"
        ]
    );
    assert!(
        text.contains("\"Video, \"\"new\"\"\""),
        "quotes doubled: {text}"
    );
    assert_eq!(rows.len(), 3);
    assert!(rows[1][0].ends_with('Z') && rows[1][0].contains('T'));
    let (http, _, _) = ann
        .post_bytes("/api/v1/admin/survey/export", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(http, 403);

    // Closing: no longer offered, answers refused; editing keeps answers.
    let (_, cat) = app.user("Cat").await;
    let _: Value = op
        .post("/api/v1/admin/survey/close", &json!({"id": id}))
        .await
        .unwrap();
    assert!(open_for(&cat).await.is_empty());
    let (c, k) = code(submit(&cat, &id, bob_answers.clone()).await);
    assert_eq!((c, k.as_str()), (40662, "surveyClosed"));
    let mut edited = survey_def();
    edited["id"] = json!(id);
    edited["title"] = json!("Easel, two months in");
    let e: Value = op.post("/api/v1/admin/survey/edit", &edited).await.unwrap();
    assert_eq!(e["title"], "Easel, two months in");
    assert_eq!(e["responses"], 2);
    let mut missing = survey_def();
    missing["id"] = json!("no-such-survey");
    let (c, k) = code(
        op.post::<_, Value>("/api/v1/admin/survey/edit", &missing)
            .await,
    );
    assert_eq!((c, k.as_str()), (40661, "surveyNotFound"));
    assert_eq!(
        code(
            ann.post::<_, Value>("/api/v1/admin/survey/edit", &edited)
                .await
        )
        .0,
        40300
    );
    let _: Value = op
        .post(
            "/api/v1/admin/survey/close",
            &json!({"id": id, "closed": false}),
        )
        .await
        .unwrap();
    assert_eq!(open_for(&cat).await.len(), 1);
}

#[tokio::test]
async fn dates_and_audience_decide_who_is_asked() {
    let app = app().await;
    let op = app.operator().await;
    let (_, ann) = app.user("Ann").await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let mut later = survey_def();
    later["opens_at"] = json!(now + 86_400_000);
    let later: Value = op
        .post("/api/v1/admin/survey/create", &later)
        .await
        .unwrap();
    let mut members = survey_def();
    members["audience"] = json!("members");
    let members: Value = op
        .post("/api/v1/admin/survey/create", &members)
        .await
        .unwrap();
    let mut free = survey_def();
    free["audience"] = json!("free");
    let free: Value = op.post("/api/v1/admin/survey/create", &free).await.unwrap();

    let items = open_for(&ann).await;
    let ids: Vec<&str> = items.iter().filter_map(|i| i["id"].as_str()).collect();
    assert_eq!(ids, vec![free["id"].as_str().unwrap()]);
    let answers =
        json!([{"question_id": "fav", "choices": ["img"]}, {"question_id": "stars", "rating": 4}]);
    assert_eq!(
        code(submit(&ann, later["id"].as_str().unwrap(), answers.clone()).await).0,
        40662
    );
    // A survey for members answers a free account like a missing one.
    assert_eq!(
        code(submit(&ann, members["id"].as_str().unwrap(), answers).await).0,
        40661
    );
}

/// A small RFC 4180 reader, so the test checks the bytes, not the writer's own reader.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    rows
}
