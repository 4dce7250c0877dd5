//! Re-authentication for sensitive calls (issue 21): changing the e-mail
//! or the password, asking for or cancelling a deletion, and the
//! two-factor calls. Every one re-enters a secret through the same lockout
//! as sign-in ([`super::lockout`]): a wrong password counts a failure of
//! the account and address pair, and a pair in back-off answers 20141
//! before the password is even checked.
//!
//! An account without a password (made by phone sign-in) proves itself
//! with a fresh code sent to its number (`account/login-in/sms` without a
//! code sends one), counted the same way. One made by a provider sign-in
//! proves itself with a fresh sign-in there: an `oidc/start` attempt with
//! `reauth` (its state answers only this account's re-authentication) and
//! the provider's code; the identity must be linked to the account and the
//! sign-in fresh ([`super::oidc::check_fresh`]).

use protocol::ErrorCode;

use super::AccountRow;
use crate::error::ApiError;
use crate::state::AppState;

/// The secret a sensitive call carries.
#[derive(Debug, Clone, Copy, Default)]
pub struct Proof<'a> {
    pub password: Option<&'a str>,
    /// A code sent to the account's phone (accounts without a password).
    pub phone_code: Option<&'a str>,
    /// A provider re-authentication: the attempt's state (`session_id`) and
    /// the provider's code (`token`).
    pub provider: Option<(&'a str, &'a str)>,
}

impl<'a> Proof<'a> {
    pub fn password(password: &'a str) -> Proof<'a> {
        Proof {
            password: Some(password),
            ..Proof::default()
        }
    }
}

/// Checks the signed-in `account`'s proof from `ip`, counting failures in
/// the lockout; PasswordError (or VerifiCodeError for a phone code) when
/// wrong, TooManyAttempts while the pair waits.
pub async fn confirm(
    st: &AppState,
    account: &AccountRow,
    ip: &str,
    proof: Proof<'_>,
) -> Result<(), ApiError> {
    if let Some((session_id, code)) = proof.provider.filter(|(s, _)| !s.trim().is_empty()) {
        return by_provider(st, account, ip, session_id, code).await;
    }
    let phone_code = proof
        .phone_code
        .map(str::trim)
        .filter(|c| !c.is_empty() && account.password_hash.is_empty());
    let Some(code) = phone_code else {
        return st
            .security
            .reauthenticate(account, proof.password.unwrap_or(""), ip)
            .await;
    };
    let lockout = &st.security.lockout;
    lockout.check(&account.id, ip, true).await?;
    let Some(number) = st.phones.number_of(&account.id).await? else {
        lockout.failed(Some(&account.id), ip).await?;
        return Err(ErrorCode::PasswordError.into());
    };
    if let Err(e) = st.phones.take_code(&number, code).await {
        lockout.failed(Some(&account.id), ip).await?;
        return Err(e);
    }
    Ok(())
}

/// A fresh provider sign-in of an identity linked to `account`. Every
/// refusal after the state is taken counts a failure in the lockout.
async fn by_provider(
    st: &AppState,
    account: &AccountRow,
    ip: &str,
    session_id: &str,
    code: &str,
) -> Result<(), ApiError> {
    let lockout = &st.security.lockout;
    lockout.check(&account.id, ip, true).await?;
    let outcome = async {
        let pending = st.oidc.take_state(session_id.trim()).await?;
        // A sign-in's or a link's state, or another account's, answers like an unknown one.
        if pending.reauth_account.as_deref() != Some(account.id.as_str()) {
            return Err(ErrorCode::OidcStateInvalid.into());
        }
        let who = st.oidc.finish(&pending, code.trim()).await?;
        if st.oidc.account_of(&who).await?.as_deref() != Some(account.id.as_str()) {
            return Err(ErrorCode::OidcNotThisAccount.into());
        }
        super::oidc::check_fresh(&pending, &who)
    }
    .await;
    if let Err(e) = outcome {
        lockout.failed(Some(&account.id), ip).await?;
        return Err(e);
    }
    Ok(())
}
