//! Music, sound effects, soundtracks and lyrics (spec 2 §7, §9): the
//! request bodies of `text-to-audio-effect`, `music/text-to-music`,
//! `video-to-audio`, `video-add-music` and `music/generate-lyrics` (lenient:
//! numbers as strings are accepted), their rules (durations, limits,
//! `generate_mode`) and the key each bad input answers, and the cleaning of
//! a language model's lyrics into `[Verse]`/`[Chorus]` sections.

use serde::{Deserialize, Serialize};

use super::job::AudioJob;
use crate::task::request::lenient;
use crate::ErrorCode;

/// Sound effects: 1..=30 s, 5 by default (spec 2 §9).
pub const EFFECT_SECS: (f64, f64, f64) = (1.0, 30.0, 5.0);
/// Songs: 5..=240 s, 30 by default (a 5 s song is not a song).
pub const SONG_SECS: (f64, f64, f64) = (5.0, 240.0, 30.0);
/// Music added to a video: 1..=240 s, 5 by default (spec 2 §9), never
/// longer than the video.
pub const ADD_MUSIC_SECS: (f64, f64, f64) = (1.0, 240.0, 5.0);
/// The longest video a soundtrack is made for (seconds).
pub const MAX_VIDEO_SECS: f64 = 240.0;
/// Characters of a description (prompt, negative prompt).
pub const MAX_PROMPT_CHARS: usize = 1000;
/// Characters of lyrics.
pub const MAX_LYRICS_CHARS: usize = 3000;
/// Characters of a song title.
pub const MAX_TITLE_CHARS: usize = 100;

/// Which audio call a body came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MusicCall {
    /// `text-to-audio-effect`.
    Effect,
    /// `music/text-to-music`.
    Song,
    /// `video-to-audio`: music as long as the video.
    VideoToAudio,
    /// `video-add-music`.
    AddMusic,
}

/// `generate_mode` of a song.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GenerateMode {
    #[serde(rename = "vocalSongs")]
    VocalSongs,
    #[serde(rename = "instrumental")]
    Instrumental,
}

impl GenerateMode {
    pub fn parse(s: &str) -> Option<GenerateMode> {
        match s.trim() {
            "vocalSongs" | "vocal_songs" | "vocal" => Some(GenerateMode::VocalSongs),
            "instrumental" => Some(GenerateMode::Instrumental),
            _ => None,
        }
    }
}

/// The body of every audio create call: `{meta: {...}}` (a
/// `parent_task_id` is also read beside `meta`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MusicRequest {
    #[serde(default)]
    pub meta: MusicMeta,
    #[serde(
        default,
        deserialize_with = "lenient::opt_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_task_id: Option<String>,
}

/// The request's `meta`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MusicMeta {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub prompt: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub negative_prompt: Option<String>,
    /// Seconds.
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub duration: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub lyrics: Option<String>,
    /// `vocalSongs` or `instrumental`.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub generate_mode: Option<String>,
    /// The singing voice (a timbre id); none = the default voice.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub timbre_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub video_url: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub parent_task_id: Option<String>,
}

/// Where a soundtrack's video comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VideoRef {
    /// The caller's earlier task.
    Task(String),
    /// An uploaded file's URL.
    Url(String),
}

/// A checked request: the job (without its voice, which the server
/// resolves from `timbre_id`), and the source video of soundtracks.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedMusic {
    pub job: AudioJob,
    pub timbre_id: Option<String>,
    pub video: Option<VideoRef>,
}

fn trimmed(s: &Option<String>) -> String {
    s.as_deref().map(str::trim).unwrap_or_default().to_owned()
}

/// A duration within `(min, max, default)`; `None` = the default.
pub fn check_duration(
    d: Option<f64>,
    (min, max, default): (f64, f64, f64),
) -> Result<f64, ErrorCode> {
    match d {
        None => Ok(default),
        Some(s) if s.is_finite() && s >= min && s <= max => Ok(s),
        Some(_) => Err(ErrorCode::AudioDurationInvalid),
    }
}

/// Applies the rules of `call` to a request.
pub fn prepare_music(call: MusicCall, req: &MusicRequest) -> Result<PreparedMusic, ErrorCode> {
    let m = &req.meta;
    let prompt = trimmed(&m.prompt);
    let negative = trimmed(&m.negative_prompt);
    let lyrics = m
        .lyrics
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_owned();
    // A soundtrack's description is optional (the video sets the mood);
    // effects and songs need one (a song may be described by its lyrics).
    let prompt_needed = match call {
        MusicCall::Effect | MusicCall::AddMusic => true,
        MusicCall::Song => lyrics.is_empty(),
        MusicCall::VideoToAudio => false,
    };
    if prompt.is_empty() && prompt_needed {
        return Err(ErrorCode::AudioPromptEmpty);
    }
    if prompt.chars().count() > MAX_PROMPT_CHARS || negative.chars().count() > MAX_PROMPT_CHARS {
        return Err(ErrorCode::AudioPromptTooLong);
    }
    let duration = match call {
        MusicCall::Effect => check_duration(m.duration, EFFECT_SECS)?,
        MusicCall::Song => check_duration(m.duration, SONG_SECS)?,
        MusicCall::AddMusic => check_duration(m.duration, ADD_MUSIC_SECS)?,
        MusicCall::VideoToAudio => 0.0,
    };
    let mut vocals = false;
    let mut timbre_id = None;
    if call == MusicCall::Song {
        if lyrics.chars().count() > MAX_LYRICS_CHARS {
            return Err(ErrorCode::LyricsTooLong);
        }
        let mode = match m.generate_mode.as_deref().map(str::trim) {
            None | Some("") => {
                if lyrics.is_empty() {
                    GenerateMode::Instrumental
                } else {
                    GenerateMode::VocalSongs
                }
            }
            Some(s) => GenerateMode::parse(s).ok_or(ErrorCode::InvalidParams)?,
        };
        vocals = mode == GenerateMode::VocalSongs;
        if vocals && !lyrics.chars().any(char::is_alphanumeric) {
            return Err(ErrorCode::LyricsEmpty);
        }
        if vocals {
            timbre_id = m
                .timbre_id
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned);
        }
    }
    let video = match call {
        MusicCall::VideoToAudio | MusicCall::AddMusic => {
            let parent = trimmed(&m.parent_task_id);
            let parent = if parent.is_empty() {
                trimmed(&req.parent_task_id)
            } else {
                parent
            };
            let url = trimmed(&m.video_url);
            Some(if !parent.is_empty() {
                VideoRef::Task(parent)
            } else if !url.is_empty() {
                VideoRef::Url(url)
            } else {
                return Err(ErrorCode::PleaseSelectVideo);
            })
        }
        _ => None,
    };
    Ok(PreparedMusic {
        job: AudioJob {
            prompt,
            negative_prompt: negative,
            // Instrumentals keep no lyrics: nothing is sung or counted.
            lyrics: if call == MusicCall::Song {
                lyrics
            } else {
                String::new()
            },
            duration: duration as f32,
            vocals,
            speech: None,
            timbre_id: timbre_id.clone(),
        },
        timbre_id,
        video,
    })
}

/// `music/generate-lyrics` (and its stream): `{prompt, title?, language?}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LyricsRequest {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub prompt: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub title: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub language: Option<String>,
}

/// A checked lyrics request.
#[derive(Debug, Clone, PartialEq)]
pub struct LyricsBrief {
    pub prompt: String,
    pub title: String,
    /// Spec 3 language code or name; `en` by default.
    pub language: String,
}

/// Checks a lyrics request.
pub fn prepare_lyrics(req: &LyricsRequest) -> Result<LyricsBrief, ErrorCode> {
    let prompt = trimmed(&req.prompt);
    if prompt.is_empty() {
        return Err(ErrorCode::AudioPromptEmpty);
    }
    if prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(ErrorCode::AudioPromptTooLong);
    }
    let title = trimmed(&req.title);
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(ErrorCode::WorkTitleTooLong);
    }
    let language = trimmed(&req.language);
    if language.chars().count() > 32 {
        return Err(ErrorCode::InvalidParams);
    }
    Ok(LyricsBrief {
        prompt,
        title,
        language: if language.is_empty() {
            "en".into()
        } else {
            language
        },
    })
}

/// The instruction given to the language model for `brief`.
pub fn lyrics_instruction(brief: &LyricsBrief) -> String {
    let title = if brief.title.is_empty() {
        "Give the song a short title on the first line as `Title: ...`.".to_owned()
    } else {
        format!("The song is titled \"{}\".", brief.title)
    };
    format!(
        "Write song lyrics in the language `{lang}` about: {prompt}\n{title}\n\
         Use sections labelled exactly [Verse], [Chorus], [Verse], [Chorus] (a [Bridge] is \
         allowed), four short singable lines each, no more than 8 words a line. Write only the \
         title line and the lyrics, no comments.",
        lang = brief.language,
        prompt = brief.prompt,
    )
}

/// Cleans a model's lyrics: the title from a `Title:` line (or `brief`'s,
/// or the first words of the prompt), section labels normalised to
/// `[Verse]`, `[Chorus]`, `[Bridge]`, `[Intro]`, `[Outro]` (`**Chorus:**`,
/// `Verse 1:` and the like), markdown and quotes dropped, blank lines
/// squeezed; a text with no label becomes one `[Verse]`.
pub fn clean_lyrics(raw: &str, brief: &LyricsBrief) -> (String, String) {
    let mut title = brief.title.clone();
    let mut out: Vec<String> = Vec::new();
    for line in raw.lines() {
        let l = line
            .trim()
            .trim_matches(|c: char| c == '*' || c == '#' || c == '_' || c == '"' || c == '`')
            .trim();
        if l.is_empty() {
            if out.last().is_some_and(|p| !p.is_empty()) {
                out.push(String::new());
            }
            continue;
        }
        let lower = l.to_lowercase();
        if let Some(t) = lower.strip_prefix("title:") {
            if title.is_empty() {
                let start = l.len() - t.len();
                title = l
                    .get(start..)
                    .unwrap_or_default()
                    .trim()
                    .trim_matches(|c: char| c == '"' || c == '*')
                    .to_owned();
            }
            continue;
        }
        if let Some(label) = section_label(&lower) {
            if out.last().is_some_and(|p| !p.is_empty()) {
                out.push(String::new());
            }
            out.push(label.to_owned());
            continue;
        }
        out.push(l.to_owned());
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    if !out.iter().any(|l| l.starts_with('[')) && !out.is_empty() {
        out.insert(0, "[Verse]".into());
    }
    if title.is_empty() {
        title = brief
            .prompt
            .split_whitespace()
            .take(5)
            .collect::<Vec<_>>()
            .join(" ");
    }
    let title: String = title.chars().take(MAX_TITLE_CHARS).collect();
    let lyrics: String = out.join("\n").chars().take(MAX_LYRICS_CHARS).collect();
    (title, lyrics)
}

/// `[Verse]` for `verse 1:`, `[verse]`, `(Chorus)`...; `None` for a lyric.
fn section_label(lower: &str) -> Option<&'static str> {
    let core = lower
        .trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')' | ':' | '*' | ' '))
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let core = core.trim_end_matches(':').trim();
    match core {
        "verse" => Some("[Verse]"),
        "chorus" | "refrain" | "hook" => Some("[Chorus]"),
        "pre-chorus" | "prechorus" => Some("[Pre-Chorus]"),
        "bridge" => Some("[Bridge]"),
        "intro" => Some("[Intro]"),
        "outro" => Some("[Outro]"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn req(v: serde_json::Value) -> MusicRequest {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn durations_defaults_and_keys() {
        use serde_json::json;
        let table = [
            (
                MusicCall::Effect,
                json!({"meta": {"prompt": "rain"}}),
                Ok(5.0),
            ),
            (
                MusicCall::Effect,
                json!({"meta": {"prompt": "rain", "duration": "12"}}),
                Ok(12.0),
            ),
            (
                MusicCall::Effect,
                json!({"meta": {"prompt": "rain", "duration": 31}}),
                Err(ErrorCode::AudioDurationInvalid),
            ),
            (
                MusicCall::Effect,
                json!({"meta": {"prompt": "rain", "duration": 0.5}}),
                Err(ErrorCode::AudioDurationInvalid),
            ),
            (
                MusicCall::Effect,
                json!({"meta": {"prompt": "  "}}),
                Err(ErrorCode::AudioPromptEmpty),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "pop"}}),
                Ok(30.0),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "pop", "duration": 240}}),
                Ok(240.0),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "pop", "duration": 4}}),
                Err(ErrorCode::AudioDurationInvalid),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "pop", "duration": 241}}),
                Err(ErrorCode::AudioDurationInvalid),
            ),
            (
                MusicCall::Song,
                json!({"meta": {}}),
                Err(ErrorCode::AudioPromptEmpty),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"lyrics": "la la la"}}),
                Ok(30.0),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "pop", "generate_mode": "vocalSongs"}}),
                Err(ErrorCode::LyricsEmpty),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "pop", "generate_mode": "opera"}}),
                Err(ErrorCode::InvalidParams),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "x".repeat(1001)}}),
                Err(ErrorCode::AudioPromptTooLong),
            ),
            (
                MusicCall::Song,
                json!({"meta": {"prompt": "pop", "lyrics": "a ".repeat(1501)}}),
                Err(ErrorCode::LyricsTooLong),
            ),
            (
                MusicCall::AddMusic,
                json!({"meta": {"prompt": "calm", "video_url": "/files/a.mp4"}}),
                Ok(5.0),
            ),
            (
                MusicCall::AddMusic,
                json!({"meta": {"prompt": "calm"}}),
                Err(ErrorCode::PleaseSelectVideo),
            ),
            (
                MusicCall::VideoToAudio,
                json!({"meta": {"parent_task_id": "t1"}}),
                Ok(0.0),
            ),
            (
                MusicCall::VideoToAudio,
                json!({"parent_task_id": "t1", "meta": {"duration": 9999}}),
                Ok(0.0),
            ),
        ];
        for (call, body, want) in table {
            let got = prepare_music(call, &req(body.clone())).map(|p| f64::from(p.job.duration));
            assert_eq!(got, want, "{call:?} {body}");
        }
    }

    #[test]
    fn modes_voices_and_sources() {
        use serde_json::json;
        let p = prepare_music(
            MusicCall::Song,
            &req(json!({"meta": {"prompt": "pop", "lyrics": "[Verse]\nhello", "timbre_id": "v1"}})),
        )
        .unwrap();
        assert!(p.job.vocals);
        assert_eq!(p.timbre_id.as_deref(), Some("v1"));
        let p = prepare_music(
            MusicCall::Song,
            &req(json!({"meta": {"prompt": "pop", "lyrics": "hello", "generate_mode": "instrumental", "timbre_id": "v1"}})),
        )
        .unwrap();
        assert!(!p.job.vocals);
        assert_eq!(p.timbre_id, None);
        let p = prepare_music(
            MusicCall::VideoToAudio,
            &req(json!({"meta": {"video_url": "/files/v.mp4", "parent_task_id": "t9"}})),
        )
        .unwrap();
        assert_eq!(p.video, Some(VideoRef::Task("t9".into())));
        let p = prepare_music(
            MusicCall::AddMusic,
            &req(json!({"meta": {"prompt": "x", "video_url": "/files/v.mp4", "lyrics": "no"}})),
        )
        .unwrap();
        assert_eq!(p.video, Some(VideoRef::Url("/files/v.mp4".into())));
        assert_eq!(p.job.lyrics, "");
    }

    #[test]
    fn lyrics_requests_and_cleaning() {
        let b = prepare_lyrics(&LyricsRequest {
            prompt: Some(" summer love ".into()),
            ..LyricsRequest::default()
        })
        .unwrap();
        assert_eq!(b.language, "en");
        assert_eq!(
            prepare_lyrics(&LyricsRequest::default()),
            Err(ErrorCode::AudioPromptEmpty)
        );
        assert_eq!(
            prepare_lyrics(&LyricsRequest {
                prompt: Some("x".into()),
                title: Some("t".repeat(101)),
                ..LyricsRequest::default()
            }),
            Err(ErrorCode::WorkTitleTooLong)
        );
        assert!(lyrics_instruction(&b).contains("summer love"));
        let raw = "Title: **Golden Days**\n\n**Verse 1:**\nSun on the water\n\"We run to the sea\"\n\n\n(Chorus)\nGolden days\n## Bridge\nHold on\n";
        let (title, lyrics) = clean_lyrics(raw, &b);
        assert_eq!(title, "Golden Days");
        assert_eq!(
            lyrics,
            "[Verse]\nSun on the water\nWe run to the sea\n\n[Chorus]\nGolden days\n\n[Bridge]\nHold on"
        );
        let (title, lyrics) = clean_lyrics("just one line", &b);
        assert_eq!(title, "summer love");
        assert_eq!(lyrics, "[Verse]\njust one line");
    }
}
