//! Re-authentication through a provider (issue 21 item 6): an account that
//! signs in only through a provider asks for its deletion with a fresh
//! sign-in there. The attempt answers only that purpose, for that account;
//! the identity must be the linked one; the provider must say the person
//! signed in again (`max_age` asked, `auth_time` checked); Discord asks for
//! the consent screen again.

use protocol::client::RestClient;
use protocol::ErrorCode;
use serde_json::{json, Value};

use super::fake::{self, Forge};
use super::{
    app_with_fake, assert_code, authorize, begin, cancel_with_provider, login_third, START,
};

const REQUEST: &str = "/api/v1/account/delete/request";

/// A provider-only account, signed in, with its profile completed.
async fn provider_account(c: &RestClient, provider: &str, login_type: &str) -> (RestClient, Value) {
    let (code, state) = begin(c, provider).await;
    let first = login_third(c, login_type, &code, &state).await.unwrap();
    assert_eq!(first["new_account"], true);
    let me = c.with_token(first["token"].as_str().unwrap());
    let _: Value = me
        .post("/api/v1/account/complete-profile", &json!({"name": "Pat"}))
        .await
        .unwrap();
    (me, first["account"].clone())
}

/// Starts a re-authentication and brings back (code, session_id, url).
async fn begin_reauth(me: &RestClient, provider: &str) -> (String, String, String) {
    let start: Value = me
        .post(START, &json!({"provider": provider, "reauth": true}))
        .await
        .unwrap();
    let url = start["url"].as_str().unwrap().to_owned();
    let (code, state, _) = authorize(&url).await;
    (code, state, url)
}

async fn request(
    me: &RestClient,
    code: &str,
    state: &str,
) -> Result<Value, protocol::client::ClientError> {
    me.post(REQUEST, &json!({"session_id": state, "token": code}))
        .await
}

#[tokio::test]
async fn a_provider_only_account_asks_for_its_deletion_with_a_fresh_sign_in() {
    // Enough free failures for the refusals below; the lockout has its own test.
    let (app, fake) = app_with_fake(
        fake::user("pat-sub", Some("pat@acme.example")),
        &[("EASEL_LOCKOUT_FREE_FAILURES", "50")],
    )
    .await;
    let c = app.client.with_device("oidc-reauth-1");
    let (me, account) = provider_account(&c, "acme", "6").await;

    let methods: Value = me
        .post("/api/v1/account/delete/methods", &json!({}))
        .await
        .unwrap();
    assert_eq!(methods["password"], false);
    assert_eq!(methods["providers"], json!(["acme"]));
    // Without any proof the request is refused as a wrong password.
    assert_code(
        me.post::<_, Value>(REQUEST, &json!({})).await,
        ErrorCode::PasswordError,
    );

    // Starting a re-authentication needs a signed-in caller.
    assert_code(
        c.post::<_, Value>(START, &json!({"provider": "acme", "reauth": true}))
            .await,
        ErrorCode::NeedLogin,
    );
    assert_code(
        me.post::<_, Value>(
            START,
            &json!({"provider": "acme", "reauth": true, "link": true}),
        )
        .await,
        ErrorCode::InvalidParams,
    );

    // A sign-in's state does not re-authenticate.
    let (code, state) = begin(&c, "acme").await;
    assert_code(
        request(&me, &code, &state).await,
        ErrorCode::OidcStateInvalid,
    );

    // A provider that did not sign the person in again is refused, and so
    // is one that does not say when (OIDC Core requires auth_time with max_age).
    for forge in [Forge::StaleAuthTime, Forge::NoAuthTime] {
        fake.lock().unwrap().forge = forge;
        let (code, state, _) = begin_reauth(&me, "acme").await;
        assert_code(
            request(&me, &code, &state).await,
            ErrorCode::OidcTokenExpired,
        );
    }
    fake.lock().unwrap().forge = Forge::None;

    // A re-authentication's state cannot sign in or link either.
    let (code, state, url) = begin_reauth(&me, "acme").await;
    assert!(url.contains("max_age=0"), "{url}");
    assert_code(
        login_third(&c, "6", &code, &state).await,
        ErrorCode::OidcStateInvalid,
    );
    let (code, state, _) = begin_reauth(&me, "acme").await;
    assert_code(
        me.post::<_, Value>(
            "/api/v1/account/oidc/link",
            &json!({"session_id": state, "token": code}),
        )
        .await,
        ErrorCode::OidcStateInvalid,
    );

    // Someone else's provider account is not this account's proof.
    fake.lock().unwrap().user = fake::user("mallory-sub", Some("mallory@acme.example"));
    let (code, state, _) = begin_reauth(&me, "acme").await;
    assert_code(
        request(&me, &code, &state).await,
        ErrorCode::OidcNotThisAccount,
    );
    fake.lock().unwrap().user = fake::user("pat-sub", Some("pat@acme.example"));

    // Another account cannot use this account's attempt.
    let other = app.client.with_device("oidc-reauth-2");
    let other = other
        .sign_up(
            &format!("o-{}@example.com", crate::helpers::rand_suffix()),
            crate::helpers::PASSWORD,
            "Other",
        )
        .await
        .unwrap();
    let other = app.client.with_token(&other.token);
    let (code, state, _) = begin_reauth(&me, "acme").await;
    assert_code(
        request(&other, &code, &state).await,
        ErrorCode::OidcStateInvalid,
    );

    // A fresh sign-in at the linked provider asks for the deletion, once.
    let (code, state, _) = begin_reauth(&me, "acme").await;
    let view = request(&me, &code, &state).await.unwrap();
    assert_eq!(view["account_id"], account["id"]);
    assert_eq!(view["state"], "pending");
    // Every session ended; the state was taken.
    assert_code(
        me.post::<_, Value>("/api/v1/account/delete/methods", &json!({}))
            .await,
        ErrorCode::NeedLogin,
    );
    // And the provider sign-in cancels it again.
    let (code, state) = begin(&c, "acme").await;
    let back = cancel_with_provider(&c, &code, &state).await.unwrap();
    assert_eq!(back["account"]["id"], account["id"]);
}

#[tokio::test]
async fn discord_re_authentication_asks_for_consent_again() {
    let (app, _fake) = app_with_fake(fake::user("dan-sub", Some("dan@acme.example")), &[]).await;
    let c = app.client.with_device("oidc-reauth-3");
    let (me, account) = provider_account(&c, "discord", "3").await;
    let (code, state, url) = begin_reauth(&me, "discord").await;
    assert!(url.contains("prompt=consent"), "{url}");
    let view = request(&me, &code, &state).await.unwrap();
    assert_eq!(view["account_id"], account["id"]);
}

#[tokio::test]
async fn wrong_provider_proofs_count_in_the_lockout() {
    // The default policy: three free failures, then a back-off.
    let (app, fake) = app_with_fake(fake::user("lee-sub", Some("lee@acme.example")), &[]).await;
    let c = app.client.with_device("oidc-reauth-4");
    let (me, _) = provider_account(&c, "acme", "6").await;
    fake.lock().unwrap().forge = Forge::StaleAuthTime;
    let mut codes = Vec::new();
    for _ in 0..5 {
        let (code, state, _) = begin_reauth(&me, "acme").await;
        let e = request(&me, &code, &state).await.unwrap_err();
        codes.push(e.status().unwrap().code);
    }
    assert!(
        codes.contains(&ErrorCode::TooManyAttempts.code()),
        "wrong proofs never backed off: {codes:?}"
    );
}
