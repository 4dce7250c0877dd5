//! Talking pictures: the port through which a remote lip-sync engine makes
//! a still picture speak a given sound ([`TalkingEngine`]), and what it is
//! handed ([`TalkingRequest`]). Lip-sync jobs run in the audio engine (it
//! owns the speaker that turns a text into speech first); when a remote
//! engine is configured (ComfyUI with Wan 2.2 S2V, `EngineKind::Comfyui`'s
//! `s2v`) the audio engine hands it the picture and the speech through this
//! port, so this crate needs nothing of the audio crate.

use std::sync::Arc;

use protocol::task::EngineInfo;

use crate::{Cancel, EngineError, Produced, Progress};

/// A picture to animate with a sound.
#[derive(Debug, Clone)]
pub struct TalkingRequest {
    /// For the server's file names (`easel_<task>_...`).
    pub task_id: String,
    /// The still that speaks: PNG, JPEG or WebP (a video source's first
    /// frame when the user gave a video).
    pub picture: Vec<u8>,
    /// The sound, as a WAV file; it is also the MP4's sound track.
    pub audio_wav: Vec<u8>,
    /// The sound's length in seconds: the video lasts exactly as long.
    pub audio_secs: f64,
    /// What the scene should look like (empty: a neutral talking shot).
    pub prompt: String,
    pub negative_prompt: String,
    pub seed: u64,
}

/// An engine that makes a picture speak.
#[async_trait::async_trait]
pub trait TalkingEngine: Send + Sync + 'static {
    /// Who made the video, for the task's engine note.
    fn info(&self) -> EngineInfo;

    /// Makes the video: answers the MP4 (H.264 + the request's sound as AAC,
    /// both streams as long as the sound, `+faststart`, its HLS package in
    /// `files`) then its poster (PNG), like every video engine.
    async fn talk(
        &self,
        request: TalkingRequest,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<[Produced; 2], EngineError>;
}
