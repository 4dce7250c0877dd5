//! What moderators change on a work (`backend/src/moderation/` decides):
//! its moderation state (hidden, banned from feeds, neither) and its NSFW
//! rating after an appeal. Each change is stored, then re-indexed on this
//! node (feeds, search) and announced to the others.

use infra::store::Key;
use protocol::moderation::ModerationView;
use protocol::ErrorCode;

use super::row::WorkRow;
use super::SquareService;
use crate::accounts::now_millis;
use crate::error::ApiError;

impl SquareService {
    /// A work as stored, whoever may see it (moderators' reads).
    pub async fn work_row(&self, id: &str) -> Result<Option<WorkRow>, ApiError> {
        Ok(self.inner.t.works.get(&Key::of(id), &Key::empty()).await?)
    }

    /// Sets (or clears) a work's moderation state; answers the row before.
    pub async fn set_moderation(
        &self,
        id: &str,
        m: Option<ModerationView>,
    ) -> Result<WorkRow, ApiError> {
        self.change_work(id, |w| w.moderation = m.clone()).await
    }

    /// Sets a work's NSFW rating (an appeal's decision); answers the row before.
    pub async fn set_nsfw(&self, id: &str, nsfw: bool) -> Result<WorkRow, ApiError> {
        self.change_work(id, |w| w.nsfw = nsfw).await
    }

    async fn change_work(&self, id: &str, f: impl Fn(&mut WorkRow)) -> Result<WorkRow, ApiError> {
        let before = self.work_row(id).await?.ok_or(ErrorCode::NotFound)?;
        let now = now_millis();
        let row = self
            .inner
            .t
            .works
            .update(&Key::of(id), &Key::empty(), Some(before.clone()), |w| {
                f(w);
                w.update_at = now.max(w.update_at);
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.index_work(&row).await?;
        self.announce(Some(&row.id), None).await;
        Ok(before)
    }
}
