//! Models as square cards (spec 3 §2-§3: the `model` and `lora_train` feeds
//! with their `model_types` and `base_models` filters; spec 1 §3: a model
//! card is obj_type 2, a trained LoRA channel 1), and the creator lists
//! `square/model/{my, other}`. Published models, newest published first,
//! paged by a `{published_at}.{model_id}` cursor.

use infra::store::Key;
use protocol::models::rules::{parse_base_model, parse_model_type};
use protocol::models::{ModelType, PublishStatus};
use protocol::square::card::{Card, CardAuthor, Cover, ObjType};
use protocol::square::feed::{FeedPage, FeedRequest};
use protocol::ErrorCode;

use super::{ModelListing, ModelRow, ModelService};
use crate::accounts::now_millis;
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
    /// The filter of a feed request; unknown filter values answer InvalidParams.
    pub fn of(req: &FeedRequest, trained_only: bool) -> Result<ModelFilter, ApiError> {
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
            since: req.time().span_ms().map(|s| now_millis() - s),
        })
    }

    pub fn keeps(&self, l: &ModelListing) -> bool {
        (self.types.is_empty() || self.types.contains(&l.model_type))
            && (self.families.is_empty() || self.families.contains(&l.family))
            && (!self.trained_only || l.trained)
    }
}

fn parse_cursor(c: Option<&str>) -> Result<Option<(i64, String)>, ApiError> {
    let Some(c) = c.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    c.split_once('.')
        .and_then(|(at, id)| Some((at.parse().ok()?, id.to_owned())))
        .filter(|(_, id)| !id.is_empty())
        .map(Some)
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "bad cursor"))
}

/// A model's card. `collected`: the viewer saved it.
pub fn card(m: &ModelRow, cover: Option<String>, trained: bool, collected: bool) -> Card {
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
        likes: 0,
        collects: 0,
        comments: 0,
        views: 0,
        liked: false,
        collected,
        create_at: m.published_at.unwrap_or(m.create_at),
        frame: None,
    }
}

impl ModelService {
    /// A model's card with its newest banner, its all-time likes, collects
    /// and comments, and the viewer's save.
    pub async fn card_of(&self, m: &ModelRow, viewer: Option<&str>) -> Result<Card, ApiError> {
        let versions = self.versions_of(m).await?;
        let mine = viewer == Some(m.owner.as_str());
        let visible = versions
            .iter()
            .filter(|v| mine || v.publish_status == PublishStatus::Published);
        let cover = visible
            .clone()
            .rev()
            .find_map(|v| v.images.first().cloned());
        let trained = versions
            .iter()
            .any(|v| v.source == protocol::models::VersionSource::Train);
        let collected = match viewer {
            Some(v) => self
                .saves
                .get(&Key::of(v), &Key::of(&m.id))
                .await?
                .is_some(),
            None => false,
        };

        let stats = self
            .totals
            .get(&Key::empty().i64(0), &Key::of(&m.id))
            .await?
            .unwrap_or_default();
        let mut c = card(m, cover, trained, collected);
        c.likes = stats.likes;
        c.collects = stats.collects;
        c.comments = stats.comments;
        Ok(c)
    }

    /// One page of the published models feed.
    pub async fn feed(
        &self,
        req: &FeedRequest,
        viewer: Option<&str>,
        trained_only: bool,
    ) -> Result<FeedPage, ApiError> {
        let filter = ModelFilter::of(req, trained_only)?;
        let before = parse_cursor(req.cursor.as_deref())?;
        let n = req.size();
        let since = filter.since;
        let mut page = self.public_page(before, n + 1, |l| filter.keeps(l)).await?;
        if let Some(s) = since {
            page.retain(|(at, _)| *at >= s);
        }
        let more = page.len() > n;
        page.truncate(n);
        let next_cursor = more
            .then(|| page.last().map(|(at, id)| format!("{at}.{id}")))
            .flatten();
        let mut items = Vec::with_capacity(page.len());
        for (_, id) in &page {
            if let Ok(m) = self.model_for(id, viewer).await {
                if m.publish_status == PublishStatus::Published {
                    items.push(self.card_of(&m, viewer).await?);
                }
            }
        }
        Ok(FeedPage { items, next_cursor })
    }

    /// An account's models as cards: all of them for the owner, the
    /// published ones for anyone else. Cursor `{create_at}.{model_id}`.
    pub async fn account_cards(
        &self,
        account: &str,
        viewer: Option<&str>,
        req: &FeedRequest,
    ) -> Result<FeedPage, ApiError> {
        let mine = viewer == Some(account);
        let n = req.size();
        let mut before = parse_cursor(req.cursor.as_deref())?;
        let mut items: Vec<(i64, Card)> = Vec::new();
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
                    next_cursor = items.last().map(|(at, c)| format!("{at}.{}", c.id));
                    break 'pages;
                }
                items.push((m.create_at, self.card_of(&m, viewer).await?));
            }
            if done {
                break;
            }
        }
        Ok(FeedPage {
            items: items.into_iter().map(|(_, c)| c).collect(),
            next_cursor,
        })
    }
}
