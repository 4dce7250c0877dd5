//! Re-authentication for sensitive calls (issue 21): changing the e-mail
//! or the password, asking for or cancelling a deletion, and the
//! two-factor calls. Every one re-enters a secret through the same lockout
//! as sign-in ([`super::lockout`]): a wrong password counts a failure of
//! the account and address pair, and a pair in back-off answers 20141
//! before the password is even checked.
//!
//! An account without a password (made by phone sign-in) proves itself
//! with a fresh code sent to its number (`account/login-in/sms` without a
//! code sends one), counted the same way.

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
}

impl<'a> Proof<'a> {
    pub fn password(password: &'a str) -> Proof<'a> {
        Proof {
            password: Some(password),
            phone_code: None,
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
