//! Messages between the socket actors: sessions attach to their user's push
//! stream, the stream pushes frames and close orders to its sessions.

use std::sync::Arc;

use actix::prelude::*;
use protocol::frame::Frame;

/// Identifies one socket within its user's stream.
pub type SessionId = u64;

/// Stream → session: one frame to send (already sequenced).
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct Push(pub Arc<Frame>);

/// Stream → session: close the socket with this code.
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct CloseSocket {
    pub code: u16,
    pub reason: String,
}

/// Session → stream: start receiving pushes.
#[derive(Message)]
#[rtype(result = "Attached")]
pub struct Attach {
    pub session_id: SessionId,
    pub token_hash: String,
    pub push: Recipient<Push>,
    pub close: Recipient<CloseSocket>,
}

/// The stream's identity and position when a session attached.
#[derive(Debug, Clone, MessageResponse)]
pub struct Attached {
    pub stream: String,
    pub seq: u64,
}

/// Session → stream: stop receiving.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Detach {
    pub session_id: SessionId,
}

/// Session → stream: replay what followed `last_seq`, then a type-15 answer,
/// all through the session's `Push` recipient so they stay in order with
/// live pushes.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Replay {
    pub session_id: SessionId,
    pub last_seq: u64,
    pub stream: Option<String>,
}
