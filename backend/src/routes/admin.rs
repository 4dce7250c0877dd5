//! Operator calls: ban and unban an account (status 2 / 1). Operators are
//! the e-mails listed in the `admins` setting (`EASEL_ADMINS`).

use actix_web::web;
use protocol::account::{PaymentInfo, SetStatusRequest};
use protocol::ErrorCode;
use serde::Deserialize;

use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

#[tracing::instrument(skip_all, fields(target = %body.account_id, status = body.status))]
pub async fn set_account_status(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<SetStatusRequest>,
) -> ApiResult {
    if !state.accounts.is_admin(&caller.0.account) {
        return Err(ErrorCode::NoPermission.into());
    }
    if body.account_id == caller.0.account.id {
        return Err(crate::error::ApiError::with_msg(
            ErrorCode::Conflict,
            "operators cannot change their own status",
        ));
    }
    let row = state
        .accounts
        .set_status(&body.account_id, body.status)
        .await?;
    // A banned author's works leave every feed and search at once.
    state.square.author_changed(&body.account_id).await?;
    Ok(ok(row.info(state.accounts.is_admin(&row))))
}

/// The store's write counters for operators (`POST /api/v1/admin/store`):
/// operations, durable commits and split batches since the server started,
/// so an operator can see how many writes share a commit under load.
/// `writes` is null on a store that does not count them (ScyllaDB).
pub async fn store_stats(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    operator(&state, &caller)?;
    Ok(ok(serde_json::json!({
        "backend": state.store.backend_name(),
        "writes": state.store.write_stats(),
    })))
}

fn operator(state: &AppState, caller: &Authed) -> Result<(), crate::error::ApiError> {
    if state.accounts.is_admin(&caller.0.account) {
        Ok(())
    } else {
        Err(ErrorCode::NoPermission.into())
    }
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct MembershipRequest {
    pub account_id: String,
    pub payment: PaymentInfo,
}

/// Grants or ends a membership (paid role of spec 1 §6).
#[tracing::instrument(skip_all, fields(target = %body.account_id))]
pub async fn set_membership(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<MembershipRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    let row = state
        .accounts
        .set_membership(&body.account_id, body.payment.clone())
        .await?;
    Ok(ok(row.payment))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct GrantRequest {
    pub account_id: String,
    pub amount: i64,
    /// Idempotency key: the same key grants once.
    pub key: String,
}

/// Gives credits, once per key.
#[tracing::instrument(skip_all, fields(target = %body.account_id, amount = body.amount))]
pub async fn grant_credits(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<GrantRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    if body.amount <= 0
        || body.amount > 1_000_000_000
        || body.key.is_empty()
        || body.key.len() > 200
    {
        return Err(crate::error::ApiError::with_msg(
            ErrorCode::InvalidParams,
            "amount must be 1 to 1e9 and key 1 to 200 characters",
        ));
    }
    state
        .accounts
        .get(&body.account_id)
        .await?
        .ok_or(ErrorCode::NotFound)?;
    let applied = state
        .ledger
        .grant(&body.account_id, &format!("op:{}", body.key), body.amount)
        .await?;
    let b = state.ledger.balance(&body.account_id).await?;
    Ok(ok(
        serde_json::json!({"applied": applied, "balance": b.balance, "available": b.available()}),
    ))
}

#[derive(utoipa::ToSchema, Debug, serde::Deserialize)]
pub struct RecountRequest {
    id: String,
}

/// `admin/square/recount`: mends a work's like and collect counters from their rows.
pub async fn square_recount(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<RecountRequest>,
) -> ApiResult {
    if !state.accounts.is_admin(&caller.0.account) {
        return Err(ErrorCode::NoPermission.into());
    }
    Ok(ok(state.square.recount(&body.id).await?))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct CompanyRequest {
    pub account_id: String,
    pub company: bool,
}

/// Marks a company account (VIP, spec 2 §6).
#[tracing::instrument(skip_all, fields(target = %body.account_id))]
pub async fn set_company(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<CompanyRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    let row = state
        .accounts
        .set_company(&body.account_id, body.company)
        .await?;
    Ok(ok(
        serde_json::json!({"company": row.company, "payment": row.payment_now()}),
    ))
}

/// Every product, hidden ones too.
pub async fn products(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    operator(&state, &caller)?;
    Ok(ok(
        serde_json::json!({"items": state.mall.catalog().all().await?}),
    ))
}

/// Adds or changes a product (a hidden one is `active: false`).
#[tracing::instrument(skip_all, fields(product = %body.product_id))]
pub async fn upsert_product(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<protocol::mall::Product>,
) -> ApiResult {
    operator(&state, &caller)?;
    state.mall.catalog().upsert(&body).await?;
    Ok(ok(body.into_inner()))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct OrderRequest {
    pub order_id: String,
}

/// A manual (bank transfer) order's money arrived.
#[tracing::instrument(skip_all, fields(order = %body.order_id))]
pub async fn mark_paid(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<OrderRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    Ok(ok(state
        .mall
        .mark_paid(&body.order_id, &caller.0.account.id)
        .await?))
}

/// A manual order's money was sent back: its credits are taken back.
#[tracing::instrument(skip_all, fields(order = %body.order_id))]
pub async fn mark_refunded(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<OrderRequest>,
) -> ApiResult {
    operator(&state, &caller)?;
    Ok(ok(state
        .mall
        .mark_refunded(&body.order_id, &caller.0.account.id)
        .await?))
}
