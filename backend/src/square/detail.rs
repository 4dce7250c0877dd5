//! A work's page (`artwork/detail`, `post/detail`, `ai-video/detail`) and
//! a video's plays (`ai-video/play`): the work as the viewer
//! may see it, with live counts, the viewer's flags, the article rendered,
//! the parameters unless hidden, and the views it counts.

use std::sync::Arc;

use infra::store::Key;
use protocol::square::{ObjType, PostKind, WorkDetail};

use super::row::WorkRow;
use super::{count, markdown, SquareService};
use crate::error::ApiError;

impl SquareService {
    /// `artwork/detail`, `post/detail`: the work as the viewer may see it;
    /// a view is counted when someone other than the author looks.
    pub async fn detail(&self, viewer: Option<&str>, id: &str) -> Result<WorkDetail, ApiError> {
        let w = self.visible_work(viewer, id).await?;
        let count_view = viewer != Some(w.author.as_str());
        if count_view {
            self.bump(&w.id, count::VIEWS, 1).await?;
        }
        self.detail_of(viewer, w).await
    }

    /// `ai-video/detail`: a video post's page; other posts answer NotFound.
    pub async fn video_detail(
        &self,
        viewer: Option<&str>,
        id: &str,
    ) -> Result<WorkDetail, ApiError> {
        let w = self.visible_work(viewer, id).await?;
        if w.kind != PostKind::Video {
            return Err(protocol::ErrorCode::NotFound.into());
        }
        if viewer != Some(w.author.as_str()) {
            self.bump(&w.id, count::VIEWS, 1).await?;
        }
        self.detail_of(viewer, w).await
    }

    /// The author of a video post the viewer may see (to report it).
    pub async fn video_author(&self, viewer: Option<&str>, id: &str) -> Result<String, ApiError> {
        let w = self.visible_work(viewer, id).await?;
        if w.kind != PostKind::Video {
            return Err(protocol::ErrorCode::NotFound.into());
        }
        Ok(w.author)
    }

    /// `ai-video/play`: counts one play of a video post anyone may see;
    /// answers the plays so far.
    pub async fn video_play(&self, viewer: Option<&str>, id: &str) -> Result<i64, ApiError> {
        let w = self.visible_work(viewer, id).await?;
        if w.kind != PostKind::Video {
            return Err(protocol::ErrorCode::NotFound.into());
        }
        self.bump(&w.id, count::PLAYS, 1).await?;
        Ok(self
            .inner
            .t
            .work_counts
            .get(&Key::of(&w.id), &Key::of(count::PLAYS))
            .await?)
    }

    pub(crate) async fn detail_of(
        &self,
        viewer: Option<&str>,
        w: WorkRow,
    ) -> Result<WorkDetail, ApiError> {
        let counts = self.counts(&w.id).await?;
        let (liked, collected) = match viewer {
            Some(v) => (
                self.inner
                    .t
                    .liked
                    .get(&Key::of(v), &Key::of(&w.id))
                    .await?
                    .is_some(),
                self.inner
                    .t
                    .collected
                    .get(&Key::of(v), &Key::of(&w.id))
                    .await?
                    .is_some(),
            ),
            None => (false, false),
        };
        let following = self.is_following(viewer, &w.author).await?;
        let author = self.card_author(&w.author).await;
        let plays = if w.kind == PostKind::Video {
            self.inner
                .t
                .work_counts
                .get(&Key::of(&w.id), &Key::of(count::PLAYS))
                .await?
        } else {
            0
        };
        let frame = match self.inner.decor.get() {
            Some(d) => d.frame_url(&w.id, &w.author).await,
            None => None,
        };
        let own = viewer == Some(w.author.as_str());
        let (content, content_html, description) = if w.kind == PostKind::Article {
            (
                own.then(|| w.body.clone()),
                Some(markdown::render(&w.body)),
                String::new(),
            )
        } else {
            (None, None, w.body.clone())
        };
        Ok(WorkDetail {
            id: w.id.clone(),
            obj_type: ObjType::POST,
            kind: w.kind,
            title: w.title,
            description,
            tags: w.tags,
            visibility: w.visibility,
            nsfw: w.nsfw,
            rating: w.classified.as_ref().map(|c| c.rating.clone()),
            nsfw_score: w.classified.as_ref().map(|c| c.score),
            author,
            images: w.images,
            video_url: w.video_url,
            hls_url: w.hls_url,
            plays,
            content,
            content_html,
            params: if w.hide_params && !own {
                Vec::new()
            } else {
                w.params
            },
            hide_params: w.hide_params,
            task_ids: if own { w.task_ids } else { Vec::new() },
            likes: counts.likes.max(0),
            collects: counts.collects.max(0),
            comments: counts.comments.max(0),
            views: counts.views.max(0),
            liked,
            collected,
            following,
            create_at: w.create_at,
            update_at: w.update_at,
            frame,
            moderation: if own { w.moderation } else { None },
            appeal: None,
        })
    }

    /// Work ids of `ids` that still exist, for lists read from the Store.
    pub(crate) fn existing(&self, ids: Vec<String>) -> Vec<Arc<str>> {
        let Ok(ix) = self.inner.index.read() else {
            return Vec::new();
        };
        ids.into_iter()
            .filter_map(|id| ix.get(&id).map(|e| e.id.clone()))
            .collect()
    }
}
