//! Task family (spec 1 §7 "Task calls"): creation (`create` and the v2
//! variants), estimate, progress and batch-progress, list and histories,
//! detail, delete, save-personal, operate (cancel), speed-up, download and
//! batch-download, and the model catalogue calls.

use std::io::Write;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use protocol::character::Items;
use protocol::task::view::{
    BatchProgressRequest, ListRequest, OperateRequest, TaskIdsRequest, TaskRef,
};
use protocol::task::{Action, CreateTaskRequest};
use protocol::ErrorCode;

use crate::auth::device_id_of;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;
use crate::tasks::Requester;

/// `index/batch-delete`: the ids deleted (unknown ones are left out).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = TaskDeletedAnswer)]
pub struct DeletedAnswer {
    pub deleted: Vec<String>,
}

/// The caller of a task call: a logged-in account (complete profile) when a
/// token is sent, else a visitor known by the `deviceId` cookie.
pub async fn requester(req: &HttpRequest, state: &AppState) -> Result<Requester, ApiError> {
    match crate::auth::optional_caller(req, state).await? {
        Some(caller) => {
            if caller.account.status == protocol::account::status::INCOMPLETE {
                return Err(ErrorCode::ProfileIncomplete.into());
            }
            Ok(Requester::Account(Box::new(caller.account)))
        }
        None => device_id_of(req)
            .map(|device| Requester::Visitor { device })
            .ok_or_else(|| ErrorCode::NeedLogin.into()),
    }
}

fn task_id(r: &TaskRef) -> Result<&str, ApiError> {
    r.get()
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "id is required"))
}

async fn create_with(
    req: HttpRequest,
    state: web::Data<AppState>,
    mut body: CreateTaskRequest,
    action: Option<Action>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    // Creations per minute: visitors by address, accounts by account.
    let key = match &who {
        Requester::Visitor { .. } => format!("ip:{}", crate::auth::client_ip(&req)),
        Requester::Account(a) => format!("a:{}", a.id),
    };
    if !state.task_limit.check(&key).await {
        return Err(ErrorCode::TooManyRequests.into());
    }
    let action = action
        .or(body.action)
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "action is required"))?;
    state.text_filter.clean(&mut body)?;
    let id = state.tasks.create(&who, &body, action).await?;
    state.awards.on_task(&who).await;
    crate::analytics::hooks::generation(&state, &req, &who, action).await;
    Ok(ok(protocol::character::IdAnswer { id }))
}

pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CreateTaskRequest>,
) -> ApiResult {
    create_with(req, state, body.into_inner(), None).await
}

/// A v2 creation call whose path names the action.
pub fn create_as(
    action: Action,
) -> impl Fn(
    HttpRequest,
    web::Data<AppState>,
    web::Json<CreateTaskRequest>,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ApiResult>>>
       + Clone
       + 'static {
    move |req, state, body| Box::pin(create_with(req, state, body.into_inner(), Some(action)))
}

pub async fn estimate(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CreateTaskRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let action = body
        .action
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "action is required"))?;
    Ok(ok(state.tasks.estimate(&who, &body, action).await?))
}

pub async fn progress(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<TaskRef>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let row = state.tasks.owned(&who, task_id(&body)?).await?;
    Ok(ok(state.tasks.view(&row).await))
}

pub async fn batch_progress(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<BatchProgressRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let items = state.tasks.batch(&who, &body.task_ids).await?;
    Ok(ok(Items { items }))
}

pub async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<ListRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    Ok(ok(state.tasks.list(&who, &body).await?))
}

pub async fn histories(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<ListRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let mut body = body.into_inner();
    body.success_only = Some(true);
    Ok(ok(state.tasks.list(&who, &body).await?))
}

pub async fn delete(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<TaskRef>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    state.tasks.delete(&who, task_id(&body)?).await?;
    Ok(ok(protocol::Empty {}))
}

pub async fn batch_delete(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<TaskIdsRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    if body.ids.len() > 100 {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "at most 100 ids",
        ));
    }
    let mut deleted = Vec::new();
    for id in &body.ids {
        match state.tasks.delete(&who, id).await {
            Ok(()) => deleted.push(id.clone()),
            Err(e) if e.code == ErrorCode::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(ok(DeletedAnswer { deleted }))
}

pub async fn save_personal(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<TaskRef>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    Ok(ok(state.tasks.save_personal(&who, task_id(&body)?).await?))
}

pub async fn operate(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<OperateRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let id = body
        .id
        .as_deref()
        .or(body.task_id.as_deref())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "id is required"))?;
    match body.operate.as_deref().unwrap_or("cancel") {
        "cancel" => Ok(ok(state.tasks.cancel(&who, id).await?)),
        other => Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            format!("unknown operate {other:?}: only cancel"),
        )),
    }
}

pub async fn speed_up(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<TaskRef>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    Ok(ok(state.tasks.speed_up(&who, task_id(&body)?).await?))
}

fn attachment(name: &str, mime: &str, bytes: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(mime.to_owned())
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .body(bytes)
}

/// The most a batch download gathers in memory.
const MAX_ZIP_BYTES: usize = 256 * 1024 * 1024;

fn zip_of(files: Vec<(String, Vec<u8>, String)>) -> Result<Vec<u8>, ApiError> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    // Images are compressed already: stored entries.
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes, _) in files {
        w.start_file(name, opts).map_err(ApiError::internal)?;
        w.write_all(&bytes).map_err(ApiError::internal)?;
    }
    Ok(w.finish().map_err(ApiError::internal)?.into_inner())
}

/// One task's outputs: the file itself when there is one, else a zip.
pub async fn download(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<TaskRef>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let id = task_id(&body)?;
    let mut files = state.tasks.files(&who, id).await?;
    if files.len() == 1 {
        if let Some((name, bytes, mime)) = files.pop() {
            return Ok(attachment(&name, &mime, bytes));
        }
    }
    Ok(attachment(
        &format!("easel-{id}.zip"),
        "application/zip",
        zip_of(files)?,
    ))
}

/// Several tasks' outputs in one zip.
pub async fn batch_download(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<TaskIdsRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    if body.ids.is_empty() || body.ids.len() > 50 {
        return Err(ApiError::with_msg(ErrorCode::InvalidParams, "1 to 50 ids"));
    }
    let mut files = Vec::new();
    let mut total = 0usize;
    for id in &body.ids {
        for f in state.tasks.files(&who, id).await? {
            total += f.1.len();
            if total > MAX_ZIP_BYTES {
                return Err(ApiError::with_msg(
                    ErrorCode::PayloadTooLarge,
                    "too much to download at once: choose fewer tasks",
                ));
            }
            files.push(f);
        }
    }
    Ok(attachment(
        "easel-images.zip",
        "application/zip",
        zip_of(files)?,
    ))
}

/// `config/generation-param`: the generation defaults of each category.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct GenerationParams {
    pub items: Vec<protocol::task::defaults::GenerationDefaults>,
    pub engine_note: String,
}

/// `config/model-rec`: the checkpoints, the default ones first.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct CheckpointList {
    pub items: Vec<protocol::task::catalogue::Checkpoint>,
    pub engine_note: String,
}

pub async fn config_model() -> ApiResult {
    Ok(ok(protocol::task::catalogue::catalogue()))
}

/// The defaults per creative mode (normal, sdxl, studio).
pub async fn generation_param() -> ApiResult {
    let c = protocol::task::catalogue::catalogue();
    Ok(ok(GenerationParams {
        items: c.generation_params.clone(),
        engine_note: c.engine_note.clone(),
    }))
}

/// Recommended checkpoints: each family's default first, then the rest.
pub async fn model_rec() -> ApiResult {
    let c = protocol::task::catalogue::catalogue();
    let mut items: Vec<_> = c.checkpoints.iter().filter(|m| m.is_default).collect();
    items.extend(c.checkpoints.iter().filter(|m| !m.is_default));
    Ok(ok(CheckpointList {
        items: items.into_iter().cloned().collect(),
        engine_note: c.engine_note.clone(),
    }))
}
