//! The square's side of comments: works (obj_type 4) are resolved as the
//! viewer may see them, their comment counter follows, and their authors
//! are notified. Other objects' counts and notices come here too (the
//! comments service sends them all): characters keep no comment counter,
//! but their creators are notified like authors.

use protocol::square::social::NotificationKind;
use protocol::square::ObjType;
use protocol::ErrorCode;

use super::{count, SquareService};
use crate::comments::{CommentTarget, CommentTargets};
use crate::error::ApiError;

#[async_trait::async_trait]
impl CommentTargets for SquareService {
    async fn resolve(
        &self,
        viewer: Option<&str>,
        obj_type: u8,
        obj_id: &str,
    ) -> Result<CommentTarget, ApiError> {
        if obj_type != ObjType::POST {
            return Err(ErrorCode::NotFound.into());
        }
        let w = self.visible_work(viewer, obj_id).await?;
        Ok(CommentTarget {
            owner: w.author,
            title: w.title,
        })
    }

    async fn count_changed(&self, obj_type: u8, obj_id: &str, delta: i64) {
        if obj_type != ObjType::POST {
            return;
        }
        if let Err(e) = self.bump(obj_id, count::COMMENTS, delta).await {
            tracing::warn!(work = obj_id, error = %e, "square: a comment count was not changed");
        }
        self.announce(Some(obj_id), None).await;
    }

    async fn notify(
        &self,
        to: &str,
        actor: &str,
        obj_type: u8,
        obj_id: &str,
        text: &str,
        reply: bool,
    ) {
        let kind = if reply {
            NotificationKind::Reply
        } else {
            NotificationKind::Comment
        };
        SquareService::notify(self, to, actor, kind, Some((obj_id, obj_type)), text).await;
    }
}
