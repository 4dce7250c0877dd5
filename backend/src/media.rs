//! Probing stored media with ffprobe: the object is copied by ranges to a
//! temporary file (never held in memory), which ffprobe reads and seeks.
//! Used by the upload checks (a video must be one; audio must decode, see
//! [`check_stored_audio`]) and the editor's media bin.

use infra::objects::{DynObjects, ObjectKey};
use protocol::audio::transport;

/// Objects are read in pieces of this size.
pub const STREAM_CHUNK: u64 = 4 * 1024 * 1024;

/// What ffprobe reads from the stored object `key` of `size` bytes.
pub async fn probe_stored(
    objects: &DynObjects,
    key: &ObjectKey,
    size: u64,
) -> Result<engines::reference::video::MediaInfo, String> {
    Ok(inspect_stored(objects, key, size, false).await?.0)
}

/// [`probe_stored`], and for a video with `poster`, its middle frame as a PNG.
pub async fn inspect_stored(
    objects: &DynObjects,
    key: &ObjectKey,
    size: u64,
    poster: bool,
) -> Result<(engines::reference::video::MediaInfo, Option<Vec<u8>>), String> {
    let tmp = copy_to_temp(objects, key, size).await?;
    let path = tmp.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        let info = engines::reference::video::probe_media_path(&path)?;
        let png = match (&info.video, poster) {
            (Some(_), true) => {
                engines::reference::video::poster_png(&path, info.duration_ms / 2).ok()
            }
            _ => None,
        };
        Ok::<_, engines::EngineError>((info, png))
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    drop(tmp);
    Ok(out)
}

/// The stored object copied by ranges into a temporary file.
async fn copy_to_temp(
    objects: &DynObjects,
    key: &ObjectKey,
    size: u64,
) -> Result<tempfile::NamedTempFile, String> {
    use std::io::Write;
    let tmp = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let mut file = tmp.reopen().map_err(|e| e.to_string())?;
    let mut at = 0;
    while at < size {
        let chunk = objects
            .get_range(key, at, STREAM_CHUNK)
            .await
            .map_err(|e| e.to_string())?
            .filter(|c| !c.is_empty())
            .ok_or("the file vanished")?;
        at += chunk.len() as u64;
        file = tokio::task::spawn_blocking(move || file.write_all(&chunk).map(|()| file))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
    }
    Ok(tmp)
}

/// Decoding rate of the audio check: enough to prove the stream decodes
/// and to measure its length, small enough that ten minutes fit in 19 MB.
const CHECK_RATE: u32 = 8_000;

/// Checks a stored upload is audio within the limits of
/// [`protocol::audio::transport`]: ffprobe must find a sound stream no
/// longer than the limit (a long file is refused before it is decoded), then
/// ffmpeg must decode all of it (the extension and the declared type prove
/// nothing). Answers what was found, or the code and sentence to refuse with.
pub async fn check_stored_audio(
    objects: &DynObjects,
    key: &ObjectKey,
    size: u64,
) -> Result<transport::DecodedAudio, (protocol::ErrorCode, String)> {
    use protocol::ErrorCode;
    let internal = |e: String| (ErrorCode::Internal, e);
    let tmp = copy_to_temp(objects, key, size).await.map_err(internal)?;
    let path = tmp.path().to_path_buf();
    let found = tokio::task::spawn_blocking(move || {
        let not_audio = |why: String| (ErrorCode::UploadAudioError, why);
        let info = engines::reference::video::probe_media_path(&path)
            .map_err(|e| not_audio(format!("the file is not readable audio: {e}")))?;
        if !info.has_audio {
            return Err(not_audio("the file has no sound".into()));
        }
        let probed = info.duration_ms as f64 / 1000.0;
        if probed > transport::MAX_UPLOAD_SECS {
            transport::check_decoded(&transport::DecodedAudio {
                duration_secs: probed,
                channels: 1,
                sample_rate: CHECK_RATE,
            })?;
        }
        let pcm = audio::ffmpeg::decode_path(&path, CHECK_RATE, 1, &engines::Cancel::new())
            .map_err(|e| not_audio(e.to_string()))?;
        Ok(transport::DecodedAudio {
            duration_secs: pcm.samples.len() as f64 / f64::from(CHECK_RATE),
            channels: pcm.channels,
            sample_rate: pcm.rate,
        })
    })
    .await
    .map_err(|e| internal(e.to_string()))??;
    drop(tmp);
    transport::check_decoded(&found)?;
    Ok(found)
}
