//! Easel's actors. One `SessionActor` per WebSocket; one `StreamActor` per
//! user with live sockets (its push stream: sequence numbers and the replay
//! buffer that lets a reconnecting socket resume without loss).
//!
//! Architecture Invariant: actors hold no state that must survive a crash;
//! what matters is in the Store before an actor hears of it. The replay buffer
//! is a convenience for reconnects, and a client that cannot resume is told
//! so (`resumed: false`) and reloads over REST.

pub mod message;
pub mod session;
pub mod stream;

pub use session::{AuthFailure, AuthedSocketUser, Authenticator, SessionActor, SessionDeps};
pub use stream::StreamRegistry;

/// WebSocket close codes Easel uses (DESIGN.md "Actors").
pub mod close_code {
    /// Bad or expired token, or the token was logged out.
    pub const BAD_TOKEN: u16 = 4401;
    /// The account was disabled (banned) while connected.
    pub const BANNED: u16 = 4403;
    /// No type-7 auth within the auth timeout.
    pub const AUTH_TIMEOUT: u16 = 4408;
    /// No frame at all within the idle timeout.
    pub const IDLE_TIMEOUT: u16 = 4410;
    /// A second auth, or more frames per second than allowed.
    pub const TOO_MANY: u16 = 4429;
    /// The server could not check the token (store unavailable): retry later.
    pub const UNAVAILABLE: u16 = 1011;
    /// The socket could not keep up with its pushes.
    pub const TOO_SLOW: u16 = 1013;
    /// A frame over the size limit.
    pub const TOO_LARGE: u16 = 1009;
    /// A frame that could not be decoded.
    pub const BAD_FRAME: u16 = 1007;
}
