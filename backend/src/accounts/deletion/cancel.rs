//! `account/delete/cancel` (see `mod.rs`): during the grace, proved by
//! whatever the account signs in with: its e-mail and password, a code sent
//! to its phone (`account/login-in/sms` without a code sends one), or a
//! fresh sign-in at a linked provider (an `oidc/start` attempt's state and
//! code). Every session was ended at the request, so the proof is the
//! sign-in's own; the cancel then answers like a login.

use infra::store::Key;
use protocol::ErrorCode;

use super::{due_ck, due_pk, DeletionState, DeletionTables};
use crate::accounts::lockout::Lockout;
use crate::accounts::phone::parse_e164;
use crate::accounts::{verify_password, AccountRow, AccountService};
use crate::error::ApiError;
use crate::state::AppState;

/// How the caller proves it is the account.
#[derive(Debug, Clone, Copy)]
pub enum CancelProof<'a> {
    /// The account's e-mail and password.
    Password { email: &'a str, password: &'a str },
    /// The account's phone number and a code sent to it.
    Phone { phone: &'a str, code: &'a str },
    /// A provider sign-in: the attempt's state (`session_id`) and the
    /// provider's authorization code.
    Provider { session_id: &'a str, code: &'a str },
}

impl AccountService {
    /// The account behind an e-mail and password, whatever its deletion
    /// state; counted in the lockout like a sign-in.
    async fn by_credentials(
        &self,
        lockout: &Lockout,
        email: &str,
        password: &str,
        ip: &str,
    ) -> Result<AccountRow, ApiError> {
        lockout.check_ip(ip).await?;
        let email = protocol::account::Email::parse(email)?;
        let claim = match self
            .by_email
            .get(&Key::of(email.as_str()), &Key::empty())
            .await?
        {
            Some(c) => c,
            None => {
                lockout.failed(None, ip).await?;
                return Err(ErrorCode::AccountNoExistent.into());
            }
        };
        let row = self
            .get(&claim.account_id)
            .await?
            .ok_or(ErrorCode::AccountNoExistent)?;
        lockout.check(&row.id, ip, false).await?;
        if let Err(e) = verify_password(password, &row.password_hash).await {
            lockout.failed(Some(&row.id), ip).await?;
            return Err(e);
        }
        lockout.succeeded(&row.id, ip).await?;
        Ok(row)
    }
}

/// The account behind a phone number and the code sent to it. The code is
/// taken (single-use, attempt-limited, 20105 when wrong) before anything
/// about the number's account is told; a wrong one also counts against the
/// address in the lockout.
async fn by_phone(
    st: &AppState,
    phone: &str,
    code: &str,
    ip: &str,
) -> Result<AccountRow, ApiError> {
    let lockout = &st.security.lockout;
    lockout.check_ip(ip).await?;
    if !st.phones.enabled() {
        return Err(ErrorCode::LoginTypeUnsupported.into());
    }
    let e164 = parse_e164(phone)?;
    let owner = st.phones.owner(&e164).await?;
    if let Some(id) = &owner {
        lockout.check(id, ip, false).await?;
    }
    if let Err(e) = st.phones.take_code(&e164, code).await {
        lockout.failed(owner.as_deref(), ip).await?;
        return Err(e);
    }
    let id = owner.ok_or(ErrorCode::AccountNoExistent)?;
    lockout.succeeded(&id, ip).await?;
    st.accounts
        .get(&id)
        .await?
        .ok_or_else(|| ErrorCode::AccountNoExistent.into())
}

/// The account a provider's user signs in to, from a sign-in attempt's
/// state (taken once; a link attempt's is refused) and the provider's code.
async fn by_provider(st: &AppState, session_id: &str, code: &str) -> Result<AccountRow, ApiError> {
    let pending = st.oidc.take_state(session_id).await?;
    if !pending.is_sign_in() {
        return Err(ErrorCode::OidcStateInvalid.into());
    }
    let who = st.oidc.finish(&pending, code).await?;
    let id = st
        .oidc
        .account_of(&who)
        .await?
        .ok_or(ErrorCode::AccountNoExistent)?;
    st.accounts
        .get(&id)
        .await?
        .ok_or_else(|| ErrorCode::AccountNoExistent.into())
}

/// `account/delete/cancel`: during the grace only. Answers the account row
/// and a fresh token (the caller answers like a login).
pub async fn cancel(
    st: &AppState,
    proof: CancelProof<'_>,
    ip: &str,
) -> Result<(AccountRow, String), ApiError> {
    let row = match proof {
        CancelProof::Password { email, password } => {
            st.accounts
                .by_credentials(&st.security.lockout, email, password, ip)
                .await?
        }
        CancelProof::Phone { phone, code } => by_phone(st, phone, code, ip).await?,
        CancelProof::Provider { session_id, code } => by_provider(st, session_id, code).await?,
    };
    let Some(mark) = &row.deletion else {
        return Err(ErrorCode::DeletionNotPending.into());
    };
    let t = DeletionTables::new(st.store.clone());
    let pk = Key::of(&row.id);
    if let Some(req) = t.requests.get(&pk, &Key::empty()).await? {
        if req.state != DeletionState::Pending {
            return Err(mark.refusal());
        }
        // Compare-and-set against the sweeper taking it.
        if t.requests
            .compare_and_set(&pk, &Key::empty(), &req, None)
            .await?
            .is_err()
        {
            return Err(mark.refusal());
        }
        t.due
            .delete(&due_pk(), &due_ck(req.purge_at, &row.id))
            .await?;
    } else if mark.done {
        return Err(mark.refusal());
    }
    let row = st.accounts.set_deletion_mark(&row.id, None).await?;
    let token = st.accounts.issue_token(&row.id).await?;
    tracing::info!(account = %row.id, "account deletion cancelled");
    Ok((row, token))
}
