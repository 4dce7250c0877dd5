//! Changes made to an account from outside its owner's session: an
//! operator's membership grant, company flag, ban and unban, and the perks
//! the mall writes when a subscription changes. Each tells the account's
//! sockets (frame 13), and a ban ends its tokens and sockets at once.

use infra::bus::{user_topic, BusMessage};
use infra::store::{Key, ScanRange};
use protocol::account::{status, PaymentInfo};
use protocol::ErrorCode;

use super::{AccountRow, AccountService};
use crate::error::ApiError;

impl AccountService {
    /// An operator's grant or end of a membership (until payments exist,
    /// this is how an account becomes paid).
    pub async fn set_membership(
        &self,
        account_id: &str,
        payment: PaymentInfo,
    ) -> Result<AccountRow, ApiError> {
        let updated = self
            .accounts
            .update(&Key::of(account_id), &Key::empty(), None, |row| {
                row.payment = payment.clone()
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.notify(
            account_id,
            serde_json::json!({"kind": "account.payment", "payment": updated.payment_now()}),
        )
        .await;
        Ok(updated)
    }

    /// Writes what the account's subscription gives (the mall calls this on
    /// every subscription change) and tells its sockets when that changed.
    pub async fn set_perks(
        &self,
        account_id: &str,
        perks: Option<protocol::mall::subscription::Perks>,
    ) -> Result<Option<AccountRow>, ApiError> {
        let Some(current) = self.get(account_id).await? else {
            return Ok(None);
        };
        if current.perks == perks {
            return Ok(Some(current));
        }
        let updated = self
            .accounts
            .update(&Key::of(account_id), &Key::empty(), Some(current), |row| {
                row.perks = perks
            })
            .await?;
        if let Some(row) = &updated {
            self.notify(
                account_id,
                serde_json::json!({"kind": "account.payment", "payment": row.payment_now()}),
            )
            .await;
        }
        Ok(updated)
    }

    /// An operator marks an account as a company account (VIP, spec 2 §6).
    pub async fn set_company(
        &self,
        account_id: &str,
        company: bool,
    ) -> Result<AccountRow, ApiError> {
        let updated = self
            .accounts
            .update(&Key::of(account_id), &Key::empty(), None, |row| {
                row.company = company
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.notify(
            account_id,
            serde_json::json!({"kind": "account.payment", "payment": updated.payment_now()}),
        )
        .await;
        Ok(updated)
    }

    /// An operator's ban (status 2) or unban (status 1). A ban ends every
    /// token of the account and closes its sockets at once.
    pub async fn set_status(
        &self,
        account_id: &str,
        new_status: u8,
    ) -> Result<AccountRow, ApiError> {
        if ![status::NORMAL, status::DISABLED].contains(&new_status) {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "status must be 1 or 2",
            ));
        }
        let key = Key::of(account_id);
        let updated = self
            .accounts
            .update(&key, &Key::empty(), None, |row| row.status = new_status)
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if new_status == status::DISABLED {
            let mut paging = None;
            loop {
                let page = self
                    .sessions_by_account
                    .scan(&key, &ScanRange::all(200).after(paging))
                    .await?;
                for (ck, ()) in &page.rows {
                    if let Some(hash) = ck.reader().str() {
                        self.sessions.delete(&Key::of(&hash), &Key::empty()).await?;
                    }
                }
                paging = page.paging;
                if paging.is_none() {
                    break;
                }
            }
            self.sessions_by_account.delete_partition(&key).await?;
            self.bus
                .publish(
                    &user_topic(account_id),
                    BusMessage::CloseSockets {
                        token_hash: None,
                        code: actors::close_code::BANNED,
                        reason: "account disabled".into(),
                    },
                )
                .await;
        }
        Ok(updated)
    }
}
