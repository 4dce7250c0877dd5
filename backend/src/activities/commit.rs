//! Contributing (`activity/commit`, `theme-activity/character-join`): an
//! object the caller owns, of an allowed type, into the activity's live
//! period, once per activity, within the per-period limit; or, for posts,
//! a plain publication marker without an activity (spec 3 §5).
//!
//! Order of writes: the quota row (compare-and-set: the limit holds under
//! concurrent commits), the contribution (insert-if-absent: an object
//! enters an activity once), then its index rows, counters and the card
//! mark. A crash after the quota leaves the entry id in it; committing the
//! same object again finds it there and finishes the contribution.

use infra::store::Key;
use protocol::activity::rules;
use protocol::activity::{
    CharacterJoinRequest, CommitRequest, CommitResult, ContributionType, EntryStatus,
};
use protocol::ErrorCode;

use super::{all_periods_ck, entry_ck, entry_pk, period_ck, period_pk, ActivityService, EntryRow, QuotaRow};
use crate::error::ApiError;

impl ActivityService {
    /// `activity/commit`.
    #[tracing::instrument(skip(self, r), fields(obj = %r.obj_id))]
    pub async fn commit(&self, account: &str, r: &CommitRequest) -> Result<CommitResult, ApiError> {
        let kind = r
            .kind
            .as_deref()
            .and_then(ContributionType::parse)
            .ok_or(ErrorCode::ActivityTypeInvalid)?;
        let obj = r.obj_id.trim();
        if !rules::is_id(obj) {
            return Err(ErrorCode::NotFound.into());
        }
        match r
            .activity_id
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            None => self.mark_published(account, kind, obj).await,
            Some(a) => self.contribute(account, a, kind, obj).await,
        }
    }

    /// `theme-activity/character-join`: a character joins an activity.
    pub async fn character_join(
        &self,
        account: &str,
        r: &CharacterJoinRequest,
    ) -> Result<CommitResult, ApiError> {
        self.commit(
            account,
            &CommitRequest {
                kind: Some(ContributionType::Character.as_str().to_owned()),
                obj_id: r.character_id.clone(),
                activity_id: Some(r.id.clone()),
            },
        )
        .await
    }

    async fn checked_object(
        &self,
        account: &str,
        kind: ContributionType,
        obj: &str,
    ) -> Result<super::objects::ObjectFacts, ApiError> {
        let facts = self.inner.objects.own_object(account, kind, obj).await?;
        if !facts.kind_matches {
            return Err(ErrorCode::ActivityTypeMismatch.into());
        }
        if !facts.public {
            return Err(ErrorCode::ActivityObjectNotPublic.into());
        }
        Ok(facts)
    }

    /// A post marked as published, without an activity.
    async fn mark_published(
        &self,
        account: &str,
        kind: ContributionType,
        obj: &str,
    ) -> Result<CommitResult, ApiError> {
        if kind.needs_activity() {
            return Err(ErrorCode::ActivityRequired.into());
        }
        let facts = self.checked_object(account, kind, obj).await?;
        let now = self.now();
        let entry_id = rules::entry_id(None, kind, obj);
        let row = EntryRow {
            entry_id: entry_id.clone(),
            activity: None,
            period: None,
            kind,
            obj_id: obj.to_owned(),
            account: account.to_owned(),
            at: now,
            title: facts.title,
            cover: facts.cover,
            votes: 0,
        };
        let pk = entry_pk(None, account);
        if self
            .inner
            .t
            .entries
            .insert_if_absent(&pk, &entry_ck(kind, obj), &row)
            .await?
            .is_err()
        {
            return Err(ErrorCode::ActivityDuplicate.into());
        }
        self.inner
            .t
            .mine
            .put(&Key::of(account), &Key::empty().i64(now).str(&entry_id), &())
            .await?;
        Ok(CommitResult {
            entry_id,
            activity_id: None,
            period: None,
            status: EntryStatus::Published,
        })
    }

    async fn contribute(
        &self,
        account: &str,
        activity: &str,
        kind: ContributionType,
        obj: &str,
    ) -> Result<CommitResult, ApiError> {
        let act = self.activity(activity).await?;
        let now = self.now();
        // The type and the live period first: they reveal nothing of the object.
        let period = rules::check_commit(&act.def, &act.closed, kind, now, |_| 0)?;
        let facts = self.checked_object(account, kind, obj).await?;
        let entry_id = rules::entry_id(Some(activity), kind, obj);
        let (pk, ck) = (entry_pk(Some(activity), account), entry_ck(kind, obj));
        if self.inner.t.entries.get(&pk, &ck).await?.is_some() {
            return Err(ErrorCode::ActivityDuplicate.into());
        }
        let added = self
            .take_quota(activity, period, account, &entry_id, act.def.max_entries)
            .await?;
        let row = EntryRow {
            entry_id: entry_id.clone(),
            activity: Some(activity.to_owned()),
            period: Some(period),
            kind,
            obj_id: obj.to_owned(),
            account: account.to_owned(),
            at: now,
            title: facts.title.clone(),
            cover: facts.cover,
            votes: 0,
        };
        if self
            .inner
            .t
            .entries
            .insert_if_absent(&pk, &ck, &row)
            .await?
            .is_err()
        {
            if added {
                self.give_back_quota(activity, period, account, &entry_id)
                    .await?;
            }
            return Err(ErrorCode::ActivityDuplicate.into());
        }
        let t = &self.inner.t;
        t.by_time
            .put(&period_pk(activity, period), &Key::empty().i64(now).str(&entry_id), &())
            .await?;
        t.mine
            .put(&Key::of(account), &Key::empty().i64(now).str(&entry_id), &())
            .await?;
        t.counts.add(&Key::of(activity), &period_ck(period), 1).await?;
        t.counts.add(&Key::of(activity), &all_periods_ck(), 1).await?;
        if kind.is_post() {
            self.inner
                .marks
                .set(
                    obj,
                    rules::mark(activity, &act.def.title, period, act.def.daily),
                )
                .await?;
        }
        Ok(CommitResult {
            entry_id,
            activity_id: Some(activity.to_owned()),
            period: Some(period),
            status: EntryStatus::Entered,
        })
    }

    /// Takes one of the account's places in the period (compare-and-set);
    /// answers whether this call added it (false: a crashed earlier commit
    /// of the same object holds it).
    async fn take_quota(
        &self,
        activity: &str,
        period: u32,
        account: &str,
        entry_id: &str,
        max: u32,
    ) -> Result<bool, ApiError> {
        let (pk, ck) = (Key::of(activity), Key::empty().u64(u64::from(period)).str(account));
        let q = &self.inner.t.quotas;
        loop {
            let current = q.get(&pk, &ck).await?;
            let mut next = current.clone().unwrap_or_default();
            if next.entries.iter().any(|e| e == entry_id) {
                return Ok(false);
            }
            if next.entries.len() >= max as usize {
                return Err(ErrorCode::ActivityEntryLimit.into());
            }
            next.entries.push(entry_id.to_owned());
            let applied = match &current {
                None => q.insert_if_absent(&pk, &ck, &next).await?.is_ok(),
                Some(c) => q.compare_and_set(&pk, &ck, c, Some(&next)).await?.is_ok(),
            };
            if applied {
                return Ok(true);
            }
        }
    }

    async fn give_back_quota(
        &self,
        activity: &str,
        period: u32,
        account: &str,
        entry_id: &str,
    ) -> Result<(), ApiError> {
        let (pk, ck) = (Key::of(activity), Key::empty().u64(u64::from(period)).str(account));
        self.inner
            .t
            .quotas
            .update(&pk, &ck, None, |q: &mut QuotaRow| {
                q.entries.retain(|e| e != entry_id)
            })
            .await?;
        Ok(())
    }
}
