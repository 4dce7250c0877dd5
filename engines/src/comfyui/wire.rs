//! ComfyUI's HTTP answers as types (`/upload/image`, `/prompt`,
//! `/history`) and the mapping of its failures onto [`EngineError`]s.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::EngineError;

#[derive(Deserialize)]
pub(crate) struct Uploaded {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) subfolder: String,
}

#[derive(Deserialize)]
pub(crate) struct Queued {
    pub(crate) prompt_id: String,
}

#[derive(Deserialize)]
pub(crate) struct HistoryEntry {
    #[serde(default)]
    pub(crate) outputs: HashMap<String, NodeOutput>,
    #[serde(default)]
    pub(crate) status: Option<HistoryStatus>,
}

#[derive(Deserialize)]
pub(crate) struct HistoryStatus {
    #[serde(default)]
    pub(crate) status_str: String,
}

/// One output node's saved files (sound files under `audio`). Video nodes (`SaveWEBM`, `SaveVideo`,
/// `SaveAnimatedWEBP`) list their file under `images` with `animated:
/// [true]` (ComfyUI's `PreviewVideo` UI output); the VideoHelperSuite's
/// `VHS_VideoCombine` under `gifs`.
#[derive(Deserialize)]
pub(crate) struct NodeOutput {
    #[serde(default)]
    pub(crate) images: Vec<ImageRef>,
    #[serde(default)]
    pub(crate) animated: Vec<bool>,
    #[serde(default)]
    pub(crate) gifs: Vec<ImageRef>,
    /// `SaveAudio` (and its MP3 and Opus twins) list their files here.
    #[serde(default)]
    pub(crate) audio: Vec<ImageRef>,
}

impl NodeOutput {
    /// The node's files, each with whether it is a video (or animation).
    pub(crate) fn saved(self) -> impl Iterator<Item = Saved> {
        let animated = self.animated.iter().any(|a| *a);
        self.images
            .into_iter()
            .map(move |file| Saved {
                animated: animated || is_video_name(&file.filename),
                audio: false,
                file,
            })
            .chain(self.gifs.into_iter().map(|file| Saved {
                file,
                animated: true,
                audio: false,
            }))
            .chain(self.audio.into_iter().map(|file| Saved {
                file,
                animated: false,
                audio: true,
            }))
    }
}

/// A file a prompt saved.
#[derive(Debug)]
pub(crate) struct Saved {
    pub(crate) file: ImageRef,
    /// A video or an animation rather than a still image.
    pub(crate) animated: bool,
    /// A sound file.
    pub(crate) audio: bool,
}

fn is_video_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".webm", ".mp4", ".mov", ".mkv"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// One saved image, as `/history` lists it and `/view` takes it.
#[derive(Debug, Deserialize)]
pub(crate) struct ImageRef {
    pub(crate) filename: String,
    #[serde(default)]
    pub(crate) subfolder: String,
    /// `output`, `temp` or `input`.
    #[serde(rename = "type", default = "output_kind")]
    pub(crate) kind: String,
}

pub(crate) fn output_kind() -> String {
    "output".into()
}

/// A failed exchange before any answer: the server is down or unreachable.
pub(crate) fn transport(what: &str, e: &reqwest::Error) -> EngineError {
    EngineError::Unavailable(format!("ComfyUI {what}: {e}"))
}

/// 5xx and 429 are the server's trouble (retryable); other non-2xx answers
/// are ours (not retryable).
pub(crate) async fn check(
    what: &str,
    resp: reqwest::Response,
) -> Result<reqwest::Response, EngineError> {
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    let body = resp.text().await.unwrap_or_default();
    let body: String = body.chars().take(300).collect();
    let msg = format!("ComfyUI {what}: HTTP {status}: {body}");
    if status.is_server_error() || status.as_u16() == 429 {
        Err(EngineError::Unavailable(msg))
    } else {
        Err(EngineError::Failed(msg))
    }
}

/// The message of a `/prompt` rejection: its `error` and each node's errors.
pub(crate) fn rejection(body: &Value) -> String {
    let error = &body["error"];
    let mut msg = match error {
        Value::String(s) => s.clone(),
        _ => error["message"]
            .as_str()
            .unwrap_or("ComfyUI rejected the workflow")
            .to_string(),
    };
    if let Some(details) = error["details"].as_str().filter(|d| !d.is_empty()) {
        msg.push_str(": ");
        msg.push_str(details);
    }
    if let Some(nodes) = body["node_errors"].as_object() {
        for (id, node) in nodes {
            let class = node["class_type"].as_str().unwrap_or("?");
            for err in node["errors"].as_array().into_iter().flatten() {
                msg.push_str(&format!(
                    "; node {id} ({class}): {}",
                    err["message"].as_str().unwrap_or("error")
                ));
                if let Some(d) = err["details"].as_str().filter(|d| !d.is_empty()) {
                    msg.push_str(&format!(" ({d})"));
                }
            }
        }
    }
    msg
}
