//! Users' models in generation (issue 19): a published LoRA used by another
//! user's task on the reference engine pays its creator the fee once, on
//! success only; the rules' keys for drafts and family mismatches; estimates
//! with fees; `ver/can-del` while a task runs; a tampered model file fails
//! the task in the worker's cache check and pays nothing.
//!
//! Models are written straight into the server's store while it is stopped
//! (`ModelService::insert`), with real small safetensors files (written by
//! the `safetensors` crate) in its object store under `m/`.

use std::collections::HashMap;
use std::sync::Arc;

use easel::credits::Ledger;
use easel::models::uses::ModelUses;
use easel::models::{new_id, ModelFileRow, ModelRow, ModelService, VersionRow};
use infra::objects::{LocalObjects, ObjectKey, Objects};
use infra::store::embedded::EmbeddedStore;
use infra::store::{DynStore, Key};
use protocol::models::{ModelType, PublishStatus, VersionSource, VersionStatus};
use protocol::task::TaskStatus;
use serde_json::{json, Value};
use sha2::Digest;

use crate::helpers::{spawn_app_with, TestApp};
use crate::tasks::{checkpoint, t2i, TASK_WAIT};

/// A tiny LoRA-shaped safetensors file with kohya-style metadata.
pub(crate) fn lora_bytes(seed: u8) -> Vec<u8> {
    let down: Vec<u8> = (0..4 * 8 * 2)
        .map(|i| (i as u8).wrapping_mul(seed))
        .collect();
    let up: Vec<u8> = (0..8 * 4 * 2)
        .map(|i| (i as u8).wrapping_add(seed))
        .collect();
    let tensors = vec![
        (
            "lora_unet_down_blocks_0_attentions_0_proj_in.lora_down.weight",
            safetensors::tensor::TensorView::new(safetensors::Dtype::F16, vec![4, 8], &down)
                .unwrap(),
        ),
        (
            "lora_unet_down_blocks_0_attentions_0_proj_in.lora_up.weight",
            safetensors::tensor::TensorView::new(safetensors::Dtype::F16, vec![8, 4], &up).unwrap(),
        ),
    ];
    let meta = HashMap::from([
        ("ss_network_module".to_string(), "networks.lora".to_string()),
        ("ss_network_dim".to_string(), "4".to_string()),
    ]);
    safetensors::tensor::serialize(tensors, Some(meta)).unwrap()
}

pub(crate) struct Made {
    pub(crate) model_id: String,
    pub(crate) ver_no: String,
}

/// Writes a model with one ready version whose file is `bytes` (recorded
/// with `recorded`'s hash and size: pass other bytes to store a tampered file).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn make_model(
    store: &DynStore,
    objects: &LocalObjects,
    owner: &str,
    kind: ModelType,
    family: &str,
    fee: i64,
    publish: PublishStatus,
    recorded: &[u8],
    stored: &[u8],
) -> Made {
    let models = ModelService::new(store.clone());
    let model_id = new_id("m");
    let ver_no = new_id("v");
    let key = format!("m/{owner}/{ver_no}.safetensors");
    objects
        .put(
            &ObjectKey::parse(&key).unwrap(),
            stored.to_vec(),
            "application/octet-stream",
        )
        .await
        .unwrap();
    let sha = hex::encode(sha2::Sha256::digest(recorded));
    let file = ModelFileRow {
        file_id: new_id("f"),
        owner: owner.into(),
        key,
        name: "ink-style.safetensors".into(),
        size: recorded.len() as u64,
        sha256: sha.clone(),
        autov2: sha[..10].to_string(),
        autov3: String::new(),
        detected_type: Some(kind),
        detected_family: Some(family.into()),
        rank: Some(4),
        alpha: None,
        tensor_count: 2,
        trained_words: vec!["inkstyle".into()],
        metadata: Default::default(),
        create_at: 1,
    };
    let m = ModelRow {
        id: model_id.clone(),
        owner: owner.into(),
        owner_name: "Creator".into(),
        name: "Ink style".into(),
        model_type: kind,
        family: family.into(),
        variant: String::new(),
        description: String::new(),
        tags: vec![],
        publish_status: publish,
        nsfw: false,
        allow_download: false,
        agency_fee: fee,
        versions: vec![ver_no.clone()],
        create_at: 1,
        update_at: 1,
        published_at: (publish == PublishStatus::Published).then_some(1),
    };
    let v = VersionRow {
        ver_no: ver_no.clone(),
        model_id: model_id.clone(),
        owner: owner.into(),
        name: "v1".into(),
        description: String::new(),
        trained_words: vec!["inkstyle".into()],
        status: VersionStatus::Ready,
        status_msg: String::new(),
        publish_status: publish,
        source: VersionSource::Upload,
        file: Some(file),
        images: vec![],
        weight: 0.8,
        train_task_id: None,
        create_at: 1,
    };
    models.insert(&m, &v).await.unwrap();
    models.index_public(&m).await.unwrap();
    Made { model_id, ver_no }
}

pub(crate) fn open(app: &TestApp) -> (DynStore, LocalObjects) {
    let store: DynStore = Arc::new(EmbeddedStore::open(&app.data.path().join("store")).unwrap());
    let objects = LocalObjects::new(app.data.path().join("objects")).unwrap();
    (store, objects)
}

async fn assets(client: &protocol::client::RestClient) -> Value {
    client
        .post("/api/v1/payment/assets/get", &json!({}))
        .await
        .unwrap()
}

pub(crate) fn with_lora(body: &Value, ver: &str) -> Value {
    let mut b = body.clone();
    b["meta"]["lora_models"] = json!([{ "model_ver_no": ver, "weight": 0.7 }]);
    b
}

async fn err_key(client: &protocol::client::RestClient, body: &Value) -> (String, String) {
    let e = client
        .create_task("/api/v1/task/create", body)
        .await
        .expect_err("the call should fail");
    let s = e.status();
    (
        s.and_then(|s| s.key.clone()).unwrap_or_default(),
        s.map(|s| s.msg.clone()).unwrap_or_default(),
    )
}

#[tokio::test]
async fn a_published_lora_pays_its_creator_once_and_only_on_success() {
    let mut app = spawn_app_with(&[("EASEL_REFERENCE_STEP_MS", "100")]).await;
    let (creator_data, _) = app.user("Creator").await;
    let (payer_data, _) = app.user("Payer").await;
    let creator_id = creator_data.account.id.clone();
    app.stop();
    let lora = lora_bytes(3);
    let (published, draft, xl) = {
        let (store, objects) = open(&app);
        let p = make_model(
            &store,
            &objects,
            &creator_id,
            ModelType::Lora,
            "sd",
            5,
            PublishStatus::Published,
            &lora,
            &lora,
        )
        .await;
        let d = make_model(
            &store,
            &objects,
            &creator_id,
            ModelType::Lora,
            "sd",
            5,
            PublishStatus::Draft,
            &lora,
            &lora,
        )
        .await;
        let x = make_model(
            &store,
            &objects,
            &creator_id,
            ModelType::Lora,
            "sdxl",
            0,
            PublishStatus::Published,
            &lora,
            &lora,
        )
        .await;
        (p, d, x)
    };
    app.start_again();
    let creator = app.client.with_token(&creator_data.token);
    let payer = app.client.with_token(&payer_data.token);
    let sd = checkpoint(&payer, "sd").await;
    let base = t2i(&sd, "an ink drawing of a heron", 11);
    let body = with_lora(&base, &published.ver_no);

    // The estimate includes the fee.
    let plain: Value = payer.post("/api/v1/task/v2/estimate", &base).await.unwrap();
    let with_fee: Value = payer.post("/api/v1/task/v2/estimate", &body).await.unwrap();
    let cost = plain["calculate_coins"].as_i64().unwrap();
    assert_eq!(with_fee["calculate_coins"].as_i64().unwrap(), cost + 5);

    // Refusals change nothing.
    let payer_before = assets(&payer).await;
    let creator_before = assets(&creator).await;
    let (key, msg) = err_key(&payer, &with_lora(&base, &draft.ver_no)).await;
    assert_eq!(key, "InvalidParams", "someone else's draft LoRA");
    assert!(msg.contains(&draft.ver_no), "{msg}");
    let (key, _) = err_key(&payer, &with_lora(&base, &xl.ver_no)).await;
    assert_eq!(key, "studio25", "an SDXL LoRA on an SD checkpoint");
    let mut draft_ckpt = base.clone();
    draft_ckpt["art_model_ver_no"] = json!(draft.ver_no);
    let (key, _) = err_key(&payer, &draft_ckpt).await;
    assert_eq!(key, "PleaseSelectBaseName");
    assert_eq!(assets(&payer).await["coins"], payer_before["coins"]);
    assert_eq!(assets(&payer).await["held"], 0);

    // The task runs with the LoRA; the version cannot be deleted meanwhile.
    let id = payer
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let can: Value = creator
        .post(
            "/api/v1/model/ver/can-del",
            &json!({"model_ver_no": published.ver_no}),
        )
        .await
        .unwrap();
    assert_eq!(can["can_delete"], false, "{can}");
    assert!(can["reason"].as_str().unwrap().contains("task"), "{can}");
    // Someone else's version answers like a missing one.
    assert!(payer
        .post::<_, Value>(
            "/api/v1/model/ver/can-del",
            &json!({"model_ver_no": published.ver_no})
        )
        .await
        .is_err());
    let t = payer.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    assert_eq!(t.deduction_detail.coins, cost + 5);
    let engine = t.engine.clone().unwrap();
    assert!(
        engine
            .notes
            .iter()
            .any(|n| n.contains("cannot apply model weights")),
        "{engine:?}"
    );
    let can: Value = creator
        .post(
            "/api/v1/model/ver/can-del",
            &json!({"model_ver_no": published.ver_no}),
        )
        .await
        .unwrap();
    assert_eq!(can["can_delete"], true, "{can}");

    // The fee is granted as the task's end is applied, which may follow the
    // success the payer sees by a moment: wait for it, then check it stays
    // exactly one fee.
    let mut earned = 0;
    let mut creator_after = Value::Null;
    for _ in 0..200 {
        creator_after = assets(&creator).await;
        earned =
            creator_after["coins"].as_i64().unwrap() - creator_before["coins"].as_i64().unwrap();
        if earned != 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(earned, 5, "the creator earns the fee");
    let payer_after = assets(&payer).await;
    assert_eq!(
        payer_before["coins"].as_i64().unwrap() - payer_after["coins"].as_i64().unwrap(),
        cost + 5,
        "the payer pays the task and the fee"
    );
    // The per-model counts are written just after the grant: wait for them.
    let mut e = Value::Null;
    for _ in 0..200 {
        e = creator
            .post("/api/v1/model/leaderboard/creator-earnings", &json!({}))
            .await
            .unwrap();
        let counted = e["by_model"].as_array().is_some_and(|by| {
            by.iter()
                .any(|m| m["model_id"] == json!(published.model_id) && m["uses"] == 1)
        });
        if counted {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(e["total"], 5, "{e}");
    assert_eq!(e["items"].as_array().unwrap().len(), 1, "{e}");
    assert_eq!(e["items"][0]["task_id"], json!(id));
    assert_eq!(e["items"][0]["payer"], json!(payer_data.account.id));
    let by = e["by_model"].as_array().unwrap();
    let row = by
        .iter()
        .find(|m| m["model_id"] == json!(published.model_id))
        .unwrap();
    assert_eq!(
        (row["uses"].as_i64(), row["earnings"].as_i64()),
        (Some(1), Some(5))
    );
    // The rankings counted the use and the fee: the model's live figures
    // (counted as the task's end is applied, the fee in the background:
    // wait for both) and the most-used board.
    let mut stats = Value::Null;
    for _ in 0..100 {
        let d: Value = creator
            .post(
                "/api/v1/model/detail",
                &json!({"model_id": published.model_id}),
            )
            .await
            .unwrap();
        stats = d["stats"].clone();
        if stats["earnings"] == 5 && stats["uses"] == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        (stats["uses"].as_i64(), stats["earnings"].as_i64()),
        (Some(1), Some(5)),
        "{stats}"
    );
    // Boards are recomputed at most once a second after an event.
    let mut board = Value::Null;
    for _ in 0..100 {
        board = creator
            .post(
                "/api/v1/model/rank-detail",
                &json!({"rank_type": "most_used", "time_type": "all"}),
            )
            .await
            .unwrap();
        if board["items"][0]["model"]["model_id"] == json!(published.model_id) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        board["items"][0]["model"]["model_id"],
        json!(published.model_id),
        "{board}"
    );

    // The creator's own use costs no fee.
    let own: Value = creator
        .post(
            "/api/v1/task/v2/estimate",
            &with_lora(&base, &published.ver_no),
        )
        .await
        .unwrap();
    assert_eq!(own["calculate_coins"].as_i64().unwrap(), cost);

    // Replaying the task's end (what the reconciler does after a crash)
    // pays nothing more.
    app.stop();
    {
        let (store, _) = open(&app);
        let uses = ModelUses::new(store.clone(), Ledger::new(store.clone()));
        let tasks: infra::store::Table<easel::tasks::row::TaskRow> =
            infra::store::Table::new(store.clone(), &infra::store::tables::TASKS);
        let row = tasks
            .get(&Key::of(&id), &Key::empty())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.model_uses.len(), 1);
        uses.task_ended(&row).await.unwrap();
        uses.task_ended(&row).await.unwrap();
    }
    app.start_again();
    let creator = app.client.with_token(&creator_data.token);
    assert_eq!(assets(&creator).await["coins"], creator_after["coins"]);
    let e: Value = creator
        .post("/api/v1/model/leaderboard/creator-earnings", &json!({}))
        .await
        .unwrap();
    assert_eq!(e["total"], 5, "{e}");
    assert_eq!(e["items"].as_array().unwrap().len(), 1, "{e}");
    let row = e["by_model"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model_id"] == json!(published.model_id))
        .cloned()
        .unwrap();
    assert_eq!(row["uses"], 1, "{row}");
}

#[tokio::test]
async fn a_tampered_model_file_fails_the_task_and_pays_nobody() {
    let mut app = spawn_app_with(&[]).await;
    let (creator_data, _) = app.user("Creator").await;
    let (payer_data, _) = app.user("Payer").await;
    let creator_id = creator_data.account.id.clone();
    app.stop();
    let good = lora_bytes(5);
    let mut bad = good.clone();
    if let Some(b) = bad.last_mut() {
        *b ^= 0x55;
    }
    let made = {
        let (store, objects) = open(&app);
        make_model(
            &store,
            &objects,
            &creator_id,
            ModelType::Lora,
            "sd",
            4,
            PublishStatus::Published,
            &good,
            &bad,
        )
        .await
    };
    app.start_again();
    let creator = app.client.with_token(&creator_data.token);
    let payer = app.client.with_token(&payer_data.token);
    let payer_before = assets(&payer).await;
    let creator_before = assets(&creator).await;
    let sd = checkpoint(&payer, "sd").await;
    let body = with_lora(&t2i(&sd, "a heron", 3), &made.ver_no);
    let id = payer
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let t = payer.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_ne!(t.status, TaskStatus::Success);
    let reason = t.reason.clone().unwrap_or_default();
    assert!(reason.contains("SHA-256 mismatch"), "{reason}");
    assert_eq!(t.deduction_detail.state, "voided");
    let payer_after = assets(&payer).await;
    assert_eq!(payer_after["coins"], payer_before["coins"]);
    assert_eq!(payer_after["held"], 0);
    assert_eq!(assets(&creator).await["coins"], creator_before["coins"]);
    let e: Value = creator
        .post("/api/v1/model/leaderboard/creator-earnings", &json!({}))
        .await
        .unwrap();
    assert_eq!(e["total"], 0, "{e}");
    assert!(e["items"].as_array().unwrap().is_empty());
    // Ended: the version is free again.
    let can: Value = creator
        .post(
            "/api/v1/model/ver/can-del",
            &json!({"model_ver_no": made.ver_no}),
        )
        .await
        .unwrap();
    assert_eq!(can["can_delete"], true, "{can}");
}
