//! Lip-sync's rules (spec 2 §3 lipSyncParams, §7 `audio-to-lip-video`):
//! the request's `meta`, its tab (`lipSyncText` speaks text with a voice,
//! `lipSyncAudio` uses an uploaded clip), which source (video, picture or
//! an earlier task) and which drive each tab needs, and the limits of text
//! and audio. Pure, table-tested; the route resolves the URLs.

use serde::{Deserialize, Serialize};

use crate::ErrorCode;

/// Characters of text one lip-sync may speak (like `timbre/tts`).
pub const MAX_TEXT_CHARS: usize = 1000;
/// Seconds of audio one lip-sync may animate.
pub const MAX_AUDIO_SECS: f64 = 60.0;
/// Speech speed bounds (1 = the voice's own pace).
pub const MIN_SPEED: f32 = 0.5;
pub const MAX_SPEED: f32 = 2.0;
/// Frames per second of a lip-sync video made from a still picture.
pub const STILL_FPS: u32 = 25;

/// The `meta` of `task/v2/audio/audio-to-lip-video`. Empty strings count as
/// absent (the web form sends every field).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct LipSyncMeta {
    pub video_url: Option<String>,
    pub image_url: Option<String>,
    pub parent_task_id: Option<String>,
    /// `lipSyncText` (default) or `lipSyncAudio`.
    pub lip_sync_tab: Option<String>,
    pub text: Option<String>,
    pub timbre_id: Option<String>,
    pub speed: Option<f32>,
    pub emotion: Option<String>,
    pub audio_url: Option<String>,
}

/// Which of the two tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LipSyncTab {
    Text,
    Audio,
}

impl LipSyncTab {
    /// The tab of a wire value; absent = `lipSyncText` (spec 2 §3).
    pub fn parse(s: Option<&str>) -> Result<LipSyncTab, ErrorCode> {
        match s.map(str::trim).filter(|s| !s.is_empty()) {
            None | Some("lipSyncText") => Ok(LipSyncTab::Text),
            Some("lipSyncAudio") => Ok(LipSyncTab::Audio),
            Some(_) => Err(ErrorCode::InvalidParams),
        }
    }

    pub const fn wire(self) -> &'static str {
        match self {
            LipSyncTab::Text => "lipSyncText",
            LipSyncTab::Audio => "lipSyncAudio",
        }
    }
}

/// The picture that speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LipSource {
    /// An uploaded video (`/files/...`).
    Video(String),
    /// An uploaded still picture, looped for the audio's length.
    Image(String),
    /// The requester's earlier task: its video, else its first picture.
    Task(String),
}

/// What drives the mouth.
#[derive(Debug, Clone, PartialEq)]
pub enum LipDrive {
    /// Text spoken by a voice (`None` = the default voice).
    Speech {
        text: String,
        timbre_id: Option<String>,
        speed: f32,
        emotion: String,
    },
    /// An uploaded audio clip (`/files/...`).
    Audio(String),
}

/// A checked request.
#[derive(Debug, Clone, PartialEq)]
pub struct LipSyncPlan {
    pub tab: LipSyncTab,
    pub source: LipSource,
    pub drive: LipDrive,
}

fn given(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Checks speech text: present, at most [`MAX_TEXT_CHARS`] characters.
pub fn check_text(text: &str) -> Result<String, ErrorCode> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ErrorCode::AudioTextEmpty);
    }
    if t.chars().count() > MAX_TEXT_CHARS {
        return Err(ErrorCode::AudioTextTooLong);
    }
    Ok(t.to_owned())
}

/// Checks an audio clip's length in seconds (0 or not finite = unreadable).
pub fn check_audio_secs(secs: f64) -> Result<(), ErrorCode> {
    if !secs.is_finite() || secs <= 0.0 {
        return Err(ErrorCode::UploadAudioError);
    }
    if secs > MAX_AUDIO_SECS {
        return Err(ErrorCode::AudioTooLong);
    }
    Ok(())
}

/// Applies the rules: exactly one source (else `pleaseSelectVideo`, or
/// `InvalidParams` for two), and the drive its tab needs (`lipSyncText`:
/// text of 1..=1000 characters, speed 0.5..=2; `lipSyncAudio`: an audio
/// URL, else `pleaseUploadAudio`). Fields of the other tab are ignored.
pub fn plan(meta: &LipSyncMeta) -> Result<LipSyncPlan, ErrorCode> {
    let tab = LipSyncTab::parse(meta.lip_sync_tab.as_deref())?;
    let sources: Vec<LipSource> = [
        given(&meta.video_url).map(LipSource::Video),
        given(&meta.image_url).map(LipSource::Image),
        given(&meta.parent_task_id).map(LipSource::Task),
    ]
    .into_iter()
    .flatten()
    .collect();
    let source = match sources.as_slice() {
        [] => return Err(ErrorCode::PleaseSelectVideo),
        [one] => one.clone(),
        _ => return Err(ErrorCode::InvalidParams),
    };
    let drive = match tab {
        LipSyncTab::Text => {
            let text = check_text(meta.text.as_deref().unwrap_or(""))?;
            let speed = meta.speed.unwrap_or(1.0);
            if !speed.is_finite() || !(MIN_SPEED..=MAX_SPEED).contains(&speed) {
                return Err(ErrorCode::InvalidParams);
            }
            LipDrive::Speech {
                text,
                timbre_id: given(&meta.timbre_id),
                speed,
                emotion: given(&meta.emotion).unwrap_or_else(|| "neutral".into()),
            }
        }
        LipSyncTab::Audio => {
            LipDrive::Audio(given(&meta.audio_url).ok_or(ErrorCode::PleaseUploadAudio)?)
        }
    };
    Ok(LipSyncPlan { tab, source, drive })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(f: impl FnOnce(&mut LipSyncMeta)) -> LipSyncMeta {
        let mut m = LipSyncMeta {
            video_url: Some("/files/u/a/v.mp4".into()),
            text: Some("Hello there".into()),
            ..LipSyncMeta::default()
        };
        f(&mut m);
        m
    }

    #[test]
    fn tabs_sources_and_drives() {
        let long = "a".repeat(MAX_TEXT_CHARS + 1);
        let max = "é".repeat(MAX_TEXT_CHARS);
        type Want = Result<(LipSyncTab, LipSource), ErrorCode>;
        let cases: Vec<(LipSyncMeta, Want)> = vec![
            (
                meta(|_| {}),
                Ok((
                    LipSyncTab::Text,
                    LipSource::Video("/files/u/a/v.mp4".into()),
                )),
            ),
            (
                meta(|m| {
                    m.video_url = Some(" ".into());
                    m.image_url = Some("/files/u/a/i.png".into());
                }),
                Ok((
                    LipSyncTab::Text,
                    LipSource::Image("/files/u/a/i.png".into()),
                )),
            ),
            (
                meta(|m| {
                    m.video_url = None;
                    m.parent_task_id = Some("t1".into());
                }),
                Ok((LipSyncTab::Text, LipSource::Task("t1".into()))),
            ),
            (
                meta(|m| m.video_url = None),
                Err(ErrorCode::PleaseSelectVideo),
            ),
            (
                meta(|m| m.image_url = Some("/files/u/a/i.png".into())),
                Err(ErrorCode::InvalidParams),
            ),
            (
                meta(|m| m.lip_sync_tab = Some("lipSyncVideo".into())),
                Err(ErrorCode::InvalidParams),
            ),
            (meta(|m| m.text = None), Err(ErrorCode::AudioTextEmpty)),
            (
                meta(|m| m.text = Some("  \n ".into())),
                Err(ErrorCode::AudioTextEmpty),
            ),
            (
                meta(|m| m.text = Some(long.clone())),
                Err(ErrorCode::AudioTextTooLong),
            ),
            (
                meta(|m| m.text = Some(max.clone())),
                Ok((
                    LipSyncTab::Text,
                    LipSource::Video("/files/u/a/v.mp4".into()),
                )),
            ),
            (meta(|m| m.speed = Some(2.5)), Err(ErrorCode::InvalidParams)),
            (meta(|m| m.speed = Some(0.4)), Err(ErrorCode::InvalidParams)),
            (
                meta(|m| m.speed = Some(f32::NAN)),
                Err(ErrorCode::InvalidParams),
            ),
            (
                meta(|m| m.lip_sync_tab = Some("lipSyncAudio".into())),
                Err(ErrorCode::PleaseUploadAudio),
            ),
            (
                meta(|m| {
                    m.lip_sync_tab = Some("lipSyncAudio".into());
                    m.text = None;
                    m.audio_url = Some("/files/u/b/a.m4a".into());
                }),
                Ok((
                    LipSyncTab::Audio,
                    LipSource::Video("/files/u/a/v.mp4".into()),
                )),
            ),
        ];
        for (m, want) in cases {
            let got = plan(&m).map(|p| (p.tab, p.source));
            assert_eq!(got, want, "{m:?}");
        }
    }

    #[test]
    fn the_text_tab_defaults_to_the_default_voice_at_its_pace() {
        let p = plan(&meta(|m| m.text = Some("  Hi  ".into()))).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            p.drive,
            LipDrive::Speech {
                text: "Hi".into(),
                timbre_id: None,
                speed: 1.0,
                emotion: "neutral".into()
            }
        );
        let p = plan(&meta(|m| {
            m.lip_sync_tab = Some("lipSyncAudio".into());
            m.audio_url = Some("/files/u/b/a.m4a".into());
        }))
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(p.drive, LipDrive::Audio("/files/u/b/a.m4a".into()));
    }

    #[test]
    fn audio_length_limits() {
        let cases = [
            (0.0, Err(ErrorCode::UploadAudioError)),
            (f64::NAN, Err(ErrorCode::UploadAudioError)),
            (0.5, Ok(())),
            (60.0, Ok(())),
            (60.01, Err(ErrorCode::AudioTooLong)),
        ];
        for (secs, want) in cases {
            assert_eq!(check_audio_secs(secs), want, "{secs}");
        }
        assert_eq!(LipSyncTab::parse(None), Ok(LipSyncTab::Text));
        assert_eq!(LipSyncTab::Audio.wire(), "lipSyncAudio");
    }
}
