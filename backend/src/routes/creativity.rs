//! Creativity templates (spec 3 §7 Creativity; issue 19 item 5):
//! `creativity/square/template/{detail, list, generate/apply,
//! generate/history}` and the author's `creativity/template/create`. The
//! service is `creativity`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::models::template::{ApplyTemplateRequest, CreateTemplateRequest};
use serde::Deserialize;
use serde_json::json;

use super::square::viewer;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;

pub async fn create(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<CreateTemplateRequest>,
) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    Ok(ok(s.creativity.create(&s.square, &a.0.account, &b).await?))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct TemplateRef {
    template_id: String,
}

pub async fn detail(req: HttpRequest, s: web::Data<AppState>, b: Body<TemplateRef>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s
        .creativity
        .detail(&s.square, v.as_deref(), &b.template_id)
        .await?))
}

#[derive(utoipa::ToSchema, Debug, Deserialize, Default)]
#[serde(default)]
pub struct ListRequest {
    size: Option<u32>,
    /// History: only generations before this time (ms), for paging.
    before: Option<i64>,
}

pub async fn list(req: HttpRequest, s: web::Data<AppState>, b: Body<ListRequest>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let n = b.size.map(|n| n as usize).unwrap_or(20);
    Ok(ok(
        json!({ "items": s.creativity.list(&s.square, v.as_deref(), n).await? }),
    ))
}

pub async fn apply(a: Authed, s: web::Data<AppState>, b: Body<ApplyTemplateRequest>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let g = s
        .creativity
        .apply(&s.square, &s.tasks, &a.0.account, &b)
        .await?;
    Ok(ok(
        json!({ "task_id": g.task_id, "template_id": g.template_id, "prompt": g.prompt }),
    ))
}

pub async fn history(a: Authed, s: web::Data<AppState>, b: Body<ListRequest>) -> ApiResult {
    let n = b.size.map(|n| n as usize).unwrap_or(20);
    let items = s
        .creativity
        .history(&s.tasks, &a.0.account, b.before, n)
        .await?;
    let next = items.last().map(|g| g.create_at);
    Ok(ok(json!({ "items": items, "before": next })))
}

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(api: &mut Api) {
    api.post(
        "/creativity/template/create",
        create,
        doc("Create a creativity template from a task").body::<CreateTemplateRequest>(),
    )
    .post(
        "/creativity/square/template/detail",
        detail,
        doc("One creativity template").body::<TemplateRef>(),
    )
    .post(
        "/creativity/square/template/list",
        list,
        doc("The creativity templates feed").body::<ListRequest>(),
    )
    .post(
        "/creativity/square/template/generate/apply",
        apply,
        doc("Create a task from a creativity template").body::<ApplyTemplateRequest>(),
    )
    .post(
        "/creativity/square/template/generate/history",
        history,
        doc("The caller's tasks made from creativity templates").body::<ListRequest>(),
    );
}
