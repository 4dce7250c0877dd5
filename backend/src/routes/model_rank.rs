//! Model rankings and leaderboards, tags and creativity templates (spec 3 §7 Model ranking, Tags, Creativity; issue 19).
//!
//! So far: `model/leaderboard/creator-earnings` (the caller's earnings from
//! the agency fees of their models: total, today, by model, entries newest
//! first, paged) and `model/ver/can-del` (whether an own version may be
//! deleted: not while an unfinished task or a published work uses it).

use super::api::{doc, Api};
use actix_web::web;
use infra::store::PagingState;
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::accounts::now_millis;
use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::models::uses::{day_of, ModelUses, ALL_TIME};
use crate::models::ModelService;
use crate::state::AppState;

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(api: &mut Api) {
    api.post(
        "/model/leaderboard/creator-earnings",
        creator_earnings,
        doc("Creators ranked by their earnings").body::<EarningsRequest>(),
    )
    .post(
        "/model/ver/can-del",
        can_delete,
        doc("Whether a model version may be deleted").body::<CanDeleteRequest>(),
    );
}

fn uses(s: &AppState) -> ModelUses {
    ModelUses::new(s.store.clone(), s.ledger.clone())
}

/// An id as clients send it: a string or a number.
fn id_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[derive(utoipa::ToSchema, Debug, Deserialize, Default)]
pub struct EarningsRequest {
    #[serde(default)]
    pub page_size: Option<u32>,
    /// The `next` of the previous page.
    #[serde(default)]
    pub paging: Option<String>,
}

/// Models listed with their earnings, at most.
const BY_MODEL_MAX: usize = 100;

pub async fn creator_earnings(
    a: Authed,
    s: web::Data<AppState>,
    b: Option<web::Json<EarningsRequest>>,
) -> ApiResult {
    let me = a.0.account.id.clone();
    let b = b.map(web::Json::into_inner).unwrap_or_default();
    let paging = match b.paging.as_deref().filter(|p| !p.is_empty()) {
        Some(p) => Some(PagingState::from_hex(p).ok_or_else(|| {
            ApiError::with_msg(ErrorCode::InvalidParams, "paging is not a page marker")
        })?),
        None => None,
    };
    let u = uses(&s);
    let today = day_of(now_millis());
    let total = u.creator_earnings(&me, ALL_TIME).await?;
    let today_total = u.creator_earnings(&me, today).await?;
    let mut by_model = Vec::new();
    for m in ModelService::new(s.store.clone())
        .owned(&me, BY_MODEL_MAX)
        .await?
    {
        let (uses_all, earned) = u.model_counts(&m.id, ALL_TIME).await?;
        by_model.push(json!({
            "model_id": m.id,
            "name": m.name,
            "model_type": m.model_type,
            "agency_fee": m.agency_fee,
            "uses": uses_all,
            "earnings": earned,
        }));
    }
    by_model.sort_by_key(|v| std::cmp::Reverse(v["earnings"].as_i64().unwrap_or(0)));
    let (items, next) = u
        .earnings_page(&me, b.page_size.unwrap_or(20), paging)
        .await?;
    Ok(ok(json!({
        "total": total,
        "today": today_total,
        "by_model": by_model,
        "items": items,
        "next": next.map(|p| p.to_hex()),
    })))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct CanDeleteRequest {
    #[serde(default)]
    pub model_ver_no: Value,
}

pub async fn can_delete(
    a: Authed,
    s: web::Data<AppState>,
    b: web::Json<CanDeleteRequest>,
) -> ApiResult {
    let ver = id_of(&b.model_ver_no)
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "model_ver_no is required"))?;
    let me = a.0.account.id.as_str();
    let models = ModelService::new(s.store.clone());
    // Only the owner asks: anyone else's version answers like a missing one.
    let (m, v) = models.version_for(&ver, Some(me)).await?;
    if m.owner != me {
        return Err(ErrorCode::NotFound.into());
    }
    let (can_delete, reason) = uses(&s).can_delete(&m.id, &v.ver_no).await?;
    Ok(ok(json!({
        "model_ver_no": v.ver_no,
        "can_delete": can_delete,
        "reason": reason,
    })))
}
