//! The audio settings from the environment: `EASEL_TTS_URL`,
//! `EASEL_TTS_API_KEY`, `EASEL_TTS_MODEL`, `EASEL_TTS_VOICE` (an OpenAI-compatible
//! speech server), `EASEL_VOICE_PIPER=0` (no Piper joe voice), `EASEL_VOICE_PYTHON` (the neural voice worker's Python),
//! `EASEL_SOUNDFONT` (the SoundFont music is rendered with). An empty value
//! unsets.

use std::path::PathBuf;

pub(super) fn apply(a: &mut audio::AudioConfig, env: &impl Fn(&str) -> Option<String>) {
    let text = |name: &str, slot: &mut Option<String>| {
        if let Some(v) = env(name) {
            *slot = Some(v.trim().to_owned()).filter(|v| !v.is_empty());
        }
    };
    text("EASEL_TTS_URL", &mut a.tts_url);
    text("EASEL_TTS_API_KEY", &mut a.tts_api_key);
    text("EASEL_TTS_MODEL", &mut a.tts_model);
    text("EASEL_TTS_VOICE", &mut a.tts_voice);
    if let Some(v) = env("EASEL_VOICE_PIPER") {
        a.disable_piper = matches!(v.trim(), "0" | "false" | "off" | "no");
    }
    let path = |name: &str, slot: &mut Option<PathBuf>| {
        if let Some(v) = env(name) {
            *slot = Some(v.trim().to_owned())
                .filter(|v| !v.is_empty())
                .map(PathBuf::from);
        }
    };
    path("EASEL_VOICE_PYTHON", &mut a.voice_python);
    path("EASEL_SOUNDFONT", &mut a.soundfont);
}
