//! Users' reports of content other than characters (those keep their own
//! table, `characters/moderation.rs`): today video works (`ai-video/report`,
//! spec 3 §7). One report per reporter and object (a second one replaces
//! the first), reasons from the fixed list of
//! `protocol::character_extras::ReportReason` with a detail, a per-reporter
//! rate limit, and the operators' list newest first (`admin/report/list`).
//! Issue 20's moderators' queue reads the same rows.

use std::time::Duration;

use infra::store::{tables, DynStore, Key, PagingState, ScanRange, Table};
use protocol::character_extras::normalise_report;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;
use crate::ratelimit::RateLimiter;

/// `REPORTS` row (pk "{kind}:{object id}", ck reporter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportRow {
    /// `video` (a video work).
    pub kind: String,
    pub object_id: String,
    /// The account the object belongs to.
    pub owner: String,
    pub reporter: String,
    pub reason: String,
    pub detail: String,
    pub create_at: i64,
    pub update_at: i64,
}

/// The index's one partition.
const BY_TIME: &str = "all";
/// Reports one account may send per hour.
const REPORTS_PER_HOUR: u32 = 30;

#[derive(Clone)]
pub struct ReportService {
    reports: Table<ReportRow>,
    by_time: Table<()>,
    limit: std::sync::Arc<RateLimiter>,
}

fn object_pk(kind: &str, id: &str) -> Key {
    Key::of(&format!("{kind}:{id}"))
}

fn index_ck(at: i64, kind: &str, id: &str, reporter: &str) -> Key {
    Key::empty().i64(at).str(kind).str(id).str(reporter)
}

impl ReportService {
    pub fn new(store: DynStore) -> ReportService {
        ReportService {
            reports: Table::new(store.clone(), &tables::REPORTS),
            by_time: Table::new(store, &tables::REPORTS_BY_TIME),
            limit: std::sync::Arc::new(RateLimiter::new(
                REPORTS_PER_HOUR,
                Duration::from_secs(3600),
            )),
        }
    }

    /// Files (or replaces) `reporter`'s report of the object `kind`/`id`
    /// owned by `owner`; answers whether it replaced an earlier one.
    pub async fn report(
        &self,
        reporter: &str,
        kind: &str,
        id: &str,
        owner: &str,
        reason: &str,
        detail: &str,
    ) -> Result<bool, ApiError> {
        if owner == reporter {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "you cannot report your own work",
            ));
        }
        let (reason, detail) = normalise_report(reason, detail)
            .map_err(|e| ApiError::with_msg(ErrorCode::InvalidParams, e.to_string()))?;
        if !self.limit.check(reporter) {
            return Err(ApiError::with_msg(
                ErrorCode::TooManyRequests,
                "too many reports: try again later",
            ));
        }
        let pk = object_pk(kind, id);
        let ck = Key::of(reporter);
        let before = self.reports.get(&pk, &ck).await?;
        // Strictly later than the earlier entry, so the index key changes.
        let now = now_millis().max(before.as_ref().map_or(0, |b| b.update_at + 1));
        let row = ReportRow {
            kind: kind.to_owned(),
            object_id: id.to_owned(),
            owner: owner.to_owned(),
            reporter: reporter.to_owned(),
            reason: reason.as_str().to_owned(),
            detail,
            create_at: before.as_ref().map_or(now, |b| b.create_at),
            update_at: now,
        };
        self.reports.put(&pk, &ck, &row).await?;
        self.by_time
            .put(&Key::of(BY_TIME), &index_ck(now, kind, id, reporter), &())
            .await?;
        if let Some(b) = &before {
            self.by_time
                .delete(
                    &Key::of(BY_TIME),
                    &index_ck(b.update_at, kind, id, reporter),
                )
                .await?;
        }
        tracing::info!(kind, reason = reason.as_str(), "content reported");
        Ok(before.is_some())
    }

    /// Reports newest first, for operators.
    pub async fn list(
        &self,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<(Vec<ReportRow>, Option<String>), ApiError> {
        let paging = match cursor.filter(|c| !c.is_empty()) {
            None => None,
            Some(c) => Some(
                PagingState::from_hex(c)
                    .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "bad cursor"))?,
            ),
        };
        let page = self
            .by_time
            .scan(
                &Key::of(BY_TIME),
                &ScanRange::all(limit.clamp(1, 100)).desc().after(paging),
            )
            .await?;
        let mut items = Vec::new();
        for (ck, ()) in page.rows {
            let mut r = ck.reader();
            let (Some(_), Some(kind), Some(id), Some(reporter)) =
                (r.i64(), r.str(), r.str(), r.str())
            else {
                continue;
            };
            if let Some(row) = self
                .reports
                .get(&object_pk(&kind, &id), &Key::of(&reporter))
                .await?
            {
                items.push(row);
            }
        }
        Ok((items, page.paging.map(|p| p.to_hex())))
    }
}
