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

/// `Debug` is written by hand so `api_key` never reaches a log.
#[derive(Clone, PartialEq, Deserialize)]
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
    /// Local generations running at once; more wait in line. Each one uses
    /// `threads` cores, so 1 suits a 2-core machine that also serves the web.
    pub max_concurrent: u32,
    /// The remote server must accept the connection within this time, so a
    /// wrong URL fails fast instead of hanging a chat.
    pub connect_timeout_ms: u64,
    /// Longest silence allowed while a remote reply streams (a long prompt
    /// read by a slow server counts too).
    pub read_timeout_ms: u64,
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("kind", &self.kind)
            .field("model_path", &self.model_path)
            .field("threads", &self.threads)
            .field("context_tokens", &self.context_tokens)
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("scripted_interval_ms", &self.scripted_interval_ms)
            .field("max_reply_tokens", &self.max_reply_tokens)
            .field("max_concurrent", &self.max_concurrent)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("read_timeout_ms", &self.read_timeout_ms)
            .finish()
    }
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
            max_concurrent: 1,
            connect_timeout_ms: 5_000,
            read_timeout_ms: 120_000,
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
        LlmKind::Local => build_local(config),
        LlmKind::Openai => {
            let url = config.url.clone().ok_or_else(|| {
                LlmError::Unavailable(
                    "the OpenAI-compatible adapter needs a URL ([llm] url or EASEL_LLM_URL)".into(),
                )
            })?;
            let model = crate::OpenAiModel::new(crate::OpenAiSettings {
                url,
                api_key: config.api_key.clone(),
                model: config.model.clone().unwrap_or_default(),
                context_tokens: config.context_tokens,
                connect_timeout: Duration::from_millis(config.connect_timeout_ms),
                read_timeout: Duration::from_millis(config.read_timeout_ms),
            })?;
            Ok(Arc::new(model))
        }
    }
}

#[cfg(feature = "local")]
fn build_local(config: &LlmConfig) -> Result<DynLanguageModel, LlmError> {
    let model = crate::LocalModel::load(&crate::LocalSettings {
        model_path: config.model_path.clone(),
        threads: config.threads,
        context_tokens: config.context_tokens,
        max_concurrent: config.max_concurrent,
    })?;
    Ok(Arc::new(model))
}

#[cfg(not(feature = "local"))]
fn build_local(_config: &LlmConfig) -> Result<DynLanguageModel, LlmError> {
    Err(LlmError::Unavailable(
        "this binary was built without the `local` feature of easel-llm, so the embedded \
         model cannot run; rebuild with it, or set EASEL_LLM=openai with EASEL_LLM_URL"
            .into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_api_key() {
        let config = LlmConfig {
            api_key: Some("sk-very-secret".into()),
            ..LlmConfig::default()
        };
        let shown = format!("{config:?}");
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert!(shown.contains("[redacted]"));
        assert!(shown.contains("max_concurrent: 1"));
    }

    #[test]
    fn new_fields_have_defaults_when_absent_from_the_file() {
        let config: LlmConfig =
            serde_json::from_str(r#"{"kind": "openai", "url": "http://h:1/v1"}"#).unwrap();
        assert_eq!(config.max_concurrent, 1);
        assert_eq!(config.threads, 1);
        assert_eq!(config.connect_timeout_ms, 5_000);
    }

    #[test]
    fn openai_needs_a_url_and_a_model() {
        let mut config = LlmConfig {
            kind: LlmKind::Openai,
            ..LlmConfig::default()
        };
        let err = build(&config).err().unwrap();
        assert!(err.to_string().contains("EASEL_LLM_URL"), "{err}");
        config.url = Some("http://127.0.0.1:9/v1".into());
        assert!(matches!(build(&config), Err(LlmError::Unavailable(_))));
        config.model = Some("qwen".into());
        let model = build(&config).unwrap();
        assert_eq!(
            model.info().label,
            "qwen (OpenAI-compatible at 127.0.0.1:9)"
        );
        assert!(model.info().neural);
    }

    #[test]
    fn local_without_its_file_says_what_to_run() {
        let config = LlmConfig {
            model_path: PathBuf::from("/nonexistent/easel/model.gguf"),
            ..LlmConfig::default()
        };
        let err = build(&config).err().unwrap();
        assert!(matches!(err, LlmError::Unavailable(_)));
        let text = err.to_string();
        if cfg!(feature = "local") {
            assert!(text.contains("./scripts/fetch-model"), "{text}");
        } else {
            assert!(text.contains("built without the `local` feature"), "{text}");
        }
    }
}
