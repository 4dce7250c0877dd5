//! The square's side of a model's community gallery (`model_works`, see
//! `models::works`): a work published from tasks that used users' models
//! is noted under each model, and forgotten when the work is deleted; the
//! gallery (`square/my-artwork/community` with a model) lists those works
//! newest first as the viewer may see them (the one visibility rule of
//! `Index::visible`: private, followers-only and banned authors' works are
//! left out for others), paged by a time cursor.

use std::collections::HashSet;
use std::sync::Arc;

use infra::store::Key;
use protocol::square::feed::{FeedPage, FeedRequest};
use protocol::task::ModelUse;
use protocol::ErrorCode;

use super::cursor::Cursor;
use super::row::WorkRow;
use super::SquareService;
use crate::error::ApiError;

/// Rows a gallery call reads at most before it answers (with a cursor
/// after the last one read), however few of them the viewer may see.
const MAX_SCANNED: usize = 2000;
/// Rows read per store call.
const CHUNK: usize = 100;

impl SquareService {
    /// The model uses of a work's tasks.
    async fn work_model_uses(&self, w: &WorkRow) -> Result<Vec<ModelUse>, ApiError> {
        let mut uses = Vec::new();
        for t in &w.task_ids {
            if let Some(task) = self.inner.t.tasks.get(&Key::of(t), &Key::empty()).await? {
                uses.extend(task.model_uses);
            }
        }
        Ok(uses)
    }

    /// Notes a new work under each model its tasks used (before the work
    /// itself is written, so a failure publishes nothing).
    pub(crate) async fn note_model_works(&self, w: &WorkRow) -> Result<(), ApiError> {
        let uses = self.work_model_uses(w).await?;
        if uses.is_empty() {
            return Ok(());
        }
        self.inner
            .t
            .model_works
            .record(&w.id, w.create_at, &uses)
            .await
    }

    /// Removes a deleted work from its models' galleries. A failure is
    /// logged: the row left behind names a work that is gone, which the
    /// gallery and `ver/can-del` both skip.
    pub(crate) async fn forget_model_works(&self, w: &WorkRow) {
        let done = async {
            let uses = self.work_model_uses(w).await?;
            let models: Vec<String> = crate::models::works::by_model(&uses).into_keys().collect();
            self.inner
                .t
                .model_works
                .forget(&w.id, w.create_at, &models)
                .await
        };
        if let Err(e) = done.await {
            tracing::warn!(work = %w.id, error = %e, "square: a work stays in a model's gallery");
        }
    }

    /// Published works made with `model_id` (with its version `version`
    /// when given), newest first, as `viewer` may see them. The caller has
    /// checked that the viewer may see the model.
    pub async fn model_works(
        &self,
        viewer: Option<&str>,
        model_id: &str,
        version: Option<&str>,
        req: &FeedRequest,
    ) -> Result<FeedPage, ApiError> {
        self.ready().await;
        let n = req.size();
        let mut before = match Cursor::parse(req.cursor.as_deref())? {
            Some(Cursor::Time { ms, id, .. }) => Some((ms, id)),
            Some(Cursor::Ranked { .. }) => {
                return Err(ApiError::with_msg(
                    ErrorCode::InvalidParams,
                    "the cursor is not valid",
                ))
            }
            None => None,
        };
        let follows: HashSet<String> = match viewer {
            Some(v) => self.follows_of(v).await?,
            None => HashSet::new(),
        };
        let view = self.nsfw_view(viewer, req.nsfw_mode).await?;
        let mut ids: Vec<Arc<str>> = Vec::new();
        let mut last: Option<(i64, String)> = None;
        let mut scanned = 0usize;
        let next = 'pages: loop {
            let (rows, more) = self
                .inner
                .t
                .model_works
                .page(model_id, version, before.clone(), CHUNK)
                .await?;
            {
                let ix = self
                    .inner
                    .index
                    .read()
                    .map_err(|_| ApiError::internal("feed index poisoned"))?;
                for w in &rows {
                    scanned += 1;
                    let Some(e) = ix.get(&w.work_id) else {
                        continue;
                    };
                    if !ix.visible(e, viewer, follows.contains(&*e.author)) || !view.keeps(e) {
                        continue;
                    }
                    if ids.len() == n {
                        break 'pages last;
                    }
                    ids.push(e.id.clone());
                    last = Some((w.published_at, w.work_id.clone()));
                }
            }
            match rows.last() {
                Some(r) if more => {
                    before = Some((r.published_at, r.work_id.clone()));
                    if scanned >= MAX_SCANNED {
                        break 'pages before;
                    }
                }
                _ => break 'pages None,
            }
        };
        Ok(FeedPage {
            items: self.cards(&ids, viewer).await?,
            next_cursor: next.map(|(ms, id)| Cursor::Time { anchor: 0, ms, id }.encode()),
        })
    }
}
