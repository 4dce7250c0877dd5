//! The wire types of shared models: a model (one name, one type, one base
//! family, an owner) has versions; a version has one file (safetensors only),
//! its hashes and what was read from it, trigger words and example pictures.
//! `publish_status` says who sees it: a draft only its owner, a published
//! model everyone (the catalogue, the square's model feed), a delisted one
//! its owner and the tasks that already used it.

use serde::{Deserialize, Serialize};

use crate::character::OwnerView;

/// What a model file is (spec 3 §3 model_type; contribution types
/// model_Checkpoint, model_LORA).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelType {
    Checkpoint,
    Lora,
    Embedding,
}

impl ModelType {
    pub const ALL: [ModelType; 3] = [ModelType::Checkpoint, ModelType::Lora, ModelType::Embedding];

    pub const fn as_str(self) -> &'static str {
        match self {
            ModelType::Checkpoint => "checkpoint",
            ModelType::Lora => "lora",
            ModelType::Embedding => "embedding",
        }
    }
}

/// Who sees a model or a version (spec 3 §3 publish_status 1 = published).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(into = "u8", try_from = "u8")]
pub enum PublishStatus {
    /// Only the owner sees it; it can be used only by the owner.
    #[default]
    Draft,
    /// Everyone sees and uses it.
    Published,
    /// Taken off the square by its owner: no longer listed or usable by new
    /// tasks of others; kept for the works and tasks that used it.
    Delisted,
}

impl From<PublishStatus> for u8 {
    fn from(s: PublishStatus) -> u8 {
        match s {
            PublishStatus::Draft => 0,
            PublishStatus::Published => 1,
            PublishStatus::Delisted => 2,
        }
    }
}

impl TryFrom<u8> for PublishStatus {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, String> {
        match n {
            0 => Ok(PublishStatus::Draft),
            1 => Ok(PublishStatus::Published),
            2 => Ok(PublishStatus::Delisted),
            _ => Err(format!("unknown publish_status {n}")),
        }
    }
}

/// A version's readiness (spec 3 §3 status 1 = ready).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(into = "u8", try_from = "u8")]
pub enum VersionStatus {
    /// Its file is being checked, or it is being trained.
    #[default]
    Pending,
    /// Usable.
    Ready,
    /// Its file was refused or its training failed (`status_msg` says why).
    Failed,
}

impl From<VersionStatus> for u8 {
    fn from(s: VersionStatus) -> u8 {
        match s {
            VersionStatus::Pending => 0,
            VersionStatus::Ready => 1,
            VersionStatus::Failed => 2,
        }
    }
}

impl TryFrom<u8> for VersionStatus {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, String> {
        match n {
            0 => Ok(VersionStatus::Pending),
            1 => Ok(VersionStatus::Ready),
            2 => Ok(VersionStatus::Failed),
            _ => Err(format!("unknown status {n}")),
        }
    }
}

/// Where a version came from.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum VersionSource {
    #[default]
    Upload,
    Import,
    Train,
}

/// A version's file as users see it (Civitai shows the same: size, format,
/// hashes, and what the file is).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ModelFileView {
    pub name: String,
    pub size: u64,
    /// Always "safetensors": nothing else is accepted.
    pub format: String,
    pub sha256: String,
    /// Civitai's AutoV2: the first 10 hex digits of the SHA-256, upper case.
    pub autov2: String,
    /// Civitai's AutoV3: the SHA-256 of the tensor data (after the header).
    #[serde(default)]
    pub autov3: String,
    /// What the server read from the file.
    pub detected_type: Option<ModelType>,
    pub detected_family: Option<String>,
    /// LoRA rank (the down matrices' inner size).
    #[serde(default)]
    pub rank: Option<u32>,
    #[serde(default)]
    pub alpha: Option<f32>,
    pub tensor_count: u32,
    /// The download link, when the creator allows downloads (or for the owner).
    #[serde(default)]
    pub download_url: Option<String>,
}

/// One version of a model (spec 3 §3 lora entries: model_ver_no,
/// version_name, base_model, trained_words, status, publish_status).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionView {
    pub model_ver_no: String,
    pub model_id: String,
    pub version_name: String,
    pub model_type: ModelType,
    /// The family id (`sd`, `sdxl`, `flux`, ...).
    pub base_model: String,
    /// The family variant users know (`SDXL 1.0`, `Pony`, `SD 1.5`).
    pub base_model_name: String,
    pub description: String,
    pub trained_words: Vec<String>,
    pub status: VersionStatus,
    #[serde(default)]
    pub status_msg: String,
    pub publish_status: PublishStatus,
    pub source: VersionSource,
    pub file: Option<ModelFileView>,
    /// Example pictures (the first is the banner).
    pub images: Vec<String>,
    pub banner: Option<String>,
    /// The LoRA weight a picker starts from.
    pub weight: f32,
    pub create_at: i64,
}

/// Live figures of a model.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ModelStats {
    /// Tasks that used it.
    pub uses: i64,
    pub downloads: i64,
    pub likes: i64,
    pub collects: i64,
    /// Credits its creator earned from it.
    pub earnings: i64,
    /// Comments on it (replies included); not part of the ranking formula.
    #[serde(default)]
    pub comments: i64,
}

/// A model with its versions (`model/detail`, `detail-with-ver`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelView {
    pub model_id: String,
    pub name: String,
    pub model_type: ModelType,
    pub base_model: String,
    pub base_model_name: String,
    pub description: String,
    pub tags: Vec<String>,
    pub owner: OwnerView,
    pub is_mine: bool,
    pub publish_status: PublishStatus,
    pub nsfw: bool,
    /// Whether others may download the files.
    pub allow_download: bool,
    /// Spec 1 §3: a task that uses the model pays its creator `agency_fee`
    /// credits when it succeeds.
    pub is_agency_fee: bool,
    pub agency_fee: i64,
    pub cover: Option<String>,
    pub versions: Vec<VersionView>,
    pub stats: ModelStats,
    pub create_at: i64,
    pub update_at: i64,
}

/// `resource/createModel` (DESIGN.md Contracts): a model (or, with
/// `model_id`, a new version of one) from an uploaded file (category 60).
/// The declared fields are [`ModelDeclaration`], flattened: the wire is one
/// flat object, and `model/import/submit` shares the same fields.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CreateModelRequest {
    pub file_id: String,
    #[serde(flatten)]
    pub model: ModelDeclaration,
}

/// What a creator declares about a new model or version, beside its file
/// (`resource/createModel`, `model/import/submit`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ModelDeclaration {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub model_type: serde_json::Value,
    #[serde(default)]
    pub base_model: serde_json::Value,
    /// Add a version to this own model instead of making a new model.
    #[serde(default)]
    pub model_id: Option<String>,
    #[serde(default)]
    pub version_name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// The SHA-256 the client computed; a different file answers `modelHashMismatch`.
    #[serde(default)]
    pub sha256: Option<String>,
}

/// What `resource/createModel` answers (DESIGN.md Contracts).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateModelAnswer {
    pub model_id: String,
    pub model_ver_no: String,
    pub sha256: String,
    pub autov2: String,
}

#[cfg(feature = "openapi")]
integer_schema!(PublishStatus, "0 draft, 1 published, 2 delisted", [0, 1, 2]);

#[cfg(feature = "openapi")]
integer_schema!(VersionStatus, "0 pending, 1 ready, 2 failed", [0, 1, 2]);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The flattened declaration keeps createModel's flat wire both ways.
    #[test]
    fn create_model_wire_is_flat() {
        let wire = serde_json::json!({
            "file_id": "f1", "name": "Ink", "model_type": 2, "base_model": "sdxl",
            "model_id": null, "version_name": "v1", "description": null, "sha256": "ab"
        });
        let r: CreateModelRequest = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(r.file_id, "f1");
        assert_eq!(r.model.name, "Ink");
        assert_eq!(r.model.model_type, serde_json::json!(2));
        assert_eq!(r.model.base_model, serde_json::json!("sdxl"));
        assert_eq!(r.model.version_name.as_deref(), Some("v1"));
        assert_eq!(r.model.sha256.as_deref(), Some("ab"));
        assert_eq!(serde_json::to_value(&r).unwrap(), wire);
        let bare: CreateModelRequest = serde_json::from_str(r#"{"file_id":"f2"}"#).unwrap();
        assert_eq!(bare.model, ModelDeclaration::default());
        assert!(serde_json::from_str::<CreateModelRequest>(r#"{"name":"x"}"#).is_err());
    }
}
