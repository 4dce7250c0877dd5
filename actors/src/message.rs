//! Messages between the socket actors: sessions attach to their user's push
//! stream, the stream puts frames straight into each session's writer queue
//! ([`PushSink`]) and sends close orders to the session actor.

use std::sync::{Arc, OnceLock};

use actix::prelude::*;
use actix_web::web::Bytes;
use protocol::frame::{push_json, Codec, Frame, FrameType, PushContent};
use tokio::sync::mpsc;

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
    /// The publisher's time (push kinds only; see `Frame::ts`).
    ts: Option<u64>,
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
    /// Push kinds (10 to 13) carry the content's publish time as `ts`.
    pub fn new(kind: u16, content: PushContent, seq: Option<u64>) -> OutFrame {
        let is_push = FrameType::from_u16(kind).is_some_and(FrameType::is_push);
        let ts = if is_push { content.ts() } else { None };
        let json = Bytes::from(push_json(kind, &content, seq, ts));
        OutFrame {
            kind,
            seq,
            ts,
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
                                ts: self.ts,
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

/// What a session's writer task sends, in queue order.
#[derive(Debug)]
pub enum Outgoing {
    /// A pushed frame, shared by the user's sockets; the writer takes the
    /// bytes of its socket's codec.
    Frame(Arc<OutFrame>),
    /// A frame of this socket's own, already in its codec.
    Data(Bytes),
    Pong(Vec<u8>),
}

/// Why a frame could not be queued for a socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkError {
    /// The socket is not keeping up: its queue is full (close it, 1013).
    Full,
    /// The socket's writer is gone.
    Closed,
}

/// A session's writer queue as its stream sees it. Pushes go into it
/// straight from the stream, with no hop through the session actor's
/// mailbox: one queue and one wake per delivery. Bounded, so a socket that
/// cannot keep up is closed instead of growing memory without bound.
#[derive(Debug, Clone)]
pub struct PushSink {
    tx: mpsc::Sender<Outgoing>,
}

impl PushSink {
    /// A sink holding up to `capacity` frames, and its writer's end.
    pub fn channel(capacity: usize) -> (PushSink, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        (PushSink { tx }, rx)
    }

    /// Queues a pushed frame.
    pub fn push(&self, frame: Arc<OutFrame>) -> Result<(), SinkError> {
        self.send(Outgoing::Frame(frame))
    }

    /// Queues anything.
    pub fn send(&self, item: Outgoing) -> Result<(), SinkError> {
        self.tx.try_send(item).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => SinkError::Full,
            mpsc::error::TrySendError::Closed(_) => SinkError::Closed,
        })
    }
}

/// Stream → session: close the socket with this code.
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct CloseSocket {
    pub code: u16,
    pub reason: String,
}

/// Session → stream: start receiving pushes. The stream first queues the
/// auth confirmation (a type 4 with `{account_id, stream, seq}`, in `codec`)
/// into `sink`, so it precedes every push numbered after `seq`.
#[derive(Message)]
#[rtype(result = "Attached")]
pub struct Attach {
    pub session_id: SessionId,
    pub token_hash: String,
    pub codec: Codec,
    pub sink: PushSink,
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
/// all through the session's sink so they stay in order with live pushes.
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
                ts: Some(99),
            };
            let out = OutFrame::new(10, PushContent::from_value(&content).with_ts(Some(99)), seq);
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
    fn only_push_kinds_carry_the_publish_time() {
        let content = PushContent::from_value(&json!({"a": 1})).with_ts(Some(7));
        for kind in [10, 11, 12, 13] {
            let out = OutFrame::new(kind, content.clone(), Some(1));
            let frame = Codec::Json
                .decode(&out.encoded(Codec::Json).unwrap())
                .unwrap();
            assert_eq!(frame.ts, Some(7));
            let frame = Codec::MsgPack
                .decode(&out.encoded(Codec::MsgPack).unwrap())
                .unwrap();
            assert_eq!(frame.ts, Some(7));
        }
        let answer = OutFrame::new(15, content, None);
        let frame = Codec::Json
            .decode(&answer.encoded(Codec::Json).unwrap())
            .unwrap();
        assert_eq!(frame.ts, None);
    }

    #[test]
    fn a_full_sink_says_so_and_a_dropped_writer_too() {
        let (sink, mut rx) = PushSink::channel(1);
        let f = Arc::new(OutFrame::new(
            12,
            PushContent::from_value(&json!(1)),
            Some(1),
        ));
        assert_eq!(sink.push(f.clone()), Ok(()));
        assert_eq!(sink.push(f.clone()), Err(SinkError::Full));
        assert!(matches!(rx.try_recv(), Ok(Outgoing::Frame(g)) if Arc::ptr_eq(&g, &f)));
        drop(rx);
        assert_eq!(sink.push(f), Err(SinkError::Closed));
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
