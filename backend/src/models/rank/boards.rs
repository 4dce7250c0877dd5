//! The boards (`model/rank-index`, `rank-detail`, `rank-detail-all`,
//! `leaderboard/hottest-models`), `recommend`, `recommend/pack` and the
//! live category counts of `source-category/sub-list`, computed from the
//! figure rows with the formula of `protocol::models::rank`. A window's
//! sums and the published catalogue are cached (`RankSettings::cache_ms`);
//! `calculates` says when they were computed.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use infra::store::Key;
use protocol::models::rank::{
    add_stats, board_value, hot, rank_order, recommend_value, score, utc_day, Board, BoardPage,
    RankDetailRequest, Ranked, RankedModel, Window, CATEGORIES, MAX_PAGE,
};
use protocol::models::rules::{parse_base_model, parse_model_type};
use protocol::models::{ModelStats, ModelType, PublishStatus};
use protocol::square::work::tag_key;
use protocol::ErrorCode;
use serde::Serialize;

use super::{scan_all, ModelRanks, ALL_TIME};
use crate::error::ApiError;
use crate::models::ModelRow;

/// Published models the catalogue holds at most.
pub const MAX_CATALOGUE: usize = 20_000;
/// Rows of one day partition read at most.
const MAX_DAY_ROWS: usize = 200_000;
/// Figures younger than this are reused even after a new event (ms).
const MIN_FRESH_MS: i64 = 1_000;

/// A window's sums.
#[derive(Debug, Clone, Default)]
pub struct WindowFigures {
    pub window: Option<Window>,
    pub computed_at: i64,
    /// UTC days summed (`None`: all time).
    pub days: Option<(i64, i64)>,
    pub per_model: HashMap<String, ModelStats>,
    pub per_creator: HashMap<String, ModelStats>,
}

/// The published models, by id.
#[derive(Debug, Default)]
pub struct Catalogue {
    pub computed_at: i64,
    pub models: HashMap<String, ModelRow>,
    /// Those with a trained version (the lora_train feed).
    pub trained: HashSet<String>,
}

/// Which models a board keeps.
#[derive(Debug, Clone, Default)]
pub struct ModelFilter {
    pub types: Vec<ModelType>,
    pub families: Vec<String>,
}

impl ModelFilter {
    /// From a request's `model_types` and `base_models` (unknown values are refused).
    pub fn from_request(r: &RankDetailRequest) -> Result<ModelFilter, ApiError> {
        let mut f = ModelFilter::default();
        for v in &r.model_types {
            let t = parse_model_type(v).ok_or_else(|| {
                ApiError::with_msg(ErrorCode::InvalidParams, format!("unknown model type {v}"))
            })?;
            f.types.push(t);
        }
        for v in &r.base_models {
            let (family, _) = parse_base_model(v).ok_or_else(|| {
                ApiError::with_msg(ErrorCode::InvalidParams, format!("unknown base model {v}"))
            })?;
            f.families.push(family);
        }
        Ok(f)
    }

    pub fn keeps(&self, m: &ModelRow) -> bool {
        (self.types.is_empty() || self.types.contains(&m.model_type))
            && (self.families.is_empty() || self.families.contains(&m.family))
    }
}

/// One category with its live count.
#[derive(Debug, Clone, Serialize)]
pub struct CategoryCount {
    pub key: String,
    pub label: String,
    /// Published models tagged with it (or, for a category, with it or
    /// one of its sub-categories).
    pub count: i64,
    pub children: Vec<CategoryCount>,
}

/// The key a tag matches a category by: `tag_key`, spaces and hyphens as '_'.
fn cat_key(tag: &str) -> String {
    tag_key(tag).replace([' ', '-'], "_")
}

pub(crate) fn published_at(m: &ModelRow) -> i64 {
    m.published_at.unwrap_or(m.create_at)
}

fn fresh(computed_at: i64, now: i64, ttl: i64) -> bool {
    now - computed_at < ttl
}

impl ModelRanks {
    /// The sums of `w` (cached).
    pub async fn figures(&self, w: Window, now: i64) -> Result<Arc<WindowFigures>, ApiError> {
        let i = &self.inner;
        let version = i.version.load(Ordering::Relaxed);
        let ttl = i.settings.cache_ms;
        if let Ok(cache) = i.figures.lock() {
            if let Some((v, f)) = cache.get(&w) {
                let age_ok = fresh(f.computed_at, now, ttl);
                if age_ok && (*v == version || fresh(f.computed_at, now, ttl.min(MIN_FRESH_MS))) {
                    return Ok(f.clone());
                }
            }
        }
        let mut f = WindowFigures {
            window: Some(w),
            computed_at: now,
            days: w.day_range(utc_day(now)),
            ..WindowFigures::default()
        };
        match f.days {
            None => {
                let all = Key::empty().i64(ALL_TIME);
                for (ck, s) in scan_all(&i.totals, &all, MAX_CATALOGUE * 4).await? {
                    if let Some(id) = ck.reader().str() {
                        f.per_model.insert(id, s);
                    }
                }
                for (ck, s) in scan_all(&i.creator_totals, &all, MAX_CATALOGUE * 4).await? {
                    if let Some(id) = ck.reader().str() {
                        f.per_creator.insert(id, s);
                    }
                }
            }
            Some((first, last)) => {
                for d in first..=last {
                    let pk = Key::empty().i64(d);
                    for (ck, s) in scan_all(&i.day, &pk, MAX_DAY_ROWS).await? {
                        if let Some(id) = ck.reader().str() {
                            add_stats(f.per_model.entry(id).or_default(), &s);
                        }
                    }
                    for (ck, s) in scan_all(&i.creator_day, &pk, MAX_DAY_ROWS).await? {
                        if let Some(id) = ck.reader().str() {
                            add_stats(f.per_creator.entry(id).or_default(), &s);
                        }
                    }
                }
            }
        }
        let f = Arc::new(f);
        if let Ok(mut cache) = i.figures.lock() {
            cache.insert(w, (version, f.clone()));
        }
        Ok(f)
    }

    /// The published models (cached).
    pub async fn catalogue(&self, now: i64) -> Result<Arc<Catalogue>, ApiError> {
        let i = &self.inner;
        if let Ok(c) = i.catalogue.lock() {
            if let Some(c) = c.as_ref() {
                if fresh(c.computed_at, now, i.settings.cache_ms) {
                    return Ok(c.clone());
                }
            }
        }
        let ids = i
            .models
            .public_listings(None, MAX_CATALOGUE, |_| true)
            .await?;
        let trained = ids
            .iter()
            .filter(|(_, _, l)| l.trained)
            .map(|(_, id, _)| id.clone())
            .collect();
        let keys: Vec<(Key, Key)> = ids
            .iter()
            .map(|(_, id, _)| (Key::of(id), Key::empty()))
            .collect();
        let mut models = HashMap::new();
        for chunk in keys.chunks(200) {
            for m in i.models.models.get_many(chunk).await?.into_iter().flatten() {
                if m.publish_status == PublishStatus::Published {
                    models.insert(m.id.clone(), m);
                }
            }
        }
        let c = Arc::new(Catalogue {
            computed_at: now,
            models,
            trained,
        });
        if let Ok(mut slot) = i.catalogue.lock() {
            *slot = Some(c.clone());
        }
        Ok(c)
    }

    /// Models as the answers show them, with their all-time figures (one
    /// batched read of versions and one of figures for the page).
    async fn ranked_views(
        &self,
        rows: Vec<(&ModelRow, f64, ModelStats)>,
        first_rank: usize,
        viewer: Option<&str>,
    ) -> Result<Vec<RankedModel>, ApiError> {
        let models: Vec<ModelRow> = rows.iter().map(|(m, _, _)| (*m).clone()).collect();
        let views = self.views_of(&models, viewer).await?;
        Ok(rows
            .into_iter()
            .zip(views)
            .enumerate()
            .map(|(n, ((_, value, window_stats), model))| RankedModel {
                rank: (first_rank + n + 1) as u32,
                value,
                score: score(&window_stats),
                window_stats,
                model,
            })
            .collect())
    }

    /// One board's page: published models passing `filter`, ranked by the
    /// documented formula over `w`, from place `offset` (0-based).
    #[allow(clippy::too_many_arguments)]
    pub async fn board(
        &self,
        board: Board,
        w: Window,
        filter: &ModelFilter,
        viewer: Option<&str>,
        offset: usize,
        limit: usize,
        now: i64,
    ) -> Result<BoardPage, ApiError> {
        let figs = self.figures(w, now).await?;
        let cat = self.catalogue(now).await?;
        let mut ranked: Vec<Ranked> = cat
            .models
            .values()
            .filter(|m| filter.keeps(m))
            .filter_map(|m| {
                let s = figs.per_model.get(&m.id).copied().unwrap_or_default();
                let at = published_at(m);
                board_value(board, &s, now - at).map(|value| Ranked {
                    id: m.id.clone(),
                    value,
                    published_at: at,
                })
            })
            .collect();
        ranked.sort_by(rank_order);
        let total = ranked.len();
        let limit = limit.clamp(1, MAX_PAGE);
        let page: Vec<(&ModelRow, f64, ModelStats)> = ranked
            .iter()
            .skip(offset)
            .take(limit)
            .filter_map(|r| {
                let m = cat.models.get(&r.id)?;
                let s = figs.per_model.get(&r.id).copied().unwrap_or_default();
                Some((m, r.value, s))
            })
            .collect();
        let end = offset + page.len();
        let items = self.ranked_views(page, offset, viewer).await?;
        Ok(BoardPage {
            rank_type: board,
            rank_type_code: board.code(),
            title: board.title().into(),
            time_type: w,
            items,
            total: total as u32,
            next_cursor: (end < total).then(|| end.to_string()),
            computed_at: figs.computed_at,
        })
    }

    /// `model/recommend`: for a viewer with marks, their families and tags
    /// first (formula in `protocol::models::rank`); otherwise, and for
    /// visitors, the weekly hottest board. Leaves out the viewer's own and
    /// already marked models.
    pub async fn recommend(
        &self,
        viewer: Option<&str>,
        limit: usize,
        now: i64,
    ) -> Result<Vec<RankedModel>, ApiError> {
        let limit = limit.clamp(1, MAX_PAGE);
        let Some(ranked) = self.recommend_ranking(viewer, now, now).await? else {
            let page = self
                .board(
                    Board::Hottest,
                    Window::Week,
                    &ModelFilter::default(),
                    viewer,
                    0,
                    limit,
                    now,
                )
                .await?;
            return Ok(page.items);
        };
        let figs = self.figures(Window::Week, now).await?;
        let cat = self.catalogue(now).await?;
        let page: Vec<(&ModelRow, f64, ModelStats)> = ranked
            .iter()
            .take(limit)
            .filter_map(|r| {
                let m = cat.models.get(&r.id)?;
                let s = figs.per_model.get(&r.id).copied().unwrap_or_default();
                Some((m, r.value, s))
            })
            .collect();
        self.ranked_views(page, 0, viewer).await
    }

    /// The whole recommend order for `viewer` (`None`: a visitor or a
    /// viewer without marks): every published model but the viewer's own
    /// and already marked ones, by the recommend value with ages counted on
    /// `as_of` (the figures and catalogue are those of `now`).
    pub async fn recommend_ranking(
        &self,
        viewer: Option<&str>,
        now: i64,
        as_of: i64,
    ) -> Result<Option<Vec<Ranked>>, ApiError> {
        let marks = match viewer {
            Some(v) => self.marks_of(v, 200).await?,
            None => Vec::new(),
        };
        let cat = self.catalogue(now).await?;
        let mut families: HashMap<String, f64> = HashMap::new();
        let mut tags: HashSet<String> = HashSet::new();
        let mut marked: HashSet<&str> = HashSet::new();
        let mut n = 0.0;
        for (id, _) in &marks {
            marked.insert(id.as_str());
            let m = match cat.models.get(id) {
                Some(m) => m.clone(),
                // A delisted or private model the viewer used still says
                // what they like.
                None => match self
                    .inner
                    .models
                    .models
                    .get(&Key::of(id), &Key::empty())
                    .await?
                {
                    Some(m) => m,
                    None => continue,
                },
            };
            *families.entry(m.family.clone()).or_default() += 1.0;
            tags.extend(m.tags.iter().map(|t| tag_key(t)));
            n += 1.0;
        }
        if n == 0.0 {
            return Ok(None);
        }
        let figs = self.figures(Window::Week, now).await?;
        let hots: Vec<(&ModelRow, f64)> = cat
            .models
            .values()
            .filter(|m| Some(m.owner.as_str()) != viewer && !marked.contains(m.id.as_str()))
            .map(|m| {
                let s = figs.per_model.get(&m.id).copied().unwrap_or_default();
                (m, hot(score(&s), as_of - published_at(m)))
            })
            .collect();
        let max_hot = hots.iter().map(|h| h.1).fold(0.0, f64::max);
        let mut ranked: Vec<Ranked> = hots
            .iter()
            .map(|(m, h)| {
                let share = families.get(&m.family).copied().unwrap_or(0.0) / n;
                let shared = m.tags.iter().filter(|t| tags.contains(&tag_key(t))).count();
                Ranked {
                    id: m.id.clone(),
                    value: recommend_value(share, shared, *h, max_hot),
                    published_at: published_at(m),
                }
            })
            .collect();
        ranked.sort_by(rank_order);
        Ok(Some(ranked))
    }

    /// `model/recommend/pack`: the published models most often used in
    /// the same task as `model_id` (value: tasks together).
    pub async fn pack(
        &self,
        model_id: &str,
        viewer: Option<&str>,
        limit: usize,
        now: i64,
    ) -> Result<Vec<RankedModel>, ApiError> {
        self.inner.models.model_for(model_id, viewer).await?;
        let cat = self.catalogue(now).await?;
        let rows = scan_all(&self.inner.co_use, &Key::of(model_id), 10_000).await?;
        let mut ranked: Vec<Ranked> = rows
            .into_iter()
            .filter_map(|(ck, n)| {
                let id = ck.reader().str()?;
                let m = cat.models.get(&id)?;
                (n > 0).then(|| Ranked {
                    id,
                    value: n as f64,
                    published_at: published_at(m),
                })
            })
            .collect();
        ranked.sort_by(rank_order);
        let page: Vec<(&ModelRow, f64, ModelStats)> = ranked
            .iter()
            .take(limit.clamp(1, MAX_PAGE))
            .filter_map(|r| Some((cat.models.get(&r.id)?, r.value, ModelStats::default())))
            .collect();
        self.ranked_views(page, 0, viewer).await
    }

    /// `source-category/sub-list`: the categories (or, with `parent`, that
    /// category's sub-categories) with live counts of published models.
    pub async fn categories(
        &self,
        parent: Option<&str>,
        now: i64,
    ) -> Result<Vec<CategoryCount>, ApiError> {
        let cat = self.catalogue(now).await?;
        let model_keys: Vec<HashSet<String>> = cat
            .models
            .values()
            .map(|m| m.tags.iter().map(|t| cat_key(t)).collect())
            .collect();
        let count = |keys: &[&str]| -> i64 {
            model_keys
                .iter()
                .filter(|mk| keys.iter().any(|k| mk.contains(*k)))
                .count() as i64
        };
        let node = |key: &str, label: &str, subs: &[(&str, &str)]| {
            let mut all: Vec<&str> = vec![key];
            all.extend(subs.iter().map(|s| s.0));
            CategoryCount {
                key: key.into(),
                label: label.into(),
                count: count(&all),
                children: subs
                    .iter()
                    .map(|(k, l)| CategoryCount {
                        key: (*k).into(),
                        label: (*l).into(),
                        count: count(&[*k]),
                        children: Vec::new(),
                    })
                    .collect(),
            }
        };
        match parent.map(str::trim).filter(|p| !p.is_empty()) {
            None => Ok(CATEGORIES.iter().map(|(k, l, s)| node(k, l, s)).collect()),
            Some(p) => {
                let key = cat_key(p);
                let (k, l, s) = CATEGORIES
                    .iter()
                    .find(|(k, _, _)| *k == key)
                    .ok_or_else(|| {
                        ApiError::with_msg(
                            ErrorCode::InvalidParams,
                            format!("unknown category {p:?}"),
                        )
                    })?;
                Ok(node(k, l, s).children)
            }
        }
    }
}
