//! Ending an account's sessions: every token but (optionally) one, and the
//! sockets that authenticated with them, the way a ban does.
//! (ACCOUNTS21.md: the sessions helper owns this file; the signature is the
//! agreed one, the lead keeps one body.)

use infra::bus::{user_topic, BusMessage};
use infra::store::{Key, ScanRange};

use super::AccountService;
use crate::error::ApiError;

impl AccountService {
    /// Ends every session of `account_id` except the one whose token hashes
    /// to `keep_token_hash`, and closes the sockets of the ended ones.
    /// Answers how many sessions it ended.
    pub async fn end_sessions(
        &self,
        account_id: &str,
        keep_token_hash: Option<&str>,
    ) -> Result<usize, ApiError> {
        let pk = Key::of(account_id);
        let mut ended = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .sessions_by_account
                .scan(&pk, &ScanRange::all(200).after(paging))
                .await?;
            for (ck, ()) in &page.rows {
                if let Some(hash) = ck.reader().str() {
                    if Some(hash.as_str()) != keep_token_hash {
                        ended.push(hash);
                    }
                }
            }
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
        for hash in &ended {
            self.drop_token(account_id, hash).await?;
        }
        let closing = match keep_token_hash {
            // Every socket of the account: one message.
            None => vec![None],
            Some(_) => ended.iter().cloned().map(Some).collect(),
        };
        for token_hash in closing {
            self.bus
                .publish(
                    &user_topic(account_id),
                    BusMessage::CloseSockets {
                        token_hash,
                        code: actors::close_code::BAD_TOKEN,
                        reason: "session ended".into(),
                    },
                )
                .await;
        }
        Ok(ended.len())
    }
}
