//! Account family (spec 2 §7 "Login and sign-up", spec 1 §3 user and payment
//! info): sign-up, login-in, logout, info, payment-info, complete-profile.

use actix_web::cookie::{time::Duration as CookieDuration, Cookie, SameSite};
use actix_web::{web, HttpRequest, HttpResponse};
use protocol::account::{CompleteProfileRequest, LoginData, LoginRequest, SignUpRequest};
use protocol::textfilter::Scene;
use protocol::{Envelope, ErrorCode};

use crate::accounts::{new_device_code, AccountRow, SettingsChange, TOKEN_COOKIE};
use crate::auth::{client_ip, device_id_of, Authed, AuthedAny};
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

pub(crate) fn token_cookie(req: &HttpRequest, token: &str, max_age_secs: i64) -> Cookie<'static> {
    Cookie::build(TOKEN_COOKIE, token.to_owned())
        .path("/")
        .max_age(CookieDuration::seconds(max_age_secs))
        .same_site(SameSite::Lax)
        .secure(req.connection_info().scheme() == "https")
        .finish()
}

pub(crate) fn logged_in(
    req: &HttpRequest,
    state: &AppState,
    row: &AccountRow,
    token: String,
) -> HttpResponse {
    let cookie = token_cookie(req, &token, state.accounts.token_ttl_secs());
    HttpResponse::Ok()
        .cookie(cookie)
        .json(Envelope::ok(LoginAnswer::Session(LoginData {
            account: row.wire(),
            token,
        })))
}

/// What `login-in` answers: the session (the same as sign-up's `LoginData`),
/// or, when two-factor is on, the challenge of the second step.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LoginAnswer {
    Session(LoginData),
    SecondStep(crate::accounts::totp::SecondStep),
}

pub(super) async fn limit(req: &HttpRequest, state: &AppState) -> Result<(), ApiError> {
    if state.login_limit.check(&client_ip(req)).await {
        Ok(())
    } else {
        Err(ErrorCode::TooManyRequests.into())
    }
}

#[tracing::instrument(skip_all)]
pub async fn sign_up(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<SignUpRequest>,
) -> ApiResult {
    limit(&req, &state).await?;
    let mut body = body.into_inner();
    state.text_filter.apply_opt(Scene::Name, &mut body.name)?;
    let device = device_id_of(&req).unwrap_or_else(new_device_code);
    // A wrong invite code (40002) creates no account.
    let inviter = state
        .invites
        .resolve(
            &state.accounts,
            &[
                body.invite_user_code.as_deref(),
                body.invitation_code.as_deref(),
            ],
        )
        .await?;
    let (row, token) = state
        .accounts
        .sign_up(&body.email, &body.password, body.name.as_deref(), device)
        .await?;
    state
        .ledger
        .grant(&row.id, "signup", state.settings.generation.signup_credits)
        .await?;
    crate::analytics::hooks::sign_up(&state, &req, &row.id, "email").await;
    state
        .accounts
        .describe_session(&token, &super::security::meta_of(&req))
        .await?;
    state
        .invites
        .on_account_created(&state.ledger, &row.id, inviter.as_deref())
        .await?;
    // Issue 21: with mail configured, the new address gets its verification
    // code at once (the login popup's verify step asks for it).
    if state.mail.configured() {
        let lang = crate::accounts::mail_templates::MailLocale::pick(
            req.headers()
                .get(actix_web::http::header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        );
        let sent = state
            .mail
            .issue_code(
                &row.id,
                crate::accounts::codes::Purpose::Verify,
                &row.email,
                lang,
                &client_ip(&req),
            )
            .await;
        if let Err(e) = sent {
            tracing::warn!(error = %e.code, "sign-up: the verification code was not sent");
        }
    }
    Ok(logged_in(&req, &state, &row, token))
}

#[tracing::instrument(skip_all)]
pub async fn login_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<LoginRequest>,
) -> ApiResult {
    limit(&req, &state).await?;
    if let Some(t) = super::oidc::third_login_type(&body.login_type) {
        return super::oidc::login_third(&req, &state, t, &body).await;
    }
    if body.login_type != "email" {
        return Err(ErrorCode::LoginTypeUnsupported.into());
    }
    // Lockout, known devices and the two-factor step: `security.rs`.
    super::security::login_email(&req, &state, &body.email, &body.password).await
}

#[tracing::instrument(skip_all)]
pub async fn logout(req: HttpRequest, state: web::Data<AppState>, caller: AuthedAny) -> ApiResult {
    state.accounts.logout(&caller.0).await?;
    let gone = token_cookie(&req, "", 0);
    Ok(HttpResponse::Ok()
        .cookie(gone)
        .json(Envelope::ok(protocol::Nothing)))
}

pub async fn info(state: web::Data<AppState>, caller: AuthedAny) -> ApiResult {
    let admin = state.accounts.is_admin(&caller.0.account);
    let mut info = caller.0.account.info(admin);
    // The header shows the avatar ornament the account wears.
    info.ornament = state
        .ornaments
        .decor()
        .avatar_url(&caller.0.account.id)
        .await;
    info.nsfw_mode = Some(state.square.account_nsfw_mode(&caller.0.account.id).await?);
    Ok(ok(info))
}

pub async fn payment_info(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    // Grants a plan's monthly credits that came due, and reads the perks
    // as the subscription has them now.
    state.mall.sync_perks(&caller.0.account.id).await?;
    let row = state.accounts.get(&caller.0.account.id).await?;
    Ok(ok(row.unwrap_or(caller.0.account).payment_now()))
}

#[tracing::instrument(skip_all)]
pub async fn complete_profile(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: AuthedAny,
    body: web::Json<CompleteProfileRequest>,
) -> ApiResult {
    let mut name = body.into_inner().name;
    state.text_filter.apply(Scene::Name, &mut name)?;
    let row = state.accounts.complete_profile(&caller.0, &name).await?;
    // The same token stays valid; answer like a login so the client can proceed.
    let token = crate::auth::token_of(&req).unwrap_or_default();
    Ok(logged_in(&req, &state, &row, token))
}

pub async fn settings(
    state: web::Data<AppState>,
    caller: Authed,
    body: web::Json<SettingsChange>,
) -> ApiResult {
    Ok(ok(state.accounts.update_settings(&caller.0, &body).await?))
}

/// Credits (spec 3 payments `assets/get`): settled balance, open holds,
/// what new tasks may use, and the latest ledger entries.
pub async fn assets(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    let id = &caller.0.account.id;
    // Monthly credits of a plan that came due are granted first.
    state.mall.sync_perks(id).await?;
    let b = state.ledger.balance(id).await?;
    let entries = state.ledger.entries(id, 50).await?;
    Ok(ok(serde_json::json!({
        "coins": b.balance,
        "balance": b.balance,
        "held": b.held(),
        "available": b.available(),
        "debt": b.debt,
        "entries": entries,
    })))
}
