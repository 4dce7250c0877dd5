//! An OpenAI-compatible speech server (`POST {url}/audio/speech`): asks for
//! WAV, speed as `speed`, the emotion as `instructions`; its errors
//! (`{"error":{"message"}}`, 401, timeouts, a body that is not audio) become
//! [`AudioError`]s. The API key is sent as a bearer token and never logged.

use std::time::Duration;

use engines::Cancel;
use serde_json::json;

use super::{Speech, SpeechRequest};
use crate::{AudioError, Pcm};

/// The engine's human label.
pub const LABEL: &str = "OpenAI-compatible speech server (neural, remote)";

/// Input limit of the documented API.
pub const MAX_INPUT_CHARS: usize = 4096;

/// A configured remote speech server.
#[derive(Clone)]
pub struct RemoteSpeaker {
    url: String,
    api_key: Option<String>,
    model: String,
    /// The voice of requests whose voice names none (`EASEL_TTS_VOICE`).
    default_voice: String,
    client: reqwest::Client,
}

impl std::fmt::Debug for RemoteSpeaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSpeaker")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .finish()
    }
}

impl RemoteSpeaker {
    /// `url` is the API base (`https://api.openai.com/v1`); `model`
    /// defaults to `gpt-4o-mini-tts`.
    pub fn new(
        url: &str,
        api_key: Option<String>,
        model: Option<String>,
        timeout: Duration,
    ) -> Result<RemoteSpeaker, AudioError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| AudioError::Failed(format!("no http client: {e}")))?;
        Ok(RemoteSpeaker {
            url: url.trim_end_matches('/').to_string(),
            api_key: api_key.filter(|k| !k.is_empty()),
            model: model
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "gpt-4o-mini-tts".into()),
            default_voice: "alloy".into(),
            client,
        })
    }

    /// The voice used when a request names none (default `alloy`).
    pub fn with_default_voice(mut self, voice: Option<String>) -> RemoteSpeaker {
        if let Some(v) = voice.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) {
            self.default_voice = v;
        }
        self
    }

    /// The request body for a speech request.
    pub fn body(&self, req: &SpeechRequest) -> serde_json::Value {
        let voice = if req.voice.base.trim().is_empty() {
            self.default_voice.as_str()
        } else {
            req.voice.base.trim()
        };
        let mut body = json!({
            "model": self.model,
            "input": req.text.chars().take(MAX_INPUT_CHARS).collect::<String>(),
            "voice": voice,
            "response_format": "wav",
            "speed": req.speed.clamp(0.25, 4.0),
        });
        if let Some(i) = instructions(&req.emotion) {
            if let Some(o) = body.as_object_mut() {
                o.insert("instructions".into(), json!(i));
            }
        }
        body
    }

    /// Speaks through the server.
    pub async fn speak(&self, req: &SpeechRequest, cancel: &Cancel) -> Result<Speech, AudioError> {
        let body = self.body(req);
        let mut call = self
            .client
            .post(format!("{}/audio/speech", self.url))
            .json(&body);
        if let Some(k) = &self.api_key {
            call = call.bearer_auth(k);
        }
        let send = async {
            let resp = call.send().await.map_err(transport_error)?;
            let status = resp.status();
            let bytes = resp.bytes().await.map_err(transport_error)?;
            Ok::<_, AudioError>((status, bytes))
        };
        let (status, bytes) = tokio::select! {
            r = send => r?,
            _ = wait_cancel(cancel) => return Err(AudioError::Cancelled),
        };
        if !status.is_success() {
            let msg = serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .and_then(|v| {
                    v.pointer("/error/message")
                        .and_then(|m| m.as_str())
                        .map(str::to_string)
                })
                .unwrap_or_else(|| String::from_utf8_lossy(&bytes).chars().take(200).collect());
            let what = format!("the speech server answered {status}: {msg}");
            return Err(match status.as_u16() {
                401 | 403 => AudioError::Unavailable(format!("{what} (check EASEL_TTS_API_KEY)")),
                400 | 404 | 413 | 422 => AudioError::BadInput(what),
                _ => AudioError::Unavailable(what),
            });
        }
        let pcm = parse_wav(&bytes)?;
        Ok(Speech {
            pcm,
            phonemes: Vec::new(),
            engine: "remote".into(),
            neural: true,
            applied: json!({
                "voice": body.get("voice"),
                "speed": "speed",
                "emotion": if instructions(&req.emotion).is_some() { "instructions" } else { "none" },
            }),
        })
    }
}

/// The `instructions` of an emotion (`None` for neutral).
pub fn instructions(emotion: &str) -> Option<String> {
    let e = emotion.trim();
    if e.is_empty() || e.eq_ignore_ascii_case("neutral") {
        return None;
    }
    Some(format!(
        "Speak in a {} tone.",
        e.chars().take(40).collect::<String>()
    ))
}

fn transport_error(e: reqwest::Error) -> AudioError {
    if e.is_timeout() {
        AudioError::Unavailable("the speech server timed out".into())
    } else {
        // Without the URL's query or any header: the key never shows.
        AudioError::Unavailable(format!(
            "the speech server is unreachable: {}",
            e.without_url()
        ))
    }
}

async fn wait_cancel(cancel: &Cancel) {
    while !cancel.is_cancelled() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Reads a WAV body (16-bit or float; streaming servers write a zero or
/// bogus data size, which hound tolerates only when exact, so the samples
/// are read until the body ends).
pub fn parse_wav(bytes: &[u8]) -> Result<Pcm, AudioError> {
    let not_audio = || AudioError::Failed("the speech server's answer is not WAV audio".into());
    if bytes.len() < 44 || bytes.get(..4) != Some(b"RIFF") || bytes.get(8..12) != Some(b"WAVE") {
        return Err(not_audio());
    }
    // Walk the chunks for `fmt ` and `data`.
    let mut pos = 12usize;
    let mut fmt: Option<(u16, u16, u32, u16)> = None;
    while pos + 8 <= bytes.len() {
        let id = bytes.get(pos..pos + 4).ok_or_else(not_audio)?;
        let size = u32::from_le_bytes(
            bytes
                .get(pos + 4..pos + 8)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(not_audio)?,
        ) as usize;
        let body = pos + 8;
        if id == b"fmt " {
            let f: [u8; 16] = bytes
                .get(body..body + 16)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(not_audio)?;
            let u16_at = |i: usize| {
                u16::from_le_bytes([
                    f.get(i).copied().unwrap_or(0),
                    f.get(i + 1).copied().unwrap_or(0),
                ])
            };
            let rate = u32::from_le_bytes([f[4], f[5], f[6], f[7]]);
            fmt = Some((u16_at(0), u16_at(2), rate, u16_at(14)));
        } else if id == b"data" {
            let (format, channels, rate, bits) = fmt.ok_or_else(not_audio)?;
            let end = body.saturating_add(size).min(bytes.len());
            let data = bytes.get(body..end).ok_or_else(not_audio)?;
            let samples: Vec<f32> = match (format, bits) {
                (1, 16) => data
                    .chunks_exact(2)
                    .map(|b| f32::from(b.try_into().map(i16::from_le_bytes).unwrap_or(0)) / 32768.0)
                    .collect(),
                (3, 32) => data
                    .chunks_exact(4)
                    .map(|b| b.try_into().map(f32::from_le_bytes).unwrap_or(0.0))
                    .collect(),
                _ => {
                    return Err(AudioError::Failed(format!(
                        "unsupported WAV encoding (format {format}, {bits} bits)"
                    )))
                }
            };
            if samples.is_empty() || rate == 0 || channels == 0 {
                return Err(not_audio());
            }
            return Ok(Pcm {
                rate,
                channels,
                samples,
            }
            .to_mono());
        }
        pos = body.saturating_add(size + (size & 1));
    }
    Err(not_audio())
}
