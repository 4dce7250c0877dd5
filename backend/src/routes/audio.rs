//! Audio generation calls (spec 2 §7), under `/api/v1/task/v2/audio`:
//! text-to-audio-effect, music/generate-lyrics, music/text-to-music,
//! video-to-audio, and (in `lipsync.rs`) audio-to-lip-video. Tasks answer
//! `data: {id}`; finished ones carry `audio_uris`.

use actix_web::web;

pub fn scope() -> actix_web::Scope {
    web::scope("/audio").configure(super::lipsync::routes)
}
