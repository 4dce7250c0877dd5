//! Speech encoded for the voice calls and chat: [`speak_m4a`] speaks in a
//! voice and encodes AAC in M4A within [`super::TTS_DEADLINE`].

use audio::speech::{Speaker, SpeechRequest};
use engines::Cancel;
use protocol::audio::VoiceSpec;
use protocol::ErrorCode;

use super::{invalid, TTS_DEADLINE};
use crate::error::ApiError;

/// Speech encoded: M4A bytes, seconds, the engine, what it applied.
pub struct Spoken {
    pub bytes: Vec<u8>,
    pub duration: f64,
    pub engine: String,
    pub applied: serde_json::Value,
}

/// Speaks and encodes within [`TTS_DEADLINE`].
pub async fn speak_m4a(
    speaker: &dyn Speaker,
    text: &str,
    voice: VoiceSpec,
    speed: f32,
    emotion: &str,
) -> Result<Spoken, ApiError> {
    let cancel = Cancel::new();
    let req = SpeechRequest {
        text: text.into(),
        voice,
        speed,
        emotion: emotion.into(),
    };
    let work = async {
        let speech = speaker
            .speak(req, cancel.clone())
            .await
            .map_err(speech_error)?;
        let c = cancel.clone();
        let pcm = speech.pcm.clone();
        let bytes = tokio::task::spawn_blocking(move || {
            audio::ffmpeg::encode(&pcm, audio::ffmpeg::Format::M4a, &c)
        })
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(speech_error)?;
        Ok::<_, ApiError>(Spoken {
            bytes,
            duration: speech.pcm.duration(),
            engine: speech.engine,
            applied: speech.applied,
        })
    };
    match tokio::time::timeout(TTS_DEADLINE, work).await {
        Ok(r) => r,
        Err(_) => {
            cancel.cancel();
            Err(ErrorCode::SpeechTimeout.into())
        }
    }
}

fn speech_error(e: audio::AudioError) -> ApiError {
    match e {
        audio::AudioError::Unavailable(m) => ApiError::with_msg(ErrorCode::SpeechUnavailable, m),
        audio::AudioError::BadInput(m) => invalid(m),
        audio::AudioError::Cancelled => ErrorCode::SpeechTimeout.into(),
        audio::AudioError::Failed(m) => ApiError::internal(m),
    }
}
