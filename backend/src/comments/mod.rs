//! Comments (spec 3 §7 Comments; issue 15 item 4): writing, liking and
//! deleting comments on any object that has a [`CommentTargets`]
//! implementation (works, characters, later models), threaded one level
//! deep, listed newest or most liked first (`list.rs`), with the emoji
//! shortcode table (`emoji.rs`).
//!
//! The service knows nothing of what it comments on: every call first asks
//! [`CommentTargets::resolve`] whether the viewer may see the object, so a
//! private work's comments are hidden exactly as the work is (NotFound).
//! Rows never change once written; counts live in counter tables; a
//! deletion removes the row by compare-and-set, so it is counted once
//! whoever else deletes at the same time.

mod cursor;
pub mod emoji;
mod list;
pub mod rows;
pub mod targets;
#[cfg(test)]
mod tests;
pub mod text;

use std::sync::Arc;
use std::time::Duration;

use infra::store::{tables, Counters, DynStore, Key, PagingState, ScanRange, Table};
use protocol::square::comment::{CommentLikeAnswer, CreateCommentRequest};
use protocol::ErrorCode;

use self::cursor::time_key;
use self::rows::{target_pk, CommentRow, TopSnapshotRow, LIKES, REPLIES, TOTAL};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::ratelimit::{RateLimiter, RateLimits};

/// What the comments service needs to know of the objects it comments on.
#[async_trait::async_trait]
pub trait CommentTargets: Send + Sync + 'static {
    /// The object as the viewer may see it: its owner's account id and a title; NotFound (ApiError) when it does not exist or the viewer may not see it (private, followers-only, deleted, banned).
    async fn resolve(
        &self,
        viewer: Option<&str>,
        obj_type: u8,
        obj_id: &str,
    ) -> Result<CommentTarget, ApiError>;
    /// The object's comment count changed by `delta` (the square keeps it on the work's counters).
    async fn count_changed(&self, obj_type: u8, obj_id: &str, delta: i64);
    /// Tell `to` that `actor` commented (or replied: `reply == true`) with `text` on the object. Not called when actor == to.
    async fn notify(
        &self,
        to: &str,
        actor: &str,
        obj_type: u8,
        obj_id: &str,
        text: &str,
        reply: bool,
    );
}

/// An object comments are on, as [`CommentTargets::resolve`] answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentTarget {
    pub owner: String,
    pub title: String,
}

/// Longest text handed to [`CommentTargets::notify`].
const NOTIFY_PREVIEW_CHARS: usize = 120;
/// Replies deleted per store page when their top-level comment goes.
const DELETE_PAGE: u32 = 200;

fn new_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

/// Ids this service writes are short ASCII; anything else cannot exist.
fn plausible_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64
}

fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound)
}

#[derive(Clone)]
pub struct CommentService {
    store: DynStore,
    comments: Table<CommentRow>,
    /// pk (obj_type, obj_id) · ck (create_at, id): top-level comments.
    by_target: Table<()>,
    /// pk top-level id · ck (create_at, id): its replies.
    replies: Table<()>,
    /// pk comment id · ck account id → liked at (ms).
    likers: Table<i64>,
    /// pk comment id · ck likes | replies.
    counts: Counters,
    /// pk (obj_type, obj_id) · ck total.
    target_counts: Counters,
    snapshots: Table<TopSnapshotRow>,
    snapshots_by_time: Table<()>,
    accounts: Table<AccountRow>,
    targets: Arc<dyn CommentTargets>,
    /// Comments written per account per minute.
    limit: Arc<RateLimiter>,
    /// The square's shared per-account write limit (likes, comments,
    /// publishes), when the square hands one over.
    writes: Option<Arc<RateLimiter>>,
    /// Top-level comments a `top` listing ranks ([`list::MAX_RANKED`]; less in tests).
    max_ranked: usize,
    /// The ornament shop's view: the avatar ornaments authors wear.
    decor: Option<crate::ornaments::Decor>,
    /// Comments moderators hid (`crate::moderation`).
    mod_states: Table<crate::moderation::rows::ModStateRow>,
}

impl CommentService {
    /// `comments_per_min`: comments and replies one account may write per
    /// minute, counted where `limits` counts (see `crate::ratelimit`).
    pub fn new(
        store: DynStore,
        targets: Arc<dyn CommentTargets>,
        comments_per_min: u32,
        limits: &RateLimits,
    ) -> CommentService {
        CommentService {
            store: store.clone(),
            comments: Table::new(store.clone(), &tables::COMMENTS),
            by_target: Table::new(store.clone(), &tables::COMMENTS_BY_TARGET),
            replies: Table::new(store.clone(), &tables::COMMENT_REPLIES),
            likers: Table::new(store.clone(), &tables::COMMENT_LIKERS),
            counts: Counters::new(store.clone(), &tables::COMMENT_COUNTS),
            target_counts: Counters::new(store.clone(), &tables::COMMENT_TARGET_COUNTS),
            snapshots: Table::new(store.clone(), &tables::COMMENT_TOP_SNAPSHOTS),
            snapshots_by_time: Table::new(store.clone(), &tables::COMMENT_TOP_SNAPSHOTS_BY_TIME),
            accounts: Table::new(store.clone(), &tables::ACCOUNTS),
            mod_states: Table::new(store, &tables::MOD_STATES),
            targets,
            limit: Arc::new(limits.limiter("comments", comments_per_min, Duration::from_secs(60))),
            writes: None,
            max_ranked: list::MAX_RANKED,
            decor: None,
        }
    }

    /// Shows the avatar ornaments authors wear.
    pub fn with_decor(mut self, decor: crate::ornaments::Decor) -> CommentService {
        self.decor = Some(decor);
        self
    }

    /// Counts comment writes and likes against the square's shared
    /// per-account write limit too.
    pub fn with_write_limit(mut self, writes: Arc<RateLimiter>) -> CommentService {
        self.writes = Some(writes);
        self
    }

    /// Comments and replies on an object (what its card shows).
    pub async fn total(&self, obj_type: u8, obj_id: &str) -> Result<i64, ApiError> {
        Ok(self
            .target_counts
            .get(&target_pk(obj_type, obj_id), &Key::of(TOTAL))
            .await?)
    }

    pub(crate) async fn row(&self, id: &str) -> Result<Option<CommentRow>, ApiError> {
        if !plausible_id(id) {
            return Ok(None);
        }
        Ok(self.comments.get(&Key::of(id), &Key::empty()).await?)
    }

    /// A comment and its object as `viewer` may see them, else NotFound.
    pub(crate) async fn visible(
        &self,
        viewer: Option<&str>,
        id: &str,
    ) -> Result<(CommentRow, CommentTarget), ApiError> {
        let row = self.row(id).await?.ok_or_else(not_found)?;
        let target = self
            .targets
            .resolve(viewer, row.obj_type, &row.obj_id)
            .await?;
        Ok((row, target))
    }

    /// Counts one write by `account`: a comment (`comment`) against the
    /// comment limit, and any write against the square's shared limit.
    async fn check_limits(&self, account: &str, comment: bool) -> Result<(), ApiError> {
        let ok = (!comment || self.limit.check(account).await)
            && match &self.writes {
                Some(w) => w.check(account).await,
                None => true,
            };
        if !ok {
            return Err(ApiError::with_msg(
                ErrorCode::TooManyRequests,
                "too many comments and likes in a minute; try again shortly",
            ));
        }
        Ok(())
    }

    /// `comment2/create` (and `add`, `add-replies`): writes a comment, or a
    /// reply when `parent_id` is set; answers its id. A reply to a reply
    /// goes under the same top-level comment and remembers whom it answers.
    #[tracing::instrument(skip(self, req), fields(obj_type = req.obj_type, obj_id = %req.obj_id))]
    pub async fn create(
        &self,
        author: &str,
        req: &CreateCommentRequest,
    ) -> Result<String, ApiError> {
        let content = text::clean_comment(&req.content)?;
        let scene = text::clean_label("scene", req.scene.as_deref(), text::MAX_SCENE_CHARS)?;
        let source = text::clean_label("source", req.source.as_deref(), text::MAX_SOURCE_CHARS)?;
        let parent_id = req
            .parent_id
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty());
        // The thread: the top-level comment, and whom a reply to a reply answers.
        let (obj_type, obj_id, parent) = match parent_id {
            Some(pid) => {
                let parent = self.row(pid).await?.ok_or_else(not_found)?;
                (parent.obj_type, parent.obj_id.clone(), Some(parent))
            }
            None => {
                if req.obj_id.is_empty() {
                    return Err(ApiError::with_msg(
                        ErrorCode::InvalidParams,
                        "obj_id is needed",
                    ));
                }
                if !plausible_id(&req.obj_id) {
                    return Err(not_found());
                }
                (req.obj_type, req.obj_id.clone(), None)
            }
        };
        let target = self
            .targets
            .resolve(Some(author), obj_type, &obj_id)
            .await?;
        // Checked once the parent is known to be visible, so this reveals nothing.
        if parent.is_some()
            && !req.obj_id.is_empty()
            && (req.obj_id != obj_id || req.obj_type != obj_type)
        {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "parent_id is a comment on another object",
            ));
        }
        self.check_limits(author, true).await?;
        let (top_id, reply_to, reply_to_comment) = match &parent {
            None => (None, None, None),
            Some(p) => match &p.parent_id {
                Some(top) => (
                    Some(top.clone()),
                    Some(p.author.clone()),
                    Some(p.id.clone()),
                ),
                None => (Some(p.id.clone()), None, None),
            },
        };
        let row = CommentRow {
            id: new_id(),
            obj_type,
            obj_id: obj_id.clone(),
            author: author.to_owned(),
            content,
            parent_id: top_id.clone(),
            reply_to,
            reply_to_comment,
            scene,
            source,
            create_at: now_millis(),
        };
        let ck = time_key(row.create_at, &row.id);
        self.comments
            .put(&Key::of(&row.id), &Key::empty(), &row)
            .await?;
        // Listed under its author, for the export and the deletion sweep.
        crate::accounts::owned::record(
            &self.store,
            author,
            crate::accounts::owned::OwnedKind::Comment,
            row.create_at,
            &row.id,
            "",
        )
        .await?;
        let tpk = target_pk(obj_type, &obj_id);
        match &top_id {
            None => self.by_target.put(&tpk, &ck, &()).await?,
            Some(top) => {
                self.replies.put(&Key::of(top), &ck, &()).await?;
                self.counts.add(&Key::of(top), &Key::of(REPLIES), 1).await?;
            }
        }
        self.target_counts.add(&tpk, &Key::of(TOTAL), 1).await?;
        // A top-level comment deleted while this reply was being written:
        // its deletion may have listed its replies before this one was
        // indexed, so the reply removes itself (compare-and-set: counted once).
        if let Some(top) = &top_id {
            if self.row(top).await?.is_none() {
                // Removed here: it never counted for the object. Removed by
                // the parent's deletion: that one told the object a count
                // that includes this reply, so the object hears of it here.
                if self.remove(&row).await? == 0 {
                    self.targets.count_changed(obj_type, &obj_id, 1).await;
                }
                return Err(not_found());
            }
        }
        self.targets.count_changed(obj_type, &obj_id, 1).await;
        self.notify_all(&row, &target, parent.as_ref()).await;
        Ok(row.id)
    }

    /// The object's owner hears of a comment; a reply's addressee (the
    /// author of the comment replied to) hears of the reply. Nobody hears of
    /// their own comment, and nobody twice.
    async fn notify_all(
        &self,
        row: &CommentRow,
        target: &CommentTarget,
        parent: Option<&CommentRow>,
    ) {
        let preview = text::preview(&row.content, NOTIFY_PREVIEW_CHARS);
        let addressee = parent.map(|p| p.author.as_str());
        if let Some(to) = addressee.filter(|to| *to != row.author) {
            self.targets
                .notify(to, &row.author, row.obj_type, &row.obj_id, &preview, true)
                .await;
        }
        if target.owner != row.author && Some(target.owner.as_str()) != addressee {
            self.targets
                .notify(
                    &target.owner,
                    &row.author,
                    row.obj_type,
                    &row.obj_id,
                    &preview,
                    false,
                )
                .await;
        }
    }

    /// `comment2/like`: like (`cancel` false) or undo. A second like and an
    /// undo of nothing change nothing; the liker row decides, by
    /// insert-if-absent and compare-and-set, so concurrent calls count once.
    #[tracing::instrument(skip(self))]
    pub async fn like(
        &self,
        viewer: &str,
        id: &str,
        cancel: bool,
    ) -> Result<CommentLikeAnswer, ApiError> {
        let (row, _) = self.visible(Some(viewer), id).await?;
        self.check_limits(viewer, false).await?;
        let pk = Key::of(&row.id);
        let ck = Key::of(viewer);
        if cancel {
            if let Some(at) = self.likers.get(&pk, &ck).await? {
                if self
                    .likers
                    .compare_and_set(&pk, &ck, &at, None)
                    .await?
                    .is_ok()
                {
                    self.counts.add(&pk, &Key::of(LIKES), -1).await?;
                }
            }
        } else if self
            .likers
            .insert_if_absent(&pk, &ck, &now_millis())
            .await?
            .is_ok()
        {
            self.counts.add(&pk, &Key::of(LIKES), 1).await?;
        }
        Ok(CommentLikeAnswer {
            id: row.id,
            liked: !cancel,
            like_count: self.counts.get(&pk, &Key::of(LIKES)).await?,
        })
    }

    /// `comment2/delete`: by the comment's author or the object's owner
    /// (anyone else who can see it: NoPermission). A top-level comment takes
    /// its replies with it. Deleting what is already gone is NotFound.
    #[tracing::instrument(skip(self))]
    pub async fn delete(&self, viewer: &str, id: &str) -> Result<(), ApiError> {
        let (row, target) = self.visible(Some(viewer), id).await?;
        if row.author != viewer && target.owner != viewer {
            return Err(ApiError::with_msg(
                ErrorCode::NoPermission,
                "only its author or the owner of what it is on may delete a comment",
            ));
        }
        let removed = self.remove(&row).await?;
        if removed == 0 {
            return Err(not_found());
        }
        self.targets
            .count_changed(row.obj_type, &row.obj_id, -removed)
            .await;
        Ok(())
    }

    /// Removes a comment (and, for a top-level one, its replies) with its
    /// index entries, likers and counters; answers how many comments this
    /// call removed (0 when another call removed it first).
    async fn remove(&self, row: &CommentRow) -> Result<i64, ApiError> {
        if !self.remove_one(row).await? {
            return Ok(0);
        }
        let tpk = target_pk(row.obj_type, &row.obj_id);
        let ck = time_key(row.create_at, &row.id);
        let mut removed = 1;
        match &row.parent_id {
            Some(top) => {
                self.replies.delete(&Key::of(top), &ck).await?;
                self.counts
                    .add(&Key::of(top), &Key::of(REPLIES), -1)
                    .await?;
            }
            None => {
                self.by_target.delete(&tpk, &ck).await?;
                let rpk = Key::of(&row.id);
                let mut paging = None;
                loop {
                    let page = self
                        .replies
                        .scan(&rpk, &ScanRange::all(DELETE_PAGE).after(paging))
                        .await?;
                    for (k, ()) in &page.rows {
                        let Some((_, rid)) = cursor::read_time_key(k) else {
                            continue;
                        };
                        if let Some(reply) = self.row(&rid).await? {
                            if self.remove_one(&reply).await? {
                                removed += 1;
                            }
                        }
                    }
                    match (page.rows.last(), page.paging) {
                        (Some((k, _)), Some(_)) => {
                            paging = Some(PagingState(k.as_bytes().to_vec()))
                        }
                        _ => break,
                    }
                }
                self.replies.delete_partition(&rpk).await?;
            }
        }
        self.target_counts
            .add(&tpk, &Key::of(TOTAL), -removed)
            .await?;
        Ok(removed)
    }

    /// Deletes one comment row if it is still there (true when this call
    /// did), its likers and its counters.
    async fn remove_one(&self, row: &CommentRow) -> Result<bool, ApiError> {
        let pk = Key::of(&row.id);
        if self
            .comments
            .compare_and_set(&pk, &Key::empty(), row, None)
            .await?
            .is_err()
        {
            return Ok(false);
        }
        self.likers.delete_partition(&pk).await?;
        self.store
            .delete_partition(&tables::COMMENT_COUNTS, &pk)
            .await?;
        Ok(true)
    }
}
