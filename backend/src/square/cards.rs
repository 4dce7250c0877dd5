//! Cards and who may see what: the author and card of a work as feeds show
//! them, the viewer's liked and collected flags, whom a viewer follows, and
//! the one visibility check every call that can reveal a work goes through.

use std::collections::HashSet;
use std::sync::Arc;

use infra::store::{Key, ScanRange};
use protocol::square::card::{Card, CardAuthor, Cover, ObjType, Stream};
use protocol::ErrorCode;

use super::index::{Author, Entry};
use super::row::WorkRow;
use super::SquareService;
use crate::error::ApiError;

impl SquareService {
    /// The author as cards show them (from the index, else the Store).
    pub(crate) async fn card_author(&self, id: &str) -> CardAuthor {
        let known = self
            .inner
            .index
            .read()
            .ok()
            .and_then(|ix| ix.author(id).cloned());
        let a = match known {
            Some(a) => a,
            None => self.author_from_store(id).await.unwrap_or_default(),
        };
        let ornament = match self.inner.decor.get() {
            Some(d) => d.avatar_url(id).await,
            None => None,
        };
        CardAuthor {
            id: id.to_owned(),
            name: a.name,
            avatar: a.avatar,
            ornament,
        }
    }

    /// Cards for works in the order given (works gone meanwhile are left
    /// out), with the viewer's liked and collected flags.
    pub(crate) async fn cards(
        &self,
        ids: &[Arc<str>],
        viewer: Option<&str>,
    ) -> Result<Vec<Card>, ApiError> {
        let mut cards: Vec<(Card, Arc<str>)> = Vec::with_capacity(ids.len());
        let levels = self.nsfw_levels();
        if let Ok(ix) = self.inner.index.read() {
            for id in ids {
                let Some(e) = ix.get(id) else { continue };
                let a = ix.author(&e.author).cloned().unwrap_or_default();
                cards.push((card_of(e, &a, &levels), id.clone()));
            }
        }
        if let Some(v) = viewer {
            // Two reads in all, not two a card: the viewer's flags.
            let keys: Vec<(Key, Key)> = cards
                .iter()
                .map(|(_, id)| (Key::of(v), Key::of(id)))
                .collect();
            let (liked, collected) = tokio::join!(
                self.inner.t.liked.get_many(&keys),
                self.inner.t.collected.get_many(&keys)
            );
            for (((card, _), l), c) in cards.iter_mut().zip(liked?).zip(collected?) {
                card.liked = l.is_some();
                card.collected = c.is_some();
            }
        }
        let mut cards: Vec<Card> = cards.into_iter().map(|(c, _)| c).collect();
        if let Some(d) = self.inner.decor.get() {
            d.decorate_cards(&mut cards).await;
        }
        self.mark_cards(&mut cards);
        Ok(cards)
    }

    /// The accounts `who` follows.
    pub(crate) async fn follows_of(&self, who: &str) -> Result<HashSet<String>, ApiError> {
        let mut out = HashSet::new();
        let mut paging = None;
        loop {
            let page = self
                .inner
                .t
                .follows
                .scan(&Key::of(who), &ScanRange::all(1000).after(paging))
                .await?;
            for (k, _) in page.rows {
                if let Some(id) = k.reader().str() {
                    out.insert(id);
                }
            }
            match page.paging {
                Some(p) if out.len() < 10_000 => paging = Some(p),
                _ => break,
            }
        }
        Ok(out)
    }

    pub(crate) async fn is_following(
        &self,
        who: Option<&str>,
        whom: &str,
    ) -> Result<bool, ApiError> {
        match who {
            Some(w) if w != whom => Ok(self
                .inner
                .t
                .follows
                .get(&Key::of(w), &Key::of(whom))
                .await?
                .is_some()),
            _ => Ok(false),
        }
    }

    /// The work as `viewer` may see it, else NotFound (private,
    /// followers-only to a non-follower, a banned author, gone: all alike).
    pub async fn visible_work(&self, viewer: Option<&str>, id: &str) -> Result<WorkRow, ApiError> {
        let w = self
            .inner
            .t
            .works
            .get(&Key::of(id), &Key::empty())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if viewer == Some(w.author.as_str()) {
            return Ok(w);
        }
        let banned = self
            .inner
            .index
            .read()
            .ok()
            .and_then(|ix| ix.author(&w.author).map(|a| a.banned))
            .unwrap_or(false);
        let ok = !banned
            && !w.hidden()
            && match w.visibility {
                protocol::square::Visibility::Public => true,
                protocol::square::Visibility::Followers => {
                    self.is_following(viewer, &w.author).await?
                }
                protocol::square::Visibility::Private => false,
            };
        if ok {
            Ok(w)
        } else {
            Err(ErrorCode::NotFound.into())
        }
    }
}

/// A card from an index entry.
pub(crate) fn card_of(e: &Entry, a: &Author, levels: &super::nsfw_view::Levels) -> Card {
    let rating = levels.rating_of(e);
    let cover = e.cover.clone().map_or_else(Cover::default, |c| Cover {
        url: c.url,
        width: c.width,
        height: c.height,
    });
    Card {
        obj_type: ObjType::POST,
        sub_obj_type: Some(e.kind.code()),
        content_sub_type: Some(e.kind.as_str().to_owned()),
        channel: None,
        sub_channel: None,
        id: e.id.to_string(),
        title: e.title.clone(),
        cover,
        stream: e.video_url.clone().map(|url| Stream {
            url,
            url2: None,
            url3: None,
        }),
        image_count: e.image_count,
        author: CardAuthor {
            id: e.author.to_string(),
            name: a.name.clone(),
            avatar: a.avatar.clone(),
            ornament: None,
        },
        tags: e.tags.clone(),
        nsfw: e.nsfw || rating == protocol::square::nsfw::RATING_NSFW,
        likes: e.counts.likes.max(0),
        collects: e.counts.collects.max(0),
        comments: e.counts.comments.max(0),
        views: e.counts.views.max(0),
        liked: false,
        collected: false,
        create_at: e.create_at,
        frame: None,
        rating: rating.to_owned(),
        activity_mark: None,
    }
}
