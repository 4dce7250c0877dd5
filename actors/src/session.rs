//! `SessionActor`: one per WebSocket. It owns the socket's protocol: type-7
//! authentication within the auth timeout, heartbeats (type 4) both ways,
//! the idle timeout, the per-second frame limit, resume (type 15), and the
//! pushes it receives from its user's `StreamActor`.
//!
//! Writes go through one writer task that owns the `actix_ws::Session`, fed
//! by a bounded queue: frames keep their order, and a socket that cannot keep
//! up is closed instead of growing memory without bound.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use actix_web::web::Bytes;
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Message, ProtocolError};
use futures_util::future::{self, Either};
use infra::config::SocketSettings;
use protocol::frame::{ClientFrame, Codec, Frame};
use protocol::ErrorCode;

use crate::close_code;
use crate::message::{
    Attach, CloseSocket, Detach, Next, Outgoing, PushQueue, PushSink, Replay, SessionId, SinkError,
};
use crate::stream::{StreamActor, StreamRegistry};

/// Who a token belongs to, as far as the socket cares.
#[derive(Debug, Clone)]
pub struct AuthedSocketUser {
    pub account_id: String,
    /// The token's hash: a logout closes only the sockets of that token.
    pub token_hash: String,
}

/// Why a socket could not be authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthFailure {
    /// Unknown, expired or logged-out token, or a disabled account: close 4401.
    Refused,
    /// The store could not answer: close 1011 so the client retries later
    /// instead of believing it was logged out.
    Unavailable,
}

/// Checks socket tokens; implemented by the backend's account service.
#[async_trait::async_trait]
pub trait Authenticator: Send + Sync + 'static {
    async fn authenticate(&self, token: &str) -> Result<AuthedSocketUser, AuthFailure>;
}

/// What every session needs, shared.
pub struct SessionDeps {
    pub auth: Arc<dyn Authenticator>,
    pub streams: StreamRegistry,
    pub settings: SocketSettings,
}

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

pub struct SessionActor {
    id: SessionId,
    codec: Codec,
    deps: Arc<SessionDeps>,
    /// The writer's queue; the user's stream holds a clone and pushes into
    /// it directly. It also carries the close order: the writer sends what
    /// was queued before it, then closes the socket.
    out: PushSink,
    /// The user's stream once authenticated. Only the address is kept: the
    /// account id and token hash are needed while attaching, and the stream
    /// keeps the token hash (for logouts), so the session does not hold a
    /// second copy for the life of the socket.
    stream: Option<Addr<StreamActor>>,
    /// The auth deadline, cancelled once authenticated so its timer does not
    /// stay allocated for the rest of an idle socket's life.
    auth_deadline: Option<SpawnHandle>,
    auth_started: bool,
    last_frame: Instant,
    window_start: Instant,
    window_count: u32,
}

impl SessionActor {
    /// Starts the actor and its writer task for an upgraded socket.
    pub fn start(
        session: actix_ws::Session,
        incoming: actix_ws::AggregatedMessageStream,
        codec: Codec,
        deps: Arc<SessionDeps>,
    ) -> Addr<SessionActor> {
        let (out, queue) = PushSink::channel(deps.settings.send_queue);
        actix_web::rt::spawn(writer(session, codec, queue));
        SessionActor::create(|ctx| {
            ctx.add_stream(incoming);
            let now = Instant::now();
            SessionActor {
                id: NEXT_SESSION.fetch_add(1, Ordering::Relaxed),
                codec,
                deps,
                out,
                stream: None,
                auth_deadline: None,
                auth_started: false,
                last_frame: now,
                window_start: now,
                window_count: 0,
            }
        })
    }

    /// Sends a frame of this session's own (heartbeat, error, auth
    /// confirmation): encoded here, for this socket only.
    fn send(&mut self, frame: &Frame, ctx: &mut Context<Self>) {
        match self.codec.encode(frame) {
            Ok(b) => self.send_bytes(Bytes::from(b), ctx),
            Err(e) => tracing::error!(error = %e, "frame encoding failed"),
        }
    }

    /// Queues already-encoded bytes for the writer.
    fn send_bytes(&mut self, bytes: Bytes, ctx: &mut Context<Self>) {
        match self.out.send(Outgoing::Data(bytes)) {
            Ok(()) => {}
            Err(SinkError::Full) => self.close(close_code::TOO_SLOW, "too slow", ctx),
            Err(SinkError::Closed) => ctx.stop(),
        }
    }

    fn close(&mut self, code: u16, reason: &str, ctx: &mut Context<Self>) {
        if self.out.close(code, reason) {
            tracing::debug!(session = self.id, code, reason, "closing socket");
        }
        ctx.stop();
    }

    fn on_data(&mut self, bytes: &[u8], codec: Codec, ctx: &mut Context<Self>) {
        let now = Instant::now();
        self.last_frame = now;
        if now.duration_since(self.window_start) >= Duration::from_secs(1) {
            self.window_start = now;
            self.window_count = 0;
        }
        self.window_count += 1;
        if self.window_count > self.deps.settings.max_frames_per_sec {
            return self.close(close_code::TOO_MANY, "too many frames", ctx);
        }
        let frame = match codec.decode(bytes).and_then(ClientFrame::from_frame) {
            Ok(f) => f,
            Err(e) => {
                return self.send(
                    &Frame::error(ErrorCode::InvalidParams, Some(&e.to_string())),
                    ctx,
                )
            }
        };
        match frame {
            ClientFrame::Auth { token } => self.on_auth(token, ctx),
            ClientFrame::Heartbeat => {
                if self.stream.is_some() {
                    self.send(&Frame::heartbeat(), ctx);
                } else {
                    self.send(&Frame::error(ErrorCode::NeedLogin, None), ctx);
                }
            }
            ClientFrame::Resume { last_seq, stream } => match &self.stream {
                Some(addr) => addr.do_send(Replay {
                    session_id: self.id,
                    last_seq,
                    stream,
                }),
                None => self.send(&Frame::error(ErrorCode::NeedLogin, None), ctx),
            },
        }
    }

    fn on_auth(&mut self, token: String, ctx: &mut Context<Self>) {
        if self.auth_started {
            return self.close(close_code::TOO_MANY, "second auth", ctx);
        }
        self.auth_started = true;
        let deps = self.deps.clone();
        let sink = self.out.clone();
        let codec = self.codec;
        let close = ctx.address().recipient::<CloseSocket>();
        let session_id = self.id;
        let fut = async move {
            let AuthedSocketUser {
                account_id,
                token_hash,
            } = deps.auth.authenticate(&token).await?;
            drop(token);
            let log_head = deps.streams.open_log(&account_id).await;
            // A stream that is just stopping drops the attach: start a fresh one once.
            for _ in 0..2 {
                let stream = deps.streams.get_or_start(&account_id);
                let attach = Attach {
                    session_id,
                    token_hash: token_hash.clone(),
                    codec,
                    sink: sink.clone(),
                    close: close.clone(),
                    log_head,
                };
                if let Ok(attached) = stream.send(attach).await {
                    return Ok((stream, attached));
                }
            }
            Err(AuthFailure::Unavailable)
        };
        ctx.wait(fut.into_actor(self).map(|res, act, ctx| match res {
            Ok((stream, attached)) => {
                // The stream already queued the confirmation (type 4 with
                // `{account_id, stream, seq}`) ahead of any push.
                tracing::debug!(session = act.id, stream = %attached.stream, seq = attached.seq, "socket authenticated");
                act.stream = Some(stream);
                if let Some(deadline) = act.auth_deadline.take() {
                    ctx.cancel_future(deadline);
                }
            }
            Err(AuthFailure::Refused) => act.close(close_code::BAD_TOKEN, "bad token", ctx),
            Err(AuthFailure::Unavailable) => {
                act.close(close_code::UNAVAILABLE, "try again later", ctx)
            }
        }));
    }
}

impl Actor for SessionActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let s = &self.deps.settings;
        let deadline = ctx.run_later(Duration::from_millis(s.auth_timeout_ms), |act, ctx| {
            act.auth_deadline = None;
            if act.stream.is_none() {
                act.close(close_code::AUTH_TIMEOUT, "no auth in time", ctx);
            }
        });
        self.auth_deadline = Some(deadline);
        let idle = Duration::from_millis(s.idle_timeout_ms);
        let tick = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(5));
        ctx.run_interval(tick, move |act, ctx| {
            if act.last_frame.elapsed() >= idle {
                act.close(close_code::IDLE_TIMEOUT, "idle", ctx);
            }
        });
    }

    fn stopping(&mut self, _ctx: &mut Self::Context) -> Running {
        if let Some(stream) = &self.stream {
            stream.do_send(Detach {
                session_id: self.id,
            });
        }
        Running::Stop
    }
}

impl StreamHandler<Result<AggregatedMessage, ProtocolError>> for SessionActor {
    fn handle(&mut self, item: Result<AggregatedMessage, ProtocolError>, ctx: &mut Self::Context) {
        match item {
            Ok(AggregatedMessage::Text(text)) => self.on_data(text.as_bytes(), Codec::Json, ctx),
            Ok(AggregatedMessage::Binary(bin)) => self.on_data(&bin, Codec::MsgPack, ctx),
            Ok(AggregatedMessage::Ping(bytes)) => {
                self.last_frame = Instant::now();
                let _ = self.out.send(Outgoing::Pong(bytes.to_vec()));
            }
            Ok(AggregatedMessage::Pong(_)) => self.last_frame = Instant::now(),
            Ok(AggregatedMessage::Close(_)) => ctx.stop(),
            Err(ProtocolError::Overflow) => {
                self.close(close_code::TOO_LARGE, "frame too large", ctx)
            }
            Err(e) => {
                tracing::debug!(error = %e, "socket protocol error");
                self.close(close_code::BAD_FRAME, "protocol error", ctx);
            }
        }
    }

    fn finished(&mut self, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

impl Handler<CloseSocket> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: CloseSocket, ctx: &mut Self::Context) {
        self.close(msg.code, &msg.reason, ctx);
    }
}

/// Owns the socket's write half: sends queued frames in order; on a close
/// order, sends what was queued before it and closes with the given code.
///
/// Each item is made into its wire message first (no await), and the send is
/// awaited here directly, not through nested async helpers: the future is
/// stored in the task for the socket's whole life, and its size is the
/// largest await it holds (see the test pinning it).
async fn writer(mut session: actix_ws::Session, codec: Codec, mut queue: PushQueue) {
    let close = loop {
        // No temporary of this step may live across the send's await: it
        // would widen the future (see `the_writer_future_stays_small`).
        let message = match queue.next().await {
            Next::Item(item) => wire_message(item, codec),
            Next::Close(close) => break close,
        };
        let Some(message) = message else { continue };
        let sent = send_message(&mut session, message).await;
        if sent.is_err() {
            // The socket is gone; dropping the queue tells the senders.
            return;
        }
    };
    let reason = close.map(|(code, description)| CloseReason {
        code: CloseCode::Other(code),
        description: Some(description),
    });
    // Boxed: the close happens once, at the end, and its future is the
    // largest of the writer's; inline it would be paid for all the socket's
    // life.
    let _ = Box::pin(session.close(reason)).await;
}

/// The send of one wire message, as one future that owns the message (so
/// the writer does not keep a copy of it beside the send). A pong, rare (only
/// when the client pings), is boxed so it does not widen the common case.
fn send_message(
    session: &mut actix_ws::Session,
    message: Message,
) -> impl Future<Output = Result<(), actix_ws::Closed>> + '_ {
    match message {
        Message::Text(text) => Either::Left(Either::Left(session.text(text))),
        Message::Binary(bytes) => Either::Left(Either::Right(session.binary(bytes))),
        Message::Pong(bytes) => {
            Either::Right(Either::Left(Box::pin(
                async move { session.pong(&bytes).await },
            )))
        }
        _ => Either::Right(Either::Right(future::ready(Ok(())))),
    }
}

/// What a queued item is on the wire: text frames for JSON, binary for
/// MessagePack, pongs as they came. A pushed frame's shared bytes are sent
/// as they are, without a copy: JSON bytes are checked to be UTF-8 (they
/// always are, being serde_json's output) and wrapped; the payload type is
/// reached through `Message::Text`, so this crate needs no `bytestring`
/// dependency of its own. `None` for what cannot be sent (invalid UTF-8, a
/// frame that did not encode in this codec): it is skipped.
fn wire_message(item: Outgoing, codec: Codec) -> Option<Message> {
    let bytes = match item {
        Outgoing::Data(bytes) => bytes,
        Outgoing::Frame(frame) => frame.encoded(codec)?,
        Outgoing::Pong(bytes) => return Some(Message::Pong(Bytes::from(bytes))),
    };
    match codec {
        Codec::Json => bytes.try_into().ok().map(Message::Text),
        Codec::MsgPack => Some(Message::Binary(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header;
    use actix_web::test::TestRequest;

    async fn upgraded() -> (actix_ws::Session, actix_ws::MessageStream) {
        use actix_web::FromRequest;
        let (req, mut payload) = TestRequest::get()
            .insert_header((header::UPGRADE, "websocket"))
            .insert_header((header::CONNECTION, "upgrade"))
            .insert_header((header::SEC_WEBSOCKET_VERSION, "13"))
            .insert_header((header::SEC_WEBSOCKET_KEY, "dGhlIHNhbXBsZSBub25jZQ=="))
            .to_http_parts();
        let body = actix_web::web::Payload::from_request(&req, &mut payload)
            .await
            .unwrap();
        let (_res, session, stream) = actix_ws::handle(&req, body).unwrap();
        (session, stream)
    }

    /// The writer's future lives as long as the socket, inside a tokio task
    /// cell of about 104 bytes more, rounded up to 128 on x86_64: at most
    /// 408 bytes keeps the task at 512 bytes. It was 552 (a 768-byte task)
    /// when each send went through two nested async helpers, and more with
    /// the old mpsc channel, oneshot and `select!`. A temporary held across
    /// the send's await, or a second large future, shows here.
    #[actix_web::test]
    async fn the_writer_future_stays_small() {
        let (session, _stream) = upgraded().await;
        let (_sink, queue) = PushSink::channel(4);
        let fut = writer(session, Codec::Json, queue);
        let size = std::mem::size_of_val(&fut);
        assert!(size <= 408, "writer future is {size} bytes");
    }

    #[test]
    fn items_become_the_codec_s_wire_messages_without_copies() {
        let json = Bytes::from_static(br#"{"type":4}"#);
        match wire_message(Outgoing::Data(json.clone()), Codec::Json) {
            Some(Message::Text(t)) => assert_eq!(t.as_bytes().as_ptr(), json.as_ptr()),
            other => panic!("expected text, got {other:?}"),
        }
        assert!(wire_message(Outgoing::Data(Bytes::from_static(b"\xff")), Codec::Json).is_none());
        let packed = Bytes::from_static(b"\x81\xa4type\x04");
        match wire_message(Outgoing::Data(packed.clone()), Codec::MsgPack) {
            Some(Message::Binary(b)) => assert_eq!(b, packed),
            other => panic!("expected binary, got {other:?}"),
        }
        match wire_message(Outgoing::Pong(b"p".to_vec()), Codec::Json) {
            Some(Message::Pong(b)) => assert_eq!(b.as_ref(), b"p"),
            other => panic!("expected pong, got {other:?}"),
        }
    }
}
