//! The editor's media bin: videos and sounds an account added, from its
//! uploads (category 8 video, 59 audio) or from its finished video tasks.
//! Each is probed by ffprobe when added (length, size, sound), so the
//! timeline rules can check trims without touching the file again.

use infra::objects::ObjectKey;
use infra::store::Key;
use protocol::task::TaskStatus;
use protocol::video::editor::{
    self as rules, clean_name, ListRequest, Material, MaterialKind, MaterialSource, MaterialUpload,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{account, invalid, paging, required, EditorService};
use crate::accounts::now_millis;
use crate::error::ApiError;
use crate::tasks::{row::file_url, Requester};
use crate::uploads::{CATEGORY_AUDIO, CATEGORY_VIDEO};

/// `EDITOR_MATERIALS` row: the material as answered, and its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaterialRow {
    pub material: Material,
    /// The file's key in the object store.
    pub key: String,
}

impl EditorService {
    /// `material/list`: newest first, optionally of one kind.
    pub async fn materials(
        &self,
        who: &Requester,
        r: &ListRequest,
    ) -> Result<serde_json::Value, ApiError> {
        let owner = account(who)?;
        let page = self
            .materials
            .scan(&Key::of(owner), &paging(r.page_size, &r.cursor)?)
            .await?;
        let items: Vec<Material> = page
            .rows
            .into_iter()
            .map(|(_, m)| m.material)
            .filter(|m| r.kind.is_none_or(|k| m.kind == k))
            .collect();
        Ok(json!({
            "items": items,
            "next_cursor": page.paging.map(|p| p.to_hex()),
        }))
    }

    /// `material/upload`: adds an uploaded file or a finished video task's
    /// output to the bin.
    pub async fn add_material(
        &self,
        who: &Requester,
        r: &MaterialUpload,
    ) -> Result<Material, ApiError> {
        let owner = account(who)?;
        let count = self
            .materials
            .scan(
                &Key::of(owner),
                &infra::store::ScanRange::all(rules::MAX_MATERIALS as u32 + 1),
            )
            .await?;
        if count.rows.len() >= rules::MAX_MATERIALS {
            return Err(invalid(format!(
                "at most {} materials; delete some first",
                rules::MAX_MATERIALS
            )));
        }
        let (key, name, source, poster) = match (&r.file_id, &r.task_id) {
            (Some(_), _) => {
                let file_id = required(&r.file_id, "file_id")?;
                let up = self
                    .uploads
                    .get(&Key::of(file_id), &Key::empty())
                    .await?
                    .filter(|u| u.owner == owner)
                    .ok_or(ErrorCode::NotFound)?;
                if ![CATEGORY_VIDEO, CATEGORY_AUDIO].contains(&up.category) {
                    return Err(invalid(
                        "only video (8) and audio (59) uploads go in the editor",
                    ));
                }
                let key = up
                    .key
                    .clone()
                    .ok_or_else(|| invalid("the upload is not confirmed yet"))?;
                // The poster made when the video was confirmed.
                let poster = crate::uploads::poster_key(file_id);
                let poster = match ObjectKey::parse(&poster) {
                    Ok(k) => self
                        .objects
                        .head(&k)
                        .await
                        .map_err(ApiError::internal)?
                        .map(|_| file_url(&poster)),
                    Err(_) => None,
                };
                (key, up.file_name.clone(), MaterialSource::Upload, poster)
            }
            (None, Some(_)) => {
                let task_id = required(&r.task_id, "task_id")?;
                let row = self.tasks.owned(who, task_id).await?;
                if row.status != TaskStatus::Success || !row.action.is_video() {
                    return Err(invalid("only finished video tasks go in the editor"));
                }
                let i = r.index.unwrap_or(0) as usize;
                let video = row
                    .outputs
                    .iter()
                    .filter(|o| o.mime.starts_with("video/"))
                    .nth(i)
                    .ok_or(ErrorCode::NotFound)?;
                let poster = row
                    .outputs
                    .iter()
                    .filter(|o| o.mime.starts_with("image/"))
                    .nth(i)
                    .map(|o| file_url(&o.key));
                let name = match row.prompt.trim() {
                    "" => format!(
                        "{} {}",
                        row.action.name(),
                        row.id.get(..8).unwrap_or(&row.id)
                    ),
                    p => p.to_owned(),
                };
                (video.key.clone(), name, MaterialSource::Task, poster)
            }
            (None, None) => return Err(invalid("file_id or task_id is required")),
        };
        let object = ObjectKey::parse(&key).map_err(ApiError::internal)?;
        let meta = self
            .objects
            .head(&object)
            .await
            .map_err(ApiError::internal)?
            .ok_or(ErrorCode::NotFound)?;
        if meta.size > rules::MAX_MATERIAL_BYTES {
            return Err(invalid(format!(
                "editor materials are at most {} MB",
                rules::MAX_MATERIAL_BYTES / (1024 * 1024)
            )));
        }
        let info = crate::media::probe_stored(&self.objects, &object, meta.size)
            .await
            .map_err(|why| ApiError::with_msg(ErrorCode::UploadVideoError, why))?;
        let (kind, width, height) = match &info.video {
            Some(v) => (MaterialKind::Video, v.width, v.height),
            None => (MaterialKind::Audio, 0, 0),
        };
        if info.duration_ms == 0 {
            return Err(ApiError::with_msg(
                ErrorCode::UploadVideoError,
                "the file has no length",
            ));
        }
        let m = Material {
            material_id: uuid::Uuid::now_v7().simple().to_string(),
            kind,
            name: clean_name(r.name.as_deref().or(Some(&name)), "Clip"),
            url: file_url(&key),
            poster_url: poster,
            duration: info.duration_ms as f64 / 1000.0,
            width,
            height,
            has_audio: info.has_audio,
            source,
            created_at: now_millis(),
        };
        self.materials
            .put(
                &Key::of(owner),
                &Key::of(&m.material_id),
                &MaterialRow {
                    material: m.clone(),
                    key,
                },
            )
            .await?;
        Ok(m)
    }

    /// `material/delete`: removes it from the bin (the file stays: a task
    /// or an earlier export may show it).
    pub async fn delete_material(
        &self,
        who: &Requester,
        id: &Option<String>,
    ) -> Result<(), ApiError> {
        let owner = account(who)?;
        let id = required(id, "material_id")?;
        self.materials
            .get(&Key::of(owner), &Key::of(id))
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.materials.delete(&Key::of(owner), &Key::of(id)).await?;
        Ok(())
    }
}
