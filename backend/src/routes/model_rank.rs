//! Model rankings and leaderboards, tags and creativity templates (spec 3 §7 Model ranking, Tags, Creativity; issue 19).

use actix_web::web;

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(_cfg: &mut web::ServiceConfig) {}
