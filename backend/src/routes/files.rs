//! Serving stored objects under `/files/` (and model downloads through
//! [`stream_object`]): one `Range: bytes=` range per request (RFC 9110),
//! streamed in chunks, never whole in memory.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use protocol::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

// Objects up to this size are answered in one piece; larger ones (and
// ranges of them) are streamed in chunks of this size.
use crate::media::STREAM_CHUNK;

/// The one range of a `Range: bytes=...` header, as inclusive (first, last)
/// within `size`: `None` for no (or an unsupported multi-range) header,
/// `Some(Err)` when it cannot be satisfied.
pub fn byte_range(header: Option<&str>, size: u64) -> Option<Result<(u64, u64), ()>> {
    let spec = header?.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (a, b) = (a.trim(), b.trim());
    let range = match (a.parse::<u64>().ok(), b.parse::<u64>().ok()) {
        (Some(first), Some(last)) if first <= last => (first, last.min(size.saturating_sub(1))),
        (Some(first), None) if b.is_empty() => (first, size.saturating_sub(1)),
        (None, Some(suffix)) if a.is_empty() && suffix > 0 => {
            (size.saturating_sub(suffix), size.saturating_sub(1))
        }
        _ => return Some(Err(())),
    };
    if size == 0 || range.0 >= size {
        return Some(Err(()));
    }
    Some(Ok(range))
}

/// A stored object, with HTTP ranges (video players seek by them). Keys are
/// unguessable and never reused, so they are cached for a year.
pub async fn file(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key =
        infra::objects::ObjectKey::parse(&path.into_inner()).map_err(|_| ErrorCode::NotFound)?;
    // Parts of uploads, model files (private: `model/download`) and data
    // exports (`account/export/download`) are never served here.
    if ["up/", "m/", "x/"]
        .iter()
        .any(|p| key.as_str().starts_with(p))
    {
        return Err(ErrorCode::NotFound.into());
    }
    stream_object(&req, &state, key).await
}

/// An object with HTTP ranges, streamed in chunks (never whole in memory).
pub async fn stream_object(
    req: &HttpRequest,
    state: &AppState,
    key: infra::objects::ObjectKey,
) -> Result<HttpResponse, ApiError> {
    let meta = state
        .objects
        .head(&key)
        .await
        .map_err(ApiError::internal)?
        .ok_or(ErrorCode::NotFound)?;
    let range = byte_range(
        req.headers()
            .get(header::RANGE)
            .and_then(|v| v.to_str().ok()),
        meta.size,
    );
    let (first, last, mut resp) = match range {
        Some(Err(())) => {
            return Ok(HttpResponse::RangeNotSatisfiable()
                .insert_header((header::CONTENT_RANGE, format!("bytes */{}", meta.size)))
                .finish())
        }
        Some(Ok((first, last))) => {
            let mut r = HttpResponse::PartialContent();
            r.insert_header((
                header::CONTENT_RANGE,
                format!("bytes {first}-{last}/{}", meta.size),
            ));
            (first, last, r)
        }
        None => (0, meta.size.saturating_sub(1), HttpResponse::Ok()),
    };
    resp.content_type(meta.content_type)
        .insert_header((header::ACCEPT_RANGES, "bytes"))
        .insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"))
        .insert_header(("X-Content-Type-Options", "nosniff"));
    let len = if meta.size == 0 { 0 } else { last - first + 1 };
    if len <= STREAM_CHUNK {
        let bytes = state
            .objects
            .get_range(&key, first, len)
            .await
            .map_err(ApiError::internal)?
            .ok_or(ErrorCode::NotFound)?;
        return Ok(resp.body(bytes));
    }
    let objects = state.objects.clone();
    let chunks = futures_util::stream::try_unfold(first, move |at| {
        let (objects, key) = (objects.clone(), key.clone());
        async move {
            if at > last {
                return Ok(None);
            }
            let n = STREAM_CHUNK.min(last - at + 1);
            let bytes = objects
                .get_range(&key, at, n)
                .await
                .map_err(actix_web::error::ErrorInternalServerError)?
                .ok_or_else(|| actix_web::error::ErrorNotFound("gone"))?;
            if bytes.is_empty() {
                return Ok(None);
            }
            let next = at + bytes.len() as u64;
            Ok::<_, actix_web::Error>(Some((web::Bytes::from(bytes), next)))
        }
    });
    Ok(resp.no_chunking(len).streaming(chunks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_follow_rfc_9110() {
        type Want = Option<Result<(u64, u64), ()>>;
        let cases: [(Option<&str>, u64, Want); 12] = [
            (None, 10, None),
            (Some("bytes=0-4"), 10, Some(Ok((0, 4)))),
            (Some("bytes=5-"), 10, Some(Ok((5, 9)))),
            (Some("bytes=-3"), 10, Some(Ok((7, 9)))),
            (Some("bytes=-30"), 10, Some(Ok((0, 9)))),
            (Some("bytes=8-100"), 10, Some(Ok((8, 9)))),
            (Some("bytes=10-"), 10, Some(Err(()))),
            (Some("bytes=4-2"), 10, Some(Err(()))),
            (Some("bytes=x-2"), 10, Some(Err(()))),
            (Some("bytes=0-1,4-5"), 10, None),
            (Some("items=0-1"), 10, None),
            (Some("bytes=0-0"), 0, Some(Err(()))),
        ];
        for (h, size, want) in cases {
            assert_eq!(byte_range(h, size), want, "{h:?} of {size}");
        }
    }
}
