//! Discord sign-in: OAuth 2.0 without OpenID Connect, written to Discord's
//! documented endpoints (`{base}/oauth2/authorize`, `{base}/api/oauth2/token`,
//! `{base}/api/users/@me`) with the `oauth2` crate's client, PKCE (S256)
//! and scopes `identify email`. The user is Discord's `id`; the e-mail is
//! used only when Discord says it is `verified`.

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, Scope, TokenResponse, TokenUrl,
};
use protocol::ErrorCode;
use serde::Deserialize;

use super::oidc::{token_error, Http, ProviderConfig, VerifiedIdentity};
use crate::error::ApiError;

/// `GET /users/@me` (the fields we read).
#[derive(Debug, Deserialize)]
struct DiscordUser {
    id: String,
    username: Option<String>,
    global_name: Option<String>,
    email: Option<String>,
    #[serde(default)]
    verified: bool,
}

fn endpoints(p: &ProviderConfig) -> Result<(AuthUrl, TokenUrl, String), ApiError> {
    let base = p.base.trim_end_matches('/');
    let auth = AuthUrl::new(format!("{base}/oauth2/authorize")).map_err(ApiError::internal)?;
    let token = TokenUrl::new(format!("{base}/api/oauth2/token")).map_err(ApiError::internal)?;
    Ok((auth, token, format!("{base}/api/users/@me")))
}

/// The authorization URL a browser is sent to.
pub fn authorize_url(
    p: &ProviderConfig,
    redirect: &RedirectUrl,
    state: &str,
    challenge: PkceCodeChallenge,
    reauth: bool,
) -> Result<String, ApiError> {
    let (auth, _, _) = endpoints(p)?;
    let client = BasicClient::new(ClientId::new(p.client_id.clone()))
        .set_auth_uri(auth)
        .set_redirect_uri(redirect.clone());
    let st = state.to_owned();
    let mut req = client
        .authorize_url(move || CsrfToken::new(st))
        .add_scope(Scope::new("identify".into()))
        .add_scope(Scope::new("email".into()))
        .set_pkce_challenge(challenge);
    if reauth {
        // Discord's documented `prompt`: show the consent screen again.
        req = req.add_extra_param("prompt", "consent");
    }
    let (url, _) = req.url();
    Ok(url.to_string())
}

/// Exchanges the code (with the verifier) and reads the user.
pub async fn exchange(
    http: &Http,
    p: &ProviderConfig,
    redirect: RedirectUrl,
    code: &str,
    verifier: PkceCodeVerifier,
) -> Result<VerifiedIdentity, ApiError> {
    let (auth, token, me) = endpoints(p)?;
    let mut client = BasicClient::new(ClientId::new(p.client_id.clone()))
        .set_auth_uri(auth)
        .set_token_uri(token)
        .set_redirect_uri(redirect);
    if let Some(secret) = &p.client_secret {
        client = client.set_client_secret(ClientSecret::new(secret.clone()));
    }
    let tokens = client
        .exchange_code(AuthorizationCode::new(code.to_owned()))
        .set_pkce_verifier(verifier)
        .request_async(http)
        .await
        .map_err(|e| token_error(&p.name, &e))?;
    let resp = http
        .0
        .get(me)
        .bearer_auth(tokens.access_token().secret())
        .send()
        .await
        .map_err(|e| provider_failed(&p.name, &e))?;
    if !resp.status().is_success() {
        tracing::warn!(provider = %p.name, status = %resp.status(), "Discord users/@me refused");
        return Err(ErrorCode::OidcProviderError.into());
    }
    let user: DiscordUser = resp
        .json()
        .await
        .map_err(|e| provider_failed(&p.name, &e))?;
    if user.id.is_empty() || user.id.len() > 64 {
        return Err(ErrorCode::OidcProviderError.into());
    }
    Ok(VerifiedIdentity {
        provider: p.name.clone(),
        kind: p.kind,
        subject: user.id,
        email: user
            .email
            .filter(|_| user.verified)
            .map(|e| e.to_lowercase()),
        name: user.global_name.or(user.username),
        id_token: None,
        auth_time: None,
    })
}

fn provider_failed(provider: &str, e: &reqwest::Error) -> ApiError {
    tracing::warn!(provider, error = %e, "Discord call failed");
    ErrorCode::OidcProviderError.into()
}
