//! The messages a `ChatActor` handles.

use actix::prelude::*;
use protocol::chat::MessageState;
use tokio::sync::watch;

use super::prompt::CardText;
use super::row::ChatSessionRow;
use crate::error::ApiError;

/// What `chat/start` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartKind {
    /// A new user message (already validated) and a reply to it.
    New(String),
    /// A new text for the last reply (or a reply to a last user message left unanswered).
    Regenerate,
    /// More text appended to the last reply.
    Continue,
}

/// Start a reply. Answers the reply's message id once its row is stored
/// and the model has accepted the request; the text follows as frames 11.
#[derive(Message)]
#[rtype(result = "Result<String, ApiError>")]
pub struct Start {
    /// The session as the service checked it (owner, refreshed snapshot).
    pub session: ChatSessionRow,
    /// `{{user}}` in the prompt.
    pub user_name: String,
    /// The user's chat persona ("About {{user}}"), may be empty.
    pub user_persona: String,
    /// The bound datacards that still exist, in order.
    pub datacards: Vec<CardText>,
    pub kind: StartKind,
}

/// Cancel the running reply. Answers a receiver that turns true once the
/// reply's final state is stored and its closing frame sent, or `None`
/// when no reply runs on this node.
#[derive(Message)]
#[rtype(result = "Option<watch::Receiver<bool>>")]
pub struct Stop;

/// The running reply's text so far, if one runs on this node.
#[derive(Message)]
#[rtype(result = "Option<LiveText>")]
pub struct Snapshot;

/// Sent by a reply's pump when it has stored the final state.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Finished {
    pub msg_id: String,
}

/// A running reply as it stands: `content` reflects every frame up to `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveText {
    pub msg_id: String,
    pub content: String,
    pub seq: u64,
    pub state: MessageState,
}
