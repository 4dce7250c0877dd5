//! The embedded language model: SmolLM2-135M-Instruct (Apache-2.0) run
//! in-process by llama.cpp through the `llama-cpp-2` bindings (safe API only).
//!
//! One [`LlamaBackend`] per process and one loaded model per [`LocalModel`]
//! are shared by every request; each request gets its own llama.cpp context
//! (its own KV cache, sized to `context_tokens`) that lives exactly as long
//! as the generation. Generation runs on a blocking thread and hands text
//! deltas to the async side through a small bounded channel; when the
//! consumer drops the stream the channel closes and the loop stops before
//! the next token. A semaphore caps concurrent generations (1 by default) so
//! a 2-core machine is not oversubscribed; further requests wait their turn.

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token_type::LlamaTokenAttr;
use tokio::sync::{mpsc, Semaphore};

use crate::text::{StopFilter, Utf8Assembler};
use crate::{ChatMessage, ChatRequest, LanguageModel, LlmError, ModelInfo, Role, TokenStream};

/// [`ModelInfo::name`] of the embedded model.
pub const NAME: &str = "smollm2-135m-instruct";
/// [`ModelInfo::label`] of the embedded model.
pub const LABEL: &str = "SmolLM2-135M-Instruct (local, llama.cpp)";

/// Deltas buffered between the generating thread and the consumer. Small, so
/// a cancelled (dropped) stream stops the generator within a few tokens even
/// when the consumer had fallen behind.
const DELTA_BUFFER: usize = 8;

/// Stop strings always applied on top of the request's: the ChatML turn
/// markers, in case the model spells one out as plain text instead of
/// producing the special token.
const TURN_MARKERS: [&str; 2] = ["<|im_end|>", "<|im_start|>"];

/// What [`LocalModel::load`] needs (taken from [`crate::LlmConfig`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSettings {
    /// The GGUF file.
    pub model_path: PathBuf,
    /// CPU threads per generation (prompt and tokens).
    pub threads: u32,
    /// Context window of each request's llama.cpp context (prompt + reply).
    pub context_tokens: u32,
    /// Generations that may run at once; the rest wait in line.
    pub max_concurrent: u32,
}

/// Counters since the model was loaded (for logs, metrics and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocalStats {
    /// Generations that started decoding (got a permit and a context).
    pub generations: u64,
    /// Reply tokens sampled (end-of-turn tokens not counted).
    pub tokens: u64,
    /// Generations stopped because the consumer dropped the stream.
    pub cancelled: u64,
}

#[derive(Debug, Default)]
struct Counters {
    generations: AtomicU64,
    tokens: AtomicU64,
    cancelled: AtomicU64,
}

/// The embedded model. Cheap to share behind an `Arc`; all requests use the
/// one loaded model.
pub struct LocalModel {
    inner: Arc<Inner>,
}

struct Inner {
    backend: &'static LlamaBackend,
    model: LlamaModel,
    /// The chat template stored in the GGUF, applied by llama.cpp. `None`
    /// when the file has none: then ChatML (SmolLM2's format) is written here.
    template: Option<LlamaChatTemplate>,
    /// Texts of the vocabulary's special tokens (`<|im_start|>`...). They are
    /// removed from message contents, because the prompt is tokenised with
    /// special-token parsing on (the template's markers must become the
    /// special tokens) and a user must not be able to forge a turn.
    special_texts: Vec<String>,
    threads: i32,
    context_tokens: u32,
    /// Caps concurrent generations; owned permits travel into the blocking thread.
    permits: Arc<Semaphore>,
    /// llama.cpp may adjust the model while a context is created, so contexts
    /// are created one at a time (the bindings call parallel creation unsound).
    context_creation: Mutex<()>,
    counters: Counters,
}

/// The process-wide llama.cpp backend: it can be initialised only once per
/// process, so every [`LocalModel`] shares this one.
fn backend() -> Result<&'static LlamaBackend, LlmError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp logs through `tracing` (target `llama-cpp-2`) instead
            // of printing to stderr, so a log filter can quiet it.
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LlmError::Unavailable(format!("llama.cpp did not start: {e}")))
}

impl LocalModel {
    /// Loads the GGUF file. A missing file is [`LlmError::Unavailable`] with
    /// the command that fetches it.
    pub fn load(settings: &LocalSettings) -> Result<LocalModel, LlmError> {
        let path = &settings.model_path;
        if !path.is_file() {
            return Err(LlmError::Unavailable(format!(
                "the local model file {} is missing; run ./scripts/fetch-model",
                path.display()
            )));
        }
        let backend = backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| {
                LlmError::Unavailable(format!(
                    "could not load the model {}: {e}; run ./scripts/fetch-model again",
                    path.display()
                ))
            })?;
        let trained = model.n_ctx_train();
        let mut context_tokens = settings.context_tokens.max(64);
        if trained > 0 && context_tokens > trained {
            tracing::warn!(
                configured = context_tokens,
                trained,
                "context larger than the model was trained for; using the trained size"
            );
            context_tokens = trained;
        }
        let template = model.chat_template(None).ok();
        let vocab = model.vocab();
        let mut special_texts: Vec<String> = vocab
            .tokens()
            .filter(|t| {
                vocab
                    .attr(*t)
                    .intersects(LlamaTokenAttr::Control | LlamaTokenAttr::UserDefined)
            })
            .filter_map(|t| {
                vocab
                    .text(t)
                    .and_then(|c| c.to_str().ok())
                    .map(str::to_owned)
            })
            .filter(|s| s.chars().count() > 1)
            .collect();
        // Longest first, so a special text containing another goes first.
        special_texts.sort_by_key(|s| std::cmp::Reverse(s.len()));
        special_texts.dedup();
        tracing::info!(
            path = %path.display(),
            parameters = model.n_params(),
            context_tokens,
            threads = settings.threads.max(1),
            template = template.is_some(),
            "local language model loaded"
        );
        Ok(LocalModel {
            inner: Arc::new(Inner {
                backend,
                model,
                template,
                special_texts,
                threads: i32::try_from(settings.threads.max(1)).unwrap_or(1),
                context_tokens,
                permits: Arc::new(Semaphore::new(
                    usize::try_from(settings.max_concurrent.max(1)).unwrap_or(1),
                )),
                context_creation: Mutex::new(()),
                counters: Counters::default(),
            }),
        })
    }

    pub fn stats(&self) -> LocalStats {
        let c = &self.inner.counters;
        LocalStats {
            generations: c.generations.load(Ordering::Relaxed),
            tokens: c.tokens.load(Ordering::Relaxed),
            cancelled: c.cancelled.load(Ordering::Relaxed),
        }
    }

    /// The prompt text the model sees for `request`: the model's own chat
    /// template (ChatML for SmolLM2) with the assistant turn opened, followed
    /// by the prefill when the request continues a reply.
    pub fn prompt(&self, request: &ChatRequest) -> String {
        self.inner.prompt(request)
    }
}

impl Inner {
    fn neutralise(&self, text: &str) -> String {
        let mut out = text.replace('\0', "");
        for special in &self.special_texts {
            if out.contains(special.as_str()) {
                out = out.replace(special.as_str(), "");
            }
        }
        out
    }

    fn prompt(&self, request: &ChatRequest) -> String {
        let messages: Vec<ChatMessage> = request
            .messages
            .iter()
            .map(|m| ChatMessage::new(m.role, self.neutralise(&m.content)))
            .collect();
        let templated = self.template.as_ref().and_then(|template| {
            let chat: Result<Vec<LlamaChatMessage>, _> = messages
                .iter()
                .map(|m| LlamaChatMessage::new(role_name(m.role).to_owned(), m.content.clone()))
                .collect();
            let applied = chat.map_err(|e| e.to_string()).and_then(|chat| {
                self.model
                    .apply_chat_template(template, &chat, true)
                    .map_err(|e| e.to_string())
            });
            match applied {
                Ok(prompt) => Some(prompt),
                Err(e) => {
                    tracing::warn!(error = %e, "the model's chat template failed; using ChatML");
                    None
                }
            }
        });
        let mut prompt = templated.unwrap_or_else(|| chatml_prompt(&messages, None));
        if let Some(prefill) = &request.prefill {
            prompt.push_str(&self.neutralise(prefill));
        }
        prompt
    }

    fn tokenize(&self, text: &str, special: bool) -> Vec<LlamaToken> {
        self.model
            .vocab()
            .tokenize(text.as_bytes(), special, special)
    }

    /// Runs one generation on the calling (blocking) thread, sending deltas
    /// to `tx` until the reply ends, `budget` tokens are out, a stop string
    /// appears, or `tx`'s receiver is gone.
    fn generate(
        &self,
        prompt: &[LlamaToken],
        request: &ChatRequest,
        budget: u32,
        tx: &mpsc::Sender<Result<String, LlmError>>,
    ) -> Result<(), LlmError> {
        if tx.is_closed() {
            self.counters.cancelled.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        self.counters.generations.fetch_add(1, Ordering::Relaxed);
        let failed =
            |what: &str, e: &dyn std::fmt::Display| LlmError::Failed(format!("{what}: {e}"));
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.context_tokens))
            .with_n_batch(self.context_tokens)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        let mut ctx = {
            let _one_at_a_time = self
                .context_creation
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            self.model
                .new_context(self.backend, params)
                .map_err(|e| failed("creating a llama.cpp context", &e))?
        };

        let mut batch = LlamaBatch::new(prompt.len().max(1), 1);
        let last = prompt.len().saturating_sub(1);
        for (i, token) in prompt.iter().enumerate() {
            let pos = i32::try_from(i).map_err(|e| failed("prompt position", &e))?;
            batch
                .add(*token, pos, &[0], i == last)
                .map_err(|e| failed("filling the prompt batch", &e))?;
        }
        ctx.decode(&mut batch)
            .map_err(|e| failed("reading the prompt", &e))?;

        let mut sampler = sampler_for(request, self.model.n_vocab());
        let vocab = self.model.vocab();
        let mut utf8 = Utf8Assembler::new();
        let mut stops: Vec<String> = request.stop.clone();
        stops.extend(TURN_MARKERS.iter().map(|s| (*s).to_owned()));
        let mut stop = StopFilter::new(&stops);
        let mut pos = i32::try_from(prompt.len()).map_err(|e| failed("prompt length", &e))?;
        let mut produced: u32 = 0;
        let mut cancelled = false;
        let mut stopped = false;
        while produced < budget {
            if tx.is_closed() {
                cancelled = true;
                break;
            }
            let token = sampler.sample(&ctx, batch.n_tokens() - 1);
            // End of the turn (`<|im_end|>`, end of text), or a control token
            // that would open another turn: the reply is over.
            if vocab.is_eog(token) || vocab.is_control(token) {
                break;
            }
            produced += 1;
            self.counters.tokens.fetch_add(1, Ordering::Relaxed);
            let text = utf8.push(&vocab.token_to_piece(token, false, None));
            let filtered = stop.push(&text);
            if !filtered.text.is_empty() && tx.blocking_send(Ok(filtered.text)).is_err() {
                cancelled = true;
                break;
            }
            if filtered.stopped {
                stopped = true;
                break;
            }
            if produced == budget {
                break;
            }
            batch.clear();
            batch
                .add(token, pos, &[0], true)
                .map_err(|e| failed("filling the token batch", &e))?;
            pos += 1;
            ctx.decode(&mut batch)
                .map_err(|e| failed("generating", &e))?;
        }
        if cancelled {
            self.counters.cancelled.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        if !stopped {
            // Text held back as a possible stop string was not one. Bytes of
            // an unfinished character (cut by max_tokens) are dropped.
            let rest = stop.finish();
            if !rest.is_empty() {
                let _ = tx.blocking_send(Ok(rest));
            }
        }
        Ok(())
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// SmolLM2's chat format (ChatML), used when the GGUF carries no template:
/// `<|im_start|>role\ncontent<|im_end|>\n` per message, then the opened
/// assistant turn, then the prefill (a partial reply to continue), if any.
pub fn chatml_prompt(messages: &[ChatMessage], prefill: Option<&str>) -> String {
    let mut out = String::new();
    for m in messages {
        out.push_str("<|im_start|>");
        out.push_str(role_name(m.role));
        out.push('\n');
        out.push_str(&m.content);
        out.push_str("<|im_end|>\n");
    }
    out.push_str("<|im_start|>assistant\n");
    if let Some(prefill) = prefill {
        out.push_str(prefill);
    }
    out
}

/// How strongly a token already generated in the last [`PENALTY_LAST_N`]
/// tokens is discouraged. Small models loop ("a cinematic, a cinematic, ...")
/// without it; 1.15 is a mild value that leaves normal prose alone.
pub const REPEAT_PENALTY: f32 = 1.15;
/// The window of generated tokens the repeat penalty looks at.
pub const PENALTY_LAST_N: i32 = 64;

/// A repeat penalty over the reply so far, then greedy at temperature 0
/// (deterministic); otherwise top-p, temperature and a seeded draw, in
/// llama.cpp's usual order. `llama_sampler_sample` accepts each sampled
/// token into the chain, so the penalty sees the reply as it grows.
fn sampler_for(request: &ChatRequest, n_vocab: i32) -> LlamaSampler {
    let mut chain = vec![LlamaSampler::penalties(
        n_vocab,
        PENALTY_LAST_N,
        REPEAT_PENALTY,
        0.0,
        0.0,
    )];
    if request.temperature <= 0.0 {
        chain.push(LlamaSampler::greedy());
        return LlamaSampler::chain_simple(chain);
    }
    if request.top_p < 1.0 {
        chain.push(LlamaSampler::top_p(request.top_p, 1));
    }
    chain.push(LlamaSampler::temp(request.temperature));
    chain.push(LlamaSampler::dist(seed32(request.seed)));
    LlamaSampler::chain_simple(chain)
}

/// Folds the 64-bit seed into llama.cpp's 32 bits, avoiding `u32::MAX`,
/// which llama.cpp reads as "pick a random seed".
fn seed32(seed: u64) -> u32 {
    let folded = (seed ^ (seed >> 32)) as u32;
    if folded == u32::MAX {
        u32::MAX - 1
    } else {
        folded
    }
}

fn check_parameters(request: &ChatRequest) -> Result<(), LlmError> {
    if !request.temperature.is_finite() || request.temperature < 0.0 {
        return Err(LlmError::Rejected(format!(
            "temperature must be 0 or more, not {}",
            request.temperature
        )));
    }
    if !(request.top_p > 0.0 && request.top_p <= 1.0) {
        return Err(LlmError::Rejected(format!(
            "top_p must be in (0, 1], not {}",
            request.top_p
        )));
    }
    if request.messages.is_empty() && request.prefill.is_none() {
        return Err(LlmError::Rejected("no messages to answer".into()));
    }
    Ok(())
}

#[async_trait::async_trait]
impl LanguageModel for LocalModel {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: NAME.into(),
            label: LABEL.into(),
            neural: true,
            context_tokens: self.inner.context_tokens,
        }
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.inner.tokenize(text, false).len()
    }

    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, LlmError> {
        check_parameters(&request)?;
        let inner = Arc::clone(&self.inner);
        let prompt = inner.tokenize(&inner.prompt(&request), true);
        let context = usize::try_from(inner.context_tokens).unwrap_or(usize::MAX);
        if prompt.is_empty() || prompt.len() >= context {
            return Err(LlmError::Rejected(format!(
                "the prompt takes {} tokens; the context holds {}",
                prompt.len(),
                inner.context_tokens
            )));
        }
        let room = u32::try_from(context - prompt.len()).unwrap_or(u32::MAX);
        let budget = request.max_tokens.min(room);

        let (tx, rx) = mpsc::channel::<Result<String, LlmError>>(DELTA_BUFFER);
        tokio::spawn(async move {
            // Wait in line for a permit, unless the consumer gives up first.
            let permit = tokio::select! {
                permit = Arc::clone(&inner.permits).acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => return,
                },
                () = tx.closed() => return,
            };
            let worker = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                if let Err(e) = inner.generate(&prompt, &request, budget, &tx) {
                    tracing::warn!(error = %e, "local generation failed");
                    let _ = tx.blocking_send(Err(e));
                }
            });
            if let Err(e) = worker.await {
                tracing::error!(error = %e, "local generation thread panicked");
            }
        });
        let deltas = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|item| (item, rx))
        });
        Ok(Box::pin(deltas))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatml_closes_turns_and_opens_the_assistant_turn() {
        let messages = vec![
            ChatMessage::system("Be brief."),
            ChatMessage::user("Hi"),
            ChatMessage::assistant("Hello!"),
            ChatMessage::user("Name a colour."),
        ];
        assert_eq!(
            chatml_prompt(&messages, None),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n\
             <|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nName a colour.<|im_end|>\n\
             <|im_start|>assistant\n"
        );
        // A prefill leaves the assistant turn open, ending with the partial text.
        let p = chatml_prompt(&messages, Some("Blue is"));
        assert!(p.ends_with("<|im_start|>assistant\nBlue is"));
    }

    #[test]
    fn temperature_zero_is_greedy_and_seeds_avoid_the_random_marker() {
        assert_eq!(seed32(0), 0);
        assert_eq!(seed32(7), 7);
        assert_ne!(seed32(u64::from(u32::MAX)), u32::MAX);
        assert_ne!(seed32(1 << 32), seed32(1 << 33));
        let bad = ChatRequest {
            messages: vec![ChatMessage::user("x")],
            temperature: f32::NAN,
            ..ChatRequest::default()
        };
        assert!(matches!(check_parameters(&bad), Err(LlmError::Rejected(_))));
        let bad = ChatRequest {
            messages: vec![ChatMessage::user("x")],
            top_p: 0.0,
            ..ChatRequest::default()
        };
        assert!(matches!(check_parameters(&bad), Err(LlmError::Rejected(_))));
        assert!(matches!(
            check_parameters(&ChatRequest::default()),
            Err(LlmError::Rejected(_))
        ));
    }
}
