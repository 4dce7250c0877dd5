//! Music on ComfyUI with ACE-Step 1.0 (ComfyUI's native nodes, as in its
//! own ACE-Step example): the model file and sampler settings
//! ([`AceModels`]), the workflow template `engines/workflows/ace_step_music.json`
//! (`TextEncodeAceStepAudio` with the prompt as tags and the lyrics,
//! `EmptyAceStepLatentAudio` of the job's length, `KSampler`,
//! `VAEDecodeAudio`, `SaveAudio`), and the run: the saved FLAC fetched by
//! `/view` and encoded like the audio engine's music (AAC in M4A, exactly
//! the asked length). ACE-Step sings the lyrics itself; an instrumental
//! gets ACE-Step's `[inst]` marker.

use std::sync::Arc;

use protocol::task::{Action, JobSpec};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::workflow::{fill, float, prefix};
use super::ComfyUi;
use crate::reference::video::ffmpeg::{run, tempdir};
use crate::remote_video::Span;
use crate::{Cancel, EngineError, Produced, Progress};

/// Longest music one prompt makes, seconds (ACE-Step's own limit is 240).
pub const MAX_SECONDS: f32 = 240.0;

/// The ACE-Step checkpoint a ComfyUI server loads (in its
/// `models/checkpoints`) and the sampler settings of ComfyUI's example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AceModels {
    pub checkpoint: String,
    pub steps: u32,
    pub cfg: f32,
    /// `ModelSamplingSD3` shift.
    pub shift: f32,
    /// How strongly the lyrics steer the song.
    pub lyrics_strength: f32,
}

impl Default for AceModels {
    fn default() -> AceModels {
        AceModels {
            checkpoint: "ace_step_v1_3.5b.safetensors".into(),
            steps: 50,
            cfg: 5.0,
            shift: 5.0,
            lyrics_strength: 0.99,
        }
    }
}

/// The audio actions the ACE-Step template covers.
pub(crate) fn supports(action: Action) -> bool {
    action == Action::TextToMusic
}

/// The music's length: the job's, within 1..=240 s (30 s when unset).
pub(crate) fn seconds(job: &JobSpec) -> f32 {
    let d = job.audio.as_ref().map_or(0.0, |a| a.duration);
    if d > 0.0 {
        d.clamp(1.0, MAX_SECONDS)
    } else {
        30.0
    }
}

/// Builds the workflow for a music job.
pub(crate) fn build(job: &JobSpec, models: &AceModels, seed: u64) -> Result<Value, EngineError> {
    let name = "ace_step_music";
    let mut workflow: Value =
        serde_json::from_str(include_str!("../../workflows/ace_step_music.json"))
            .map_err(|e| EngineError::Failed(format!("workflow template {name}: {e}")))?;
    let audio = job.audio.clone().unwrap_or_default();
    let tags = if audio.prompt.trim().is_empty() {
        job.prompt.clone()
    } else {
        audio.prompt.clone()
    };
    let lyrics = if audio.vocals && !audio.lyrics.trim().is_empty() {
        audio.lyrics.clone()
    } else {
        "[inst]".to_owned()
    };
    let mut params = Map::new();
    params.insert("checkpoint".into(), json!(models.checkpoint));
    params.insert("shift".into(), float(models.shift));
    params.insert("tags".into(), json!(tags));
    params.insert("lyrics".into(), json!(lyrics));
    params.insert("lyrics_strength".into(), float(models.lyrics_strength));
    params.insert("seconds".into(), float(seconds(job)));
    params.insert("seed".into(), json!(seed));
    params.insert("steps".into(), json!(models.steps.max(1)));
    params.insert("cfg".into(), float(models.cfg));
    params.insert("prefix".into(), json!(prefix(&job.task_id)));
    fill(&mut workflow, &params).map_err(|p| {
        EngineError::Failed(format!(
            "workflow template {name} has placeholder ${p} that this job cannot fill"
        ))
    })?;
    Ok(workflow)
}

/// Encodes a downloaded audio file (FLAC, or whatever the server saved) as
/// AAC in an M4A of exactly `secs` seconds (padded with silence if short).
fn to_m4a(bytes: Vec<u8>, secs: f32, cancel: &Cancel) -> Result<Vec<u8>, EngineError> {
    let dir = tempdir()?;
    std::fs::write(dir.path().join("in.audio"), &bytes)
        .map_err(|e| EngineError::Failed(format!("cannot write a temporary file: {e}")))?;
    let args: Vec<String> = [
        "-nostdin",
        "-v",
        "error",
        "-y",
        "-i",
        "in.audio",
        "-map",
        "0:a:0",
        "-af",
        "apad",
        "-t",
        &format!("{secs:.3}"),
        "-ar",
        "44100",
        "-c:a",
        "aac",
        "-b:a",
        "160k",
        "-movflags",
        "+faststart",
        "out.m4a",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run(&args, dir.path(), &|| cancel.is_cancelled()).map_err(|e| match e {
        EngineError::Failed(m) => {
            EngineError::Failed(format!("ComfyUI's audio is not readable audio: {m}"))
        }
        other => other,
    })?;
    std::fs::read(dir.path().join("out.m4a"))
        .map_err(|e| EngineError::Failed(format!("cannot read the encoded audio: {e}")))
}

impl ComfyUi {
    /// Runs a music job: one prompt, the saved audio downloaded and encoded.
    pub(super) async fn execute_music(
        &self,
        job: &JobSpec,
        progress: &Arc<dyn Progress>,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<Vec<Produced>, EngineError> {
        let models = self.ace.as_ref().ok_or_else(|| {
            EngineError::BadInput("this comfyui engine has no ACE-Step model configured".into())
        })?;
        let workflow = build(job, models, job.seed)?;
        let sampling = Span {
            inner: progress.clone(),
            from: 0,
            to: 90,
        };
        let saved = self
            .run_prompt(&workflow, &job.task_id, &sampling, cancel, deadline)
            .await?;
        let file = saved
            .into_iter()
            .find(|s| s.audio)
            .ok_or_else(|| EngineError::Failed("ComfyUI saved no audio for the prompt".into()))?;
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        let bytes = self.view(&file.file).await?;
        let secs = seconds(job);
        let c = cancel.clone();
        let m4a = tokio::task::spawn_blocking(move || to_m4a(bytes, secs, &c))
            .await
            .map_err(|e| EngineError::Failed(format!("encoding task: {e}")))??;
        progress.report(99);
        Ok(vec![Produced {
            bytes: m4a,
            mime: "audio/aac".into(),
            ext: "m4a".into(),
            width: 0,
            height: 0,
            seed: job.seed,
            files: Vec::new(),
        }])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn job(duration: f32, vocals: bool, lyrics: &str) -> JobSpec {
        let mut j: JobSpec = serde_json::from_value(json!({
            "task_id": "t/1", "attempt": 1, "action": 52, "family": "audio", "model": "",
            "prompt": "calm piano", "negative_prompt": "", "width": 0, "height": 0, "n_iter": 1,
            "steps": 0, "cfg_scale": 0.0, "seed": 5, "sampler": "", "denoising_strength": 0.0
        }))
        .unwrap();
        j.audio = Some(protocol::audio::AudioJob {
            prompt: "calm piano, lofi".into(),
            lyrics: lyrics.into(),
            duration,
            vocals,
            ..Default::default()
        });
        j
    }

    #[test]
    fn the_template_fills_with_tags_lyrics_and_length() {
        let m = AceModels::default();
        let w = build(&job(42.0, true, "[verse]\nla la"), &m, 9).unwrap();
        let text = w.to_string();
        assert!(!text.contains("\"$"), "{text}");
        assert_eq!(w["3"]["inputs"]["tags"], "calm piano, lofi");
        assert_eq!(w["3"]["inputs"]["lyrics"], "[verse]\nla la");
        assert_eq!(w["5"]["inputs"]["seconds"], 42.0);
        assert_eq!(w["6"]["inputs"]["seed"], 9);
        assert_eq!(w["1"]["inputs"]["ckpt_name"], m.checkpoint);
        assert_eq!(w["8"]["inputs"]["filename_prefix"], "easel_t1");
        // An instrumental, or vocals without lyrics, is marked `[inst]`.
        let w = build(&job(0.0, false, "words"), &m, 9).unwrap();
        assert_eq!(w["3"]["inputs"]["lyrics"], "[inst]");
        assert_eq!(w["5"]["inputs"]["seconds"], 30.0);
        assert_eq!(seconds(&job(900.0, false, "")), MAX_SECONDS);
        assert!(supports(Action::TextToMusic));
        assert!(!supports(Action::TextToAudioEffect));
    }
}
