//! Third-party sign-in (issue 21 item 2) against the fake providers of
//! [`fake`]: a new user's sign-in and final step, a replayed state, forged
//! ID tokens (signature, nonce, expiry, audience, issuer), a code injected
//! into another attempt (PKCE), provider failures, e-mails not merged
//! silently, linking and unlinking, and Discord's OAuth 2.0 flow.

mod fake;
mod reauth;

use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp, PASSWORD};
use fake::{Forge, Shared};

pub(super) const START: &str = "/api/v1/account/oidc/start";
const LOGIN: &str = "/api/v1/account/login-in";

pub(super) fn assert_code<T: std::fmt::Debug>(r: Result<T, ClientError>, code: ErrorCode) {
    let e = r.expect_err("expected an error");
    let st = e
        .status()
        .unwrap_or_else(|| panic!("not an API error: {e}"));
    assert_eq!(st.code, code.code(), "{st:?}");
    assert_eq!(st.key.as_deref(), Some(code.key()));
    assert_eq!(e.http_status(), Some(code.http_status()));
}

/// The app with `acme` (OIDC by issuer) and `discord` on one fake.
pub(super) async fn app_with_fake(first: fake::User, extra: &[(&str, &str)]) -> (TestApp, Shared) {
    let (base, shared) = fake::start(first);
    let mut env = vec![
        ("EASEL_OIDC_PROVIDERS", "acme,discord".to_owned()),
        ("EASEL_OIDC_ACME_ISSUER", base.clone()),
        ("EASEL_OIDC_ACME_CLIENT_ID", fake::CLIENT_ID.to_owned()),
        (
            "EASEL_OIDC_ACME_CLIENT_SECRET",
            fake::CLIENT_SECRET.to_owned(),
        ),
        ("EASEL_OIDC_ACME_LABEL", "Acme ID".to_owned()),
        ("EASEL_OIDC_DISCORD_BASE", base.clone()),
        ("EASEL_OIDC_DISCORD_CLIENT_ID", fake::CLIENT_ID.to_owned()),
        (
            "EASEL_OIDC_DISCORD_CLIENT_SECRET",
            fake::CLIENT_SECRET.to_owned(),
        ),
    ];
    for (k, v) in extra {
        env.push((k, (*v).to_owned()));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    (spawn_app_with(&env).await, shared)
}

/// What the browser does: follows the authorization URL to the fake, which
/// answers a 302 to our callback page with `code` and `state`.
pub(super) async fn authorize(url: &str) -> (String, String, String) {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = http.get(url).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 302, "{:?}", resp.text().await);
    let loc = resp.headers()["location"].to_str().unwrap().to_owned();
    let to = reqwest::Url::parse(&loc).unwrap();
    let q: std::collections::HashMap<_, _> = to.query_pairs().into_owned().collect();
    let callback = format!("{}://{}{}", to.scheme(), to.authority(), to.path());
    (q["code"].clone(), q["state"].clone(), callback)
}

/// Starts a sign-in with `provider` and brings back (code, session_id).
pub(super) async fn begin(c: &RestClient, provider: &str) -> (String, String) {
    let start: Value = c.post(START, &json!({"provider": provider})).await.unwrap();
    let (code, state, _) = authorize(start["url"].as_str().unwrap()).await;
    assert_eq!(state, start["session_id"].as_str().unwrap());
    (code, state)
}

pub(super) async fn login_third(
    c: &RestClient,
    login_type: &str,
    code: &str,
    session_id: &str,
) -> Result<Value, ClientError> {
    c.post(
        LOGIN,
        &json!({"type": login_type, "token": code, "session_id": session_id}),
    )
    .await
}

#[tokio::test]
async fn a_new_user_signs_in_completes_the_final_step_and_comes_back() {
    let (app, fake) = app_with_fake(fake::user("alice-sub", Some("alice@acme.example")), &[]).await;
    let c = app.client.with_device("oidc-device-1");

    let list: Value = c
        .post("/api/v1/account/oidc/providers", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        list["items"],
        json!([
            {"name": "acme", "kind": "oidc", "label": "Acme ID", "type": 6},
            {"name": "discord", "kind": "discord", "label": "Discord", "type": 3},
        ])
    );

    let start: Value = c.post(START, &json!({"provider": "acme"})).await.unwrap();
    assert_eq!(start["type"], 6);
    let url = start["url"].as_str().unwrap();
    assert!(
        url.contains("code_challenge_method=S256") && url.contains("nonce="),
        "{url}"
    );
    let (code, state, callback) = authorize(url).await;
    assert_eq!(callback, format!("{}/oidc/callback", app.base));

    let first = login_third(&c, "6", &code, &state).await.unwrap();
    // New accounts go through the final step (status 3).
    assert_eq!(first["account"]["status"], 3);
    assert_eq!(first["account"]["email"], "alice@acme.example");
    assert_eq!(first["new_account"], true);
    assert_eq!(first["needs_profile"], true);
    // loginThird's shape: type 6 maps to channel 5.
    assert_eq!(first["third"]["session_id"], state);
    assert_eq!(first["third"]["channel_type"], 5);
    assert_eq!(
        first["third"]["id_token"]
            .as_str()
            .unwrap()
            .split('.')
            .count(),
        3
    );
    // The token request carried the PKCE verifier and the client's credentials.
    {
        let st = fake.lock().unwrap();
        let form = st.token_requests.last().unwrap();
        assert!(form["code_verifier"].len() >= 43);
        assert_eq!(form["redirect_uri"], callback);
    }

    let token = first["token"].as_str().unwrap();
    let done: Value = c
        .with_token(token)
        .post(
            "/api/v1/account/complete-profile",
            &json!({"name": "Alice"}),
        )
        .await
        .unwrap();
    assert_eq!(done["account"]["status"], 1);

    // A provider-only account has no password: a password login is refused, not a fault.
    assert_code(
        c.login("alice@acme.example", "whatever-password").await,
        ErrorCode::PasswordError,
    );

    let (code, state) = begin(&c, "acme").await;
    let again = login_third(&c, "6", &code, &state).await.unwrap();
    assert_eq!(again["account"]["id"], first["account"]["id"]);
    assert_eq!(again["account"]["status"], 1);
    assert_eq!(again["new_account"], false);
}

#[tokio::test]
async fn a_replayed_or_unknown_state_is_refused() {
    let (app, _fake) = app_with_fake(fake::user("bob-sub", Some("bob@acme.example")), &[]).await;
    let c = app.client.with_device("oidc-device-2");
    let (code, state) = begin(&c, "acme").await;
    login_third(&c, "6", &code, &state).await.unwrap();
    // The same callback again (a replay): the state was taken.
    assert_code(
        login_third(&c, "6", &code, &state).await,
        ErrorCode::OidcStateInvalid,
    );
    assert_code(
        login_third(&c, "6", &code, "never-issued").await,
        ErrorCode::OidcStateInvalid,
    );
    // A state is single-use even when the first use failed.
    let (code, state) = begin(&c, "acme").await;
    assert_code(
        login_third(&c, "6", "", &state).await,
        ErrorCode::InvalidParams,
    );
    login_third(&c, "6", &code, &state).await.unwrap();
    assert_code(
        login_third(&c, "6", &code, &state).await,
        ErrorCode::OidcStateInvalid,
    );
}

#[tokio::test]
async fn forged_id_tokens_are_refused_each_with_its_key() {
    let (app, fake) = app_with_fake(fake::user("carol-sub", Some("carol@acme.example")), &[]).await;
    let c = app.client.with_device("oidc-device-3");
    for (forge, code) in [
        (Forge::BadSignature, ErrorCode::OidcTokenInvalid),
        (Forge::WrongNonce, ErrorCode::OidcNonceMismatch),
        (Forge::Expired, ErrorCode::OidcTokenExpired),
        (Forge::WrongAudience, ErrorCode::OidcTokenInvalid),
        (Forge::WrongIssuer, ErrorCode::OidcTokenInvalid),
    ] {
        fake.lock().unwrap().forge = forge;
        let (code_, state) = begin(&c, "acme").await;
        let r = login_third(&c, "6", &code_, &state).await;
        assert!(r.is_err(), "{forge:?} was accepted");
        assert_code(r, code);
    }
    // No account was made by any of them.
    fake.lock().unwrap().forge = Forge::None;
    let (code, state) = begin(&c, "acme").await;
    let ok = login_third(&c, "6", &code, &state).await.unwrap();
    assert_eq!(ok["new_account"], true);
}

#[tokio::test]
async fn a_code_injected_into_another_attempt_fails_pkce() {
    let (app, _fake) = app_with_fake(fake::user("dan-sub", Some("dan@acme.example")), &[]).await;
    let c = app.client.with_device("oidc-device-4");
    // The attacker's code (attempt A) sent with the victim's state (attempt B):
    // the server sends B's verifier, which does not match A's challenge.
    let (code_a, _state_a) = begin(&c, "acme").await;
    let start_b: Value = c.post(START, &json!({"provider": "acme"})).await.unwrap();
    assert_code(
        login_third(&c, "6", &code_a, start_b["session_id"].as_str().unwrap()).await,
        ErrorCode::OidcProviderError,
    );
}

#[tokio::test]
async fn provider_failures_answer_provider_error() {
    let (app, fake) = app_with_fake(
        fake::user("erin-sub", Some("erin@acme.example")),
        &[("EASEL_OIDC_TIMEOUT_MS", "1000")],
    )
    .await;
    let c = app.client.with_device("oidc-device-5");
    for forge in [
        Forge::OAuthError,
        Forge::Status500,
        Forge::BadJson,
        Forge::Stall,
    ] {
        fake.lock().unwrap().forge = forge;
        let (code, state) = begin(&c, "acme").await;
        let r = login_third(&c, "6", &code, &state).await;
        assert!(r.is_err(), "{forge:?} was accepted");
        assert_code(r, ErrorCode::OidcProviderError);
    }
    assert_code(
        c.post::<_, Value>(START, &json!({"provider": "nobody"}))
            .await,
        ErrorCode::OidcProviderUnknown,
    );
    assert_code(
        c.post::<_, Value>(START, &json!({"provider": "acme", "link": true}))
            .await,
        ErrorCode::NeedLogin,
    );
}

#[tokio::test]
async fn an_unreachable_issuer_answers_provider_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let issuer = format!("http://127.0.0.1:{port}");
    let app = spawn_app_with(&[
        ("EASEL_OIDC_PROVIDERS", "acme"),
        ("EASEL_OIDC_ACME_ISSUER", issuer.as_str()),
        ("EASEL_OIDC_ACME_CLIENT_ID", "x"),
    ])
    .await;
    assert_code(
        app.client
            .post::<_, Value>(START, &json!({"provider": "acme"}))
            .await,
        ErrorCode::OidcProviderError,
    );
}

#[tokio::test]
async fn an_email_on_an_account_is_not_merged_the_owner_links_then_unlinks() {
    let email = format!("frank-{}@example.com", crate::helpers::rand_suffix());
    let (app, _fake) = app_with_fake(fake::user("frank-sub", Some(&email)), &[]).await;
    let c = app.client.with_device("oidc-device-6");
    let owner = c.sign_up(&email, PASSWORD, "Frank").await.unwrap();
    let me = c.with_token(&owner.token);

    let (code, state) = begin(&c, "acme").await;
    assert_code(
        login_third(&c, "6", &code, &state).await,
        ErrorCode::OidcEmailTaken,
    );

    // The owner links the provider from the settings.
    let start: Value = me
        .post(START, &json!({"provider": "acme", "link": true}))
        .await
        .unwrap();
    let (code, state, _) = authorize(start["url"].as_str().unwrap()).await;
    // A link attempt is not a sign-in.
    assert_code(
        login_third(&c, "6", &code, &state).await,
        ErrorCode::OidcStateInvalid,
    );
    let start: Value = me
        .post(START, &json!({"provider": "acme", "link": true}))
        .await
        .unwrap();
    let (code, state, _) = authorize(start["url"].as_str().unwrap()).await;
    let linked: Value = me
        .post(
            "/api/v1/account/oidc/link",
            &json!({"session_id": state, "token": code}),
        )
        .await
        .unwrap();
    assert_eq!(linked["items"][0]["provider"], "acme");
    assert_eq!(linked["items"][0]["email"], email.as_str());
    assert_eq!(linked["has_password"], true);

    let (code, state) = begin(&c, "acme").await;
    let signed = login_third(&c, "6", &code, &state).await.unwrap();
    assert_eq!(signed["account"]["id"], owner.account.id.as_str());
    assert_eq!(signed["new_account"], false);

    // With a password left, unlinking is allowed; then the e-mail is refused again.
    let after: Value = me
        .post("/api/v1/account/oidc/unlink", &json!({"provider": "acme"}))
        .await
        .unwrap();
    assert_eq!(after["items"], json!([]));
    assert_code(
        me.post::<_, Value>("/api/v1/account/oidc/unlink", &json!({"provider": "acme"}))
            .await,
        ErrorCode::OidcNotLinked,
    );
    let (code, state) = begin(&c, "acme").await;
    assert_code(
        login_third(&c, "6", &code, &state).await,
        ErrorCode::OidcEmailTaken,
    );
}

/// `account/delete/cancel` proved by a provider sign-in (state and code).
pub(super) async fn cancel_with_provider(
    c: &RestClient,
    code: &str,
    state: &str,
) -> Result<Value, ClientError> {
    c.post(
        "/api/v1/account/delete/cancel",
        &json!({"session_id": state, "token": code}),
    )
    .await
}

pub(super) async fn link(me: &RestClient, provider: &str) -> Result<Value, ClientError> {
    let start: Value = me
        .post(START, &json!({"provider": provider, "link": true}))
        .await
        .unwrap();
    let (code, state, _) = authorize(start["url"].as_str().unwrap()).await;
    me.post(
        "/api/v1/account/oidc/link",
        &json!({"session_id": state, "token": code}),
    )
    .await
}

#[tokio::test]
async fn the_last_way_to_sign_in_cannot_be_unlinked_and_identities_stay_with_one_account() {
    let (app, fake) = app_with_fake(fake::user("gina-sub", None), &[]).await;
    let c = app.client.with_device("oidc-device-7");
    let (code, state) = begin(&c, "acme").await;
    let gina = login_third(&c, "6", &code, &state).await.unwrap();
    // No e-mail from the provider: the account has none either.
    assert_eq!(gina["account"]["email"], "");
    let me = c.with_token(gina["token"].as_str().unwrap());
    me.post::<_, Value>("/api/v1/account/complete-profile", &json!({"name": "Gina"}))
        .await
        .unwrap();
    assert_code(
        me.post::<_, Value>("/api/v1/account/oidc/unlink", &json!({"provider": "acme"}))
            .await,
        ErrorCode::OidcLastSignIn,
    );

    // Gina links Discord too; then either one may go, not both.
    fake.lock().unwrap().user = fake::user("gina-discord", None);
    let both = link(&me, "discord").await.unwrap();
    assert_eq!(both["items"].as_array().unwrap().len(), 2);
    assert_eq!(both["has_password"], false);
    me.post::<_, Value>("/api/v1/account/oidc/unlink", &json!({"provider": "acme"}))
        .await
        .unwrap();
    assert_code(
        me.post::<_, Value>(
            "/api/v1/account/oidc/unlink",
            &json!({"provider": "discord"}),
        )
        .await,
        ErrorCode::OidcLastSignIn,
    );

    // Another account cannot take Gina's Discord identity.
    let (_, other) = app.user("Hank").await;
    assert_code(link(&other, "discord").await, ErrorCode::OidcIdentityTaken);
    let listed: Value = other
        .post("/api/v1/account/oidc/linked", &json!({}))
        .await
        .unwrap();
    assert_eq!(listed["items"], json!([]));
}

#[tokio::test]
async fn discord_signs_in_through_its_oauth2_endpoints() {
    let mut unverified = fake::user("123456789012345678", Some("ivy@discord.example"));
    unverified.verified = false;
    let (app, fake) = app_with_fake(unverified, &[]).await;
    let c = app.client.with_device("oidc-device-8");
    let start: Value = c
        .post(START, &json!({"provider": "discord"}))
        .await
        .unwrap();
    assert_eq!(start["type"], 3);
    let url = start["url"].as_str().unwrap();
    assert!(
        url.contains("/oauth2/authorize?") && url.contains("scope=identify+email"),
        "{url}"
    );
    let (code, state, _) = authorize(url).await;
    // Discord's state with Google's type: refused.
    assert_code(
        login_third(&c, "2", &code, &state).await,
        ErrorCode::LoginTypeUnsupported,
    );
    let (code, state) = begin(&c, "discord").await;
    let ivy = login_third(&c, "3", &code, &state).await.unwrap();
    assert_eq!(ivy["account"]["status"], 3);
    // An address Discord did not verify is not taken.
    assert_eq!(ivy["account"]["email"], "");
    // loginThird: type 3 maps to channel 4; Discord has no ID token.
    assert_eq!(ivy["third"]["channel_type"], 4);
    assert_eq!(ivy["third"]["id_token"], Value::Null);
    assert!(fake.lock().unwrap().token_requests.last().unwrap()["code_verifier"].len() >= 43);

    // A token endpoint failure is the provider's.
    fake.lock().unwrap().forge = Forge::OAuthError;
    let (code, state) = begin(&c, "discord").await;
    assert_code(
        login_third(&c, "3", &code, &state).await,
        ErrorCode::OidcProviderError,
    );
}

#[tokio::test]
async fn a_provider_sign_in_cancels_a_scheduled_deletion() {
    let email = format!("gail-{}@example.com", crate::helpers::rand_suffix());
    let (app, _fake) = app_with_fake(fake::user("gail-sub", Some(&email)), &[]).await;
    let c = app.client.with_device("oidc-device-9");
    let owner = c.sign_up(&email, PASSWORD, "Gail").await.unwrap();
    let me = c.with_token(&owner.token);
    link(&me, "acme").await.unwrap();
    let methods: Value = me
        .post("/api/v1/account/delete/methods", &json!({}))
        .await
        .unwrap();
    assert_eq!(methods["password"], true);
    assert_eq!(methods["providers"], json!(["acme"]));
    let _: Value = me
        .post(
            "/api/v1/account/delete/request",
            &json!({"password": PASSWORD}),
        )
        .await
        .unwrap();

    // The provider's sign-in answers 20010 while the deletion waits.
    let (code, state) = begin(&c, "acme").await;
    assert_code(
        login_third(&c, "6", &code, &state).await,
        ErrorCode::ActNotAvailable,
    );
    // That attempt's state was taken: it cannot be used again to cancel.
    assert_code(
        cancel_with_provider(&c, &code, &state).await,
        ErrorCode::OidcStateInvalid,
    );
    // A fresh sign-in at the provider cancels it and signs in.
    let (code, state) = begin(&c, "acme").await;
    let back = cancel_with_provider(&c, &code, &state).await.unwrap();
    assert_eq!(back["account"]["id"], owner.account.id.as_str());
    let (code, state) = begin(&c, "acme").await;
    let signed = login_third(&c, "6", &code, &state).await.unwrap();
    assert_eq!(signed["account"]["id"], owner.account.id.as_str());
}
