//! Analytics calls (issue 22 part 5, spec 3 §7 "Tracking and reports"):
//! the ingest calls `dot/report`, `dot/log`, `/log/v1/dot`,
//! `/log/v1/event_report` (events) and `/log/v1/error_report` (client
//! errors); the account's opt-out (`analytics/settings`); and the
//! operator's questions `admin/analytics/{dau, funnel, retention, errors}`.
//!
//! Ingest takes any content type (a `sendBeacon` sends `text/plain`) and
//! the account's token in the `token` header or, for beacons, which cannot
//! set headers, in the body's `token` field; an unknown or expired token
//! counts the events as a visitor's instead of failing the beacon.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::analytics::query::{self, week_start};
use protocol::analytics::validate::{parse_batch, Call};
use protocol::analytics::{Origin, MAX_BODY_BYTES};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use crate::analytics::privacy::RequestFacts;
use crate::analytics::row::{ERRORS, PEOPLE};
use crate::auth::{client_ip, token_of, Authed};
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.post("/dot/report", events, doc("Record client analytics events"))
        .post(
            "/dot/log",
            events,
            doc("Record client analytics events (log form)"),
        )
        .post(
            "/analytics/settings",
            settings,
            doc("Read or change the caller's analytics opt-out").body::<SettingsChange>(),
        )
        .post(
            "/admin/analytics/dau",
            dau,
            doc("Operators: daily active users per day").body::<RangeRequest>(),
        )
        .post(
            "/admin/analytics/funnel",
            funnel,
            doc("Operators: the visitor funnel over a period").body::<RangeRequest>(),
        )
        .post(
            "/admin/analytics/retention",
            retention,
            doc("Operators: weekly retention of sign-up cohorts").body::<RangeRequest>(),
        )
        .post(
            "/admin/analytics/errors",
            errors,
            doc("Operators: client errors by release").body::<RangeRequest>(),
        );
}

/// The `/log/v1` family (outside `/api/v1`).
pub fn log_routes(api: &mut Api) {
    api.scope("/log/v1", |api| {
        api.post(
            "/dot",
            events,
            doc("Record client analytics events (log service)"),
        )
        .post(
            "/event_report",
            events,
            doc("Record client analytics events (event report)"),
        )
        .post(
            "/error_report",
            error_report,
            doc("Record a client error report"),
        );
    });
}

async fn events(req: HttpRequest, state: web::Data<AppState>, body: web::Bytes) -> ApiResult {
    ingest(req, state, body, Call::Events).await
}

async fn error_report(req: HttpRequest, state: web::Data<AppState>, body: web::Bytes) -> ApiResult {
    ingest(req, state, body, Call::Errors).await
}

#[tracing::instrument(skip_all, fields(call = ?call))]
async fn ingest(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
    call: Call,
) -> ApiResult {
    if body.len() > MAX_BODY_BYTES {
        return Err(ErrorCode::AnalyticsBatchTooLarge.into());
    }
    if !state.analytics.admit(&client_ip(&req)).await {
        return Err(ErrorCode::TooManyRequests.into());
    }
    let value: serde_json::Value = serde_json::from_slice(&body).map_err(|_| {
        ApiError::with_msg(ErrorCode::AnalyticsBatchInvalid, "the body is not JSON")
    })?;
    let batch = parse_batch(&value, call, Origin::Client)
        .map_err(|e| ApiError::with_msg(ErrorCode::AnalyticsBatchInvalid, e.to_string()))?;
    let token = token_of(&req).or_else(|| {
        value
            .get("token")
            .and_then(|t| t.as_str())
            .map(|t| t.trim().to_owned())
    });
    let account = match token {
        Some(t) => state.accounts.authenticate(&t).await?,
        None => None,
    };
    let report = state
        .analytics
        .ingest(
            &RequestFacts::of(&req),
            account.as_ref().map(|c| c.account.id.as_str()),
            batch,
        )
        .await?;
    Ok(ok(report))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsChange {
    #[serde(default)]
    analytics_opt_out: Option<bool>,
}

/// Reads (empty body) or changes the account's `analytics_opt_out`.
async fn settings(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<SettingsChange>,
) -> ApiResult {
    let id = &caller.0.account.id;
    if let Some(on) = body.analytics_opt_out {
        state.analytics.set_opt_out(id, on).await?;
    }
    Ok(ok(json!({
        "analytics_opt_out": state.analytics.opted_out(id).await?,
    })))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeRequest {
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    /// The funnel's conversion window (1 to 90 days, 7 by default).
    #[serde(default)]
    window_days: Option<i32>,
}

/// The longest range a question may span.
const MAX_SPAN_DAYS: i32 = 366;

fn day_of(s: &Option<String>) -> Result<Option<i32>, ApiError> {
    match s.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => query::parse_day(s)
            .map(Some)
            .ok_or_else(|| ErrorCode::AnalyticsRangeInvalid.into()),
    }
}

/// `from..=to`, defaulting to the `default_days` days ending today.
fn range(body: &RangeRequest, today: i32, default_days: i32) -> Result<(i32, i32), ApiError> {
    let to = day_of(&body.to)?.unwrap_or(today);
    let from = day_of(&body.from)?.unwrap_or(to - (default_days - 1));
    if from > to || to - from >= MAX_SPAN_DAYS {
        return Err(ErrorCode::AnalyticsRangeInvalid.into());
    }
    Ok((from, to))
}

use super::require_operator as operator;

/// Daily active users, one row per day (30 days to today by default).
async fn dau(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<RangeRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    let (from, to) = range(&body, state.analytics.today(), 30)?;
    let facts = state.analytics.facts(from, to, PEOPLE).await?;
    Ok(ok(json!({
        "from": query::format_day(from),
        "to": query::format_day(to),
        "days": query::dau(&facts, from, to),
    })))
}

/// The funnel of the visitors first seen in `from..=to` (7 days by default).
async fn funnel(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<RangeRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    let (from, to) = range(&body, state.analytics.today(), 7)?;
    let window = body.window_days.unwrap_or(7);
    if !(1..=90).contains(&window) {
        return Err(ApiError::with_msg(
            ErrorCode::AnalyticsRangeInvalid,
            "window_days must be 1 to 90",
        ));
    }
    let facts = state.analytics.facts(from, to + window, PEOPLE).await?;
    Ok(ok(query::funnel(&facts, from, to, window)))
}

/// Weekly retention of the accounts that signed up in `from..=to` (the
/// last 8 weeks by default), counted up to today.
async fn retention(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<RangeRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    let today = state.analytics.today();
    let (from, to) = range(&body, today, (today - week_start(today)) + 50)?;
    let start = week_start(from);
    let until = today.max(to);
    if until - start >= MAX_SPAN_DAYS + 7 {
        return Err(ErrorCode::AnalyticsRangeInvalid.into());
    }
    let facts = state.analytics.facts(start, until, PEOPLE).await?;
    Ok(ok(json!({
        "from": query::format_day(start),
        "to": query::format_day(to),
        "cohorts": query::retention(&facts, from, to, today),
    })))
}

/// Client errors by release (the last 7 days by default).
async fn errors(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<RangeRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    let (from, to) = range(&body, state.analytics.today(), 7)?;
    let facts = state.analytics.facts(from, to, ERRORS).await?;
    Ok(ok(json!({
        "from": query::format_day(from),
        "to": query::format_day(to),
        "releases": query::errors_by_release(&facts, from, to),
    })))
}
