//! Audio transport (spec 2 §7-§9): the upload helper's category and limits, the download event stream.
//!
//! An audio upload is the pre-signed upload of spec 2 §7 with category 59;
//! the server decodes it at confirmation (the extension proves nothing) and
//! keeps it only within [`MAX_UPLOAD_BYTES`] and [`MAX_UPLOAD_SECS`]. The
//! download stream (`GET /api/stream/audio?url=/files/...`) sends the file
//! as `chunk` events of [`CHUNK_BYTES`] each, base64 in `audioData`, then one
//! `end` event; the client joins them into one `audio/aac` blob.

use crate::ErrorCode;

/// The upload category of an audio file (spec 2 §9).
pub const CATEGORY: i64 = 59;
/// An audio upload is at most 50 MiB.
pub const MAX_UPLOAD_BYTES: u64 = 50 * 1024 * 1024;
/// ... and at most 10 minutes long.
pub const MAX_UPLOAD_SECS: f64 = 600.0;
/// Bytes of the file in one `chunk` event (before base64).
pub const CHUNK_BYTES: usize = 64 * 1024;
/// The event of one piece of the file.
pub const EVENT_CHUNK: &str = "chunk";
/// The last event of a finished stream.
pub const EVENT_END: &str = "end";
/// The event that ends a stream whose file could not be read to the end.
pub const EVENT_ERROR: &str = "error";
/// The type the client gives the joined blob (spec 2 §7, spec 3 §9).
pub const BLOB_TYPE: &str = "audio/aac";

/// What the decoder found in an uploaded audio file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodedAudio {
    /// Seconds of sound.
    pub duration_secs: f64,
    pub channels: u16,
    pub sample_rate: u32,
}

/// The announced size of an audio upload: refused (with the code and the
/// sentence for `msg`) when empty or over 50 MiB.
pub fn check_upload_size(size: u64) -> Result<(), (ErrorCode, String)> {
    if size == 0 {
        return Err((
            ErrorCode::InvalidParams,
            "file_size must be positive".into(),
        ));
    }
    if size > MAX_UPLOAD_BYTES {
        return Err((
            ErrorCode::PayloadTooLarge,
            format!("audio files may be at most {MAX_UPLOAD_BYTES} bytes (50 MiB)"),
        ));
    }
    Ok(())
}

/// The rule on what the decoder made of an uploaded file: sound of some
/// length, at most ten minutes of it.
pub fn check_decoded(found: &DecodedAudio) -> Result<(), (ErrorCode, String)> {
    if found.channels == 0 || found.sample_rate == 0 {
        return Err((
            ErrorCode::UploadAudioError,
            "the file holds no audio".into(),
        ));
    }
    if !found.duration_secs.is_finite() || found.duration_secs <= 0.0 {
        return Err((ErrorCode::UploadAudioError, "the audio is empty".into()));
    }
    if found.duration_secs > MAX_UPLOAD_SECS {
        return Err((
            ErrorCode::AudioTooLong,
            format!(
                "the audio lasts {:.0} s; at most {MAX_UPLOAD_SECS:.0} s (10 minutes) may be uploaded",
                found.duration_secs
            ),
        ));
    }
    Ok(())
}

/// How many `chunk` events a file of `size` bytes makes.
pub fn chunk_count(size: u64) -> u64 {
    size.div_ceil(CHUNK_BYTES as u64)
}

/// One server-sent event: `event: {name}` and one `data:` line.
pub fn sse_event(name: &str, data: &serde_json::Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// The `chunk` event of an already base64-encoded piece.
pub fn chunk_event(base64: &str) -> String {
    sse_event(EVENT_CHUNK, &serde_json::json!({ "audioData": base64 }))
}

/// The closing `end` event.
pub fn end_event() -> String {
    sse_event(EVENT_END, &serde_json::json!({}))
}

/// Who may read a stored object, from its key's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOwner {
    /// `u/{file_id}/{name}`: an upload; its row names the owner.
    Upload(String),
    /// `t/{task_id}/...`: a task's output; the task names the owner.
    Task(String),
    /// `tts/{account_id}/...`: speech made for that account (`timbre/tts`,
    /// a chat reply spoken).
    Account(String),
    /// `timbre-preview/{file}`: a voice's preview clip (its name carries a
    /// hash of the voice; `/files/` serves it to anyone holding the URL).
    Public,
    /// Anything else (parts of unfinished uploads, posters, previews of
    /// other families): not served by the audio stream.
    Other,
}

/// The owner class of an object key (no leading `/files/`).
pub fn key_owner(key: &str) -> KeyOwner {
    if let Some(file) = key.strip_prefix("timbre-preview/") {
        return if file.is_empty() || file.contains('/') {
            KeyOwner::Other
        } else {
            KeyOwner::Public
        };
    }
    let mut parts = key.split('/');
    let (Some(head), Some(id), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return KeyOwner::Other;
    };
    if id.is_empty() || rest.is_empty() {
        return KeyOwner::Other;
    }
    match head {
        "u" => KeyOwner::Upload(id.to_owned()),
        "t" => KeyOwner::Task(id.to_owned()),
        "tts" => KeyOwner::Account(id.to_owned()),
        _ => KeyOwner::Other,
    }
}

/// Where speech made for `account` is stored: `tts/{account}/{name}` (see
/// [`KeyOwner::Account`]).
pub fn speech_key(account: &str, name: &str) -> String {
    format!("tts/{account}/{name}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn upload_sizes() {
        let cases: [(u64, Option<ErrorCode>); 4] = [
            (0, Some(ErrorCode::InvalidParams)),
            (1, None),
            (MAX_UPLOAD_BYTES, None),
            (MAX_UPLOAD_BYTES + 1, Some(ErrorCode::PayloadTooLarge)),
        ];
        for (size, want) in cases {
            assert_eq!(check_upload_size(size).err().map(|e| e.0), want, "{size}");
        }
    }

    #[test]
    fn decoded_audio_rules() {
        let ok = DecodedAudio {
            duration_secs: 3.0,
            channels: 1,
            sample_rate: 44_100,
        };
        let cases = [
            (ok, None),
            (
                DecodedAudio {
                    duration_secs: 600.0,
                    ..ok
                },
                None,
            ),
            (
                DecodedAudio {
                    duration_secs: 600.5,
                    ..ok
                },
                Some(ErrorCode::AudioTooLong),
            ),
            (
                DecodedAudio {
                    duration_secs: 0.0,
                    ..ok
                },
                Some(ErrorCode::UploadAudioError),
            ),
            (
                DecodedAudio {
                    duration_secs: f64::NAN,
                    ..ok
                },
                Some(ErrorCode::UploadAudioError),
            ),
            (
                DecodedAudio { channels: 0, ..ok },
                Some(ErrorCode::UploadAudioError),
            ),
        ];
        for (found, want) in cases {
            assert_eq!(check_decoded(&found).err().map(|e| e.0), want, "{found:?}");
        }
    }

    #[test]
    fn chunks_and_events() {
        assert_eq!(chunk_count(0), 0);
        assert_eq!(chunk_count(1), 1);
        assert_eq!(chunk_count(65_536), 1);
        assert_eq!(chunk_count(65_537), 2);
        assert_eq!(
            chunk_event("QUJD"),
            "event: chunk\ndata: {\"audioData\":\"QUJD\"}\n\n"
        );
        assert_eq!(end_event(), "event: end\ndata: {}\n\n");
    }

    #[test]
    fn key_owners() {
        let cases = [
            ("u/abc/song.mp3", KeyOwner::Upload("abc".into())),
            ("t/t1/0-0-ff.m4a", KeyOwner::Task("t1".into())),
            ("tts/acc1/x.m4a", KeyOwner::Account("acc1".into())),
            ("timbre-preview/v1-00ff.m4a", KeyOwner::Public),
            ("timbre-preview/", KeyOwner::Other),
            ("timbre-preview/a/b.m4a", KeyOwner::Other),
            ("s/acc1/x.m4a", KeyOwner::Other),
            ("up/abc/part-0", KeyOwner::Other),
            ("u/abc", KeyOwner::Other),
            ("u//x", KeyOwner::Other),
            ("fx/1/preview.png", KeyOwner::Other),
            ("", KeyOwner::Other),
        ];
        for (key, want) in cases {
            assert_eq!(key_owner(key), want, "{key}");
        }
        assert_eq!(
            key_owner(&speech_key("a1", "n.m4a")),
            KeyOwner::Account("a1".into())
        );
    }
}
