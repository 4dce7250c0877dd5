//! Training (spec 3 §7 Training; issue 19 item 4), plain under `/api/v1`:
//! `train-model/{estimate, create, in-progress-list, batch-progress, log}`
//! and `task/create-refer`. Every training is its owner's: anyone else's
//! answers NotFound. Datasets are `routes/dataset.rs`.

use super::api::{doc, Api};
use actix_web::web;
use protocol::models::rules::parse_base_model;
use protocol::models::train::{TrainParams, TrainParamsInput, TrainSpec, MAX_DATASET_IMAGES};
use protocol::models::{ModelType, VersionStatus};
use protocol::task::{Action, CreateTaskRequest};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::models::{ModelRow, VersionRow};
use crate::state::AppState;
use crate::tasks::Requester;
use crate::training::apply::{start, TrainingIntent};
use crate::training::task::{TrainingRow, TrainingService};

use super::dataset::{datasets, invalid};

type State = web::Data<AppState>;

fn trainings(s: &AppState) -> TrainingService {
    TrainingService::new(s.store.clone(), s.objects.clone())
}

#[derive(utoipa::ToSchema, Deserialize)]
#[schema(as = TrainTrainBody)]
struct TrainBody {
    #[serde(default)]
    dataset_id: String,
    #[serde(default)]
    model_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    base_model: Value,
    #[serde(default)]
    params: TrainParamsInput,
}

/// What a training request resolves to before anything is written.
struct Plan {
    dataset: crate::training::DatasetRow,
    model: Option<ModelRow>,
    name: String,
    family: String,
    variant: String,
    params: TrainParams,
    spec: TrainSpec,
}

/// The family's first catalogue checkpoint: the base the LoRA trains on.
fn base_checkpoint(family: &str) -> String {
    protocol::task::catalogue::catalogue()
        .checkpoints
        .iter()
        .find(|c| c.family == family)
        .map_or_else(|| family.to_string(), |c| c.model_ver_no.clone())
}

async fn plan(s: &AppState, me: &str, b: &TrainBody) -> Result<Plan, ApiError> {
    // A refused name answers before the dataset's checks (it is masked below).
    if let Some(n) = &b.name {
        s.text_filter
            .apply(protocol::textfilter::Scene::Name, &mut n.clone())?;
    }
    let dataset = datasets(s).own(me, &b.dataset_id).await?;
    if dataset.images.is_empty() {
        return Err(ErrorCode::DatasetEmpty.into());
    }
    if dataset.images.len() > MAX_DATASET_IMAGES {
        return Err(ErrorCode::DatasetTooLarge.into());
    }
    let models = crate::models::ModelService::new(s.store.clone());
    let model = match b
        .model_id
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        Some(id) => {
            let m = models.own_model(id, me).await?;
            if m.model_type != ModelType::Lora {
                return Err(ApiError::with_msg(
                    ErrorCode::TrainParamsInvalid,
                    "a training adds a version to a LoRA model",
                ));
            }
            Some(m)
        }
        None => None,
    };
    let (family, variant) = match &model {
        Some(m) => (m.family.clone(), m.variant.clone()),
        None => parse_base_model(&b.base_model).ok_or_else(|| {
            ApiError::with_msg(
                ErrorCode::TrainParamsInvalid,
                "base_model is not a known family",
            )
        })?,
    };
    let name = match (&model, b.name.as_deref().map(str::trim)) {
        (Some(m), _) => m.name.clone(),
        (None, Some(n)) if !n.is_empty() => {
            // The new model's name: masked or refused like every model name.
            let mut n = crate::training::check_name(n)?;
            s.text_filter
                .apply(protocol::textfilter::Scene::Name, &mut n)?;
            n
        }
        (None, _) => dataset.name.clone(),
    };
    let params = b
        .params
        .check(dataset.kind, &family, dataset.images.len(), &name)
        .map_err(|m| ApiError::with_msg(ErrorCode::TrainParamsInvalid, m))?;
    // Captions start with the trigger word (every kind's convention).
    let captions = dataset
        .images
        .iter()
        .map(|i| {
            let c = i.caption.trim();
            let starts = c
                .split(',')
                .next()
                .is_some_and(|first| first.trim().eq_ignore_ascii_case(&params.trigger_word));
            match (c.is_empty(), starts) {
                (true, _) => params.trigger_word.clone(),
                (false, true) => c.to_string(),
                (false, false) => format!("{}, {c}", params.trigger_word),
            }
        })
        .collect();
    let spec = TrainSpec {
        family: family.clone(),
        base_model: base_checkpoint(&family),
        kind: dataset.kind,
        name: name.clone(),
        params: params.clone(),
        captions,
    };
    Ok(Plan {
        dataset,
        model,
        name,
        family,
        variant,
        params,
        spec,
    })
}

async fn estimate(a: Authed, s: State, b: web::Json<TrainBody>) -> ApiResult {
    let p = plan(&s, &a.0.account.id, &b).await?;
    Ok(ok(json!({
        "credits": p.spec.cost(),
        "steps": p.spec.steps(),
        "estimate_secs": p.spec.estimate_secs(),
        "images": p.dataset.images.len(),
        "base_model": p.family,
        "params": p.params,
    })))
}

async fn create_training(a: Authed, s: State, b: web::Json<TrainBody>) -> ApiResult {
    let me = &a.0.account;
    let p = plan(&s, &me.id, &b).await?;
    let keys: Vec<String> = p.dataset.images.iter().map(|i| i.key.clone()).collect();
    // The rows the training writes are decided first and travel in the
    // task, so a crash at any point leaves no rows or a task that writes
    // and applies them when it ends.
    let intent = TrainingIntent::new(
        me,
        p.model.as_ref(),
        &p.name,
        &p.family,
        &p.variant,
        &p.dataset,
        &p.params.trigger_word,
    );
    let task_id = start(
        &s.tasks,
        &trainings(&s),
        &Requester::Account(Box::new(me.clone())),
        &intent,
        p.spec,
        keys,
        json!({"dataset_id": p.dataset.id, "model_id": b.model_id, "params": p.params}),
    )
    .await?;
    Ok(ok(json!({
        "task_id": task_id,
        "model_id": intent.training.model_id,
        "model_ver_no": intent.training.ver_no,
    })))
}

async fn progress_of(svc: &TrainingService, row: TrainingRow) -> Result<Value, ApiError> {
    let (row, task) = svc.refresh(row).await?;
    let version = svc.models.version(&row.ver_no).await?;
    Ok(json!({
        "task_id": row.task_id,
        "model_id": row.model_id,
        "model_ver_no": row.ver_no,
        "name": row.name,
        "trigger_word": row.trigger_word,
        "status": task.as_ref().map(|t| t.status),
        "percent": task.as_ref().map_or(0, |t| t.process),
        "cost": task.as_ref().map_or(0, |t| t.cost),
        "reason": task.as_ref().and_then(|t| t.reason.clone()),
        "version_status": version.as_ref().map(|v| v.status),
        "version_msg": version.map(|v| v.status_msg).unwrap_or_default(),
        "create_at": row.create_at,
    }))
}

async fn in_progress_list(a: Authed, s: State) -> ApiResult {
    let svc = trainings(&s);
    let mut items = Vec::new();
    for row in svc.list(&a.0.account.id, 50).await? {
        let p = progress_of(&svc, row).await?;
        if p.get("version_status") == Some(&json!(u8::from(VersionStatus::Pending))) {
            items.push(p);
        }
    }
    Ok(ok(json!({ "items": items })))
}

#[derive(utoipa::ToSchema, Deserialize)]
struct TaskIds {
    #[serde(default)]
    task_ids: Vec<String>,
    #[serde(default)]
    task_id: String,
}

async fn batch_progress(a: Authed, s: State, b: web::Json<TaskIds>) -> ApiResult {
    if b.task_ids.len() > 50 {
        return Err(invalid("at most 50 task_ids"));
    }
    let svc = trainings(&s);
    let mut items = Vec::new();
    for id in &b.task_ids {
        // Someone else's (or no) training is simply not listed.
        if let Ok(row) = svc.own(&a.0.account.id, id).await {
            items.push(progress_of(&svc, row).await?);
        }
    }
    Ok(ok(json!({ "items": items })))
}

async fn train_log(a: Authed, s: State, b: web::Json<TaskIds>) -> ApiResult {
    let svc = trainings(&s);
    let row = svc.own(&a.0.account.id, &b.task_id).await?;
    let (row, task) = svc.refresh(row).await?;
    let mut lines = Vec::new();
    let mut trainer = Value::Null;
    if let Some(t) = &task {
        lines.push(format!(
            "task {}: {} ({} %)",
            t.id,
            t.status.name(),
            t.process
        ));
        if let Some(r) = t
            .texts
            .first()
            .and_then(|x| serde_json::from_str::<trainer::TrainReport>(x).ok())
        {
            trainer = json!({"name": r.trainer, "neural": r.neural, "label": r.label, "metrics": r.metrics});
            lines.extend(r.log);
        }
        if let Some(why) = &t.reason {
            lines.push(format!("failed: {why}"));
        }
    }
    Ok(ok(
        json!({"task_id": row.task_id, "lines": lines, "trainer": trainer}),
    ))
}

#[derive(utoipa::ToSchema, Deserialize)]
struct ReferBody {
    #[serde(default)]
    model_ver_no: String,
    #[serde(default)]
    prompt: String,
    #[serde(default)]
    weight: Option<f64>,
    #[serde(default)]
    seed: Option<i64>,
}

/// A text-to-image request that tries a trained version: its trigger word
/// first in the prompt, the version as a LoRA, a checkpoint of its family.
pub fn refer_request(
    v: &VersionRow,
    family: &str,
    prompt: &str,
    weight: Option<f64>,
    seed: Option<i64>,
) -> Result<CreateTaskRequest, ApiError> {
    let trigger = v.trained_words.first().cloned().unwrap_or_default();
    let prompt = match prompt.trim() {
        "" => trigger.clone(),
        p => format!("{trigger}, {p}"),
    };
    serde_json::from_value(json!({
        "art_model_ver_no": base_checkpoint(family),
        "meta": {
            "prompt": prompt,
            "seed": seed,
            "lora_models": [{
                "model_id": v.model_id,
                "model_ver_no": v.ver_no,
                "weight": weight.unwrap_or(f64::from(v.weight)),
                "base_model": family,
            }],
        }
    }))
    .map_err(|e| ApiError::internal(e.to_string()))
}

async fn create_refer(a: Authed, s: State, b: web::Json<ReferBody>) -> ApiResult {
    let me = &a.0.account;
    let models = crate::models::ModelService::new(s.store.clone());
    let (m, v) = models.version_for(&b.model_ver_no, Some(&me.id)).await?;
    if v.status != VersionStatus::Ready || m.model_type != ModelType::Lora {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "this version is not a ready LoRA",
        ));
    }
    let req = refer_request(&v, &m.family, &b.prompt, b.weight, b.seed)?;
    let id = s
        .tasks
        .create(
            &Requester::Account(Box::new(me.clone())),
            &req,
            Action::TextToImage,
        )
        .await?;
    Ok(ok(json!({ "task_id": id })))
}

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(api: &mut Api) {
    api.post(
        "/train-model/estimate",
        estimate,
        doc("Estimate a model training's cost").body::<TrainBody>(),
    )
    .post(
        "/train-model/create",
        create_training,
        doc("Start training a model").body::<TrainBody>(),
    )
    .post(
        "/train-model/in-progress-list",
        in_progress_list,
        doc("The caller's trainings in progress"),
    )
    .post(
        "/train-model/batch-progress",
        batch_progress,
        doc("Several trainings' progress").body::<TaskIds>(),
    )
    .post(
        "/train-model/log",
        train_log,
        doc("A training's log").body::<TaskIds>(),
    )
    .post(
        "/task/create-refer",
        create_refer,
        doc("Create a task that tries a trained version").body::<ReferBody>(),
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use protocol::models::{PublishStatus, VersionSource};

    #[test]
    fn dates_and_refer_requests() {
        assert_eq!(crate::training::apply::day_name(0), "1970-01-01");
        assert_eq!(
            crate::training::apply::day_name(1_795_996_800_000),
            "2026-11-30"
        );
        let v = VersionRow {
            ver_no: "mv1".into(),
            model_id: "m1".into(),
            owner: "a".into(),
            name: "v".into(),
            description: String::new(),
            trained_words: vec!["zx9".into()],
            status: VersionStatus::Ready,
            status_msg: String::new(),
            publish_status: PublishStatus::Draft,
            source: VersionSource::Train,
            file: None,
            images: Vec::new(),
            weight: 1.0,
            train_task_id: None,
            create_at: 0,
        };
        let r = refer_request(&v, "sdxl", "a red house", Some(0.7), Some(5)).unwrap();
        assert_eq!(r.meta.prompt.as_deref(), Some("zx9, a red house"));
        assert_eq!(r.meta.lora_models[0].model_ver_no.as_deref(), Some("mv1"));
        assert_eq!(r.meta.lora_models[0].weight, Some(0.7));
        assert!(r.art_model_ver_no.is_some());
    }
}
