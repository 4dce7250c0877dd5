//! Training tasks: `TaskService::create_training` queues an
//! `Action::LoraTrain` task (credit hold by the documented table, the
//! dataset's pictures as `Init` inputs, a `TrainSpec` in the job) through
//! the common `submit`; `TrainingService` keeps one `TrainingRow` per task
//! (its model and version) and applies a finished task to its version:
//! success copies the file under `m/`, reads it with `modelfile` (header,
//! kind, family, hashes) and makes the version Ready with the trigger word;
//! failure makes it Failed with the reason. The apply is idempotent and
//! runs on every read of the training (progress, lists, the log), so a
//! crash between the task's end and the apply loses nothing.

use infra::objects::{DynObjects, ObjectKey};
use infra::store::{tables, DynStore, Key, Order, ScanRange, Table};
use protocol::models::train::TrainSpec;
use protocol::models::VersionStatus;
use protocol::task::codes::Category;
use protocol::task::rules::{resolve_speed, Caller, Prepared, Role};
use protocol::task::{Action, InputRole, JobInput, JobSpec, TaskStatus};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;
use crate::models::{ModelFileRow, ModelService};
use crate::tasks::row::TaskRow;
use crate::tasks::{Requester, TaskService};

/// One training.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingRow {
    pub task_id: String,
    pub owner: String,
    pub dataset_id: String,
    pub model_id: String,
    pub ver_no: String,
    pub name: String,
    pub trigger_word: String,
    /// Set once the finished task was applied to the version.
    pub applied: bool,
    pub create_at: i64,
}

impl TaskService {
    /// Queues a training task; `images` are object keys of the owner's
    /// dataset pictures, in the order of `spec.captions`. Answers the task id.
    pub async fn create_training(
        &self,
        who: &Requester,
        spec: TrainSpec,
        images: Vec<String>,
        request: serde_json::Value,
    ) -> Result<String, ApiError> {
        let Requester::Account(a) = who else {
            return Err(ErrorCode::NeedLogin.into());
        };
        let role = if a.is_vip() { Role::Paid } else { Role::Free };
        let urls = images
            .iter()
            .map(|k| (InputRole::Init, crate::tasks::row::file_url(k)))
            .collect();
        let inputs = images
            .into_iter()
            .map(|key| JobInput {
                role: InputRole::Init,
                key,
            })
            .collect();
        let cost = spec.cost();
        let estimate_secs = spec.estimate_secs();
        let prompt = format!("{} ({})", spec.name, spec.params.trigger_word);
        let job = JobSpec {
            task_id: String::new(),
            attempt: 0,
            action: Action::LoraTrain,
            family: spec.family.clone(),
            model: spec.base_model.clone(),
            loras: Vec::new(),
            prompt: prompt.clone(),
            negative_prompt: String::new(),
            width: spec.params.resolution,
            height: spec.params.resolution,
            n_iter: 1,
            steps: spec.steps(),
            cfg_scale: 0.0,
            seed: spec.params.seed,
            sampler: String::new(),
            denoising_strength: 0.0,
            inputs,
            upscale_ratio: 0.0,
            left_margin: 0,
            up_margin: 0,
            control: None,
            frames: 0,
            face_strength: 0.0,
            video: None,
            audio: None,
            model_file: None,
            embeddings: Vec::new(),
            train: Some(spec),
        };
        let p = Prepared {
            category: Category::Normal,
            speed: resolve_speed(
                &Caller {
                    role,
                    stored_speed: None,
                },
                None,
            ),
            input_urls: urls,
            cost,
            estimate_secs,
            prompt,
            job,
            uses: Vec::new(),
        };
        self.check_queue(who, Some(0)).await?;
        self.submit(who, p, Action::LoraTrain, request, None).await
    }
}

#[derive(Clone)]
pub struct TrainingService {
    rows: Table<TrainingRow>,
    by_owner: Table<()>,
    tasks: Table<TaskRow>,
    pub models: ModelService,
    objects: DynObjects,
}

impl TrainingService {
    pub fn new(store: DynStore, objects: DynObjects) -> TrainingService {
        TrainingService {
            rows: Table::new(store.clone(), &tables::TRAININGS),
            by_owner: Table::new(store.clone(), &tables::TRAININGS_BY_OWNER),
            tasks: Table::new(store.clone(), &tables::TASKS),
            models: ModelService::new(store),
            objects,
        }
    }

    pub async fn record(&self, row: &TrainingRow) -> Result<(), ApiError> {
        self.rows
            .put(&Key::of(&row.task_id), &Key::empty(), row)
            .await?;
        self.by_owner
            .put(
                &Key::of(&row.owner),
                &Key::empty().i64(row.create_at).str(&row.task_id),
                &(),
            )
            .await?;
        Ok(())
    }

    /// An own training; anyone else's answers NotFound.
    pub async fn own(&self, owner: &str, task_id: &str) -> Result<TrainingRow, ApiError> {
        self.rows
            .get(&Key::of(task_id.trim()), &Key::empty())
            .await?
            .filter(|r| r.owner == owner)
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    pub async fn task(&self, id: &str) -> Result<Option<TaskRow>, ApiError> {
        Ok(self.tasks.get(&Key::of(id), &Key::empty()).await?)
    }

    /// An account's trainings, newest first.
    pub async fn list(&self, owner: &str, limit: usize) -> Result<Vec<TrainingRow>, ApiError> {
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
            if let Some(t) = self.rows.get(&Key::of(&id), &Key::empty()).await? {
                out.push(t);
            }
        }
        Ok(out)
    }

    /// Applies a finished task to its version (idempotent); answers the
    /// training and its task as they are now.
    pub async fn refresh(
        &self,
        row: TrainingRow,
    ) -> Result<(TrainingRow, Option<TaskRow>), ApiError> {
        let task = self.task(&row.task_id).await?;
        if row.applied {
            return Ok((row, task));
        }
        let Some(t) = task.as_ref().filter(|t| t.status.is_final()) else {
            return Ok((row, task));
        };
        let outcome = if t.status == TaskStatus::Success {
            self.store_file(&row, t).await
        } else {
            Err(t
                .reason
                .clone()
                .unwrap_or_else(|| "the training was cancelled or failed".into()))
        };
        let trigger = row.trigger_word.clone();
        let ver = row.ver_no.clone();
        self.models
            .versions
            .update(
                &Key::of(&ver),
                &Key::empty(),
                None,
                move |v| match &outcome {
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
                },
            )
            .await?;
        if let Some(v) = self.models.version(&row.ver_no).await? {
            if let Some(f) = &v.file {
                self.models
                    .by_hash
                    .put(&Key::of(&f.sha256), &Key::of(&v.ver_no), &())
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
        Ok((applied, task))
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
