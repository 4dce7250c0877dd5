//! The scripted model: deterministic text at a set pace, for tests and for
//! the load harness's `chat` scenario. It is not a language model and says
//! so (`neural: false`); it is never the default.
//!
//! The reply is chosen by the last user message: a script entry whose key is
//! contained in it wins, otherwise the reply echoes the message. Words come
//! out one delta at a time (a leading space included, as BPE tokens do) with
//! `interval` between them, so tests can cancel or disconnect mid-reply.

use std::time::Duration;

use futures_util::StreamExt;

use crate::{ChatRequest, LanguageModel, LlmError, ModelInfo, Role, TokenStream};

#[derive(Debug, Clone)]
pub struct ScriptedModel {
    /// `(contains, reply)` pairs tried in order against the last user message.
    pub script: Vec<(String, String)>,
    /// Pause before each delta.
    pub interval: Duration,
    pub context_tokens: u32,
}

impl ScriptedModel {
    pub fn new(interval: Duration) -> ScriptedModel {
        ScriptedModel {
            script: Vec::new(),
            interval,
            context_tokens: 2048,
        }
    }

    pub fn with_reply(mut self, contains: &str, reply: &str) -> ScriptedModel {
        self.script.push((contains.to_owned(), reply.to_owned()));
        self
    }

    /// The whole reply this model gives to `request` (before `max_tokens`).
    pub fn reply_for(&self, request: &ChatRequest) -> String {
        let last = request
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
            .unwrap_or("");
        self.script
            .iter()
            .find(|(k, _)| last.contains(k.as_str()))
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| format!("You said: {last}"))
    }
}

/// Splits text into word deltas, each word keeping the space before it.
pub fn word_deltas(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_whitespace() && !cur.trim().is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[async_trait::async_trait]
impl LanguageModel for ScriptedModel {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: "scripted".into(),
            label: "Scripted test model (not a language model)".into(),
            neural: false,
            context_tokens: self.context_tokens,
        }
    }

    fn count_tokens(&self, text: &str) -> usize {
        word_deltas(text).len()
    }

    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, LlmError> {
        let mut reply = self.reply_for(&request);
        if let Some(prefix) = &request.prefill {
            // Continue: only what follows the prefix is new.
            reply = reply
                .strip_prefix(prefix.as_str())
                .map(str::to_owned)
                .unwrap_or_else(|| " And more.".to_owned());
        }
        let deltas: Vec<String> = word_deltas(&reply)
            .into_iter()
            .take(request.max_tokens as usize)
            .collect();
        let interval = self.interval;
        let stream = futures_util::stream::iter(deltas).then(move |d| async move {
            if !interval.is_zero() {
                tokio::time::sleep(interval).await;
            }
            Ok::<String, LlmError>(d)
        });
        Ok(Box::pin(stream))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{complete, ChatMessage};

    #[tokio::test]
    async fn replies_by_script_and_echoes_otherwise() {
        let m = ScriptedModel::new(Duration::ZERO).with_reply("hello", "Hi there, traveller.");
        let mut req = ChatRequest {
            messages: vec![ChatMessage::user("well hello")],
            ..ChatRequest::default()
        };
        assert_eq!(
            complete(&m, req.clone()).await.unwrap(),
            "Hi there, traveller."
        );
        req.messages = vec![ChatMessage::user("what")];
        assert_eq!(complete(&m, req).await.unwrap(), "You said: what");
    }

    #[tokio::test]
    async fn deltas_keep_spaces_and_respect_max_tokens() {
        assert_eq!(word_deltas("a bc  d"), vec!["a", " bc", "  d"]);
        let m = ScriptedModel::new(Duration::ZERO).with_reply("x", "one two three four");
        let req = ChatRequest {
            messages: vec![ChatMessage::user("x")],
            max_tokens: 2,
            ..ChatRequest::default()
        };
        assert_eq!(complete(&m, req).await.unwrap(), "one two");
    }

    #[tokio::test]
    async fn continue_yields_only_the_rest() {
        let m = ScriptedModel::new(Duration::ZERO).with_reply("x", "one two three");
        let req = ChatRequest {
            messages: vec![ChatMessage::user("x")],
            prefill: Some("one two".into()),
            ..ChatRequest::default()
        };
        assert_eq!(complete(&m, req).await.unwrap(), " three");
    }
}
