//! `GET /ws`: the one WebSocket. Checks the Origin, picks the codec from the
//! subprotocol (`msgpack` for MessagePack, JSON otherwise), sets the frame
//! size limit, and hands the socket to a new `SessionActor`.

use actix_web::http::header::{HeaderValue, HOST, ORIGIN, SEC_WEBSOCKET_PROTOCOL};
use actix_web::{web, HttpRequest, HttpResponse};
use actors::SessionActor;
use protocol::frame::{Codec, MSGPACK_SUBPROTOCOL};
use protocol::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

/// Browsers always send Origin; it must be this server's own origin or one
/// the operator allowed. Non-browser clients send none and still need a token.
fn origin_allowed(req: &HttpRequest, allowed: &[String]) -> bool {
    let Some(origin) = req.headers().get(ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let host = req
        .headers()
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let own = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|o| o == host);
    own || allowed.iter().any(|a| a == origin)
}

pub async fn socket(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, actix_web::Error> {
    if !origin_allowed(&req, &state.settings.allowed_origins) {
        return Err(ApiError::with_msg(ErrorCode::NoPermission, "origin not allowed").into());
    }
    let requested = req
        .headers()
        .get(SEC_WEBSOCKET_PROTOCOL)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let codec = Codec::from_subprotocols(requested.as_deref());
    // Echo the protocol we chose: browsers fail a handshake that requested
    // subprotocols and got none back.
    let echo = match (codec, requested.as_deref()) {
        (Codec::MsgPack, _) => Some(MSGPACK_SUBPROTOCOL),
        (Codec::Json, Some(r)) if r.split(',').any(|p| p.trim() == "json") => Some("json"),
        _ => None,
    };
    let (mut res, session, incoming) = actix_ws::handle(&req, body)?;
    if let Some(p) = echo {
        res.headers_mut()
            .insert(SEC_WEBSOCKET_PROTOCOL, HeaderValue::from_static(p));
    }
    let max = state.settings.socket.max_frame_bytes;
    let incoming = incoming
        .max_frame_size(max)
        .aggregate_continuations()
        .max_continuation_size(max);
    // In place of the access log, which leaves /ws out (see app.rs).
    tracing::info!(target: "easel::http", ?codec, "GET /ws 101");
    SessionActor::start(session, incoming, codec, state.sessions.clone());
    Ok(res)
}
