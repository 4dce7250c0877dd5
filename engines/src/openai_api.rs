//! What the OpenAI-compatible adapters (`openai.rs` for images,
//! `openai_video.rs` for video) share: the API's base URL and host, the key
//! (sent as `Authorization: Bearer`, never logged, cut out of any server
//! text quoted in an error), the HTTP client, and reading the API's error
//! envelope and prompts.

use std::time::Duration;

use reqwest::Url;
use serde_json::Value;

use crate::EngineError;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) struct OpenAiApi {
    /// API base with a trailing slash (`http://host:port/v1/`), so routes
    /// join under it.
    pub base: Url,
    /// `host[:port]`, for the label.
    pub host: String,
    api_key: Option<String>,
    pub http: reqwest::Client,
}

impl std::fmt::Debug for OpenAiApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiApi")
            .field("base", &self.base.as_str())
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl OpenAiApi {
    /// The API at `url` (e.g. `http://127.0.0.1:8080/v1`); an empty key is none.
    pub fn new(url: &str, api_key: Option<String>) -> Result<OpenAiApi, String> {
        let (base, host) = crate::http_base(url)?;
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| format!("http client: {e}"))?;
        Ok(OpenAiApi {
            base,
            host,
            api_key: api_key.filter(|k| !k.trim().is_empty()),
            http,
        })
    }

    pub fn url(&self, route: &str) -> Result<Url, EngineError> {
        self.base
            .join(route)
            .map_err(|e| EngineError::Failed(format!("bad API route {route}: {e}")))
    }

    pub fn authorized(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.api_key {
            Some(key) => req.bearer_auth(key),
            None => req,
        }
    }

    /// A server's text with the API key cut out (some servers echo it).
    pub fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "<redacted>"),
            _ => text.to_string(),
        }
    }
}

/// The API has no negative prompt: it is appended as an instruction.
pub(crate) fn prompt_text(prompt: &str, negative: &str) -> String {
    let negative = negative.trim();
    if negative.is_empty() {
        prompt.to_string()
    } else {
        format!("{prompt}\n\nAvoid: {negative}")
    }
}

/// `error.message` of an OpenAI error envelope (some compatible servers
/// send `error` as a plain string).
pub(crate) fn error_message(body: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(body).ok()?;
    let error = v.get("error")?;
    error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .map(str::to_string)
}
