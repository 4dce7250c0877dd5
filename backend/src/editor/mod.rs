//! The video editor (spec 2 §7, base `/api/v1/task/v2/video/editor`):
//! an account's workspaces (a timeline of trimmed clips and a music track,
//! the log of the user's operations) and its media bin (`materials.rs`),
//! and the export: the timeline checked again against the materials, then
//! rendered as a video task (action 50) through the same queue, workers,
//! credits and progress as every other task. The rules are
//! `protocol::video::editor`.
//!
//! Every object is the caller's: another account's workspace, material or
//! task answers `NotFound`, exactly like a missing one.

mod materials;

use std::collections::HashMap;

use infra::objects::DynObjects;
use infra::store::{tables, DynStore, Key, PagingState, ScanRange, Table};
use protocol::task::TaskStatus;
use protocol::video::editor::{
    self as rules, append_operations, check_timeline, clean_name, edit_job, export_status_word,
    output_size, CreateRequest, EditRequest, ExportStatus, LastExport, MaterialFacts,
    SaveOperations, Timeline, TimelineError, Workspace,
};
use protocol::ErrorCode;
use serde_json::json;

use crate::accounts::now_millis;
use crate::error::ApiError;
use crate::tasks::{row::file_url, Requester, TaskService};
use crate::uploads::UploadRow;
pub use materials::MaterialRow;

/// Rows per page when the caller does not say, and at most.
const PAGE_DEFAULT: u32 = 20;
const PAGE_MAX: u32 = 100;

#[derive(Clone)]
pub struct EditorService {
    workspaces: Table<Workspace>,
    materials: Table<MaterialRow>,
    uploads: Table<UploadRow>,
    tasks: TaskService,
    objects: DynObjects,
}

/// The caller's account id; visitors have no editor.
fn account(who: &Requester) -> Result<&str, ApiError> {
    match who {
        Requester::Account(a) => Ok(&a.id),
        Requester::Visitor { .. } => Err(ErrorCode::NeedLogin.into()),
    }
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg.into())
}

fn required<'a>(v: &'a Option<String>, what: &str) -> Result<&'a str, ApiError> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() <= 64)
        .ok_or_else(|| invalid(format!("{what} is required")))
}

/// A page request's size and resume point.
fn paging(page_size: Option<u32>, cursor: &Option<String>) -> Result<ScanRange, ApiError> {
    let size = page_size.unwrap_or(PAGE_DEFAULT).clamp(1, PAGE_MAX);
    let after = match cursor.as_deref().filter(|c| !c.is_empty()) {
        None => None,
        Some(c) => Some(PagingState::from_hex(c).ok_or_else(|| invalid("bad cursor"))?),
    };
    Ok(ScanRange::all(size).desc().after(after))
}

impl EditorService {
    pub fn new(store: DynStore, tasks: TaskService, objects: DynObjects) -> EditorService {
        EditorService {
            workspaces: Table::new(store.clone(), &tables::EDITOR_WORKSPACES),
            materials: Table::new(store.clone(), &tables::EDITOR_MATERIALS),
            uploads: Table::new(store, &tables::UPLOADS),
            tasks,
            objects,
        }
    }

    async fn workspace(&self, owner: &str, id: &str) -> Result<Workspace, ApiError> {
        self.workspaces
            .get(&Key::of(owner), &Key::of(id))
            .await?
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// `workspace/create`.
    pub async fn create(&self, who: &Requester, r: &CreateRequest) -> Result<Workspace, ApiError> {
        let owner = account(who)?;
        let (width, height) = output_size(r.width, r.height).map_err(invalid)?;
        let existing = self
            .workspaces
            .scan(
                &Key::of(owner),
                &ScanRange::all(rules::MAX_WORKSPACES as u32 + 1),
            )
            .await?;
        if existing.rows.len() >= rules::MAX_WORKSPACES {
            return Err(invalid(format!(
                "at most {} edits; delete one first",
                rules::MAX_WORKSPACES
            )));
        }
        let now = now_millis();
        let w = Workspace {
            workspace_id: uuid::Uuid::now_v7().simple().to_string(),
            name: clean_name(r.name.as_deref(), rules::DEFAULT_NAME),
            width,
            height,
            fps: rules::DEFAULT_FPS,
            timeline: Timeline::default(),
            duration: 0.0,
            operations: Vec::new(),
            last_export: None,
            created_at: now,
            updated_at: now,
        };
        self.workspaces
            .put(&Key::of(owner), &Key::of(&w.workspace_id), &w)
            .await?;
        Ok(w)
    }

    /// The facts the timeline rules need about the materials a timeline names.
    async fn facts_of(
        &self,
        owner: &str,
        t: &Timeline,
    ) -> Result<HashMap<String, MaterialRow>, ApiError> {
        let mut ids: Vec<&str> = t.clips.iter().map(|c| c.material_id.as_str()).collect();
        if let Some(m) = &t.music {
            ids.push(&m.material_id);
        }
        ids.sort_unstable();
        ids.dedup();
        let keys: Vec<(Key, Key)> = ids.iter().map(|id| (Key::of(owner), Key::of(id))).collect();
        let rows = self.materials.get_many(&keys).await?;
        Ok(ids
            .into_iter()
            .zip(rows)
            .filter_map(|(id, r)| r.map(|r| (id.to_owned(), r)))
            .collect())
    }

    async fn checked(
        &self,
        owner: &str,
        t: &Timeline,
    ) -> Result<(Timeline, HashMap<String, MaterialRow>), ApiError> {
        let known = self.facts_of(owner, t).await?;
        let facts = |id: &str| {
            known.get(id).map(|r| MaterialFacts {
                kind: r.material.kind,
                duration: r.material.duration,
                has_audio: r.material.has_audio,
            })
        };
        match check_timeline(t, &facts) {
            Ok(t) => Ok((t, known)),
            Err(TimelineError::UnknownMaterial(id)) => Err(ApiError::with_msg(
                ErrorCode::NotFound,
                format!("no material {id}"),
            )),
            Err(TimelineError::Invalid(m)) => Err(invalid(m)),
        }
    }

    /// `workspace/edit`: renames, resizes, or saves the timeline.
    pub async fn edit(&self, who: &Requester, r: &EditRequest) -> Result<Workspace, ApiError> {
        let owner = account(who)?;
        let id = required(&r.workspace_id, "workspace_id")?;
        let current = self.workspace(owner, id).await?;
        let size = if r.width.is_some() || r.height.is_some() {
            Some(
                output_size(
                    r.width.or(Some(current.width)),
                    r.height.or(Some(current.height)),
                )
                .map_err(invalid)?,
            )
        } else {
            None
        };
        let timeline = match &r.timeline {
            Some(t) => Some(self.checked(owner, t).await?.0),
            None => None,
        };
        let name = r
            .name
            .as_deref()
            .map(|n| clean_name(Some(n), rules::DEFAULT_NAME));
        let now = now_millis();
        let saved = self
            .workspaces
            .update(&Key::of(owner), &Key::of(id), Some(current), |w| {
                if let Some(n) = &name {
                    w.name = n.clone();
                }
                if let Some((width, height)) = size {
                    w.width = width;
                    w.height = height;
                }
                if let Some(t) = &timeline {
                    w.duration = (t.duration() * 1000.0).round() / 1000.0;
                    w.timeline = t.clone();
                }
                w.updated_at = now;
            })
            .await?;
        saved.ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// `workspace/list`: newest first.
    pub async fn list(
        &self,
        who: &Requester,
        page_size: Option<u32>,
        cursor: &Option<String>,
    ) -> Result<serde_json::Value, ApiError> {
        let owner = account(who)?;
        let page = self
            .workspaces
            .scan(&Key::of(owner), &paging(page_size, cursor)?)
            .await?;
        let items: Vec<Workspace> = page.rows.into_iter().map(|(_, w)| w).collect();
        Ok(json!({
            "items": items,
            "next_cursor": page.paging.map(|p| p.to_hex()),
        }))
    }

    /// `workspace/del`.
    pub async fn delete(&self, who: &Requester, id: &Option<String>) -> Result<(), ApiError> {
        let owner = account(who)?;
        let id = required(id, "workspace_id")?;
        self.workspace(owner, id).await?;
        self.workspaces
            .delete(&Key::of(owner), &Key::of(id))
            .await?;
        Ok(())
    }

    /// `detail`.
    pub async fn detail(
        &self,
        who: &Requester,
        id: &Option<String>,
    ) -> Result<Workspace, ApiError> {
        let owner = account(who)?;
        self.workspace(owner, required(id, "workspace_id")?).await
    }

    /// `operation/save`: appends to the workspace's operation log.
    pub async fn save_operations(
        &self,
        who: &Requester,
        r: &SaveOperations,
    ) -> Result<usize, ApiError> {
        let owner = account(who)?;
        let id = required(&r.workspace_id, "workspace_id")?;
        let current = self.workspace(owner, id).await?;
        // Checked once up front; the same append cannot fail inside the update.
        append_operations(&mut current.operations.clone(), &r.operations).map_err(invalid)?;
        let now = now_millis();
        let saved = self
            .workspaces
            .update(&Key::of(owner), &Key::of(id), Some(current), |w| {
                let _ = append_operations(&mut w.operations, &r.operations);
                w.updated_at = now;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(saved.operations.len())
    }

    /// `export`: renders the workspace's timeline as a video task.
    pub async fn export(&self, who: &Requester, id: &Option<String>) -> Result<String, ApiError> {
        let owner = account(who)?;
        let id = required(id, "workspace_id")?;
        let w = self.workspace(owner, id).await?;
        let (timeline, rows) = self.checked(owner, &w.timeline).await?;
        let job =
            edit_job(&timeline, w.width, w.height, w.fps).ok_or(ErrorCode::PleaseSelectVideo)?;
        let key_of = |material: &str| {
            rows.get(material)
                .map(|r| r.key.clone())
                .ok_or_else(|| ApiError::with_msg(ErrorCode::NotFound, "a material vanished"))
        };
        let clips = timeline
            .clips
            .iter()
            .map(|c| key_of(&c.material_id))
            .collect::<Result<Vec<_>, _>>()?;
        let music = timeline
            .music
            .as_ref()
            .map(|m| key_of(&m.material_id))
            .transpose()?;
        let request = json!({ "workspace_id": id, "timeline": timeline, "width": w.width, "height": w.height, "fps": w.fps });
        let task_id = self
            .tasks
            .create_edit(who, job, clips, music, request)
            .await?;
        let export = LastExport {
            task_id: task_id.clone(),
        };
        self.workspaces
            .update(&Key::of(owner), &Key::of(id), Some(w), |w| {
                w.last_export = Some(export.clone());
            })
            .await?;
        Ok(task_id)
    }

    /// `export/check`: an export's status, progress and result.
    pub async fn export_check(
        &self,
        who: &Requester,
        task_id: &Option<String>,
    ) -> Result<ExportStatus, ApiError> {
        account(who)?;
        let id = required(task_id, "task_id")?;
        let row = self.tasks.owned(who, id).await?;
        if row.action != protocol::task::Action::VideoEdit {
            return Err(ErrorCode::NotFound.into());
        }
        let cancelled = row.status_desc == crate::tasks::machine::CANCELLED_DESC;
        let done = row.status == TaskStatus::Success;
        let first = |video: bool| {
            row.outputs
                .iter()
                .find(|o| o.mime.starts_with("video/") == video)
                .map(|o| file_url(&o.key))
        };
        Ok(ExportStatus {
            task_id: row.id.clone(),
            status: export_status_word(row.status, cancelled).to_owned(),
            progress: if done { 100 } else { row.process.min(99) },
            video_url: if done { first(true) } else { None },
            poster_url: if done { first(false) } else { None },
            error: (row.status == TaskStatus::Ended).then(|| {
                row.reason
                    .clone()
                    .unwrap_or_else(|| row.status_desc.clone())
            }),
        })
    }
}
