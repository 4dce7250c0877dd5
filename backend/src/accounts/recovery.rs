//! Password recovery and changes: `forgot` mails a reset link
//! (`{EASEL_PUBLIC_URL}/{locale}/reset?token=...`, DESIGN.md Contracts)
//! whether or not the address has an account, answering the same either
//! way; `reset` sets the password once per token (256 random bits, stored
//! as SHA-256, expiring after `EASEL_RESET_TOKEN_TTL_SECS`) and ends every
//! session; `change_password` needs the old password and ends the other
//! sessions.

use infra::store::Key;
use protocol::account::{Email, Password};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::mail_templates::{self, MailLocale};
use super::outbox::MailService;
use super::{hash_password, hash_token, now_secs, verify_password, AccountService, Caller};
use crate::error::ApiError;

/// A reset token's record, keyed by the token's hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResetRow {
    pub account_id: String,
    /// The address the link went to.
    pub email: String,
    pub expires_at: i64,
    pub used: bool,
}

impl MailService {
    /// `forgot`: checks the limits, then looks the address up and mails a
    /// link off the request path, so the answer neither says nor takes
    /// longer whether the address has an account.
    pub async fn forgot(
        &self,
        accounts: &AccountService,
        email: &str,
        lang: MailLocale,
        ip: &str,
    ) -> Result<(), ApiError> {
        self.require()?;
        let email = Email::parse(email)?;
        self.limit_send(email.as_str(), ip).await?;
        let me = self.clone();
        let accounts = accounts.clone();
        actix_web::rt::spawn(async move {
            if let Err(e) = me.mail_reset_link(&accounts, &email, lang).await {
                tracing::warn!(error = %e.code, "mail: a reset link could not be queued");
            }
        });
        Ok(())
    }

    async fn mail_reset_link(
        &self,
        accounts: &AccountService,
        email: &Email,
        lang: MailLocale,
    ) -> Result<(), ApiError> {
        let Some(row) = accounts.find_by_email(email).await? else {
            return Ok(());
        };
        // No reset link for a disabled account or one being deleted.
        if row.admit().is_err() {
            return Ok(());
        }
        let token = hex::encode(rand::random::<[u8; 32]>());
        let ttl = self.settings.reset_ttl_secs;
        let reset = ResetRow {
            account_id: row.id.clone(),
            email: row.email.clone(),
            expires_at: now_secs() + ttl,
            used: false,
        };
        let pk = Key::of(&hash_token(&token));
        self.resets.put(&pk, &Key::empty(), &reset).await?;
        self.expiry
            .register(
                super::expiry::reset_gone_at_ms(reset.expires_at),
                super::expiry::ExpiryKind::ResetToken,
                &pk,
            )
            .await?;
        let url = format!(
            "{}/{}/reset?token={token}",
            self.settings.public_url,
            lang.path()
        );
        let m = mail_templates::reset_link(lang, &url, (ttl + 59) / 60);
        self.enqueue(&row.email, m.subject, m.text, m.html).await
    }

    /// `reset`: sets the password of the token's account once, ends all
    /// its sessions and marks its address verified (the link proved it).
    pub async fn reset(
        &self,
        accounts: &AccountService,
        token: &str,
        password: &str,
        lang: MailLocale,
    ) -> Result<(), ApiError> {
        let password = Password::parse(password)?;
        let token = token.trim();
        if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ErrorCode::ResetLinkUsed.into());
        }
        let pk = Key::of(&hash_token(token));
        let Some(row) = self.resets.get(&pk, &Key::empty()).await? else {
            return Err(ErrorCode::ResetLinkUsed.into());
        };
        if row.used {
            return Err(ErrorCode::ResetLinkUsed.into());
        }
        if row.expires_at <= now_secs() {
            return Err(ErrorCode::ResetLinkExpired.into());
        }
        let used = ResetRow {
            used: true,
            ..row.clone()
        };
        if self
            .resets
            .compare_and_set(&pk, &Key::empty(), &row, Some(&used))
            .await?
            .is_err()
        {
            return Err(ErrorCode::ResetLinkUsed.into());
        }
        let hash = hash_password(password).await?;
        let updated = accounts
            .accounts
            .update(&Key::of(&row.account_id), &Key::empty(), None, |a| {
                a.password_hash = hash.clone();
                if a.email == row.email {
                    a.email_verified = true;
                }
            })
            .await?
            .ok_or(ErrorCode::ResetLinkUsed)?;
        accounts.end_sessions(&row.account_id, None).await?;
        let m = mail_templates::password_changed(lang);
        self.enqueue(&updated.email, m.subject, m.text, m.html)
            .await?;
        Ok(())
    }

    /// Changes the caller's password: the old one is required (PasswordError
    /// otherwise); the caller's other sessions end. Returns how many ended.
    pub async fn change_password(
        &self,
        accounts: &AccountService,
        caller: &Caller,
        old_password: &str,
        new_password: &str,
        lang: MailLocale,
    ) -> Result<usize, ApiError> {
        let new_password = Password::parse(new_password)?;
        let current = accounts
            .get(&caller.account.id)
            .await?
            .ok_or(ErrorCode::NeedLogin)?;
        verify_password(old_password, &current.password_hash).await?;
        let hash = hash_password(new_password).await?;
        let updated = accounts
            .accounts
            .update(&Key::of(&current.id), &Key::empty(), Some(current), |a| {
                a.password_hash = hash.clone();
            })
            .await?
            .ok_or(ErrorCode::NeedLogin)?;
        let ended = accounts
            .end_sessions(&updated.id, Some(&caller.token_hash))
            .await?;
        if self.configured() {
            let m = mail_templates::password_changed(lang);
            self.enqueue(&updated.email, m.subject, m.text, m.html)
                .await?;
        }
        Ok(ended)
    }
}

impl AccountService {
    /// PasswordError unless `password` is the account's password (re-authentication).
    pub async fn check_own_password(
        &self,
        account_id: &str,
        password: &str,
    ) -> Result<(), ApiError> {
        let row = self.get(account_id).await?.ok_or(ErrorCode::NeedLogin)?;
        self.check_password(&row, password).await
    }
}
