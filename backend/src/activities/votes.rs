//! Votes (`activity/vote`, `vote-cancel`): one per account and
//! contribution (insert-if-absent), never for one's own, only while the
//! contribution's period is live and only where users judge. The vote
//! rows are the truth judging counts; the count on the contribution is
//! kept for lists by compare-and-set.

use infra::store::Key;
use protocol::activity::rules;
use protocol::activity::VoteResult;
use protocol::ErrorCode;

use super::{entry_ck, entry_pk, ActivityService, EntryRow};
use crate::accounts::owned::{self, OwnedKind};
use crate::error::ApiError;

impl ActivityService {
    async fn votable(&self, voter: &str, entry_id: &str) -> Result<EntryRow, ApiError> {
        let (row, e) = self.entry(entry_id).await?;
        if !self
            .shown(std::slice::from_ref(&e))
            .await?
            .first()
            .copied()
            .unwrap_or(false)
        {
            return Err(ErrorCode::NotFound.into());
        }
        let period = e.period.ok_or(ErrorCode::NotFound)?;
        rules::check_vote(&row.def, &row.closed, period, self.now(), voter, &e.account)?;
        Ok(e)
    }

    async fn add_votes(&self, e: &EntryRow, delta: i64) -> Result<i64, ApiError> {
        let activity = e.activity.as_deref();
        let updated = self
            .inner
            .t
            .entries
            .update(
                &entry_pk(activity, &e.account),
                &entry_ck(e.kind, &e.obj_id),
                Some(e.clone()),
                |r| r.votes = (r.votes + delta).max(0),
            )
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(updated.votes)
    }

    /// `activity/vote`.
    pub async fn vote(&self, voter: &str, entry_id: &str) -> Result<VoteResult, ApiError> {
        let e = self.votable(voter, entry_id).await?;
        let now = self.now();
        if self
            .inner
            .t
            .votes
            .insert_if_absent(&Key::of(entry_id), &Key::of(voter), &now)
            .await?
            .is_err()
        {
            return Err(ErrorCode::ActivityVoteDuplicate.into());
        }
        // Listed under the voter, for the export and the deletion sweep.
        owned::record(&self.inner.store, voter, OwnedKind::Vote, now, entry_id, "").await?;
        Ok(VoteResult {
            entry_id: entry_id.to_owned(),
            votes: self.add_votes(&e, 1).await?,
            voted: true,
        })
    }

    /// `activity/vote-cancel`.
    pub async fn vote_cancel(&self, voter: &str, entry_id: &str) -> Result<VoteResult, ApiError> {
        let e = self.votable(voter, entry_id).await?;
        let (pk, ck) = (Key::of(entry_id), Key::of(voter));
        let Some(at) = self.inner.t.votes.get(&pk, &ck).await? else {
            return Err(ErrorCode::ActivityNotVoted.into());
        };
        if self
            .inner
            .t
            .votes
            .compare_and_set(&pk, &ck, &at, None)
            .await?
            .is_err()
        {
            return Err(ErrorCode::ActivityNotVoted.into());
        }
        owned::forget(&self.inner.store, voter, OwnedKind::Vote, at, entry_id).await?;
        Ok(VoteResult {
            entry_id: entry_id.to_owned(),
            votes: self.add_votes(&e, -1).await?,
            voted: false,
        })
    }
}
