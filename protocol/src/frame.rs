//! WebSocket frames: the `{type, token, content}` objects that travel on the
//! one socket, their closed set of kinds, and the two codecs (JSON text, and
//! MessagePack binary when the socket's subprotocol is `msgpack`).
//!
//! A frame is decoded once into [`ClientFrame`] (client to server) so the
//! session dispatches on a closed enum, never on raw numbers.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The frame kinds of DESIGN.md's Contracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum FrameType {
    /// Heartbeat, both ways; the server's first one confirms authentication.
    Heartbeat = 4,
    /// Client authentication: `token` set.
    Auth = 7,
    /// A task update: content is the polled task object.
    TaskUpdate = 10,
    /// A chat token stream: `{session_id, msg_id, seq, delta, done}`.
    ChatStream = 11,
    /// An IM channel message.
    ImMessage = 12,
    /// A notification.
    Notification = 13,
    /// An error: `{code, key, msg}`.
    Error = 14,
    /// Resume: the client sends `{last_seq}` after auth; the server answers
    /// with what it could replay.
    Resume = 15,
}

impl FrameType {
    pub const fn as_u16(self) -> u16 {
        self as u16
    }

    pub fn from_u16(n: u16) -> Option<FrameType> {
        Some(match n {
            4 => FrameType::Heartbeat,
            7 => FrameType::Auth,
            10 => FrameType::TaskUpdate,
            11 => FrameType::ChatStream,
            12 => FrameType::ImMessage,
            13 => FrameType::Notification,
            14 => FrameType::Error,
            15 => FrameType::Resume,
            _ => return None,
        })
    }

    /// Kinds that are pushed from the Bus and so carry a sequence number
    /// that resume can replay.
    pub const fn is_push(self) -> bool {
        matches!(
            self,
            FrameType::TaskUpdate
                | FrameType::ChatStream
                | FrameType::ImMessage
                | FrameType::Notification
        )
    }
}

/// A frame as it is on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    #[serde(rename = "type")]
    pub kind: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(default)]
    pub content: Value,
    /// The per-stream sequence number of a pushed frame (types 10 to 13);
    /// a client resumes from the last one it saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// When the publisher made the push (types 10 to 13), in microseconds
    /// since the Unix epoch: the time its content was encoded, carried with
    /// it across the Bus (Redis included), not the time a socket wrote it.
    /// A replayed frame keeps its first time. Emission-to-receipt latency is
    /// the receiver's clock minus this one (same machine or synced clocks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<u64>,
}

impl Frame {
    pub fn new(kind: FrameType, content: Value) -> Frame {
        Frame {
            kind: kind.as_u16(),
            token: None,
            content,
            seq: None,
            ts: None,
        }
    }

    pub fn auth(token: impl Into<String>) -> Frame {
        Frame {
            kind: FrameType::Auth.as_u16(),
            token: Some(token.into()),
            content: Value::Null,
            seq: None,
            ts: None,
        }
    }

    pub fn heartbeat() -> Frame {
        Frame::new(FrameType::Heartbeat, Value::Null)
    }

    pub fn resume(last_seq: u64, stream: Option<&str>) -> Frame {
        let mut content = serde_json::json!({ "last_seq": last_seq });
        if let (Some(s), Some(obj)) = (stream, content.as_object_mut()) {
            obj.insert("stream".into(), Value::String(s.to_owned()));
        }
        Frame::new(FrameType::Resume, content)
    }

    pub fn error(code: crate::ErrorCode, msg: Option<&str>) -> Frame {
        Frame::new(
            FrameType::Error,
            serde_json::json!({
                "code": code.code(),
                "key": code.key(),
                "msg": msg.unwrap_or(code.default_msg()),
            }),
        )
    }

    pub fn frame_type(&self) -> Option<FrameType> {
        FrameType::from_u16(self.kind)
    }
}

/// The content of a pushed frame, encoded to JSON text once where it is
/// published and shared from then on: a channel message to M members is one
/// encoding and M reference-count increments, not M deep clones.
///
/// Why our own `Arc<str>` and not serde_json's `RawValue`: `RawValue` needs
/// serde_json's `raw_value` feature, which the workspace does not enable, and
/// the one thing it would add (splicing the text verbatim into another
/// serde serialisation) is done here by [`push_json`] for the socket and by
/// the Redis bus for its own envelope. Through any other serde format a
/// `PushContent` serialises as the JSON value it holds (an object stays an
/// object, never a string of JSON), so it round-trips as JSON.
///
/// Invariant: the text is always one complete, compact JSON value, because
/// the only constructors are serde_json's own serialisers.
#[derive(Clone)]
pub struct PushContent {
    text: Arc<str>,
    /// When the publisher encoded it (µs since the Unix epoch): the frame's
    /// `ts`. Stamped by the constructors, so every publisher gets it without
    /// a change; carried across the Bus beside the content
    /// ([`PushContent::with_ts`] restores it on the receiving node). `None`
    /// only for content that arrived without one.
    ts: Option<u64>,
}

/// Now, in microseconds since the Unix epoch (0 if the clock is before it).
pub fn now_micros() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl PushContent {
    /// Encodes `value` once, stamped with the current time. A struct is
    /// written in its field order, directly (no intermediate `Value`); JSON
    /// objects are unordered, so no reader depends on the order.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<PushContent, serde_json::Error> {
        serde_json::to_string(value).map(|s| PushContent {
            text: s.into(),
            ts: Some(now_micros()),
        })
    }

    /// Encodes a `Value`, stamped with the current time: exactly the text
    /// `serde_json` writes for it inside a [`Frame`] (keys in `Value`'s
    /// order). Never fails.
    pub fn from_value(value: &Value) -> PushContent {
        PushContent {
            text: value.to_string().into(),
            ts: Some(now_micros()),
        }
    }

    /// The same content with another publish time (what crossed the Bus
    /// with it), or none.
    pub fn with_ts(self, ts: Option<u64>) -> PushContent {
        PushContent { ts, ..self }
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// When the publisher made it (µs since the Unix epoch).
    pub fn ts(&self) -> Option<u64> {
        self.ts
    }

    /// Decodes the text into a `Value` (for codecs other than JSON).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.text)
    }
}

/// Equality (and hashing) is of the content, not of when it was encoded:
/// the same value published twice is the same content. Compare
/// [`PushContent::ts`] explicitly where the time matters.
impl PartialEq for PushContent {
    fn eq(&self, other: &PushContent) -> bool {
        self.text == other.text
    }
}

impl Eq for PushContent {}

impl std::hash::Hash for PushContent {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl fmt::Debug for PushContent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PushContent({}, ts {:?})", self.as_str(), self.ts)
    }
}

impl From<&Value> for PushContent {
    fn from(value: &Value) -> PushContent {
        PushContent::from_value(value)
    }
}

/// Serialises as the JSON value it holds (the time is not part of it: a
/// carrier that needs it, like the Bus, writes it beside the content).
impl Serialize for PushContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value()
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer)
    }
}

/// Deserialises a JSON value, stamped with the time of decoding; a carrier
/// that has the publisher's time restores it with [`PushContent::with_ts`].
impl<'de> Deserialize<'de> for PushContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PushContent, D::Error> {
        Value::deserialize(deserializer).map(|v| PushContent::from_value(&v))
    }
}

/// Appends the decimal digits of `n` (the hot path of every pushed frame:
/// no `fmt` machinery).
pub fn push_u64(out: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        if let Some(d) = buf.get_mut(i) {
            // n % 10 < 10, so the cast cannot truncate.
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    for &d in buf.get(i..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// The JSON text of a server frame with this content, built by splicing the
/// already-encoded content into the envelope: byte for byte what
/// `Codec::Json.encode` writes for `Frame { kind, token: None, content, seq,
/// ts }` (same field order, `seq` and `ts` left out when absent), without
/// re-encoding the content. Pinned against [`Codec::encode`] by tests.
pub fn push_json(kind: u16, content: &PushContent, seq: Option<u64>, ts: Option<u64>) -> String {
    let mut out = String::with_capacity(content.as_str().len() + 64);
    out.push_str("{\"type\":");
    push_u64(&mut out, u64::from(kind));
    out.push_str(",\"content\":");
    out.push_str(content.as_str());
    if let Some(seq) = seq {
        out.push_str(",\"seq\":");
        push_u64(&mut out, seq);
    }
    if let Some(ts) = ts {
        out.push_str(",\"ts\":");
        push_u64(&mut out, ts);
    }
    out.push('}');
    out
}

/// Content of the server's first heartbeat, which confirms authentication.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthConfirm {
    pub account_id: String,
    /// Identifies the push stream whose sequence numbers this socket sees;
    /// a resume names it so that numbers from another stream are not mixed up.
    pub stream: String,
    /// The last sequence number already pushed on that stream.
    pub seq: u64,
}

/// The stream every node names when the bus numbers a user's pushes in a
/// shared log (Redis): numbers then come from one counter for the whole
/// deployment, rising but not contiguous per user, and a resume works on any
/// node.
pub const SHARED_STREAM: &str = "shared";

/// The server's answer to a resume request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeResult {
    /// True when every frame after `last_seq` was replayed; false when some
    /// were no longer buffered (or the stream is unknown) and the client must
    /// reload its state over REST.
    pub resumed: bool,
    /// How many frames were replayed before this answer.
    pub replayed: u64,
    /// The stream's current last sequence number.
    pub seq: u64,
    pub stream: String,
}

/// A client-to-server frame, decoded once.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientFrame {
    Auth {
        token: String,
    },
    Heartbeat,
    Resume {
        last_seq: u64,
        stream: Option<String>,
    },
}

/// Why a client frame could not be decoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FrameError {
    #[error("malformed frame: {0}")]
    Malformed(String),
    #[error("frame type {0} is not accepted from a client")]
    UnexpectedType(u16),
    #[error("auth frame without a token")]
    MissingToken,
    #[error("resume frame without last_seq")]
    MissingLastSeq,
}

impl ClientFrame {
    pub fn from_frame(frame: Frame) -> Result<ClientFrame, FrameError> {
        match FrameType::from_u16(frame.kind) {
            Some(FrameType::Auth) => match frame.token {
                Some(token) if !token.is_empty() => Ok(ClientFrame::Auth { token }),
                _ => Err(FrameError::MissingToken),
            },
            Some(FrameType::Heartbeat) => Ok(ClientFrame::Heartbeat),
            Some(FrameType::Resume) => {
                let last_seq = frame
                    .content
                    .get("last_seq")
                    .and_then(Value::as_u64)
                    .ok_or(FrameError::MissingLastSeq)?;
                let stream = frame
                    .content
                    .get("stream")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                Ok(ClientFrame::Resume { last_seq, stream })
            }
            _ => Err(FrameError::UnexpectedType(frame.kind)),
        }
    }
}

/// The socket's encoding, chosen by the WebSocket subprotocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// JSON in text frames (the default).
    Json,
    /// MessagePack (named fields) in binary frames, subprotocol `msgpack`.
    MsgPack,
}

/// The subprotocol name that selects [`Codec::MsgPack`].
pub const MSGPACK_SUBPROTOCOL: &str = "msgpack";

impl Codec {
    /// Picks the codec from a `Sec-WebSocket-Protocol` request header value.
    pub fn from_subprotocols(header: Option<&str>) -> Codec {
        match header {
            Some(h)
                if h.split(',')
                    .any(|p| p.trim().eq_ignore_ascii_case(MSGPACK_SUBPROTOCOL)) =>
            {
                Codec::MsgPack
            }
            _ => Codec::Json,
        }
    }

    pub fn encode(self, frame: &Frame) -> Result<Vec<u8>, FrameError> {
        match self {
            Codec::Json => {
                serde_json::to_vec(frame).map_err(|e| FrameError::Malformed(e.to_string()))
            }
            Codec::MsgPack => {
                rmp_serde::to_vec_named(frame).map_err(|e| FrameError::Malformed(e.to_string()))
            }
        }
    }

    pub fn decode(self, bytes: &[u8]) -> Result<Frame, FrameError> {
        match self {
            Codec::Json => {
                serde_json::from_slice(bytes).map_err(|e| FrameError::Malformed(e.to_string()))
            }
            Codec::MsgPack => {
                rmp_serde::from_slice(bytes).map_err(|e| FrameError::Malformed(e.to_string()))
            }
        }
    }
}

#[cfg(test)]
#[path = "frame_tests.rs"]
mod tests;
