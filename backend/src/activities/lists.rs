//! Users' reads: `theme-activity/{list, detail, post-list,
//! period-excellent-list}` and `activity/{my-list, my-apply}`. Objects
//! hidden by moderators, deleted or made private leave every list but
//! their author's `my-apply` (where they show as `removed`).

use std::collections::HashMap;

use infra::store::{Key, PagingState, ScanRange};
use protocol::activity::rules::{self, ListFilter};
use protocol::activity::{
    ActivityDetail, ActivityRequest, ActivitySummary, EntryView, ListRequest, MyRequest, Page,
    PeriodResultView, PostListRequest,
};
use protocol::ErrorCode;

use super::views::summary;
use super::{period_pk, ActivityService, EntryRow};
use crate::error::ApiError;

/// Contributions of one account read at most for `my-list`.
const MINE_MAX: u32 = 5_000;

fn bad_cursor() -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, "cursor: not one this list gave")
}

fn offset_page<T>(all: Vec<T>, cursor: Option<&str>, n: usize) -> Result<Page<T>, ApiError> {
    let from = rules::parse_offset(cursor).map_err(|_| bad_cursor())?;
    let total = all.len();
    let items: Vec<T> = all.into_iter().skip(from).take(n).collect();
    let next = (from + items.len() < total).then(|| (from + items.len()).to_string());
    Ok(Page {
        items,
        next_cursor: next,
    })
}

impl ActivityService {
    /// `theme-activity/list`.
    pub async fn list(&self, r: &ListRequest) -> Result<Page<ActivitySummary>, ApiError> {
        let filter = ListFilter::parse(r.status.as_deref()).ok_or_else(|| {
            ApiError::with_msg(ErrorCode::InvalidParams, "status: live, upcoming, ended or all")
        })?;
        let now = self.now();
        let mut rows: Vec<_> = self
            .all()
            .await?
            .into_iter()
            .map(|row| (rules::activity_status(&row.def, &row.closed, now), row))
            .filter(|(s, _)| filter.admits(*s))
            .collect();
        rows.sort_by(|(sa, a), (sb, b)| {
            let (a0, a1) = rules::span(&a.def, &a.closed);
            let (b0, b1) = rules::span(&b.def, &b.closed);
            rules::list_order((*sa, a0, a1, a.id.as_str()), (*sb, b0, b1, b.id.as_str()))
        });
        let page = offset_page(rows, r.cursor.as_deref(), rules::page_size(r.page_size))?;
        let mut items = Vec::with_capacity(page.items.len());
        for (_, row) in &page.items {
            items.push(summary(row, self.entries_count(&row.id).await?, now));
        }
        Ok(Page {
            items,
            next_cursor: page.next_cursor,
        })
    }

    /// `theme-activity/detail`.
    pub async fn detail(&self, id: &str, viewer: Option<&str>) -> Result<ActivityDetail, ApiError> {
        let row = self.activity(id).await?;
        self.detail_of(&row, viewer).await
    }

    /// `theme-activity/post-list`: `new` pages by (commit time, entry id)
    /// newest first, so later contributions do not shift pages; `top` by
    /// votes (ties to the earlier) over the period's contributions.
    pub async fn post_list(
        &self,
        r: &PostListRequest,
        viewer: Option<&str>,
    ) -> Result<(Page<EntryView>, u32), ApiError> {
        let row = self.activity(&r.id).await?;
        let now = self.now();
        let period = match r.period {
            Some(p) if (p as usize) < row.def.periods.len() => p,
            Some(_) => {
                return Err(ApiError::with_msg(ErrorCode::InvalidParams, "no such period"))
            }
            None => rules::default_period(&row.def, &row.closed, now),
        };
        let n = rules::page_size(r.page_size);
        match r.sort.as_deref().map(str::trim) {
            None | Some("") | Some("new") => {
                let (entries, next) = self.newest(&row.id, period, r.cursor.as_deref(), n).await?;
                let items = self.entry_views(entries, None, viewer).await?;
                Ok((
                    Page {
                        items,
                        next_cursor: next,
                    },
                    period,
                ))
            }
            Some("top") => {
                let entries = self.period_entries(&row.id, period).await?;
                let shown = self.shown(&entries).await?;
                let mut entries: Vec<EntryRow> = entries
                    .into_iter()
                    .zip(shown)
                    .filter(|(_, s)| *s)
                    .map(|(e, _)| e)
                    .collect();
                entries.sort_by(|a, b| {
                    b.votes
                        .cmp(&a.votes)
                        .then(a.at.cmp(&b.at))
                        .then_with(|| a.entry_id.cmp(&b.entry_id))
                });
                let page = offset_page(entries, r.cursor.as_deref(), n)?;
                let items = self.entry_views(page.items, None, viewer).await?;
                Ok((
                    Page {
                        items,
                        next_cursor: page.next_cursor,
                    },
                    period,
                ))
            }
            Some(_) => Err(ApiError::with_msg(ErrorCode::InvalidParams, "sort: new or top")),
        }
    }

    /// Up to `n` shown contributions of a period, newest first, after the
    /// cursor (the hex clustering key of the last one given).
    async fn newest(
        &self,
        activity: &str,
        period: u32,
        cursor: Option<&str>,
        n: usize,
    ) -> Result<(Vec<EntryRow>, Option<String>), ApiError> {
        let mut paging = match cursor.map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => Some(PagingState::from_hex(c).ok_or_else(bad_cursor)?),
            None => None,
        };
        let pk = period_pk(activity, period);
        let mut out: Vec<EntryRow> = Vec::new();
        // Each round asks for the places left, so a page never overfills;
        // hidden contributions make further rounds (bounded).
        for _ in 0..50 {
            let want = u32::try_from(n.saturating_sub(out.len()).max(1)).unwrap_or(50);
            let page = self
                .inner
                .t
                .by_time
                .scan(&pk, &ScanRange::all(want).desc().after(paging.clone()))
                .await?;
            let ids: Vec<String> = page
                .rows
                .iter()
                .filter_map(|(k, _)| {
                    let mut r = k.reader();
                    r.i64()?;
                    r.str()
                })
                .collect();
            let entries = self.entries_by_ids(&ids, None).await?;
            let shown = self.shown(&entries).await?;
            out.extend(
                entries
                    .into_iter()
                    .zip(shown)
                    .filter(|(_, s)| *s)
                    .map(|(e, _)| e),
            );
            match page.paging {
                None => return Ok((out, None)),
                Some(p) if out.len() >= n => return Ok((out, Some(p.to_hex()))),
                Some(p) => paging = Some(p),
            }
        }
        Ok((out, paging.map(|p| p.to_hex())))
    }

    /// `theme-activity/period-excellent-list`: one period, or every judged
    /// period newest first.
    pub async fn excellent_list(
        &self,
        r: &ActivityRequest,
        viewer: Option<&str>,
    ) -> Result<Vec<PeriodResultView>, ApiError> {
        let row = self.activity(&r.id).await?;
        let periods: Vec<u32> = match r.period {
            Some(p) if (p as usize) < row.def.periods.len() => vec![p],
            Some(_) => {
                return Err(ApiError::with_msg(ErrorCode::InvalidParams, "no such period"))
            }
            None => (0..row.def.periods.len())
                .rev()
                .filter_map(|i| u32::try_from(i).ok())
                .collect(),
        };
        let mut out = Vec::new();
        for p in periods {
            let result = self.result_of(&row.id, p).await?;
            if r.period.is_none() && result.is_none() {
                continue;
            }
            out.push(self.period_result_view(&row, p, result, viewer).await?);
        }
        Ok(out)
    }

    /// The account's contributions, newest first, after `cursor`, at most
    /// `limit` keys read.
    async fn mine_page(
        &self,
        account: &str,
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<(Vec<String>, Option<String>), ApiError> {
        let paging = match cursor.map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => Some(PagingState::from_hex(c).ok_or_else(bad_cursor)?),
            None => None,
        };
        let range = ScanRange::all(limit).desc().after(paging);
        let page = self.inner.t.mine.scan(&Key::of(account), &range).await?;
        let ids = page
            .rows
            .iter()
            .filter_map(|(k, _)| {
                let mut r = k.reader();
                r.i64()?;
                r.str()
            })
            .collect();
        Ok((ids, page.paging.map(|p| p.to_hex())))
    }

    /// `activity/my-apply`: the caller's contributions with their standing.
    pub async fn my_apply(&self, account: &str, r: &MyRequest) -> Result<Page<EntryView>, ApiError> {
        let n = rules::page_size(r.page_size);
        let only = r.activity_id.as_deref().map(str::trim).filter(|a| !a.is_empty());
        let mut cursor = r.cursor.clone();
        let mut entries: Vec<EntryRow> = Vec::new();
        let mut next;
        // With an activity filter, read on until the page is full (bounded).
        let mut rounds = 0;
        loop {
            rounds += 1;
            let (ids, more) = self
                .mine_page(account, cursor.as_deref(), u32::try_from(n).unwrap_or(50))
                .await?;
            let ids: Vec<String> = ids
                .into_iter()
                .filter(|id| {
                    only.is_none_or(|a| {
                        rules::parse_entry_id(id).is_some_and(|(x, _, _)| x.as_deref() == Some(a))
                    })
                })
                .collect();
            entries.extend(self.entries_by_ids(&ids, Some(account)).await?);
            next = more;
            if only.is_none() || entries.len() >= n || next.is_none() || rounds >= 20 {
                break;
            }
            cursor = next.clone();
        }
        let shown = self.shown(&entries).await?;
        let mut titles: HashMap<String, String> = HashMap::new();
        for e in &entries {
            if let Some(a) = &e.activity {
                if !titles.contains_key(a) {
                    let t = self.activity(a).await.map(|r| r.def.title).unwrap_or_default();
                    titles.insert(a.clone(), t);
                }
            }
        }
        let mut items = self.entry_views(entries, Some(&shown), Some(account)).await?;
        for v in &mut items {
            v.activity_title = v.activity_id.as_ref().and_then(|a| titles.get(a).cloned());
        }
        Ok(Page {
            items,
            next_cursor: next,
        })
    }

    /// `activity/my-list`: activities the caller contributed to, most
    /// recent contribution first, with how many.
    pub async fn my_list(&self, account: &str, r: &MyRequest) -> Result<Page<ActivitySummary>, ApiError> {
        let (ids, _) = self.mine_page(account, None, MINE_MAX).await?;
        let mut order: Vec<String> = Vec::new();
        let mut counts: HashMap<String, u32> = HashMap::new();
        for id in ids {
            if let Some((Some(a), _, _)) = rules::parse_entry_id(&id) {
                let c = counts.entry(a.clone()).or_insert(0);
                if *c == 0 {
                    order.push(a);
                }
                *c += 1;
            }
        }
        let page = offset_page(order, r.cursor.as_deref(), rules::page_size(r.page_size))?;
        let mut items = Vec::with_capacity(page.items.len());
        for a in &page.items {
            let Ok(row) = self.activity(a).await else { continue };
            let mut s = self.summary_of(&row).await?;
            s.my_entries = counts.get(a).copied();
            items.push(s);
        }
        Ok(Page {
            items,
            next_cursor: page.next_cursor,
        })
    }
}
