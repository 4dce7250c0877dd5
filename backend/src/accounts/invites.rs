//! Invite codes: every account has one (made at sign-up, or on first read
//! for older accounts); an account created with someone's code records its
//! inviter, and both receive the credits the operator set
//! (`EASEL_INVITE_CREDITS_INVITER`, `_INVITEE`) through the ledger, keyed so
//! each grant happens once. A code that does not name a live account is
//! 40002 InviteCodeError, checked before any account is created.

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::account::status;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::{now_millis, AccountService};
use crate::credits::Ledger;
use crate::error::ApiError;

/// Letters and digits that cannot be mistaken for one another.
const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/// Length of a new code.
pub const CODE_LEN: usize = 8;
/// Codes from outside may be at most this long (older formats included).
const MAX_CODE_LEN: usize = 32;

/// Whose invite code this is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InviteCodeRow {
    pub account_id: String,
}

/// An account's own invite code and who invited it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InviteAccountRow {
    pub code: String,
    #[serde(default)]
    pub invited_by: Option<String>,
    /// Unix ms when the account was created with the inviter's code.
    #[serde(default)]
    pub invited_at: i64,
}

/// What `account/invite/info` answers.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct InviteInfo {
    /// The account's own code.
    pub code: String,
    /// How many accounts were created with it.
    pub invited_count: usize,
    /// The inviter's id and name, if the account was invited.
    pub invited_by: Option<InviterRef>,
    /// Credits an inviter receives per invited account.
    pub credits_inviter: i64,
    /// Credits an invited account receives.
    pub credits_invitee: i64,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct InviterRef {
    pub id: String,
    pub name: String,
}

#[derive(Clone)]
pub struct InviteService {
    codes: Table<InviteCodeRow>,
    accounts: Table<InviteAccountRow>,
    invitees: Table<()>,
    credits_inviter: i64,
    credits_invitee: i64,
}

/// A code as typed: trimmed, upper-case; `None` when empty.
pub fn normalise(code: &str) -> Option<String> {
    let c = code.trim().to_ascii_uppercase();
    (!c.is_empty()).then_some(c)
}

fn new_code() -> String {
    (0..CODE_LEN)
        .map(|_| {
            let i = rand::random_range(0..ALPHABET.len());
            ALPHABET.get(i).copied().map(char::from).unwrap_or('A')
        })
        .collect()
}

impl InviteService {
    pub fn new(store: DynStore, credits_inviter: i64, credits_invitee: i64) -> InviteService {
        InviteService {
            codes: Table::new(store.clone(), &tables::INVITE_CODES),
            accounts: Table::new(store.clone(), &tables::INVITE_ACCOUNTS),
            invitees: Table::new(store, &tables::INVITE_INVITEES),
            credits_inviter: credits_inviter.max(0),
            credits_invitee: credits_invitee.max(0),
        }
    }

    /// The inviter named by a sign-up's `invite_user_code` or
    /// `invitation_code` (the first one given). `Ok(None)` without a code;
    /// 40002 when the code names no live account.
    pub async fn resolve(
        &self,
        accounts: &AccountService,
        codes: &[Option<&str>],
    ) -> Result<Option<String>, ApiError> {
        let Some(code) = codes.iter().flatten().find_map(|c| normalise(c)) else {
            return Ok(None);
        };
        if code.len() > MAX_CODE_LEN || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(ErrorCode::InviteCodeError.into());
        }
        let row = self
            .codes
            .get(&Key::of(&code), &Key::empty())
            .await?
            .ok_or(ErrorCode::InviteCodeError)?;
        match accounts.get(&row.account_id).await? {
            Some(a) if a.status != status::DISABLED => Ok(Some(a.id)),
            _ => Err(ErrorCode::InviteCodeError.into()),
        }
    }

    /// Claims a fresh code for `account_id` (retrying on the rare collision).
    async fn claim_code(&self, account_id: &str) -> Result<String, ApiError> {
        for _ in 0..8 {
            let code = new_code();
            let row = InviteCodeRow {
                account_id: account_id.to_owned(),
            };
            if self
                .codes
                .insert_if_absent(&Key::of(&code), &Key::empty(), &row)
                .await?
                .is_ok()
            {
                return Ok(code);
            }
        }
        Err(ApiError::internal("no free invite code after 8 tries"))
    }

    /// Records a new account: its own code, its inviter, and the credits of
    /// both (keyed `invite:{invitee}` and `invited`, so a retry grants nothing twice).
    pub async fn on_account_created(
        &self,
        ledger: &Ledger,
        account_id: &str,
        inviter: Option<&str>,
    ) -> Result<(), ApiError> {
        let code = self.claim_code(account_id).await?;
        let now = now_millis();
        let row = InviteAccountRow {
            code: code.clone(),
            invited_by: inviter.map(str::to_owned),
            invited_at: if inviter.is_some() { now } else { 0 },
        };
        if self
            .accounts
            .insert_if_absent(&Key::of(account_id), &Key::empty(), &row)
            .await?
            .is_err()
        {
            // Recorded already (a retried request): give the spare code back.
            self.codes.delete(&Key::of(&code), &Key::empty()).await?;
        }
        let Some(inviter) = inviter else {
            return Ok(());
        };
        self.invitees
            .put(
                &Key::of(inviter),
                &Key::empty().i64(now).str(account_id),
                &(),
            )
            .await?;
        if self.credits_inviter > 0 {
            ledger
                .grant(
                    inviter,
                    &format!("invite:{account_id}"),
                    self.credits_inviter,
                )
                .await?;
        }
        if self.credits_invitee > 0 {
            ledger
                .grant(account_id, "invited", self.credits_invitee)
                .await?;
        }
        Ok(())
    }

    /// The account's invite row, made now for an account that has none.
    pub async fn own(&self, account_id: &str) -> Result<InviteAccountRow, ApiError> {
        let key = Key::of(account_id);
        if let Some(row) = self.accounts.get(&key, &Key::empty()).await? {
            return Ok(row);
        }
        let code = self.claim_code(account_id).await?;
        let row = InviteAccountRow {
            code: code.clone(),
            invited_by: None,
            invited_at: 0,
        };
        match self
            .accounts
            .insert_if_absent(&key, &Key::empty(), &row)
            .await?
        {
            Ok(()) => Ok(row),
            Err(present) => {
                self.codes.delete(&Key::of(&code), &Key::empty()).await?;
                Ok(present)
            }
        }
    }

    /// The caller's code, how many it brought, and who invited it.
    pub async fn info(
        &self,
        accounts: &AccountService,
        account_id: &str,
    ) -> Result<InviteInfo, ApiError> {
        let own = self.own(account_id).await?;
        let mut invited_count = 0;
        let mut paging = None;
        loop {
            let page = self
                .invitees
                .scan(&Key::of(account_id), &ScanRange::all(500).after(paging))
                .await?;
            invited_count += page.rows.len();
            match page.paging {
                Some(p) => paging = Some(p),
                None => break,
            }
        }
        let invited_by = match &own.invited_by {
            Some(id) => accounts.get(id).await?.map(|a| InviterRef {
                id: a.id,
                name: a.name,
            }),
            None => None,
        };
        Ok(InviteInfo {
            code: own.code,
            invited_count,
            invited_by,
            credits_inviter: self.credits_inviter,
            credits_invitee: self.credits_invitee,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_use_the_unambiguous_alphabet() {
        for _ in 0..200 {
            let c = new_code();
            assert_eq!(c.len(), CODE_LEN);
            assert!(c.bytes().all(|b| ALPHABET.contains(&b)), "{c}");
        }
        assert_ne!(new_code(), new_code());
    }

    #[test]
    fn typed_codes_are_trimmed_and_upper_cased() {
        assert_eq!(normalise("  ab3k "), Some("AB3K".into()));
        assert_eq!(normalise("   "), None);
    }
}
