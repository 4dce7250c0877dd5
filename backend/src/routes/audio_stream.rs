//! The audio download event stream (spec 2 §7): an audio file as `chunk`
//! events of base64 `audioData`, then an `end` event, under `/api/stream`.

use actix_web::web;

pub fn routes(_cfg: &mut web::ServiceConfig) {}
