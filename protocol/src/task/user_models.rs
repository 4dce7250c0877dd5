//! Users' shared models in generation (issue 19): the checkpoints, LoRAs
//! and embeddings a request names that are not in the built-in catalogue,
//! as the server resolved them beforehand ([`UserModels`]), and the pure
//! rules [`super::rules::prepare_with`] applies to them: visibility was the
//! server's (an id it could not show the caller is simply absent here, so
//! the request fails as for an unknown catalogue id), readiness (a Pending
//! or Failed version is `modelNotReady`), the family fit of every user LoRA
//! and embedding ([`crate::models::rules::fits`], `studio25` in every
//! mode), and the creators' fees ([`ModelUse`]).

use serde::{Deserialize, Serialize};

use super::catalogue::Checkpoint;
use super::codes::Category;
use super::job::ModelFileRef;
use crate::error::ErrorCode;
use crate::models::rules::fits;
use crate::models::{ModelType, VersionStatus};

/// One version of a user's model, resolved by the server from an id the
/// request names (a `model_ver_no`, or a `model_id` meaning its newest
/// usable version).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserModel {
    /// The id as the request named it (a version number or a model id).
    pub named_as: String,
    pub ver_no: String,
    pub model_id: String,
    pub kind: ModelType,
    /// Catalogue family id (`sd`, `sdxl`, ...).
    pub family: String,
    pub status: VersionStatus,
    /// The version's file (`None` only while it is not ready).
    pub file: Option<ModelFileRef>,
    /// The creator's account id.
    pub creator: String,
    /// Credits a task pays the creator (0: none).
    pub fee: i64,
    /// The weight the creator suggests.
    pub weight: f32,
}

/// The user models a request names, and who pays for them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserModels {
    pub items: Vec<UserModel>,
    /// The paying account (`None` for visitors): its own models cost no fee.
    pub payer: Option<String>,
}

/// A user model a task uses: recorded with the task (for `ver/can-del`,
/// use counts and rankings) and, with a fee, paid to its creator when the
/// task succeeds.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelUse {
    pub ver_no: String,
    pub model_id: String,
    pub creator: String,
    /// Credits the creator earns (0 when the payer is the creator).
    pub fee: i64,
}

impl UserModels {
    /// The model named `id` of kind `kind`.
    pub fn find(&self, id: &str, kind: ModelType) -> Option<&UserModel> {
        self.items
            .iter()
            .find(|m| m.kind == kind && (m.named_as == id || m.ver_no == id))
    }

    /// The fee `payer` pays for `m`: none for their own model.
    pub fn fee_of(&self, m: &UserModel) -> i64 {
        if self.payer.as_deref() == Some(m.creator.as_str()) {
            0
        } else {
            m.fee.max(0)
        }
    }

    /// What the task records for `m`.
    pub fn use_of(&self, m: &UserModel) -> ModelUse {
        ModelUse {
            ver_no: m.ver_no.clone(),
            model_id: m.model_id.clone(),
            creator: m.creator.clone(),
            fee: self.fee_of(m),
        }
    }
}

/// The file of a usable version: `modelNotReady` while it is Pending or
/// Failed (or has no file).
pub fn ready_file(m: &UserModel) -> Result<ModelFileRef, ErrorCode> {
    match (&m.status, &m.file) {
        (VersionStatus::Ready, Some(f)) => Ok(f.clone()),
        _ => Err(ErrorCode::ModelNotReady),
    }
}

/// A user LoRA or embedding on a checkpoint of `checkpoint_family`:
/// `studio25` unless it fits, in every mode.
pub fn check_fit(checkpoint_family: &str, m: &UserModel) -> Result<(), ErrorCode> {
    if fits(checkpoint_family, &m.family) {
        Ok(())
    } else {
        Err(ErrorCode::Studio25)
    }
}

/// The creative mode of a user checkpoint of `family`: the mode of the
/// catalogue's checkpoints of that family (SDXL's is 5), else normal.
pub fn category_of_family(family: &str) -> Category {
    super::catalogue::catalogue()
        .checkpoints
        .iter()
        .find(|c| c.family == family && c.category != Category::Studio)
        .map_or(Category::Normal, |c| c.category)
}

/// The checkpoint a job runs: the catalogue's, or a user's.
pub(super) struct Named<'u> {
    pub model: String,
    pub family: String,
    pub category: Category,
    pub user: Option<&'u UserModel>,
}

pub(super) fn from_catalogue<'u>(c: &Checkpoint) -> Named<'u> {
    Named {
        model: c.model_ver_no.clone(),
        family: c.family.clone(),
        category: c.category,
        user: None,
    }
}

/// A user checkpoint named `id`: `PleaseSelectBaseName` when the server
/// did not resolve it (unknown, or not the caller's to use), `modelNotReady`
/// while its version is not ready.
pub(super) fn from_user<'u>(
    users: &'u UserModels,
    id: &str,
) -> Result<Option<Named<'u>>, ErrorCode> {
    let m = users
        .find(id, ModelType::Checkpoint)
        .ok_or(ErrorCode::PleaseSelectBaseName)?;
    ready_file(m)?;
    Ok(Some(Named {
        model: m.ver_no.clone(),
        family: m.family.clone(),
        category: category_of_family(&m.family),
        user: Some(m),
    }))
}

/// Records `u` once per version (a request may name a model twice).
pub fn push_use(uses: &mut Vec<ModelUse>, u: ModelUse) {
    if !uses.iter().any(|x| x.ver_no == u.ver_no) {
        uses.push(u);
    }
}
