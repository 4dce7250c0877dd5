//! An account's deletion (issue 21) in the activities: its contributions
//! and the votes it gave are removed, and the counts follow. Each call is
//! idempotent (compare-and-set deletes decide who adjusts the counts), so
//! the deletion sweep may repeat it after a crash. Winners' lists already
//! judged stay as they were stored (prizes were paid through the ledger,
//! which is kept too).

use infra::store::{Key, ScanRange};
use protocol::activity::rules;

use super::{all_periods_ck, entry_ck, entry_pk, period_ck, period_pk, ActivityService, EntryRow};
use crate::error::ApiError;

impl ActivityService {
    /// The account's contributions and markers, oldest first (the export).
    pub async fn entries_of(&self, account: &str) -> Result<Vec<EntryRow>, ApiError> {
        let mut ids = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .inner
                .t
                .mine
                .scan(&Key::of(account), &ScanRange::all(500).after(paging))
                .await?;
            for (ck, ()) in page.rows {
                let mut r = ck.reader();
                if let (Some(_), Some(id)) = (r.i64(), r.str()) {
                    ids.push(id);
                }
            }
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
        self.entries_by_ids(&ids, Some(account)).await
    }

    /// Removes one of the account's contributions (`entry_id` from its
    /// `activity_mine` list): the row, its place in the period's list and
    /// the quota, its votes, the counts and a post's card mark.
    pub async fn forget_entry(&self, account: &str, entry_id: &str) -> Result<(), ApiError> {
        let Some((activity, kind, obj)) = rules::parse_entry_id(entry_id) else {
            return Ok(());
        };
        let t = &self.inner.t;
        let (pk, ck) = (entry_pk(activity.as_deref(), account), entry_ck(kind, &obj));
        if let Some(row) = t.entries.get(&pk, &ck).await? {
            if row.account != account {
                return Ok(());
            }
            let mine = t
                .entries
                .compare_and_set(&pk, &ck, &row, None)
                .await?
                .is_ok();
            if let (Some(a), Some(period)) = (&row.activity, row.period) {
                t.by_time
                    .delete(
                        &period_pk(a, period),
                        &Key::empty().i64(row.at).str(entry_id),
                    )
                    .await?;
                if mine {
                    t.counts.add(&Key::of(a), &period_ck(period), -1).await?;
                    t.counts.add(&Key::of(a), &all_periods_ck(), -1).await?;
                }
                if kind.is_post() {
                    self.inner.marks.clear(&obj).await?;
                }
            }
        }
        if let Some(a) = &activity {
            // The account's places in every period of the activity.
            let quotas = t.quotas.scan(&Key::of(a), &ScanRange::all(10_000)).await?;
            for (qck, _) in quotas.rows {
                let mut r = qck.reader();
                if let (Some(_), Some(who)) = (r.u64(), r.str()) {
                    if who == account {
                        t.quotas.delete(&Key::of(a), &qck).await?;
                    }
                }
            }
        }
        t.votes.delete_partition(&Key::of(entry_id)).await?;
        Ok(())
    }

    /// Takes back a vote the account gave (the entry's count follows).
    pub async fn forget_vote(&self, voter: &str, entry_id: &str) -> Result<(), ApiError> {
        let t = &self.inner.t;
        let (pk, ck) = (Key::of(entry_id), Key::of(voter));
        let Some(at) = t.votes.get(&pk, &ck).await? else {
            return Ok(());
        };
        if t.votes.compare_and_set(&pk, &ck, &at, None).await?.is_err() {
            return Ok(());
        }
        let Some((Some(activity), kind, obj)) = rules::parse_entry_id(entry_id) else {
            return Ok(());
        };
        t.entries
            .update(
                &entry_pk(Some(activity.as_str()), ""),
                &entry_ck(kind, &obj),
                None,
                |r| r.votes = (r.votes - 1).max(0),
            )
            .await?;
        Ok(())
    }
}
