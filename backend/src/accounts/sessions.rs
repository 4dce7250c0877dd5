//! Sessions (issue 21): what each login token is (device, address, created,
//! last seen), the account's list with the current one marked, ending one,
//! all others or all of them (their sockets close at once), and the
//! [`SecurityService`] that holds the tables of sessions, two-factor and
//! profiles besides the lockout state.

use std::sync::Arc;

use infra::bus::{user_topic, BusMessage};
use infra::objects::DynObjects;
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::account::Email;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::lockout::Lockout;
use super::profile::PrefsRow;
use super::totp::{ChallengeRow, TotpRow};
use super::{hash_token, now_secs, AccountRow, AccountService, Caller, SessionRow};
use crate::error::ApiError;

/// `last_seen` is written at most this often per session.
pub const LAST_SEEN_EVERY_SECS: i64 = 60;

/// Where a session comes from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionMeta {
    /// The user agent, summarised ("Firefox on Linux").
    pub device: String,
    pub address: String,
    /// The visitor's `deviceId` cookie, when well-formed.
    pub device_code: Option<String>,
}

impl SessionMeta {
    pub fn new(user_agent: &str, address: &str, device_code: Option<String>) -> SessionMeta {
        SessionMeta {
            device: summarise_user_agent(user_agent),
            address: address.chars().take(64).collect(),
            device_code,
        }
    }
}

/// One session as its owner sees it (`account/sessions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    /// An opaque id (not the token, not its stored hash).
    pub id: String,
    pub device: String,
    pub address: String,
    pub created_at: i64,
    pub last_seen: i64,
    pub current: bool,
}

/// A device that signed in (password and, when on, the second step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownDevice {
    pub last_sign_in: i64,
}

/// "Browser on system" from a User-Agent header; "Unknown device" when
/// neither is recognised.
pub fn summarise_user_agent(ua: &str) -> String {
    let browser = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("HeadlessChrome/", "Chrome"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
        ("curl/", "curl"),
    ]
    .iter()
    .find(|(needle, _)| ua.contains(needle))
    .map(|(_, name)| *name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("Windows", "Windows"),
        ("CrOS", "ChromeOS"),
        ("Mac OS X", "macOS"),
        ("Macintosh", "macOS"),
        ("Linux", "Linux"),
    ]
    .iter()
    .find(|(needle, _)| ua.contains(needle))
    .map(|(_, name)| *name);
    match (browser, system) {
        (Some(b), Some(s)) => format!("{b} on {s}"),
        (Some(b), None) => b.to_owned(),
        (None, Some(s)) => s.to_owned(),
        (None, None) => "Unknown device".to_owned(),
    }
}

/// The opaque id shown for a session.
pub fn session_id(token_hash: &str) -> String {
    let d = Sha256::digest(format!("session-id:{token_hash}").as_bytes());
    hex::encode(d.get(..12).unwrap_or_default())
}

impl AccountService {
    /// Issues a token for a finished sign-in, recording where it comes from.
    pub async fn issue_session(
        &self,
        account_id: &str,
        meta: &SessionMeta,
    ) -> Result<String, ApiError> {
        let token = self.issue_token(account_id).await?;
        self.describe_session(&token, meta).await?;
        Ok(token)
    }

    /// Records device and address on a token issued elsewhere (sign-up,
    /// third-party sign-in).
    pub async fn describe_session(&self, token: &str, meta: &SessionMeta) -> Result<(), ApiError> {
        let hash = hash_token(token);
        let key = Key::of(&hash);
        self.sessions
            .update(&key, &Key::empty(), None, |row| {
                row.device = meta.device.clone();
                row.address = meta.address.clone();
                row.last_seen = now_secs();
            })
            .await?;
        Ok(())
    }

    /// Moves `last_seen` forward, at most once a minute per session.
    pub(super) async fn touch_session(&self, hash: &str, row: &SessionRow) -> Result<(), ApiError> {
        let now = now_secs();
        if now - row.last_seen.max(row.created_at) < LAST_SEEN_EVERY_SECS {
            return Ok(());
        }
        let mut touched = row.clone();
        touched.last_seen = now;
        // A lost race only loses a last-seen write.
        let _ = self
            .sessions
            .compare_and_set(&Key::of(hash), &Key::empty(), row, Some(&touched))
            .await?;
        Ok(())
    }

    /// The hashes of the account's tokens (all pages).
    async fn token_hashes(&self, account_id: &str) -> Result<Vec<String>, ApiError> {
        let pk = Key::of(account_id);
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .sessions_by_account
                .scan(&pk, &ScanRange::all(500).after(paging))
                .await?;
            for (ck, ()) in page.rows {
                if let Some(h) = ck.reader().str() {
                    out.push(h);
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => break,
            }
        }
        Ok(out)
    }

    /// The account's live sessions, most recently seen first.
    pub async fn list_sessions(&self, caller: &Caller) -> Result<Vec<SessionView>, ApiError> {
        let hashes = self.token_hashes(&caller.account.id).await?;
        let keys: Vec<(Key, Key)> = hashes.iter().map(|h| (Key::of(h), Key::empty())).collect();
        let rows = self.sessions.get_many(&keys).await?;
        let now = now_secs();
        let mut out: Vec<SessionView> = hashes
            .iter()
            .zip(rows)
            .filter_map(|(h, row)| {
                let row = row?;
                (row.account_id == caller.account.id && row.expires_at > now).then(|| SessionView {
                    id: session_id(h),
                    device: if row.device.is_empty() {
                        "Unknown device".into()
                    } else {
                        row.device.clone()
                    },
                    address: row.address.clone(),
                    created_at: row.created_at,
                    last_seen: row.last_seen.max(row.created_at),
                    current: *h == caller.token_hash,
                })
            })
            .collect();
        out.sort_by(|a, b| {
            b.current
                .cmp(&a.current)
                .then(b.last_seen.cmp(&a.last_seen))
        });
        Ok(out)
    }

    /// Ends one of the caller's sessions by its [`session_id`]; another
    /// account's id answers like a missing one.
    pub async fn end_session(&self, caller: &Caller, id: &str) -> Result<(), ApiError> {
        let hashes = self.token_hashes(&caller.account.id).await?;
        let hash = hashes
            .into_iter()
            .find(|h| session_id(h) == id)
            .ok_or(ErrorCode::NotFound)?;
        self.end_token(&caller.account.id, &hash).await
    }

    async fn end_token(&self, account_id: &str, hash: &str) -> Result<(), ApiError> {
        self.drop_token(account_id, hash).await?;
        self.bus
            .publish(
                &user_topic(account_id),
                BusMessage::CloseSockets {
                    token_hash: Some(hash.to_owned()),
                    code: actors::close_code::BAD_TOKEN,
                    reason: "signed out".into(),
                },
            )
            .await;
        Ok(())
    }

    /// Ends every session of the account but `keep_token_hash`, and closes
    /// their sockets at once (as bans do). Returns how many ended.
    pub async fn end_sessions(
        &self,
        account_id: &str,
        keep_token_hash: Option<&str>,
    ) -> Result<usize, ApiError> {
        let mut ended = 0;
        for hash in self.token_hashes(account_id).await? {
            if Some(hash.as_str()) == keep_token_hash {
                continue;
            }
            self.end_token(account_id, &hash).await?;
            ended += 1;
        }
        Ok(ended)
    }

    /// The account behind an e-mail address (20001 when none).
    pub async fn account_by_email(&self, email: &str) -> Result<AccountRow, ApiError> {
        self.find_by_email(&Email::parse(email)?)
            .await?
            .ok_or_else(|| ErrorCode::AccountNoExistent.into())
    }

    /// Checks a password against the account's hash (20005 when wrong).
    pub async fn check_password(&self, row: &AccountRow, password: &str) -> Result<(), ApiError> {
        super::verify_password(password, &row.password_hash).await
    }
}

/// Tables and state of sessions, two-factor, lockout and profiles.
#[derive(Clone)]
pub struct SecurityService {
    pub accounts: AccountService,
    pub(super) known_devices: Table<KnownDevice>,
    pub(super) totp: Table<TotpRow>,
    pub(super) challenges: Table<ChallengeRow>,
    pub(super) profiles: Table<PrefsRow>,
    pub lockout: Arc<Lockout>,
    pub(super) objects: DynObjects,
    /// The issuer shown in authenticator apps.
    pub(super) issuer: String,
}

impl SecurityService {
    pub fn new(
        store: DynStore,
        objects: DynObjects,
        accounts: AccountService,
        lockout: Lockout,
        issuer: &str,
    ) -> SecurityService {
        SecurityService {
            accounts,
            known_devices: Table::new(store.clone(), &tables::SESS_KNOWN_DEVICES),
            totp: Table::new(store.clone(), &tables::TOTP_SECRETS),
            challenges: Table::new(store.clone(), &tables::TOTP_CHALLENGES),
            profiles: Table::new(store, &tables::SESS_PREFS),
            lockout: Arc::new(lockout),
            objects,
            issuer: issuer.to_owned(),
        }
    }

    /// Whether this device finished a sign-in on the account before.
    pub async fn is_known_device(
        &self,
        account_id: &str,
        device_code: Option<&str>,
    ) -> Result<bool, ApiError> {
        let Some(code) = device_code else {
            return Ok(false);
        };
        Ok(self
            .known_devices
            .get(&Key::of(account_id), &Key::of(code))
            .await?
            .is_some())
    }

    /// Whether a sign-in from `meta` is one the owner is told of: the
    /// account signed in before (so not the first sign-in after sign-up)
    /// and never from this device.
    pub async fn sign_in_is_new(
        &self,
        account_id: &str,
        meta: &SessionMeta,
    ) -> Result<bool, ApiError> {
        if self
            .is_known_device(account_id, meta.device_code.as_deref())
            .await?
        {
            return Ok(false);
        }
        let any = self
            .known_devices
            .scan(&Key::of(account_id), &infra::store::ScanRange::all(1))
            .await?;
        Ok(!any.rows.is_empty())
    }

    /// A finished sign-in: the token, the device remembered, the back-off cleared.
    pub async fn finish_sign_in(
        &self,
        account_id: &str,
        meta: &SessionMeta,
    ) -> Result<String, ApiError> {
        let token = self.accounts.issue_session(account_id, meta).await?;
        if let Some(code) = &meta.device_code {
            self.known_devices
                .put(
                    &Key::of(account_id),
                    &Key::of(code),
                    &KnownDevice {
                        last_sign_in: now_secs(),
                    },
                )
                .await?;
        }
        self.lockout.succeeded(account_id, &meta.address).await?;
        Ok(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agents_are_summarised() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
        assert_eq!(summarise_user_agent(chrome), "Chrome on Linux");
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
        assert_eq!(summarise_user_agent(iphone), "Safari on iOS");
        let edge = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0";
        assert_eq!(summarise_user_agent(edge), "Edge on Windows");
        assert_eq!(summarise_user_agent("curl/8.0"), "curl");
        assert_eq!(summarise_user_agent(""), "Unknown device");
    }

    #[test]
    fn session_ids_are_stable_and_not_the_hash() {
        let h = hash_token("abc");
        assert_eq!(session_id(&h), session_id(&h));
        assert_eq!(session_id(&h).len(), 24);
        assert!(!h.contains(&session_id(&h)));
    }
}
