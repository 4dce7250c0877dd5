//! Third-party sign-in calls (issue 21 item 2), under `/api/v1/account`:
//! `oidc/providers` (public: the buttons), `oidc/start` (the provider's
//! authorization URL and the state, `session_id`), `login-in` with
//! `type` 2/3/6, `token` (the authorization code) and `session_id` (the
//! loginThird shape), and for a signed-in account `oidc/link`,
//! `oidc/linked`, `oidc/unlink`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest, HttpResponse};
use protocol::account::{status, LoginRequest};
use protocol::{Envelope, ErrorCode};
use serde::Deserialize;

use crate::accounts::new_device_code;
use crate::accounts::oidc::{channel_type, Attempt};
use crate::auth::{client_ip, device_id_of, Authed};
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.post(
        "/oidc/providers",
        providers,
        doc("The OpenID Connect sign-in providers"),
    )
    .post(
        "/oidc/start",
        start,
        doc("Start an OpenID Connect sign-in").body::<StartBody>(),
    )
    .post(
        "/oidc/link",
        link,
        doc("Link an OpenID Connect identity to the caller").body::<LinkBody>(),
    )
    .post(
        "/oidc/linked",
        linked,
        doc("The caller's linked identities"),
    )
    .post(
        "/oidc/unlink",
        unlink,
        doc("Unlink an identity from the caller").body::<UnlinkBody>(),
    );
}

/// `type` of a third-party login: "2", "3" or "6".
pub fn third_login_type(t: &str) -> Option<u8> {
    t.trim()
        .parse::<u8>()
        .ok()
        .filter(|n| channel_type(*n).is_some())
}

async fn limit(req: &HttpRequest, state: &AppState) -> Result<(), ApiError> {
    if state.login_limit.check(&client_ip(req)).await {
        Ok(())
    } else {
        Err(ErrorCode::TooManyRequests.into())
    }
}

fn origin(req: &HttpRequest) -> String {
    let ci = req.connection_info();
    format!("{}://{}", ci.scheme(), ci.host())
}

async fn providers(state: web::Data<AppState>) -> ApiResult {
    Ok(ok(serde_json::json!({ "items": state.oidc.list() })))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StartBody {
    provider: String,
    /// Link the provider to the signed-in caller instead of signing in.
    #[serde(default)]
    link: bool,
    /// Prove again that the signed-in caller is the account's owner (for a
    /// sensitive call such as `account/delete/request`).
    #[serde(default)]
    reauth: bool,
}

async fn start(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Option<Authed>,
    body: web::Json<StartBody>,
) -> ApiResult {
    limit(&req, &state).await?;
    let caller = caller.map(|c| c.0.account.id);
    let attempt = match (body.link, body.reauth) {
        (false, false) => Attempt::SignIn,
        (true, false) => Attempt::Link(caller.ok_or(ErrorCode::NeedLogin)?),
        (false, true) => Attempt::Reauth(caller.ok_or(ErrorCode::NeedLogin)?),
        (true, true) => {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "link and reauth cannot both be set",
            ))
        }
    };
    let provider = state.oidc.provider(&body.provider)?.clone();
    let redirect = state.oidc.redirect_uri(&origin(&req));
    let (url, session_id) = state.oidc.start(&provider.name, redirect, attempt).await?;
    Ok(ok(serde_json::json!({
        "url": url,
        "session_id": session_id,
        "type": provider.kind.login_type(),
    })))
}

/// `login-in` with a provider: takes the state once, exchanges the code,
/// verifies the answer and signs in (a new account answers status 3).
pub async fn login_third(
    req: &HttpRequest,
    state: &AppState,
    login_type: u8,
    body: &LoginRequest,
) -> ApiResult {
    let session_id = body.session_id.as_deref().unwrap_or_default();
    let code = body.token.as_deref().unwrap_or_default();
    if code.is_empty() {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "token (the provider's code) is required",
        ));
    }
    let pending = state.oidc.take_state(session_id).await?;
    if !pending.is_sign_in() {
        return Err(ErrorCode::OidcStateInvalid.into());
    }
    let provider = state.oidc.provider(&pending.provider)?.clone();
    if provider.kind.login_type() != login_type {
        return Err(ApiError::with_msg(
            ErrorCode::LoginTypeUnsupported,
            "the login type is not this provider's",
        ));
    }
    let who = state.oidc.finish(&pending, code).await?;
    let device = device_id_of(req).unwrap_or_else(new_device_code);
    let (row, token, created) = state.oidc.sign_in(&state.accounts, &who, device).await?;
    if created {
        state
            .ledger
            .grant(&row.id, "signup", state.settings.generation.signup_credits)
            .await?;
        crate::analytics::hooks::sign_up(state, req, &row.id, "oidc").await;
    }
    let cookie = super::account::token_cookie(req, &token, state.accounts.token_ttl_secs());
    Ok(HttpResponse::Ok()
        .cookie(cookie)
        .json(Envelope::ok(serde_json::json!({
            "account": row.wire(),
            "token": token,
            "new_account": created,
            "needs_profile": row.status == status::INCOMPLETE,
            "third": {
                "session_id": session_id,
                "id_token": who.id_token,
                "channel_type": channel_type(login_type),
            },
        }))))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkBody {
    session_id: String,
    token: String,
}

async fn link(state: web::Data<AppState>, caller: Authed, body: web::Json<LinkBody>) -> ApiResult {
    let pending = state.oidc.take_state(&body.session_id).await?;
    // A state started by another account (or for a sign-in) answers like an unknown one.
    if pending.link_account.as_deref() != Some(caller.0.account.id.as_str()) {
        return Err(ErrorCode::OidcStateInvalid.into());
    }
    let who = state.oidc.finish(&pending, &body.token).await?;
    state.oidc.link(&caller.0.account.id, &who).await?;
    linked_answer(&state, &caller).await
}

async fn linked_answer(state: &AppState, caller: &Authed) -> ApiResult {
    let items = state.oidc.linked(&caller.0.account.id).await?;
    Ok(ok(serde_json::json!({
        "items": items,
        "has_password": !caller.0.account.password_hash.is_empty(),
    })))
}

async fn linked(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    linked_answer(&state, &caller).await
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnlinkBody {
    provider: String,
}

async fn unlink(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<UnlinkBody>,
) -> ApiResult {
    state.oidc.unlink(&caller.0.account, &body.provider).await?;
    linked_answer(&state, &caller).await
}
