//! Probing stored media with ffprobe: the object is copied by ranges to a
//! temporary file (never held in memory), which ffprobe reads and seeks.
//! Used by the upload check (a video must be one) and the editor's media bin.

use infra::objects::{DynObjects, ObjectKey};

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
