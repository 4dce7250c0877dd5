//! Operators' calls (`admin/activity/*`): create and edit an activity (the
//! whole definition each time, checked by `protocol::activity::rules`),
//! list them, and close a period early (judged at once when users vote).

use infra::store::Key;
use protocol::activity::rules;
use protocol::activity::{
    ActivityAdmin, ActivityDef, Judging, PeriodResultView, UpsertRequest,
};
use protocol::ErrorCode;

use super::{ActivityRow, ActivityService, DEFS_PK};
use crate::error::ApiError;

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::ActivityInvalid, msg.into())
}

impl ActivityService {
    async fn checked_def(&self, r: &UpsertRequest, except: Option<&str>) -> Result<ActivityDef, ApiError> {
        let mut def = rules::validate(r).map_err(invalid)?;
        if let Some(c) = &def.cover {
            def.cover = Some(self.inner.objects.check_cover(c).await?);
        }
        if def.daily {
            for other in self.all().await? {
                if Some(other.id.as_str()) != except && rules::daily_overlap(&def, &other.def) {
                    return Err(ApiError::with_msg(
                        ErrorCode::ActivityDailyTaken,
                        format!("the daily challenge {:?} covers that day", other.def.title),
                    ));
                }
            }
        }
        Ok(def)
    }

    /// `admin/activity/create`.
    pub async fn create(&self, operator: &str, r: &UpsertRequest) -> Result<ActivityAdmin, ApiError> {
        let def = self.checked_def(r, None).await?;
        let now = self.now();
        let mut row = ActivityRow {
            id: uuid::Uuid::now_v7().simple().to_string(),
            rules_html: crate::square::markdown::render(&def.rules),
            def,
            closed: Vec::new(),
            judged: Vec::new(),
            creator: operator.to_owned(),
            create_at: now,
            update_at: now,
        };
        row.pad();
        if self
            .inner
            .t
            .defs
            .insert_if_absent(&Key::of(DEFS_PK), &Key::of(&row.id), &row)
            .await?
            .is_err()
        {
            return Err(ErrorCode::Conflict.into());
        }
        self.admin_of(&row, operator).await
    }

    /// `admin/activity/edit`: the whole new definition; what started keeps
    /// its start, what ended does not change (`rules::check_edit`).
    pub async fn edit(&self, operator: &str, r: &UpsertRequest) -> Result<ActivityAdmin, ApiError> {
        let id = r.id.as_deref().unwrap_or_default();
        let def = self.checked_def(r, Some(id)).await?;
        let html = crate::square::markdown::render(&def.rules);
        let (pk, ck) = (Key::of(DEFS_PK), Key::of(id));
        let mut current = self.activity(id).await?;
        loop {
            rules::check_edit(&current.def, &current.closed, &current.judged, &def, self.now())
                .map_err(invalid)?;
            let mut next = current.clone();
            next.def = def.clone();
            next.rules_html = html.clone();
            next.update_at = self.now().max(current.update_at);
            next.pad();
            match self.inner.t.defs.compare_and_set(&pk, &ck, &current, Some(&next)).await? {
                Ok(()) => return self.admin_of(&next, operator).await,
                Err(Some(latest)) => current = latest,
                Err(None) => return Err(ErrorCode::ActivityNotFound.into()),
            }
        }
    }

    /// `admin/activity/list`: every activity, newest first.
    pub async fn admin_list(&self, operator: &str) -> Result<Vec<ActivityAdmin>, ApiError> {
        let mut all = self.all().await?;
        all.sort_by(|a, b| b.create_at.cmp(&a.create_at).then_with(|| b.id.cmp(&a.id)));
        let mut out = Vec::with_capacity(all.len());
        for row in &all {
            out.push(self.admin_of(row, operator).await?);
        }
        Ok(out)
    }

    /// `admin/activity/close`: the period ends now (if it has not ended);
    /// with voting it is judged at once, with picks it waits for them.
    pub async fn close(
        &self,
        operator: &str,
        id: &str,
        period: u32,
    ) -> Result<PeriodResultView, ApiError> {
        let row = self.activity(id).await?;
        let p = *row
            .def
            .periods
            .get(period as usize)
            .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "no such period"))?;
        let now = self.now();
        let row = if row.closed_at(period).is_none() && !row.is_judged(period) && now < p.end {
            self.inner
                .t
                .defs
                .update(&Key::of(DEFS_PK), &Key::of(id), Some(row), |r| {
                    r.pad();
                    if let Some(c) = r.closed.get_mut(period as usize) {
                        if c.is_none() {
                            *c = Some(now);
                        }
                    }
                })
                .await?
                .ok_or(ErrorCode::ActivityNotFound)?
        } else {
            row
        };
        if row.def.judging == Judging::Votes {
            return self.judge(id, period, None, Some(operator)).await;
        }
        let result = self.result_of(id, period).await?;
        self.period_result_view(&row, period, result, Some(operator))
            .await
    }
}
