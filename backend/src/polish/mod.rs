//! Prompt polish (spec 1 §4 "Prompt polishing", §8; spec 3 §7 "Prompt
//! polish"): rewrites a user's idea as a comma-separated image prompt with
//! the language model and streams it as Server-Sent Events.
//!
//! Events (each `data: {"status":{code,msg,key},"data":{"prompt"}}`):
//! 20000 no or bad token; 40000 empty prompt; 70020 the content rule
//! ([`rules`]); 70006 a polish of this user is already running; 70017 the
//! per-user hourly limit; then 70005 fragments as the model writes and 10000
//! with the whole prompt, which equals the fragments joined ([`clean`]);
//! the text filter masks the fragments or ends the stream with 70020
//! (`textfilter/stream.rs`).
//! A refusal is one event and the end of the stream. The per-user "running"
//! mark is a [`RunningGuard`] held by the producing task, so every way out
//! (done, error, client gone, panic) releases it.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::web::Bytes;
use futures_util::StreamExt;
use llm::{ChatMessage, ChatRequest, DynLanguageModel, LlmError};
use protocol::agent::{PolishData, POLISH_FRAGMENT_CODE};
use protocol::ErrorCode;
use tokio::sync::mpsc;

use crate::ratelimit::{RateLimiter, RateLimits};

pub mod clean;
pub mod rules;
pub mod sse;

/// Tokens the model may spend on one polished prompt.
pub const MAX_TOKENS: u32 = 96;
/// Sampling temperature: low, the rewrite should stay close to the idea.
pub const TEMPERATURE: f32 = 0.3;
/// Longest idea accepted, in characters.
pub const MAX_IDEA_CHARS: usize = 2000;

/// What to polish: the idea and the optional parameters of the prompt
/// object of `/api/stream/tool/prompt/text`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolishInput {
    pub idea: String,
    pub style: Option<String>,
    pub negative: Option<String>,
    /// The base model the prompt is for, when the client says.
    pub model: Option<String>,
}

impl PolishInput {
    /// Everything the content rule must look at.
    pub fn all_text(&self) -> String {
        [
            Some(self.idea.as_str()),
            self.style.as_deref(),
            self.model.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
    }
}

/// The instruction for the model. English prompts whatever the UI language:
/// image models are trained on English captions.
pub fn request_for(input: &PolishInput) -> ChatRequest {
    let mut user = format!("Idea: {}", input.idea.trim());
    if let Some(style) = input.style.as_deref().filter(|s| !s.trim().is_empty()) {
        user.push_str(&format!("\nStyle: {}", style.trim()));
    }
    if let Some(model) = input.model.as_deref().filter(|s| !s.trim().is_empty()) {
        user.push_str(&format!("\nImage model: {}", model.trim()));
    }
    if let Some(neg) = input.negative.as_deref().filter(|s| !s.trim().is_empty()) {
        user.push_str(&format!("\nAvoid: {}", neg.trim()));
    }
    ChatRequest {
        messages: vec![
            ChatMessage::system(
                "You rewrite a user's idea as one prompt for an image generator. \
                 Answer with the prompt only, on one line: comma-separated terms naming \
                 the subject, the setting, the art style, the lighting, and quality terms \
                 such as highly detailed. No explanation, no quotes, no label.",
            ),
            // Two worked examples: small models follow a shown pattern far
            // better than a described one.
            ChatMessage::user("Idea: a cat in a garden"),
            ChatMessage::assistant(
                "a fluffy ginger cat sitting among blooming roses in a cottage garden, \
                 soft morning sunlight, watercolor painting, warm colors, highly detailed",
            ),
            ChatMessage::user("Idea: a city at night\nStyle: cyberpunk"),
            ChatMessage::assistant(
                "a futuristic city street at night, neon signs reflecting on wet pavement, \
                 light rain, cyberpunk style, dramatic lighting, cinematic, highly detailed",
            ),
            ChatMessage::user(user),
        ],
        max_tokens: MAX_TOKENS,
        temperature: TEMPERATURE,
        top_p: 0.9,
        seed: 0,
        stop: vec!["\n\n".into()],
        prefill: None,
    }
}

/// Per-user state of polish: who is polishing now, and the hourly limit.
pub struct PolishService {
    /// Accounts with a polish running. A std mutex: held for one set
    /// operation, never across an await; shared with the guards.
    running: Arc<Mutex<HashSet<String>>>,
    /// Polishes started per account per hour.
    limit: RateLimiter,
}

/// Marks an account as polishing until dropped.
#[derive(Debug)]
pub struct RunningGuard {
    running: Arc<Mutex<HashSet<String>>>,
    account: String,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        if let Ok(mut set) = self.running.lock() {
            set.remove(&self.account);
        }
    }
}

impl PolishService {
    /// `limits`: where the hourly limit counts (see `crate::ratelimit`).
    pub fn new(per_hour: u32, limits: &RateLimits) -> PolishService {
        PolishService {
            running: Arc::new(Mutex::new(HashSet::new())),
            limit: limits.limiter("polish", per_hour, Duration::from_secs(3600)),
        }
    }

    /// Starts a polish for `account`: `PromptPolishRunning` if one is
    /// running, `PromptPolishLimit` over the hourly limit (a refused start
    /// is not counted against the limit).
    pub async fn begin(&self, account: &str) -> Result<RunningGuard, ErrorCode> {
        {
            let mut set = self.running.lock().map_err(|_| ErrorCode::Internal)?;
            if !set.insert(account.to_owned()) {
                return Err(ErrorCode::PromptPolishRunning);
            }
        }
        let guard = RunningGuard {
            running: self.running.clone(),
            account: account.to_owned(),
        };
        if !self.limit.check(account).await {
            return Err(ErrorCode::PromptPolishLimit);
        }
        Ok(guard)
    }

    pub fn is_running(&self, account: &str) -> bool {
        self.running
            .lock()
            .map(|s| s.contains(account))
            .unwrap_or(false)
    }
}

/// One polish event's bytes.
pub fn refusal(code: ErrorCode, msg: Option<String>) -> Bytes {
    sse::event(&sse::error_envelope(code, msg, PolishData::default()))
}

fn fragment(text: String) -> Bytes {
    sse::event(&sse::envelope(
        POLISH_FRAGMENT_CODE,
        "polishing",
        None,
        PolishData { prompt: text },
    ))
}

fn model_error(e: &LlmError) -> Bytes {
    tracing::warn!(error = %e, "prompt polish: model failed");
    let msg = match e {
        LlmError::Unavailable(_) => None,
        _ => Some("the language model failed; try again".to_owned()),
    };
    refusal(ErrorCode::LanguageModelUnavailable, msg)
}

/// Sends what the text filter released as fragments, or 70020 when it
/// matched a refusing entry; false when the stream is over.
async fn forward(
    tx: &mpsc::Sender<Bytes>,
    released: crate::textfilter::Released,
    sent: &mut String,
) -> bool {
    if released.refused {
        tracing::info!("prompt polish: the polished prompt violates the filter's rules");
        let _ = tx.send(refusal(ErrorCode::PromptViolatesRules, None)).await;
        return false;
    }
    for f in released.chunks {
        sent.push_str(&f);
        if tx.send(fragment(f)).await.is_err() {
            return false;
        }
    }
    true
}

/// Runs one polish, writing its events to `tx`; returns when done, failed,
/// or the client went away (then the model stream is dropped at once).
///
/// The polished prompt goes through the text filter's `prompt` scene as it
/// streams (`filter`, `None` in tests of other parts): masking entries mask
/// it; a refusing entry ends the stream with 70020 instead of delivering it.
pub async fn run(
    model: DynLanguageModel,
    input: PolishInput,
    guard: RunningGuard,
    tx: mpsc::Sender<Bytes>,
    filter: Option<crate::textfilter::TextFilterService>,
) {
    let _guard = guard;
    let mut output =
        crate::textfilter::StreamFilter::new(filter, protocol::textfilter::Scene::Prompt, "");
    // The filtered prompt as sent: the fragments joined.
    let mut sent = String::new();
    let mut stream = match model.stream(request_for(&input)).await {
        Ok(s) => s,
        Err(e) => {
            let _ = tx.send(model_error(&e)).await;
            return;
        }
    };
    let mut cleaner = clean::Cleaner::new();
    loop {
        let next = tokio::select! {
            _ = tx.closed() => return,
            next = stream.next() => next,
        };
        match next {
            Some(Ok(delta)) => {
                if let Some(f) = cleaner.push(&delta) {
                    if rules::violates_complete_words(cleaner.sent()) {
                        let _ = tx.send(refusal(ErrorCode::PromptViolatesRules, None)).await;
                        return;
                    }
                    if !forward(&tx, output.push(&f), &mut sent).await {
                        return;
                    }
                }
                if cleaner.is_finished() {
                    break;
                }
            }
            Some(Err(e)) => {
                let _ = tx.send(model_error(&e)).await;
                return;
            }
            None => break,
        }
    }
    drop(stream);
    let (last, whole) = cleaner.finish();
    if rules::violates(&whole) {
        let _ = tx.send(refusal(ErrorCode::PromptViolatesRules, None)).await;
        return;
    }
    if whole.is_empty() {
        let msg = "the language model gave no prompt; try again".to_owned();
        let _ = tx
            .send(refusal(ErrorCode::LanguageModelUnavailable, Some(msg)))
            .await;
        return;
    }
    if let Some(f) = last {
        if !forward(&tx, output.push(&f), &mut sent).await {
            return;
        }
    }
    if !forward(&tx, output.finish(), &mut sent).await {
        return;
    }
    let done = sse::envelope(
        protocol::error::SUCCESS_CODE,
        "success",
        None,
        PolishData { prompt: sent },
    );
    let _ = tx.send(sse::event(&done)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn guard_releases_and_limit_counts_started_polishes_only() {
        let svc = PolishService::new(2, &RateLimits::local());
        let g = svc.begin("a").await.unwrap();
        assert!(svc.is_running("a"));
        assert_eq!(
            svc.begin("a").await.unwrap_err(),
            ErrorCode::PromptPolishRunning
        );
        drop(g);
        assert!(!svc.is_running("a"));
        drop(svc.begin("a").await.unwrap());
        assert_eq!(
            svc.begin("a").await.unwrap_err(),
            ErrorCode::PromptPolishLimit
        );
        assert!(
            !svc.is_running("a"),
            "a refused start leaves nothing running"
        );
        assert!(svc.begin("b").await.is_ok());
    }

    #[test]
    fn instruction_carries_the_parameters() {
        let r = request_for(&PolishInput {
            idea: " a cat ".into(),
            style: Some("anime".into()),
            negative: Some("blur".into()),
            model: None,
        });
        let user = &r.messages.last().unwrap().content;
        assert_eq!(user, "Idea: a cat\nStyle: anime\nAvoid: blur");
        assert_eq!(r.max_tokens, MAX_TOKENS);
    }

    #[tokio::test]
    async fn streams_fragments_then_the_whole_prompt() {
        let model: DynLanguageModel = Arc::new(llm::ScriptedModel::new(Duration::ZERO).with_reply(
            "fox",
            "Prompt: \"a red fox, snow, soft light\"\nThat is it.",
        ));
        let svc = PolishService::new(5, &RateLimits::local());
        let guard = svc.begin("u").await.unwrap();
        let (tx, mut rx) = sse::channel();
        let input = PolishInput {
            idea: "a fox".into(),
            ..PolishInput::default()
        };
        run(model, input, guard, tx, None).await;
        let mut joined = String::new();
        let mut whole = None;
        while let Some(b) = rx.recv().await {
            let text = std::str::from_utf8(&b).unwrap();
            let v: serde_json::Value =
                serde_json::from_str(text.strip_prefix("data: ").unwrap().trim()).unwrap();
            match v["status"]["code"].as_i64().unwrap() {
                70005 => joined.push_str(v["data"]["prompt"].as_str().unwrap()),
                10000 => whole = Some(v["data"]["prompt"].as_str().unwrap().to_owned()),
                other => panic!("unexpected code {other}"),
            }
        }
        assert_eq!(whole.as_deref(), Some("a red fox, snow, soft light"));
        assert_eq!(joined, "a red fox, snow, soft light");
        assert!(!svc.is_running("u"));
    }
}
