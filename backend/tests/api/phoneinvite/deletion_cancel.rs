//! Cancelling a phone-only account's scheduled deletion by a code sent to
//! its number (issue 21): the sign-in answers 20010 and leaves the right
//! code live; a wrong code answers 20105; the code is single-use; another
//! number's code cancels nothing of this account.

use serde_json::{json, Value};

use super::{app_with_sms, assert_code, code_of, send, sign_in};
use protocol::ErrorCode;

const CANCEL: &str = "/api/v1/account/delete/cancel";

#[tokio::test]
async fn a_phone_only_account_cancels_its_deletion_with_a_code() {
    let (app, seen) = app_with_sms(&[
        ("EASEL_SMS_PER_NUMBER_PER_HOUR", "50"),
        ("EASEL_SMS_PER_IP_PER_HOUR", "100"),
        ("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", "1000"),
    ])
    .await;
    let (mine, other) = ("+447911123461", "+447911123462");
    send(&app.client, mine).await.unwrap();
    let first = sign_in(
        &app.client,
        mine,
        &code_of(&seen, mine),
        json!({"name": "Pia"}),
    )
    .await
    .unwrap();
    let pia = app.client.with_token(&first.token);

    // The methods answer: no password, the phone.
    let methods: Value = pia
        .post("/api/v1/account/delete/methods", &json!({}))
        .await
        .unwrap();
    assert_eq!(methods["password"], false);
    assert_eq!(methods["phone"], "+44 7911 123461");
    assert_eq!(methods["sms_enabled"], true);

    send(&app.client, mine).await.unwrap();
    let _: Value = pia
        .post(
            "/api/v1/account/delete/request",
            &json!({"phone_code": code_of(&seen, mine)}),
        )
        .await
        .unwrap();

    // Signing in with a fresh code answers 20010 and keeps that code live.
    send(&app.client, mine).await.unwrap();
    let code = code_of(&seen, mine);
    assert_code(
        sign_in(&app.client, mine, &code, json!({})).await,
        ErrorCode::ActNotAvailable,
    );

    // A wrong code is refused with the verification-code error.
    let wrong = if code == "000000" { "111111" } else { "000000" };
    assert_code(
        app.client
            .post::<_, Value>(CANCEL, &json!({"phone": mine, "code": wrong}))
            .await,
        ErrorCode::VerifiCodeError,
    );

    // Another number's code cancels nothing here, and its own number has
    // no account to cancel.
    send(&app.client, other).await.unwrap();
    let theirs = code_of(&seen, other);
    if theirs != code {
        assert_code(
            app.client
                .post::<_, Value>(CANCEL, &json!({"phone": mine, "code": theirs}))
                .await,
            ErrorCode::VerifiCodeError,
        );
    }
    send(&app.client, other).await.unwrap();
    assert_code(
        app.client
            .post::<_, Value>(
                CANCEL,
                &json!({"phone": other, "code": code_of(&seen, other)}),
            )
            .await,
        ErrorCode::AccountNoExistent,
    );
    // Still scheduled.
    send(&app.client, mine).await.unwrap();
    let code = code_of(&seen, mine);
    assert_code(
        sign_in(&app.client, mine, &code, json!({})).await,
        ErrorCode::ActNotAvailable,
    );

    // The right code cancels and signs in.
    let back: Value = app
        .client
        .post(CANCEL, &json!({"phone": "+44 7911 123461", "code": code}))
        .await
        .unwrap();
    assert_eq!(back["account"]["id"], first.account.id.as_str());
    let token = back["token"].as_str().unwrap().to_owned();
    let _: Value = app
        .client
        .with_token(&token)
        .post("/api/v1/account/info", &json!({}))
        .await
        .unwrap();

    // The code was spent: it neither cancels again nor signs in.
    assert_code(
        app.client
            .post::<_, Value>(CANCEL, &json!({"phone": mine, "code": code}))
            .await,
        ErrorCode::VerifiCodeError,
    );
    assert_code(
        sign_in(&app.client, mine, &code, json!({})).await,
        ErrorCode::VerifiCodeError,
    );
    // A new code signs the account in normally: nothing is pending.
    send(&app.client, mine).await.unwrap();
    let again = sign_in(&app.client, mine, &code_of(&seen, mine), json!({}))
        .await
        .unwrap();
    assert_eq!(again.account.id, first.account.id);
    send(&app.client, mine).await.unwrap();
    assert_code(
        app.client
            .post::<_, Value>(
                CANCEL,
                &json!({"phone": mine, "code": code_of(&seen, mine)}),
            )
            .await,
        ErrorCode::DeletionNotPending,
    );
}

#[tokio::test]
async fn a_cancel_names_exactly_one_proof() {
    let (app, _seen) = app_with_sms(&[]).await;
    for body in [
        json!({}),
        json!({"email": "a@example.com", "password": "x", "phone": "+447911123463", "code": "123456"}),
        json!({"phone": "+447911123463", "code": "1", "session_id": "s", "token": "t"}),
    ] {
        assert_code(
            app.client.post::<_, Value>(CANCEL, &body).await,
            ErrorCode::InvalidParams,
        );
    }
}
