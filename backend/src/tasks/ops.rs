//! The reads of a task (owned, view with live progress, batch) and its
//! owner's operations (cancel, delete, save, speed-up): every one answers
//! another account's task like a missing one.

use infra::store::Key;
use protocol::task::{SpeedType, TaskStatus, TaskView};
use protocol::ErrorCode;

use super::machine::TaskOp;
use super::row::TaskRow;
use super::{Requester, TaskService};
use crate::accounts::now_millis;
use crate::error::{object_key, ApiError};

impl TaskService {
    /// A task the requester owns, or NotFound (never revealing others' tasks).
    pub async fn owned(&self, who: &Requester, id: &str) -> Result<TaskRow, ApiError> {
        match self.core().get(id).await? {
            Some(row) if row.owner == who.owner() => Ok(row),
            _ => Err(ErrorCode::NotFound.into()),
        }
    }

    /// The task as the owner sees it: with its queue position while it
    /// waits, and while it runs with the live percent of this node's task
    /// actor when it has one ([`Self::live_process`]).
    pub async fn view(&self, row: &TaskRow) -> TaskView {
        let position = if row.status == TaskStatus::Queued {
            self.core().queue.position(&row.id).await.ok().flatten()
        } else {
            None
        };
        row.view_at(position, self.live_process(row))
    }

    /// The progress to show for a stored `row`. A running task's row is
    /// written only every [`core::PROGRESS_PERSIST_EVERY`] while just its
    /// percent moves; when this node's actor runs the task at the row's
    /// attempt, its percent (what the owner's socket was last sent) is
    /// shown instead. Never below the stored percent: another node's actor
    /// may have written a later one, and a reader must not see progress go
    /// back. Otherwise the stored percent, at most about a second old.
    pub fn live_process(&self, row: &TaskRow) -> u8 {
        if row.status != TaskStatus::Running {
            return row.process;
        }
        self.registry
            .live_progress(&row.id, row.attempt)
            .map_or(row.process, |p| p.max(row.process))
    }

    /// The requester's tasks among `ids` (unknown or foreign ids are left out).
    pub async fn batch(&self, who: &Requester, ids: &[String]) -> Result<Vec<TaskView>, ApiError> {
        if ids.len() > 100 {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "at most 100 task ids",
            ));
        }
        let owner = who.owner();
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(row) = self.core().get(id).await? {
                if row.owner == owner {
                    out.push(self.view(&row).await);
                }
            }
        }
        Ok(out)
    }

    pub async fn cancel(&self, who: &Requester, id: &str) -> Result<TaskView, ApiError> {
        self.owned(who, id).await?;
        self.registry.apply(id, TaskOp::Cancel).await?;
        let row = self.owned(who, id).await?;
        Ok(self.view(&row).await)
    }

    /// Deletes a task from the owner's list (cancelling it first when it runs)
    /// and its stored outputs.
    pub async fn delete(&self, who: &Requester, id: &str) -> Result<(), ApiError> {
        let row = self.owned(who, id).await?;
        if !row.status.is_final() {
            self.registry.apply(id, TaskOp::Cancel).await?;
        }
        let row = self.owned(who, id).await?;
        for o in &row.outputs {
            if let Err(e) = self.objects.delete(&object_key(&o.key)?).await {
                tracing::warn!(key = %o.key, error = %e, "could not delete an output");
            }
        }
        let core = self.core();
        core.index
            .delete(
                &Key::of(&row.owner.key()),
                &Key::empty().i64(row.create_at).str(&row.id),
            )
            .await?;
        core.tasks.delete(&Key::of(id), &Key::empty()).await?;
        Ok(())
    }

    pub async fn save_personal(&self, who: &Requester, id: &str) -> Result<TaskView, ApiError> {
        let row = self.owned(who, id).await?;
        if row.status != TaskStatus::Success {
            return Err(ApiError::with_msg(
                ErrorCode::Conflict,
                "only a finished task can be saved",
            ));
        }
        let row = self
            .core()
            .tasks
            .update(&Key::of(id), &Key::empty(), Some(row), |r| r.saved = true)
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(self.view(&row).await)
    }

    /// Moves a queued task to the fast lane (members only).
    pub async fn speed_up(&self, who: &Requester, id: &str) -> Result<TaskView, ApiError> {
        let row = self.owned(who, id).await?;
        if !who.is_paid() {
            return Err(ErrorCode::ActNotAvailable.into());
        }
        if row.status != TaskStatus::Queued || row.speed == SpeedType::Fast {
            return Ok(self.view(&row).await);
        }
        let core = self.core();
        let next = core
            .tasks
            .update(&Key::of(id), &Key::empty(), Some(row), |r| {
                if r.status == TaskStatus::Queued {
                    r.speed = SpeedType::Fast;
                    r.attempt += 1;
                    r.job.attempt = r.attempt;
                    r.updated_at = now_millis();
                }
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if next.status == TaskStatus::Queued {
            // The new attempt in the fast lane; the old entry is stale and skipped.
            core.enqueue(&next).await;
            core.publish(&next).await;
        }
        Ok(self.view(&next).await)
    }
}
