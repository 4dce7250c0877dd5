//! Easel's wire contract: everything that crosses the network is defined here
//! and only here.
//!
//! Architecture Invariant: this crate does no I/O (except the optional
//! `client` module) and knows nothing of actix, redb, scylla or redis. Types
//! that derive `Serialize` here *are* the contract; other crates convert to
//! and from them at their edges.

pub mod account;
pub mod activity;
pub mod agent;
pub mod analytics;
pub mod audio;
pub mod awards;
pub mod character;
pub mod character_extras;
pub mod chat;
pub mod envelope;
pub mod error;
pub mod frame;
pub mod home;
pub mod im;
pub mod mall;
pub mod models;
pub mod moderation;
pub mod ornament;
pub mod prompt;
pub mod prompt_stream;
pub mod rag;
pub mod square;
pub mod task;
pub mod textfilter;
pub mod video;
// Issue 22: questionnaires and short links.
pub mod shortlink;
pub mod survey;

#[cfg(feature = "client")]
pub mod client;

pub use envelope::{Envelope, Status};
pub use error::ErrorCode;
pub use frame::{Codec, Frame, FrameType};
