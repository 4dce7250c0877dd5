//! Which language model answers, from `easel.toml`'s `[llm]` table or the
//! `EASEL_LLM*` variables (parsed in `infra::config`), and [`build`], which
//! turns the choice into a [`DynLanguageModel`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use crate::{DynLanguageModel, LlmError, ScriptedModel};

/// The engine kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LlmKind {
    /// SmolLM2-135M-Instruct in-process through llama.cpp (the default).
    #[default]
    Local,
    /// Any OpenAI-compatible `/v1/chat/completions` server (llama.cpp server, vLLM, Ollama...).
    Openai,
    /// The deterministic scripted model: tests and the load harness only.
    Scripted,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    pub kind: LlmKind,
    /// The GGUF file of the local model.
    pub model_path: PathBuf,
    /// CPU threads for the local model (1 suits a 2-core machine, where two contend).
    pub threads: u32,
    /// Context window in tokens for the local model (prompt + reply).
    pub context_tokens: u32,
    /// Base URL of the OpenAI-compatible server, e.g. `http://127.0.0.1:8081/v1`.
    pub url: Option<String>,
    /// Bearer key for the remote server, if it needs one.
    pub api_key: Option<String>,
    /// Model name sent to the remote server.
    pub model: Option<String>,
    /// Pause between the scripted model's words.
    pub scripted_interval_ms: u64,
    /// Replies at most this long are generated, whatever a character asks for.
    pub max_reply_tokens: u32,
}

impl Default for LlmConfig {
    fn default() -> LlmConfig {
        LlmConfig {
            kind: LlmKind::Local,
            model_path: PathBuf::from("models/smollm2-135m-instruct.gguf"),
            threads: 1,
            context_tokens: 2048,
            url: None,
            api_key: None,
            model: None,
            scripted_interval_ms: 20,
            max_reply_tokens: 512,
        }
    }
}

/// Builds the configured model. A local model whose file is missing is an
/// error here, so `easel serve` can say what to run instead of failing at the
/// first chat.
pub fn build(config: &LlmConfig) -> Result<DynLanguageModel, LlmError> {
    match config.kind {
        LlmKind::Scripted => Ok(Arc::new(ScriptedModel::new(Duration::from_millis(
            config.scripted_interval_ms,
        )))),
        LlmKind::Local => Err(LlmError::Unavailable(
            "the local model is not built into this binary yet".into(),
        )),
        LlmKind::Openai => Err(LlmError::Unavailable(
            "the OpenAI-compatible adapter is not built yet".into(),
        )),
    }
}
