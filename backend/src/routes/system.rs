//! Liveness and health.

use actix_web::{web, HttpResponse};
use protocol::{Envelope, ErrorCode};

use crate::error::{ok, ApiResult};
use crate::state::AppState;

pub async fn ping() -> ApiResult {
    Ok(ok("pong"))
}

/// `are/you/ok`: the store, queue and bus probed (`crate::health`); 200
/// with the report when all are up, 503 `ServiceUnavailable` with the
/// report as `data` when any is down.
pub async fn are_you_ok(state: web::Data<AppState>) -> HttpResponse {
    let report = state.health.check().await;
    if report.ok {
        ok(report)
    } else {
        let mut envelope = Envelope::<Option<()>>::error(
            ErrorCode::Unavailable,
            Some("a part of the service is down".into()),
        );
        let failing: Vec<&str> = [
            ("store", report.store.ok),
            ("queue", report.queue.ok),
            ("bus", report.bus.ok),
        ]
        .iter()
        .filter(|(_, up)| !up)
        .map(|(name, _)| *name)
        .collect();
        envelope.status.msg = format!("down: {}", failing.join(", "));
        HttpResponse::ServiceUnavailable().json(Envelope {
            status: envelope.status,
            data: report,
        })
    }
}

/// `health`: the build's version and the backends in use.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    pub version: String,
    pub store: String,
    pub bus: String,
}

pub async fn health(state: web::Data<AppState>) -> ApiResult {
    Ok(ok(Health {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        store: state.store.backend_name().to_owned(),
        bus: state.bus.backend_name().to_owned(),
    }))
}

pub async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().json(Envelope::<Option<()>>::error(
        ErrorCode::NotFound,
        Some("no such API route".into()),
    ))
}
