//! The audio download event stream (spec 2 §7): an audio file as `chunk`
//! events of base64 `audioData`, then an `end` event, under `/api/stream`.
//!
//! `GET /api/stream/audio?url=/files/...`: the caller's own file only (an
//! upload, an output of their task, speech made for them) or a voice's
//! public preview. An unknown file, another account's, or one that is not
//! audio answers the JSON envelope 404 before the stream starts; a read that
//! fails midway ends the stream with an `error` event (the client then has
//! no `end` and reports the download failed).

use super::api::{doc, Api};
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine as _;
use protocol::audio::transport;
use protocol::ErrorCode;
use serde::Deserialize;

use crate::error::{object_key, ApiError};
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.get(
        "/audio",
        download,
        doc("Stream a stored audio file as server-sent chunk events")
            .raw(super::SSE)
            .query(&["url"]),
    );
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[schema(as = AudioStreamDownloadQuery)]
pub struct DownloadQuery {
    pub url: String,
}

/// The stream of `url`'s bytes as `chunk` events, then `end`.
pub async fn download(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<DownloadQuery>,
) -> Result<HttpResponse, ApiError> {
    let who = crate::routes::task::requester(&req, &state).await?;
    let missing = || ApiError::with_msg(ErrorCode::NotFound, "no such audio file");
    let key = crate::tasks::object_key_of_url(&query.url).ok_or_else(missing)?;
    if !crate::access::may_read(&state, &who, &key).await? {
        return Err(missing());
    }
    let key = object_key(&key)?;
    let meta = state
        .objects
        .head(&key)
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(missing)?;
    if !meta.content_type.starts_with("audio/") {
        return Err(missing());
    }
    let size = meta.size;
    let objects = state.objects.clone();
    // (next offset, finished)
    let events = futures_util::stream::unfold((0u64, false), move |(at, done)| {
        let (objects, key) = (objects.clone(), key.clone());
        async move {
            if done {
                return None;
            }
            if at >= size {
                return Some((Bytes::from(transport::end_event()), (at, true)));
            }
            let want = (transport::CHUNK_BYTES as u64).min(size - at);
            match objects.get_range(&key, at, want).await {
                Ok(Some(bytes)) if !bytes.is_empty() => {
                    let next = at + bytes.len() as u64;
                    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
                    Some((Bytes::from(transport::chunk_event(&b64)), (next, false)))
                }
                other => {
                    let why = match other {
                        Err(e) => e.to_string(),
                        _ => "the file ended early".to_owned(),
                    };
                    tracing::warn!(key = %key.as_str(), at, error = %why, "audio stream cut");
                    let data = serde_json::json!({
                        "key": ErrorCode::Internal.key(),
                        "msg": "the audio could not be read to the end",
                    });
                    Some((
                        Bytes::from(transport::sse_event(transport::EVENT_ERROR, &data)),
                        (at, true),
                    ))
                }
            }
        }
    });
    let body = futures_util::StreamExt::map(events, Ok::<Bytes, std::convert::Infallible>);
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Already "encoded": keeps the Compress middleware from buffering events.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}
