//! Verification codes mailed to an address: 6 digits, stored only as a
//! salted SHA-256, one live code per account and purpose (a new one
//! replaces the old), expiring (`EASEL_VERIFY_CODE_TTL_SECS`, 10 min),
//! single use, and dead after 5 wrong attempts. Sends are rate-limited per
//! address and per client address. Also the account side: marking the
//! address verified and moving the account to a new, verified address.

use infra::store::Key;
use protocol::account::Email;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::mail_templates::{self, MailLocale};
use super::outbox::MailService;
use super::{now_secs, AccountRow, AccountService, EmailClaim};
use crate::error::ApiError;

/// Wrong attempts after which a code is dead.
pub const MAX_ATTEMPTS: u32 = 5;

/// What a code proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The account's own address (after sign-up).
    Verify,
    /// A new address the account moves to.
    ChangeEmail,
}

impl Purpose {
    fn key(self, account_id: &str) -> Key {
        let p = match self {
            Purpose::Verify => "verify",
            Purpose::ChangeEmail => "email",
        };
        Key::of(p).str(account_id)
    }
}

/// A live code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeRow {
    /// The address the code was sent to.
    pub email: String,
    pub salt: String,
    pub code_hash: String,
    pub expires_at: i64,
    pub attempts: u32,
}

fn code_hash(salt: &str, code: &str) -> String {
    hex::encode(Sha256::digest(format!("{salt}:{code}").as_bytes()))
}

impl MailService {
    /// Mails a new code for `purpose` to `email`; returns its lifetime in seconds.
    pub async fn issue_code(
        &self,
        account_id: &str,
        purpose: Purpose,
        email: &str,
        lang: MailLocale,
        ip: &str,
    ) -> Result<i64, ApiError> {
        self.require()?;
        self.limit_send(email, ip).await?;
        let code = format!("{:06}", rand::random_range(0..1_000_000u32));
        let salt = hex::encode(rand::random::<[u8; 16]>());
        let ttl = self.settings.code_ttl_secs;
        let row = CodeRow {
            email: email.to_owned(),
            code_hash: code_hash(&salt, &code),
            salt,
            expires_at: now_secs() + ttl,
            attempts: 0,
        };
        let pk = purpose.key(account_id);
        self.codes.put(&pk, &Key::empty(), &row).await?;
        self.expiry
            .register(
                row.expires_at.saturating_mul(1000),
                super::expiry::ExpiryKind::MailCode,
                &pk,
            )
            .await?;
        let minutes = (ttl + 59) / 60;
        let m = mail_templates::verify_code(lang, &code, minutes, purpose == Purpose::ChangeEmail);
        self.enqueue(email, m.subject, m.text, m.html).await?;
        Ok(ttl)
    }

    /// Uses the code: the address it was sent to, or VerifiCodeError
    /// (wrong; counts an attempt) or VerifyCodeExpired (none live: expired,
    /// used, or dead after too many wrong attempts).
    pub async fn check_code(
        &self,
        account_id: &str,
        purpose: Purpose,
        code: &str,
    ) -> Result<String, ApiError> {
        let pk = purpose.key(account_id);
        let ck = Key::empty();
        let Some(row) = self.codes.get(&pk, &ck).await? else {
            return Err(ErrorCode::VerifyCodeExpired.into());
        };
        if row.expires_at <= now_secs() || row.attempts >= MAX_ATTEMPTS {
            let _ = self.codes.compare_and_set(&pk, &ck, &row, None).await?;
            return Err(ErrorCode::VerifyCodeExpired.into());
        }
        let code = code.trim();
        let well_formed = code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit());
        if well_formed && code_hash(&row.salt, code) == row.code_hash {
            // Single use: only the caller whose delete applies gets the address.
            return match self.codes.compare_and_set(&pk, &ck, &row, None).await? {
                Ok(()) => Ok(row.email),
                Err(_) => Err(ErrorCode::VerifyCodeExpired.into()),
            };
        }
        let attempts = row.attempts + 1;
        let next = (attempts < MAX_ATTEMPTS).then(|| CodeRow {
            attempts,
            ..row.clone()
        });
        let _ = self
            .codes
            .compare_and_set(&pk, &ck, &row, next.as_ref())
            .await?;
        Err(ErrorCode::VerifiCodeError.into())
    }
}

impl AccountService {
    /// The account with this address, if any.
    pub async fn find_by_email(&self, email: &Email) -> Result<Option<AccountRow>, ApiError> {
        let Some(claim) = self
            .by_email
            .get(&Key::of(email.as_str()), &Key::empty())
            .await?
        else {
            return Ok(None);
        };
        self.get(&claim.account_id).await
    }

    /// Marks `email` verified if it is still the account's address.
    pub async fn mark_verified(
        &self,
        account_id: &str,
        email: &str,
    ) -> Result<Option<AccountRow>, ApiError> {
        Ok(self
            .accounts
            .update(&Key::of(account_id), &Key::empty(), None, |row| {
                if row.email == email {
                    row.email_verified = true;
                }
            })
            .await?)
    }

    /// Whether another account holds the address (a claim whose account row
    /// is gone does not count).
    pub async fn email_taken(&self, email: &Email, by_other_than: &str) -> Result<bool, ApiError> {
        Ok(self
            .find_by_email(email)
            .await?
            .is_some_and(|row| row.id != by_other_than))
    }

    /// Moves the account to a new address it proved it receives mail at:
    /// claims the new address (EmailRegistered if another account has it),
    /// writes the row, releases the old claim. Returns the old address and the row.
    pub async fn move_to_email(
        &self,
        account_id: &str,
        new_email: &Email,
    ) -> Result<(String, AccountRow), ApiError> {
        let new_key = Key::of(new_email.as_str());
        let claim = EmailClaim {
            account_id: account_id.to_owned(),
        };
        if let Err(existing) = self
            .by_email
            .insert_if_absent(&new_key, &Key::empty(), &claim)
            .await?
        {
            if existing.account_id != account_id {
                let holder = self.get(&existing.account_id).await?;
                if holder.is_some() {
                    return Err(ErrorCode::EmailRegistered.into());
                }
                if self
                    .by_email
                    .compare_and_set(&new_key, &Key::empty(), &existing, Some(&claim))
                    .await?
                    .is_err()
                {
                    return Err(ErrorCode::EmailRegistered.into());
                }
            }
        }
        let mut old = String::new();
        let row = self
            .accounts
            .update(&Key::of(account_id), &Key::empty(), None, |row| {
                old = row.email.clone();
                row.email = new_email.as_str().to_owned();
                row.email_verified = true;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if old != new_email.as_str() {
            let old_claim = EmailClaim {
                account_id: account_id.to_owned(),
            };
            let _ = self
                .by_email
                .compare_and_set(&Key::of(&old), &Key::empty(), &old_claim, None)
                .await?;
        }
        Ok((old, row))
    }
}
