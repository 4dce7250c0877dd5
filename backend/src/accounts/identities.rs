//! Provider identities and the accounts they sign in to: a provider's user
//! (provider name, subject) belongs to one account (`oidc_identities`,
//! claimed by insert-if-absent); an account lists its links
//! (`oidc_by_account`). A new provider user gets a new account in status 3
//! (the final step completes the profile); a verified e-mail already on an
//! account is never merged silently (OidcEmailTaken: sign in, then link).
//! Unlinking never removes the last way to sign in.

use infra::store::{Key, ScanRange};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::oidc::{OidcService, VerifiedIdentity};
use super::{now_secs, AccountRow, AccountService, EmailClaim};
use crate::error::ApiError;

/// The account a provider's user signs in to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdentityRow {
    pub account_id: String,
    pub linked_at: i64,
}

/// One provider linked to an account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkRow {
    pub subject: String,
    /// The provider's verified e-mail at link time, shown in the settings.
    #[serde(default)]
    pub email: Option<String>,
    pub linked_at: i64,
}

/// A linked provider, as the settings page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LinkedProvider {
    pub provider: String,
    pub email: Option<String>,
    pub linked_at: i64,
}

fn identity_key(provider: &str, subject: &str) -> Key {
    Key::of(provider).str(subject)
}

impl AccountService {
    /// A new account for a provider's user: status 3, no password, the
    /// provider's verified e-mail claimed (refused when an account has it).
    async fn create_for_identity(
        &self,
        id: &str,
        email: Option<&str>,
        device_code: String,
    ) -> Result<AccountRow, ApiError> {
        if let Some(email) = email {
            let claim = EmailClaim {
                account_id: id.to_owned(),
            };
            if self
                .by_email
                .insert_if_absent(&Key::of(email), &Key::empty(), &claim)
                .await?
                .is_err()
            {
                return Err(ErrorCode::OidcEmailTaken.into());
            }
        }
        let mut row = AccountRow::fresh(
            id,
            email.unwrap_or_default(),
            None,
            String::new(),
            device_code,
        );
        // Only a provider's verified address is ever taken.
        row.email_verified = email.is_some();
        self.accounts.put(&Key::of(id), &Key::empty(), &row).await?;
        Ok(row)
    }

    /// Issues a token for an account found by a provider identity.
    async fn sign_in_found(&self, account_id: &str) -> Result<(AccountRow, String), ApiError> {
        let row = self
            .get(account_id)
            .await?
            .ok_or(ErrorCode::AccountNoExistent)?;
        row.admit()?;
        let token = self.issue_token(&row.id).await?;
        Ok((row, token))
    }
}

impl OidcService {
    /// The account a verified provider user signs in to, if any.
    pub async fn account_of(&self, who: &VerifiedIdentity) -> Result<Option<String>, ApiError> {
        Ok(self
            .identities
            .get(&identity_key(&who.provider, &who.subject), &Key::empty())
            .await?
            .map(|r| r.account_id))
    }

    /// Signs a provider's user in, creating their account (status 3) the
    /// first time. Answers the account, a token and whether it is new.
    pub async fn sign_in(
        &self,
        accounts: &AccountService,
        who: &VerifiedIdentity,
        device_code: String,
    ) -> Result<(AccountRow, String, bool), ApiError> {
        let key = identity_key(&who.provider, &who.subject);
        if let Some(found) = self.identities.get(&key, &Key::empty()).await? {
            let (row, token) = accounts.sign_in_found(&found.account_id).await?;
            return Ok((row, token, false));
        }
        let id = uuid::Uuid::now_v7().simple().to_string();
        let claim = IdentityRow {
            account_id: id.clone(),
            linked_at: now_secs(),
        };
        if let Err(existing) = self
            .identities
            .insert_if_absent(&key, &Key::empty(), &claim)
            .await?
        {
            // A concurrent first sign-in of the same user won the claim.
            let (row, token) = accounts.sign_in_found(&existing.account_id).await?;
            return Ok((row, token, false));
        }
        let row = match accounts
            .create_for_identity(&id, who.email.as_deref(), device_code)
            .await
        {
            Ok(row) => row,
            Err(e) => {
                self.identities.delete(&key, &Key::empty()).await?;
                return Err(e);
            }
        };
        self.by_account
            .put(
                &Key::of(&id),
                &Key::of(&who.provider),
                &LinkRow {
                    subject: who.subject.clone(),
                    email: who.email.clone(),
                    linked_at: claim.linked_at,
                },
            )
            .await?;
        let token = accounts.issue_token(&id).await?;
        Ok((row, token, true))
    }

    /// Links a provider's user to a signed-in account. Linking the same
    /// user again is a no-op; a user linked elsewhere, or a second user of
    /// the same provider, is refused (OidcIdentityTaken).
    pub async fn link(&self, account_id: &str, who: &VerifiedIdentity) -> Result<(), ApiError> {
        let ck = Key::of(&who.provider);
        if let Some(existing) = self.by_account.get(&Key::of(account_id), &ck).await? {
            if existing.subject == who.subject {
                return Ok(());
            }
            return Err(ApiError::with_msg(
                ErrorCode::OidcIdentityTaken,
                "another account of this provider is linked; unlink it first",
            ));
        }
        let key = identity_key(&who.provider, &who.subject);
        let now = now_secs();
        let claim = IdentityRow {
            account_id: account_id.to_owned(),
            linked_at: now,
        };
        if let Err(existing) = self
            .identities
            .insert_if_absent(&key, &Key::empty(), &claim)
            .await?
        {
            if existing.account_id != account_id {
                return Err(ErrorCode::OidcIdentityTaken.into());
            }
        }
        self.by_account
            .put(
                &Key::of(account_id),
                &ck,
                &LinkRow {
                    subject: who.subject.clone(),
                    email: who.email.clone(),
                    linked_at: now,
                },
            )
            .await?;
        Ok(())
    }

    /// The providers linked to an account.
    pub async fn linked(&self, account_id: &str) -> Result<Vec<LinkedProvider>, ApiError> {
        let page = self
            .by_account
            .scan(&Key::of(account_id), &ScanRange::all(64))
            .await?;
        Ok(page
            .rows
            .into_iter()
            .filter_map(|(ck, row)| {
                ck.reader().str().map(|provider| LinkedProvider {
                    provider,
                    email: row.email,
                    linked_at: row.linked_at,
                })
            })
            .collect())
    }

    /// Unlinks a provider, unless it is the account's last way to sign in
    /// (no password and no other provider).
    pub async fn unlink(&self, account: &AccountRow, provider: &str) -> Result<(), ApiError> {
        let pk = Key::of(&account.id);
        let ck = Key::of(provider);
        let link = self
            .by_account
            .get(&pk, &ck)
            .await?
            .ok_or(ErrorCode::OidcNotLinked)?;
        let others = self
            .linked(&account.id)
            .await?
            .into_iter()
            .filter(|l| l.provider != provider)
            .count();
        if account.password_hash.is_empty() && others == 0 {
            return Err(ErrorCode::OidcLastSignIn.into());
        }
        self.by_account.delete(&pk, &ck).await?;
        self.identities
            .delete(&identity_key(provider, &link.subject), &Key::empty())
            .await?;
        Ok(())
    }
}
