//! Third-party sign-in (issue 21 item 2): the providers the operator enabled,
//! the authorization-code flow with PKCE, and the verification of what a
//! provider answers.
//!
//! OpenID Connect providers (Google and any issuer by its discovery
//! document) go through the `openidconnect` crate: the ID token's RS256 (or
//! other allowed) signature against the provider's JWKS, its issuer,
//! audience, expiry and nonce are checked there. Discord, OAuth 2.0 without
//! OIDC, has its adapter in [`super::discord`]. A sign-in attempt's state,
//! nonce and PKCE verifier stay server-side (`oidc_states`), live ten
//! minutes and are taken once, by compare-and-set, so a replayed state is
//! refused. Accounts and links are in [`super::identities`].
//!
//! An attempt is a sign-in, a link to the signed-in account, or a
//! re-authentication of the signed-in account ([`Attempt`]): each state
//! answers only its own purpose. A re-authentication asks OIDC providers for
//! a fresh sign-in (`max_age=0`) and accepts only an ID token whose
//! `auth_time` is after the attempt started; Discord has no such claim, so
//! there it asks for the consent screen again (`prompt=consent`).
//!
//! Settings (environment): `EASEL_OIDC_PROVIDERS` lists provider names
//! (`google,discord,acme`); for each NAME (upper case): `EASEL_OIDC_{NAME}_CLIENT_ID`
//! (required), `EASEL_OIDC_{NAME}_CLIENT_SECRET`, `EASEL_OIDC_{NAME}_ISSUER`
//! (required except for `google`, whose default is `https://accounts.google.com`),
//! `EASEL_OIDC_{NAME}_LABEL` (the button's text), and for `discord`
//! `EASEL_OIDC_DISCORD_BASE` (default `https://discord.com`).
//! `EASEL_OIDC_TIMEOUT_MS` bounds every call to a provider (default 10000).
//! The redirect URI is `{EASEL_PUBLIC_URL}/oidc/callback` (or the request's
//! own origin when no public URL is set).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use infra::store::{tables, DynStore, Key, Table};
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreIdTokenClaims, CoreProviderMetadata,
};
use openidconnect::{
    AsyncHttpClient, AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken,
    HttpRequest, HttpResponse, IssuerUrl, Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl,
    Scope, TokenResponse,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use super::now_secs;
use crate::error::ApiError;

/// How long a sign-in attempt may take between start and callback.
pub const STATE_TTL_SECS: i64 = 600;
/// How long a provider's discovery document (and so its JWKS) is reused.
const METADATA_TTL: Duration = Duration::from_secs(600);

/// The kind of provider, which fixes the adapter and the login type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Google,
    Discord,
    Oidc,
}

impl ProviderKind {
    /// The spec's third-party login type (spec 2 §7): Google 2, Discord 3,
    /// any other OpenID Connect provider 6.
    pub fn login_type(self) -> u8 {
        match self {
            ProviderKind::Google => 2,
            ProviderKind::Discord => 3,
            ProviderKind::Oidc => 6,
        }
    }
}

/// loginThird's channel (spec 2 §7): type 2 → channel 2, 3 → 4, 6 → 5.
pub fn channel_type(login_type: u8) -> Option<u8> {
    match login_type {
        2 => Some(2),
        3 => Some(4),
        6 => Some(5),
        _ => None,
    }
}

/// One provider the operator enabled.
#[derive(Clone)]
pub struct ProviderConfig {
    pub name: String,
    pub kind: ProviderKind,
    pub label: String,
    pub client_id: String,
    pub client_secret: Option<String>,
    /// The issuer (OIDC kinds) or the site base (Discord).
    pub base: String,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// What the login popup shows for a provider.
#[derive(Debug, Clone, Serialize)]
pub struct ProviderInfo {
    pub name: String,
    pub kind: ProviderKind,
    pub label: String,
    /// The spec's login type (2, 3 or 6).
    #[serde(rename = "type")]
    pub login_type: u8,
}

/// A sign-in attempt in flight (`oidc_states`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingSignIn {
    pub provider: String,
    pub nonce: String,
    pub pkce_verifier: String,
    pub redirect_uri: String,
    /// Set when a signed-in account links the provider.
    #[serde(default)]
    pub link_account: Option<String>,
    /// Set when a signed-in account proves itself again (a sensitive call).
    #[serde(default)]
    pub reauth_account: Option<String>,
    pub expires_at: i64,
}

impl PendingSignIn {
    /// Whether the state was started for a plain sign-in.
    pub fn is_sign_in(&self) -> bool {
        self.link_account.is_none() && self.reauth_account.is_none()
    }

    /// When the attempt started (seconds).
    pub fn started_at(&self) -> i64 {
        self.expires_at - STATE_TTL_SECS
    }
}

/// What an attempt is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    SignIn,
    /// Link the provider to this signed-in account.
    Link(String),
    /// Prove again that the signed-in account is its owner.
    Reauth(String),
}

/// A provider's user, verified.
#[derive(Debug, Clone)]
pub struct VerifiedIdentity {
    pub provider: String,
    pub kind: ProviderKind,
    pub subject: String,
    /// Only an address the provider says it verified.
    pub email: Option<String>,
    pub name: Option<String>,
    /// The raw ID token (OIDC kinds), for loginThird.
    pub id_token: Option<String>,
    /// When the person last signed in at the provider (the ID token's
    /// `auth_time`, seconds; OIDC kinds that send it).
    pub auth_time: Option<i64>,
}

/// A re-authentication's answer is fresh: an OIDC provider must say the
/// person signed in after the attempt started (a minute of clock skew
/// allowed); Discord cannot say, so its answer to the attempt (which asked
/// for the consent screen again) is taken.
pub fn check_fresh(pending: &PendingSignIn, who: &VerifiedIdentity) -> Result<(), ApiError> {
    if who.kind == ProviderKind::Discord {
        return Ok(());
    }
    match who.auth_time {
        Some(t) if t + 60 >= pending.started_at() => Ok(()),
        _ => Err(ApiError::with_msg(
            ErrorCode::OidcTokenExpired,
            "the provider did not sign you in again; please sign in there again",
        )),
    }
}

/// Reads the providers from the environment (see the module doc).
pub fn providers_from_env(
    env: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<Vec<ProviderConfig>> {
    let get = |k: &str| {
        env(k)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let Some(list) = get("EASEL_OIDC_PROVIDERS") else {
        return Ok(Vec::new());
    };
    let mut out: Vec<ProviderConfig> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let name = name.to_lowercase();
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || name.len() > 32
        {
            anyhow::bail!(
                "EASEL_OIDC_PROVIDERS: {name:?} is not a provider name (a-z, 0-9, _ and -)"
            );
        }
        if out.iter().any(|p| p.name == name) {
            anyhow::bail!("EASEL_OIDC_PROVIDERS: {name} is listed twice");
        }
        let var = |suffix: &str| {
            get(&format!(
                "EASEL_OIDC_{}_{suffix}",
                name.to_uppercase().replace('-', "_")
            ))
        };
        let kind = match name.as_str() {
            "google" => ProviderKind::Google,
            "discord" => ProviderKind::Discord,
            _ => ProviderKind::Oidc,
        };
        let client_id = var("CLIENT_ID").ok_or_else(|| {
            anyhow::anyhow!("EASEL_OIDC_{}_CLIENT_ID is required", name.to_uppercase())
        })?;
        let base = match kind {
            ProviderKind::Google => {
                var("ISSUER").unwrap_or_else(|| "https://accounts.google.com".into())
            }
            ProviderKind::Discord => var("BASE").unwrap_or_else(|| "https://discord.com".into()),
            ProviderKind::Oidc => var("ISSUER").ok_or_else(|| {
                anyhow::anyhow!("EASEL_OIDC_{}_ISSUER is required", name.to_uppercase())
            })?,
        };
        openidconnect::url::Url::parse(&base)
            .map_err(|e| anyhow::anyhow!("provider {name}: {base:?} is not a URL: {e}"))?;
        let label = var("LABEL").unwrap_or_else(|| match kind {
            ProviderKind::Google => "Google".into(),
            ProviderKind::Discord => "Discord".into(),
            ProviderKind::Oidc => name.clone(),
        });
        out.push(ProviderConfig {
            label,
            client_secret: var("CLIENT_SECRET"),
            client_id,
            base,
            kind,
            name,
        });
    }
    Ok(out)
}

/// An `openidconnect`/`oauth2` HTTP client over the project's reqwest:
/// no redirects followed (SSRF), every call time-limited.
#[derive(Clone)]
pub struct Http(pub reqwest::Client);

/// A transport failure talking to a provider.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HttpFailure(String);

impl<'c> AsyncHttpClient<'c> for Http {
    type Error = HttpFailure;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, HttpFailure>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let resp = self
                .0
                .request(parts.method, parts.uri.to_string())
                .headers(parts.headers)
                .body(body)
                .send()
                .await
                .map_err(|e| HttpFailure(e.to_string()))?;
            let status = resp.status();
            let headers = resp.headers().clone();
            let bytes = resp.bytes().await.map_err(|e| HttpFailure(e.to_string()))?;
            let mut out = openidconnect::http::Response::new(bytes.to_vec());
            *out.status_mut() = status;
            *out.headers_mut() = headers;
            Ok(out)
        })
    }
}

/// The providers, their cached discovery documents and the sign-in tables.
#[derive(Clone)]
pub struct OidcService {
    providers: Arc<Vec<ProviderConfig>>,
    pub(super) http: Http,
    metadata: Arc<Mutex<HashMap<String, (Instant, CoreProviderMetadata)>>>,
    states: Table<PendingSignIn>,
    expiry: super::expiry::ExpiryIndex,
    pub(super) identities: Table<super::identities::IdentityRow>,
    pub(super) by_account: Table<super::identities::LinkRow>,
    public_url: Option<String>,
}

impl OidcService {
    pub fn new(
        store: DynStore,
        providers: Vec<ProviderConfig>,
        public_url: Option<String>,
        timeout: Duration,
    ) -> anyhow::Result<OidcService> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .build()?;
        Ok(OidcService {
            providers: Arc::new(providers),
            http: Http(client),
            metadata: Arc::new(Mutex::new(HashMap::new())),
            states: Table::new(store.clone(), &tables::OIDC_STATES),
            expiry: super::expiry::ExpiryIndex::new(store.clone()),
            identities: Table::new(store.clone(), &tables::OIDC_IDENTITIES),
            by_account: Table::new(store, &tables::OIDC_BY_ACCOUNT),
            public_url,
        })
    }

    /// From the environment (see the module doc).
    pub fn from_env(store: DynStore, public_url: Option<String>) -> anyhow::Result<OidcService> {
        let env = |k: &str| std::env::var(k).ok();
        let timeout = match env("EASEL_OIDC_TIMEOUT_MS") {
            Some(v) => Duration::from_millis(
                v.trim()
                    .parse()
                    .map_err(|_| anyhow::anyhow!("EASEL_OIDC_TIMEOUT_MS: milliseconds"))?,
            ),
            None => Duration::from_secs(10),
        };
        OidcService::new(store, providers_from_env(env)?, public_url, timeout)
    }

    /// The enabled providers, for the buttons.
    pub fn list(&self) -> Vec<ProviderInfo> {
        self.providers
            .iter()
            .map(|p| ProviderInfo {
                name: p.name.clone(),
                kind: p.kind,
                label: p.label.clone(),
                login_type: p.kind.login_type(),
            })
            .collect()
    }

    pub fn provider(&self, name: &str) -> Result<&ProviderConfig, ApiError> {
        self.providers
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| ApiError::new(ErrorCode::OidcProviderUnknown))
    }

    /// The redirect URI: the public URL's, else the request origin's.
    pub fn redirect_uri(&self, request_origin: &str) -> String {
        let base = self.public_url.as_deref().unwrap_or(request_origin);
        format!("{}/oidc/callback", base.trim_end_matches('/'))
    }

    async fn metadata(&self, p: &ProviderConfig) -> Result<CoreProviderMetadata, ApiError> {
        let mut cache = self.metadata.lock().await;
        if let Some((at, m)) = cache.get(&p.name) {
            if at.elapsed() < METADATA_TTL {
                return Ok(m.clone());
            }
        }
        let issuer = IssuerUrl::new(p.base.clone()).map_err(ApiError::internal)?;
        let m = CoreProviderMetadata::discover_async(issuer, &self.http)
            .await
            .map_err(|e| {
                tracing::warn!(provider = %p.name, error = %e, "OIDC discovery failed");
                ApiError::new(ErrorCode::OidcProviderError)
            })?;
        cache.insert(p.name.clone(), (Instant::now(), m.clone()));
        Ok(m)
    }

    /// Starts an attempt (a sign-in, a link or a re-authentication): keeps the state,
    /// nonce and PKCE verifier, and answers the provider's authorization
    /// URL and the state (`session_id`).
    pub async fn start(
        &self,
        provider: &str,
        redirect_uri: String,
        attempt: Attempt,
    ) -> Result<(String, String), ApiError> {
        let reauth = matches!(attempt, Attempt::Reauth(_));
        let p = self.provider(provider)?.clone();
        let state = hex::encode(rand::random::<[u8; 32]>());
        let nonce = hex::encode(rand::random::<[u8; 32]>());
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let redirect = RedirectUrl::new(redirect_uri.clone())
            .map_err(|_| ApiError::with_msg(ErrorCode::InvalidParams, "bad redirect URI"))?;
        let url = match p.kind {
            ProviderKind::Discord => {
                super::discord::authorize_url(&p, &redirect, &state, challenge, reauth)?
            }
            ProviderKind::Google | ProviderKind::Oidc => {
                let meta = self.metadata(&p).await?;
                let client = CoreClient::from_provider_metadata(
                    meta,
                    ClientId::new(p.client_id.clone()),
                    p.client_secret.clone().map(ClientSecret::new),
                )
                .set_redirect_uri(redirect);
                let st = state.clone();
                let n = nonce.clone();
                let mut req = client
                    .authorize_url(
                        CoreAuthenticationFlow::AuthorizationCode,
                        move || CsrfToken::new(st),
                        move || Nonce::new(n),
                    )
                    .add_scope(Scope::new("email".into()))
                    .add_scope(Scope::new("profile".into()))
                    .set_pkce_challenge(challenge);
                if reauth {
                    // OIDC Core 3.1.2.1: the provider must sign the person
                    // in again and say when (`auth_time`).
                    req = req.set_max_age(Duration::ZERO);
                }
                let (url, _, _) = req.url();
                url.to_string()
            }
        };
        let row = PendingSignIn {
            provider: p.name.clone(),
            nonce,
            pkce_verifier: verifier.secret().clone(),
            redirect_uri,
            link_account: match &attempt {
                Attempt::Link(a) => Some(a.clone()),
                _ => None,
            },
            reauth_account: match attempt {
                Attempt::Reauth(a) => Some(a),
                _ => None,
            },
            expires_at: now_secs() + STATE_TTL_SECS,
        };
        self.states
            .put(&Key::of(&state), &Key::empty(), &row)
            .await?;
        // Abandoned attempts are removed by the cleanup sweeper.
        self.expiry
            .register(
                row.expires_at.saturating_mul(1000),
                super::expiry::ExpiryKind::OidcState,
                &Key::of(&state),
            )
            .await?;
        Ok((url, state))
    }

    /// Takes a state once: a second use, an unknown or an expired state
    /// answers OidcStateInvalid.
    pub async fn take_state(&self, state: &str) -> Result<PendingSignIn, ApiError> {
        if state.is_empty() || state.len() > 128 {
            return Err(ErrorCode::OidcStateInvalid.into());
        }
        let key = Key::of(state);
        let row = self
            .states
            .get(&key, &Key::empty())
            .await?
            .ok_or(ErrorCode::OidcStateInvalid)?;
        if self
            .states
            .compare_and_set(&key, &Key::empty(), &row, None)
            .await?
            .is_err()
        {
            return Err(ErrorCode::OidcStateInvalid.into());
        }
        if row.expires_at <= now_secs() {
            return Err(ErrorCode::OidcStateInvalid.into());
        }
        Ok(row)
    }

    /// Exchanges the code (with the PKCE verifier) and verifies the answer.
    pub async fn finish(
        &self,
        pending: &PendingSignIn,
        code: &str,
    ) -> Result<VerifiedIdentity, ApiError> {
        if code.is_empty() || code.len() > 2048 {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "token (the authorization code) is required",
            ));
        }
        let p = self.provider(&pending.provider)?.clone();
        let redirect =
            RedirectUrl::new(pending.redirect_uri.clone()).map_err(ApiError::internal)?;
        let verifier = PkceCodeVerifier::new(pending.pkce_verifier.clone());
        match p.kind {
            ProviderKind::Discord => {
                super::discord::exchange(&self.http, &p, redirect, code, verifier).await
            }
            ProviderKind::Google | ProviderKind::Oidc => {
                let meta = self.metadata(&p).await?;
                let client = CoreClient::from_provider_metadata(
                    meta,
                    ClientId::new(p.client_id.clone()),
                    p.client_secret.clone().map(ClientSecret::new),
                )
                .set_redirect_uri(redirect);
                let tokens = client
                    .exchange_code(AuthorizationCode::new(code.to_owned()))
                    .map_err(|e| {
                        tracing::warn!(provider = %p.name, error = %e, "no token endpoint");
                        ApiError::new(ErrorCode::OidcProviderError)
                    })?
                    .set_pkce_verifier(verifier)
                    .request_async(&self.http)
                    .await
                    .map_err(|e| token_error(&p.name, &e))?;
                let id_token = tokens.id_token().ok_or_else(|| {
                    ApiError::with_msg(ErrorCode::OidcTokenInvalid, "the provider sent no ID token")
                })?;
                let verifier = client.id_token_verifier();
                let claims: &CoreIdTokenClaims = id_token
                    .claims(&verifier, &Nonce::new(pending.nonce.clone()))
                    .map_err(|e| claims_error(&p.name, &e))?;
                let email = claims
                    .email()
                    .filter(|_| claims.email_verified() == Some(true))
                    .map(|e| e.as_str().to_lowercase());
                let name = claims
                    .name()
                    .and_then(|n| n.get(None))
                    .map(|n| n.as_str().to_owned());
                Ok(VerifiedIdentity {
                    provider: p.name.clone(),
                    kind: p.kind,
                    subject: claims.subject().as_str().to_owned(),
                    email,
                    name,
                    id_token: Some(id_token.to_string()),
                    auth_time: claims.auth_time().map(|t| t.timestamp()),
                })
            }
        }
    }
}

/// A token endpoint's refusal or failure: the provider's fault or a bad
/// code, never verified, so OidcProviderError (logged with its detail).
pub(super) fn token_error<E: std::error::Error>(provider: &str, e: &E) -> ApiError {
    let source = e.source().map(ToString::to_string).unwrap_or_default();
    tracing::warn!(provider, error = %e, %source, "OIDC code exchange failed");
    ApiError::new(ErrorCode::OidcProviderError)
}

fn claims_error(provider: &str, e: &ClaimsVerificationError) -> ApiError {
    tracing::warn!(provider, error = %e, "ID token refused");
    match e {
        ClaimsVerificationError::Expired(_) => ErrorCode::OidcTokenExpired.into(),
        ClaimsVerificationError::InvalidNonce(_) => ErrorCode::OidcNonceMismatch.into(),
        _ => ErrorCode::OidcTokenInvalid.into(),
    }
}
