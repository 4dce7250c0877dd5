//! Datasets and LoRA training (issue 19 item 4; spec 3 §7 Training). This
//! module owns the dataset rows (pictures from the owner's uploads, one
//! caption each, tags; private to the owner: anyone else gets NotFound) and
//! `DatasetService`; `task.rs` owns training tasks (a task with action 57
//! through the normal queue, holds and progress frames) and their rows;
//! `apply.rs` the intent a training task carries, the writing of its model
//! rows and the apply of its result when the task machine ends it. The
//! calls are in `routes/train.rs`.

use infra::objects::{DynObjects, ObjectKey};
use infra::store::{tables, DynStore, Key, Order, ScanRange, Table};
use protocol::models::train::{
    CaptionSource, DatasetImageView, DatasetKind, DatasetView, MAX_CAPTION_CHARS,
    MAX_DATASET_IMAGES, MAX_DATASET_NAME_CHARS, MAX_DATASET_TAGS,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;
use crate::uploads::UploadRow;

pub mod apply;
pub mod task;

/// One picture of a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetImage {
    pub id: String,
    /// Object key of the upload (`u/{file id}/...`).
    pub key: String,
    pub width: u32,
    pub height: u32,
    pub caption: String,
    pub caption_source: CaptionSource,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetRow {
    pub id: String,
    pub owner: String,
    pub name: String,
    pub kind: DatasetKind,
    pub tags: Vec<String>,
    pub images: Vec<DatasetImage>,
    pub create_at: i64,
    pub update_at: i64,
}

impl DatasetRow {
    pub fn view(&self, with_images: bool) -> DatasetView {
        let image = |i: &DatasetImage| DatasetImageView {
            image_id: i.id.clone(),
            url: crate::tasks::row::file_url(&i.key),
            width: i.width,
            height: i.height,
            caption: i.caption.clone(),
            caption_source: i.caption_source,
        };
        DatasetView {
            dataset_id: self.id.clone(),
            name: self.name.clone(),
            kind: self.kind,
            tags: self.tags.clone(),
            image_count: self.images.len() as u32,
            cover: self
                .images
                .first()
                .map(|i| crate::tasks::row::file_url(&i.key)),
            images: if with_images {
                self.images.iter().map(image).collect()
            } else {
                Vec::new()
            },
            create_at: self.create_at,
            update_at: self.update_at,
        }
    }
}

fn invalid(m: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, m)
}

/// A dataset name: trimmed, 1 to 80 characters.
pub fn check_name(name: &str) -> Result<String, ApiError> {
    let n = name.trim();
    if n.is_empty() || n.chars().count() > MAX_DATASET_NAME_CHARS {
        return Err(invalid(format!(
            "name has 1 to {MAX_DATASET_NAME_CHARS} characters"
        )));
    }
    Ok(n.to_string())
}

/// Tags: trimmed, lower case, distinct, at most 10 of 1 to 30 characters.
pub fn check_tags(tags: &[String]) -> Result<Vec<String>, ApiError> {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        let t = t.trim().to_lowercase();
        if t.is_empty() {
            continue;
        }
        if t.chars().count() > 30 {
            return Err(invalid("a tag has at most 30 characters"));
        }
        if !out.contains(&t) {
            out.push(t);
        }
    }
    if out.len() > MAX_DATASET_TAGS {
        return Err(invalid(format!("at most {MAX_DATASET_TAGS} tags")));
    }
    Ok(out)
}

/// A caption: trimmed, at most 1000 characters.
pub fn check_caption(c: &str) -> Result<String, ApiError> {
    let c = c.trim();
    if c.chars().count() > MAX_CAPTION_CHARS {
        return Err(invalid(format!(
            "a caption has at most {MAX_CAPTION_CHARS} characters"
        )));
    }
    Ok(c.to_string())
}

#[derive(Clone)]
pub struct DatasetService {
    rows: Table<DatasetRow>,
    by_owner: Table<()>,
    uploads: Table<UploadRow>,
    objects: DynObjects,
}

impl DatasetService {
    pub fn new(store: DynStore, objects: DynObjects) -> DatasetService {
        DatasetService {
            rows: Table::new(store.clone(), &tables::DATASETS),
            by_owner: Table::new(store.clone(), &tables::DATASETS_BY_OWNER),
            uploads: Table::new(store, &tables::UPLOADS),
            objects,
        }
    }

    /// An own dataset; anyone else's answers NotFound.
    pub async fn own(&self, owner: &str, id: &str) -> Result<DatasetRow, ApiError> {
        self.rows
            .get(&Key::of(id.trim()), &Key::empty())
            .await?
            .filter(|r| r.owner == owner)
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    pub async fn create(
        &self,
        owner: &str,
        name: &str,
        kind: DatasetKind,
        tags: &[String],
    ) -> Result<DatasetRow, ApiError> {
        let now = now_millis();
        let row = DatasetRow {
            id: crate::models::new_id("ds"),
            owner: owner.to_string(),
            name: check_name(name)?,
            kind,
            tags: check_tags(tags)?,
            images: Vec::new(),
            create_at: now,
            update_at: now,
        };
        self.rows
            .put(&Key::of(&row.id), &Key::empty(), &row)
            .await?;
        self.by_owner
            .put(&Key::of(owner), &Key::empty().i64(now).str(&row.id), &())
            .await?;
        Ok(row)
    }

    /// Changes a dataset by compare-and-set; `f` may refuse with an error.
    pub async fn update(
        &self,
        owner: &str,
        id: &str,
        f: impl Fn(&mut DatasetRow) -> Result<(), ApiError> + Send + Sync + 'static,
    ) -> Result<DatasetRow, ApiError> {
        let row = self.own(owner, id).await?;
        // Checked on a copy first, so a refusal answers before any write;
        // then applied to the stored row by compare-and-set.
        let mut probe = row.clone();
        f(&mut probe)?;
        let now = now_millis();
        let updated = self
            .rows
            .update(&Key::of(&row.id), &Key::empty(), Some(row), move |r| {
                if f(r).is_ok() {
                    r.update_at = now;
                }
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(updated)
    }

    pub async fn delete(&self, owner: &str, id: &str) -> Result<(), ApiError> {
        let row = self.own(owner, id).await?;
        self.rows.delete(&Key::of(&row.id), &Key::empty()).await?;
        self.by_owner
            .delete(
                &Key::of(owner),
                &Key::empty().i64(row.create_at).str(&row.id),
            )
            .await?;
        Ok(())
    }

    /// An account's datasets, newest first.
    pub async fn list(&self, owner: &str, limit: usize) -> Result<Vec<DatasetRow>, ApiError> {
        let range = ScanRange {
            order: Order::Desc,
            ..ScanRange::all(limit.clamp(1, 100) as u32)
        };
        let page = self.by_owner.scan(&Key::of(owner), &range).await?;
        let mut out = Vec::new();
        for (ck, ()) in page.rows {
            let mut r = ck.reader();
            let (Some(_), Some(id)) = (r.i64(), r.str()) else {
                continue;
            };
            if let Some(d) = self.rows.get(&Key::of(&id), &Key::empty()).await? {
                out.push(d);
            }
        }
        Ok(out)
    }

    /// Checks that `url` is an upload of `owner` holding a picture; answers
    /// its key, size and bytes.
    pub async fn check_image(
        &self,
        owner: &str,
        url: &str,
    ) -> Result<(String, u32, u32, Vec<u8>), ApiError> {
        let bad = |m: &str| invalid(m.to_string());
        let key = crate::tasks::object_key_of_url(url)
            .ok_or_else(|| bad("a dataset picture is a file of this server"))?;
        let file_id = key
            .strip_prefix("u/")
            .and_then(|k| k.split('/').next())
            .ok_or_else(|| bad("a dataset picture is an uploaded file"))?;
        self.uploads
            .get(&Key::of(file_id), &Key::empty())
            .await?
            .filter(|u| u.owner == owner && u.key.as_deref() == Some(key.as_str()))
            .ok_or(ErrorCode::NotFound)?;
        let k = ObjectKey::parse(&key).map_err(|e| ApiError::internal(e.to_string()))?;
        let obj = self
            .objects
            .get(&k)
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?
            .ok_or(ErrorCode::NotFound)?;
        let (w, h) = image::ImageReader::new(std::io::Cursor::new(&obj.bytes))
            .with_guessed_format()
            .ok()
            .and_then(|r| r.into_dimensions().ok())
            .ok_or_else(|| bad("a dataset picture must be a PNG, JPEG or GIF image"))?;
        Ok((key, w, h, obj.bytes))
    }

    /// The bytes of a dataset picture.
    pub async fn image_bytes(&self, key: &str) -> Result<Vec<u8>, ApiError> {
        let k = ObjectKey::parse(key).map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(self
            .objects
            .get(&k)
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?
            .ok_or(ErrorCode::NotFound)?
            .bytes)
    }
}

/// A caption drafted by the reference descriptor (non-neural: colours,
/// brightness, layout); the owner edits it. `None` when it cannot read the
/// picture.
pub async fn draft_caption(bytes: Vec<u8>) -> Option<String> {
    let text = tokio::task::spawn_blocking(move || engines::reference::describe_image(&bytes))
        .await
        .ok()?
        .ok()?;
    let text: String = text.trim().chars().take(MAX_CAPTION_CHARS).collect();
    (!text.is_empty()).then_some(text)
}

/// The most pictures a dataset may hold.
pub const MAX_IMAGES: usize = MAX_DATASET_IMAGES;
