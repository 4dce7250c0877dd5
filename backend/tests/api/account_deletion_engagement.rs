//! Account deletion and export, continued (issue 21 with issue 22's rows):
//! the export holds the person's check-ins, survey answers, activity
//! contributions and votes; the sweep removes them (counts and results
//! follow, other people's rows stay); and rows written before the owner
//! index existed are found by both once the index is backfilled.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use infra::store::embedded::EmbeddedStore;
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp, PASSWORD};

pub(crate) const ENV: &[(&str, &str)] = &[
    ("EASEL_SQUARE_WRITES_PER_MIN", "100000"),
    ("EASEL_COMMENTS_PER_MIN", "1000"),
    ("EASEL_ACCOUNT_DELETION_GRACE_DAYS", "0"),
    // The sweeper waits for the operator's call in these tests.
    ("EASEL_ACCOUNT_DELETION_SWEEP_SECS", "3600"),
];

async fn post(c: &RestClient, path: &str, body: Value) -> Value {
    c.post::<_, Value>(path, &body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

async fn article(c: &RestClient, title: &str) -> String {
    post(
        c,
        "/api/v1/post/article/add",
        json!({"title": title, "content": format!("About {title}."), "tags": ["words"], "visibility": "public"}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A survey and a live activity (articles, judged by votes), by the operator.
async fn survey_and_activity(op: &RestClient) -> (String, String) {
    let survey = post(
        op,
        "/api/v1/admin/survey/create",
        json!({"title": "One month in", "questions": [
            {"id": "fav", "kind": "single", "title": "Favourite", "required": true,
             "options": [{"id": "img", "label": "Images"}, {"id": "vid", "label": "Video"}]}]}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let now = now_ms();
    let activity = post(
        op,
        "/api/v1/admin/activity/create",
        json!({"title": "Autumn", "rules": "Paint autumn.",
               "periods": [{"start": now - 3_600_000, "end": now + 3_600_000}],
               "types": ["article"], "prizes": [10], "judging": "votes", "excellent_count": 1}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    (survey, activity)
}

async fn answer(c: &RestClient, survey: &str, choice: &str) {
    post(
        c,
        "/api/v1/app/questionnaire_survey_submit",
        json!({"survey_id": survey, "answers": [{"question_id": "fav", "choices": [choice]}]}),
    )
    .await;
}

async fn commit(c: &RestClient, work: &str, activity: &str) -> String {
    post(
        c,
        "/api/v1/activity/commit",
        json!({"type": "article", "obj_id": work, "activity_id": activity}),
    )
    .await["entry_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The activity's contributions: entry id → votes.
async fn entries(c: &RestClient, activity: &str) -> Vec<(String, i64)> {
    post(
        c,
        "/api/v1/theme-activity/post-list",
        json!({"id": activity}),
    )
    .await["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["entry_id"].as_str().unwrap().to_owned(),
                e["votes"].as_i64().unwrap_or(0),
            )
        })
        .collect()
}

async fn survey_figures(op: &RestClient, survey: &str) -> (i64, i64, i64) {
    let r = post(op, "/api/v1/admin/survey/results", json!({"id": survey})).await;
    let list = post(op, "/api/v1/admin/survey/list", json!({})).await;
    let listed = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == survey)
        .unwrap()["responses"]
        .as_i64()
        .unwrap();
    (
        r["responses"].as_i64().unwrap(),
        r["questions"][0]["options"][0]["count"].as_i64().unwrap(),
        listed,
    )
}

/// Runs an export to its end and answers one JSON file of the ZIP.
async fn export_file(c: &RestClient, name: &str) -> Value {
    post(c, "/api/v1/account/export/request", json!({})).await;
    for _ in 0..400 {
        let s = post(c, "/api/v1/account/export/status", json!({})).await;
        if s["state"] != "running" {
            assert_eq!(s["state"], "ready", "{s}");
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, _, bytes) = c
        .get_bytes("/api/v1/account/export/download")
        .await
        .unwrap();
    assert_eq!(status, 200);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut f = zip.by_name(name).unwrap();
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    serde_json::from_str(&s).unwrap()
}

async fn delete_and_sweep(app: &TestApp, op: &RestClient, c: &RestClient, me: &str) {
    post(
        c,
        "/api/v1/account/delete/request",
        json!({"password": PASSWORD}),
    )
    .await;
    post(op, "/api/v1/admin/account/deletion/sweep", json!({})).await;
    let got = post(
        op,
        "/api/v1/admin/account/deletion/get",
        json!({"account_id": me}),
    )
    .await;
    assert_eq!(got["deletion"]["state"], "done", "{got}");
    let _ = app;
}

pub(crate) fn open_store(app: &TestApp) -> DynStore {
    Arc::new(EmbeddedStore::open(&app.data.path().join("store")).unwrap())
}

/// How many rows a partition holds.
async fn rows(store: &DynStore, def: &'static infra::store::TableDef, pk: &Key) -> usize {
    let t: Table<Value> = Table::new(store.clone(), def);
    t.scan(pk, &ScanRange::all(1000)).await.unwrap().rows.len()
}

#[tokio::test]
async fn deletion_removes_check_ins_survey_answers_contributions_and_votes_which_the_export_held() {
    let mut app = spawn_app_with(ENV).await;
    let op = app.operator().await;
    let (ad, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let me = ad.account.id.clone();
    let (survey, activity) = survey_and_activity(&op).await;

    post(&alice, "/api/v1/activity/checkin", json!({"tz": "UTC"})).await;
    post(
        &alice,
        "/api/v1/analytics/settings",
        json!({"analytics_opt_out": true}),
    )
    .await;
    answer(&alice, &survey, "img").await;
    answer(&bob, &survey, "vid").await;
    // The ranking survey too.
    post(
        &op,
        "/api/v1/admin/rank/survey/upsert",
        json!({"id": "best-nov", "title": "Best of November", "max_choices": 1,
               "options": [{"id": "a", "label": "Ink"}, {"id": "b", "label": "Paper"}]}),
    )
    .await;
    for (c, choice) in [(&alice, "a"), (&bob, "b")] {
        post(
            c,
            "/api/v1/rank/push-surveys",
            json!({"survey_id": "best-nov", "choices": [choice]}),
        )
        .await;
    }
    let ranked = |v: Value| -> (i64, Vec<i64>) {
        let s = &v["items"][0];
        let votes = s["options"].as_array().unwrap().iter();
        (
            s["answers"].as_i64().unwrap(),
            votes.map(|o| o["votes"].as_i64().unwrap()).collect(),
        )
    };
    assert_eq!(
        ranked(post(&bob, "/api/v1/rank/get-surveys", json!({})).await),
        (2, vec![1, 1])
    );
    let ea = commit(&alice, &article(&alice, "Alice's leaves").await, &activity).await;
    let eb = commit(&bob, &article(&bob, "Bob's leaves").await, &activity).await;
    post(&alice, "/api/v1/activity/vote", json!({"entry_id": eb})).await;
    post(&bob, "/api/v1/activity/vote", json!({"entry_id": ea})).await;
    assert_eq!(survey_figures(&op, &survey).await, (2, 1, 2));

    let e = export_file(&alice, "engagement.json").await;
    assert_eq!(e["checkin"]["total"], 1, "{e}");
    assert_eq!(e["analytics_opted_out"], true);
    assert_eq!(e["survey_answers"].as_array().unwrap().len(), 1);
    assert_eq!(e["survey_answers"][0]["survey_id"], survey.as_str());
    assert_eq!(e["survey_answers"][0]["title"], "One month in");
    assert_eq!(
        e["rank_survey_answers"],
        json!([{"survey_id": "best-nov", "title": "Best of November", "choices": ["a"],
                "comment": "", "at": e["rank_survey_answers"][0]["at"]}])
    );
    let mine: Vec<&str> = e["activity_entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["entry_id"].as_str().unwrap())
        .collect();
    assert_eq!(mine, vec![ea.as_str()]);
    assert_eq!(
        e["activity_votes"],
        json!([{"entry_id": eb, "at": e["activity_votes"][0]["at"]}])
    );
    // Bob's export holds his rows, not hers.
    let b = export_file(&bob, "engagement.json").await;
    assert!(b["checkin"].is_null());
    assert_eq!(b["activity_votes"][0]["entry_id"], ea.as_str());

    delete_and_sweep(&app, &op, &alice, &me).await;

    // Her answer left the results and the count; Bob's stays.
    assert_eq!(survey_figures(&op, &survey).await, (1, 0, 1));
    assert_eq!(
        ranked(post(&bob, "/api/v1/rank/get-surveys", json!({})).await),
        (1, vec![0, 1])
    );
    // Her contribution left the list; her vote on Bob's is taken back.
    assert_eq!(entries(&bob, &activity).await, vec![(eb.clone(), 0)]);

    // In the store: nothing of hers is left in these tables.
    app.stop();
    let store = open_store(&app);
    let pk = Key::of(&me);
    assert_eq!(rows(&store, &tables::CHECKIN_STATE, &pk).await, 0);
    assert_eq!(rows(&store, &tables::AWARD_UNSEEN, &pk).await, 0);
    assert_eq!(rows(&store, &tables::ANALYTICS_OPT_OUTS, &pk).await, 0);
    assert_eq!(rows(&store, &tables::ACTIVITY_MINE, &pk).await, 0);
    let votes: Table<i64> = Table::new(store.clone(), &tables::ACTIVITY_VOTES);
    assert_eq!(votes.get(&Key::of(&eb), &pk).await.unwrap(), None);
    assert_eq!(
        rows(&store, &tables::ACTIVITY_VOTES, &Key::of(&ea)).await,
        0
    );
    let rank_answers: Table<Value> = Table::new(store.clone(), &tables::RANK_SURVEY_ANSWERS);
    assert_eq!(
        rank_answers.get(&Key::of("best-nov"), &pk).await.unwrap(),
        None
    );
    let answers: Table<Value> = Table::new(store.clone(), &tables::SURVEY_ANSWERS);
    assert_eq!(answers.get(&Key::of(&survey), &pk).await.unwrap(), None);
    assert!(answers
        .get(&Key::of(&survey), &Key::of(&ad.account.id))
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn rows_older_than_the_owner_index_are_found_by_the_export_and_the_sweep() {
    let mut app = spawn_app_with(ENV).await;
    let op = app.operator().await;
    let (ad, alice) = app.user("Olive").await;
    let (bd, bob) = app.user("Oscar").await;
    let me = ad.account.id.clone();
    let (survey, activity) = survey_and_activity(&op).await;
    let bobs_work = article(&bob, "Oscar's harbour").await;
    let eb = commit(&bob, &bobs_work, &activity).await;
    let character = post(
        &bob,
        "/api/v1/tavern-pro/publish",
        json!({"name": "Keeper", "greeting": "Hello {{user}}.", "persona": "{{char}} keeps a lighthouse.", "published": true}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let comment = post(
        &alice,
        "/api/v1/comment2/create",
        json!({"obj_id": character, "obj_type": 9, "content": "Lovely old lamp",
               "scene": "detail", "source": "/en/tavern/character"}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    post(
        &alice,
        "/api/v1/report",
        json!({"obj_id": bobs_work, "obj_type": 4, "reason": "spam", "text": ""}),
    )
    .await;
    answer(&alice, &survey, "img").await;
    post(&alice, "/api/v1/activity/vote", json!({"entry_id": eb})).await;
    assert_eq!(entries(&bob, &activity).await, vec![(eb.clone(), 1)]);

    // The old data: no owner index, and no backfill done yet.
    app.stop();
    {
        let store = open_store(&app);
        let owned: Table<Value> = Table::new(store.clone(), &tables::ACCT_OWNED);
        for kind in [
            "upload",
            "report",
            "appeal",
            "comment",
            "vote",
            "survey_answer",
        ] {
            owned
                .delete_partition(&Key::of(&me).str(kind))
                .await
                .unwrap();
        }
        let marker: Table<Value> = Table::new(store.clone(), &tables::ACCT_BACKFILL);
        marker
            .delete(&Key::of("owner_index"), &Key::empty())
            .await
            .unwrap();
        assert_eq!(
            rows(&store, &tables::ACCT_OWNED, &Key::of(&me).str("comment")).await,
            0
        );
    }
    app.start_again();
    // The same sessions, on the restarted server's address.
    let bob = app.client.with_token(&bd.token);
    let alice = app.client.with_token(
        &app.client
            .login(&ad.account.email, PASSWORD)
            .await
            .unwrap()
            .token,
    );
    let op = app.client.with_token(
        &app.client
            .login(crate::helpers::ADMIN_EMAIL, PASSWORD)
            .await
            .unwrap()
            .token,
    );

    // The export finds them.
    let comments = export_file(&alice, "comments.json").await;
    assert!(comments.to_string().contains(&comment), "{comments}");
    let moderation = export_file(&alice, "moderation.json").await;
    assert!(moderation.to_string().contains(&bobs_work), "{moderation}");
    let e = export_file(&alice, "engagement.json").await;
    assert_eq!(e["survey_answers"][0]["survey_id"], survey.as_str(), "{e}");
    assert_eq!(e["activity_votes"][0]["entry_id"], eb.as_str(), "{e}");

    // So does the sweep: her vote is taken back, her answer removed.
    delete_and_sweep(&app, &op, &alice, &me).await;
    assert_eq!(entries(&bob, &activity).await, vec![(eb.clone(), 0)]);
    assert_eq!(survey_figures(&op, &survey).await, (0, 0, 0));
    app.stop();
    let store = open_store(&app);
    let reports: Table<Value> = Table::new(store.clone(), &tables::MOD_REPORTS);
    let left = reports
        .scan(&Key::of(&format!("4:{bobs_work}")), &ScanRange::all(100))
        .await
        .unwrap()
        .rows;
    assert!(
        left.iter().all(|(_, r)| r["reporter"] != me.as_str()),
        "{left:?}"
    );
    // The index was drained again by the sweep.
    for kind in ["report", "vote", "survey_answer"] {
        assert_eq!(
            rows(&store, &tables::ACCT_OWNED, &Key::of(&me).str(kind)).await,
            0,
            "{kind}"
        );
    }
    let marker: Table<Value> = Table::new(store.clone(), &tables::ACCT_BACKFILL);
    let m = marker
        .get(&Key::of("owner_index"), &Key::empty())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m["done"], true, "{m}");
}
