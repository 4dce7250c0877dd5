//! Liveness and health.

use actix_web::{web, HttpResponse};
use protocol::{Envelope, ErrorCode};
use serde_json::json;

use crate::error::{ok, ApiResult};
use crate::state::AppState;

pub async fn ping() -> ApiResult {
    Ok(ok("pong"))
}

pub async fn health(state: web::Data<AppState>) -> ApiResult {
    Ok(ok(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "store": state.store.backend_name(),
        "bus": state.bus.backend_name(),
    })))
}

pub async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().json(Envelope::<Option<()>>::error(
        ErrorCode::NotFound,
        Some("no such API route".into()),
    ))
}
