//! Voices (spec 3 §7 Timbre): `timbre/{detail, tts, train, train/progress,
//! train/log, edit, delete, voice/delete, voice/get}` and
//! `square/timbre/{comprehensive-rec, my, voice/list}`.

use actix_web::web;

pub fn routes(_cfg: &mut web::ServiceConfig) {}
