//! Video tasks (spec 2, DESIGN.md Contracts "Video"): a video create call's
//! payload through `protocol::video::prepare_video` (every rule of spec 2
//! §4-§6 and §9), its images resolved to this server's uploads, then the
//! same path as images: a credit hold, the task row, the queue, workers,
//! progress frames and cancel. The reference engine renders the MP4s
//! (`engines::reference::video`); the task answers them as `video_uris`
//! with their posters as `img_uris`.

use std::collections::HashMap;

use protocol::task::codes::Category;
use protocol::task::rules::{resolve_seed, resolve_speed, Prepared, Role};
use protocol::task::{Action, InputRole, JobInput, JobSpec};
use protocol::video::codes::VideoAction;
use protocol::video::cost::VideoEstimate;
use protocol::video::editor::{self, export_cost, EditJob};
use protocol::video::prepare::{prepare_video, prepare_video_estimate, PreparedVideo, VideoCaller};
use protocol::video::request::VideoCreateRequest;
use protocol::ErrorCode;

use super::{object_key_of_url, Requester, TaskService};
use crate::error::ApiError;

impl TaskService {
    /// Who asks, as the video rules see it (visitors make no video).
    fn video_caller(who: &Requester) -> Result<VideoCaller, ApiError> {
        let Requester::Account(a) = who else {
            return Err(ErrorCode::NeedLogin.into());
        };
        let pay = a.payment_now();
        Ok(VideoCaller {
            role: if a.is_vip() { Role::Paid } else { Role::Free },
            product_level: pay.product_level,
            infinite_queue: pay.infinite_queue,
            discount_off_rate: 0,
        })
    }

    /// `task/v2/video/estimate`: the cost fields of spec 2 §7.
    pub async fn video_estimate(
        &self,
        who: &Requester,
        req: &VideoCreateRequest,
        action: VideoAction,
    ) -> Result<VideoEstimate, ApiError> {
        let caller = Self::video_caller(who)?;
        Ok(prepare_video_estimate(req, action, &caller)?.estimate)
    }

    /// Creates a video task; answers its id.
    pub async fn create_video(
        &self,
        who: &Requester,
        req: &VideoCreateRequest,
        vaction: VideoAction,
    ) -> Result<String, ApiError> {
        let caller = Self::video_caller(who)?;
        let pv = prepare_video(req, vaction, &caller)?;
        let action = Action::of_video(vaction).ok_or(ErrorCode::InvalidParams)?;
        let p = self.prepared_video(who, pv, action, &caller).await?;
        let gen_mode = p.job.video.as_ref().map(|v| i64::from(v.gen_mode));
        self.check_queue(who, gen_mode).await?;
        let request = serde_json::to_value(req).unwrap_or_default();
        self.submit(who, p, action, request, None).await
    }

    /// Queues the video editor's export of `edit` (checked by
    /// `video::editor::check_timeline`): `clips` are the object keys of its
    /// clips' videos in order, `music` the music's; charged like any video
    /// task (`editor::export_cost`). Answers the task id.
    pub async fn create_edit(
        &self,
        who: &Requester,
        edit: EditJob,
        clips: Vec<String>,
        music: Option<String>,
        request: serde_json::Value,
    ) -> Result<String, ApiError> {
        let caller = Self::video_caller(who)?;
        let cost = export_cost(&edit);
        let v = editor::video_job(edit);
        let mut inputs = Vec::new();
        let mut urls = Vec::new();
        for key in clips {
            urls.push((InputRole::VideoSource, super::row::file_url(&key)));
            inputs.push(JobInput {
                role: InputRole::VideoSource,
                key,
            });
        }
        if let Some(key) = music {
            urls.push((InputRole::Music, super::row::file_url(&key)));
            inputs.push(JobInput {
                role: InputRole::Music,
                key,
            });
        }
        let job = JobSpec {
            task_id: String::new(),
            attempt: 0,
            action: Action::VideoEdit,
            family: "edit".into(),
            model: String::new(),
            loras: Vec::new(),
            prompt: String::new(),
            negative_prompt: String::new(),
            width: v.width,
            height: v.height,
            n_iter: 1,
            steps: 0,
            cfg_scale: 0.0,
            seed: 0,
            sampler: String::new(),
            denoising_strength: 0.0,
            inputs,
            upscale_ratio: 0.0,
            left_margin: 0,
            up_margin: 0,
            control: None,
            frames: v.frames,
            face_strength: 0.0,
            video: Some(v.clone()),
            audio: None,
            model_file: None,
            embeddings: Vec::new(),
            train: None,
        };
        let p = Prepared {
            category: Category::Normal,
            speed: resolve_speed(
                &protocol::task::rules::Caller {
                    role: caller.role,
                    stored_speed: None,
                },
                None,
            ),
            input_urls: urls,
            cost,
            estimate_secs: protocol::video::video_estimate_secs(&v),
            uses: Vec::new(),
            prompt: String::new(),
            job,
        };
        self.check_queue(who, Some(0)).await?;
        self.submit(who, p, Action::VideoEdit, request, None).await
    }

    /// The video a tool works on: the caller's earlier video task (its
    /// first video), or an uploaded video (`video_url`); another account's
    /// task answers like a missing one.
    async fn source_video(
        &self,
        who: &Requester,
        job: &protocol::video::prepare::VideoJob,
    ) -> Result<String, ApiError> {
        let missing = || ApiError::with_msg(ErrorCode::InvalidParams, "no such source video");
        let key = match (&job.parent_task_id, &job.source_video_url) {
            (Some(parent), _) => {
                let row = self.owned(who, parent).await?;
                row.outputs
                    .iter()
                    .find(|o| o.mime.starts_with("video/"))
                    .map(|o| o.key.clone())
                    .ok_or_else(missing)?
            }
            (None, Some(url)) => object_key_of_url(url).ok_or_else(missing)?,
            (None, None) => return Err(missing()),
        };
        let meta = self
            .objects
            .head(&crate::error::object_key(&key)?)
            .await
            .map_err(ApiError::internal)?
            .ok_or_else(missing)?;
        if !meta.content_type.starts_with("video/") {
            return Err(ApiError::with_msg(
                ErrorCode::UploadVideoError,
                "the source is not a video",
            ));
        }
        Ok(key)
    }

    /// The job of a prepared video: its images must be readable uploads of
    /// this server (at most 4096 px a side, like image inputs).
    async fn prepared_video(
        &self,
        who: &Requester,
        pv: PreparedVideo,
        action: Action,
        caller: &VideoCaller,
    ) -> Result<Prepared, ApiError> {
        let mut sizes = HashMap::new();
        let mut inputs = Vec::new();
        let mut urls = Vec::new();
        for img in &pv.job.images {
            let key = object_key_of_url(&img.url).ok_or_else(|| {
                ApiError::with_msg(
                    ErrorCode::UploadError,
                    "input images must be uploaded to this server first",
                )
            })?;
            match self.stored_size(&key, &mut sizes).await? {
                None => {
                    return Err(ApiError::with_msg(
                        ErrorCode::PleaseSelectImage,
                        format!("no uploaded image at {}", img.url),
                    ))
                }
                Some(Some((w, h))) if w <= 4096 && h <= 4096 => {}
                Some(Some(_)) => return Err(ErrorCode::ImageSizeExceedsError.into()),
                Some(None) => {
                    return Err(ApiError::with_msg(
                        ErrorCode::UploadError,
                        "an input is not a readable image",
                    ))
                }
            }
            inputs.push(JobInput {
                role: InputRole::VideoImage,
                key,
            });
            urls.push((InputRole::VideoImage, img.url.clone()));
        }
        if action.is_video_tool() {
            let key = self.source_video(who, &pv.job).await?;
            urls.push((InputRole::VideoSource, super::row::file_url(&key)));
            inputs.push(JobInput {
                role: InputRole::VideoSource,
                key,
            });
        }
        let v = pv.job;
        let seed = resolve_seed(v.seed, rand::random_range(1..=2_147_483_643u64))?;
        let rule_caller = protocol::task::rules::Caller {
            role: caller.role,
            stored_speed: None,
        };
        let job = JobSpec {
            task_id: String::new(),
            attempt: 0,
            action,
            family: v
                .family
                .map_or_else(|| "effect".to_owned(), |f| format!("{f:?}").to_lowercase()),
            model: v.model_no.clone(),
            loras: Vec::new(),
            prompt: v.prompt.clone(),
            negative_prompt: v.negative_prompt.clone().unwrap_or_default(),
            width: v.width,
            height: v.height,
            n_iter: v.n_iter.max(1),
            steps: 0,
            cfg_scale: 0.0,
            seed,
            sampler: v.sampler.clone().unwrap_or_default(),
            denoising_strength: 0.0,
            inputs,
            upscale_ratio: 0.0,
            left_margin: 0,
            up_margin: 0,
            control: None,
            frames: v.frames,
            face_strength: 0.0,
            video: Some(v.clone()),
            audio: None,
            model_file: None,
            embeddings: Vec::new(),
            train: None,
        };
        Ok(Prepared {
            category: Category::Normal,
            speed: resolve_speed(&rule_caller, None),
            input_urls: urls,
            cost: pv.cost,
            estimate_secs: pv.estimate_secs,
            uses: Vec::new(),
            prompt: v.prompt,
            job,
        })
    }
}
