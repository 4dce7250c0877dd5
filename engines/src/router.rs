//! Picks the engine for a job by action and model family, from configuration.
//! Configured engines are tried in order; the built-in reference engine comes
//! last, so every action always has an engine on a fresh machine.

use std::sync::Arc;

use protocol::task::Action;
use serde::{Deserialize, Serialize};

use crate::{comfyui, openai, openai_video, pacer, reference, Engine, Selector, TalkingEngine};

/// Which adapter, and how to reach it.
/// Read once at start-up: the ComfyUI variant's model settings (Wan,
/// ACE-Step, S2V) make it large, which costs nothing here.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EngineKind {
    /// The built-in CPU engine (non-neural).
    Reference,
    /// A ComfyUI server: HTTP `/prompt`, `/upload/image`, `/history`, `/view`
    /// and its WebSocket for progress.
    Comfyui {
        url: String,
        /// Checkpoint file name to use when a job's model is not a file
        /// ComfyUI knows (e.g. `sd_xl_base_1.0.safetensors`).
        #[serde(default)]
        checkpoint: Option<String>,
        /// Wan 2.x model files: set (`wan = {}` takes the defaults) to let
        /// this server take text- and image-to-video jobs.
        #[serde(default)]
        wan: Option<comfyui::WanModels>,
        /// The ACE-Step model: set (`ace = {}` takes the defaults) to let
        /// this server take text-to-music jobs.
        #[serde(default)]
        ace: Option<comfyui::AceModels>,
        /// Wan 2.2 S2V model files: set (`s2v = {}` takes the defaults) to
        /// let this server make lip-sync videos (through the audio engine,
        /// which speaks the text first: see [`talking_engine`]).
        #[serde(default)]
        s2v: Option<comfyui::S2vModels>,
        /// The ComfyUI server's `models/` folder as the worker sees it
        /// (shared storage): users' checkpoints, LoRAs and embeddings are
        /// placed there. Unset: jobs with users' models fail on this engine.
        #[serde(default)]
        models_dir: Option<std::path::PathBuf>,
    },
    /// An OpenAI-compatible image API (`/v1/images/generations`, `/v1/images/edits`).
    Openai {
        url: String,
        #[serde(default)]
        api_key: Option<String>,
        #[serde(default)]
        model: Option<String>,
    },
    /// An OpenAI-compatible video API (`/v1/videos`): text and image to video.
    OpenaiVideo {
        url: String,
        #[serde(default)]
        api_key: Option<String>,
        /// Defaults to `sora-2`.
        #[serde(default)]
        model: Option<String>,
        /// How often a video's status is asked (default 2000).
        #[serde(default)]
        poll_ms: Option<u64>,
    },
    /// Load testing only: progress every `step_ms` for `steps` steps and a
    /// 1×1 PNG per output, no picture work (`pacer.rs`). Never a default.
    Pacer {
        #[serde(default = "default_pacer_step_ms")]
        step_ms: u64,
        #[serde(default = "default_pacer_steps")]
        steps: u32,
    },
}

fn default_pacer_step_ms() -> u64 {
    pacer::DEFAULT_STEP_MS
}

fn default_pacer_steps() -> u32 {
    pacer::DEFAULT_STEPS
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    #[serde(flatten)]
    pub kind: EngineKind,
    /// Which jobs go to this engine (empty lists: everything it supports).
    #[serde(flatten)]
    pub select: Selector,
}

struct Route {
    select: Selector,
    engine: Arc<dyn Engine>,
}

/// The configured engines, in order, then the reference engine.
pub struct Router {
    routes: Vec<Route>,
}

impl Router {
    /// Builds every configured engine; a configuration error names the engine.
    pub fn from_config(configs: &[EngineConfig]) -> Result<Router, String> {
        let mut routes = Vec::new();
        for (i, c) in configs.iter().enumerate() {
            let engine: Arc<dyn Engine> = match &c.kind {
                EngineKind::Reference => Arc::new(reference::ReferenceEngine::new()),
                EngineKind::Comfyui {
                    url,
                    checkpoint,
                    wan,
                    ace,
                    s2v: _,
                    models_dir,
                } => {
                    let mut e = comfyui::ComfyUi::new(url, checkpoint.clone())
                        .map_err(|e| format!("engine {} (comfyui): {e}", i + 1))?;
                    if let Some(wan) = wan {
                        e = e.with_wan(wan.clone());
                    }
                    if let Some(ace) = ace {
                        e = e.with_ace(ace.clone());
                    }
                    if let Some(dir) = models_dir {
                        e = e.with_models_dir(dir.clone());
                    }
                    Arc::new(e)
                }
                EngineKind::Openai {
                    url,
                    api_key,
                    model,
                } => Arc::new(
                    openai::OpenAiImages::new(url, api_key.clone(), model.clone())
                        .map_err(|e| format!("engine {} (openai): {e}", i + 1))?,
                ),
                EngineKind::OpenaiVideo {
                    url,
                    api_key,
                    model,
                    poll_ms,
                } => Arc::new(
                    openai_video::OpenAiVideos::new(url, api_key.clone(), model.clone(), *poll_ms)
                        .map_err(|e| format!("engine {} (openai_video): {e}", i + 1))?,
                ),
                EngineKind::Pacer { step_ms, steps } => Arc::new(
                    pacer::PacerEngine::new(std::time::Duration::from_millis(*step_ms), *steps)
                        .map_err(|e| format!("engine {} (pacer): {e}", i + 1))?,
                ),
            };
            routes.push(Route {
                select: c.select.clone(),
                engine,
            });
        }
        routes.push(Route {
            select: Selector::default(),
            engine: Arc::new(reference::ReferenceEngine::new()),
        });
        Ok(Router { routes })
    }

    /// Adds an engine built outside this crate (the audio engine) after the
    /// configured ones and before the built-in reference engine.
    pub fn with_engine(mut self, engine: Arc<dyn Engine>) -> Router {
        let at = self.routes.len().saturating_sub(1);
        self.routes.insert(
            at,
            Route {
                select: Selector::default(),
                engine,
            },
        );
        self
    }

    /// The first engine whose selector matches and which supports the job.
    pub fn pick(&self, action: Action, family: &str) -> Option<Arc<dyn Engine>> {
        self.routes
            .iter()
            .find(|r| r.select.matches(action, family) && r.engine.supports(action, family))
            .map(|r| r.engine.clone())
    }
}

/// The lip-sync engine the configuration names: the first ComfyUI engine
/// with `s2v` set whose selector takes lip-sync (`actions` empty or listing
/// [`Action::AudioToLipVideo`]; `families` are not looked at, lip-sync has
/// no checkpoint family). `None`: lip-sync stays on the audio engine's
/// built-in reference. The audio engine calls it (it speaks a text first),
/// so it is not a route of the [`Router`].
pub fn talking_engine(configs: &[EngineConfig]) -> Result<Option<Arc<dyn TalkingEngine>>, String> {
    for (i, c) in configs.iter().enumerate() {
        let EngineKind::Comfyui {
            url,
            checkpoint,
            s2v: Some(s2v),
            ..
        } = &c.kind
        else {
            continue;
        };
        let takes =
            c.select.actions.is_empty() || c.select.actions.contains(&Action::AudioToLipVideo);
        if !takes {
            continue;
        }
        let e = comfyui::ComfyUi::new(url, checkpoint.clone())
            .map_err(|e| format!("engine {} (comfyui): {e}", i + 1))?
            .with_s2v(s2v.clone());
        return Ok(Some(Arc::new(e)));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_parses_from_toml_like_json() {
        let c: Vec<EngineConfig> = serde_json::from_value(serde_json::json!([
            {"kind": "comfyui", "url": "http://127.0.0.1:8188", "actions": [1, 9], "families": ["sdxl"]},
            {"kind": "openai", "url": "http://127.0.0.1:9000/v1", "model": "dall-e-3"}
        ]))
        .unwrap();
        assert_eq!(
            c[0].select.actions,
            vec![Action::TextToImage, Action::ImageToImage]
        );
        assert!(matches!(c[1].kind, EngineKind::Openai { .. }));
    }

    #[test]
    fn the_pacer_is_used_only_when_configured() {
        let c: Vec<EngineConfig> =
            serde_json::from_value(serde_json::json!([{"kind": "pacer", "step_ms": 5}])).unwrap();
        assert_eq!(
            c[0].kind,
            EngineKind::Pacer {
                step_ms: 5,
                steps: pacer::DEFAULT_STEPS
            }
        );
        let r = Router::from_config(&c).unwrap();
        let e = r.pick(Action::TextToImage, "sdxl").unwrap();
        assert_eq!(e.info().name, "pacer");
        assert!(!e.info().neural);
    }

    #[test]
    fn video_actions_go_to_the_configured_video_engines() {
        let c: Vec<EngineConfig> = serde_json::from_value(serde_json::json!([
            {"kind": "comfyui", "url": "http://127.0.0.1:8188", "families": ["wan"], "wan": {"steps": 20}},
            {"kind": "openai_video", "url": "http://127.0.0.1:9000/v1", "api_key": "k", "poll_ms": 500},
            {"kind": "comfyui", "url": "http://127.0.0.1:8189"}
        ]))
        .unwrap();
        match &c[0].kind {
            EngineKind::Comfyui { wan: Some(w), .. } => {
                assert_eq!(w.steps, 20);
                assert_eq!(w.vae, comfyui::WanModels::default().vae);
            }
            other => panic!("{other:?}"),
        }
        let r = Router::from_config(&c).unwrap();
        let pick = |a, f| r.pick(a, f).unwrap().info().name;
        assert_eq!(pick(Action::TextToVideo, "wan"), "comfyui");
        assert_eq!(pick(Action::ImageToVideo, "wan"), "comfyui");
        assert_eq!(pick(Action::TextToVideo, "kling"), "openai_video");
        assert_eq!(pick(Action::ImageToVideo, "kling"), "openai_video");
        // What neither remote engine does stays on the reference engine,
        // and a ComfyUI without Wan files takes no video.
        assert_eq!(pick(Action::MultiImageToVideo, "wan"), "reference");
        assert_eq!(pick(Action::VideoUpscale, "wan"), "reference");
        let plain = Router::from_config(&c[2..]).unwrap();
        assert_eq!(
            plain.pick(Action::TextToVideo, "wan").unwrap().info().name,
            "reference"
        );
        assert_eq!(
            plain.pick(Action::TextToImage, "sdxl").unwrap().info().name,
            "comfyui"
        );
    }

    #[test]
    fn lip_sync_goes_to_the_first_comfyui_with_s2v_that_takes_it() {
        let c: Vec<EngineConfig> = serde_json::from_value(serde_json::json!([
            {"kind": "comfyui", "url": "http://127.0.0.1:8188"},
            {"kind": "comfyui", "url": "http://127.0.0.1:8189", "actions": [1], "s2v": {}},
            {"kind": "comfyui", "url": "http://127.0.0.1:8190", "s2v": {"steps": 8}}
        ]))
        .unwrap();
        match &c[2].kind {
            EngineKind::Comfyui { s2v: Some(m), .. } => {
                assert_eq!(m.steps, 8);
                assert_eq!(m.chunk_length, 77);
            }
            other => panic!("{other:?}"),
        }
        let t = talking_engine(&c).unwrap().unwrap();
        assert!(
            t.info().label.contains("127.0.0.1:8190"),
            "{}",
            t.info().label
        );
        assert!(t.info().neural);
        assert!(talking_engine(&c[..2]).unwrap().is_none());
        // The router itself never routes lip-sync to ComfyUI.
        let r = Router::from_config(&c).unwrap();
        assert!(r.pick(Action::AudioToLipVideo, "audio").is_none());
    }

    #[test]
    fn the_reference_engine_takes_every_image_and_video_action() {
        let r = Router::from_config(&[]).unwrap();
        for a in Action::ALL {
            if a.is_audio() || a.is_training() {
                // The audio engine (`easel-audio`) and the trainer engine
                // (`easel-trainer`) are added by the server.
                assert!(r.pick(*a, "audio").is_none(), "{a:?}");
                assert!(r.pick(*a, "sdxl").is_none(), "{a:?}");
                continue;
            }
            let e = r.pick(*a, "sdxl").unwrap();
            assert_eq!(e.info().name, "reference");
            assert!(!e.info().neural);
        }
    }

    #[test]
    fn an_added_engine_comes_before_the_reference_engine() {
        let r = Router::from_config(&[]).unwrap().with_engine(Arc::new(
            pacer::PacerEngine::new(std::time::Duration::ZERO, 1).unwrap(),
        ));
        assert_eq!(
            r.pick(Action::TextToImage, "sdxl").unwrap().info().name,
            "pacer"
        );
        assert_eq!(
            r.routes.last().map(|r| r.engine.info().name),
            Some("reference".into())
        );
    }
}
