//! A fake identity provider that follows the specifications, both kinds in
//! one server:
//! - OpenID Connect (Core 1.0, Discovery 1.0, RFC 7636): the discovery
//!   document at `/.well-known/openid-configuration`, a JWKS at `/jwks`,
//!   `/authorize` answering the browser with a 302 to the redirect URI with
//!   `code` and `state`, and `/token` checking the client's credentials, the
//!   redirect URI, the single use of the code and the PKCE verifier
//!   (`BASE64URL(SHA256(verifier)) == challenge`), answering RS256-signed
//!   ID tokens (built here with the `rsa` crate, not by the code under test).
//! - Discord's documented OAuth 2.0 endpoints: `/oauth2/authorize`,
//!   `/api/oauth2/token` (same checks), `/api/users/@me` (Bearer).
//!
//! `Forge` makes the next ID tokens wrong in one way, or the token endpoint
//! fail (an OAuth error, a 500, bad JSON, a stall).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD as B64};
use base64::Engine;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::DecodePrivateKey;
use rsa::signature::{SignatureEncoding, Signer};
use rsa::traits::PublicKeyParts;
use rsa::RsaPrivateKey;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

pub const CLIENT_ID: &str = "easel-client";
pub const CLIENT_SECRET: &str = "easel-secret";
const PROVIDER_KEY: &str = include_str!("../../fixtures/oidc/provider_key.pem");
const ATTACKER_KEY: &str = include_str!("../../fixtures/oidc/attacker_key.pem");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forge {
    None,
    /// Signed with a key the JWKS does not publish (same `kid`).
    BadSignature,
    WrongNonce,
    Expired,
    WrongAudience,
    WrongIssuer,
    /// `{"error":"invalid_grant"}` with 400.
    OAuthError,
    Status500,
    BadJson,
    /// Answers after 3 s.
    Stall,
    /// A re-authentication (`max_age`) answered with an old `auth_time`:
    /// the provider did not sign the person in again.
    StaleAuthTime,
    /// A re-authentication answered without `auth_time` (against OIDC Core).
    NoAuthTime,
}

#[derive(Debug, Clone)]
pub struct User {
    pub sub: String,
    pub email: Option<String>,
    pub verified: bool,
    pub name: String,
}

#[derive(Debug, Clone)]
struct Grant {
    redirect_uri: String,
    challenge: String,
    nonce: Option<String>,
    /// `max_age` asked: the ID token then says when the person signed in.
    max_age: Option<String>,
    user: User,
}

pub struct State {
    pub base: String,
    pub user: User,
    pub forge: Forge,
    grants: HashMap<String, Grant>,
    access: HashMap<String, User>,
    /// Every token request's form, for assertions.
    pub token_requests: Vec<HashMap<String, String>>,
}

pub type Shared = Arc<Mutex<State>>;

pub fn user(sub: &str, email: Option<&str>) -> User {
    User {
        sub: sub.into(),
        email: email.map(str::to_owned),
        verified: true,
        name: format!("User {sub}"),
    }
}

fn random_hex() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

fn key(pem: &str) -> RsaPrivateKey {
    RsaPrivateKey::from_pkcs8_pem(pem).unwrap()
}

fn jwt(key_pem: &str, claims: &Value) -> String {
    let header = json!({"alg": "RS256", "typ": "JWT", "kid": "k1"});
    let input = format!(
        "{}.{}",
        B64.encode(header.to_string()),
        B64.encode(claims.to_string())
    );
    let signer = SigningKey::<Sha256>::new(key(key_pem));
    let sig = signer.sign(input.as_bytes()).to_bytes();
    format!("{input}.{}", B64.encode(sig))
}

fn jwks() -> Value {
    let public = key(PROVIDER_KEY).to_public_key();
    json!({"keys": [{
        "kty": "RSA", "use": "sig", "alg": "RS256", "kid": "k1",
        "n": B64.encode(public.n().to_bytes_be()),
        "e": B64.encode(public.e().to_bytes_be()),
    }]})
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn authorize(s: &Shared, q: &HashMap<String, String>, discord: bool) -> HttpResponse {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let scopes = get("scope");
    let scope_ok = if discord {
        scopes.split(' ').any(|x| x == "identify")
    } else {
        scopes.split(' ').any(|x| x == "openid")
    };
    if get("response_type") != "code"
        || get("client_id") != CLIENT_ID
        || get("code_challenge_method") != "S256"
        || get("code_challenge").is_empty()
        || get("state").is_empty()
        || !scope_ok
        || (!discord && get("nonce").is_empty())
    {
        return HttpResponse::BadRequest().body("bad authorization request");
    }
    let code = random_hex();
    let mut st = s.lock().unwrap();
    let grant = Grant {
        redirect_uri: get("redirect_uri"),
        challenge: get("code_challenge"),
        nonce: q.get("nonce").cloned(),
        max_age: q.get("max_age").cloned(),
        user: st.user.clone(),
    };
    st.grants.insert(code.clone(), grant);
    let mut to = reqwest::Url::parse(&get("redirect_uri")).unwrap();
    to.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &get("state"));
    HttpResponse::Found()
        .insert_header(("Location", to.to_string()))
        .finish()
}

fn client_authenticated(req: &HttpRequest, form: &HashMap<String, String>) -> bool {
    if let Some(h) = req.headers().get("authorization") {
        let Some(b) = h.to_str().ok().and_then(|v| v.strip_prefix("Basic ")) else {
            return false;
        };
        let decoded = String::from_utf8(STANDARD.decode(b).unwrap_or_default()).unwrap_or_default();
        return decoded == format!("{CLIENT_ID}:{CLIENT_SECRET}");
    }
    form.get("client_id").map(String::as_str) == Some(CLIENT_ID)
        && form.get("client_secret").map(String::as_str) == Some(CLIENT_SECRET)
}

async fn token(
    s: Shared,
    req: HttpRequest,
    form: HashMap<String, String>,
    discord: bool,
) -> HttpResponse {
    let forge = {
        let mut st = s.lock().unwrap();
        st.token_requests.push(form.clone());
        st.forge
    };
    match forge {
        Forge::Stall => tokio::time::sleep(Duration::from_secs(3)).await,
        Forge::Status500 => return HttpResponse::InternalServerError().body("boom"),
        Forge::BadJson => {
            return HttpResponse::Ok()
                .content_type("application/json")
                .body("{\"access_token\": ")
        }
        Forge::OAuthError => {
            return HttpResponse::BadRequest().json(json!({"error": "invalid_grant"}))
        }
        _ => {}
    }
    let invalid = |why: &str| {
        HttpResponse::BadRequest().json(json!({"error": "invalid_grant", "error_description": why}))
    };
    if !client_authenticated(&req, &form) {
        return HttpResponse::Unauthorized().json(json!({"error": "invalid_client"}));
    }
    if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return HttpResponse::BadRequest().json(json!({"error": "unsupported_grant_type"}));
    }
    let code = form.get("code").cloned().unwrap_or_default();
    let mut st = s.lock().unwrap();
    // A code is used once, whatever the outcome.
    let Some(grant) = st.grants.remove(&code) else {
        return invalid("unknown or used code");
    };
    if form.get("redirect_uri") != Some(&grant.redirect_uri) {
        return invalid("redirect_uri differs");
    }
    let verifier = form.get("code_verifier").cloned().unwrap_or_default();
    if B64.encode(Sha256::digest(verifier.as_bytes())) != grant.challenge {
        return invalid("PKCE verifier does not match the challenge");
    }
    let access = random_hex();
    st.access.insert(access.clone(), grant.user.clone());
    if discord {
        return HttpResponse::Ok().json(json!({
            "access_token": access, "token_type": "Bearer", "expires_in": 604800,
            "refresh_token": random_hex(), "scope": "identify email",
        }));
    }
    let u = &grant.user;
    let mut claims = json!({
        "iss": st.base, "sub": u.sub, "aud": CLIENT_ID,
        "iat": now(), "exp": now() + 300,
        "nonce": grant.nonce, "name": u.name,
    });
    if grant.max_age.is_some() {
        // OIDC Core 3.1.2.1: with max_age the ID token carries auth_time;
        // here the person has just signed in again.
        claims["auth_time"] = json!(now());
    }
    if let Some(e) = &u.email {
        claims["email"] = json!(e);
        claims["email_verified"] = json!(u.verified);
    }
    let mut key_pem = PROVIDER_KEY;
    match forge {
        Forge::BadSignature => key_pem = ATTACKER_KEY,
        Forge::WrongNonce => claims["nonce"] = json!("another-attempts-nonce"),
        Forge::Expired => {
            claims["iat"] = json!(now() - 7200);
            claims["exp"] = json!(now() - 3600);
        }
        Forge::WrongAudience => claims["aud"] = json!("someone-else"),
        Forge::WrongIssuer => claims["iss"] = json!("https://evil.example"),
        Forge::StaleAuthTime => claims["auth_time"] = json!(now() - 3600),
        Forge::NoAuthTime => {
            claims.as_object_mut().unwrap().remove("auth_time");
        }
        _ => {}
    }
    HttpResponse::Ok().json(json!({
        "access_token": access, "token_type": "Bearer", "expires_in": 3600,
        "id_token": jwt(key_pem, &claims),
    }))
}

fn users_me(s: &Shared, req: &HttpRequest) -> HttpResponse {
    let bearer = req
        .headers()
        .get("authorization")
        .and_then(|h| h.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_owned();
    let st = s.lock().unwrap();
    let Some(u) = st.access.get(&bearer) else {
        return HttpResponse::Unauthorized()
            .json(json!({"message": "401: Unauthorized", "code": 0}));
    };
    HttpResponse::Ok().json(json!({
        "id": u.sub, "username": u.name.to_lowercase().replace(' ', "_"),
        "global_name": u.name, "discriminator": "0", "avatar": null,
        "email": u.email, "verified": u.verified,
    }))
}

/// Starts the fake on a random port; answers its base URL and its state.
pub fn start(first_user: User) -> (String, Shared) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shared: Shared = Arc::new(Mutex::new(State {
        base: base.clone(),
        user: first_user,
        forge: Forge::None,
        grants: HashMap::new(),
        access: HashMap::new(),
        token_requests: Vec::new(),
    }));
    let s = shared.clone();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            HttpServer::new(move || {
                let s = s.clone();
                App::new()
                    .app_data(web::Data::new(s))
                    .route(
                        "/.well-known/openid-configuration",
                        web::get().to(|s: web::Data<Shared>| async move {
                            let base = s.lock().unwrap().base.clone();
                            HttpResponse::Ok().json(json!({
                                "issuer": base,
                                "authorization_endpoint": format!("{base}/authorize"),
                                "token_endpoint": format!("{base}/token"),
                                "jwks_uri": format!("{base}/jwks"),
                                "response_types_supported": ["code"],
                                "subject_types_supported": ["public"],
                                "id_token_signing_alg_values_supported": ["RS256"],
                                "scopes_supported": ["openid", "email", "profile"],
                                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                                "code_challenge_methods_supported": ["S256"],
                                "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nonce", "email", "email_verified", "name"],
                            }))
                        }),
                    )
                    .route("/jwks", web::get().to(|| async { HttpResponse::Ok().json(jwks()) }))
                    .route(
                        "/authorize",
                        web::get().to(|s: web::Data<Shared>, q: web::Query<HashMap<String, String>>| async move {
                            authorize(&s, &q, false)
                        }),
                    )
                    .route(
                        "/oauth2/authorize",
                        web::get().to(|s: web::Data<Shared>, q: web::Query<HashMap<String, String>>| async move {
                            authorize(&s, &q, true)
                        }),
                    )
                    .route(
                        "/token",
                        web::post().to(|s: web::Data<Shared>, req: HttpRequest, f: web::Form<HashMap<String, String>>| async move {
                            token(s.get_ref().clone(), req, f.into_inner(), false).await
                        }),
                    )
                    .route(
                        "/api/oauth2/token",
                        web::post().to(|s: web::Data<Shared>, req: HttpRequest, f: web::Form<HashMap<String, String>>| async move {
                            token(s.get_ref().clone(), req, f.into_inner(), true).await
                        }),
                    )
                    .route(
                        "/api/users/@me",
                        web::get().to(|s: web::Data<Shared>, req: HttpRequest| async move {
                            users_me(&s, &req)
                        }),
                    )
            })
            .workers(1)
            .listen(listener)
            .unwrap()
            .run()
            .await
            .unwrap();
        });
    });
    (base, shared)
}
