//! Feed pages (spec 3 §2, §7 Square v1 and v3): which works a feed call
//! answers, in which order, from the feed index (`index.rs`), as cards.
//!
//! Orders: `new` by publish time; `follows` the followed accounts' works by
//! time (public and followers-only); `hot` through the newest hot
//! snapshot; `recommend` through the viewer's personal order of that
//! snapshot (visitors: hot). Feeds list public works of authors who are not
//! banned; a profile's lists also show what the viewer may see of the
//! author's followers-only and own works.

use std::collections::HashSet;
use std::sync::Arc;

use infra::store::{Key, ScanRange};
use protocol::square::feed::{FeedKind, FeedPage, FeedRequest, OrderBy};
use protocol::square::work::tag_key;
use protocol::square::PostKind;
use protocol::ErrorCode;

use super::cursor::Cursor;
use super::index::{personal_order, Filter, Personal};
use super::nsfw_view::NsfwView;
use super::social::Reaction;
use super::SquareService;
use crate::accounts::now_millis;
use crate::error::ApiError;

/// The tags of this many of the viewer's newest likes steer recommend.
const LIKED_TAG_SAMPLE: u32 = 50;

fn kind_of(s: &str) -> Option<PostKind> {
    match s.trim().to_lowercase().as_str() {
        "picture" | "image" | "1" => Some(PostKind::Picture),
        "article" | "2" => Some(PostKind::Article),
        "video" | "3" | "7" => Some(PostKind::Video),
        _ => None,
    }
}

/// The post kinds a feed call keeps (`None`: this feed has no works).
pub fn feed_kinds(kind: FeedKind, req: &FeedRequest) -> Option<Vec<PostKind>> {
    let asked: Vec<PostKind> = req.output_types.iter().filter_map(|s| kind_of(s)).collect();
    match kind {
        FeedKind::Mix => {
            // Home content types (spec 3 §3): Explore=1 and Posts=4 are every
            // post, Video=7 video posts, Tavern=9 is the character feed's.
            let mut from_source: Vec<PostKind> = Vec::new();
            for s in &req.source_types {
                match s.trim() {
                    "1" | "4" => {
                        from_source.extend([PostKind::Picture, PostKind::Article, PostKind::Video])
                    }
                    "7" => from_source.push(PostKind::Video),
                    _ => {}
                }
            }
            if !req.source_types.is_empty() && from_source.is_empty() {
                return None;
            }
            let mut kinds = if asked.is_empty() { from_source } else { asked };
            kinds.sort_by_key(|k| k.code());
            kinds.dedup();
            Some(kinds)
        }
        FeedKind::Post => Some(asked),
        FeedKind::Artwork => Some(vec![PostKind::Picture]),
        FeedKind::Video => Some(vec![PostKind::Video]),
        // Their content (models, voices, apps, templates, books) arrives
        // with later features; until then these feeds have no works.
        FeedKind::Character
        | FeedKind::Model
        | FeedKind::LoraTrain
        | FeedKind::Audio
        | FeedKind::Timbre
        | FeedKind::App
        | FeedKind::Comfyui
        | FeedKind::DesignTemplate
        | FeedKind::Ebook => None,
    }
}

fn empty() -> FeedPage {
    FeedPage {
        items: Vec::new(),
        next_cursor: None,
    }
}

/// What a feed call keeps besides its request's filters: the post kinds
/// and the viewer's NSFW view.
struct Select {
    kinds: Vec<PostKind>,
    view: NsfwView,
}

fn filter(sel: Select, req: &FeedRequest, anchor: i64) -> Filter {
    let Select { kinds, view } = sel;
    Filter {
        nsfw: Some(view),
        kinds,
        tag: req.tag.as_deref().map(tag_key).filter(|t| !t.is_empty()),
        since: req.time().span_ms().map(|s| anchor - s),
    }
}

impl SquareService {
    /// One page of a feed.
    pub async fn feed(
        &self,
        kind: FeedKind,
        viewer: Option<&str>,
        req: &FeedRequest,
    ) -> Result<FeedPage, ApiError> {
        self.ready().await;
        let Some(kinds) = feed_kinds(kind, req) else {
            return Ok(empty());
        };
        let n = req.size();
        let cursor = Cursor::parse(req.cursor.as_deref())?;
        let view = self.nsfw_view(viewer, req.nsfw_mode).await?;
        let sel = Select { kinds, view };
        match req.order() {
            OrderBy::New | OrderBy::Recently => self.page_new(sel, req, cursor, viewer, n).await,
            OrderBy::Follows => {
                let v = viewer.ok_or(ErrorCode::NeedLogin)?;
                let follows = self.follows_of(v).await?;
                self.page_by_authors(&follows, sel, req, cursor, v, n).await
            }
            OrderBy::Hot => self.page_ranked(sel, req, cursor, viewer, None, n).await,
            OrderBy::Recommend => match viewer {
                None => self.page_ranked(sel, req, cursor, None, None, n).await,
                Some(v) => {
                    let epoch = match &cursor {
                        Some(Cursor::Ranked { epoch, .. }) => Some(*epoch),
                        _ => None,
                    };
                    let personal = self.personal(v, epoch).await?;
                    self.page_ranked(sel, req, cursor, viewer, personal, n)
                        .await
                }
            },
        }
    }

    async fn page_new(
        &self,
        sel: Select,
        req: &FeedRequest,
        cursor: Option<Cursor>,
        viewer: Option<&str>,
        n: usize,
    ) -> Result<FeedPage, ApiError> {
        let (anchor, after) = time_cursor(cursor)?;
        let f = filter(sel, req, anchor);
        let (ids, next) = match self.inner.index.read() {
            Ok(ix) => ix.page_new(&f, &after, n),
            Err(_) => return Err(ApiError::internal("feed index poisoned")),
        };
        self.time_page(ids, next, anchor, viewer).await
    }

    async fn time_page(
        &self,
        ids: Vec<Arc<str>>,
        next: Option<(i64, String)>,
        anchor: i64,
        viewer: Option<&str>,
    ) -> Result<FeedPage, ApiError> {
        Ok(FeedPage {
            items: self.cards(&ids, viewer).await?,
            next_cursor: next.map(|(ms, id)| Cursor::Time { anchor, ms, id }.encode()),
        })
    }

    /// The follows feed: `follows` are the accounts `viewer` follows, so
    /// their followers-only works are the viewer's to see.
    async fn page_by_authors(
        &self,
        follows: &HashSet<String>,
        sel: Select,
        req: &FeedRequest,
        cursor: Option<Cursor>,
        viewer: &str,
        n: usize,
    ) -> Result<FeedPage, ApiError> {
        let (anchor, after) = time_cursor(cursor)?;
        let f = filter(sel, req, anchor);
        let (ids, next) = match self.inner.index.read() {
            Ok(ix) => ix.page_authors(
                follows,
                Some(viewer),
                &|a| follows.contains(a),
                &f,
                &after,
                n,
            ),
            Err(_) => return Err(ApiError::internal("feed index poisoned")),
        };
        self.time_page(ids, next, anchor, Some(viewer)).await
    }

    async fn page_ranked(
        &self,
        sel: Select,
        req: &FeedRequest,
        cursor: Option<Cursor>,
        viewer: Option<&str>,
        personal: Option<Arc<Personal>>,
        n: usize,
    ) -> Result<FeedPage, ApiError> {
        let (epoch, offset) = match cursor {
            None => (None, 0),
            Some(Cursor::Ranked { epoch, offset }) => (Some(epoch), offset),
            Some(Cursor::Time { .. }) => return Err(bad_cursor()),
        };
        let (ids, next, epoch) = {
            let ix = self
                .inner
                .index
                .read()
                .map_err(|_| ApiError::internal("feed index poisoned"))?;
            let Some(snap) = ix.snapshot_at(epoch) else {
                return Ok(empty());
            };
            let f = filter(sel, req, snap.epoch);
            let (ids, next) = match &personal {
                Some(p) if p.epoch == snap.epoch => {
                    ix.page_ranked(personal_order(p, &snap), offset, &f, n)
                }
                _ => ix.page_ranked(snap.ranked.iter().map(|(id, _)| id), offset, &f, n),
            };
            (ids, next, snap.epoch)
        };
        Ok(FeedPage {
            items: self.cards(&ids, viewer).await?,
            next_cursor: next.map(|offset| Cursor::Ranked { epoch, offset }.encode()),
        })
    }

    /// The viewer's recommend order for the snapshot of `epoch` (newest
    /// when `None` or gone), made once per snapshot and kept.
    async fn personal(
        &self,
        viewer: &str,
        epoch: Option<i64>,
    ) -> Result<Option<Arc<Personal>>, ApiError> {
        let Some(snap) = self
            .inner
            .index
            .read()
            .ok()
            .and_then(|ix| ix.snapshot_at(epoch))
        else {
            return Ok(None);
        };
        let key = (viewer.to_owned(), snap.epoch);
        if let Some(p) = self
            .inner
            .personal
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return Ok(Some(p));
        }
        let follows = self.follows_of(viewer).await?;
        let liked_tags = self.liked_tags(viewer).await?;
        let me = self.clone();
        let s = snap.clone();
        let p = tokio::task::spawn_blocking(move || {
            me.inner
                .index
                .read()
                .ok()
                .map(|ix| Arc::new(ix.personal(&s, &follows, &liked_tags)))
        })
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(|| ApiError::internal("feed index poisoned"))?;
        if let Ok(mut m) = self.inner.personal.lock() {
            if m.len() >= 4096 {
                m.clear();
            }
            m.entry(key).or_insert_with(|| p.clone());
        }
        Ok(Some(p))
    }

    /// Tag keys of the works the viewer liked most recently.
    async fn liked_tags(&self, viewer: &str) -> Result<HashSet<String>, ApiError> {
        let page = self
            .inner
            .t
            .liked_by_time
            .scan(&Key::of(viewer), &ScanRange::all(LIKED_TAG_SAMPLE).desc())
            .await?;
        let ix = self
            .inner
            .index
            .read()
            .map_err(|_| ApiError::internal("feed index poisoned"))?;
        let mut tags = HashSet::new();
        for (k, ()) in &page.rows {
            let mut r = k.reader();
            let (Some(_), Some(id)) = (r.i64(), r.str()) else {
                continue;
            };
            if let Some(e) = ix.get(&id) {
                tags.extend(e.tag_keys.iter().cloned());
            }
        }
        Ok(tags)
    }

    /// `artwork/list` (own works, every visibility) and `artwork/list/other`
    /// (another account's works as the viewer may see them), newest first.
    pub async fn author_works(
        &self,
        viewer: Option<&str>,
        author: &str,
        req: &FeedRequest,
    ) -> Result<FeedPage, ApiError> {
        self.ready().await;
        let kinds = feed_kinds(FeedKind::Post, req).unwrap_or_default();
        let (anchor, after) = time_cursor(Cursor::parse(req.cursor.as_deref())?)?;
        let view = self.nsfw_view(viewer, req.nsfw_mode).await?;
        let f = filter(Select { kinds, view }, req, anchor);
        let follows = self.is_following(viewer, author).await?;
        let authors: HashSet<String> = [author.to_owned()].into_iter().collect();
        let (ids, next) = match self.inner.index.read() {
            Ok(ix) => ix.page_authors(&authors, viewer, &|_| follows, &f, &after, req.size()),
            Err(_) => return Err(ApiError::internal("feed index poisoned")),
        };
        self.time_page(ids, next, anchor, viewer).await
    }

    /// `square/v3/collect/list` (the viewer's collection) and
    /// `account/like/list` (an account's likes), newest first, as the
    /// viewer may see the works.
    pub async fn reaction_list(
        &self,
        viewer: Option<&str>,
        account: &str,
        kind: Reaction,
        req: &FeedRequest,
    ) -> Result<FeedPage, ApiError> {
        self.ready().await;
        let follows = match viewer {
            Some(v) => self.follows_of(v).await?,
            None => HashSet::new(),
        };
        let view = self.nsfw_view(viewer, req.nsfw_mode).await?;
        // Works the viewer may not see are skipped while reading, so the
        // page stays full and the cursor names the last row looked at.
        let keep = |id: &str| {
            self.inner.index.read().ok().is_some_and(|ix| {
                ix.get(id).is_some_and(|e| {
                    ix.visible(e, viewer, follows.contains(&*e.author)) && view.keeps(e)
                })
            })
        };
        let (ids, next) = self
            .reacted(account, kind, req.cursor.as_deref(), req.size(), &keep)
            .await?;
        Ok(FeedPage {
            items: self.cards(&ids, viewer).await?,
            next_cursor: next,
        })
    }
}

/// The anchor and the position of a time-ordered page (a first page anchors now).
fn time_cursor(c: Option<Cursor>) -> Result<(i64, Option<(i64, String)>), ApiError> {
    match c {
        None => Ok((now_millis(), None)),
        Some(Cursor::Time { anchor, ms, id }) => Ok((anchor, Some((ms, id)))),
        Some(Cursor::Ranked { .. }) => Err(bad_cursor()),
    }
}

fn bad_cursor() -> ApiError {
    ApiError::with_msg(
        ErrorCode::InvalidParams,
        "this cursor belongs to another order",
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn req(json: &str) -> FeedRequest {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn kinds_per_feed() {
        use PostKind::*;
        for (kind, body, want) in [
            (FeedKind::Mix, "{}", Some(vec![])),
            (
                FeedKind::Mix,
                r#"{"output_types":["video","picture"]}"#,
                Some(vec![Picture, Video]),
            ),
            (FeedKind::Mix, r#"{"source_types":[7]}"#, Some(vec![Video])),
            (FeedKind::Mix, r#"{"source_types":[9]}"#, None),
            (
                FeedKind::Post,
                r#"{"output_types":"article"}"#,
                Some(vec![Article]),
            ),
            (
                FeedKind::Artwork,
                r#"{"output_types":"article"}"#,
                Some(vec![Picture]),
            ),
            (FeedKind::Video, "{}", Some(vec![Video])),
            (FeedKind::Model, "{}", None),
            (FeedKind::Timbre, "{}", None),
        ] {
            assert_eq!(feed_kinds(kind, &req(body)), want, "{kind:?} {body}");
        }
    }
}
