//! Account deletion and data export (issue 21 item 6): `account/delete/*`,
//! `account/export/*`, and the operators' `admin/account/deletion/*`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

use super::account::{limit, logged_in};
use crate::accounts::{deletion, export};
use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

type State = web::Data<AppState>;

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteRequest {
    #[serde(default)]
    pub password: String,
    /// Accounts without a password: a code sent to their phone.
    #[serde(default)]
    pub phone_code: Option<String>,
    /// Accounts that sign in through a provider: an `oidc/start` attempt
    /// with `reauth` (its state) and the provider's code.
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub token: Option<String>,
}

/// One proof: `email` and `password`; `phone` and `code` (sent by
/// `account/login-in/sms`); or `session_id` and `token` (an `oidc/start`
/// attempt's state and the provider's code).
#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelRequest {
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub token: Option<String>,
}

impl CancelRequest {
    fn proof(&self) -> Result<deletion::CancelProof<'_>, ApiError> {
        fn given(v: &Option<String>) -> Option<&str> {
            v.as_deref().map(str::trim).filter(|v| !v.is_empty())
        }
        match (
            given(&self.email),
            given(&self.phone),
            given(&self.session_id),
        ) {
            (Some(email), None, None) => Ok(deletion::CancelProof::Password {
                email,
                password: self.password.as_deref().unwrap_or(""),
            }),
            (None, Some(phone), None) => Ok(deletion::CancelProof::Phone {
                phone,
                code: given(&self.code).unwrap_or(""),
            }),
            (None, None, Some(session_id)) => Ok(deletion::CancelProof::Provider {
                session_id,
                code: given(&self.token).unwrap_or(""),
            }),
            _ => Err(ApiError::with_msg(
                protocol::ErrorCode::InvalidParams,
                "one of email and password, phone and code, or session_id and token",
            )),
        }
    }
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountRef {
    pub account_id: String,
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepRequest {
    /// At most this many items removed (all when absent).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// `account/delete/request`: the password re-entered (or a phone code, or a
/// fresh provider sign-in); every session ends.
pub async fn request(
    req: HttpRequest,
    s: State,
    a: Authed,
    b: web::Json<DeleteRequest>,
) -> ApiResult {
    limit(&req, &s).await?;
    crate::accounts::reauth::confirm(
        &s,
        &a.0.account,
        &crate::auth::client_ip(&req),
        crate::accounts::reauth::Proof {
            password: Some(&b.password),
            phone_code: b.phone_code.as_deref(),
            provider: b
                .session_id
                .as_deref()
                .map(|s| (s, b.token.as_deref().unwrap_or(""))),
        },
    )
    .await?;
    Ok(ok(deletion::request(&s, &a.0).await?))
}

/// `account/delete/cancel`: during the grace, with e-mail and password, a
/// phone code or a provider sign-in; answers like a login.
pub async fn cancel(req: HttpRequest, s: State, b: web::Json<CancelRequest>) -> ApiResult {
    limit(&req, &s).await?;
    let ip = crate::auth::client_ip(&req);
    let (row, token) = deletion::cancel(&s, b.proof()?, &ip).await?;
    Ok(logged_in(&req, &s, &row, token))
}

/// `account/delete/methods`: how the caller proves itself to ask for its
/// deletion (password, or a phone code when it has no password) and later
/// to cancel it (the same, or a linked provider's sign-in): the web app
/// shows the matching forms.
pub async fn methods(s: State, a: Authed) -> ApiResult {
    let row = &a.0.account;
    let phone = s
        .phones
        .number_of(&row.id)
        .await?
        .map(|n| crate::accounts::phone::display_international(&n).unwrap_or(n));
    let providers: Vec<String> = s
        .oidc
        .linked(&row.id)
        .await?
        .into_iter()
        .map(|p| p.provider)
        .collect();
    Ok(ok(serde_json::json!({
        "password": !row.password_hash.is_empty(),
        "email": (!row.email.is_empty()).then(|| row.email.clone()),
        "phone": phone,
        "sms_enabled": s.phones.enabled(),
        "providers": providers,
    })))
}

/// `account/export/request`.
pub async fn export_request(s: State, a: Authed) -> ApiResult {
    Ok(ok(export::request(&s, &a.0.account).await?.wire()))
}

/// `account/export/status`: the latest export (`null` when none).
pub async fn export_status(s: State, a: Authed) -> ApiResult {
    let row = export::status(&s, &a.0.account.id).await?;
    Ok(ok(row.map(|r| r.wire())))
}

/// `GET account/export/download`: the ZIP, to its owner only.
pub async fn export_download(
    req: HttpRequest,
    s: State,
    a: Authed,
) -> Result<HttpResponse, ApiError> {
    let key = export::ready_key(&s, &a.0.account.id).await?;
    let mut resp = super::files::stream_object(&req, &s, key).await?;
    resp.headers_mut().insert(
        actix_web::http::header::CONTENT_DISPOSITION,
        actix_web::http::header::HeaderValue::from_static(
            "attachment; filename=\"easel-export.zip\"",
        ),
    );
    resp.headers_mut().insert(
        actix_web::http::header::CACHE_CONTROL,
        actix_web::http::header::HeaderValue::from_static("private, no-store"),
    );
    Ok(resp)
}

use super::require_operator as operator;

/// `admin/account/deletion/get`: an account's deletion and its cursor.
pub async fn admin_get(s: State, a: Authed, b: web::Json<AccountRef>) -> ApiResult {
    operator(&s, &a)?;
    let view = deletion::status_of(&s, &b.account_id).await?;
    // The ledger is kept (accounting): its balance and entries, so an
    // operator sees they still agree.
    let balance = s.ledger.balance(&b.account_id).await?;
    let entries = s.ledger.entries(&b.account_id, 1000).await?;
    let sum: i64 = entries.iter().map(|e| e.delta).sum();
    Ok(ok(serde_json::json!({
        "deletion": view,
        "ledger": {"balance": balance.balance, "entries": entries.len(), "sum_of_deltas": sum},
    })))
}

/// `admin/account/deletion/sweep`: runs the deletions now due, within an
/// optional item budget (the sweeper does the same every few minutes).
pub async fn admin_sweep(s: State, a: Authed, b: web::Json<SweepRequest>) -> ApiResult {
    operator(&s, &a)?;
    let n = deletion::sweep_due(
        &s,
        crate::accounts::now_millis(),
        b.limit.unwrap_or(u64::MAX),
    )
    .await?;
    Ok(ok(serde_json::json!({ "finished": n })))
}

pub fn routes(api: &mut Api) {
    api.post(
        "/account/delete/request",
        request,
        doc("Request the caller's account deletion (password, phone code or fresh provider sign-in; every session ends)").body::<DeleteRequest>(),
    )
    .post(
        "/account/delete/cancel",
        cancel,
        doc("Cancel a pending account deletion during its grace period").body::<CancelRequest>(),
    )
    .post(
        "/account/delete/methods",
        methods,
        doc("How a pending deletion can be cancelled for an address or number (the sign-in methods)"),
    )
    .post(
        "/account/export/request",
        export_request,
        doc("Request an export of the caller's data"),
    )
    .post(
        "/account/export/status",
        export_status,
        doc("The caller's latest data export (null when none)"),
    )
    .get(
        "/account/export/download",
        export_download,
        doc("Download the caller's data export (ZIP)").raw("application/zip"),
    )
    .post(
        "/admin/account/deletion/get",
        admin_get,
        doc("Operators: an account's deletion and its progress").body::<AccountRef>(),
    )
    .post(
        "/admin/account/deletion/sweep",
        admin_sweep,
        doc("Operators: run the account deletions now due").body::<SweepRequest>(),
    );
}
