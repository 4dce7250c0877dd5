//! Phone sign-in (`account/login-in/sms`, `.../sms/config`), invite codes (`account/invite/info`)
//! and the visitor and popup calls of spec 3 §7 (`visitor-guide/config`,
//! `rcpt/g/state`, `account/vip-pop`, `account/confirm-pop`,
//! `msg/token/update`, and `msg/token/get` to read the session's token back).

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::textfilter::Scene;
use protocol::ErrorCode;
use serde::Deserialize;

use super::account::logged_in;
use crate::accounts::new_device_code;
use crate::accounts::phone::parse_e164;
use crate::auth::{client_ip, device_id_of, optional_caller, Authed, AuthedAny};
use crate::error::{ok, ApiError, ApiResult};
use crate::popups::Subject;
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.post(
        "/account/login-in/sms",
        login_sms,
        doc("Sign in with a phone number and code").body::<SmsLoginRequest>(),
    )
    .post(
        "/account/login-in/sms/config",
        sms_config,
        doc("Whether phone sign-in is offered, and its timings").reply::<SmsConfig>(),
    )
    .post(
        "/account/invite/info",
        invite_info,
        doc("The caller's invitation code and invitees")
            .reply::<crate::accounts::invites::InviteInfo>(),
    )
    .post(
        "/account/vip-pop",
        vip_pop,
        doc("The membership popup's state").reply::<crate::popups::VipPop>(),
    )
    .post(
        "/account/confirm-pop",
        confirm_pop,
        doc("Mark a popup as confirmed").body::<ConfirmRequest>(),
    )
    .post(
        "/visitor-guide/config",
        guide,
        doc("The visitor guide's configuration").body::<GuideRequest>(),
    )
    .get(
        "/visitor-guide/config",
        guide_get,
        doc("The visitor guide's configuration"),
    )
    .post(
        "/rcpt/g/state",
        visitor_state,
        doc("The visitor's guide state").reply::<crate::popups::VisitorState>(),
    )
    .get(
        "/rcpt/g/state",
        visitor_state,
        doc("The visitor's guide state").reply::<crate::popups::VisitorState>(),
    )
    .post(
        "/msg/token/update",
        push_token_update,
        doc("Register the caller's push token")
            .body::<PushTokenRequest>()
            .reply::<protocol::Nothing>(),
    )
    .post(
        "/msg/token/get",
        push_token_get,
        doc("The caller's push token"),
    );
}

/// `login-in/sms`: without `code`, sends one; with it, signs in or creates
/// the number's account. The other login parameters of spec 2 §3 are
/// accepted (the invite codes are used, the tracking fields ignored).
#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct SmsLoginRequest {
    pub phone: String,
    /// The login type the spec's clients send (`phone`); read and ignored.
    #[serde(default, rename = "type")]
    pub _login_type: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub invitation_code: Option<String>,
    #[serde(default)]
    pub invite_user_code: Option<String>,
}

#[tracing::instrument(skip_all)]
async fn login_sms(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<SmsLoginRequest>,
) -> ApiResult {
    if !state.login_limit.check(&client_ip(&req)).await {
        return Err(ErrorCode::TooManyRequests.into());
    }
    if !state.phones.enabled() {
        return Err(ErrorCode::LoginTypeUnsupported.into());
    }
    let mut body = body.into_inner();
    let Some(code) = body
        .code
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
    else {
        return Ok(ok(state
            .phones
            .send_code(&body.phone, &client_ip(&req))
            .await?));
    };
    let e164 = parse_e164(&body.phone)?;
    // A new account's invite code is checked before the code is spent, so
    // a wrong one (40002) costs the person nothing.
    let new_account = state.phones.owner(&e164).await?.is_none();
    let inviter = if new_account {
        state.text_filter.apply_opt(Scene::Name, &mut body.name)?;
        state
            .invites
            .resolve(
                &state.accounts,
                &[
                    body.invite_user_code.as_deref(),
                    body.invitation_code.as_deref(),
                ],
            )
            .await?
    } else {
        // An account waiting for its deletion: a right code answers 20010
        // and stays live, so the popup can cancel the deletion with it.
        if let Some(id) = state.phones.owner(&e164).await? {
            if let Some(mark) = state
                .accounts
                .get(&id)
                .await?
                .and_then(|r| r.deletion)
                .filter(|m| !m.done)
            {
                state.phones.check_code(&e164, code).await?;
                return Err(mark.refusal());
            }
        }
        None
    };
    state.phones.take_code(&e164, code).await?;
    let device = device_id_of(&req).unwrap_or_else(new_device_code);
    let login = state
        .accounts
        .phone_login(&state.phones, &e164, body.name.as_deref(), device)
        .await?;
    if login.created {
        state
            .ledger
            .grant(
                &login.account.id,
                "signup",
                state.settings.generation.signup_credits,
            )
            .await?;
        state
            .invites
            .on_account_created(&state.ledger, &login.account.id, inviter.as_deref())
            .await?;
        crate::analytics::hooks::sign_up(&state, &req, &login.account.id, "phone").await;
    }
    Ok(logged_in(&req, &state, &login.account, login.token))
}

/// `account/sms/config`.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct SmsConfig {
    pub enabled: bool,
    pub code_ttl_secs: i64,
    pub resend_secs: i64,
}

/// Whether phone sign-in is offered, and its code timings (for the popup).
async fn sms_config(state: web::Data<AppState>) -> ApiResult {
    let s = &state.settings.phone.sms;
    Ok(ok(SmsConfig {
        enabled: state.phones.enabled(),
        code_ttl_secs: s.code_ttl_secs,
        resend_secs: s.resend_secs,
    }))
}

async fn invite_info(state: web::Data<AppState>, caller: AuthedAny) -> ApiResult {
    Ok(ok(state
        .invites
        .info(&state.accounts, &caller.0.account.id)
        .await?))
}

/// Who a visitor call is about: the logged-in account, else the device.
async fn subject(req: &HttpRequest, state: &AppState) -> Result<Option<Subject>, ApiError> {
    if let Some(c) = optional_caller(req, state).await? {
        return Ok(Some(Subject::Account(c.account.id)));
    }
    Ok(device_id_of(req).map(Subject::Device))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GuideRequest {
    /// Step ids the visitor has just seen.
    #[serde(default)]
    seen: Vec<String>,
}

async fn guide(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<GuideRequest>,
) -> ApiResult {
    guide_for(&req, &state, &body.seen).await
}

async fn guide_get(req: HttpRequest, state: web::Data<AppState>) -> ApiResult {
    guide_for(&req, &state, &[]).await
}

async fn guide_for(req: &HttpRequest, state: &AppState, seen: &[String]) -> ApiResult {
    if seen.len() > 64 {
        return Err(ErrorCode::PopupParamInvalid.into());
    }
    match subject(req, state).await? {
        Some(who) => Ok(ok(state.popups.guide(&who, seen).await?)),
        // A first request without a device cookie yet: nothing seen, nothing recorded.
        None if seen.is_empty() => Ok(ok(state.popups.guide_unseen())),
        None => Err(ErrorCode::NeedLogin.into()),
    }
}

async fn visitor_state(req: HttpRequest, state: web::Data<AppState>) -> ApiResult {
    let caller = optional_caller(&req, &state).await?;
    let device = device_id_of(&req);
    Ok(ok(state
        .popups
        .visitor_state(
            device.as_deref(),
            caller.as_ref().map(|c| c.account.id.as_str()),
        )
        .await?))
}

async fn vip_pop(state: web::Data<AppState>, caller: Authed) -> ApiResult {
    Ok(ok(state.popups.vip_pop(&caller.0.account).await?))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[schema(as = PhoneinviteConfirmRequest)]
struct ConfirmRequest {
    /// The popup (`vip`, `guide`, `face-photo`, ...).
    #[serde(default = "vip")]
    pop_type: String,
    /// `confirm`, `cancel`, `close` or `never`.
    #[serde(default = "confirm")]
    action: String,
}

fn vip() -> String {
    "vip".into()
}

fn confirm() -> String {
    "confirm".into()
}

async fn confirm_pop(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<ConfirmRequest>,
) -> ApiResult {
    let who = subject(&req, &state).await?.ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(state
        .popups
        .confirm(&who, &body.pop_type, &body.action)
        .await?))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PushTokenRequest {
    #[serde(default)]
    token: String,
    #[serde(default)]
    platform: String,
}

/// The session a push token belongs to: the login token's hash, or the device.
async fn push_session(req: &HttpRequest, state: &AppState) -> Result<(Subject, String), ApiError> {
    if let Some(c) = optional_caller(req, state).await? {
        return Ok((Subject::Account(c.account.id), c.token_hash));
    }
    let device = device_id_of(req).ok_or(ErrorCode::NeedLogin)?;
    Ok((Subject::Device(device.clone()), device))
}

async fn push_token_update(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<PushTokenRequest>,
) -> ApiResult {
    let (who, session) = push_session(&req, &state).await?;
    state
        .popups
        .set_push_token(&who, &session, &body.token, &body.platform)
        .await?;
    Ok(ok(protocol::Nothing))
}

async fn push_token_get(req: HttpRequest, state: web::Data<AppState>) -> ApiResult {
    let (who, session) = push_session(&req, &state).await?;
    Ok(ok(state.popups.push_token(&who, &session).await?))
}
