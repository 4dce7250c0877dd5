//! One run of a document job: parse (PDF page by page, with progress),
//! chunk, then make the datacards one by one, recording each step in the
//! job row. A run continues from the row's `cards_made`, and a card's id is
//! `{job}-{part:04}`, created only if absent, so a run after a crash never
//! makes a card twice. The whole job, waiting included, must end within
//! the job timeout counted from its creation.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use infra::store::Key;
use protocol::character::DatacardCreate;
use protocol::rag::{chunk, Block, ChunkRules, DocKind, RagErrorView, RagState};
use protocol::ErrorCode;

use super::parse::{self, ParseError};
use super::{RagJobRow, RagService, OPEN};
use crate::accounts::now_millis;
use crate::error::{object_key, ApiError};

fn parse_error(e: ParseError) -> ApiError {
    ApiError::with_msg(e.code(), e.to_string())
}

/// Whether a failure is the store's or the server's (the job is left for
/// the sweeper) rather than the document's (the job fails).
fn is_transient(e: &ApiError) -> bool {
    matches!(e.code, ErrorCode::Internal | ErrorCode::Unavailable)
}

impl RagService {
    /// Changes the job row (stamping `update_at`); `None` when it is gone.
    async fn change(
        &self,
        id: &str,
        mut f: impl FnMut(&mut RagJobRow),
    ) -> Result<Option<RagJobRow>, ApiError> {
        Ok(self
            .inner
            .jobs
            .update(&Key::of(id), &Key::empty(), None, |r| {
                f(r);
                r.update_at = now_millis().max(r.update_at);
            })
            .await?)
    }

    /// Runs the job within what is left of its time.
    pub(crate) async fn run(&self, id: &str) {
        let Ok(Some(row)) = self.job_row(id).await else {
            return;
        };
        if row.state.is_final() {
            return;
        }
        let limit = i64::try_from(self.inner.settings.job_timeout.as_millis()).unwrap_or(i64::MAX);
        let left = limit.saturating_sub(now_millis().saturating_sub(row.create_at));
        let left = Duration::from_millis(u64::try_from(left).unwrap_or(0));
        let work = async {
            let _permit = self
                .inner
                .permits
                .acquire()
                .await
                .map_err(ApiError::internal)?;
            self.work(id).await
        };
        let outcome = match tokio::time::timeout(left, work).await {
            Ok(r) => r,
            Err(_) => Err(ApiError::with_msg(
                ErrorCode::RagJobInterrupted,
                format!(
                    "reading the document did not finish within {} s",
                    self.inner.settings.job_timeout.as_secs()
                ),
            )),
        };
        match outcome {
            Ok(()) => {}
            Err(e) if is_transient(&e) => {
                tracing::warn!(job = %id, code = ?e.code, "rag: run stopped; the sweeper will resume it");
            }
            Err(e) => {
                let msg = e.msg.clone().unwrap_or_else(|| e.code.default_msg().into());
                if let Err(e) = self.fail(id, e.code, &msg).await {
                    tracing::warn!(job = %id, code = ?e.code, "rag: recording a failure failed");
                }
            }
        }
    }

    /// Ends the job as failed (unless it already ended) and publishes it.
    pub(crate) async fn fail(&self, id: &str, code: ErrorCode, msg: &str) -> Result<(), ApiError> {
        let Some(row) = self
            .change(id, |r| {
                if !r.state.is_final() {
                    r.state = RagState::Failed;
                    r.error = Some(RagErrorView {
                        code: code.code(),
                        key: code.key().to_owned(),
                        msg: msg.to_owned(),
                    });
                }
            })
            .await?
        else {
            return Ok(());
        };
        tracing::info!(job = %id, code = code.code(), msg, "rag: job failed");
        self.ended(&row).await?;
        Ok(())
    }

    /// Cleans up after a job ended: out of the open index, source deleted.
    async fn ended(&self, row: &RagJobRow) -> Result<(), ApiError> {
        self.inner
            .open
            .delete(&Key::of(OPEN), &row.open_ck())
            .await?;
        if let Ok(k) = object_key(&row.source_key) {
            if let Err(e) = self.inner.objects.delete(&k).await {
                tracing::warn!(job = %row.id, error = %e, "rag: deleting the source failed");
            }
        }
        self.publish(row).await;
        Ok(())
    }

    async fn work(&self, id: &str) -> Result<(), ApiError> {
        let Some(row) = self
            .change(id, |r| {
                if !r.state.is_final() {
                    r.attempts = r.attempts.saturating_add(1);
                    r.state = RagState::Parsing;
                    r.percent = r.percent.max(5);
                }
            })
            .await?
        else {
            return Ok(());
        };
        if row.state.is_final() {
            return Ok(());
        }
        self.publish(&row).await;
        let stored = self
            .inner
            .objects
            .get(&object_key(&row.source_key)?)
            .await
            .map_err(ApiError::internal)?
            .ok_or_else(|| {
                ApiError::with_msg(
                    ErrorCode::RagJobInterrupted,
                    "the document is no longer stored",
                )
            })?;
        let bytes = stored.bytes;
        let kind = parse::sniff(&bytes, &row.file_name).map_err(parse_error)?;
        let blocks = self.parse(id, bytes, kind).await?;

        let Some(row) = self
            .change(id, |r| {
                r.kind = Some(kind);
                r.state = RagState::Chunking;
                r.percent = r.percent.max(55);
            })
            .await?
        else {
            return Ok(());
        };
        self.publish(&row).await;
        let chunked = tokio::task::spawn_blocking(move || chunk(&blocks, &ChunkRules::default()))
            .await
            .map_err(ApiError::internal)?;
        if chunked.cards.is_empty() {
            return Err(ErrorCode::RagDocumentEmpty.into());
        }
        let total = u32::try_from(chunked.cards.len()).unwrap_or(u32::MAX);
        let Some(mut row) = self
            .change(id, |r| {
                r.state = RagState::Saving;
                r.cards_total = total;
                r.truncated = chunked.truncated;
                r.percent = r.percent.max(60);
            })
            .await?
        else {
            return Ok(());
        };
        self.publish(&row).await;

        let start = usize::try_from(row.cards_made).unwrap_or(usize::MAX);
        let mut published = row.percent;
        for (i, part) in chunked.cards.iter().enumerate().skip(start) {
            let card_id = format!("{id}-{i:04}");
            let mut req = DatacardCreate {
                title: part.title.clone(),
                content: part.content.clone(),
            };
            let allowed = match &self.inner.text_filter {
                Some(f) => f.clean(&mut req).is_ok(),
                None => true,
            };
            if allowed {
                self.inner
                    .characters
                    .create_datacard_keyed(&row.owner, &card_id, &req.title, &req.content)
                    .await?;
                if let Some(c) = &row.character_id {
                    self.inner
                        .character_cards
                        .put(&Key::of(c), &Key::of(&card_id), &row.owner)
                        .await?;
                }
            }
            let done = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let percent = 60 + u8::try_from(39 * (i + 1) / chunked.cards.len()).unwrap_or(39);
            let Some(next) = self
                .change(id, |r| {
                    if r.cards_made < done {
                        r.cards_made = done;
                        if allowed {
                            r.card_ids.push(card_id.clone());
                        } else {
                            r.cards_refused = r.cards_refused.saturating_add(1);
                        }
                    }
                    r.percent = r.percent.max(percent);
                })
                .await?
            else {
                return Ok(());
            };
            row = next;
            if row.percent >= published.saturating_add(5) {
                published = row.percent;
                self.publish(&row).await;
            }
        }
        let Some(row) = self
            .change(id, |r| {
                r.state = RagState::Done;
                r.percent = 100;
            })
            .await?
        else {
            return Ok(());
        };
        tracing::info!(job = %id, cards = row.card_ids.len(), refused = row.cards_refused, "rag: job done");
        self.ended(&row).await
    }

    /// Parses on the blocking pool; a PDF reports its pages into the row's
    /// percent (5 to 50) while it is read.
    async fn parse(&self, id: &str, bytes: Vec<u8>, kind: DocKind) -> Result<Vec<Block>, ApiError> {
        if kind != DocKind::Pdf {
            return tokio::task::spawn_blocking(move || parse::parse(&bytes, kind))
                .await
                .map_err(ApiError::internal)?
                .map_err(parse_error);
        }
        let pages = Arc::new(AtomicUsize::new(0));
        let seen = pages.clone();
        let mut task = tokio::task::spawn_blocking(move || {
            parse::parse_pdf(&bytes, &mut |done, total| {
                seen.store(done * 100 / total.max(1), Ordering::Relaxed);
            })
        });
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        let mut shown = 0usize;
        loop {
            tokio::select! {
                r = &mut task => {
                    return r.map_err(ApiError::internal)?.map_err(parse_error);
                }
                _ = tick.tick() => {
                    let p = pages.load(Ordering::Relaxed);
                    if p >= shown + 5 {
                        shown = p;
                        let percent = 5 + u8::try_from(45 * p / 100).unwrap_or(45);
                        if let Some(row) = self.change(id, |r| r.percent = r.percent.max(percent)).await? {
                            self.publish(&row).await;
                        }
                    }
                }
            }
        }
    }
}
