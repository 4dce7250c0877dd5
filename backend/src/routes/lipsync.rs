//! Lip-sync (spec 2 §7): `task/v2/audio/audio-to-lip-video`.

use actix_web::web;

pub fn routes(_cfg: &mut web::ServiceConfig) {}
