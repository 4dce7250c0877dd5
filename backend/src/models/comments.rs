//! Models as comment targets (obj_type 2): a model is resolved through
//! [`ModelService::model_for`], so a draft or delisted model's comments
//! answer NotFound to everyone but its owner, exactly as the model does.
//! Its comment count is kept in the model's figures (`ModelStats.comments`,
//! all time and per day, through [`ModelRanks::record`]). Notifications are
//! the square's, like every comment's (`comments::targets::Targets`).

use protocol::square::card::ObjType;
use protocol::ErrorCode;

use super::rank::{ModelEvent, ModelRanks};
use super::ModelService;
use crate::accounts::now_millis;
use crate::comments::{CommentTarget, CommentTargets};
use crate::error::ApiError;

/// Models' side of comments.
pub struct ModelTargets {
    models: ModelService,
    ranks: ModelRanks,
}

impl ModelTargets {
    pub fn new(models: ModelService, ranks: ModelRanks) -> ModelTargets {
        ModelTargets { models, ranks }
    }
}

#[async_trait::async_trait]
impl CommentTargets for ModelTargets {
    async fn resolve(
        &self,
        viewer: Option<&str>,
        obj_type: u8,
        obj_id: &str,
    ) -> Result<CommentTarget, ApiError> {
        if obj_type != ObjType::MODEL || obj_id.is_empty() || obj_id.len() > 64 {
            return Err(ErrorCode::NotFound.into());
        }
        let m = self.models.model_for(obj_id, viewer).await?;
        Ok(CommentTarget {
            owner: m.owner,
            title: m.name,
        })
    }

    async fn count_changed(&self, obj_type: u8, obj_id: &str, delta: i64) {
        if obj_type != ObjType::MODEL || delta == 0 {
            return;
        }
        // The owner is read whatever the model's state: a comment deleted
        // after the model was delisted still leaves the count.
        let owner = match self
            .models
            .models
            .get(&infra::store::Key::of(obj_id), &infra::store::Key::empty())
            .await
        {
            Ok(Some(m)) => m.owner,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(model = obj_id, error = %e, "a model's comment count was not changed");
                return;
            }
        };
        if let Err(e) = self
            .ranks
            .record(
                obj_id,
                &owner,
                ModelEvent::Comment(delta),
                now_millis(),
                None,
            )
            .await
        {
            tracing::warn!(model = obj_id, error = %e, "a model's comment count was not changed");
        }
    }

    /// The square sends every comment notification (`Targets::notify`).
    async fn notify(
        &self,
        _to: &str,
        _actor: &str,
        _obj_type: u8,
        _obj_id: &str,
        _text: &str,
        _reply: bool,
    ) {
    }
}
