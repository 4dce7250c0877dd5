//! Operator calls: ban and unban an account (status 2 / 1). Operators are
//! the e-mails listed in the `admins` setting (`EASEL_ADMINS`).

use actix_web::web;
use protocol::account::SetStatusRequest;
use protocol::ErrorCode;

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
    Ok(ok(row.info(state.accounts.is_admin(&row))))
}
