//! Users' models named by a generation request (issue 19): resolving the
//! ids the catalogue does not know into [`UserModels`] for the pure rules
//! (`protocol::task::rules::prepare_with`), with the models' visibility
//! (a draft or delisted model, or an unpublished version, only for its
//! owner; anything else is left out, so the rules answer as for an unknown
//! id), and each model's creator and agency fee. The fees themselves are
//! paid when the task succeeds ([`super::uses::ModelUses::task_ended`]).

use protocol::models::{ModelType, PublishStatus, VersionStatus};
use protocol::task::catalogue::catalogue;
use protocol::task::rules::non_empty_str;
use protocol::task::{CreateTaskRequest, UserModel, UserModels};
use protocol::ErrorCode;

use super::{ModelRow, ModelService, VersionRow};
use crate::error::ApiError;

/// Most user-model ids one request may name (checkpoint, LoRAs, embeddings).
pub const MAX_NAMED: usize = 24;

/// The ids of user models a request names, by the kind it names them as:
/// the checkpoint (`art_model_ver_no`, else `art_model_no`), the LoRAs and
/// the embeddings. Catalogue ids are left out.
pub fn named_ids(req: &CreateTaskRequest) -> Vec<(ModelType, String)> {
    let cat = catalogue();
    let meta = &req.meta;
    let mut out: Vec<(ModelType, String)> = Vec::new();
    let mut push = |kind: ModelType, id: &str| {
        if !out.iter().any(|(k, i)| *k == kind && i == id) {
            out.push((kind, id.to_owned()));
        }
    };
    let ver = non_empty_str(&req.art_model_ver_no).or(non_empty_str(&meta.art_model_ver_no));
    let no = non_empty_str(&req.art_model_no).or(non_empty_str(&meta.art_model_no));
    if let Some(v) = ver {
        if cat.checkpoint(v).is_none() {
            push(ModelType::Checkpoint, v);
        }
    } else if let Some(n) = no {
        if cat.checkpoint_by_model_no(n).is_none() {
            push(ModelType::Checkpoint, n);
        }
    }
    for l in &meta.lora_models {
        if let Some(id) = non_empty_str(&l.model_ver_no).or(non_empty_str(&l.model_id)) {
            if cat.lora(id).is_none() {
                push(ModelType::Lora, id);
            }
        }
    }
    for e in &meta.embeddings {
        if let Some(id) = non_empty_str(&e.model_ver_no).or(non_empty_str(&e.model_id)) {
            push(ModelType::Embedding, id);
        }
    }
    out
}

fn user_model(named_as: &str, m: &ModelRow, v: &VersionRow) -> UserModel {
    UserModel {
        named_as: named_as.to_owned(),
        ver_no: v.ver_no.clone(),
        model_id: m.id.clone(),
        kind: m.model_type,
        family: m.family.clone(),
        status: v.status,
        file: v.file_ref(),
        creator: m.owner.clone(),
        fee: m.agency_fee.max(0),
        weight: v.weight,
    }
}

/// Resolves what `req` names for `payer` (`None`: a visitor, who sees only
/// published models). Ids nobody may show the payer are left out.
pub async fn resolve(
    models: &ModelService,
    req: &CreateTaskRequest,
    payer: Option<&str>,
) -> Result<UserModels, ApiError> {
    let ids = named_ids(req);
    if ids.len() > MAX_NAMED {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            format!("a task may name at most {MAX_NAMED} models"),
        ));
    }
    let mut items = Vec::with_capacity(ids.len());
    for (kind, id) in ids {
        if let Some((m, v)) = visible(models, &id, payer).await? {
            if m.model_type == kind {
                items.push(user_model(&id, &m, &v));
            }
        }
    }
    Ok(UserModels {
        items,
        payer: payer.map(str::to_owned),
    })
}

/// A version by its number, else a model by its id with the version to
/// use: its newest ready one the viewer may see, else its newest visible
/// (which then answers `modelNotReady`).
async fn visible(
    models: &ModelService,
    id: &str,
    viewer: Option<&str>,
) -> Result<Option<(ModelRow, VersionRow)>, ApiError> {
    match models.version_for(id, viewer).await {
        Ok(found) => return Ok(Some(found)),
        Err(e) if e.code == ErrorCode::NotFound => {}
        Err(e) => return Err(e),
    }
    let m = match models.model_for(id, viewer).await {
        Ok(m) => m,
        Err(e) if e.code == ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mine = viewer == Some(m.owner.as_str());
    let versions: Vec<VersionRow> = models
        .versions_of(&m)
        .await?
        .into_iter()
        .filter(|v| mine || v.publish_status == PublishStatus::Published)
        .collect();
    let pick = versions
        .iter()
        .rev()
        .find(|v| v.status == VersionStatus::Ready)
        .or(versions.last())
        .cloned();
    Ok(pick.map(|v| (m, v)))
}

/// A clear message for a request whose LoRA or embedding the rules could
/// not find: which id, and that it is unknown or not the caller's to use.
pub fn unresolved_message(req: &CreateTaskRequest, users: &UserModels) -> Option<String> {
    let cat = catalogue();
    let meta = &req.meta;
    let known = |kind: ModelType, id: &str| users.find(id, kind).is_some();
    for l in &meta.lora_models {
        if let Some(id) = non_empty_str(&l.model_ver_no).or(non_empty_str(&l.model_id)) {
            if cat.lora(id).is_none() && !known(ModelType::Lora, id) {
                return Some(format!(
                    "LoRA {id} is unknown, not published, or not a LoRA"
                ));
            }
        }
    }
    for e in &meta.embeddings {
        if let Some(id) = non_empty_str(&e.model_ver_no).or(non_empty_str(&e.model_id)) {
            if !known(ModelType::Embedding, id) {
                return Some(format!(
                    "embedding {id} is unknown, not published, or not an embedding"
                ));
            }
        }
    }
    None
}
