//! The life of a training's model rows, tied to its task (issue 19): the
//! task carries the intent (`TrainingIntent`, in its request under
//! [`INTENT_FIELD`]: the model it creates or extends, the pending version
//! and the `TrainingRow`), written in the same store write that creates the
//! task. The rows are written right after ([`TrainingService::write_rows`],
//! each insert-if-absent, the training row last as the marker that they are
//! all there), and again when the task ends if a crash came in between.
//!
//! When the task machine ends the task (`TaskCore::finish`, repeated by the
//! reconciler after a crash), [`TrainingService::task_ended`] applies it:
//! success copies the file under `m/`, reads it with `modelfile` (header,
//! kind, family, hashes) and makes the version Ready with the trigger word;
//! failure or cancel makes it Failed with the reason. The version moves
//! only from Pending, and the training row's `applied` flag is set after,
//! so however often it runs the version changes once. Reads
//! ([`TrainingService::refresh`]) repeat the same apply harmlessly.

use infra::objects::ObjectKey;
use infra::store::Key;
use protocol::models::{ModelType, PublishStatus, VersionSource, VersionStatus};
use protocol::task::{Action, TaskStatus};
use serde::{Deserialize, Serialize};

use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::models::{new_id, ModelFileRow, ModelRow, VersionRow};
use crate::tasks::row::TaskRow;
use crate::tasks::{Requester, TaskService};

use super::task::{TrainingRow, TrainingService};
use super::DatasetRow;

/// Where a training task's request keeps its [`TrainingIntent`].
pub const INTENT_FIELD: &str = "training";

/// What a training writes besides its task, decided before the task is
/// created and kept in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingIntent {
    /// The model the training creates; `None` when it adds a version to
    /// the existing model `version.model_id`.
    pub new_model: Option<ModelRow>,
    /// The version, Pending (its `train_task_id` is set when written).
    pub version: VersionRow,
    /// The training (its `task_id` is set when written).
    pub training: TrainingRow,
}

impl TrainingIntent {
    /// A training into `model` (an own LoRA), or into a new draft LoRA
    /// named `name` of `family`/`variant` with the dataset's tags.
    pub fn new(
        owner: &AccountRow,
        model: Option<&ModelRow>,
        name: &str,
        family: &str,
        variant: &str,
        dataset: &DatasetRow,
        trigger: &str,
    ) -> TrainingIntent {
        let now = now_millis();
        let ver_no = new_id("mv");
        let model_id = model.map_or_else(|| new_id("m"), |m| m.id.clone());
        let version = VersionRow {
            ver_no: ver_no.clone(),
            model_id: model_id.clone(),
            owner: owner.id.clone(),
            name: format!("trained {}", day_name(now)),
            description: format!(
                "Trained on dataset \"{}\" ({} pictures).",
                dataset.name,
                dataset.images.len()
            ),
            trained_words: vec![trigger.to_string()],
            status: VersionStatus::Pending,
            status_msg: String::new(),
            publish_status: PublishStatus::Draft,
            source: VersionSource::Train,
            file: None,
            images: Vec::new(),
            weight: protocol::models::rules::DEFAULT_WEIGHT,
            train_task_id: None,
            create_at: now,
        };
        let new_model = model.is_none().then(|| ModelRow {
            id: model_id.clone(),
            owner: owner.id.clone(),
            owner_name: owner.name.clone(),
            name: name.to_string(),
            model_type: ModelType::Lora,
            family: family.to_string(),
            variant: variant.to_string(),
            description: String::new(),
            tags: dataset.tags.clone(),
            publish_status: PublishStatus::Draft,
            nsfw: false,
            allow_download: false,
            agency_fee: 0,
            versions: vec![ver_no.clone()],
            create_at: now,
            update_at: now,
            published_at: None,
        });
        TrainingIntent {
            new_model,
            version,
            training: TrainingRow {
                task_id: String::new(),
                owner: owner.id.clone(),
                dataset_id: dataset.id.clone(),
                model_id,
                ver_no,
                name: model.map_or(name, |m| m.name.as_str()).to_string(),
                trigger_word: trigger.to_string(),
                applied: false,
                create_at: now,
            },
        }
    }

    /// The intent a training task carries, if it is one.
    pub fn of_task(row: &TaskRow) -> Option<TrainingIntent> {
        if row.action != Action::LoraTrain {
            return None;
        }
        serde_json::from_value(row.request.get(INTENT_FIELD)?.clone()).ok()
    }
}

/// Queues a training task carrying `intent`, then writes its rows. A
/// failure after the task exists (the rows' write) is logged, not answered:
/// the task writes them itself when it ends. Answers the task id.
pub async fn start(
    tasks: &TaskService,
    svc: &TrainingService,
    who: &Requester,
    intent: &TrainingIntent,
    spec: protocol::models::train::TrainSpec,
    images: Vec<String>,
    mut request: serde_json::Value,
) -> Result<String, ApiError> {
    let value = serde_json::to_value(intent).map_err(|e| ApiError::internal(e.to_string()))?;
    match request.as_object_mut() {
        Some(o) => {
            o.insert(INTENT_FIELD.into(), value);
        }
        None => request = serde_json::json!({ INTENT_FIELD: value }),
    }
    let task_id = tasks.create_training(who, spec, images, request).await?;
    if let Err(e) = svc.write_rows(&task_id, intent).await {
        tracing::warn!(task = %task_id, error = ?e, "writing a training's rows failed; its task writes them when it ends");
    }
    Ok(task_id)
}

/// `YYYY-MM-DD` of a time in ms (a trained version's default name).
pub fn day_name(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

impl TrainingService {
    /// Writes an intent's rows for task `task_id` (each only if absent; the
    /// training row last, so once it exists nothing is written again: a
    /// model its owner deleted meanwhile is not brought back). Answers the
    /// training row as stored.
    pub async fn write_rows(
        &self,
        task_id: &str,
        intent: &TrainingIntent,
    ) -> Result<TrainingRow, ApiError> {
        let tk = Key::of(task_id);
        if let Some(t) = self.rows.get(&tk, &Key::empty()).await? {
            return Ok(t);
        }
        let v = VersionRow {
            train_task_id: Some(task_id.to_string()),
            ..intent.version.clone()
        };
        let _ = self
            .models
            .versions
            .insert_if_absent(&Key::of(&v.ver_no), &Key::empty(), &v)
            .await?;
        match &intent.new_model {
            Some(m) => {
                let _ = self
                    .models
                    .models
                    .insert_if_absent(&Key::of(&m.id), &Key::empty(), m)
                    .await?;
                self.models
                    .by_owner
                    .put(
                        &Key::of(&m.owner),
                        &Key::empty().i64(m.create_at).str(&m.id),
                        &(),
                    )
                    .await?;
            }
            None => {
                let ver = v.ver_no.clone();
                let now = now_millis();
                // A model deleted meanwhile stays deleted (None here).
                let _ = self
                    .models
                    .models
                    .update(&Key::of(&v.model_id), &Key::empty(), None, move |r| {
                        if !r.versions.contains(&ver) {
                            r.versions.push(ver.clone());
                            r.update_at = now;
                        }
                    })
                    .await?;
            }
        }
        let t = TrainingRow {
            task_id: task_id.to_string(),
            ..intent.training.clone()
        };
        let stored = match self.rows.insert_if_absent(&tk, &Key::empty(), &t).await? {
            Ok(()) => t,
            Err(existing) => existing,
        };
        self.by_owner
            .put(
                &Key::of(&stored.owner),
                &Key::empty().i64(stored.create_at).str(&stored.task_id),
                &(),
            )
            .await?;
        Ok(stored)
    }

    /// The task machine's hook: applies an ended training task (see the
    /// module doc); anything else is left alone. Idempotent.
    pub async fn task_ended(&self, task: &TaskRow) -> Result<(), ApiError> {
        if task.action != Action::LoraTrain || !task.status.is_final() {
            return Ok(());
        }
        let row = match TrainingIntent::of_task(task) {
            Some(intent) => self.write_rows(&task.id, &intent).await?,
            // A task from before intents: its rows were written first.
            None => match self.rows.get(&Key::of(&task.id), &Key::empty()).await? {
                Some(r) => r,
                None => return Ok(()),
            },
        };
        self.apply(row, task).await?;
        Ok(())
    }

    /// Applies a finished task to its version (a harmless repeat of the
    /// task machine's apply); answers the training and its task as they
    /// are now.
    pub async fn refresh(
        &self,
        row: TrainingRow,
    ) -> Result<(TrainingRow, Option<TaskRow>), ApiError> {
        let task = self.task(&row.task_id).await?;
        match task.as_ref().filter(|t| t.status.is_final()) {
            Some(t) if !row.applied => Ok((self.apply(row, t).await?, task)),
            _ => Ok((row, task)),
        }
    }

    /// Moves the version of `row` from Pending to Ready (with the task's
    /// file) or Failed (with the reason), then marks the training applied.
    async fn apply(&self, row: TrainingRow, t: &TaskRow) -> Result<TrainingRow, ApiError> {
        if row.applied {
            return Ok(row);
        }
        let pending = self
            .models
            .version(&row.ver_no)
            .await?
            .is_some_and(|v| v.status == VersionStatus::Pending);
        if pending {
            let outcome = if t.status == TaskStatus::Success {
                self.store_file(&row, t).await
            } else {
                Err(t
                    .reason
                    .clone()
                    .unwrap_or_else(|| "the training was cancelled or failed".into()))
            };
            let trigger = row.trigger_word.clone();
            let updated = self
                .models
                .versions
                .update(&Key::of(&row.ver_no), &Key::empty(), None, move |v| {
                    if v.status != VersionStatus::Pending {
                        return;
                    }
                    match &outcome {
                        Ok(file) => {
                            v.status = VersionStatus::Ready;
                            v.status_msg = String::new();
                            v.file = Some(file.clone());
                            if !v.trained_words.contains(&trigger) {
                                v.trained_words.insert(0, trigger.clone());
                            }
                        }
                        Err(why) => {
                            v.status = VersionStatus::Failed;
                            v.status_msg = why.clone();
                        }
                    }
                })
                .await?;
            if let Some(f) = updated.as_ref().and_then(|v| v.file.as_ref()) {
                self.models
                    .by_hash
                    .put(&Key::of(&f.sha256), &Key::of(&row.ver_no), &())
                    .await?;
            }
        }
        let applied = self
            .rows
            .update(&Key::of(&row.task_id), &Key::empty(), None, |r| {
                r.applied = true;
            })
            .await?
            .unwrap_or(row);
        Ok(applied)
    }

    /// Copies the task's output under `m/` and reads what it is. An error
    /// is the version's failure reason.
    async fn store_file(&self, row: &TrainingRow, t: &TaskRow) -> Result<ModelFileRow, String> {
        let out = t.outputs.first().ok_or("the training produced no file")?;
        let src = ObjectKey::parse(&out.key).map_err(|e| e.to_string())?;
        let bytes = self
            .objects
            .get(&src)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the trained file is gone")?
            .bytes;
        let header = modelfile::read_header(
            &mut std::io::Cursor::new(&bytes),
            bytes.len() as u64,
            &modelfile::Limits::default(),
        )
        .map_err(|e| format!("the trained file is not a valid safetensors file: {e}"))?;
        let facts = modelfile::inspect(&header);
        let mut hasher = modelfile::FileHasher::new();
        hasher.update(&bytes);
        let hashes = hasher.finish();
        let stem: String = row
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(60)
            .collect();
        let name = format!("{stem}.safetensors");
        let key = format!("m/{}/{}", row.ver_no, name);
        let dst = ObjectKey::parse(&key).map_err(|e| e.to_string())?;
        let size = bytes.len() as u64;
        self.objects
            .put(&dst, bytes, "application/octet-stream")
            .await
            .map_err(|e| e.to_string())?;
        let detected_type = match facts.kind {
            modelfile::ModelKind::Lora => Some(protocol::models::ModelType::Lora),
            modelfile::ModelKind::Checkpoint => Some(protocol::models::ModelType::Checkpoint),
            modelfile::ModelKind::Embedding => Some(protocol::models::ModelType::Embedding),
            modelfile::ModelKind::Unknown => None,
        };
        let mut trained_words = facts.trained_words.clone();
        if !trained_words.contains(&row.trigger_word) {
            trained_words.insert(0, row.trigger_word.clone());
        }
        let metadata = facts
            .metadata
            .iter()
            .filter(|(k, _)| {
                k.starts_with("ss_") || k.starts_with("easel_") || k.starts_with("modelspec.")
            })
            .map(|(k, v)| (k.clone(), v.chars().take(500).collect()))
            .collect();
        Ok(ModelFileRow {
            file_id: format!("train-{}", row.task_id),
            owner: row.owner.clone(),
            key,
            name,
            size,
            sha256: hashes.sha256.clone(),
            autov2: hashes.autov2.clone(),
            autov3: hashes.autov3.clone().unwrap_or_default(),
            detected_type,
            detected_family: facts.family.map(str::to_string),
            rank: facts.rank.and_then(|r| u32::try_from(r).ok()),
            alpha: facts.alpha.map(|a| a as f32),
            tensor_count: u32::try_from(facts.tensor_count).unwrap_or(u32::MAX),
            trained_words,
            metadata,
            create_at: now_millis(),
        })
    }
}
