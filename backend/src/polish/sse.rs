//! Server-Sent Events as prompt polish and the generation agent send them:
//! `text/event-stream`, `Cache-Control: no-cache`, one `data: <json>\n\n`
//! event per envelope. The producer is a task writing into a bounded
//! channel; when the client goes away actix drops the response body, the
//! channel closes, and the producer sees it (`Sender::closed`) and stops the
//! model at once.

use std::convert::Infallible;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::HttpResponse;
use protocol::{Envelope, ErrorCode, Status};
use serde::Serialize;
use tokio::sync::mpsc;

/// Events buffered between the producer and a slow client.
const BUFFER: usize = 64;

/// One event's bytes.
pub fn event<T: Serialize>(envelope: &Envelope<T>) -> Bytes {
    match serde_json::to_string(envelope) {
        Ok(json) => Bytes::from(format!("data: {json}\n\n")),
        Err(e) => {
            tracing::error!(error = %e, "event did not serialise");
            Bytes::from_static(b"data: {\"status\":{\"code\":50000,\"msg\":\"internal error\",\"key\":\"ServerError\"},\"data\":null}\n\n")
        }
    }
}

/// An envelope with a status code and `data`.
pub fn envelope<T>(code: i32, msg: &str, key: Option<&str>, data: T) -> Envelope<T> {
    Envelope {
        status: Status {
            code,
            msg: msg.to_owned(),
            key: key.map(str::to_owned),
        },
        data,
    }
}

/// The error envelope of `code` (catalogue message unless `msg` is given).
pub fn error_envelope<T>(code: ErrorCode, msg: Option<String>, data: T) -> Envelope<T> {
    Envelope {
        status: Status {
            code: code.code(),
            msg: msg.unwrap_or_else(|| code.default_msg().to_owned()),
            key: Some(code.key().to_owned()),
        },
        data,
    }
}

fn builder() -> actix_web::HttpResponseBuilder {
    let mut b = HttpResponse::Ok();
    b.content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Already "encoded": keeps the Compress middleware from buffering events.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"));
    b
}

/// A stream that sends one event and ends (refusals: login, limits, rules).
pub fn single(bytes: Bytes) -> HttpResponse {
    builder().body(bytes)
}

/// A channel whose receiving end becomes the response body.
pub fn channel() -> (mpsc::Sender<Bytes>, mpsc::Receiver<Bytes>) {
    mpsc::channel(BUFFER)
}

/// The response streaming whatever the producer sends until it drops its sender.
pub fn streaming(rx: mpsc::Receiver<Bytes>) -> HttpResponse {
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<Bytes, Infallible>(b), rx))
    });
    builder().streaming(body)
}
