//! Model files at upload confirmation (category 60) and after an import:
//! the file is joined by the object store into a private key `m/{file_id}/{name}`
//! (never served by `/files`), its head is sniffed (pickles and PyTorch zips can
//! run code: refused and deleted), its safetensors header is read through
//! ranges (never the whole file in memory), inspected, and the whole file is
//! hashed by streaming ranges. What was read becomes a `MODEL_FILES` row that
//! `resource/createModel` turns into a version.

use infra::objects::{DynObjects, ObjectKey};
use infra::store::Key;
use modelfile::{FileHasher, Limits, ModelFileError, ModelKind};
use protocol::models::ModelType;
use protocol::ErrorCode;
use serde_json::json;

use super::{ModelFileRow, ModelService};
use crate::accounts::now_millis;
use crate::error::{object_key, ApiError};
use crate::state::AppState;
use crate::uploads::{part_key, UploadRow};

/// Ranges read per step while hashing.
pub const HASH_CHUNK: u64 = 8 * 1024 * 1024;
/// Metadata entries kept on a file row, and the length of each value.
const META_ENTRIES: usize = 64;
const META_VALUE_CHARS: usize = 300;
/// Metadata keys too large or too private to keep (dataset folders, tag lists).
const META_SKIP: [&str; 4] = [
    "ss_tag_frequency",
    "ss_dataset_dirs",
    "ss_datasets",
    "ss_bucket_info",
];

/// Where a model file is kept: outside `u/`, so `/files` never serves it.
pub fn model_key(file_id: &str, name: &str) -> String {
    format!("m/{file_id}/{name}")
}

/// The envelope key of a refused file.
pub fn refusal(e: &ModelFileError) -> ApiError {
    let code = match e {
        ModelFileError::Pickle => ErrorCode::ModelFilePickle,
        ModelFileError::NotSafetensors => ErrorCode::ModelFileInvalid,
        ModelFileError::Io(why) => return ApiError::internal(format!("model file read: {why}")),
        _ => ErrorCode::ModelHeaderInvalid,
    };
    ApiError::with_msg(code, e.to_string())
}

fn kind_type(k: ModelKind) -> Option<ModelType> {
    match k {
        ModelKind::Checkpoint => Some(ModelType::Checkpoint),
        ModelKind::Lora => Some(ModelType::Lora),
        ModelKind::Embedding => Some(ModelType::Embedding),
        ModelKind::Unknown => None,
    }
}

async fn range(
    objects: &DynObjects,
    key: &ObjectKey,
    at: u64,
    len: u64,
) -> Result<Vec<u8>, ApiError> {
    objects
        .get_range(key, at, len)
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(|| ApiError::internal("a model file vanished while it was read"))
}

/// Reads, checks and hashes a stored model file of `size` bytes. A refused
/// file answers its key (the caller deletes it).
pub async fn check_stored(
    objects: &DynObjects,
    key: &ObjectKey,
    size: u64,
    file_id: &str,
    owner: &str,
    name: &str,
) -> Result<ModelFileRow, ApiError> {
    let head = range(objects, key, 0, modelfile::SNIFF_LEN as u64).await?;
    let kind = modelfile::sniff(&head);
    if kind.runs_code() {
        return Err(refusal(&ModelFileError::Pickle));
    }
    if kind != modelfile::FileKind::Safetensors {
        return Err(refusal(&ModelFileError::NotSafetensors));
    }
    let limits = Limits::default();
    let header_len = head
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .ok_or_else(|| refusal(&ModelFileError::NotSafetensors))?;
    // Only the length and the JSON header are read (at most the header limit).
    let want = if header_len <= limits.max_header_bytes {
        header_len.saturating_add(8).min(size)
    } else {
        8
    };
    let bytes = range(objects, key, 0, want).await?;
    let header = modelfile::read_header(&mut std::io::Cursor::new(bytes), size, &limits)
        .map_err(|e| refusal(&e))?;
    let facts = modelfile::inspect(&header);
    let mut hasher = FileHasher::new();
    let mut at = 0;
    while at < size {
        let chunk = range(objects, key, at, HASH_CHUNK.min(size - at)).await?;
        if chunk.is_empty() {
            return Err(ApiError::internal("a model file ended before its size"));
        }
        at += chunk.len() as u64;
        hasher = tokio::task::spawn_blocking(move || {
            hasher.update(&chunk);
            hasher
        })
        .await
        .map_err(ApiError::internal)?;
    }
    let hashes = hasher.finish();
    if let modelfile::DeclaredHash::Differs { declared } =
        modelfile::check_declared_hash(&header, &hashes)
    {
        return Err(ApiError::with_msg(
            ErrorCode::ModelHashMismatch,
            format!(
                "the file's metadata declares tensor hash {declared}, but its tensors hash to {}: it was changed after it was made",
                hashes.autov3.unwrap_or_default()
            ),
        ));
    }
    let metadata = facts
        .metadata
        .iter()
        .filter(|(k, _)| !META_SKIP.contains(&k.as_str()))
        .filter(|(k, _)| k.starts_with("ss_") || k.starts_with("modelspec."))
        .take(META_ENTRIES)
        .map(|(k, v)| (k.clone(), v.chars().take(META_VALUE_CHARS).collect()))
        .collect();
    Ok(ModelFileRow {
        file_id: file_id.to_owned(),
        owner: owner.to_owned(),
        key: key.as_str().to_owned(),
        name: name.to_owned(),
        size,
        sha256: hashes.sha256,
        autov2: hashes.autov2,
        autov3: hashes.autov3.unwrap_or_default(),
        detected_type: kind_type(facts.kind),
        detected_family: facts.family.map(str::to_owned),
        rank: facts.rank.and_then(|r| u32::try_from(r).ok()),
        alpha: facts.alpha.map(|a| a as f32),
        tensor_count: u32::try_from(facts.tensor_count).unwrap_or(u32::MAX),
        trained_words: facts.trained_words,
        metadata,
        create_at: now_millis(),
    })
}

/// Confirms a model-file upload whose parts are all in: joins them into the
/// private key, checks the file and records it. A refused file leaves
/// nothing behind (joined file, parts and upload row are removed).
pub async fn confirm(
    state: &AppState,
    row: &UploadRow,
    parts: &[ObjectKey],
) -> Result<ModelFileRow, ApiError> {
    let key = object_key(&model_key(&row.file_id, &row.file_name))?;
    let n = state
        .objects
        .concat(parts, &key, "application/octet-stream")
        .await
        .map_err(ApiError::internal)?;
    let checked = if n == row.size {
        check_stored(
            &state.objects,
            &key,
            n,
            &row.file_id,
            &row.owner,
            &row.file_name,
        )
        .await
    } else {
        Err(ApiError::with_msg(
            ErrorCode::UploadError,
            format!("the parts hold {n} bytes, not the {} announced", row.size),
        ))
    };
    match checked {
        Ok(file) => {
            ModelService::new(state.store.clone())
                .files
                .put(&Key::of(&file.file_id), &Key::empty(), &file)
                .await?;
            Ok(file)
        }
        Err(e) => {
            let _ = state.objects.delete(&key).await;
            for i in 0..row.parts_done.len() {
                if let Ok(k) = object_key(&part_key(&row.file_id, i)) {
                    let _ = state.objects.delete(&k).await;
                }
            }
            let uploads = infra::store::Table::<UploadRow>::new(
                state.store.clone(),
                &infra::store::tables::UPLOADS,
            );
            let _ = uploads.delete(&Key::of(&row.file_id), &Key::empty()).await;
            let _ = state.upload_sweeper.closed(row).await;
            Err(e)
        }
    }
}

/// What a model-file confirmation answers besides `status`.
pub fn answer(file: &ModelFileRow) -> serde_json::Value {
    json!({
        "status": 0,
        "file_id": file.file_id,
        "url": null,
        "size": file.size,
        "sha256": file.sha256,
        "autov2": file.autov2,
        "autov3": file.autov3,
        "detected_type": file.detected_type,
        "detected_family": file.detected_family,
        "rank": file.rank,
        "alpha": file.alpha,
        "tensor_count": file.tensor_count,
        "trained_words": file.trained_words,
    })
}
