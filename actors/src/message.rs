//! Messages between the socket actors: sessions attach to their user's push
//! stream, the stream pushes frames and close orders to its sessions.

use std::sync::{Arc, OnceLock};

use actix::prelude::*;
use actix_web::web::Bytes;
use protocol::frame::{push_json, Codec, Frame, PushContent};

/// Identifies one socket within its user's stream.
pub type SessionId = u64;

/// A server frame encoded once for every socket of a stream: the stream
/// builds the JSON text once (by splicing the published content into the
/// envelope, see [`push_json`]), keeps it in its replay ring, and every
/// session of the user sends the same bytes, so a resume replays exactly
/// what was sent live.
#[derive(Debug)]
pub struct OutFrame {
    kind: u16,
    seq: Option<u64>,
    content: PushContent,
    /// The JSON text frame; `Bytes` so each session's writer gets it by a
    /// reference-count increment, not a copy.
    json: Bytes,
    /// The MessagePack encoding, made by the first `msgpack` session that
    /// needs it and then shared by the others: a stream with only JSON
    /// sockets never decodes the content. `None` when it cannot be encoded
    /// (logged once).
    msgpack: OnceLock<Option<Bytes>>,
}

impl OutFrame {
    pub fn new(kind: u16, content: PushContent, seq: Option<u64>) -> OutFrame {
        let json = Bytes::from(push_json(kind, &content, seq));
        OutFrame {
            kind,
            seq,
            content,
            json,
            msgpack: OnceLock::new(),
        }
    }

    /// The frame's sequence number (pushed frames only).
    pub fn seq(&self) -> Option<u64> {
        self.seq
    }

    /// The frame type.
    pub fn kind(&self) -> u16 {
        self.kind
    }

    /// The frame's bytes in `codec`, shared.
    pub fn encoded(&self, codec: Codec) -> Option<Bytes> {
        match codec {
            Codec::Json => Some(self.json.clone()),
            Codec::MsgPack => self
                .msgpack
                .get_or_init(|| {
                    let packed = self.content.to_value().map_err(|e| e.to_string()).and_then(
                        |content| {
                            let frame = Frame {
                                kind: self.kind,
                                token: None,
                                content,
                                seq: self.seq,
                            };
                            Codec::MsgPack.encode(&frame).map_err(|e| e.to_string())
                        },
                    );
                    match packed {
                        Ok(bytes) => Some(Bytes::from(bytes)),
                        Err(e) => {
                            tracing::error!(kind = self.kind, error = %e, "msgpack encoding failed");
                            None
                        }
                    }
                })
                .clone(),
        }
    }
}

/// Stream → session: one frame to send (already sequenced and encoded).
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct Push(pub Arc<OutFrame>);

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_codecs_give_the_frame_the_old_encoding_gave() {
        for (content, seq) in [
            (json!({"id": "t", "process": 50, "note": "é ✓"}), Some(12)),
            (json!({"resumed": true}), None),
            (json!(null), Some(1)),
        ] {
            let frame = Frame {
                kind: 10,
                token: None,
                content: content.clone(),
                seq,
            };
            let out = OutFrame::new(10, PushContent::from_value(&content), seq);
            assert_eq!(out.seq(), seq);
            assert_eq!(out.kind(), 10);
            for codec in [Codec::Json, Codec::MsgPack] {
                let bytes = out.encoded(codec).unwrap();
                assert_eq!(bytes.as_ref(), codec.encode(&frame).unwrap().as_slice());
                assert_eq!(codec.decode(&bytes).unwrap(), frame);
            }
        }
    }

    #[test]
    fn the_bytes_are_shared_not_copied() {
        let out = OutFrame::new(12, PushContent::from_value(&json!({"m": 1})), Some(3));
        for codec in [Codec::Json, Codec::MsgPack] {
            let a = out.encoded(codec).unwrap();
            let b = out.encoded(codec).unwrap();
            assert_eq!(a.as_ptr(), b.as_ptr());
        }
    }

    #[test]
    fn msgpack_is_only_made_when_asked_for() {
        let out = OutFrame::new(13, PushContent::from_value(&json!({"k": 2})), Some(1));
        let _ = out.encoded(Codec::Json);
        assert!(out.msgpack.get().is_none());
        let _ = out.encoded(Codec::MsgPack);
        assert!(out.msgpack.get().is_some());
    }
}
