//! Reports of characters (`report/ai-character`) and what operators do with
//! them (`admin/character/reports`, `admin/character/unpublish`).
//!
//! A user reports a published character of someone else, once: a second
//! report by the same user replaces the first (its reason and detail), so a
//! single user cannot pile reports on a character. Reporters are limited to
//! [`REPORTS_PER_HOUR`](super::extras::REPORTS_PER_HOUR).
//!
//! Unpublishing is the operator's version of delete: the character leaves
//! every list and nobody can start a new chat with it, while existing
//! sessions keep working from their snapshot. Unlike delete, the owner
//! keeps it as a draft (they may edit it and chat with it) but can never
//! publish it again: the decision is stored in `CHARACTER_MODERATION`,
//! which `publish` consults.

use std::collections::BTreeMap;

use infra::store::{Key, PagingState, ScanRange};
use protocol::character::OwnerView;
use protocol::character_extras::{
    normalise_report, ReportListRequest, ReportReason, ReportRequest, ReportView,
    ReportedCharacter, UnpublishRequest, MAX_REPORT_DETAIL_CHARS, MAX_REPORT_LIST_LIMIT,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::CharacterService;
use crate::accounts::now_millis;
use crate::error::ApiError;

/// A user's report of a character.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportRow {
    pub character_id: String,
    pub reporter: String,
    /// A [`ReportReason`] as its wire name (stable across versions).
    pub reason: String,
    pub detail: String,
    pub create_at: i64,
    /// The time of the index entry in `CHARACTER_REPORTS_BY_TIME`; an index
    /// entry with another time is stale (the report changed since).
    pub update_at: i64,
}

/// An operator's decision to unpublish a character.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModerationRow {
    /// The operator's account id.
    pub by: String,
    pub reason: String,
    pub at: i64,
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

fn index_pk() -> Key {
    Key::empty().u64(0)
}

fn index_ck(update_at: i64, character: &str, reporter: &str) -> Key {
    Key::empty().i64(update_at).str(character).str(reporter)
}

impl CharacterService {
    /// `report/ai-character`: stores (or replaces) the caller's report of a
    /// published character of someone else. Answers whether it replaced one.
    #[tracing::instrument(skip(self, req), fields(character = %req.character_id))]
    pub async fn report(&self, reporter: &str, req: &ReportRequest) -> Result<bool, ApiError> {
        let character = self.visible(Some(reporter), &req.character_id).await?;
        if character.owner == reporter {
            return Err(invalid("you cannot report your own character"));
        }
        let (reason, detail) =
            normalise_report(&req.reason, &req.detail).map_err(|e| invalid(e.to_string()))?;
        if !self.extras.report_limit.check(reporter).await {
            return Err(ApiError::with_msg(
                ErrorCode::TooManyRequests,
                "too many reports: try again later",
            ));
        }
        let pk = Key::of(&character.id);
        let ck = Key::of(reporter);
        let before = self.extras.reports.get(&pk, &ck).await?;
        // Strictly later than the previous entry, so the index key changes.
        let now = now_millis().max(before.as_ref().map_or(0, |b| b.update_at + 1));
        let row = ReportRow {
            character_id: character.id.clone(),
            reporter: reporter.to_owned(),
            reason: reason.as_str().to_owned(),
            detail,
            create_at: before.as_ref().map_or(now, |b| b.create_at),
            update_at: now,
        };
        self.extras.reports.put(&pk, &ck, &row).await?;
        self.extras
            .reports_by_time
            .put(&index_pk(), &index_ck(now, &character.id, reporter), &())
            .await?;
        if let Some(b) = &before {
            self.extras
                .reports_by_time
                .delete(&index_pk(), &index_ck(b.update_at, &character.id, reporter))
                .await?;
        }
        tracing::info!(reason = reason.as_str(), "character reported");
        Ok(before.is_some())
    }

    /// Whether an operator unpublished the character.
    pub async fn unpublished_by_operator(&self, id: &str) -> Result<bool, ApiError> {
        Ok(self
            .extras
            .moderation
            .get(&Key::of(id), &Key::empty())
            .await?
            .is_some())
    }

    /// Refuses to publish a character an operator unpublished (called by
    /// `publish` before an edit).
    pub(super) async fn check_publishable(
        &self,
        id: &str,
        published: bool,
    ) -> Result<(), ApiError> {
        if published && self.unpublished_by_operator(id).await? {
            return Err(ApiError::with_msg(
                ErrorCode::NoPermission,
                "an operator unpublished this character: it can be edited as a draft but not published",
            ));
        }
        Ok(())
    }

    /// `admin/character/unpublish`: see the module docs. Answers whether the
    /// character was published until now.
    #[tracing::instrument(skip(self, req), fields(character = %req.character_id))]
    pub async fn unpublish(
        &self,
        operator: &str,
        req: &UnpublishRequest,
    ) -> Result<bool, ApiError> {
        let reason = req.reason.trim();
        if reason.chars().count() > MAX_REPORT_DETAIL_CHARS {
            return Err(invalid(format!(
                "reason may have at most {MAX_REPORT_DETAIL_CHARS} characters"
            )));
        }
        let before = self
            .row(&req.character_id)
            .await?
            .filter(|r| !r.deleted)
            .ok_or(ErrorCode::NotFound)?;
        // The decision first: a publish racing with this sees it.
        self.extras
            .moderation
            .put(
                &Key::of(&before.id),
                &Key::empty(),
                &ModerationRow {
                    by: operator.to_owned(),
                    reason: reason.to_owned(),
                    at: now_millis(),
                },
            )
            .await?;
        let after = self
            .characters
            .update(
                &Key::of(&before.id),
                &Key::empty(),
                Some(before.clone()),
                |r| {
                    if r.published {
                        r.published = false;
                        r.update_at = now_millis();
                    }
                },
            )
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.reindex(&before, &after).await?;
        tracing::warn!(by = operator, "character unpublished by an operator");
        Ok(before.published)
    }

    async fn report_view(
        &self,
        names: &mut BTreeMap<String, String>,
        unpublished: &mut BTreeMap<String, bool>,
        r: ReportRow,
    ) -> Result<Option<ReportView>, ApiError> {
        let Some(c) = self.row(&r.character_id).await? else {
            return Ok(None);
        };
        let owner_name = self.owner_name(names, &c.owner).await?;
        let reporter_name = self.owner_name(names, &r.reporter).await?;
        let off = match unpublished.get(&c.id) {
            Some(v) => *v,
            None => {
                let v = self.unpublished_by_operator(&c.id).await?;
                unpublished.insert(c.id.clone(), v);
                v
            }
        };
        Ok(Some(ReportView {
            character: ReportedCharacter {
                id: c.id.clone(),
                name: c.name.clone(),
                owner: OwnerView {
                    id: c.owner.clone(),
                    name: owner_name,
                },
                published: c.published,
                deleted: c.deleted,
                unpublished: off,
            },
            reporter: OwnerView {
                id: r.reporter.clone(),
                name: reporter_name,
            },
            reason: ReportReason::parse(&r.reason).unwrap_or(ReportReason::Other),
            detail: r.detail,
            create_at: r.create_at,
            update_at: r.update_at,
        }))
    }

    /// `admin/character/reports`: newest first, a page at a time; or every
    /// report of one character (newest first, no cursor).
    pub async fn reports(
        &self,
        req: &ReportListRequest,
    ) -> Result<(Vec<ReportView>, Option<String>), ApiError> {
        let limit = match req.limit {
            0 => 20,
            n => n.min(MAX_REPORT_LIST_LIMIT),
        } as usize;
        let mut names = BTreeMap::new();
        let mut off = BTreeMap::new();
        if let Some(id) = req.character_id.as_deref().filter(|c| !c.is_empty()) {
            let mut rows = Vec::new();
            let mut paging = None;
            loop {
                let page = self
                    .extras
                    .reports
                    .scan(&Key::of(id), &ScanRange::all(500).after(paging))
                    .await?;
                rows.extend(page.rows.into_iter().map(|(_, r)| r));
                match page.paging {
                    Some(p) => paging = Some(p),
                    None => break,
                }
            }
            rows.sort_by_key(|r| std::cmp::Reverse(r.update_at));
            let mut items = Vec::new();
            for r in rows.into_iter().take(limit) {
                items.extend(self.report_view(&mut names, &mut off, r).await?);
            }
            return Ok((items, None));
        }
        let mut paging = match req.cursor.as_deref().filter(|c| !c.is_empty()) {
            Some(c) => Some(PagingState::from_hex(c).ok_or_else(|| invalid("bad cursor"))?),
            None => None,
        };
        let mut items = Vec::new();
        loop {
            let page = self
                .extras
                .reports_by_time
                .scan(&index_pk(), &ScanRange::all(200).desc().after(paging))
                .await?;
            let n = page.rows.len();
            for (i, (ck, ())) in page.rows.iter().enumerate() {
                let mut k = ck.reader();
                let (Some(at), Some(cid), Some(rid)) = (k.i64(), k.str(), k.str()) else {
                    continue;
                };
                let Some(r) = self
                    .extras
                    .reports
                    .get(&Key::of(&cid), &Key::of(&rid))
                    .await?
                    .filter(|r| r.update_at == at)
                else {
                    continue;
                };
                items.extend(self.report_view(&mut names, &mut off, r).await?);
                if items.len() >= limit {
                    let more = i + 1 < n || page.paging.is_some();
                    let cursor = more.then(|| PagingState(ck.as_bytes().to_vec()).to_hex());
                    return Ok((items, cursor));
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok((items, None)),
            }
        }
    }
}
