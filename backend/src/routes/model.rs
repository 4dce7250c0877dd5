//! Models (spec 3 §7 Models; issue 19): model/*, square/model/*, resource/{createModel, commitModel, delModel, publish}, model downloads.

use actix_web::web;

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(_cfg: &mut web::ServiceConfig) {}
