//! The language-model port. Everything in Easel that produces text with a
//! model (character chat, prompt polish, the generation agent, reply
//! recommendations) talks to a [`LanguageModel`] and never to a concrete
//! engine, so the embedded SmolLM2, a remote OpenAI-compatible server and the
//! scripted test model are interchangeable by configuration.
//!
//! A generation is a stream of text deltas. Cancellation is by drop: when the
//! consumer drops the [`TokenStream`], the engine notices at its next token
//! and stops (the local model frees its context, the remote adapter closes
//! the HTTP response), so a cancelled reply stops costing CPU at once.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::Stream;
use serde::{Deserialize, Serialize};

pub mod config;
#[cfg(feature = "local")]
pub mod local;
pub mod openai;
pub mod scripted;
pub mod text;

pub use config::{build, LlmConfig, LlmKind};
#[cfg(feature = "local")]
pub use local::{LocalModel, LocalSettings, LocalStats};
pub use openai::{OpenAiModel, OpenAiSettings};
pub use scripted::ScriptedModel;

/// Who said a message in a chat prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> ChatMessage {
        ChatMessage::new(Role::Assistant, content)
    }
}

/// One generation request. The messages are already cut to fit the model's
/// context (see [`ModelInfo::context_tokens`] and
/// [`LanguageModel::count_tokens`]); the engine applies its own chat template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    /// At most this many tokens are generated.
    pub max_tokens: u32,
    /// 0 is greedy (deterministic for the local and scripted models).
    pub temperature: f32,
    pub top_p: f32,
    /// Seed for sampling, so a regenerated reply can differ on purpose.
    pub seed: u64,
    /// Generation stops before any of these strings (they are not emitted).
    pub stop: Vec<String>,
    /// When set, the model continues this partial assistant reply instead of
    /// starting a new one ("continue" in the chat view); the deltas that come
    /// back are only the new text.
    pub prefill: Option<String>,
}

impl Default for ChatRequest {
    fn default() -> ChatRequest {
        ChatRequest {
            messages: Vec::new(),
            max_tokens: 256,
            temperature: 0.7,
            top_p: 0.9,
            seed: 0,
            stop: Vec::new(),
            prefill: None,
        }
    }
}

/// What the UI and the API say about the model answering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Short stable name ("smollm2-135m-instruct", "scripted", or the remote model's name).
    pub name: String,
    /// Human label shown next to replies.
    pub label: String,
    /// Whether a neural model produces the text (false only for the scripted model).
    pub neural: bool,
    /// Context window in tokens (prompt + reply).
    pub context_tokens: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The engine is not set up (the model file is missing, a URL is wrong).
    #[error("language model unavailable: {0}")]
    Unavailable(String),
    /// The request cannot be served (too long for the context, bad parameters).
    #[error("language model request rejected: {0}")]
    Rejected(String),
    /// The engine failed while generating.
    #[error("language model failed: {0}")]
    Failed(String),
}

/// Text deltas in order; ends when the reply is complete. Dropping it cancels.
pub type TokenStream = Pin<Box<dyn Stream<Item = Result<String, LlmError>> + Send>>;

/// The port.
#[async_trait::async_trait]
pub trait LanguageModel: Send + Sync + 'static {
    fn info(&self) -> ModelInfo;
    /// Tokens `text` takes in this model's vocabulary (an estimate is
    /// acceptable for remote engines: about 4 bytes a token).
    fn count_tokens(&self, text: &str) -> usize;
    /// Starts a generation. Errors that are known before the first token
    /// (unavailable, rejected) come back here; later ones in the stream.
    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, LlmError>;
}

pub type DynLanguageModel = Arc<dyn LanguageModel>;

/// Collects a whole reply (for non-streaming callers such as reply recommendations).
pub async fn complete(model: &dyn LanguageModel, request: ChatRequest) -> Result<String, LlmError> {
    use futures_util::StreamExt;
    let mut stream = model.stream(request).await?;
    let mut out = String::new();
    while let Some(delta) = stream.next().await {
        out.push_str(&delta?);
    }
    Ok(out)
}

/// Stands in when the configured model cannot start (say, the model file is
/// missing): the rest of Easel runs, and every chat answers with the reason.
#[derive(Debug, Clone)]
pub struct UnavailableModel {
    pub reason: String,
}

#[async_trait::async_trait]
impl LanguageModel for UnavailableModel {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: "unavailable".into(),
            label: format!("No language model: {}", self.reason),
            neural: false,
            context_tokens: 0,
        }
    }

    fn count_tokens(&self, text: &str) -> usize {
        text.len().div_ceil(4)
    }

    async fn stream(&self, _request: ChatRequest) -> Result<TokenStream, LlmError> {
        Err(LlmError::Unavailable(self.reason.clone()))
    }
}
