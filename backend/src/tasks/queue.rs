//! The unlimited-queue perk (spec 2 §6): `gen_mode` 1, open to accounts
//! whose payment info has infiniteQueue, lets tasks wait without limit;
//! otherwise an account may have at most `queue_limit` tasks queued or
//! running at once, and one more answers TaskQueueFull.
//!
//! Checked on the account's newest `queue_limit` tasks (one index scan and
//! one batched read): tasks finish in about the order they start, so when
//! the newest ones are not all in progress, the account is under the
//! limit. A task started long before and still running is not counted:
//! the check errs on the side of the user.

use infra::store::{Key, ScanRange};
use protocol::task::codes::TaskStatus;
use protocol::ErrorCode;

use super::{Requester, TaskService};
use crate::error::ApiError;

impl TaskService {
    /// `asked`: the request's `gen_mode`, if it names one.
    pub(crate) async fn check_queue(
        &self,
        who: &Requester,
        asked: Option<i64>,
    ) -> Result<(), ApiError> {
        let Requester::Account(a) = who else {
            return Ok(());
        };
        let limit = self.limits.queue_limit;
        if limit == 0 {
            return Ok(());
        }
        let pay = a.payment_now();
        if protocol::task::rules::gen_mode(asked, pay.infinite_queue, pay.product_level) == 1 {
            return Ok(());
        }
        let core = self.core();
        let page = core
            .index
            .scan(&Key::of(&who.owner().key()), &ScanRange::all(limit).desc())
            .await?;
        if page.rows.len() < limit as usize {
            return Ok(());
        }
        let keys: Vec<(Key, Key)> = page
            .rows
            .iter()
            .filter_map(|(ck, _)| {
                let mut r = ck.reader();
                r.i64()?;
                r.str()
            })
            .map(|id| (Key::of(&id), Key::empty()))
            .collect();
        let rows = core.tasks.get_many(&keys).await?;
        let open = rows
            .iter()
            .flatten()
            .filter(|t| matches!(t.status, TaskStatus::Queued | TaskStatus::Running))
            .count();
        if open >= limit as usize {
            return Err(ErrorCode::TaskQueueFull.into());
        }
        Ok(())
    }
}
