//! Datasets and training (spec 3 §7 Training; issue 19): dataset calls, train-model/*, task/create-refer.

use actix_web::web;

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(_cfg: &mut web::ServiceConfig) {}
