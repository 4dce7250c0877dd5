//! Models as square cards (spec 3 §2-§3: the `model` and `lora_train` feeds
//! with their `model_types` and `base_models` filters; spec 1 §3: a model
//! card is obj_type 2, a trained LoRA channel 1), and the creator lists
//! `square/model/{my, other}`. This file pages the `new` order (newest
//! published first, by a `{published_at}.{model_id}` cursor) and an
//! account's models, and makes cards in batched reads; the `hot` and
//! `recommend` orders are `rank/feed_order.rs`.

use std::collections::HashMap;

use infra::store::Key;
use protocol::models::rules::{parse_base_model, parse_model_type};
use protocol::models::{ModelStats, ModelType, PublishStatus};
use protocol::square::card::{Card, CardAuthor, Cover, ObjType};
use protocol::square::feed::FeedRequest;
use protocol::ErrorCode;

use super::{ModelListing, ModelRow, ModelService};
use crate::error::ApiError;

/// Which models a feed call keeps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelFilter {
    pub types: Vec<ModelType>,
    pub families: Vec<String>,
    /// Only models with a trained version (the lora_train feed).
    pub trained_only: bool,
    /// Published at or after (the time range filter).
    pub since: Option<i64>,
}

impl ModelFilter {
    /// The filter of a feed request at `now` (the time range reaches back
    /// from it); unknown filter values answer InvalidParams.
    pub fn of(req: &FeedRequest, trained_only: bool, now: i64) -> Result<ModelFilter, ApiError> {
        let bad = |what: &str| ApiError::with_msg(ErrorCode::InvalidParams, what.to_owned());
        let types = req
            .model_types
            .iter()
            .map(|t| {
                let v = match t.trim().parse::<i64>() {
                    Ok(n) => serde_json::Value::from(n),
                    Err(_) => serde_json::Value::from(t.as_str()),
                };
                parse_model_type(&v).ok_or_else(|| bad("unknown model_types value"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let families = req
            .base_models
            .iter()
            .map(|b| {
                parse_base_model(&serde_json::Value::from(b.as_str()))
                    .map(|(f, _)| f)
                    .ok_or_else(|| bad("unknown base_models value"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ModelFilter {
            types,
            families,
            trained_only,
            since: req.time().span_ms().map(|s| now - s),
        })
    }

    pub fn keeps(&self, l: &ModelListing) -> bool {
        (self.types.is_empty() || self.types.contains(&l.model_type))
            && (self.families.is_empty() || self.families.contains(&l.family))
            && (!self.trained_only || l.trained)
    }

    /// Whether a published model (its row, whether it has a trained
    /// version, when it was published) passes every filter.
    pub fn keeps_model(&self, m: &ModelRow, trained: bool, published_at: i64) -> bool {
        self.keeps(&ModelListing {
            model_type: m.model_type,
            family: m.family.clone(),
            trained,
        }) && self.since.is_none_or(|s| published_at >= s)
    }
}

pub(crate) fn parse_cursor(c: Option<&str>) -> Result<Option<(i64, String)>, ApiError> {
    let Some(c) = c.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    c.split_once('.')
        .and_then(|(at, id)| Some((at.parse().ok()?, id.to_owned())))
        .filter(|(_, id)| !id.is_empty())
        .map(Some)
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "bad cursor"))
}

/// What a card shows beside the model row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CardFacts {
    pub cover: Option<String>,
    pub trained: bool,
    /// All-time figures (likes and collects are shown, never below 0).
    pub stats: ModelStats,
    /// The viewer liked it.
    pub liked: bool,
    /// The viewer saved it.
    pub collected: bool,
}

/// A model's card.
pub fn card(m: &ModelRow, f: CardFacts) -> Card {
    let CardFacts {
        cover,
        trained,
        stats,
        liked,
        collected,
    } = f;
    Card {
        obj_type: ObjType::MODEL,
        sub_obj_type: None,
        content_sub_type: Some(m.model_type.as_str().to_owned()),
        channel: trained.then_some(1),
        sub_channel: Some(m.family.clone()),
        id: m.id.clone(),
        title: m.name.clone(),
        cover: Cover {
            url: cover.unwrap_or_default(),
            width: 0,
            height: 0,
        },
        stream: None,
        image_count: 0,
        author: CardAuthor {
            id: m.owner.clone(),
            name: m.owner_name.clone(),
            avatar: None,
            ornament: None,
        },
        tags: m.tags.clone(),
        nsfw: m.nsfw,
        likes: stats.likes.max(0),
        collects: stats.collects.max(0),
        comments: stats.comments.max(0),
        views: 0,
        liked,
        collected,
        create_at: m.published_at.unwrap_or(m.create_at),
        frame: None,
        rating: protocol::square::nsfw::rating(m.nsfw, None, 1.0, 1.0).to_owned(),
        activity_mark: None,
    }
}

impl ModelService {
    /// Cards of `rows` for `viewer`, with their figures and the viewer's
    /// likes: versions and saves in one batched read each.
    pub async fn cards(
        &self,
        rows: &[ModelRow],
        viewer: Option<&str>,
        stats: &HashMap<String, ModelStats>,
        liked: &HashMap<String, bool>,
    ) -> Result<Vec<Card>, ApiError> {
        let versions = self.versions_of_many(rows).await?;
        let saved = match viewer {
            Some(v) => {
                let keys: Vec<(Key, Key)> =
                    rows.iter().map(|m| (Key::of(v), Key::of(&m.id))).collect();
                self.saves
                    .get_many(&keys)
                    .await?
                    .into_iter()
                    .map(|s| s.is_some())
                    .collect()
            }
            None => vec![false; rows.len()],
        };
        Ok(rows
            .iter()
            .zip(versions)
            .zip(saved)
            .map(|((m, versions), collected)| {
                let mine = viewer == Some(m.owner.as_str());
                let cover = versions
                    .iter()
                    .rev()
                    .filter(|v| mine || v.publish_status == PublishStatus::Published)
                    .find_map(|v| v.images.first().cloned());
                let trained = versions
                    .iter()
                    .any(|v| v.source == protocol::models::VersionSource::Train);
                card(
                    m,
                    CardFacts {
                        cover,
                        trained,
                        stats: stats.get(&m.id).copied().unwrap_or_default(),
                        liked: liked.get(&m.id).copied().unwrap_or(false),
                        collected,
                    },
                )
            })
            .collect())
    }

    /// One page of the published models, newest published first (the
    /// `new` order): the models and the next cursor.
    pub async fn newest_page(
        &self,
        req: &FeedRequest,
        filter: &ModelFilter,
    ) -> Result<(Vec<ModelRow>, Option<String>), ApiError> {
        let before = parse_cursor(req.cursor.as_deref())?;
        let n = req.size();
        let mut page = self.public_page(before, n + 1, |l| filter.keeps(l)).await?;
        if let Some(s) = filter.since {
            page.retain(|(at, _)| *at >= s);
        }
        let more = page.len() > n;
        page.truncate(n);
        let next_cursor = more
            .then(|| page.last().map(|(at, id)| format!("{at}.{id}")))
            .flatten();
        let ids: Vec<String> = page.into_iter().map(|(_, id)| id).collect();
        let rows = self
            .models_by_id(&ids)
            .await?
            .into_iter()
            .filter(|m| m.publish_status == PublishStatus::Published)
            .collect();
        Ok((rows, next_cursor))
    }

    /// One page of an account's models: all of them for the owner, the
    /// published ones for anyone else, newest first. Cursor `{create_at}.{model_id}`.
    pub async fn account_page(
        &self,
        account: &str,
        viewer: Option<&str>,
        req: &FeedRequest,
    ) -> Result<(Vec<ModelRow>, Option<String>), ApiError> {
        let mine = viewer == Some(account);
        let n = req.size();
        let mut before = parse_cursor(req.cursor.as_deref())?;
        let mut items: Vec<ModelRow> = Vec::new();
        let mut next_cursor = None;
        'pages: loop {
            let rows = self.owned_page(account, before.clone(), n + 1).await?;
            let done = rows.len() <= n;
            for m in rows {
                before = Some((m.create_at, m.id.clone()));
                if !mine && m.publish_status != PublishStatus::Published {
                    continue;
                }
                if items.len() == n {
                    next_cursor = items.last().map(|m| format!("{}.{}", m.create_at, m.id));
                    break 'pages;
                }
                items.push(m);
            }
            if done {
                break;
            }
        }
        Ok((items, next_cursor))
    }
}
