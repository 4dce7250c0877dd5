//! Faces in pictures and videos (spec 2 §7): `resource/video/detectFace`
//! (a video sampled at about 2 fps, or a picture: the boxes and whether
//! one stable face is there), `resource/video/frameDescription` (one
//! frame described by the reference describer) in the `/resource` scope,
//! and `tool/face/detection` (a picture's faces). Every URL must be the
//! caller's own: an upload of theirs (`/files/u/...`) or an output of one
//! of their tasks (`/files/t/...`); anything else answers like a missing
//! file. [`owned_media`] is that check, shared with lip-sync.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use super::task::requester;
use crate::error::{object_key, ok, ApiError, ApiResult};
use crate::state::AppState;
use crate::tasks::{object_key_of_url, Requester};

/// Routes inside the `/resource` scope.
pub fn resource_routes(api: &mut Api) {
    api.post(
        "/video/detectFace",
        detect_face,
        doc("Whether a video shows one face").body::<UrlBody>(),
    )
    .post(
        "/video/frameDescription",
        frame_description,
        doc("Describe a video frame").body::<UrlBody>(),
    );
}

/// Plain routes under `/api/v1`.
pub fn routes(api: &mut Api) {
    api.post(
        "/tool/face/detection",
        face_detection,
        doc("Detect the faces in a picture").body::<UrlBody>(),
    );
}

/// What a stored file of the caller's is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Video,
    Audio,
    Other,
}

/// One of the caller's stored files.
#[derive(Debug, Clone)]
pub struct OwnedMedia {
    pub key: String,
    pub size: u64,
    pub kind: MediaKind,
}

fn kind_of(ct: &str) -> MediaKind {
    if ct.starts_with("image/") {
        MediaKind::Image
    } else if ct.starts_with("video/") {
        MediaKind::Video
    } else if ct.starts_with("audio/") {
        MediaKind::Audio
    } else {
        MediaKind::Other
    }
}

/// The stored file behind `url` when it is the caller's: one of their
/// uploads, or an output of one of their tasks. A URL of another server
/// answers `uploadError`; another account's file, or none, `NotFound`.
pub async fn owned_media(
    state: &AppState,
    who: &Requester,
    url: &str,
) -> Result<OwnedMedia, ApiError> {
    let key = object_key_of_url(url.trim()).ok_or_else(|| {
        ApiError::with_msg(
            ErrorCode::UploadError,
            "the file must be uploaded to this server first",
        )
    })?;
    let owned = crate::access::may_read(state, who, &key).await?;
    if !owned {
        return Err(ErrorCode::NotFound.into());
    }
    let meta = state
        .objects
        .head(&object_key(&key)?)
        .await
        .map_err(ApiError::internal)?
        .ok_or(ErrorCode::NotFound)?;
    Ok(OwnedMedia {
        kind: kind_of(&meta.content_type),
        size: meta.size,
        key,
    })
}

/// The whole of a stored picture (pictures are at most the image upload
/// limit, or a task's output).
pub async fn read_object(state: &AppState, key: &str) -> Result<Vec<u8>, ApiError> {
    Ok(state
        .objects
        .get(&object_key(key)?)
        .await
        .map_err(ApiError::internal)?
        .ok_or(ErrorCode::NotFound)?
        .bytes)
}

/// A stored object copied by ranges to a temporary file (videos and audio
/// are read by ffmpeg, which seeks; they are never held in memory whole).
pub async fn object_to_temp(
    state: &AppState,
    key: &str,
    size: u64,
) -> Result<tempfile::NamedTempFile, ApiError> {
    use std::io::Write;
    let k = object_key(key)?;
    let tmp = tempfile::NamedTempFile::new().map_err(ApiError::internal)?;
    let mut file = tmp.reopen().map_err(ApiError::internal)?;
    let mut at = 0;
    while at < size {
        let chunk = state
            .objects
            .get_range(&k, at, crate::media::STREAM_CHUNK)
            .await
            .map_err(ApiError::internal)?
            .filter(|c| !c.is_empty())
            .ok_or(ErrorCode::NotFound)?;
        at += chunk.len() as u64;
        file = tokio::task::spawn_blocking(move || file.write_all(&chunk).map(|()| file))
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::internal)?;
    }
    Ok(tmp)
}

fn not_visual() -> ApiError {
    ApiError::with_msg(
        ErrorCode::UploadVideoError,
        "the file is not a picture or a video",
    )
}

fn not_picture() -> ApiError {
    ApiError::with_msg(ErrorCode::UploadError, "the file is not a picture")
}

/// An audio-crate failure on a user's file as the envelope.
fn audio_err(e: audio::AudioError, bad: fn() -> ApiError) -> ApiError {
    match e {
        audio::AudioError::BadInput(_) => bad(),
        other => ApiError::internal(other.to_string()),
    }
}

/// Scans a caller's picture or video for faces.
pub async fn scan_owned(
    state: &AppState,
    media: &OwnedMedia,
) -> Result<audio::face::VideoFaces, ApiError> {
    match media.kind {
        MediaKind::Image => {
            let bytes = read_object(state, &media.key).await?;
            tokio::task::spawn_blocking(move || audio::face::scan_image(&bytes))
                .await
                .map_err(ApiError::internal)?
                .map_err(|e| audio_err(e, not_visual))
        }
        MediaKind::Video => {
            let tmp = object_to_temp(state, &media.key, media.size).await?;
            tokio::task::spawn_blocking(move || {
                audio::face::scan_video(tmp.path(), &engines::Cancel::new())
            })
            .await
            .map_err(ApiError::internal)?
            .map_err(|e| audio_err(e, not_visual))
        }
        MediaKind::Audio | MediaKind::Other => Err(not_visual()),
    }
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[schema(as = FaceUrlBody)]
struct UrlBody {
    #[serde(default)]
    url: String,
    #[serde(default)]
    time_ms: Option<u64>,
}

fn need_url(b: &UrlBody) -> Result<&str, ApiError> {
    let u = b.url.trim();
    if u.is_empty() {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "url is required",
        ));
    }
    Ok(u)
}

/// `resource/video/detectFace {url}` → `{has_face, single_face,
/// frames_checked, faces: [{x, y, width, height, score, time_ms}]}`.
async fn detect_face(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<UrlBody>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let media = owned_media(&state, &who, need_url(&body)?).await?;
    let v = scan_owned(&state, &media).await?;
    Ok(ok(json!({
        "has_face": v.has_face,
        "single_face": v.single_face,
        "frames_checked": v.frames_checked,
        "faces": v.faces,
        "width": v.width,
        "height": v.height,
        "engine": {"name": "seetaface", "neural": false, "label": audio::face::DETECTOR_LABEL},
    })))
}

/// `tool/face/detection {url}` (a picture) → `{width, height, faces:
/// [{x, y, width, height, score}]}`.
async fn face_detection(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<UrlBody>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let media = owned_media(&state, &who, need_url(&body)?).await?;
    if media.kind != MediaKind::Image {
        return Err(not_picture());
    }
    let bytes = read_object(&state, &media.key).await?;
    let (w, h, faces) = tokio::task::spawn_blocking(move || audio::face::detect_image(&bytes))
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| audio_err(e, not_picture))?;
    Ok(ok(json!({
        "width": w,
        "height": h,
        "faces": faces,
        "engine": {"name": "seetaface", "neural": false, "label": audio::face::DETECTOR_LABEL},
    })))
}

/// The reference describer, as `frameDescription` labels it.
const DESCRIBER: (&str, &str) = (
    "reference-describe",
    "Easel reference describer (non-neural: colours, light and layout)",
);

/// `resource/video/frameDescription {url, time_ms?}` → `{description,
/// time_ms, engine}`: a picture, or a video's frame at `time_ms` (default
/// the middle; past the end = the last frame), described.
async fn frame_description(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<UrlBody>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    let media = owned_media(&state, &who, need_url(&body)?).await?;
    let (png, at) = match media.kind {
        MediaKind::Image => (read_object(&state, &media.key).await?, 0),
        MediaKind::Video => {
            let tmp = object_to_temp(&state, &media.key, media.size).await?;
            let wanted = body.time_ms;
            tokio::task::spawn_blocking(move || {
                let info = engines::reference::video::probe_media_path(tmp.path())?;
                if info.video.is_none() {
                    return Err(engines::EngineError::BadInput("no pictures".into()));
                }
                let last = info.duration_ms.saturating_sub(100);
                let at = wanted.unwrap_or(info.duration_ms / 2).min(last);
                Ok((engines::reference::video::poster_png(tmp.path(), at)?, at))
            })
            .await
            .map_err(ApiError::internal)?
            .map_err(|e| match e {
                engines::EngineError::BadInput(_) => not_visual(),
                other => ApiError::internal(other.to_string()),
            })?
        }
        MediaKind::Audio | MediaKind::Other => return Err(not_visual()),
    };
    let description = tokio::task::spawn_blocking(move || engines::reference::describe_image(&png))
        .await
        .map_err(ApiError::internal)?
        .map_err(|_| not_visual())?;
    Ok(ok(json!({
        "description": description,
        "time_ms": at,
        "engine": {"name": DESCRIBER.0, "neural": false, "label": DESCRIBER.1},
    })))
}
