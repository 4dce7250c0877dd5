//! The model feeds' orders (spec 3 §2-§3: the `model` and `lora_train`
//! feeds, `square/model/*`; `order_by`), with their filters (`model_types`,
//! `base_models`, the time range, trained versions for lora_train):
//!
//! - **new** (also `follows` and `recently`, which models do not have):
//!   newest published first, paged by a `{published_at}.{model_id}` keyset
//!   cursor (`models/feed.rs`).
//! - **hot**: the weekly hot value of `protocol::models::rank` (the
//!   documented score over the week window, with the publish-age gravity);
//!   ties, including every model without figures, go to the newer model,
//!   then the smaller id.
//! - **recommend**: for a signed-in viewer with marks, the viewer's
//!   recommend order (`ModelRanks::recommend_ranking`, the one
//!   `model/recommend` answers) first, then the models it leaves out (the
//!   viewer's own and already marked ones) in hot order. Visitors and
//!   viewers without marks get hot.
//!
//! **Paging hot and recommend.** The first page ranks every published model
//! that passes the filters once and keeps that order as a snapshot in this
//! node's memory (the newest [`FEED_SNAPSHOTS`], each for
//! [`FEED_SNAPSHOT_TTL_MS`]). The cursor `r{offset}.{as_of}.{snapshot}` pages
//! over it by offset, so the pages never repeat or skip a model while the
//! snapshot lives, whatever happens to the figures meanwhile. When the
//! snapshot is gone (expired, another node, a restart) or does not match the
//! request, the order is ranked again with ages counted at `as_of`: then
//! only models whose figures changed since the first page can cross a page
//! edge. The ranking reads the cached figures and catalogue
//! (`RankSettings::cache_ms`), so a model published seconds ago may reach
//! these two orders a few seconds after the `new` order.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use infra::store::Key;
use protocol::models::rank::{hot, rank_order, score, Ranked, Window};
use protocol::square::card::Card;
use protocol::square::feed::{FeedPage, FeedRequest, OrderBy};
use protocol::ErrorCode;

use super::boards::published_at;
use super::ModelRanks;
use crate::error::ApiError;
use crate::models::feed::ModelFilter;
use crate::models::ModelRow;

/// Ranked feed orders kept per node at most.
pub const FEED_SNAPSHOTS: usize = 64;
/// How long a ranked feed order is kept (ms).
pub const FEED_SNAPSHOT_TTL_MS: i64 = 30 * 60_000;

/// One ranked order, as the first page saw it.
#[derive(Debug)]
struct Snapshot {
    /// What it was ranked for (order, filters, viewer).
    signature: String,
    made_at: i64,
    ids: Vec<String>,
}

/// This node's ranked feed orders, newest last.
#[derive(Debug, Default)]
pub struct Snapshots(Mutex<VecDeque<(String, Arc<Snapshot>)>>);

impl Snapshots {
    fn get(&self, id: &str, signature: &str, now: i64) -> Option<Arc<Snapshot>> {
        let q = self.0.lock().ok()?;
        q.iter()
            .find(|(k, s)| {
                k == id && s.signature == signature && now - s.made_at < FEED_SNAPSHOT_TTL_MS
            })
            .map(|(_, s)| s.clone())
    }

    fn put(&self, id: String, s: Snapshot, now: i64) {
        if let Ok(mut q) = self.0.lock() {
            q.retain(|(_, s)| now - s.made_at < FEED_SNAPSHOT_TTL_MS);
            while q.len() >= FEED_SNAPSHOTS {
                q.pop_front();
            }
            q.push_back((id, Arc::new(s)));
        }
    }
}

/// A ranked order's cursor.
#[derive(Debug, Clone, PartialEq)]
struct RankCursor {
    offset: usize,
    as_of: i64,
    snapshot: String,
}

fn parse_rank_cursor(c: Option<&str>) -> Result<Option<RankCursor>, ApiError> {
    let Some(c) = c.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let bad = || ApiError::with_msg(ErrorCode::InvalidParams, "bad cursor");
    let rest = c.strip_prefix('r').ok_or_else(bad)?;
    let mut parts = rest.splitn(3, '.');
    let (Some(o), Some(a), Some(s)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    let ok_id = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric());
    match (o.parse(), a.parse()) {
        (Ok(offset), Ok(as_of)) if ok_id => Ok(Some(RankCursor {
            offset,
            as_of,
            snapshot: s.to_owned(),
        })),
        _ => Err(bad()),
    }
}

/// Which order a feed request asks for, as the model feeds honour it.
fn feed_order(req: &FeedRequest) -> OrderBy {
    match req.order() {
        OrderBy::Hot => OrderBy::Hot,
        OrderBy::Recommend => OrderBy::Recommend,
        _ => OrderBy::New,
    }
}

impl ModelRanks {
    /// One page of the model feed (`trained_only`: the lora_train feed) in
    /// the request's order, for `viewer`, at `now`.
    pub async fn model_feed(
        &self,
        req: &FeedRequest,
        viewer: Option<&str>,
        trained_only: bool,
        now: i64,
    ) -> Result<FeedPage, ApiError> {
        let order = feed_order(req);
        if order == OrderBy::New {
            let filter = ModelFilter::of(req, trained_only, now)?;
            let (rows, next_cursor) = self.inner.models.newest_page(req, &filter).await?;
            let items = self.cards(&rows, viewer).await?;
            return Ok(FeedPage { items, next_cursor });
        }
        let cursor = parse_rank_cursor(req.cursor.as_deref())?;
        let as_of = cursor.as_ref().map_or(now, |c| c.as_of);
        let filter = ModelFilter::of(req, trained_only, as_of)?;
        let signature = format!(
            "{order:?}|{:?}|{:?}|{trained_only}|{:?}|{viewer:?}",
            filter.types,
            filter.families,
            req.time()
        );
        let offset = cursor.as_ref().map_or(0, |c| c.offset);
        let kept = cursor
            .as_ref()
            .and_then(|c| self.inner.feeds.get(&c.snapshot, &signature, now));
        let fresh = kept.is_none();
        let (snapshot_id, ids) = match kept {
            Some(s) => (
                cursor.map(|c| c.snapshot).unwrap_or_default(),
                s.ids.clone(),
            ),
            None => {
                let ids = self
                    .feed_ranking(order, &filter, viewer, now, as_of)
                    .await?;
                (crate::models::new_id(""), ids)
            }
        };
        let n = req.size();
        let page: Vec<String> = ids.iter().skip(offset).take(n).cloned().collect();
        let end = offset + page.len();
        let next_cursor = (end < ids.len()).then(|| format!("r{end}.{as_of}.{snapshot_id}"));
        if fresh && next_cursor.is_some() {
            self.inner.feeds.put(
                snapshot_id.clone(),
                Snapshot {
                    signature,
                    made_at: now,
                    ids,
                },
                now,
            );
        }
        let rows = self.inner.models.models_by_id(&page).await?;
        let rows: Vec<ModelRow> = rows
            .into_iter()
            .filter(|m| m.publish_status == protocol::models::PublishStatus::Published)
            .collect();
        let items = self.cards(&rows, viewer).await?;
        Ok(FeedPage { items, next_cursor })
    }

    /// Every published model passing `filter`, in `order` (hot or
    /// recommend), ages counted at `as_of`.
    async fn feed_ranking(
        &self,
        order: OrderBy,
        filter: &ModelFilter,
        viewer: Option<&str>,
        now: i64,
        as_of: i64,
    ) -> Result<Vec<String>, ApiError> {
        let cat = self.catalogue(now).await?;
        let figs = self.figures(Window::Week, now).await?;
        let keeps =
            |m: &ModelRow| filter.keeps_model(m, cat.trained.contains(&m.id), published_at(m));
        let mut hot_order: Vec<Ranked> = cat
            .models
            .values()
            .filter(|m| keeps(m))
            .map(|m| {
                let s = figs.per_model.get(&m.id).copied().unwrap_or_default();
                Ranked {
                    id: m.id.clone(),
                    value: hot(score(&s), as_of - published_at(m)),
                    published_at: published_at(m),
                }
            })
            .collect();
        hot_order.sort_by(rank_order);
        let mut out: Vec<String> = Vec::with_capacity(hot_order.len());
        if order == OrderBy::Recommend {
            if let Some(rec) = self.recommend_ranking(viewer, now, as_of).await? {
                let mut seen: HashSet<String> = HashSet::new();
                for r in rec {
                    if cat.models.get(&r.id).is_some_and(&keeps) {
                        seen.insert(r.id.clone());
                        out.push(r.id);
                    }
                }
                out.extend(
                    hot_order
                        .into_iter()
                        .map(|r| r.id)
                        .filter(|id| !seen.contains(id)),
                );
                return Ok(out);
            }
        }
        out.extend(hot_order.into_iter().map(|r| r.id));
        Ok(out)
    }

    /// Cards of `rows` for `viewer`, with live figures and the viewer's
    /// likes: a fixed number of batched reads for any number of models.
    pub async fn cards(
        &self,
        rows: &[ModelRow],
        viewer: Option<&str>,
    ) -> Result<Vec<Card>, ApiError> {
        let ids: Vec<&str> = rows.iter().map(|m| m.id.as_str()).collect();
        let stats = self.stats_many(&ids).await?;
        let liked: HashMap<String, bool> = match viewer {
            Some(v) => {
                let keys: Vec<(Key, Key)> =
                    ids.iter().map(|id| (Key::of(v), Key::of(id))).collect();
                ids.iter()
                    .zip(self.inner.marks.get_many(&keys).await?)
                    .map(|(id, m)| ((*id).to_owned(), m.is_some_and(|m| m.liked)))
                    .collect()
            }
            None => HashMap::new(),
        };
        self.inner.models.cards(rows, viewer, &stats, &liked).await
    }

    /// `square/model/{my, other}`: an account's models as cards (all of
    /// them for the owner, the published ones for anyone else).
    pub async fn account_cards(
        &self,
        account: &str,
        viewer: Option<&str>,
        req: &FeedRequest,
    ) -> Result<FeedPage, ApiError> {
        let (rows, next_cursor) = self.inner.models.account_page(account, viewer, req).await?;
        let items = self.cards(&rows, viewer).await?;
        Ok(FeedPage { items, next_cursor })
    }
}
