//! The operator's audio settings (`[audio]` in the settings file, and the
//! `EASEL_TTS_*`, `EASEL_VOICE_*`, `EASEL_SOUNDFONT` variables read by
//! `infra::config`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct AudioConfig {
    /// An OpenAI-compatible speech server (`POST {url}/audio/speech`).
    pub tts_url: Option<String>,
    pub tts_api_key: Option<String>,
    pub tts_model: Option<String>,
    /// The neural voice worker's Python (a venv with its pinned packages);
    /// `None` = look for `.venv-voice/bin/python` beside the binary's data.
    pub voice_python: Option<PathBuf>,
    /// The remote speech server's default voice (`alloy` when unset).
    pub tts_voice: Option<String>,
    /// Turns the Piper joe voice off (`EASEL_VOICE_PIPER=0`): its model is
    /// fine-tuned from lessac, whose dataset carries non-commercial terms.
    pub disable_piper: bool,
    /// The SoundFont music is rendered with; `None` = Debian's FluidR3 GM.
    pub soundfont: Option<PathBuf>,
}
