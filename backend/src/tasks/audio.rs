//! Audio tasks (spec 2 §1, §7; DESIGN.md Contracts "Audio"): a normalised
//! `AudioJob` (the audio routes apply the rules) with its inputs by role,
//! then the same path as images and video: a credit hold, the task row,
//! the queue, workers (`easel-audio`'s engine), progress frames and cancel.
//! Finished tasks answer their audio files as `audio_uris`.

use protocol::audio::job::{audio_cost, audio_estimate_secs};
use protocol::audio::AudioJob;
use protocol::task::codes::Category;
use protocol::task::rules::{resolve_seed, resolve_speed, Caller, Prepared, Role};
use protocol::task::{Action, InputRole, JobInput, JobSpec};
use protocol::ErrorCode;

use super::{Requester, TaskService};
use crate::error::ApiError;

impl TaskService {
    /// Queues an audio task; `inputs` are object keys of this server's files
    /// by role (the caller checked they are the requester's and readable).
    /// Visitors make no audio. Answers the task id.
    pub async fn create_audio(
        &self,
        who: &Requester,
        action: Action,
        job: AudioJob,
        inputs: Vec<(InputRole, String)>,
        request: serde_json::Value,
    ) -> Result<String, ApiError> {
        if !action.is_audio() {
            return Err(ErrorCode::InvalidParams.into());
        }
        let Requester::Account(a) = who else {
            return Err(ErrorCode::NeedLogin.into());
        };
        let role = if a.is_vip() { Role::Paid } else { Role::Free };
        let seed = resolve_seed(None, rand::random_range(1..=2_147_483_643u64))?;
        let urls = inputs
            .iter()
            .map(|(r, k)| (*r, super::row::file_url(k)))
            .collect();
        let inputs = inputs
            .into_iter()
            .map(|(role, key)| JobInput { role, key })
            .collect();
        let cost = audio_cost(action, &job);
        let estimate_secs = audio_estimate_secs(action, &job);
        let prompt = job.prompt.clone();
        let spec = JobSpec {
            task_id: String::new(),
            attempt: 0,
            action,
            family: "audio".into(),
            model: String::new(),
            loras: Vec::new(),
            prompt: prompt.clone(),
            negative_prompt: job.negative_prompt.clone(),
            width: 0,
            height: 0,
            n_iter: 1,
            steps: 0,
            cfg_scale: 0.0,
            seed,
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
            audio: Some(job),
            model_file: None,
            embeddings: Vec::new(),
            train: None,
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
            uses: Vec::new(),
            prompt,
            job: spec,
        };
        self.check_queue(who, Some(0)).await?;
        self.submit(who, p, action, request, None).await
    }
}
