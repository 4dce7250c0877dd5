//! Account calls that go through mail (issue 21): e-mail verification
//! codes, `forgot` and `reset` (DESIGN.md Contracts), change of e-mail
//! (verified by a code sent to the new address) and change of password.
//!
//! - `POST /api/v1/account/mail/config` → `{enabled, code_ttl_secs}`: whether this server sends mail.
//! - `POST /api/v1/account/verify/send` `{locale?}` → `{expires_in}`: a code to the account's address.
//! - `POST /api/v1/account/verify/check` `{code}` → account info (`email_verified: true`).
//! - `POST /api/v1/account/email/change` `{email, password, locale?}` → `{expires_in}`: a code to the new address.
//! - `POST /api/v1/account/email/confirm` `{code, locale?}` → account info with the new address.
//! - `POST /api/v1/account/password/change` `{old_password, password, locale?}` → `{ended_sessions}`.
//! - `POST /api/v1/account/forgot` `{email, locale?}` → `null`, always.
//! - `POST /api/v1/account/reset` `{token, password, locale?}` → `null`.
//!
//! `locale` (`en` | `zh`) picks the mail's language; without it the
//! `Accept-Language` header does.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::account::Email;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

/// `account/mail/config` (and `sms/config`): whether codes can be sent, and
/// how long one lasts.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CodeConfig {
    pub enabled: bool,
    pub code_ttl_secs: i64,
}

/// A code was sent; it lasts this many seconds.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CodeSentIn {
    pub expires_in: i64,
}

/// `account/password/change`: how many other sessions ended.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PasswordChanged {
    pub ended_sessions: usize,
}

use crate::accounts::codes::Purpose;
use crate::accounts::mail_templates::{self, MailLocale};
use crate::accounts::AccountRow;
use crate::auth::{client_ip, AuthedAny};
use crate::error::{ok, ApiResult};
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.post(
        "/account/mail/config",
        mail_config,
        doc("Whether mail is configured, and its code timings").reply::<CodeConfig>(),
    )
    .post(
        "/account/verify/send",
        verify_send,
        doc("Send an e-mail verification code")
            .body::<LocaleBody>()
            .reply::<CodeSentIn>(),
    )
    .post(
        "/account/verify/check",
        verify_check,
        doc("Check an e-mail verification code")
            .body::<CodeBody>()
            .reply::<protocol::account::AccountInfo>(),
    )
    .post(
        "/account/email/change",
        email_change,
        doc("Start changing the caller's e-mail address")
            .body::<EmailChangeBody>()
            .reply::<CodeSentIn>(),
    )
    .post(
        "/account/email/confirm",
        email_confirm,
        doc("Confirm a new e-mail address with its code")
            .body::<CodeBody>()
            .reply::<protocol::account::AccountInfo>(),
    )
    .post(
        "/account/password/change",
        password_change,
        doc("Change the caller's password")
            .body::<PasswordChangeBody>()
            .reply::<PasswordChanged>(),
    )
    .post(
        "/account/forgot",
        forgot,
        doc("Mail a password reset link (answers success for any address)")
            .body::<ForgotBody>()
            .reply::<protocol::Nothing>(),
    )
    .post(
        "/account/reset",
        reset,
        doc("Set a new password with a reset token (once per token)")
            .body::<ResetBody>()
            .reply::<protocol::Nothing>(),
    );
}

fn lang(req: &HttpRequest, locale: Option<&str>) -> MailLocale {
    let header = req
        .headers()
        .get(actix_web::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    MailLocale::pick(locale.filter(|l| !l.trim().is_empty()).or(header))
}

fn info(state: &AppState, row: &AccountRow) -> protocol::account::AccountInfo {
    row.info(state.accounts.is_admin(row))
}

pub async fn mail_config(state: web::Data<AppState>) -> ApiResult {
    Ok(ok(CodeConfig {
        enabled: state.mail.configured(),
        code_ttl_secs: state.mail.code_ttl_secs(),
    }))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocaleBody {
    #[serde(default)]
    pub locale: Option<String>,
}

pub async fn verify_send(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: AuthedAny,
    body: Option<web::Json<LocaleBody>>,
) -> ApiResult {
    let account = &caller.0.account;
    if account.email_verified {
        return Err(ErrorCode::EmailAlreadyVerified.into());
    }
    let locale = body.and_then(|b| b.into_inner().locale);
    let expires_in = state
        .mail
        .issue_code(
            &account.id,
            Purpose::Verify,
            &account.email,
            lang(&req, locale.as_deref()),
            &client_ip(&req),
        )
        .await?;
    Ok(ok(CodeSentIn { expires_in }))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeBody {
    pub code: String,
    #[serde(default)]
    pub locale: Option<String>,
}

pub async fn verify_check(
    state: web::Data<AppState>,
    caller: AuthedAny,
    body: web::Json<CodeBody>,
) -> ApiResult {
    let account = &caller.0.account;
    let email = state
        .mail
        .check_code(&account.id, Purpose::Verify, &body.code)
        .await?;
    let row = state
        .accounts
        .mark_verified(&account.id, &email)
        .await?
        .ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(info(&state, &row)))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmailChangeBody {
    pub email: String,
    pub password: String,
    #[serde(default)]
    pub locale: Option<String>,
}

pub async fn email_change(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: AuthedAny,
    body: web::Json<EmailChangeBody>,
) -> ApiResult {
    state.mail.require()?;
    let account = &caller.0.account;
    let email = Email::parse(&body.email)?;
    crate::accounts::reauth::confirm(
        &state,
        account,
        &client_ip(&req),
        crate::accounts::reauth::Proof::password(&body.password),
    )
    .await?;
    if email.as_str() == account.email {
        return Err(ErrorCode::EmailRegistered.into());
    }
    if state.accounts.email_taken(&email, &account.id).await? {
        return Err(ErrorCode::EmailRegistered.into());
    }
    let expires_in = state
        .mail
        .issue_code(
            &account.id,
            Purpose::ChangeEmail,
            email.as_str(),
            lang(&req, body.locale.as_deref()),
            &client_ip(&req),
        )
        .await?;
    Ok(ok(CodeSentIn { expires_in }))
}

pub async fn email_confirm(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: AuthedAny,
    body: web::Json<CodeBody>,
) -> ApiResult {
    let account = &caller.0.account;
    let new_email = state
        .mail
        .check_code(&account.id, Purpose::ChangeEmail, &body.code)
        .await?;
    let new_email = Email::parse(&new_email)?;
    let (old, row) = state
        .accounts
        .move_to_email(&account.id, &new_email)
        .await?;
    if old != row.email {
        let m = mail_templates::email_changed(lang(&req, body.locale.as_deref()), &row.email);
        state.mail.enqueue(&old, m.subject, m.text, m.html).await?;
    }
    Ok(ok(info(&state, &row)))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChangeBody {
    pub old_password: String,
    pub password: String,
    #[serde(default)]
    pub locale: Option<String>,
}

pub async fn password_change(
    req: HttpRequest,
    state: web::Data<AppState>,
    caller: AuthedAny,
    body: web::Json<PasswordChangeBody>,
) -> ApiResult {
    // Counted in the lockout like a sign-in.
    crate::accounts::reauth::confirm(
        &state,
        &caller.0.account,
        &client_ip(&req),
        crate::accounts::reauth::Proof::password(&body.old_password),
    )
    .await?;
    let ended = state
        .mail
        .change_password(
            &state.accounts,
            &caller.0,
            &body.old_password,
            &body.password,
            lang(&req, body.locale.as_deref()),
        )
        .await?;
    Ok(ok(PasswordChanged {
        ended_sessions: ended,
    }))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForgotBody {
    pub email: String,
    #[serde(default)]
    pub locale: Option<String>,
}

pub async fn forgot(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<ForgotBody>,
) -> ApiResult {
    state
        .mail
        .forgot(
            &state.accounts,
            &body.email,
            lang(&req, body.locale.as_deref()),
            &client_ip(&req),
        )
        .await?;
    Ok(ok(protocol::Nothing))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetBody {
    pub token: String,
    pub password: String,
    #[serde(default)]
    pub locale: Option<String>,
}

pub async fn reset(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<ResetBody>,
) -> ApiResult {
    state
        .mail
        .reset(
            &state.accounts,
            &body.token,
            &body.password,
            lang(&req, body.locale.as_deref()),
        )
        .await?;
    Ok(ok(protocol::Nothing))
}
