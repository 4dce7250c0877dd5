//! Wire types of the generation agent (spec 3 §7 "Gen-agent") and of prompt
//! polish (spec 1 §4, §7, spec 3 §7 "Prompt polish"): request bodies, list
//! items and the `data` of their Server-Sent Events. Both streams send one
//! JSON envelope (`{status, data}`, see [`crate::Envelope`]) per event.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Status code of a polish event carrying a fragment of the polished prompt.
pub const POLISH_FRAGMENT_CODE: i32 = 70005;
/// How long the client waits before retrying a failed agent stream (spec 3 §9).
pub const AGENT_RETRY_DELAY_MS: u64 = 1000;
/// How many times the client retries a failed agent stream (spec 3 §9).
pub const AGENT_MAX_RETRIES: u32 = 3;
/// `safe_scene` the spec's client sends with every agent stream.
pub const AGENT_SAFE_SCENE: i64 = 52;

/// `data` of every prompt-polish event: a fragment (code 70005), the whole
/// polished prompt (10000) or empty (errors).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolishData {
    pub prompt: String,
}

/// `/api/v1/task/gen-agent/conv/create`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConvCreateRequest {
    /// Free-form kind from the client (`image`, `video`...); kept and echoed.
    pub conv_type: Option<Value>,
    pub title: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvCreated {
    pub conv_id: String,
}

/// `/conv/history`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvRef {
    pub conv_id: String,
}

/// Who wrote an agent message.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentRole {
    User,
    Assistant,
}

/// What a message part holds.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentType {
    #[default]
    Text,
    Image,
}

/// `content` of a history item (spec 2 §3: "History items carry msg_id,
/// role, content.parts").
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageContent {
    pub parts: Vec<String>,
}

/// Where an assistant message stands; user messages are always `done`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentMessageState {
    Streaming,
    Done,
    /// The client went away mid-reply; the text so far is kept.
    Cancelled,
    Failed,
}

/// One item of `/conv/history`, oldest first.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentMessageView {
    pub msg_id: String,
    pub parent_msg_id: Option<String>,
    pub role: AgentRole,
    pub content: MessageContent,
    pub content_type: ContentType,
    pub image_url: Option<String>,
    /// Milliseconds since the epoch.
    pub create_at: i64,
    pub state: AgentMessageState,
}

/// One item of `/convs`, newest first.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvView {
    pub conv_id: String,
    pub title: String,
    pub conv_type: Option<Value>,
    pub create_at: i64,
    pub update_at: i64,
}

/// `{items}` of the list calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Items<T> {
    pub items: Vec<T>,
}
#[cfg(feature = "openapi")]
list_schema!(Items);

/// One starter template of `/prompt/preset-template`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresetTemplate {
    pub id: String,
    pub title: String,
    pub prompt: String,
}

/// The model answering, as the UI shows it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentModel {
    pub name: String,
    pub label: String,
    /// False only for the scripted test model.
    pub neural: bool,
    pub context_tokens: u32,
}

/// `/config`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentConfig {
    pub retry_delay_ms: u64,
    pub max_retries: u32,
    pub model: AgentModel,
}

/// One message the client sends in a stream request.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct InMessage {
    /// Only `user` is accepted from clients; kept for the spec's shape.
    pub role: Option<String>,
    pub content_type: ContentType,
    pub parts: Vec<String>,
    /// For image parts: a `/files/` URL of this server.
    pub image_url: Option<String>,
}

/// `biz_param` of a stream request: what the generator is set to, so the
/// proposed prompt suits it. Numbers or strings are accepted for each field.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BizParam {
    pub curr_base_model_name: Option<String>,
    pub duration: Option<Value>,
    pub task_type: Option<Value>,
    pub conv_type: Option<Value>,
}

/// Body of `POST /api/stream/task/gen-agent/conv`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentStreamRequest {
    pub conv_id: String,
    /// The message this turn answers; `None` continues after the newest one.
    pub parent_msg_id: Option<String>,
    /// The client's segment id, echoed back in every event.
    pub seg_id: Option<Value>,
    /// Forget the earlier turns of the conversation for this answer.
    pub start_new_topic: bool,
    pub messages: Vec<InMessage>,
    pub biz_param: BizParam,
    pub safe_scene: Option<i64>,
}

/// `data` of every agent stream event.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentStreamData {
    pub conv_id: String,
    /// The assistant message being written.
    pub msg_id: String,
    /// The stored user message this answer replies to.
    pub user_msg_id: String,
    pub seg_id: Option<Value>,
    /// New text; `""` on the last event.
    pub delta: String,
    pub done: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_request_accepts_the_spec_body() {
        let body = r#"{"conv_id":"c","parent_msg_id":null,"seg_id":"s1","start_new_topic":false,
            "messages":[{"role":"user","content_type":"text","parts":["a cat"],"image_url":""}],
            "biz_param":{"curr_base_model_name":"sdxl","duration":5,"task_type":"txt2img","conv_type":1},
            "safe_scene":52}"#;
        let r: AgentStreamRequest = serde_json::from_str(body).unwrap_or_default();
        assert_eq!(r.conv_id, "c");
        assert_eq!(
            r.messages.first().map(|m| m.parts.clone()),
            Some(vec!["a cat".to_owned()])
        );
        assert_eq!(r.biz_param.curr_base_model_name.as_deref(), Some("sdxl"));
        assert_eq!(r.safe_scene, Some(AGENT_SAFE_SCENE));
    }

    #[test]
    fn history_item_shape_is_pinned() {
        let v = AgentMessageView {
            msg_id: "m".into(),
            parent_msg_id: None,
            role: AgentRole::Assistant,
            content: MessageContent {
                parts: vec!["hi".into()],
            },
            content_type: ContentType::Text,
            image_url: None,
            create_at: 1,
            state: AgentMessageState::Done,
        };
        assert_eq!(
            serde_json::to_string(&v).unwrap_or_default(),
            r#"{"msg_id":"m","parent_msg_id":null,"role":"assistant","content":{"parts":["hi"]},"content_type":"text","image_url":null,"create_at":1,"state":"done"}"#
        );
    }
}
