//! The objects people contribute belong to other services: the square
//! (picture, video and article posts), characters and models. The
//! [`Contributions`] port is what activities ask of them; [`AppObjects`]
//! answers from the real services, tests answer from a fake.

use protocol::activity::ContributionType;
use protocol::models::{ModelType, PublishStatus};
use protocol::square::card::{Card, CardAuthor};
use protocol::square::{PostKind, Visibility};
use protocol::ErrorCode;

use crate::error::ApiError;

/// What a contribution needs to know of its object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectFacts {
    /// The object is of the contribution type named (a picture post for
    /// `work`, a LoRA for `model_LORA`, ...).
    pub kind_matches: bool,
    /// Anyone may see it (public, published, not hidden).
    pub public: bool,
    pub title: String,
    pub cover: Option<String>,
}

#[async_trait::async_trait]
pub trait Contributions: Send + Sync + 'static {
    /// The object `account` contributes: unknown, deleted or someone
    /// else's answers `NotFound` (like a missing one).
    async fn own_object(
        &self,
        account: &str,
        kind: ContributionType,
        obj_id: &str,
    ) -> Result<ObjectFacts, ApiError>;
    /// For each object, whether it still shows in shared lists.
    async fn shown(&self, objs: &[(ContributionType, &str)]) -> Result<Vec<bool>, ApiError>;
    /// Cards of posts as `viewer` sees them (posts gone meanwhile left out).
    async fn work_cards(&self, ids: &[String], viewer: Option<&str>)
        -> Result<Vec<Card>, ApiError>;
    /// An account as cards show it.
    async fn author(&self, account: &str) -> CardAuthor;
    /// A winner's notification (frame 13), sent by the activity's creator.
    async fn notify_winner(&self, to: &str, from: &str, activity_id: &str, text: &str);
    /// An activity cover: a `/files/` URL of an upload on this server.
    async fn check_cover(&self, url: &str) -> Result<String, ApiError>;
}

/// The real services.
pub struct AppObjects {
    pub square: crate::square::SquareService,
    pub characters: crate::characters::CharacterService,
    pub models: crate::models::ModelService,
}

fn post_kind(kind: ContributionType) -> Option<PostKind> {
    match kind {
        ContributionType::Work => Some(PostKind::Picture),
        ContributionType::LocalVideo => Some(PostKind::Video),
        ContributionType::Article => Some(PostKind::Article),
        _ => None,
    }
}

fn model_type(kind: ContributionType) -> Option<ModelType> {
    match kind {
        ContributionType::ModelCheckpoint => Some(ModelType::Checkpoint),
        ContributionType::ModelLora => Some(ModelType::Lora),
        _ => None,
    }
}

#[async_trait::async_trait]
impl Contributions for AppObjects {
    async fn own_object(
        &self,
        account: &str,
        kind: ContributionType,
        obj_id: &str,
    ) -> Result<ObjectFacts, ApiError> {
        if !protocol::activity::rules::is_id(obj_id) {
            return Err(ErrorCode::NotFound.into());
        }
        if let Some(want) = post_kind(kind) {
            let w = self
                .square
                .work_row(obj_id)
                .await?
                .filter(|w| w.author == account)
                .ok_or(ErrorCode::NotFound)?;
            let shown = self.square.shown_in_lists(&[obj_id]).await;
            return Ok(ObjectFacts {
                kind_matches: w.kind == want,
                public: w.visibility == Visibility::Public
                    && !w.hidden()
                    && shown.first().copied().unwrap_or(false),
                title: w.title.clone(),
                cover: w.cover().map(|c| c.url.clone()),
            });
        }
        if kind == ContributionType::Character {
            let c = self
                .characters
                .visible(Some(account), obj_id)
                .await?;
            if c.owner != account {
                return Err(ErrorCode::NotFound.into());
            }
            let public = self.characters.visible(None, obj_id).await.is_ok();
            return Ok(ObjectFacts {
                kind_matches: true,
                public,
                title: c.name.clone(),
                cover: Some(c.avatar.clone()).filter(|a| !a.is_empty()),
            });
        }
        let want = model_type(kind).ok_or(ErrorCode::ActivityTypeInvalid)?;
        let m = self.models.own_model(obj_id, account).await?;
        Ok(ObjectFacts {
            kind_matches: m.model_type == want,
            public: m.publish_status == PublishStatus::Published,
            title: m.name.clone(),
            cover: None,
        })
    }

    async fn shown(&self, objs: &[(ContributionType, &str)]) -> Result<Vec<bool>, ApiError> {
        let posts: Vec<&str> = objs
            .iter()
            .filter(|(k, _)| k.is_post())
            .map(|(_, id)| *id)
            .collect();
        let mut posts_shown = self.square.shown_in_lists(&posts).await.into_iter();
        let mut out = Vec::with_capacity(objs.len());
        for (kind, id) in objs {
            let ok = if kind.is_post() {
                posts_shown.next().unwrap_or(false)
            } else if *kind == ContributionType::Character {
                self.characters.visible(None, id).await.is_ok()
            } else {
                self.models.model_for(id, None).await.is_ok()
            };
            out.push(ok);
        }
        Ok(out)
    }

    async fn work_cards(
        &self,
        ids: &[String],
        viewer: Option<&str>,
    ) -> Result<Vec<Card>, ApiError> {
        let ids: Vec<std::sync::Arc<str>> = ids.iter().map(|i| std::sync::Arc::from(i.as_str())).collect();
        self.square.cards(&ids, viewer).await
    }

    async fn author(&self, account: &str) -> CardAuthor {
        self.square.card_author(account).await
    }

    async fn notify_winner(&self, to: &str, from: &str, activity_id: &str, text: &str) {
        self.square
            .notify(
                to,
                from,
                protocol::square::social::NotificationKind::Activity,
                Some((activity_id, protocol::activity::rules::CARD_OBJ_TYPE)),
                text,
            )
            .await;
    }

    async fn check_cover(&self, url: &str) -> Result<String, ApiError> {
        self.square.own_file(url).await
    }
}
