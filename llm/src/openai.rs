//! The OpenAI-compatible streaming adapter: `POST {url}/chat/completions`
//! with `stream: true`, read as server-sent events (`data: {json}` chunks
//! whose `choices[0].delta.content` is the next piece of text, then
//! `data: [DONE]`). llama.cpp's server, vLLM, Ollama, LocalAI and hosted
//! services speak it.
//!
//! Cancellation is by drop: the token stream owns the HTTP response, so
//! dropping it closes the connection and the server stops generating.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use serde::Deserialize;

use crate::text::StopFilter;
use crate::{ChatRequest, LanguageModel, LlmError, ModelInfo, Role, TokenStream};

/// Longest server error text quoted in an [`LlmError`].
const MAX_ERROR_CHARS: usize = 500;

/// Where and how to reach the server (taken from [`crate::LlmConfig`]).
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiSettings {
    /// Base URL, e.g. `http://127.0.0.1:8081/v1`; `/chat/completions` is appended.
    pub url: String,
    /// Sent as `Authorization: Bearer ...` when set.
    pub api_key: Option<String>,
    /// The `model` field of each request.
    pub model: String,
    /// The server's context window, as far as Easel is concerned (it is not
    /// asked): the chat history is cut to fit it.
    pub context_tokens: u32,
    /// Giving up on connecting after this long makes the model unavailable quickly.
    pub connect_timeout: Duration,
    /// Longest silence between two reads (a prompt that takes long to read
    /// on a slow server counts here too).
    pub read_timeout: Duration,
}

impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("context_tokens", &self.context_tokens)
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .finish()
    }
}

/// The adapter. The `reqwest::Client` inside keeps a connection pool.
#[derive(Clone)]
pub struct OpenAiModel {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    /// `host[:port]` of the server, for the label.
    host: String,
    api_key: Option<String>,
    model: String,
    context_tokens: u32,
}

impl std::fmt::Debug for OpenAiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiModel")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .finish()
    }
}

impl OpenAiModel {
    pub fn new(settings: OpenAiSettings) -> Result<OpenAiModel, LlmError> {
        let base = settings.url.trim().trim_end_matches('/');
        let endpoint = reqwest::Url::parse(&format!("{base}/chat/completions")).map_err(|e| {
            LlmError::Unavailable(format!("the language model URL {base:?} is not valid: {e}"))
        })?;
        let host = match (endpoint.host_str(), endpoint.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_owned(),
            (None, _) => {
                return Err(LlmError::Unavailable(format!(
                    "the language model URL {base:?} has no host"
                )))
            }
        };
        if settings.model.trim().is_empty() {
            return Err(LlmError::Unavailable(
                "the OpenAI-compatible adapter needs a model name ([llm] model or EASEL_LLM_MODEL)"
                    .into(),
            ));
        }
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .read_timeout(settings.read_timeout)
            .build()
            .map_err(|e| LlmError::Unavailable(format!("HTTP client: {e}")))?;
        Ok(OpenAiModel {
            client,
            endpoint,
            host,
            api_key: settings.api_key.filter(|k| !k.is_empty()),
            model: settings.model.trim().to_owned(),
            context_tokens: settings.context_tokens,
        })
    }

    /// The JSON body sent for `request`.
    pub fn request_body(&self, request: &ChatRequest) -> serde_json::Value {
        let mut messages: Vec<serde_json::Value> = request
            .messages
            .iter()
            .map(|m| serde_json::json!({"role": role_name(m.role), "content": m.content}))
            .collect();
        if let Some(prefill) = &request.prefill {
            // A trailing assistant message: compatible servers continue it.
            messages.push(serde_json::json!({"role": "assistant", "content": prefill}));
        }
        let mut body = serde_json::json!({
            "model": self.model,
            "messages": messages,
            "stream": true,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "seed": request.seed,
        });
        let stops: Vec<&String> = request.stop.iter().filter(|s| !s.is_empty()).collect();
        if let (false, Some(obj)) = (stops.is_empty(), body.as_object_mut()) {
            obj.insert("stop".into(), serde_json::json!(stops));
        }
        body
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The message inside an error body (`{"error":{"message":..}}`,
/// `{"error":".."}`, `{"message":..}`), or the body itself, shortened.
fn server_message(body: &str) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let error = v.get("error").unwrap_or(&v);
            error
                .get("message")
                .and_then(|m| m.as_str())
                .or_else(|| error.as_str())
                .map(str::to_owned)
        });
    let text = from_json.unwrap_or_else(|| body.trim().to_owned());
    if text.chars().count() > MAX_ERROR_CHARS {
        let mut short: String = text.chars().take(MAX_ERROR_CHARS).collect();
        short.push('…');
        short
    } else {
        text
    }
}

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Delta>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
}

type Body = Pin<Box<dyn Stream<Item = Result<Vec<u8>, reqwest::Error>> + Send>>;

/// Reads server-sent events off the response body and turns them into deltas.
struct SseReader {
    body: Body,
    /// Bytes after the last complete line.
    buf: Vec<u8>,
    /// `data:` lines of the event being read (an event ends at a blank line).
    data: Vec<String>,
    out: VecDeque<Result<String, LlmError>>,
    stop: StopFilter,
    /// No more reading: `[DONE]`, a stop string, an error, or the end of the body.
    done: bool,
}

impl SseReader {
    fn new(body: Body, stops: &[String]) -> SseReader {
        SseReader {
            body,
            buf: Vec::new(),
            data: Vec::new(),
            out: VecDeque::new(),
            stop: StopFilter::new(stops),
            done: false,
        }
    }

    async fn next(&mut self) -> Option<Result<String, LlmError>> {
        loop {
            if let Some(item) = self.out.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            match self.body.next().await {
                Some(Ok(bytes)) => {
                    self.buf.extend_from_slice(&bytes);
                    while let Some(at) = self.buf.iter().position(|b| *b == b'\n') {
                        let line: Vec<u8> = self.buf.drain(..=at).collect();
                        self.line(&String::from_utf8_lossy(&line));
                        if self.done {
                            break;
                        }
                    }
                }
                Some(Err(e)) => {
                    self.fail(format!("reading the reply stream: {e}"));
                }
                None => {
                    // The body ended: a last line without a newline, and a
                    // last event without its blank line, still count.
                    let rest = std::mem::take(&mut self.buf);
                    if !rest.is_empty() {
                        self.line(&String::from_utf8_lossy(&rest));
                    }
                    if !self.done {
                        self.dispatch();
                    }
                    self.finish();
                }
            }
        }
    }

    fn line(&mut self, line: &str) {
        let line = line.trim_end_matches(['\n', '\r']);
        if line.is_empty() {
            self.dispatch();
        } else if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            self.data.push(value.to_owned());
        }
        // Comments (`:`), `event:`, `id:` and `retry:` lines carry nothing we use.
    }

    fn dispatch(&mut self) {
        if self.data.is_empty() {
            return;
        }
        let data = std::mem::take(&mut self.data).join("\n");
        if data.trim() == "[DONE]" {
            self.finish();
            return;
        }
        let chunk: Chunk = match serde_json::from_str(&data) {
            Ok(c) => c,
            Err(e) => {
                self.fail(format!(
                    "the server sent bad JSON ({e}): {}",
                    server_message(&data)
                ));
                return;
            }
        };
        if let Some(error) = chunk.error {
            self.fail(format!(
                "the server reported: {}",
                server_message(&serde_json::json!({ "error": error }).to_string())
            ));
            return;
        }
        let text = chunk
            .choices
            .into_iter()
            .next()
            .and_then(|c| c.delta)
            .and_then(|d| d.content)
            .unwrap_or_default();
        if text.is_empty() {
            return;
        }
        let filtered = self.stop.push(&text);
        if !filtered.text.is_empty() {
            self.out.push_back(Ok(filtered.text));
        }
        if filtered.stopped {
            self.done = true;
        }
    }

    fn finish(&mut self) {
        if !self.done {
            let rest = self.stop.finish();
            if !rest.is_empty() {
                self.out.push_back(Ok(rest));
            }
        }
        self.done = true;
    }

    fn fail(&mut self, message: String) {
        self.out.push_back(Err(LlmError::Failed(message)));
        self.done = true;
    }
}

#[async_trait::async_trait]
impl LanguageModel for OpenAiModel {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: self.model.clone(),
            label: format!("{} (OpenAI-compatible at {})", self.model, self.host),
            neural: true,
            context_tokens: self.context_tokens,
        }
    }

    /// An estimate: about 4 bytes a token.
    fn count_tokens(&self, text: &str) -> usize {
        text.len().div_ceil(4)
    }

    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, LlmError> {
        let mut http = self
            .client
            .post(self.endpoint.clone())
            .header("Accept", "text/event-stream")
            .json(&self.request_body(&request));
        if let Some(key) = &self.api_key {
            http = http.bearer_auth(key);
        }
        let response = http.send().await.map_err(|e| {
            if e.is_connect() || e.is_timeout() {
                LlmError::Unavailable(format!("cannot reach {}: {e}", self.host))
            } else {
                LlmError::Failed(format!("request to {} failed: {e}", self.host))
            }
        })?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            let message = format!("{} answered {status}: {}", self.host, server_message(&body));
            return Err(match status.as_u16() {
                400 | 404 | 413 | 422 => LlmError::Rejected(message),
                401 | 403 | 429 | 503 => LlmError::Unavailable(message),
                _ => LlmError::Failed(message),
            });
        }
        let body: Body = Box::pin(response.bytes_stream().map(|r| r.map(|b| b.to_vec())));
        let reader = SseReader::new(body, &request.stop);
        let deltas = futures_util::stream::unfold(reader, |mut reader| async move {
            reader.next().await.map(|item| (item, reader))
        });
        Ok(Box::pin(deltas))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_messages_are_found_in_the_usual_shapes() {
        assert_eq!(
            server_message(r#"{"error":{"message":"model not found","type":"x"}}"#),
            "model not found"
        );
        assert_eq!(server_message(r#"{"error":"overloaded"}"#), "overloaded");
        assert_eq!(server_message(r#"{"message":"bad"}"#), "bad");
        assert_eq!(server_message("  plain text\n"), "plain text");
        let long = "x".repeat(2000);
        assert_eq!(server_message(&long).chars().count(), MAX_ERROR_CHARS + 1);
    }

    #[test]
    fn settings_debug_redacts_the_key() {
        let s = OpenAiSettings {
            url: "http://127.0.0.1:1/v1".into(),
            api_key: Some("sk-secret".into()),
            model: "m".into(),
            context_tokens: 4096,
            connect_timeout: Duration::from_secs(1),
            read_timeout: Duration::from_secs(1),
        };
        let shown = format!("{s:?}");
        assert!(!shown.contains("sk-secret"), "{shown}");
        assert!(shown.contains("[redacted]"));
        let m = OpenAiModel::new(s).unwrap();
        assert!(!format!("{m:?}").contains("sk-secret"));
        assert_eq!(
            m.info().label,
            "m (OpenAI-compatible at 127.0.0.1:1)".to_owned()
        );
        assert_eq!(m.count_tokens("abcde"), 2);
        assert_eq!(m.count_tokens(""), 0);
    }

    #[test]
    fn bad_settings_are_unavailable() {
        let base = OpenAiSettings {
            url: "not a url".into(),
            api_key: None,
            model: "m".into(),
            context_tokens: 4096,
            connect_timeout: Duration::from_secs(1),
            read_timeout: Duration::from_secs(1),
        };
        assert!(matches!(
            OpenAiModel::new(base.clone()),
            Err(LlmError::Unavailable(_))
        ));
        let no_model = OpenAiSettings {
            url: "http://localhost:8081/v1/".into(),
            model: " ".into(),
            ..base
        };
        assert!(matches!(
            OpenAiModel::new(no_model),
            Err(LlmError::Unavailable(_))
        ));
    }
}
