//! The video editor's calls (spec 2 §7 "Video editor"), under
//! `/api/v1/task/v2/video/editor`: `workspace/{create,edit,list,del}`,
//! `detail`, `operation/save` (the user's operations), `material/{list,
//! upload,delete}`, `export` (a video task) and `export/check` (its
//! progress and result). The service is `crate::editor`.

use actix_web::{web, HttpRequest};
use protocol::video::editor::{
    CreateRequest, EditRequest, ExportRef, ListRequest, MaterialRef, MaterialUpload,
    SaveOperations, WorkspaceRef,
};
use serde_json::json;

use super::task::requester;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

pub fn scope() -> actix_web::Scope {
    web::scope("/editor")
        .route("/workspace/create", web::post().to(create))
        .route("/workspace/edit", web::post().to(edit))
        .route("/workspace/list", web::post().to(list))
        .route("/workspace/del", web::post().to(delete))
        .route("/detail", web::post().to(detail))
        .route("/operation/save", web::post().to(save_operations))
        .route("/material/list", web::post().to(materials))
        .route("/material/upload", web::post().to(add_material))
        .route("/material/delete", web::post().to(delete_material))
        .route("/export", web::post().to(export))
        .route("/export/check", web::post().to(export_check))
}

async fn create(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<CreateRequest>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    Ok(ok(s.editor.create(&who, &b).await?))
}

async fn edit(req: HttpRequest, s: web::Data<AppState>, b: web::Json<EditRequest>) -> ApiResult {
    let who = requester(&req, &s).await?;
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    Ok(ok(s.editor.edit(&who, &b).await?))
}

async fn list(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ListRequest>) -> ApiResult {
    let who = requester(&req, &s).await?;
    Ok(ok(s.editor.list(&who, b.page_size, &b.cursor).await?))
}

async fn delete(req: HttpRequest, s: web::Data<AppState>, b: web::Json<WorkspaceRef>) -> ApiResult {
    let who = requester(&req, &s).await?;
    s.editor.delete(&who, &b.workspace_id).await?;
    Ok(ok(json!({})))
}

async fn detail(req: HttpRequest, s: web::Data<AppState>, b: web::Json<WorkspaceRef>) -> ApiResult {
    let who = requester(&req, &s).await?;
    Ok(ok(s.editor.detail(&who, &b.workspace_id).await?))
}

async fn save_operations(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<SaveOperations>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    let count = s.editor.save_operations(&who, &b).await?;
    Ok(ok(json!({ "count": count })))
}

async fn materials(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ListRequest>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    Ok(ok(s.editor.materials(&who, &b).await?))
}

async fn add_material(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<MaterialUpload>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    Ok(ok(s.editor.add_material(&who, &b).await?))
}

async fn delete_material(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<MaterialRef>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    s.editor.delete_material(&who, &b.material_id).await?;
    Ok(ok(json!({})))
}

async fn export(req: HttpRequest, s: web::Data<AppState>, b: web::Json<WorkspaceRef>) -> ApiResult {
    let who = requester(&req, &s).await?;
    let task_id = s.editor.export(&who, &b.workspace_id).await?;
    Ok(ok(json!({ "task_id": task_id })))
}

async fn export_check(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ExportRef>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    Ok(ok(s.editor.export_check(&who, &b.task_id).await?))
}
