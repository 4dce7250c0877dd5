//! What creators do to their models: make one (or a new version) from a
//! checked file (`resource/createModel`, `model/ver/add`, imports), edit it
//! and its versions (`commitModel`, `model/edit`, `model/ver/edit`), publish,
//! delist and delete it, and what anyone does: save (collect) a model.
//! Every call on another account's draft answers NotFound.

use infra::store::Key;
use protocol::models::rules::{
    check_agency_fee, check_description, check_name, check_tags, check_trained_words, fits,
    parse_base_model, parse_model_type, DEFAULT_WEIGHT, MAX_IMAGES, MAX_NAME_CHARS, MAX_VERSIONS,
    MAX_VERSION_NAME_CHARS,
};
use protocol::models::{ModelType, PublishStatus, VersionSource, VersionStatus};
use protocol::ErrorCode;
use serde::Deserialize;

use super::{new_id, ModelFileRow, ModelRow, ModelService, VersionRow};
use crate::accounts::now_millis;
use crate::error::{object_key, ApiError};

/// The largest agency fee a creator may ask per use, credits.
pub const MAX_AGENCY_FEE: i64 = 1000;
/// Longest example-picture URL.
const MAX_IMAGE_URL: usize = 1000;

/// A new model or version from a checked file.
pub struct NewVersion<'a> {
    pub owner: &'a str,
    pub owner_name: &'a str,
    pub file: ModelFileRow,
    pub name: &'a str,
    pub model_type: &'a serde_json::Value,
    pub base_model: &'a serde_json::Value,
    pub model_id: Option<&'a str>,
    pub version_name: Option<&'a str>,
    pub description: Option<&'a str>,
    pub sha256: Option<&'a str>,
    pub source: VersionSource,
}

/// Model fields a creator edits (`commitModel`, `model/edit`); absent ones stay.
#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
pub struct ModelEdit {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    #[serde(default)]
    pub nsfw: Option<bool>,
    #[serde(default)]
    pub allow_download: Option<bool>,
    #[serde(default)]
    pub is_agency_fee: Option<bool>,
    #[serde(default)]
    pub agency_fee: Option<i64>,
}

/// Version fields a creator edits (`commitModel`, `model/ver/edit`).
#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
pub struct VersionEdit {
    #[serde(default)]
    pub version_name: Option<String>,
    #[serde(default, alias = "version_description")]
    pub description: Option<String>,
    #[serde(default)]
    pub trained_words: Option<Vec<String>>,
    #[serde(default)]
    pub images: Option<Vec<String>>,
    #[serde(default)]
    pub weight: Option<f32>,
}

fn field(msg: &str) -> ApiError {
    ApiError::with_msg(ErrorCode::ModelFieldInvalid, msg)
}

/// Example pictures: http(s) or this server's `/files/` URLs, at most 20.
pub fn check_images(images: &[String]) -> Result<Vec<String>, ApiError> {
    if images.len() > MAX_IMAGES {
        return Err(field("a version has at most 20 example pictures"));
    }
    images
        .iter()
        .map(|u| {
            let u = u.trim();
            let good =
                (u.starts_with("https://") || u.starts_with("http://") || u.starts_with("/files/"))
                    && u.len() <= MAX_IMAGE_URL
                    && !u.chars().any(|c| c.is_whitespace() || c.is_control());
            good.then(|| u.to_owned())
                .ok_or_else(|| field("an example picture is not a picture URL"))
        })
        .collect()
}

impl ModelService {
    /// Takes a checked file of `owner` out of `MODEL_FILES` (once: a file
    /// makes one version). Another account's file answers NotFound.
    pub async fn take_file(&self, file_id: &str, owner: &str) -> Result<ModelFileRow, ApiError> {
        let pk = Key::of(file_id);
        let row = self
            .files
            .get(&pk, &Key::empty())
            .await?
            .ok_or(ErrorCode::ModelFileInvalid)?;
        if row.owner != owner {
            return Err(ErrorCode::NotFound.into());
        }
        match self
            .files
            .compare_and_set(&pk, &Key::empty(), &row, None)
            .await?
        {
            Ok(()) => Ok(row),
            Err(_) => Err(ApiError::with_msg(
                ErrorCode::ModelFileInvalid,
                "this file is already used by a model",
            )),
        }
    }

    /// Checks a file against what the creator declared and writes the model
    /// (or the version of an own model). Answers the model and the version.
    pub async fn create_version(
        &self,
        n: NewVersion<'_>,
    ) -> Result<(ModelRow, VersionRow), ApiError> {
        let f = &n.file;
        if let Some(want) = n.sha256.map(str::trim).filter(|s| !s.is_empty()) {
            if !want.eq_ignore_ascii_case(&f.sha256) {
                return Err(ApiError::with_msg(
                    ErrorCode::ModelHashMismatch,
                    format!("the file's SHA-256 is {}, not {want}", f.sha256),
                ));
            }
        }
        let existing = match n.model_id {
            Some(id) => Some(self.own_model(id, n.owner).await?),
            None => None,
        };
        let declared = if n.model_type.is_null() {
            existing.as_ref().map(|m| m.model_type).or(f.detected_type)
        } else {
            Some(parse_model_type(n.model_type).ok_or_else(|| field("unknown model_type"))?)
        }
        .ok_or_else(|| field("model_type is required"))?;
        if f.detected_type != Some(declared) {
            let what = f
                .detected_type
                .map_or("not a checkpoint, LoRA or embedding", ModelType::as_str);
            return Err(ApiError::with_msg(
                ErrorCode::ModelTypeMismatch,
                format!("the file is {what}, not {}", declared.as_str()),
            ));
        }
        let (family, variant) = if n.base_model.is_null() {
            match (&existing, &f.detected_family) {
                (Some(m), _) => (m.family.clone(), m.variant.clone()),
                (None, Some(fam)) => parse_base_model(&serde_json::Value::String(fam.clone()))
                    .unwrap_or_else(|| (fam.clone(), fam.clone())),
                (None, None) => return Err(field("base_model is required")),
            }
        } else {
            parse_base_model(n.base_model).ok_or_else(|| field("unknown base_model"))?
        };
        if let Some(fam) = &f.detected_family {
            if !fits(&family, fam) || !fits(fam, &family) {
                return Err(ApiError::with_msg(
                    ErrorCode::ModelTypeMismatch,
                    format!("the file is a {fam} model, not {family}"),
                ));
            }
        }
        let now = now_millis();
        let description = check_description(n.description.unwrap_or(""))?;
        let count = existing.as_ref().map_or(0, |m| m.versions.len());
        if count >= MAX_VERSIONS {
            return Err(field("a model has at most 50 versions"));
        }
        let version_name = match n.version_name.map(str::trim).filter(|s| !s.is_empty()) {
            Some(v) => check_name(v, MAX_VERSION_NAME_CHARS)?,
            None => format!("v{}.0", count + 1),
        };
        let mut model = match existing {
            Some(m) => {
                if m.model_type != declared || (m.family != family && !fits(&m.family, &family)) {
                    return Err(ApiError::with_msg(
                        ErrorCode::ModelTypeMismatch,
                        "a new version must be the model's type and family",
                    ));
                }
                m
            }
            None => ModelRow {
                id: new_id("m"),
                owner: n.owner.to_owned(),
                owner_name: n.owner_name.to_owned(),
                name: check_name(n.name, MAX_NAME_CHARS)?,
                model_type: declared,
                family,
                variant,
                description: description.clone(),
                tags: Vec::new(),
                publish_status: PublishStatus::Draft,
                nsfw: false,
                allow_download: false,
                agency_fee: 0,
                versions: Vec::new(),
                create_at: now,
                update_at: now,
                published_at: None,
            },
        };
        let version = VersionRow {
            ver_no: new_id("v"),
            model_id: model.id.clone(),
            owner: n.owner.to_owned(),
            name: version_name,
            description,
            trained_words: check_trained_words(&f.trained_words).unwrap_or_default(),
            status: VersionStatus::Ready,
            status_msg: String::new(),
            publish_status: PublishStatus::Draft,
            source: n.source,
            file: Some(n.file),
            images: Vec::new(),
            weight: DEFAULT_WEIGHT,
            train_task_id: None,
            create_at: now,
        };
        if model.versions.is_empty() {
            model.versions.push(version.ver_no.clone());
            self.insert(&model, &version).await?;
        } else {
            model = self.add_version(&model, &version).await?;
        }
        Ok((model, version))
    }

    /// Applies an edit to an own model.
    pub async fn edit_model(
        &self,
        id: &str,
        owner: &str,
        e: &ModelEdit,
    ) -> Result<ModelRow, ApiError> {
        let m = self.own_model(id, owner).await?;
        let name = e
            .name
            .as_deref()
            .map(|n| check_name(n, MAX_NAME_CHARS))
            .transpose()?;
        let description = e
            .description
            .as_deref()
            .map(check_description)
            .transpose()?;
        let tags = e.tags.as_deref().map(check_tags).transpose()?;
        let fee = match (e.is_agency_fee, e.agency_fee) {
            (None, None) => None,
            (on, fee) => {
                let on = on.unwrap_or(fee.unwrap_or(0) > 0);
                Some(check_agency_fee(
                    on,
                    fee.unwrap_or(m.agency_fee),
                    MAX_AGENCY_FEE,
                )?)
            }
        };
        let now = now_millis();
        let (nsfw, dl) = (e.nsfw, e.allow_download);
        let updated = self
            .models
            .update(&Key::of(id), &Key::empty(), Some(m), move |r| {
                if let Some(v) = &name {
                    r.name = v.clone();
                }
                if let Some(v) = &description {
                    r.description = v.clone();
                }
                if let Some(v) = &tags {
                    r.tags = v.clone();
                }
                if let Some(v) = nsfw {
                    r.nsfw = v;
                }
                if let Some(v) = dl {
                    r.allow_download = v;
                }
                if let Some(v) = fee {
                    r.agency_fee = v;
                }
                r.update_at = now;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(updated)
    }

    /// Applies an edit to a version of an own model.
    pub async fn edit_version(
        &self,
        ver_no: &str,
        owner: &str,
        e: &VersionEdit,
    ) -> Result<(ModelRow, VersionRow), ApiError> {
        let v = self
            .version(ver_no)
            .await?
            .filter(|v| v.owner == owner)
            .ok_or(ErrorCode::NotFound)?;
        let m = self.own_model(&v.model_id, owner).await?;
        let name = e
            .version_name
            .as_deref()
            .map(|n| check_name(n, MAX_VERSION_NAME_CHARS))
            .transpose()?;
        let description = e
            .description
            .as_deref()
            .map(check_description)
            .transpose()?;
        let words = e
            .trained_words
            .as_deref()
            .map(check_trained_words)
            .transpose()?;
        let images = e.images.as_deref().map(check_images).transpose()?;
        let weight = match e.weight {
            Some(w) if !(-5.0..=5.0).contains(&w) || !w.is_finite() => {
                return Err(field("weight is between -5 and 5"))
            }
            w => w,
        };
        let updated = self
            .versions
            .update(&Key::of(ver_no), &Key::empty(), Some(v), move |r| {
                if let Some(x) = &name {
                    r.name = x.clone();
                }
                if let Some(x) = &description {
                    r.description = x.clone();
                }
                if let Some(x) = &words {
                    r.trained_words = x.clone();
                }
                if let Some(x) = &images {
                    r.images = x.clone();
                }
                if let Some(x) = weight {
                    r.weight = x;
                }
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok((m, updated))
    }

    /// Publishes an own model and the chosen versions (all ready ones when
    /// none are named). Answers the model.
    pub async fn publish(
        &self,
        id: &str,
        owner: &str,
        chosen: &[String],
    ) -> Result<ModelRow, ApiError> {
        let m = self.own_model(id, owner).await?;
        let versions = self.versions_of(&m).await?;
        let picked: Vec<&VersionRow> = if chosen.is_empty() {
            versions
                .iter()
                .filter(|v| v.status == VersionStatus::Ready)
                .collect()
        } else {
            let mut out = Vec::new();
            for c in chosen {
                let v = versions
                    .iter()
                    .find(|v| &v.ver_no == c)
                    .ok_or(ErrorCode::NotFound)?;
                out.push(v);
            }
            out
        };
        if picked.is_empty() {
            return Err(ApiError::with_msg(
                ErrorCode::ModelNotReady,
                "the model has no ready version to publish",
            ));
        }
        if let Some(v) = picked.iter().find(|v| v.status != VersionStatus::Ready) {
            return Err(ApiError::with_msg(
                ErrorCode::ModelNotReady,
                format!("version {} is not ready", v.name),
            ));
        }
        for v in picked {
            self.versions
                .update(&Key::of(&v.ver_no), &Key::empty(), None, |r| {
                    r.publish_status = PublishStatus::Published
                })
                .await?;
        }
        let now = now_millis();
        let updated = self
            .models
            .update(&Key::of(id), &Key::empty(), None, move |r| {
                r.publish_status = PublishStatus::Published;
                r.published_at = Some(r.published_at.unwrap_or(now));
                r.update_at = now;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.index_public(&updated).await?;
        Ok(updated)
    }

    /// Takes an own model (or one version) off the square. A model whose
    /// last published version is delisted is delisted too.
    pub async fn delist(
        &self,
        id: &str,
        owner: &str,
        ver_no: Option<&str>,
    ) -> Result<ModelRow, ApiError> {
        let m = self.own_model(id, owner).await?;
        let versions = self.versions_of(&m).await?;
        if let Some(ver) = ver_no {
            if !m.versions.iter().any(|v| v == ver) {
                return Err(ErrorCode::NotFound.into());
            }
        }
        let mut published_left = false;
        for v in &versions {
            if ver_no.is_none_or(|x| x == v.ver_no) {
                if v.publish_status == PublishStatus::Published {
                    self.versions
                        .update(&Key::of(&v.ver_no), &Key::empty(), None, |r| {
                            r.publish_status = PublishStatus::Delisted
                        })
                        .await?;
                }
            } else if v.publish_status == PublishStatus::Published {
                published_left = true;
            }
        }
        if published_left || m.publish_status != PublishStatus::Published {
            return Ok(m);
        }
        let now = now_millis();
        let updated = self
            .models
            .update(&Key::of(id), &Key::empty(), None, move |r| {
                r.publish_status = PublishStatus::Delisted;
                r.update_at = now;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.index_public(&updated).await?;
        Ok(updated)
    }

    /// Deletes an own model: its versions, their files and every index.
    pub async fn delete(
        &self,
        objects: &infra::objects::DynObjects,
        id: &str,
        owner: &str,
    ) -> Result<(), ApiError> {
        let m = self.own_model(id, owner).await?;
        let versions = self.versions_of(&m).await?;
        let mut gone = m.clone();
        gone.publish_status = PublishStatus::Delisted;
        self.index_public(&gone).await?;
        self.by_owner
            .delete(
                &Key::of(&m.owner),
                &Key::empty().i64(m.create_at).str(&m.id),
            )
            .await?;
        for v in versions {
            if let Some(f) = &v.file {
                self.by_hash
                    .delete(&Key::of(&f.sha256), &Key::of(&v.ver_no))
                    .await?;
                if let Ok(k) = object_key(&f.key) {
                    let _ = objects.delete(&k).await;
                }
            }
            self.versions
                .delete(&Key::of(&v.ver_no), &Key::empty())
                .await?;
        }
        self.models.delete(&Key::of(id), &Key::empty()).await?;
        Ok(())
    }
}
