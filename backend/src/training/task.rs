//! Training tasks: `TaskService::create_training` queues an
//! `Action::LoraTrain` task (credit hold by the documented table, the
//! dataset's pictures as `Init` inputs, a `TrainSpec` in the job) through
//! the common `submit`; `TrainingService` keeps one `TrainingRow` per task
//! (its model and version). How a training's rows are written and its
//! result applied when the task ends is `apply.rs`.

use infra::objects::DynObjects;
use infra::store::{tables, DynStore, Key, Order, ScanRange, Table};
use protocol::models::train::TrainSpec;
use protocol::task::codes::Category;
use protocol::task::rules::{resolve_speed, Caller, Prepared, Role};
use protocol::task::{Action, InputRole, JobInput, JobSpec};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::models::ModelService;
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
    pub(crate) rows: Table<TrainingRow>,
    pub(crate) by_owner: Table<()>,
    tasks: Table<TaskRow>,
    pub models: ModelService,
    pub(crate) objects: DynObjects,
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
}
