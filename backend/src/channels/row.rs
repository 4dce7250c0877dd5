//! The stored channel, member and message rows (tables `channels`,
//! `channel_members`, `channel_messages`).

use protocol::im::{MessageKind, Role};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelRow {
    pub id: String,
    pub name: String,
    /// PRIVATE: generation in the channel stays with its creator (spec 1 §4).
    pub private: bool,
    pub owner: String,
    pub invite_code: String,
    pub create_at: i64,
    /// The sequence of the channel's newest message. Changed only by
    /// compare-and-set, so two nodes cannot hand out the same number.
    pub last_seq: u64,
    /// A disbanded channel keeps this tombstone so every later call answers NotFound.
    pub disbanded: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberRow {
    pub role: Role,
    pub joined_at: i64,
    /// The newest sequence this member has read: unread = last_seq − read_seq.
    pub read_seq: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageRow {
    pub seq: u64,
    pub sender: String,
    pub sender_name: String,
    pub kind: MessageKind,
    /// The content as JSON text (a string for text, a `SharedTask` for task):
    /// MessagePack of an arbitrary JSON value is avoided on purpose.
    pub content: String,
    pub create_at: i64,
}

impl MessageRow {
    pub fn wire(&self, channel_id: &str) -> protocol::im::ImMessage {
        protocol::im::ImMessage {
            channel_id: channel_id.to_owned(),
            seq: self.seq,
            sender: self.sender.clone(),
            sender_name: self.sender_name.clone(),
            kind: self.kind,
            content: serde_json::from_str(&self.content).unwrap_or(serde_json::Value::Null),
            create_at: self.create_at,
        }
    }
}
