//! The model feeds' orders over HTTP (issue 19): `hot` ranks an older
//! model with uses and likes above newer ones without, pages without
//! repeats or gaps (also when figures change between pages), keeps the
//! filters; `recommend` puts a viewer's families first and gives visitors
//! hot; `new` is unchanged. Model lists answer the same live figures as a
//! model's detail.
//!
//! Models are written straight into the server's store while it is stopped
//! (`ModelService`), with their uses (`ModelRanks::record`); likes go
//! through `model/like`.

use std::sync::Arc;

use easel::models::rank::{ModelEvent, ModelRanks, RankSettings};
use easel::models::{ModelRow, ModelService, VersionRow};
use infra::store::embedded::EmbeddedStore;
use infra::store::DynStore;
use protocol::client::RestClient;
use protocol::models::{ModelType, PublishStatus, VersionSource, VersionStatus};
use serde_json::{json, Value};

use crate::helpers::spawn_app_with;

const FEED: &str = "/api/v1/square/v3/model/list";
const HOUR: i64 = 3_600_000;

fn row(id: &str, owner: &str, family: &str, at: i64) -> (ModelRow, VersionRow) {
    let ver = format!("{id}v");
    let m = ModelRow {
        id: id.into(),
        owner: owner.into(),
        owner_name: "Meg".into(),
        name: format!("Model {id}"),
        model_type: ModelType::Lora,
        family: family.into(),
        variant: String::new(),
        description: String::new(),
        tags: vec![],
        publish_status: PublishStatus::Published,
        nsfw: false,
        allow_download: false,
        agency_fee: 0,
        versions: vec![ver.clone()],
        create_at: at,
        update_at: at,
        published_at: Some(at),
    };
    let v = VersionRow {
        ver_no: ver,
        model_id: id.into(),
        owner: owner.into(),
        name: "v1".into(),
        description: String::new(),
        trained_words: vec![],
        status: VersionStatus::Ready,
        status_msg: String::new(),
        publish_status: PublishStatus::Published,
        source: VersionSource::Upload,
        file: None,
        images: vec![],
        weight: 0.8,
        train_task_id: None,
        create_at: at,
    };
    (m, v)
}

async fn page(c: &RestClient, body: &Value) -> (Vec<String>, Option<String>) {
    let p: Value = c.post(FEED, body).await.unwrap();
    let ids = p["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect();
    (ids, p["next_cursor"].as_str().map(str::to_owned))
}

/// Every page, following the cursors; asserts no page repeats a model.
async fn pages(c: &RestClient, body: Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut b = body;
    loop {
        let (ids, next) = page(c, &b).await;
        for id in ids {
            assert!(!out.contains(&id), "{id} repeated");
            out.push(id);
        }
        match next {
            Some(n) => b["cursor"] = n.into(),
            None => return out,
        }
    }
}

fn ids(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|x| (*x).to_owned()).collect()
}

#[tokio::test]
async fn model_feeds_order_by_hot_recommend_and_new() {
    let mut app = spawn_app_with(&[("EASEL_MODEL_RANK_CACHE_MS", "0")]).await;
    let (meg, _) = app.user("Meg").await;
    let (uma, _) = app.user("Uma").await;
    let (ola, _) = app.user("Ola").await;
    let creator = meg.account.id.clone();
    app.stop();
    let now = easel::accounts::now_millis();
    {
        let store: DynStore =
            Arc::new(EmbeddedStore::open(&app.data.path().join("store")).unwrap());
        let models = ModelService::new(store.clone());
        // a is the newest, f the oldest (one hour apart).
        for (n, (id, family)) in [
            ("ma", "sd"),
            ("mb", "sdxl"),
            ("mc", "sd"),
            ("md", "sdxl"),
            ("me", "sd"),
            ("mf", "sdxl"),
        ]
        .iter()
        .enumerate()
        {
            let (m, v) = row(id, &creator, family, now - (n as i64 + 1) * HOUR);
            models.insert(&m, &v).await.unwrap();
            models.index_public(&m).await.unwrap();
        }
        let ranks = ModelRanks::new(store, RankSettings::default());
        for (id, uses) in [("me", 3), ("mc", 1)] {
            for k in 0..uses {
                let key = format!("task-{id}-{k}");
                assert!(ranks
                    .record(id, &creator, ModelEvent::Use, now, Some(&key))
                    .await
                    .unwrap());
            }
        }
    }
    app.start_again();
    let uma = app.client.with_token(&uma.token);
    let ola = app.client.with_token(&ola.token);
    let liked: Value = uma
        .post("/api/v1/model/like", &json!({"model_id": "mf"}))
        .await
        .unwrap();
    assert_eq!(liked["likes"], 1);

    // new: as before.
    let newest = ids(&["ma", "mb", "mc", "md", "me", "mf"]);
    let new = pages(&app.client, json!({"order_by": "new", "page_size": 4})).await;
    assert_eq!(new, newest);
    assert_eq!(pages(&app.client, json!({"page_size": 4})).await, newest);

    // hot: me (3 uses, 5 h old) > mf (a like, 6 h) > mc (1 use, 3 h), then
    // the models without figures, newest first; pages of 2 neither repeat
    // nor skip.
    let hot = ids(&["me", "mf", "mc", "ma", "mb", "md"]);
    let body = json!({"order_by": "hot", "page_size": 2});
    assert_eq!(pages(&app.client, body.clone()).await, hot);
    // Filters keep the order.
    let xl = json!({"order_by": "hot", "page_size": 2, "base_models": ["sdxl"]});
    assert_eq!(pages(&app.client, xl).await, ids(&["mf", "mb", "md"]));
    let none = json!({"order_by": "hot", "model_types": ["checkpoint"]});
    assert_eq!(pages(&app.client, none).await, Vec::<String>::new());

    // Figures that change between pages move nothing across page edges.
    let (first, cursor) = page(&app.client, &body).await;
    assert_eq!(first, hot[..2].to_vec());
    ola.post::<_, Value>("/api/v1/model/like", &json!({"model_id": "md"}))
        .await
        .unwrap();
    let mut rest_body = body.clone();
    rest_body["cursor"] = cursor.unwrap().into();
    let rest = pages(&app.client, rest_body).await;
    assert_eq!([first, rest].concat(), hot);
    // A new first page sees md's like (2 points, 4 h old: above mc).
    let fresh = pages(&app.client, body.clone()).await;
    assert_eq!(fresh, ids(&["me", "md", "mf", "mc", "ma", "mb"]));

    // recommend: Uma liked an sdxl model, so the other sdxl models lead,
    // and the liked one comes last; visitors get hot.
    let rec = json!({"order_by": "recommend", "page_size": 4});
    assert_eq!(pages(&app.client, rec.clone()).await, fresh);
    let mine = pages(&uma, rec.clone()).await;
    assert_eq!(mine, ids(&["md", "mb", "me", "mc", "ma", "mf"]));
    // The recommend path defaults to recommend; the list path to new.
    let r: Value = uma
        .post("/api/v1/square/model/recommend", &json!({"page_size": 2}))
        .await
        .unwrap();
    assert_eq!(r["items"][0]["id"], "md");

    // Bad cursors answer InvalidParams.
    for c in ["r0", "rx.1.s", "ma"] {
        let (_, env) = app
            .client
            .post_raw::<_, Value>(FEED, &json!({"order_by": "hot", "cursor": c}))
            .await
            .unwrap();
        assert_eq!(
            env.status.code,
            protocol::ErrorCode::InvalidParams.code(),
            "{c}"
        );
    }

    // Cards and lists carry the live figures; a list answers the same
    // figures and versions as each model's detail.
    let (_, env) = uma
        .post_raw::<_, Value>(FEED, &json!({"order_by": "hot", "base_models": ["sdxl"]}))
        .await
        .unwrap();
    let cards = env.data;
    let md = cards["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "md")
        .unwrap();
    assert_eq!(
        (md["likes"].as_i64(), md["liked"].as_bool()),
        (Some(1), Some(false))
    );
    let list: Value = uma
        .post(
            "/api/v1/model/list/other",
            &json!({"account_id": creator, "page_size": 50}),
        )
        .await
        .unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 6);
    for item in items {
        let detail: Value = uma
            .post(
                "/api/v1/model/detail",
                &json!({"model_id": item["model_id"]}),
            )
            .await
            .unwrap();
        assert_eq!(item, &detail);
    }
    assert!(items.iter().any(|i| i["stats"]["uses"] == 3));
}
