//! What an audio task carries to the workers (`JobSpec::audio`): the
//! normalised request of one audio action, every rule already applied by the
//! server. Engines trust it.

use serde::{Deserialize, Serialize};

/// The normalised request of an audio action (`Action::is_audio`). Inputs
/// (a video, an image, audio clips, voice samples) travel as the job's
/// `inputs` by role; this carries the rest.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct AudioJob {
    /// What to make: a sound's description, a song's style and mood.
    #[serde(default)]
    pub prompt: String,
    /// What to leave out (music and effects engines that take it).
    #[serde(default)]
    pub negative_prompt: String,
    /// A song's lyrics, `[Verse]`/`[Chorus]` lines allowed.
    #[serde(default)]
    pub lyrics: String,
    /// Seconds of audio to make; 0 = as long as the input video or audio.
    #[serde(default)]
    pub duration: f32,
    /// Music: sung vocals (the audio page's `vocalSongs` mode) rather than
    /// an instrumental.
    #[serde(default)]
    pub vocals: bool,
    /// Speech the job speaks (lip-sync from text, vocals' voice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speech: Option<SpeechSpec>,
    /// Voice training: the voice being trained (its id), so the result can
    /// be applied to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timbre_id: Option<String>,
}

/// Text to speak, and how.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SpeechSpec {
    pub text: String,
    pub voice: VoiceSpec,
    /// 1.0 = the voice's own pace (0.5..=2.0).
    #[serde(default = "one")]
    pub speed: f32,
    /// `neutral`, `happy`, `sad`, `angry`, ... (engines apply what they can).
    #[serde(default)]
    pub emotion: String,
}

fn one() -> f32 {
    1.0
}

/// A voice as an engine needs it: which speech engine, its base voice, and
/// the parameters measured or set for this voice.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct VoiceSpec {
    /// `espeak`, `piper`, `kokoro` or `remote`.
    pub engine: String,
    /// The engine's own voice name (`en-us+f3`, `joe`, `jf_alpha`, `alloy`).
    pub base: String,
    /// Language code of spec 3 §3 (`en`, `ja`, `zh-cn`, ...).
    #[serde(default)]
    pub language: String,
    /// Engine parameters (pitch, range, rate, shift...), as JSON so voices
    /// of every engine fit; `timbre` names the fields.
    #[serde(default)]
    pub params: serde_json::Value,
}

/// Credits an audio job costs (a documented table, like `video::cost`):
/// sound effect 1 + 1 per started 10 s; music and soundtracks 2 + 1 per
/// started 15 s, 2 more with sung vocals; lip-sync 4 + 1 per started 5 s;
/// a voice training 5. `duration` 0 (fit the input) counts as 10 s.
pub fn audio_cost(action: crate::task::Action, job: &AudioJob) -> i64 {
    use crate::task::Action as A;
    let secs = if job.duration > 0.0 {
        f64::from(job.duration)
    } else {
        10.0
    };
    let per = |base: i64, each: f64| base + (secs / each).ceil() as i64;
    match action {
        A::TextToAudioEffect => per(1, 10.0),
        A::TextToMusic | A::VideoToAudio | A::VideoAddMusic => {
            per(2, 15.0) + if job.vocals { 2 } else { 0 }
        }
        A::AudioToLipVideo => per(4, 5.0),
        A::TimbreTrain => 5,
        _ => 1,
    }
}

/// Seconds an audio job is expected to take on a worker: 2 s plus half its
/// length (lip-sync: its length, frames are drawn one by one).
pub fn audio_estimate_secs(action: crate::task::Action, job: &AudioJob) -> u32 {
    let secs = if job.duration > 0.0 {
        job.duration
    } else {
        10.0
    };
    let f = if action == crate::task::Action::AudioToLipVideo {
        1.0
    } else {
        0.5
    };
    (2.0 + secs * f).ceil().max(1.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Action;

    #[test]
    fn costs_follow_the_table() {
        let j = |duration: f32, vocals: bool| AudioJob {
            duration,
            vocals,
            ..AudioJob::default()
        };
        let table = [
            (Action::TextToAudioEffect, j(5.0, false), 2),
            (Action::TextToAudioEffect, j(25.0, false), 4),
            (Action::TextToMusic, j(30.0, false), 4),
            (Action::TextToMusic, j(30.0, true), 6),
            (Action::VideoToAudio, j(0.0, false), 3),
            (Action::AudioToLipVideo, j(12.0, false), 7),
            (Action::TimbreTrain, j(0.0, false), 5),
        ];
        for (a, job, want) in table {
            assert_eq!(audio_cost(a, &job), want, "{a:?} {job:?}");
        }
        assert_eq!(
            audio_estimate_secs(Action::TextToMusic, &j(30.0, false)),
            17
        );
        assert_eq!(
            audio_estimate_secs(Action::AudioToLipVideo, &j(5.0, false)),
            7
        );
    }
}
