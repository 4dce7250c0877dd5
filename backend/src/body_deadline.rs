//! A request body must arrive whole within a deadline after its head
//! (`EASEL_BODY_TIMEOUT_MS`). actix-web cuts off a request head that
//! trickles in (its 5 s client request timeout) but waits for a body for as
//! long as bytes keep coming, so a client sending a byte now and then could
//! hold a connection and a handler forever. Past the deadline the body
//! reads as an error, the handler answers it (a bad request) and the
//! connection, whose body was not read to its end, is closed. The socket
//! (`/ws`) is left alone: its body is the socket itself.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use futures_util::Stream;

/// The deadline, as app data.
#[derive(Debug, Clone, Copy)]
pub struct BodyTimeout(pub Duration);

struct Timed {
    inner: Payload,
    deadline: Pin<Box<tokio::time::Sleep>>,
    expired: bool,
}

impl Stream for Timed {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.expired {
            return Poll::Ready(None);
        }
        if let Poll::Ready(item) = Pin::new(&mut self.inner).poll_next(cx) {
            return Poll::Ready(item);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.expired = true;
            return Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request body did not arrive in time",
            )))));
        }
        Poll::Pending
    }
}

pub async fn body_deadline(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let limit = req.app_data::<BodyTimeout>().map(|t| t.0);
    if let (Some(limit), false) = (limit, req.path() == "/ws") {
        match std::mem::replace(req.parts_mut().1, Payload::None) {
            Payload::None => {}
            inner => {
                let timed = Timed {
                    inner,
                    deadline: Box::pin(tokio::time::sleep(limit)),
                    expired: false,
                };
                req.set_payload(Payload::Stream {
                    payload: Box::pin(timed),
                });
            }
        }
    }
    next.call(req).await
}
