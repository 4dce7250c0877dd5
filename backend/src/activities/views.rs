//! Rows to the wire: an activity's summary, detail and operator view, a
//! period's excellent list, contributions with their authors, the
//! viewer's votes, their cards and standing.

use std::collections::{HashMap, HashSet};

use infra::store::Key;
use protocol::activity::rules::{self, CARD_OBJ_TYPE};
use protocol::activity::{
    ActivityAdmin, ActivityDetail, ActivitySummary, EntryStatus, EntryView, PeriodResultView,
    PeriodStatus, PeriodView, Winner,
};
use protocol::square::card::{Card, CardAuthor, Cover};

use super::{all_periods_ck, period_ck, ActivityRow, ActivityService, EntryRow, ResultRow};
use crate::error::ApiError;

fn cover(url: Option<&String>) -> Option<Cover> {
    url.map(|u| Cover {
        url: u.clone(),
        width: 0,
        height: 0,
    })
}

pub(crate) fn period_views(row: &ActivityRow, now: i64) -> Vec<PeriodView> {
    row.def
        .periods
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            let closed = row.closed_at(i);
            PeriodView {
                index: i,
                start: p.start,
                end: rules::effective_end(p, closed),
                status: rules::period_status(p, closed, row.is_judged(i), now),
            }
        })
        .collect()
}

pub(crate) fn summary(row: &ActivityRow, entries: i64, now: i64) -> ActivitySummary {
    let current = rules::live_period(&row.def, &row.closed, now);
    let shown = current.unwrap_or_else(|| rules::default_period(&row.def, &row.closed, now));
    let (start, end) = rules::span(&row.def, &row.closed);
    ActivitySummary {
        id: row.id.clone(),
        title: row.def.title.clone(),
        cover: cover(row.def.cover.as_ref()),
        status: rules::activity_status(&row.def, &row.closed, now),
        daily: row.def.daily,
        judging: row.def.judging,
        types: row.def.types.clone(),
        prizes: row.def.prizes.clone(),
        periods: period_views(row, now),
        current_period: current,
        start,
        end,
        card_id: rules::card_id(&row.id, shown, row.def.daily),
        obj_type: CARD_OBJ_TYPE,
        entries,
        max_entries: row.def.max_entries,
        create_at: row.create_at,
        my_entries: None,
    }
}

impl ActivityService {
    /// Contributions of an activity, all periods.
    pub(crate) async fn entries_count(&self, id: &str) -> Result<i64, ApiError> {
        Ok(self
            .inner
            .t
            .counts
            .get(&Key::of(id), &all_periods_ck())
            .await?
            .max(0))
    }

    pub(crate) async fn summary_of(&self, row: &ActivityRow) -> Result<ActivitySummary, ApiError> {
        Ok(summary(row, self.entries_count(&row.id).await?, self.now()))
    }

    /// How many contributions `account` made to the activity (all periods).
    pub(crate) async fn my_entries(&self, row: &ActivityRow, account: &str) -> Result<u32, ApiError> {
        let keys: Vec<(Key, Key)> = (0..row.def.periods.len())
            .map(|i| {
                (
                    Key::of(&row.id),
                    Key::empty().u64(i as u64).str(account),
                )
            })
            .collect();
        let n: usize = self
            .inner
            .t
            .quotas
            .get_many(&keys)
            .await?
            .into_iter()
            .flatten()
            .map(|q| q.entries.len())
            .sum();
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    pub(crate) async fn detail_of(
        &self,
        row: &ActivityRow,
        viewer: Option<&str>,
    ) -> Result<ActivityDetail, ApiError> {
        let mine = match viewer {
            Some(v) => self.my_entries(row, v).await?,
            None => 0,
        };
        Ok(ActivityDetail {
            summary: self.summary_of(row).await?,
            rules_html: row.rules_html.clone(),
            joined: mine > 0,
            my_entries: mine,
        })
    }

    pub(crate) async fn admin_of(
        &self,
        row: &ActivityRow,
        viewer: &str,
    ) -> Result<ActivityAdmin, ApiError> {
        let mut period_entries = Vec::with_capacity(row.def.periods.len());
        for i in 0..row.def.periods.len() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            period_entries.push(
                self.inner
                    .t
                    .counts
                    .get(&Key::of(&row.id), &period_ck(i))
                    .await?
                    .max(0),
            );
        }
        Ok(ActivityAdmin {
            detail: self.detail_of(row, Some(viewer)).await?,
            rules: row.def.rules.clone(),
            excellent_count: row.def.excellent_count,
            period_entries,
        })
    }

    pub(crate) async fn result_of(
        &self,
        activity: &str,
        period: u32,
    ) -> Result<Option<ResultRow>, ApiError> {
        Ok(self
            .inner
            .t
            .results
            .get(&Key::of(activity), &Key::empty().u64(u64::from(period)))
            .await?)
    }

    /// Contributions as lists show them. `shown[i]` false marks entry `i`
    /// removed (when not given, all show).
    pub(crate) async fn entry_views(
        &self,
        entries: Vec<EntryRow>,
        shown: Option<&[bool]>,
        viewer: Option<&str>,
    ) -> Result<Vec<EntryView>, ApiError> {
        // The periods' results, read once each.
        let mut results: HashMap<(String, u32), Option<ResultRow>> = HashMap::new();
        for e in &entries {
            if let (Some(a), Some(p)) = (&e.activity, e.period) {
                if !results.contains_key(&(a.clone(), p)) {
                    let r = self.result_of(a, p).await?;
                    results.insert((a.clone(), p), r);
                }
            }
        }
        // Authors, once each.
        let mut authors: HashMap<String, CardAuthor> = HashMap::new();
        for e in &entries {
            if !authors.contains_key(&e.account) {
                let a = self.inner.objects.author(&e.account).await;
                authors.insert(e.account.clone(), a);
            }
        }
        // The viewer's votes: one batched read.
        let voted: Vec<bool> = match viewer {
            Some(v) => {
                let keys: Vec<(Key, Key)> = entries
                    .iter()
                    .map(|e| (Key::of(&e.entry_id), Key::of(v)))
                    .collect();
                self.inner
                    .t
                    .votes
                    .get_many(&keys)
                    .await?
                    .into_iter()
                    .map(|x| x.is_some())
                    .collect()
            }
            None => vec![false; entries.len()],
        };
        // Post cards, one call.
        let post_ids: Vec<String> = entries
            .iter()
            .enumerate()
            .filter(|(i, e)| e.kind.is_post() && shown.is_none_or(|s| s.get(*i) == Some(&true)))
            .map(|(_, e)| e.obj_id.clone())
            .collect();
        let cards: HashMap<String, Card> = if post_ids.is_empty() {
            HashMap::new()
        } else {
            self.inner
                .objects
                .work_cards(&post_ids, viewer)
                .await?
                .into_iter()
                .map(|c| (c.id.clone(), c))
                .collect()
        };
        let mut out = Vec::with_capacity(entries.len());
        for (i, e) in entries.into_iter().enumerate() {
            let is_shown = shown.is_none_or(|s| s.get(i) == Some(&true));
            let result = match (&e.activity, e.period) {
                (Some(a), Some(p)) => results.get(&(a.clone(), p)).cloned().flatten(),
                _ => None,
            };
            let place = result
                .as_ref()
                .and_then(|r| r.winners.iter().find(|w| w.entry_id == e.entry_id));
            let status = if !is_shown {
                EntryStatus::Removed
            } else if e.activity.is_none() {
                EntryStatus::Published
            } else if place.is_some() {
                EntryStatus::Excellent
            } else if result.is_some() {
                EntryStatus::NotSelected
            } else {
                EntryStatus::Entered
            };
            out.push(EntryView {
                author: authors.get(&e.account).cloned().unwrap_or_default(),
                voted: voted.get(i).copied().unwrap_or(false),
                card: cards.get(&e.obj_id).cloned().filter(|_| e.kind.is_post()),
                cover: cover(e.cover.as_ref()),
                rank: place.map(|w| w.rank),
                prize: place.map(|w| w.prize),
                obj_type: e.kind.obj_type(),
                entry_id: e.entry_id,
                activity_id: e.activity,
                period: e.period,
                kind: e.kind,
                obj_id: e.obj_id,
                title: e.title,
                votes: e.votes.max(0),
                create_at: e.at,
                status,
                activity_title: None,
            });
        }
        Ok(out)
    }

    /// A period's excellent list as `viewer` sees it (winners whose objects
    /// left the lists are left out).
    pub(crate) async fn period_result_view(
        &self,
        row: &ActivityRow,
        period: u32,
        result: Option<ResultRow>,
        viewer: Option<&str>,
    ) -> Result<PeriodResultView, ApiError> {
        let now = self.now();
        let views = period_views(row, now);
        let pv = views.get(period as usize);
        let mut winners = Vec::new();
        if let Some(r) = &result {
            let ids: Vec<String> = r.winners.iter().map(|w| w.entry_id.clone()).collect();
            let entries = self.entries_by_ids(&ids, None).await?;
            let shown = self.shown(&entries).await?;
            let entries: Vec<EntryRow> = entries
                .into_iter()
                .zip(shown)
                .filter(|(_, s)| *s)
                .map(|(e, _)| e)
                .collect();
            let views = self.entry_views(entries, None, viewer).await?;
            let by_id: HashMap<&str, &EntryView> =
                views.iter().map(|v| (v.entry_id.as_str(), v)).collect();
            let mut seen = HashSet::new();
            for w in &r.winners {
                if let Some(v) = by_id.get(w.entry_id.as_str()) {
                    if seen.insert(w.entry_id.clone()) {
                        winners.push(Winner {
                            rank: w.rank,
                            prize: w.prize,
                            entry: (*v).clone(),
                        });
                    }
                }
            }
        }
        Ok(PeriodResultView {
            period,
            start: pv.map_or(0, |p| p.start),
            end: pv.map_or(0, |p| p.end),
            status: if result.is_some() {
                PeriodStatus::Judged
            } else {
                pv.map_or(PeriodStatus::Closed, |p| p.status)
            },
            judged_at: result.as_ref().map(|r| r.judged_at),
            judging: row.def.judging,
            winners,
        })
    }
}
