//! Faces in pictures and videos (spec 2 §7): `resource/video/detectFace`,
//! `resource/video/frameDescription` (in the `/resource` scope) and
//! `tool/face/detection`.

use actix_web::web;

/// Routes inside the `/resource` scope.
pub fn resource_routes(_cfg: &mut web::ServiceConfig) {}

/// Plain routes under `/api/v1`.
pub fn routes(_cfg: &mut web::ServiceConfig) {}
