//! Sessions, two-factor, lockout and preferences (issue 21): the e-mail
//! sign-in with back-off and its second step, the sessions list and
//! sign-out, TOTP enrolment, the avatar upload and `account/prefs`.
//!
//! Second step: when two-factor is on, `login-in` answers (code 10000, no
//! token) `{second_step: "totp", challenge, expires_in: 300, methods:
//! ["totp", "recovery"]}`; `login-in/2fa` with `{challenge, code}` or
//! `{challenge, recovery_code}` answers like a login.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use base64::Engine;
use protocol::square::social::ProfileEdit;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::profile::PrefsView;
use crate::accounts::totp::Enrolment;

/// `account/sessions/revoke-others`: how many other sessions ended.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SessionsEnded {
    pub ended: usize,
}

/// `account/2fa/status`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TwoFactorStatus {
    pub enabled: bool,
    pub recovery_left: usize,
    /// When it was turned on (milliseconds; 0 when off).
    pub enabled_at: i64,
}

/// `account/2fa/confirm` and `recovery-codes`: new recovery codes, shown once.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RecoveryCodes {
    pub recovery_codes: Vec<String>,
}

use crate::accounts::profile::PrefsChange;
use crate::accounts::sessions::SessionMeta;
use crate::auth::{client_ip, device_id_of, Authed};
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;

/// Where a request comes from, for a new session.
pub fn meta_of(req: &HttpRequest) -> SessionMeta {
    let ua = req
        .headers()
        .get(actix_web::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    SessionMeta::new(ua, &client_ip(req), device_id_of(req))
}

/// `login-in` with e-mail and password: lockout, password, then either the
/// token or the second step.
pub async fn login_email(
    req: &HttpRequest,
    state: &AppState,
    email: &str,
    password: &str,
) -> ApiResult {
    let sec = &state.security;
    let meta = meta_of(req);
    let ip = meta.address.clone();
    sec.lockout.check_ip(&ip).await?;
    let row = match state.accounts.account_by_email(email).await {
        Ok(r) => r,
        Err(e) => {
            if e.code == ErrorCode::AccountNoExistent {
                sec.lockout.failed(None, &ip).await?;
            }
            return Err(e);
        }
    };
    let two_factor = sec.two_factor_on(&row.id).await?;
    let trusted = two_factor
        || sec
            .is_known_device(&row.id, meta.device_code.as_deref())
            .await?;
    sec.lockout.check(&row.id, &ip, trusted).await?;
    if let Err(e) = state.accounts.check_password(&row, password).await {
        sec.lockout.failed(Some(&row.id), &ip).await?;
        return Err(e);
    }
    // A deletion waiting or done (20010), a disabled account (20004).
    row.admit()?;
    if two_factor {
        return Ok(ok(super::account::LoginAnswer::SecondStep(
            sec.open_challenge(&row.id).await?,
        )));
    }
    let new_device = sec.sign_in_is_new(&row.id, &meta).await?;
    let token = sec.finish_sign_in(&row.id, &meta).await?;
    if new_device {
        crate::accounts::signin_notice::notify(state, req, &row, &meta).await;
    }
    Ok(super::account::logged_in(req, state, &row, token))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecondStepRequest {
    pub challenge: String,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub recovery_code: Option<String>,
}

pub async fn login_second_step(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: Body<SecondStepRequest>,
) -> ApiResult {
    let b = body.into_inner();
    let meta = meta_of(&req);
    let (row, token, new_device) = state
        .security
        .finish_challenge(
            &b.challenge,
            b.code.as_deref(),
            b.recovery_code.as_deref(),
            &meta,
        )
        .await?;
    if new_device {
        crate::accounts::signin_notice::notify(&state, &req, &row, &meta).await;
    }
    Ok(super::account::logged_in(&req, &state, &row, token))
}

pub async fn sessions(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    Ok(ok(state.accounts.list_sessions(&caller.0).await?))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionIdRequest {
    pub id: String,
}

pub async fn sessions_revoke(
    state: web::Data<AppState>,
    caller: Authed,
    body: Body<SessionIdRequest>,
) -> ApiResult {
    state.accounts.end_session(&caller.0, &body.id).await?;
    Ok(ok(protocol::Nothing))
}

pub async fn sessions_revoke_others(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    let ended = state
        .accounts
        .end_sessions(&caller.0.account.id, Some(&caller.0.token_hash))
        .await?;
    Ok(ok(SessionsEnded { ended }))
}

pub async fn two_factor_status(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    let row = state.security.totp_row(&caller.0.account.id).await?;
    Ok(ok(TwoFactorStatus {
        enabled: row.secret.is_some(),
        recovery_left: row.recovery.len(),
        enabled_at: row.enabled_at,
    }))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordRequest {
    pub password: String,
}

pub async fn two_factor_enrol(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Authed,
    body: Body<PasswordRequest>,
) -> ApiResult {
    let e = state
        .security
        .enrol(&caller.0.account, &body.password, &client_ip(&req))
        .await?;
    Ok(ok(e))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeRequest {
    pub code: String,
}

pub async fn two_factor_confirm(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Authed,
    body: Body<CodeRequest>,
) -> ApiResult {
    let codes = state
        .security
        .confirm(&caller.0.account, &body.code, &client_ip(&req))
        .await?;
    Ok(ok(RecoveryCodes {
        recovery_codes: codes,
    }))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisableRequest {
    pub password: String,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub recovery_code: Option<String>,
}

pub async fn two_factor_disable(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Authed,
    body: Body<DisableRequest>,
) -> ApiResult {
    let b = body.into_inner();
    state
        .security
        .disable(
            &caller.0.account,
            &b.password,
            b.code.as_deref(),
            b.recovery_code.as_deref(),
            &client_ip(&req),
        )
        .await?;
    Ok(ok(protocol::Nothing))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegenerateRequest {
    pub password: String,
    pub code: String,
}

pub async fn two_factor_recovery(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: Authed,
    body: Body<RegenerateRequest>,
) -> ApiResult {
    let codes = state
        .security
        .regenerate_recovery(
            &caller.0.account,
            &body.password,
            &body.code,
            &client_ip(&req),
        )
        .await?;
    Ok(ok(RecoveryCodes {
        recovery_codes: codes,
    }))
}

pub async fn prefs(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    Ok(ok(state.security.prefs(&caller.0.account.id).await?))
}

pub async fn prefs_update(
    state: web::Data<AppState>,
    caller: Authed,
    body: Body<PrefsChange>,
) -> ApiResult {
    Ok(ok(state
        .security
        .update_prefs(&caller.0.account.id, body.into_inner())
        .await?))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CropRequest {
    pub x: u32,
    pub y: u32,
    pub size: u32,
}

#[derive(utoipa::ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AvatarRequest {
    /// The image (PNG, JPEG or GIF), base64.
    pub image: String,
    /// The square to keep, in the image's pixels; the centred square when absent.
    #[serde(default)]
    pub crop: Option<CropRequest>,
}

/// `account/avatar`: answers the caller's profile with the new avatar.
pub async fn avatar(
    state: web::Data<AppState>,
    caller: Authed,
    body: Body<AvatarRequest>,
) -> ApiResult {
    let b = body.into_inner();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b.image.trim())
        .map_err(|_| ApiError::new(ErrorCode::AvatarInvalid))?;
    let account = &caller.0.account;
    let before = state.square.profile(Some(&account.id), &account.id).await?;
    let url = state
        .security
        .store_avatar(account, bytes, b.crop.map(|c| (c.x, c.y, c.size)))
        .await?;
    let edit = ProfileEdit {
        avatar: Some(url),
        ..ProfileEdit::default()
    };
    let profile = state.square.edit_profile(account, edit).await?;
    if let Some(old) = before.avatar.as_deref() {
        state.security.drop_avatar(account, old).await;
    }
    Ok(ok(profile))
}

pub fn routes(api: &mut Api) {
    api.post(
        "/account/login-in/2fa",
        login_second_step,
        doc("Second sign-in step: the authenticator or recovery code").body::<SecondStepRequest>(),
    )
    .post("/account/sessions", sessions, doc("The caller's sessions"))
    .post(
        "/account/sessions/revoke",
        sessions_revoke,
        doc("End one of the caller's sessions")
            .body::<SessionIdRequest>()
            .reply::<protocol::Nothing>(),
    )
    .post(
        "/account/sessions/revoke-others",
        sessions_revoke_others,
        doc("End every other session of the caller").reply::<SessionsEnded>(),
    )
    .post(
        "/account/2fa/status",
        two_factor_status,
        doc("Whether two-factor sign-in is on").reply::<TwoFactorStatus>(),
    )
    .post(
        "/account/2fa/enrol",
        two_factor_enrol,
        doc("Start two-factor enrolment (secret and QR code)")
            .body::<PasswordRequest>()
            .reply::<Enrolment>(),
    )
    .post(
        "/account/2fa/confirm",
        two_factor_confirm,
        doc("Confirm two-factor enrolment with a code")
            .body::<CodeRequest>()
            .reply::<RecoveryCodes>(),
    )
    .post(
        "/account/2fa/disable",
        two_factor_disable,
        doc("Turn two-factor sign-in off")
            .body::<DisableRequest>()
            .reply::<protocol::Nothing>(),
    )
    .post(
        "/account/2fa/recovery",
        two_factor_recovery,
        doc("New two-factor recovery codes")
            .body::<RegenerateRequest>()
            .reply::<RecoveryCodes>(),
    )
    .post(
        "/account/prefs",
        prefs,
        doc("The caller's preferences").reply::<PrefsView>(),
    )
    .post(
        "/account/prefs/update",
        prefs_update,
        doc("Change the caller's preferences")
            .body::<PrefsChange>()
            .reply::<PrefsView>(),
    )
    .post(
        "/account/avatar",
        avatar,
        doc("Set the caller's avatar")
            .body::<AvatarRequest>()
            .reply::<protocol::square::social::Profile>(),
    );
}
