//! Request authentication: the `token` header only (never the cookie, so no
//! request can be forged cross-site). `Authed` requires a complete, enabled
//! account; `AuthedAny` also admits a status-3 account finishing its profile.
//! Visitors are known by their `deviceId` cookie (`device_id_of`).

use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpRequest};
use protocol::account::status;
use protocol::ErrorCode;

use crate::accounts::{Caller, DEVICE_COOKIE, TOKEN_HEADER};
use crate::error::ApiError;
use crate::state::AppState;

/// The `token` header, trimmed, if any.
pub fn token_of(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

async fn caller(req: HttpRequest) -> Result<Caller, ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::internal("no app state"))?
        .clone();
    let token = token_of(&req).ok_or(ErrorCode::NeedLogin)?;
    state
        .accounts
        .authenticate(&token)
        .await?
        .ok_or_else(|| ErrorCode::NeedLogin.into())
}

/// The caller when a token is sent (a bad one is NeedLogin, never a visitor),
/// or `None` for a visitor who sent none.
pub async fn optional_caller(
    req: &HttpRequest,
    state: &AppState,
) -> Result<Option<Caller>, ApiError> {
    match token_of(req) {
        Some(t) => Ok(Some(
            state
                .accounts
                .authenticate(&t)
                .await?
                .ok_or(ErrorCode::NeedLogin)?,
        )),
        None => Ok(None),
    }
}

/// A logged-in caller whose profile is complete.
pub struct Authed(pub Caller);

impl FromRequest for Authed {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let c = caller(req).await?;
            if c.account.status == status::INCOMPLETE {
                return Err(ErrorCode::ProfileIncomplete.into());
            }
            Ok(Authed(c))
        })
    }
}

/// A logged-in caller, profile complete or not.
pub struct AuthedAny(pub Caller);

impl FromRequest for AuthedAny {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { caller(req).await.map(AuthedAny) })
    }
}

/// The visitor's device id, if its cookie is well-formed.
pub fn device_id_of(req: &HttpRequest) -> Option<String> {
    req.cookie(DEVICE_COOKIE)
        .map(|c| c.value().to_owned())
        .filter(|v| {
            (8..=64).contains(&v.len()) && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// The client address used for rate limits.
pub fn client_ip(req: &HttpRequest) -> String {
    req.peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}
