//! Ending an account's sessions (after a password change or reset): every
//! login token but an optional one is deleted and the sockets that used
//! them are closed, the way bans close them.

use infra::bus::{user_topic, BusMessage};
use infra::store::{Key, ScanRange};

use super::AccountService;
use crate::error::ApiError;

impl AccountService {
    /// Ends the account's sessions except the one whose token hash is
    /// `keep_token_hash`; returns how many were ended.
    pub async fn end_sessions(
        &self,
        account_id: &str,
        keep_token_hash: Option<&str>,
    ) -> Result<usize, ApiError> {
        let key = Key::of(account_id);
        let mut hashes = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .sessions_by_account
                .scan(&key, &ScanRange::all(200).after(paging))
                .await?;
            hashes.extend(
                page.rows
                    .into_iter()
                    .filter_map(|(ck, ())| ck.reader().str()),
            );
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
        let mut ended = 0;
        for hash in hashes {
            if Some(hash.as_str()) == keep_token_hash {
                continue;
            }
            self.drop_token(account_id, &hash).await?;
            self.bus
                .publish(
                    &user_topic(account_id),
                    BusMessage::CloseSockets {
                        token_hash: Some(hash),
                        code: actors::close_code::BAD_TOKEN,
                        reason: "session ended".into(),
                    },
                )
                .await;
            ended += 1;
        }
        Ok(ended)
    }
}
