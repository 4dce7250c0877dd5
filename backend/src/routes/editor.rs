//! The video editor's calls (spec 2 §7 "Video editor"), under
//! `/api/v1/task/v2/video/editor`: `workspace/{create,edit,list,del}`,
//! `detail`, `operation/save` (the user's operations), `material/{list,
//! upload,delete}`, `export` (a video task) and `export/check` (its
//! progress and result). The service is `crate::editor`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::video::editor::{
    CreateRequest, EditRequest, ExportRef, ListRequest, MaterialRef, MaterialUpload,
    SaveOperations, WorkspaceRef,
};
use protocol::video::editor::{ExportStatus, Material, Workspace};

/// `editor/operations/save`: how many operations the workspace holds.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct OperationsSaved {
    pub count: usize,
}

/// `editor/export`: the export task started.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ExportStarted {
    pub task_id: String,
}

use super::task::requester;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.scope("/editor", |api| {
        api.post(
            "/workspace/create",
            create,
            doc("Create a video editor workspace")
                .body::<CreateRequest>()
                .reply::<Workspace>(),
        )
        .post(
            "/workspace/edit",
            edit,
            doc("Rename or resize a video editor workspace")
                .body::<EditRequest>()
                .reply::<Workspace>(),
        )
        .post(
            "/workspace/list",
            list,
            doc("The caller's video editor workspaces").body::<ListRequest>(),
        )
        .post(
            "/workspace/del",
            delete,
            doc("Delete a video editor workspace")
                .body::<WorkspaceRef>()
                .reply::<protocol::Empty>(),
        )
        .post(
            "/detail",
            detail,
            doc("A workspace with its timeline and materials")
                .body::<WorkspaceRef>()
                .reply::<Workspace>(),
        )
        .post(
            "/operation/save",
            save_operations,
            doc("Save a workspace's timeline operations")
                .body::<SaveOperations>()
                .reply::<OperationsSaved>(),
        )
        .post(
            "/material/list",
            materials,
            doc("A workspace's materials").body::<ListRequest>(),
        )
        .post(
            "/material/upload",
            add_material,
            doc("Add a material to a workspace")
                .body::<MaterialUpload>()
                .reply::<Material>(),
        )
        .post(
            "/material/delete",
            delete_material,
            doc("Remove a material from a workspace")
                .body::<MaterialRef>()
                .reply::<protocol::Empty>(),
        )
        .post(
            "/export",
            export,
            doc("Export a workspace's timeline as a video task")
                .body::<WorkspaceRef>()
                .reply::<ExportStarted>(),
        )
        .post(
            "/export/check",
            export_check,
            doc("Check a timeline before export (cost and problems)")
                .body::<ExportRef>()
                .reply::<ExportStatus>(),
        );
    });
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
    Ok(ok(protocol::Empty {}))
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
    Ok(ok(OperationsSaved { count }))
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
    Ok(ok(protocol::Empty {}))
}

async fn export(req: HttpRequest, s: web::Data<AppState>, b: web::Json<WorkspaceRef>) -> ApiResult {
    let who = requester(&req, &s).await?;
    let task_id = s.editor.export(&who, &b.workspace_id).await?;
    Ok(ok(ExportStarted { task_id }))
}

async fn export_check(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ExportRef>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    Ok(ok(s.editor.export_check(&who, &b.task_id).await?))
}
