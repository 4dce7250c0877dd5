//! The square (spec 3 §1-§3, §7 Square v1/v3, Search, Follow, Artwork,
//! Activities and posts, Comments, Tags; spec 1 §2-§4): the wire types of
//! works (picture, article and video posts), content cards and feeds,
//! likes, collects, follows, notifications, comments and search, and the
//! pure rules behind them (limits, the hot formula, cursors).
//!
//! Architecture Invariant: nothing here does I/O; the backend's
//! `square/` service stores and ranks, this module says what crosses the wire.

pub mod card;
pub mod comment;
pub mod feed;
pub mod nsfw;
pub mod rank;
pub mod search;
pub mod social;
pub mod work;

pub use card::{Card, CardAuthor, Cover, ObjType};
pub use feed::{FeedKind, FeedPage, FeedRequest, OrderBy, TimeType};
pub use work::{PostKind, Visibility, WorkDetail};

/// Characters of `s`, counted as the user sees them (Unicode scalar values).
pub fn chars(s: &str) -> usize {
    s.chars().count()
}
