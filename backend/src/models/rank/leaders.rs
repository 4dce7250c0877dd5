//! Leaderboards of people (`model/leaderboard/portfolio-star`,
//! `post-heroes`) and what the boards count (`calculates`).
//!
//! - portfolio-star: creators by the score of their models' summed figures
//!   in the window (`creator_day_figures` / `creator_totals`).
//! - post-heroes: authors by the likes their square works received in the
//!   window, read from the square: its feed index (public works, their
//!   authors and like counts) and, for a bounded window, the like rows
//!   (`work_likes`, which keep when each like was given). Likes undone are
//!   gone from those rows, so they do not count. Banned authors and
//!   non-public works are left out.

use std::collections::HashMap;
use std::sync::Arc;

use infra::store::Key;
use protocol::character::OwnerView;
use protocol::models::rank::{
    score, utc_day, Window, COLLECT_WEIGHT, DAY_MS, DOWNLOAD_WEIGHT, EARNING_WEIGHT, GRAVITY,
    LIKE_WEIGHT, MAX_PAGE, NEW_RISING_DAYS, USE_WEIGHT,
};
use protocol::models::ModelStats;
use protocol::square::Visibility;
use serde::Serialize;
use serde_json::{json, Value};

use super::{scan_all, ModelRanks};
use crate::error::ApiError;
use crate::square::SquareService;

/// A creator on `portfolio-star`.
#[derive(Debug, Clone, Serialize)]
pub struct CreatorRank {
    pub rank: u32,
    pub account: OwnerView,
    pub score: f64,
    pub window_stats: ModelStats,
}

/// An author on `post-heroes`.
#[derive(Debug, Clone, Serialize)]
pub struct PostHero {
    pub rank: u32,
    pub account: OwnerView,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    /// Likes their works received in the window.
    pub likes: i64,
    /// Their public works that received them.
    pub works: u32,
}

/// A computed post-heroes board.
#[derive(Debug)]
pub struct HeroBoard {
    pub computed_at: i64,
    pub heroes: Vec<PostHero>,
}

impl ModelRanks {
    async fn name_of(&self, id: &str) -> Result<String, ApiError> {
        Ok(self
            .inner
            .accounts
            .get(&Key::of(id), &Key::empty())
            .await?
            .map(|a| a.name)
            .unwrap_or_default())
    }

    /// `portfolio-star`: creators by their models' score in `w`.
    pub async fn portfolio_star(
        &self,
        w: Window,
        offset: usize,
        limit: usize,
        now: i64,
    ) -> Result<(Vec<CreatorRank>, usize), ApiError> {
        let figs = self.figures(w, now).await?;
        let mut all: Vec<(&String, f64, ModelStats)> = figs
            .per_creator
            .iter()
            .map(|(id, s)| (id, score(s), *s))
            .filter(|(_, v, _)| *v > 0.0)
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let total = all.len();
        let mut out = Vec::new();
        for (n, (id, v, s)) in all
            .into_iter()
            .skip(offset)
            .take(limit.clamp(1, MAX_PAGE))
            .enumerate()
        {
            out.push(CreatorRank {
                rank: (offset + n + 1) as u32,
                account: OwnerView {
                    id: id.clone(),
                    name: self.name_of(id).await?,
                },
                score: v,
                window_stats: s,
            });
        }
        Ok((out, total))
    }

    /// `post-heroes`: authors by likes received in `w` (cached).
    pub async fn post_heroes(
        &self,
        square: &SquareService,
        w: Window,
        now: i64,
    ) -> Result<Arc<HeroBoard>, ApiError> {
        let i = &self.inner;
        if let Ok(h) = i.heroes.lock() {
            if let Some(b) = h.get(&w) {
                if now - b.computed_at < i.settings.cache_ms {
                    return Ok(b.clone());
                }
            }
        }
        // (work id, author, likes now), read under the index lock, no await.
        let works: Vec<(String, String, i64)>;
        let mut authors: HashMap<String, (String, Option<String>)> = HashMap::new();
        {
            let ix = square
                .inner
                .index
                .read()
                .map_err(|_| ApiError::internal("square index lock poisoned"))?;
            works = ix
                .ids()
                .filter_map(|id| ix.get(id))
                .filter(|e| e.visibility == Visibility::Public && e.counts.likes > 0)
                .filter(|e| !ix.author(&e.author).is_some_and(|a| a.banned))
                .map(|e| (e.id.to_string(), e.author.to_string(), e.counts.likes))
                .collect();
            for (_, a, _) in &works {
                if let Some(au) = ix.author(a) {
                    authors.insert(a.clone(), (au.name.clone(), au.avatar.clone()));
                }
            }
        }
        let since = w.day_range(utc_day(now)).map(|(first, _)| first * DAY_MS);
        let mut per: HashMap<String, (i64, u32)> = HashMap::new();
        for (id, author, likes) in works {
            let n = match since {
                None => likes,
                Some(since) => scan_all(&square.inner.t.work_likes, &Key::of(&id), 1_000_000)
                    .await?
                    .into_iter()
                    .filter(|(_, at)| *at >= since)
                    .count() as i64,
            };
            if n > 0 {
                let e = per.entry(author).or_default();
                e.0 += n;
                e.1 += 1;
            }
        }
        let mut list: Vec<(String, i64, u32)> =
            per.into_iter().map(|(a, (l, w))| (a, l, w)).collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let heroes = list
            .into_iter()
            .enumerate()
            .map(|(n, (id, likes, works))| {
                let (name, avatar) = authors.get(&id).cloned().unwrap_or_default();
                PostHero {
                    rank: n as u32 + 1,
                    account: OwnerView { id, name },
                    avatar,
                    likes,
                    works,
                }
            })
            .collect();
        let b = Arc::new(HeroBoard {
            computed_at: now,
            heroes,
        });
        if let Ok(mut h) = i.heroes.lock() {
            h.insert(w, b.clone());
        }
        Ok(b)
    }

    /// `leaderboard/calculates`: the formula, its weights, and when each
    /// window's sums were computed and what they hold.
    pub async fn calculates(&self, now: i64) -> Result<Value, ApiError> {
        let mut windows = Vec::new();
        for w in Window::ALL {
            let f = self.figures(w, now).await?;
            let mut sum = ModelStats::default();
            for s in f.per_model.values() {
                protocol::models::rank::add_stats(&mut sum, s);
            }
            windows.push(json!({
                "time_type": w,
                "computed_at": f.computed_at,
                "first_day_ms": f.days.map(|d| d.0 * DAY_MS),
                "last_day_ms": f.days.map(|d| d.1 * DAY_MS),
                "models": f.per_model.len(),
                "creators": f.per_creator.len(),
                "totals": sum,
            }));
        }
        Ok(json!({
            "formula": {
                "score": "1*uses + 3*downloads + 2*likes + 2*collects + 0.5*earnings",
                "hot": "100 * score / (age_days + 2)^1.5",
                "recommend": "2*family_share + 0.5*min(shared_tags, 3) + hot/max_hot",
                "order": "value descending, then newer model, then model id",
                "weights": {
                    "uses": USE_WEIGHT, "downloads": DOWNLOAD_WEIGHT, "likes": LIKE_WEIGHT,
                    "collects": COLLECT_WEIGHT, "earnings": EARNING_WEIGHT,
                },
                "gravity": GRAVITY,
                "new_rising_days": NEW_RISING_DAYS,
            },
            "counts": ["uses (tasks that used the model)", "downloads", "likes", "collects", "earnings (credits)"],
            "windows": windows,
            "cache_ms": self.inner.settings.cache_ms,
        }))
    }
}
