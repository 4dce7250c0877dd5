//! Accounts: sign-up, login, tokens, status changes. The repository is
//! written against the typed table abstraction; passwords are hashed with
//! argon2id, tokens are 256 random bits stored only as their SHA-256.

use std::sync::Arc;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use infra::bus::{user_topic, BusMessage, DynBus, PushContent};
use infra::store::{tables, DynStore, Key, Table};
use protocol::account::{
    self, status, Account, AccountInfo, DisplayName, Email, Password, PaymentInfo, UserSettings,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::ApiError;

pub mod codes;
pub mod deletion;
pub mod discord;
pub mod expiry;
pub mod export;
mod export_social;
pub mod identities;
pub mod invites;
pub mod limits;
pub mod lockout;
pub mod mail;
pub mod mail_templates;
pub mod oidc;
mod operator;
pub mod outbox;
pub mod owned;
pub mod phone;
pub mod profile;
pub mod reauth;
pub mod recovery;
pub mod sessions;
pub mod signin_notice;
pub mod sms;
pub mod totp;

/// A stored account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccountRow {
    pub id: String,
    pub email: String,
    pub name: String,
    /// PHC string of the argon2id hash.
    pub password_hash: String,
    pub status: u8,
    pub create_at: i64,
    pub device_code: String,
    pub settings: UserSettings,
    /// An operator's grant of membership (`admin/account/membership`),
    /// besides what a subscription gives.
    pub payment: PaymentInfo,
    /// A company account (spec 2 §6: counts as VIP), set by an operator.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub company: bool,
    /// What the account's subscription gives, and until when: written by
    /// the mall whenever the subscription changes, read with the account on
    /// every request, so perks cost no extra read and end on time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perks: Option<protocol::mall::subscription::Perks>,
    /// Set while the account waits for its deletion or once it is deleted
    /// (`deletion/`): sign-in answers 20010 and no token works.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion: Option<deletion::DeletionMark>,
    /// The account proved it receives mail at `email` (issue 21: a
    /// verification code, a reset link, or a confirmed change of address).
    #[serde(default)]
    pub email_verified: bool,
}

impl AccountRow {
    /// A new account's row, whatever way it signs up (e-mail, phone, a
    /// provider): without a name it starts in status 3 (profile incomplete);
    /// an empty `password_hash` never verifies.
    pub fn fresh(
        id: &str,
        email: &str,
        name: Option<&str>,
        password_hash: String,
        device_code: String,
    ) -> AccountRow {
        AccountRow {
            id: id.to_owned(),
            email: email.to_owned(),
            status: if name.is_some() {
                status::NORMAL
            } else {
                status::INCOMPLETE
            },
            name: name.unwrap_or_default().to_owned(),
            password_hash,
            create_at: now_secs(),
            device_code,
            settings: UserSettings {
                insight: false,
                task_flow_version: 2,
                task_flow_gt: false,
            },
            payment: PaymentInfo::default(),
            company: false,
            perks: None,
            deletion: None,
            email_verified: false,
        }
    }

    /// Whether this account may sign in (any way): a deletion waiting or
    /// done answers 20010, a disabled account 20004.
    pub fn admit(&self) -> Result<(), ApiError> {
        if let Some(mark) = &self.deletion {
            return Err(mark.refusal());
        }
        if self.status == status::DISABLED {
            return Err(ErrorCode::AccountDisabled.into());
        }
        Ok(())
    }

    /// Payment info (spec 1 §3) now: the subscription's perks while its
    /// paid period lasts, joined with an operator's grant.
    pub fn payment_now(&self) -> PaymentInfo {
        let sub =
            protocol::mall::subscription::Perks::payment_info(self.perks.as_ref(), now_millis());
        let op = &self.payment;
        PaymentInfo {
            active_state: sub.active_state || op.active_state,
            lite_active_state: sub.lite_active_state || op.lite_active_state,
            infinite_queue: sub.infinite_queue || op.infinite_queue || self.company,
            product_level: sub.product_level.max(op.product_level),
        }
    }

    /// VIP (spec 2 §6): a full or lite plan in force, or a company account.
    pub fn is_vip(&self) -> bool {
        self.payment_now().is_vip(self.company)
    }

    pub fn wire(&self) -> Account {
        Account {
            id: self.id.clone(),
            name: self.name.clone(),
            email: self.email.clone(),
            create_at: self.create_at,
            status: self.status,
            device_code: self.device_code.clone(),
        }
    }

    pub fn info(&self, admin: bool) -> AccountInfo {
        AccountInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            email: self.email.clone(),
            create_at: self.create_at,
            status: self.status,
            settings: self.settings.clone(),
            admin,
            ornament: None,
            email_verified: self.email_verified,
            nsfw_mode: None,
        }
    }
}

/// The unique claim of an e-mail address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmailClaim {
    pub account_id: String,
}

/// A login token's record (keyed by the token's hash).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRow {
    pub account_id: String,
    pub created_at: i64,
    pub expires_at: i64,
    /// The user agent, summarised (`sessions.rs`).
    #[serde(default)]
    pub device: String,
    /// The client address at sign-in.
    #[serde(default)]
    pub address: String,
    /// Seconds; written at most once a minute.
    #[serde(default)]
    pub last_seen: i64,
}

/// A partial change of [`UserSettings`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsChange {
    pub insight: Option<bool>,
    pub task_flow_version: Option<u8>,
    pub task_flow_gt: Option<bool>,
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller {
    pub account: AccountRow,
    pub token_hash: String,
}

pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn new_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

pub fn new_device_code() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

#[derive(Clone)]
pub struct AccountService {
    accounts: Table<AccountRow>,
    by_email: Table<EmailClaim>,
    sessions: Table<SessionRow>,
    sessions_by_account: Table<()>,
    bus: DynBus,
    token_ttl_secs: i64,
    admins: Arc<Vec<String>>,
}

impl AccountService {
    pub fn new(
        store: DynStore,
        bus: DynBus,
        token_ttl_secs: i64,
        admins: Vec<String>,
    ) -> AccountService {
        AccountService {
            accounts: Table::new(store.clone(), &tables::ACCOUNTS),
            by_email: Table::new(store.clone(), &tables::ACCOUNT_BY_EMAIL),
            sessions: Table::new(store.clone(), &tables::SESSIONS),
            sessions_by_account: Table::new(store, &tables::SESSIONS_BY_ACCOUNT),
            bus,
            token_ttl_secs,
            admins: Arc::new(admins),
        }
    }

    pub fn is_admin(&self, account: &AccountRow) -> bool {
        self.admins.contains(&account.email)
    }

    pub fn token_ttl_secs(&self) -> i64 {
        self.token_ttl_secs
    }

    /// Creates an account and logs it in. Without a name the account starts
    /// in status 3 (profile incomplete).
    #[tracing::instrument(skip(self, password))]
    pub async fn sign_up(
        &self,
        email: &str,
        password: &str,
        name: Option<&str>,
        device_code: String,
    ) -> Result<(AccountRow, String), ApiError> {
        let email = Email::parse(email)?;
        let password = Password::parse(password)?;
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => Some(DisplayName::parse(n)?),
            None => None,
        };
        let password_hash = hash_password(password).await?;
        let id = uuid::Uuid::now_v7().simple().to_string();
        let email_key = Key::of(email.as_str());
        // Claim the e-mail first: the claim is the uniqueness check.
        if let Err(existing) = self
            .by_email
            .insert_if_absent(
                &email_key,
                &Key::empty(),
                &EmailClaim {
                    account_id: id.clone(),
                },
            )
            .await?
        {
            // A claim whose account row was never written (a crash between the
            // two writes) is taken over; a real account is a conflict.
            if self
                .accounts
                .get(&Key::of(&existing.account_id), &Key::empty())
                .await?
                .is_some()
            {
                return Err(ErrorCode::EmailRegistered.into());
            }
            let claim = EmailClaim {
                account_id: id.clone(),
            };
            if self
                .by_email
                .compare_and_set(&email_key, &Key::empty(), &existing, Some(&claim))
                .await?
                .is_err()
            {
                return Err(ErrorCode::EmailRegistered.into());
            }
        }
        let row = AccountRow::fresh(
            &id,
            email.as_str(),
            name.as_ref().map(|n| n.as_str()),
            password_hash,
            device_code,
        );
        self.accounts
            .put(&Key::of(&id), &Key::empty(), &row)
            .await?;
        let token = self.issue_token(&row.id).await?;
        Ok((row, token))
    }

    async fn issue_token(&self, account_id: &str) -> Result<String, ApiError> {
        let token = new_token();
        let hash = hash_token(&token);
        let now = now_secs();
        let row = SessionRow {
            account_id: account_id.to_owned(),
            created_at: now,
            expires_at: now + self.token_ttl_secs,
            device: String::new(),
            address: String::new(),
            last_seen: now,
        };
        self.sessions
            .put(&Key::of(&hash), &Key::empty(), &row)
            .await?;
        self.sessions_by_account
            .put(&Key::of(account_id), &Key::of(&hash), &())
            .await?;
        Ok(token)
    }

    /// The caller behind a token, if the token is live and the account not disabled.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Caller>, ApiError> {
        if token.is_empty() || token.len() > 256 {
            return Ok(None);
        }
        let hash = hash_token(token);
        let Some(session) = self.sessions.get(&Key::of(&hash), &Key::empty()).await? else {
            return Ok(None);
        };
        if session.expires_at <= now_secs() {
            self.drop_token(&session.account_id, &hash).await?;
            return Ok(None);
        }
        let Some(account) = self
            .accounts
            .get(&Key::of(&session.account_id), &Key::empty())
            .await?
        else {
            return Ok(None);
        };
        if account.status == status::DISABLED || account.deletion.is_some() {
            return Ok(None);
        }
        self.touch_session(&hash, &session).await?;
        Ok(Some(Caller {
            account,
            token_hash: hash,
        }))
    }

    async fn drop_token(&self, account_id: &str, hash: &str) -> Result<(), ApiError> {
        self.sessions.delete(&Key::of(hash), &Key::empty()).await?;
        self.sessions_by_account
            .delete(&Key::of(account_id), &Key::of(hash))
            .await?;
        Ok(())
    }

    /// Ends one token and closes the sockets that authenticated with it.
    pub async fn logout(&self, caller: &Caller) -> Result<(), ApiError> {
        self.drop_token(&caller.account.id, &caller.token_hash)
            .await?;
        self.bus
            .publish(
                &user_topic(&caller.account.id),
                BusMessage::CloseSockets {
                    token_hash: Some(caller.token_hash.clone()),
                    code: actors::close_code::BAD_TOKEN,
                    reason: "logged out".into(),
                },
            )
            .await;
        Ok(())
    }

    /// Changes the caller's own account row (compare-and-set on the latest row).
    async fn update_own(
        &self,
        caller: &Caller,
        f: impl FnMut(&mut AccountRow),
    ) -> Result<AccountRow, ApiError> {
        let key = Key::of(&caller.account.id);
        let updated = self
            .accounts
            .update(&key, &Key::empty(), Some(caller.account.clone()), f)
            .await?;
        updated.ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// Finishes a status-3 account's profile.
    pub async fn complete_profile(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<AccountRow, ApiError> {
        let name = DisplayName::parse(name)?;
        self.update_own(caller, |row| {
            row.name = name.as_str().to_owned();
            if row.status == status::INCOMPLETE {
                row.status = status::NORMAL;
            }
        })
        .await
    }

    /// Changes the caller's settings and tells every socket of the user, so
    /// other tabs follow (notification frame 13, kind `account.settings`).
    pub async fn update_settings(
        &self,
        caller: &Caller,
        change: &SettingsChange,
    ) -> Result<UserSettings, ApiError> {
        if let Some(v) = change.task_flow_version {
            if ![1, 2].contains(&v) {
                return Err(ApiError::with_msg(
                    ErrorCode::InvalidParams,
                    "task_flow_version must be 1 or 2",
                ));
            }
        }
        let updated = self
            .update_own(caller, |row| {
                if let Some(v) = change.insight {
                    row.settings.insight = v;
                }
                if let Some(v) = change.task_flow_version {
                    row.settings.task_flow_version = v;
                }
                if let Some(v) = change.task_flow_gt {
                    row.settings.task_flow_gt = v;
                }
            })
            .await?;
        self.notify(
            &updated.id,
            serde_json::json!({"kind": "account.settings", "settings": updated.settings}),
        )
        .await;
        Ok(updated.settings)
    }

    /// Pushes a notification (frame 13) to every socket of the account.
    pub async fn notify(&self, account_id: &str, content: serde_json::Value) {
        let frame_type = protocol::frame::FrameType::Notification.as_u16();
        self.bus
            .publish(
                &user_topic(account_id),
                BusMessage::Push {
                    frame_type,
                    content: PushContent::from_value(&content),
                },
            )
            .await;
    }

    pub async fn get(&self, account_id: &str) -> Result<Option<AccountRow>, ApiError> {
        Ok(self
            .accounts
            .get(&Key::of(account_id), &Key::empty())
            .await?)
    }
}

/// argon2id with the crate's defaults (19 MiB, 2 passes): slow by design,
/// so it runs on the blocking pool.
pub(crate) async fn hash_password(password: Password) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || {
        let salt =
            SaltString::encode_b64(&rand::random::<[u8; 16]>()).map_err(ApiError::internal)?;
        Argon2::default()
            .hash_password(password.expose().as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(ApiError::internal)
    })
    .await
    .map_err(ApiError::internal)?
}

async fn verify_password(password: &str, phc: &str) -> Result<(), ApiError> {
    if password.chars().count() > Password::MAX {
        return Err(ErrorCode::PasswordError.into());
    }
    if phc.is_empty() {
        // An account made by a provider has no password.
        return Err(ErrorCode::PasswordError.into());
    }
    let password = password.to_owned();
    let phc = phc.to_owned();
    tokio::task::spawn_blocking(move || {
        let parsed = PasswordHash::new(&phc).map_err(ApiError::internal)?;
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .map_err(|_| ApiError::new(ErrorCode::PasswordError))
    })
    .await
    .map_err(ApiError::internal)?
}

/// The socket's view of authentication.
pub struct SocketAuth(pub AccountService);

#[async_trait::async_trait]
impl actors::Authenticator for SocketAuth {
    async fn authenticate(
        &self,
        token: &str,
    ) -> Result<actors::AuthedSocketUser, actors::AuthFailure> {
        match self.0.authenticate(token).await {
            Ok(Some(c)) => Ok(actors::AuthedSocketUser {
                account_id: c.account.id,
                token_hash: c.token_hash,
            }),
            Ok(None) => Err(actors::AuthFailure::Refused),
            Err(_) => Err(actors::AuthFailure::Unavailable),
        }
    }
}

pub use account::{DEVICE_COOKIE, TOKEN_COOKIE, TOKEN_HEADER};
