//! Shared models (issue 19; spec 3 §7 Models): the rows of models, their
//! versions and their checked files, and `ModelService`, the one place that
//! reads and writes them. Visibility: a draft or delisted model answers
//! NotFound to everyone but its owner; a published one is everyone's.
//! The calls are in `routes/model.rs`; what a model file is comes from the
//! `modelfile` crate at upload confirmation (`MODEL_FILES`).

pub mod comments;
pub mod fees;
pub mod rank;
pub mod uses;

use infra::store::{tables, DynStore, Key, Order, ScanRange, Table};
use protocol::character::OwnerView;
use protocol::models::{
    ModelFileView, ModelStats, ModelType, ModelView, PublishStatus, VersionSource, VersionStatus,
    VersionView,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;

pub mod feed;
pub mod import;
pub mod ops;
pub mod upload;
pub mod works;

/// The one partition of the published-models index.
const PUBLIC: i64 = 0;
/// Rows a list reads per call at most.
pub const MAX_LIST: usize = 100;

/// What was read from a confirmed model-file upload (category 60).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelFileRow {
    pub file_id: String,
    pub owner: String,
    /// Object key of the file (under `m/`, never served by `/files`).
    pub key: String,
    pub name: String,
    pub size: u64,
    pub sha256: String,
    pub autov2: String,
    pub autov3: String,
    pub detected_type: Option<ModelType>,
    pub detected_family: Option<String>,
    pub rank: Option<u32>,
    pub alpha: Option<f32>,
    pub tensor_count: u32,
    /// Trigger words read from the file (kohya tag frequencies, modelspec).
    pub trained_words: Vec<String>,
    /// A short summary of the file's own metadata (kohya's `ss_*`, modelspec), size-limited.
    pub metadata: std::collections::BTreeMap<String, String>,
    pub create_at: i64,
}

/// A shared model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRow {
    pub id: String,
    pub owner: String,
    pub owner_name: String,
    pub name: String,
    pub model_type: ModelType,
    /// Catalogue family id.
    pub family: String,
    /// The family variant (`SDXL 1.0`, `Pony`).
    pub variant: String,
    pub description: String,
    pub tags: Vec<String>,
    pub publish_status: PublishStatus,
    pub nsfw: bool,
    pub allow_download: bool,
    /// Credits a task using the model pays its creator on success (0: none).
    pub agency_fee: i64,
    /// Version numbers, oldest first.
    pub versions: Vec<String>,
    pub create_at: i64,
    pub update_at: i64,
    /// When it was first published (its place in the public index).
    #[serde(default)]
    pub published_at: Option<i64>,
}

/// A model's version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionRow {
    pub ver_no: String,
    pub model_id: String,
    pub owner: String,
    pub name: String,
    pub description: String,
    pub trained_words: Vec<String>,
    pub status: VersionStatus,
    #[serde(default)]
    pub status_msg: String,
    pub publish_status: PublishStatus,
    pub source: VersionSource,
    pub file: Option<ModelFileRow>,
    pub images: Vec<String>,
    pub weight: f32,
    /// The training task that makes it (source `Train`).
    #[serde(default)]
    pub train_task_id: Option<String>,
    pub create_at: i64,
}

/// What the public index keeps beside each published model, so the feed's
/// filters need no row reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelListing {
    pub model_type: ModelType,
    pub family: String,
    /// A version was trained here (the lora_train feed, channel 1).
    #[serde(default)]
    pub trained: bool,
}

/// A model an account saved (`model/save`, `save/ver-refer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedModel {
    pub saved_at: i64,
    /// The version the save refers to, when one was chosen.
    #[serde(default)]
    pub ver_no: Option<String>,
}

/// A new id, time-ordered.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::now_v7().simple())
}

/// The file name engines see for a version's file.
pub fn engine_file_name(file: &ModelFileRow) -> String {
    let stem: String = file
        .name
        .trim_end_matches(".safetensors")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    format!("easel-{}-{stem}.safetensors", file.autov2)
}

impl VersionRow {
    /// The job's reference to this version's file.
    pub fn file_ref(&self) -> Option<protocol::task::ModelFileRef> {
        let f = self.file.as_ref()?;
        Some(protocol::task::ModelFileRef {
            key: f.key.clone(),
            sha256: f.sha256.clone(),
            size: f.size,
            name: engine_file_name(f),
            local_path: None,
        })
    }
}

#[derive(Clone)]
pub struct ModelService {
    pub models: Table<ModelRow>,
    pub versions: Table<VersionRow>,
    pub by_owner: Table<()>,
    pub public: Table<ModelListing>,
    pub files: Table<ModelFileRow>,
    pub by_hash: Table<()>,
    pub saves: Table<SavedModel>,
}

fn one() -> Key {
    Key::empty()
}

impl ModelService {
    pub fn new(store: DynStore) -> ModelService {
        ModelService {
            models: Table::new(store.clone(), &tables::MODELS),
            versions: Table::new(store.clone(), &tables::MODEL_VERSIONS),
            by_owner: Table::new(store.clone(), &tables::MODELS_BY_OWNER),
            public: Table::new(store.clone(), &tables::MODELS_PUBLIC),
            files: Table::new(store.clone(), &tables::MODEL_FILES),
            by_hash: Table::new(store.clone(), &tables::MODEL_BY_HASH),
            saves: Table::new(store, &tables::MODEL_SAVES),
        }
    }

    /// A model as `viewer` may see it: drafts and delisted models only by
    /// their owner; anything else answers NotFound.
    pub async fn model_for(&self, id: &str, viewer: Option<&str>) -> Result<ModelRow, ApiError> {
        let row = self
            .models
            .get(&Key::of(id), &one())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if row.publish_status == PublishStatus::Published || viewer == Some(row.owner.as_str()) {
            Ok(row)
        } else {
            Err(ErrorCode::NotFound.into())
        }
    }

    /// An own model (anyone else's answers NotFound).
    pub async fn own_model(&self, id: &str, owner: &str) -> Result<ModelRow, ApiError> {
        self.models
            .get(&Key::of(id), &one())
            .await?
            .filter(|r| r.owner == owner)
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// A version as `viewer` may see it (its model's rule, and an
    /// unpublished version of a published model only for the owner).
    pub async fn version_for(
        &self,
        ver_no: &str,
        viewer: Option<&str>,
    ) -> Result<(ModelRow, VersionRow), ApiError> {
        let v = self
            .versions
            .get(&Key::of(ver_no), &one())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        let m = self.model_for(&v.model_id, viewer).await?;
        if v.publish_status != PublishStatus::Published && viewer != Some(m.owner.as_str()) {
            return Err(ErrorCode::NotFound.into());
        }
        Ok((m, v))
    }

    pub async fn version(&self, ver_no: &str) -> Result<Option<VersionRow>, ApiError> {
        Ok(self.versions.get(&Key::of(ver_no), &one()).await?)
    }

    pub async fn versions_of(&self, m: &ModelRow) -> Result<Vec<VersionRow>, ApiError> {
        let mut out = Vec::with_capacity(m.versions.len());
        for v in &m.versions {
            if let Some(row) = self.versions.get(&Key::of(v), &one()).await? {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// Writes a new model with its first version, and indexes it by owner
    /// and by the file's hash.
    pub async fn insert(&self, m: &ModelRow, v: &VersionRow) -> Result<(), ApiError> {
        self.versions.put(&Key::of(&v.ver_no), &one(), v).await?;
        if let Some(f) = &v.file {
            self.by_hash
                .put(&Key::of(&f.sha256), &Key::of(&v.ver_no), &())
                .await?;
        }
        self.models.put(&Key::of(&m.id), &one(), m).await?;
        self.by_owner
            .put(
                &Key::of(&m.owner),
                &Key::empty().i64(m.create_at).str(&m.id),
                &(),
            )
            .await?;
        Ok(())
    }

    /// Adds a version to a model (the version row first, then the model's
    /// list by compare-and-set).
    pub async fn add_version(&self, m: &ModelRow, v: &VersionRow) -> Result<ModelRow, ApiError> {
        self.versions.put(&Key::of(&v.ver_no), &one(), v).await?;
        if let Some(f) = &v.file {
            self.by_hash
                .put(&Key::of(&f.sha256), &Key::of(&v.ver_no), &())
                .await?;
        }
        let ver = v.ver_no.clone();
        let now = now_millis();
        let updated = self
            .models
            .update(&Key::of(&m.id), &one(), None, move |r| {
                if !r.versions.contains(&ver) {
                    r.versions.push(ver.clone());
                }
                r.update_at = now;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(updated)
    }

    /// Keeps the public index in step with a model's publish status.
    pub async fn index_public(&self, m: &ModelRow) -> Result<(), ApiError> {
        let Some(at) = m.published_at else {
            return Ok(());
        };
        let ck = Key::empty().i64(at).str(&m.id);
        if m.publish_status == PublishStatus::Published {
            let trained = self
                .versions_of(m)
                .await?
                .iter()
                .any(|v| v.source == VersionSource::Train);
            let listing = ModelListing {
                model_type: m.model_type,
                family: m.family.clone(),
                trained,
            };
            self.public
                .put(&Key::empty().i64(PUBLIC), &ck, &listing)
                .await?;
        } else {
            self.public.delete(&Key::empty().i64(PUBLIC), &ck).await?;
        }
        Ok(())
    }

    /// Published models, newest first, passing `keep`; from before `before`
    /// (published_at ms, exclusive) when paging.
    pub async fn public_page(
        &self,
        before: Option<(i64, String)>,
        limit: usize,
        keep: impl Fn(&ModelListing) -> bool,
    ) -> Result<Vec<(i64, String)>, ApiError> {
        Ok(self
            .public_listings(before, limit, keep)
            .await?
            .into_iter()
            .map(|(at, id, _)| (at, id))
            .collect())
    }

    /// [`Self::public_page`] with each model's index entry.
    pub async fn public_listings(
        &self,
        before: Option<(i64, String)>,
        limit: usize,
        keep: impl Fn(&ModelListing) -> bool,
    ) -> Result<Vec<(i64, String, ModelListing)>, ApiError> {
        let mut out = Vec::new();
        let mut to = match before {
            Some((at, id)) => std::ops::Bound::Excluded(Key::empty().i64(at).str(&id)),
            None => std::ops::Bound::Unbounded,
        };
        loop {
            let range = ScanRange {
                to: to.clone(),
                order: Order::Desc,
                ..ScanRange::all(MAX_LIST as u32)
            };
            let page = self.public.scan(&Key::empty().i64(PUBLIC), &range).await?;
            let n = page.rows.len();
            for (ck, listing) in page.rows {
                let mut r = ck.reader();
                let (Some(at), Some(id)) = (r.i64(), r.str()) else {
                    continue;
                };
                to = std::ops::Bound::Excluded(ck.clone());
                if keep(&listing) {
                    out.push((at, id, listing));
                    if out.len() >= limit {
                        return Ok(out);
                    }
                }
            }
            if n < MAX_LIST {
                return Ok(out);
            }
        }
    }

    /// Model rows by id in one batched read, in the order asked (missing
    /// ones left out).
    pub async fn models_by_id(&self, ids: &[String]) -> Result<Vec<ModelRow>, ApiError> {
        let keys: Vec<(Key, Key)> = ids.iter().map(|id| (Key::of(id), one())).collect();
        Ok(self
            .models
            .get_many(&keys)
            .await?
            .into_iter()
            .flatten()
            .collect())
    }

    /// The versions of several models in one batched read: for each model,
    /// what [`Self::versions_of`] answers.
    pub async fn versions_of_many(
        &self,
        ms: &[ModelRow],
    ) -> Result<Vec<Vec<VersionRow>>, ApiError> {
        let keys: Vec<(Key, Key)> = ms
            .iter()
            .flat_map(|m| m.versions.iter().map(|v| (Key::of(v), one())))
            .collect();
        let mut rows = self.versions.get_many(&keys).await?.into_iter();
        Ok(ms
            .iter()
            .map(|m| {
                rows.by_ref()
                    .take(m.versions.len())
                    .flatten()
                    .collect::<Vec<_>>()
            })
            .collect())
    }

    /// An account's models, newest first.
    pub async fn owned(&self, owner: &str, limit: usize) -> Result<Vec<ModelRow>, ApiError> {
        self.owned_page(owner, None, limit).await
    }

    /// An account's models, newest first, from before `before` (create_at
    /// ms, id; exclusive) when paging.
    pub async fn owned_page(
        &self,
        owner: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<ModelRow>, ApiError> {
        let range = ScanRange {
            to: match before {
                Some((at, id)) => std::ops::Bound::Excluded(Key::empty().i64(at).str(&id)),
                None => std::ops::Bound::Unbounded,
            },
            order: Order::Desc,
            ..ScanRange::all(limit.min(MAX_LIST) as u32)
        };
        let page = self.by_owner.scan(&Key::of(owner), &range).await?;
        let mut out = Vec::new();
        for (ck, ()) in page.rows {
            let mut r = ck.reader();
            let (Some(_), Some(id)) = (r.i64(), r.str()) else {
                continue;
            };
            if let Some(m) = self.models.get(&Key::of(&id), &one()).await? {
                out.push(m);
            }
        }
        Ok(out)
    }
}

/// A version as users see it; the download link only when the creator
/// allows downloads or the viewer is the owner.
pub fn version_view(m: &ModelRow, v: &VersionRow, viewer: Option<&str>) -> VersionView {
    let mine = viewer == Some(m.owner.as_str());
    VersionView {
        model_ver_no: v.ver_no.clone(),
        model_id: m.id.clone(),
        version_name: v.name.clone(),
        model_type: m.model_type,
        base_model: m.family.clone(),
        base_model_name: m.variant.clone(),
        description: v.description.clone(),
        trained_words: v.trained_words.clone(),
        status: v.status,
        status_msg: v.status_msg.clone(),
        publish_status: v.publish_status,
        source: v.source,
        file: v.file.as_ref().map(|f| ModelFileView {
            name: f.name.clone(),
            size: f.size,
            format: "safetensors".into(),
            sha256: f.sha256.clone(),
            autov2: f.autov2.clone(),
            autov3: f.autov3.clone(),
            detected_type: f.detected_type,
            detected_family: f.detected_family.clone(),
            rank: f.rank,
            alpha: f.alpha,
            tensor_count: f.tensor_count,
            download_url: (m.allow_download || mine)
                .then(|| format!("/api/v1/model/download?model_ver_no={}", v.ver_no)),
        }),
        images: v.images.clone(),
        banner: v.images.first().cloned(),
        weight: v.weight,
        create_at: v.create_at,
    }
}

/// A model with its versions as `viewer` sees them (others see only
/// published versions).
pub fn model_view(
    m: &ModelRow,
    versions: &[VersionRow],
    stats: ModelStats,
    viewer: Option<&str>,
) -> ModelView {
    let mine = viewer == Some(m.owner.as_str());
    let versions: Vec<VersionView> = versions
        .iter()
        .filter(|v| mine || v.publish_status == PublishStatus::Published)
        .map(|v| version_view(m, v, viewer))
        .collect();
    let cover = versions.iter().rev().find_map(|v| v.banner.clone());
    ModelView {
        model_id: m.id.clone(),
        name: m.name.clone(),
        model_type: m.model_type,
        base_model: m.family.clone(),
        base_model_name: m.variant.clone(),
        description: m.description.clone(),
        tags: m.tags.clone(),
        owner: OwnerView {
            id: m.owner.clone(),
            name: m.owner_name.clone(),
        },
        is_mine: mine,
        publish_status: m.publish_status,
        nsfw: m.nsfw,
        allow_download: m.allow_download,
        is_agency_fee: m.agency_fee > 0,
        agency_fee: m.agency_fee,
        cover,
        versions,
        stats,
        create_at: m.create_at,
        update_at: m.update_at,
    }
}
