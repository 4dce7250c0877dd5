//! Text filtering calls (spec 3 §7, issue 20): `tool/text/detection` (one
//! text: hits with spans and categories, the masked text), `tool/text/batch-filter`
//! (texts of one scene, e.g. the client's marker for titles and
//! descriptions: each masked or refused) and the operators'
//! `admin/text-filter/{list, upsert, delete, restore}`.

use super::api::{doc, Api};
use actix_web::web;
use protocol::textfilter::wire::{
    BatchFilterRequest, BatchFilterResult, BatchItem, DeleteEntry, DetectionRequest,
    DetectionResult, MAX_BATCH_ITEMS, MAX_TOOL_TEXT_CHARS,
};
use protocol::textfilter::{Entry, Scene};
use protocol::ErrorCode;
use serde_json::json;

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

fn scene_of(name: Option<&str>, default: Scene) -> Result<Scene, ApiError> {
    match name.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(default),
        Some(name) => Scene::parse(name).ok_or_else(|| {
            ApiError::with_msg(
                ErrorCode::TextSceneInvalid,
                format!(
                    "unknown scene {name:?}; one of {}",
                    Scene::ALL
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        }),
    }
}

fn check_length(text: &str) -> Result<(), ApiError> {
    if text.chars().count() > MAX_TOOL_TEXT_CHARS {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            format!("a text has at most {MAX_TOOL_TEXT_CHARS} characters"),
        ));
    }
    Ok(())
}

/// `POST /api/v1/tool/text/detection` `{text, scene?}`.
pub async fn detection(
    s: web::Data<AppState>,
    _caller: Authed,
    b: web::Json<DetectionRequest>,
) -> ApiResult {
    let scene = scene_of(b.scene.as_deref(), Scene::Prompt)?;
    check_length(&b.text)?;
    let verdict = s.text_filter.check(&b.text, scene);
    Ok(ok(DetectionResult::new(scene, verdict)))
}

/// `POST /api/v1/tool/text/batch-filter` `{list, scene?}`.
pub async fn batch_filter(
    s: web::Data<AppState>,
    _caller: Authed,
    b: web::Json<BatchFilterRequest>,
) -> ApiResult {
    let b = b.into_inner();
    let scene = scene_of(b.scene.as_deref(), Scene::Title)?;
    if b.list.len() > MAX_BATCH_ITEMS {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            format!("at most {MAX_BATCH_ITEMS} texts at once"),
        ));
    }
    b.list.iter().try_for_each(|t| check_length(t))?;
    let list = b
        .list
        .into_iter()
        .map(|text| {
            let verdict = s.text_filter.check(&text, scene);
            BatchItem::new(text, verdict)
        })
        .collect();
    Ok(ok(BatchFilterResult { scene, list }))
}

use super::require_operator as operator;

/// `POST /api/v1/admin/text-filter/list`: the effective list.
pub async fn list(s: web::Data<AppState>, caller: Authed) -> ApiResult {
    operator(&s, &caller)?;
    Ok(ok(s.text_filter.list()))
}

/// `POST /api/v1/admin/text-filter/upsert` `Entry`.
#[tracing::instrument(skip_all, fields(id = %b.id))]
pub async fn upsert(s: web::Data<AppState>, caller: Authed, b: web::Json<Entry>) -> ApiResult {
    operator(&s, &caller)?;
    let view = s
        .text_filter
        .upsert(&caller.0.account.id, b.into_inner())
        .await?;
    Ok(ok(view))
}

/// `POST /api/v1/admin/text-filter/delete` `{id}`.
#[tracing::instrument(skip_all, fields(id = %b.id))]
pub async fn delete(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<DeleteEntry>,
) -> ApiResult {
    operator(&s, &caller)?;
    s.text_filter.delete(&caller.0.account.id, &b.id).await?;
    Ok(ok(json!({ "id": b.id })))
}

/// `POST /api/v1/admin/text-filter/restore` `{id}`: a default entry back to
/// its shipped form.
pub async fn restore(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<DeleteEntry>,
) -> ApiResult {
    operator(&s, &caller)?;
    s.text_filter.restore_default(&b.id).await?;
    Ok(ok(json!({ "id": b.id })))
}

/// The routes, plain (registered before the `/admin` scope).
pub fn routes(api: &mut Api) {
    api.post(
        "/tool/text/detection",
        detection,
        doc("Check a text against the text filter").body::<DetectionRequest>(),
    )
    .post(
        "/tool/text/batch-filter",
        batch_filter,
        doc("Filter several texts").body::<BatchFilterRequest>(),
    )
    .post(
        "/admin/text-filter/list",
        list,
        doc("Operators: the effective text filter list"),
    )
    .post(
        "/admin/text-filter/upsert",
        upsert,
        doc("Operators: add or change a text filter entry").body::<Entry>(),
    )
    .post(
        "/admin/text-filter/delete",
        delete,
        doc("Operators: delete a text filter entry").body::<DeleteEntry>(),
    )
    .post(
        "/admin/text-filter/restore",
        restore,
        doc("Operators: restore a default text filter entry").body::<DeleteEntry>(),
    );
}
