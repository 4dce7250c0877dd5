//! `SessionActor`: one per WebSocket. It owns the socket's protocol: type-7
//! authentication within the auth timeout, heartbeats (type 4) both ways,
//! the idle timeout, the per-second frame limit, resume (type 15), and the
//! pushes it receives from its user's `StreamActor`.
//!
//! Writes go through one writer task that owns the `actix_ws::Session`, fed
//! by a bounded queue: frames keep their order, and a socket that cannot keep
//! up is closed instead of growing memory without bound.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use actix_web::web::Bytes;
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Message, ProtocolError};
use infra::config::SocketSettings;
use protocol::frame::{ClientFrame, Codec, Frame};
use protocol::ErrorCode;
use tokio::sync::{mpsc, oneshot};

use crate::close_code;
use crate::message::{
    Attach, CloseSocket, Detach, Outgoing, PushSink, Replay, SessionId, SinkError,
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
    /// it directly.
    out: PushSink,
    /// Taken once, to close: the writer closes the socket after flushing.
    close_tx: Option<oneshot::Sender<(u16, String)>>,
    user: Option<(AuthedSocketUser, Addr<StreamActor>)>,
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
        let (out, rx) = PushSink::channel(deps.settings.send_queue);
        let (close_tx, close_rx) = oneshot::channel();
        actix_web::rt::spawn(writer(session, codec, rx, close_rx));
        SessionActor::create(|ctx| {
            ctx.add_stream(incoming);
            let now = Instant::now();
            SessionActor {
                id: NEXT_SESSION.fetch_add(1, Ordering::Relaxed),
                codec,
                deps,
                out,
                close_tx: Some(close_tx),
                user: None,
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
        if let Some(tx) = self.close_tx.take() {
            tracing::debug!(session = self.id, code, reason, "closing socket");
            let _ = tx.send((code, reason.to_owned()));
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
                if self.user.is_some() {
                    self.send(&Frame::heartbeat(), ctx);
                } else {
                    self.send(&Frame::error(ErrorCode::NeedLogin, None), ctx);
                }
            }
            ClientFrame::Resume { last_seq, stream } => match &self.user {
                Some((_, addr)) => addr.do_send(Replay {
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
            let user = deps.auth.authenticate(&token).await?;
            // A stream that is just stopping drops the attach: start a fresh one once.
            for _ in 0..2 {
                let stream = deps.streams.get_or_start(&user.account_id);
                let attach = Attach {
                    session_id,
                    token_hash: user.token_hash.clone(),
                    codec,
                    sink: sink.clone(),
                    close: close.clone(),
                };
                if let Ok(attached) = stream.send(attach).await {
                    return Ok((user, stream, attached));
                }
            }
            Err(AuthFailure::Unavailable)
        };
        ctx.wait(fut.into_actor(self).map(|res, act, ctx| match res {
            Ok((user, stream, attached)) => {
                // The stream already queued the confirmation (type 4 with
                // `{account_id, stream, seq}`) ahead of any push.
                tracing::debug!(session = act.id, stream = %attached.stream, seq = attached.seq, "socket authenticated");
                act.user = Some((user, stream));
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
        ctx.run_later(Duration::from_millis(s.auth_timeout_ms), |act, ctx| {
            if act.user.is_none() {
                act.close(close_code::AUTH_TIMEOUT, "no auth in time", ctx);
            }
        });
        let idle = Duration::from_millis(s.idle_timeout_ms);
        let tick = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(5));
        ctx.run_interval(tick, move |act, ctx| {
            if act.last_frame.elapsed() >= idle {
                act.close(close_code::IDLE_TIMEOUT, "idle", ctx);
            }
        });
    }

    fn stopping(&mut self, _ctx: &mut Self::Context) -> Running {
        if let Some((_, stream)) = &self.user {
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
/// order, flushes what is queued and closes with the given code.
async fn writer(
    mut session: actix_ws::Session,
    codec: Codec,
    mut rx: mpsc::Receiver<Outgoing>,
    mut close_rx: oneshot::Receiver<(u16, String)>,
) {
    let close = loop {
        tokio::select! {
            biased;
            msg = rx.recv() => match msg {
                Some(Outgoing::Data(bytes)) => {
                    if send_encoded(&mut session, codec, bytes).await.is_err() {
                        return;
                    }
                }
                Some(Outgoing::Frame(frame)) => {
                    // JSON sockets send the stream's shared bytes as they are.
                    if let Some(bytes) = frame.encoded(codec) {
                        if send_encoded(&mut session, codec, bytes).await.is_err() {
                            return;
                        }
                    }
                }
                Some(Outgoing::Pong(bytes)) => {
                    if session.pong(&bytes).await.is_err() {
                        return;
                    }
                }
                None => break close_rx.await.ok(),
            },
            close = &mut close_rx => {
                // Flush what was queued before the close order.
                while let Ok(item) = rx.try_recv() {
                    let bytes = match item {
                        Outgoing::Data(bytes) => Some(bytes),
                        Outgoing::Frame(frame) => frame.encoded(codec),
                        Outgoing::Pong(_) => None,
                    };
                    if let Some(bytes) = bytes {
                        let _ = send_encoded(&mut session, codec, bytes).await;
                    }
                }
                break close.ok();
            }
        }
    };
    let reason = close.map(|(code, description)| CloseReason {
        code: CloseCode::Other(code),
        description: Some(description),
    });
    let _ = session.close(reason).await;
}

/// Sends bytes in the socket's codec: text frames for JSON, binary for
/// MessagePack.
async fn send_encoded(
    session: &mut actix_ws::Session,
    codec: Codec,
    bytes: Bytes,
) -> Result<(), actix_ws::Closed> {
    match codec {
        Codec::Json => send_text(session, bytes).await,
        Codec::MsgPack => session.binary(bytes).await,
    }
}

/// Sends shared JSON bytes as a text frame without copying them: they are
/// checked to be UTF-8 (they always are, being serde_json's output) and
/// wrapped. The payload type is reached through `Message::Text`, so this
/// crate needs no `bytestring` dependency of its own. Invalid UTF-8 is
/// skipped (`Ok`); `Err` means the socket is closed.
async fn send_text(session: &mut actix_ws::Session, bytes: Bytes) -> Result<(), actix_ws::Closed> {
    let text = match bytes.try_into() {
        Ok(text) => Message::Text(text),
        Err(_) => return Ok(()),
    };
    match text {
        Message::Text(text) => session.text(text).await,
        _ => Ok(()),
    }
}
