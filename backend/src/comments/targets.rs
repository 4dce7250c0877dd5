//! What comments may be on: [`CharacterTargets`] answers for characters
//! (obj_type 9) through the character service, and [`Targets`] routes each
//! obj_type to the service that owns it: characters here, models (obj_type
//! 2) to the models' implementation given with [`Targets::with_models`]
//! (`models::comments`), everything else (works, articles) to the square's
//! implementation, handed over with [`Targets::set_square`]. Until then
//! those obj_types are NotFound. Notifications and card counters are the square's for every
//! obj_type (it keeps the unread counts and the counters its feeds rank by).

use std::sync::{Arc, OnceLock};

use protocol::square::card::ObjType;
use protocol::ErrorCode;

use super::{CommentTarget, CommentTargets};
use crate::characters::CharacterService;
use crate::error::ApiError;

/// Characters as comment targets: a published character, or its owner's
/// draft for the owner; unknown, deleted, unpublished by an operator or
/// someone else's draft is NotFound (as `character/detail` answers).
pub struct CharacterTargets {
    characters: CharacterService,
}

impl CharacterTargets {
    pub fn new(characters: CharacterService) -> CharacterTargets {
        CharacterTargets { characters }
    }
}

#[async_trait::async_trait]
impl CommentTargets for CharacterTargets {
    async fn resolve(
        &self,
        viewer: Option<&str>,
        obj_type: u8,
        obj_id: &str,
    ) -> Result<CommentTarget, ApiError> {
        if obj_type != ObjType::CHARACTER {
            return Err(ErrorCode::NotFound.into());
        }
        let row = self.characters.visible(viewer, obj_id).await?;
        Ok(CommentTarget {
            owner: row.owner,
            title: row.name,
        })
    }

    /// A character row keeps no comment count: the comments service's own
    /// counter (`CommentService::total`) is the count.
    async fn count_changed(&self, _obj_type: u8, _obj_id: &str, _delta: i64) {}

    /// Characters send no notifications themselves: [`Targets`] hands every
    /// comment notification to the square, which owns them.
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

/// The composite the comments service is given.
pub struct Targets {
    characters: CharacterTargets,
    models: Option<Arc<dyn CommentTargets>>,
    square: OnceLock<Arc<dyn CommentTargets>>,
}

impl Targets {
    pub fn new(characters: CharacterService) -> Targets {
        Targets {
            characters: CharacterTargets::new(characters),
            models: None,
            square: OnceLock::new(),
        }
    }

    /// Models (obj_type 2) resolve and count through `models`; their
    /// notifications still go to the square.
    pub fn with_models(mut self, models: Arc<dyn CommentTargets>) -> Targets {
        self.models = Some(models);
        self
    }

    /// Hands over the square's implementation (works, articles, models;
    /// notifications and counters for every obj_type). Set once; false if
    /// it was set already.
    pub fn set_square(&self, square: Arc<dyn CommentTargets>) -> bool {
        self.square.set(square).is_ok()
    }

    fn square(&self) -> Option<&Arc<dyn CommentTargets>> {
        self.square.get()
    }
}

#[async_trait::async_trait]
impl CommentTargets for Targets {
    async fn resolve(
        &self,
        viewer: Option<&str>,
        obj_type: u8,
        obj_id: &str,
    ) -> Result<CommentTarget, ApiError> {
        match (obj_type, self.square()) {
            (ObjType::CHARACTER, _) => self.characters.resolve(viewer, obj_type, obj_id).await,
            (ObjType::MODEL, _) => match &self.models {
                Some(models) => models.resolve(viewer, obj_type, obj_id).await,
                None => Err(ErrorCode::NotFound.into()),
            },
            (_, Some(square)) => square.resolve(viewer, obj_type, obj_id).await,
            (_, None) => Err(ErrorCode::NotFound.into()),
        }
    }

    async fn count_changed(&self, obj_type: u8, obj_id: &str, delta: i64) {
        if obj_type == ObjType::CHARACTER {
            self.characters.count_changed(obj_type, obj_id, delta).await;
        }
        if let (ObjType::MODEL, Some(models)) = (obj_type, &self.models) {
            models.count_changed(obj_type, obj_id, delta).await;
        }
        if let Some(square) = self.square() {
            square.count_changed(obj_type, obj_id, delta).await;
        }
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
        match self.square() {
            Some(square) => {
                square
                    .notify(to, actor, obj_type, obj_id, text, reply)
                    .await
            }
            None => tracing::debug!(to, actor, obj_type, obj_id, "no notifier for comments yet"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Mutex;

    use super::*;

    /// A square that knows one work and records what it is told.
    #[derive(Default)]
    struct FakeSquare {
        counts: Mutex<Vec<(u8, String, i64)>>,
        notes: Mutex<Vec<(String, bool)>>,
    }

    #[async_trait::async_trait]
    impl CommentTargets for FakeSquare {
        async fn resolve(
            &self,
            _: Option<&str>,
            obj_type: u8,
            obj_id: &str,
        ) -> Result<CommentTarget, ApiError> {
            if obj_type == ObjType::POST && obj_id == "w1" {
                Ok(CommentTarget {
                    owner: "alice".into(),
                    title: "Work".into(),
                })
            } else {
                Err(ErrorCode::NotFound.into())
            }
        }
        async fn count_changed(&self, obj_type: u8, obj_id: &str, delta: i64) {
            self.counts
                .lock()
                .unwrap()
                .push((obj_type, obj_id.into(), delta));
        }
        async fn notify(&self, to: &str, _: &str, _: u8, _: &str, _: &str, reply: bool) {
            self.notes.lock().unwrap().push((to.into(), reply));
        }
    }

    fn characters(dir: &tempfile::TempDir) -> CharacterService {
        let store: infra::store::DynStore =
            Arc::new(infra::store::embedded::EmbeddedStore::open(&dir.path().join("s")).unwrap());
        let objects: infra::objects::DynObjects =
            Arc::new(infra::objects::LocalObjects::new(dir.path().join("o")).unwrap());
        CharacterService::new(store, objects, &crate::ratelimit::RateLimits::local())
    }

    #[tokio::test]
    async fn routes_by_obj_type_and_waits_for_the_square() {
        let dir = tempfile::tempdir().unwrap();
        let t = Targets::new(characters(&dir));
        let nf = |r: Result<CommentTarget, ApiError>| r.unwrap_err().code;
        assert_eq!(
            nf(t.resolve(None, ObjType::POST, "w1").await),
            ErrorCode::NotFound
        );
        assert_eq!(
            nf(t.resolve(None, ObjType::CHARACTER, "nope").await),
            ErrorCode::NotFound
        );

        let square = Arc::new(FakeSquare::default());
        assert!(t.set_square(square.clone()));
        assert!(!t.set_square(square.clone()), "set once");
        let w = t.resolve(Some("bob"), ObjType::POST, "w1").await.unwrap();
        assert_eq!(w.owner, "alice");
        assert_eq!(
            nf(t.resolve(None, ObjType::MODEL, "w1").await),
            ErrorCode::NotFound
        );
        // Characters never go to the square, even when it is set.
        assert_eq!(
            nf(t.resolve(None, ObjType::CHARACTER, "w1").await),
            ErrorCode::NotFound
        );

        t.count_changed(ObjType::CHARACTER, "c1", 2).await;
        t.count_changed(ObjType::POST, "w1", -1).await;
        t.notify("alice", "bob", ObjType::CHARACTER, "c1", "hi", true)
            .await;
        assert_eq!(
            *square.counts.lock().unwrap(),
            [
                (ObjType::CHARACTER, "c1".to_owned(), 2),
                (ObjType::POST, "w1".to_owned(), -1)
            ]
        );
        assert_eq!(*square.notes.lock().unwrap(), [("alice".to_owned(), true)]);
    }

    /// A models service that knows one model, "m1", of "carol".
    #[derive(Default)]
    struct FakeModels {
        counts: Mutex<Vec<(String, i64)>>,
    }

    #[async_trait::async_trait]
    impl CommentTargets for FakeModels {
        async fn resolve(
            &self,
            _: Option<&str>,
            obj_type: u8,
            obj_id: &str,
        ) -> Result<CommentTarget, ApiError> {
            assert_eq!(obj_type, ObjType::MODEL, "only models come here");
            if obj_id == "m1" {
                Ok(CommentTarget {
                    owner: "carol".into(),
                    title: "Ink".into(),
                })
            } else {
                Err(ErrorCode::NotFound.into())
            }
        }
        async fn count_changed(&self, obj_type: u8, obj_id: &str, delta: i64) {
            assert_eq!(obj_type, ObjType::MODEL, "only models come here");
            self.counts.lock().unwrap().push((obj_id.into(), delta));
        }
        async fn notify(&self, _: &str, _: &str, _: u8, _: &str, _: &str, _: bool) {
            unreachable!("the square notifies");
        }
    }

    #[tokio::test]
    async fn models_resolve_and_count_through_the_models_and_notify_through_the_square() {
        let dir = tempfile::tempdir().unwrap();
        let models = Arc::new(FakeModels::default());
        let t = Targets::new(characters(&dir)).with_models(models.clone());
        let square = Arc::new(FakeSquare::default());
        assert!(t.set_square(square.clone()));
        let m = t.resolve(None, ObjType::MODEL, "m1").await.unwrap();
        assert_eq!(m.owner, "carol");
        assert_eq!(
            t.resolve(None, ObjType::MODEL, "m2")
                .await
                .unwrap_err()
                .code,
            ErrorCode::NotFound
        );
        t.count_changed(ObjType::MODEL, "m1", 1).await;
        t.count_changed(ObjType::POST, "w1", 1).await;
        t.notify("carol", "bob", ObjType::MODEL, "m1", "nice", false)
            .await;
        assert_eq!(*models.counts.lock().unwrap(), [("m1".to_owned(), 1)]);
        // The square still hears every count (it keeps works' counters only).
        assert_eq!(
            *square.counts.lock().unwrap(),
            [
                (ObjType::MODEL, "m1".to_owned(), 1),
                (ObjType::POST, "w1".to_owned(), 1)
            ]
        );
        assert_eq!(*square.notes.lock().unwrap(), [("carol".to_owned(), false)]);
    }
}
