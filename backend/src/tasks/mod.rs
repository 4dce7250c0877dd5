//! Generation tasks: creating them (rules, credits, store, queue), the
//! TaskActor that owns each live task's state machine, the reconciler, and
//! the reads (progress, list, detail) and owner operations (cancel, delete,
//! save, speed-up).

pub mod actor;
mod audio;
pub mod core;
mod history;
pub mod machine;
mod ops;
mod queue;
pub mod row;
mod video;

use std::collections::HashMap;

use infra::objects::DynObjects;
use infra::store::Key;
use protocol::task::rules::{self, Caller as RuleCaller, Prepared, Role};
use protocol::task::view::EstimateAnswer;
use protocol::task::{Action, CreateTaskRequest, JobInput, TaskStatus};
use protocol::ErrorCode;

use self::actor::TaskRegistry;
use self::row::{HoldState, Owner, TaskRow};
use crate::accounts::{now_millis, AccountRow};
use crate::error::{object_key, ApiError};

/// Who is asking.
#[derive(Debug, Clone)]
pub enum Requester {
    Account(Box<AccountRow>),
    Visitor { device: String },
}

impl Requester {
    pub fn owner(&self) -> Owner {
        match self {
            Requester::Account(a) => Owner::Account(a.id.clone()),
            Requester::Visitor { device } => Owner::Visitor(device.clone()),
        }
    }

    fn rule_caller(&self) -> RuleCaller {
        match self {
            Requester::Account(a) => RuleCaller {
                role: if a.is_vip() { Role::Paid } else { Role::Free },
                stored_speed: None,
            },
            Requester::Visitor { .. } => RuleCaller {
                role: Role::Visitor,
                stored_speed: None,
            },
        }
    }

    pub fn is_paid(&self) -> bool {
        matches!(self, Requester::Account(a) if a.is_vip())
    }
}

/// The environment variable that sets [`creates_per_minute`].
pub const CREATES_PER_MIN_ENV: &str = "EASEL_TASK_CREATES_PER_MIN";

/// Creations one caller (an account, or a visitor's address) may make per
/// minute when [`CREATES_PER_MIN_ENV`] is unset. Benchmarks raise it.
pub const DEFAULT_CREATES_PER_MIN: u32 = 120;

/// Task creations allowed per caller and minute, from
/// `EASEL_TASK_CREATES_PER_MIN` (default [`DEFAULT_CREATES_PER_MIN`]). A value
/// that is not a positive whole number is a start-up error, never silently
/// the default.
pub fn creates_per_minute() -> anyhow::Result<u32> {
    parse_creates_per_minute(std::env::var(CREATES_PER_MIN_ENV).ok().as_deref())
}

fn parse_creates_per_minute(value: Option<&str>) -> anyhow::Result<u32> {
    let Some(raw) = value else {
        return Ok(DEFAULT_CREATES_PER_MIN);
    };
    raw.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{CREATES_PER_MIN_ENV}={raw:?}: expected a positive whole number of task creations per caller and minute (default {DEFAULT_CREATES_PER_MIN})"
            )
        })
}

/// Limits of the task service.
#[derive(Debug, Clone)]
pub struct TaskLimits {
    /// Starter images a visitor device may make per day.
    pub visitor_daily_quota: i64,
    /// Tasks in progress an account may have without the unlimited queue (0: no limit).
    pub queue_limit: u32,
}

#[derive(Clone)]
pub struct TaskService {
    pub registry: TaskRegistry,
    objects: DynObjects,
    counters: infra::store::Counters,
    limits: TaskLimits,
    /// Users' models a request may name (issue 19); catalogue only without.
    models: Option<crate::models::ModelService>,
}

/// The object key behind an input URL: `/files/<key>`, either site-relative
/// or in an http(s) URL of any host (the server may sit behind a proxy).
pub fn object_key_of_url(url: &str) -> Option<String> {
    let path = if let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    {
        let slash = rest.find('/')?;
        rest.get(slash..)?
    } else {
        url
    };
    let path = path.split(['?', '#']).next()?;
    let key = path.strip_prefix("/files/")?;
    infra::objects::ObjectKey::parse(key)
        .ok()
        .map(|k| k.as_str().to_owned())
}

fn today() -> i64 {
    now_millis() / 86_400_000
}

impl TaskService {
    pub fn new(
        registry: TaskRegistry,
        objects: DynObjects,
        counters: infra::store::Counters,
        limits: TaskLimits,
    ) -> TaskService {
        TaskService {
            registry,
            objects,
            counters,
            limits,
            models: None,
        }
    }

    /// Lets requests name users' models.
    pub fn with_models(mut self, models: crate::models::ModelService) -> TaskService {
        self.models = Some(models);
        self
    }

    fn core(&self) -> &core::TaskCore {
        self.registry.core()
    }

    /// Applies the rules; resolves input URLs to stored objects and checks
    /// their real size where a rule depends on it (never trusting the client).
    async fn prepare(
        &self,
        who: &Requester,
        req: &CreateTaskRequest,
        action: Action,
    ) -> Result<Prepared, ApiError> {
        let seed = rand::random_range(1..=2_147_483_643u64);
        // Sizes of the uploads read so far: each input is read once.
        let mut sizes: HashMap<String, Option<(u32, u32)>> = HashMap::new();
        // Upscale limits depend on the source's size: take it from the
        // uploaded image itself, never from what the client says it is.
        let mut req = std::borrow::Cow::Borrowed(req);
        if matches!(action, Action::Upscale | Action::ExtraUpscale) {
            let url = req
                .meta
                .image_url
                .clone()
                .or_else(|| req.meta.img_files.first().and_then(|f| f.url.clone()));
            if let Some(key) = url.as_deref().and_then(object_key_of_url) {
                if let Some(size) = self.stored_size(&key, &mut sizes).await? {
                    let (w, h) = size.ok_or_else(|| {
                        ApiError::with_msg(
                            ErrorCode::UploadError,
                            "the input is not a readable image",
                        )
                    })?;
                    let m = &mut req.to_mut().meta;
                    m.width = Some(i64::from(w));
                    m.height = Some(i64::from(h));
                }
            }
        }
        let mut p = self.prepare_rules(who, &req, action, seed).await?;
        let mut inputs = Vec::new();
        for (role, url) in &p.input_urls {
            let key = object_key_of_url(url).ok_or_else(|| {
                ApiError::with_msg(
                    ErrorCode::UploadError,
                    "input images must be uploaded to this server first",
                )
            })?;
            let Some(size) = self.stored_size(&key, &mut sizes).await? else {
                return Err(ApiError::with_msg(
                    missing_image_code(action),
                    format!("no uploaded image at {url}"),
                ));
            };
            // Inputs, masks included, are at most 4096 px a side (spec 1 §9).
            match size {
                Some((w, h)) if w <= 4096 && h <= 4096 => {}
                Some(_) => return Err(ErrorCode::ImageSizeExceedsError.into()),
                None => {
                    return Err(ApiError::with_msg(
                        ErrorCode::UploadError,
                        "an input is not a readable image",
                    ))
                }
            }
            inputs.push(JobInput { role: *role, key });
        }
        p.job.inputs = inputs;
        Ok(p)
    }

    /// The rules, with the users' models the request names resolved first
    /// (as `who` may see them); a LoRA or embedding that could not be
    /// resolved gets a message saying which.
    async fn prepare_rules(
        &self,
        who: &Requester,
        req: &CreateTaskRequest,
        action: Action,
        seed: u64,
    ) -> Result<Prepared, ApiError> {
        let caller = who.rule_caller();
        let Some(models) = &self.models else {
            return Ok(rules::prepare(req, action, &caller, seed)?);
        };
        let payer = match who {
            Requester::Account(a) => Some(a.id.as_str()),
            Requester::Visitor { .. } => None,
        };
        let users = crate::models::fees::resolve(models, req, payer).await?;
        rules::prepare_with(req, action, &caller, seed, &users).map_err(|code| {
            match (code, crate::models::fees::unresolved_message(req, &users)) {
                (ErrorCode::InvalidParams, Some(msg)) => ApiError::with_msg(code, msg),
                _ => code.into(),
            }
        })
    }

    /// The size of a stored upload: `None` when there is no such object,
    /// `Some(None)` when it is not a readable image. Remembered in `seen`.
    async fn stored_size(
        &self,
        key: &str,
        seen: &mut HashMap<String, Option<(u32, u32)>>,
    ) -> Result<Option<Option<(u32, u32)>>, ApiError> {
        if let Some(size) = seen.get(key) {
            return Ok(Some(*size));
        }
        let Some(obj) = self
            .objects
            .get(&object_key(key)?)
            .await
            .map_err(ApiError::internal)?
        else {
            return Ok(None);
        };
        let size = image_size(&obj.bytes);
        seen.insert(key.to_owned(), size);
        Ok(Some(size))
    }

    /// What a task would cost.
    pub async fn estimate(
        &self,
        who: &Requester,
        req: &CreateTaskRequest,
        action: Action,
    ) -> Result<EstimateAnswer, ApiError> {
        let p = self.prepare(who, req, action).await?;
        Ok(match who {
            Requester::Account(a) => EstimateAnswer {
                calculate_coins: p.cost,
                balance: Some(self.core().ledger.balance(&a.id).await?.available()),
                free_left: None,
            },
            Requester::Visitor { device } => EstimateAnswer {
                calculate_coins: 0,
                balance: None,
                free_left: Some(
                    (self.limits.visitor_daily_quota - self.visitor_used(device).await?).max(0)
                        as u32,
                ),
            },
        })
    }

    async fn visitor_used(&self, device: &str) -> Result<i64, ApiError> {
        Ok(self
            .counters
            .get(&Key::of("visitor-tasks"), &Key::of(device).i64(today()))
            .await?)
    }

    /// Accepts a task: rules, then the credit hold (or the visitor quota),
    /// then the stored task, then the queue. Answers the task id.
    #[tracing::instrument(skip(self, who, req))]
    pub async fn create(
        &self,
        who: &Requester,
        req: &CreateTaskRequest,
        action: Action,
    ) -> Result<String, ApiError> {
        let p = self.prepare(who, req, action).await?;
        let asked = req.meta.generate.as_ref().and_then(|g| g.gen_mode);
        self.check_queue(who, asked).await?;
        let request = serde_json::to_value(req).unwrap_or_default();
        self.submit(who, p, action, request, req.channel_id.clone())
            .await
    }

    /// Stores a prepared task with its credit hold (or the visitor's
    /// quota) and queues it: the common end of every create.
    pub(crate) async fn submit(
        &self,
        who: &Requester,
        p: Prepared,
        action: Action,
        request: serde_json::Value,
        channel_id: Option<String>,
    ) -> Result<String, ApiError> {
        let channel_id = channel_id.filter(|c| !c.trim().is_empty());
        let mut channel_private = false;
        if let Some(channel) = &channel_id {
            // Only a member may generate in a channel.
            channel_private = match (who, &self.core().channels) {
                (Requester::Account(a), Some(channels)) => {
                    channels.check_task_channel(&a.id, channel).await?
                }
                _ => return Err(ErrorCode::NoPermission.into()),
            };
        }
        let id = uuid::Uuid::now_v7().simple().to_string();
        let mut job = p.job;
        job.task_id = id.clone();
        job.attempt = 1;
        // The hold's ledger entry, written together with the task below.
        let mut entry = None;
        let hold = match who {
            Requester::Account(a) => {
                self.core().open_before_hold(&id, &a.id).await?;
                entry = self
                    .core()
                    .ledger
                    .hold_unrecorded(&a.id, &id, p.cost)
                    .await?;
                HoldState::Held
            }
            Requester::Visitor { device } => {
                let ck = Key::of(device).i64(today());
                let pk = Key::of("visitor-tasks");
                // Count first, then check: concurrent requests cannot all slip under the quota.
                self.counters.add(&pk, &ck, 1).await?;
                if self.counters.get(&pk, &ck).await? > self.limits.visitor_daily_quota {
                    return Err(ErrorCode::VisitorLimit.into());
                }
                HoldState::Free
            }
        };
        // The versions it uses count as in use from now (`ver/can-del`).
        if let Some(m) = &self.core().models {
            if let Err(e) = m.task_started(&id, &p.uses).await {
                if let Owner::Account(a) = &who.owner() {
                    let _ = self.core().ledger.void(a, &id).await;
                }
                return Err(e);
            }
        }
        let now = now_millis();
        let row = TaskRow {
            id: id.clone(),
            owner: who.owner(),
            action,
            category: p.category,
            speed: p.speed,
            status: TaskStatus::Queued,
            process: 0,
            attempt: 1,
            status_desc: "queued".into(),
            reason: None,
            create_at: now,
            updated_at: now,
            finished_at: None,
            request,
            prompt: p.prompt,
            cost: if hold == HoldState::Free { 0 } else { p.cost },
            hold,
            input_urls: p.input_urls.into_iter().map(|(_, u)| u).collect(),
            outputs: Vec::new(),
            texts: Vec::new(),
            engine: None,
            estimate_secs: p.estimate_secs,
            saved: false,
            job,
            channel_id,
            channel_private,
            published: Vec::new(),
            model_uses: p.uses,
        };
        // The task's rows and the hold's ledger entry are sent together, so
        // that the store commits them at once (group commit).
        let record = async {
            if let (Some(e), Owner::Account(a)) = (&entry, &row.owner) {
                // The balance row keeps the entry until it is written, so a
                // failure here loses nothing: the next change writes it.
                if let Err(err) = self.core().ledger.record(a, e).await {
                    tracing::warn!(task = %id, error = ?err, "ledger entry left for the next change");
                }
            }
        };
        let (inserted, ()) = tokio::join!(self.core().insert(&row), record);
        if let Err(e) = inserted {
            if let Owner::Account(a) = &row.owner {
                let _ = self.core().ledger.void(a, &id).await;
            }
            if let Some(m) = &self.core().models {
                let _ = m.task_dropped(&id, &row.model_uses).await;
            }
            return Err(e);
        }
        // Published before it is queued, so it has no queue position yet.
        self.core().publish_unqueued(&row).await;
        self.core().enqueue(&row).await;
        Ok(id)
    }
}

fn missing_image_code(action: Action) -> ErrorCode {
    if action == Action::Animation {
        ErrorCode::PleaseSelectImage
    } else {
        ErrorCode::PleaseUploadImage
    }
}

/// Width and height from an image's header, without decoding it.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_per_minute_defaults_and_refuses_non_numbers() {
        assert_eq!(parse_creates_per_minute(None).unwrap(), 120);
        assert_eq!(parse_creates_per_minute(Some("100000")).unwrap(), 100_000);
        assert_eq!(parse_creates_per_minute(Some(" 7 ")).unwrap(), 7);
        for bad in ["", "lots", "-5", "0", "1.5", "99999999999"] {
            let e = parse_creates_per_minute(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("EASEL_TASK_CREATES_PER_MIN"), "{bad}: {e}");
        }
    }

    #[test]
    fn input_urls_map_to_object_keys() {
        assert_eq!(
            object_key_of_url("/files/u/abc/x.png").as_deref(),
            Some("u/abc/x.png")
        );
        assert_eq!(
            object_key_of_url("https://easel.example/files/u/abc/x.png?v=1").as_deref(),
            Some("u/abc/x.png")
        );
        assert_eq!(object_key_of_url("https://elsewhere.example/img.png"), None);
        assert_eq!(object_key_of_url("/files/../etc/passwd"), None);
        assert_eq!(object_key_of_url("data:image/png;base64,xx"), None);
    }
}
