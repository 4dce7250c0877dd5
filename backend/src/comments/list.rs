//! Reading comments: `comment2/list` (an object's top-level comments, each
//! with its reply count and first replies) and `replies-list` (a thread's
//! replies, oldest first), and the views they answer.
//!
//! Orders and paging (cursors in `cursor.rs`):
//! - `new`: the object's index by `(create_at, id)`, newest first; the
//!   cursor is the last key handed out.
//! - `top`: most likes first, then newest. Like counts move while someone
//!   pages, so the first page ranks the object's [`MAX_RANKED`] newest
//!   top-level comments once and stores that order as a snapshot
//!   (`comment_top_snapshots`, named by a hash of the order, so readers who
//!   see the same order share it; pageable for at least half of
//!   [`SNAPSHOT_TTL_MS`]); later pages read
//!   the snapshot by position, skipping comments deleted since. When the
//!   object has more top-level comments than that, the older ones follow
//!   the ranked ones, newest first, from the oldest ranked one's key.
//!   Comments written after the first page are not in that listing (a new
//!   listing shows them); none repeats and none is skipped.
//! - replies: the thread's index, oldest first; new replies come last.

use std::collections::BTreeMap;

use futures_util::stream::{self, StreamExt, TryStreamExt};
use infra::store::{Key, PagingState, ScanRange};
use protocol::square::card::CardAuthor;
use protocol::square::comment::{CommentOrder, CommentPage, CommentView, ListCommentsRequest};
use protocol::ErrorCode;
use sha2::{Digest, Sha256};

use super::cursor::{read_time_key, time_key, Cursor};
use super::rows::{snapshots_by_time_pk, target_pk, CommentRow, TopSnapshotRow, LIKES, REPLIES};
use super::{not_found, plausible_id, CommentService, CommentTarget};
use crate::accounts::now_millis;
use crate::error::ApiError;

/// Page size when the request names none, and the most one page may hold.
const DEFAULT_PAGE: u32 = 20;
const MAX_PAGE: u32 = 50;
/// Replies shown under each top-level comment in a list.
pub const PREVIEW_REPLIES: u32 = 3;
/// Top-level comments one `top` snapshot ranks.
pub const MAX_RANKED: usize = 1000;
/// How long a `top` listing's snapshot can be paged.
pub const SNAPSHOT_TTL_MS: i64 = 60 * 60 * 1000;
/// Expired snapshots removed per snapshot written.
const PRUNE_BATCH: u32 = 32;
/// Concurrent store reads while building a page.
const READ_CONCURRENCY: usize = 16;

fn bad_cursor() -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, "the cursor is not valid")
}

fn expired_cursor() -> ApiError {
    ApiError::with_msg(
        ErrorCode::InvalidParams,
        "the list has expired; load it again",
    )
}

fn page_size(req: &ListCommentsRequest) -> usize {
    req.page_size.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE) as usize
}

/// What a view needs of a comment besides its row.
struct Loaded {
    row: CommentRow,
    likes: i64,
    liked: bool,
    reply_count: i64,
    replies: Vec<Loaded>,
}

impl CommentService {
    /// `comment2/list`: the object's top-level comments in `new` or `top` order.
    #[tracing::instrument(skip(self, req), fields(obj_type = req.obj_type, obj_id = %req.obj_id))]
    pub async fn list(
        &self,
        viewer: Option<&str>,
        req: &ListCommentsRequest,
    ) -> Result<CommentPage, ApiError> {
        if req.obj_id.is_empty() {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "obj_id is needed",
            ));
        }
        if !plausible_id(&req.obj_id) {
            return Err(not_found());
        }
        let target = self
            .targets
            .resolve(viewer, req.obj_type, &req.obj_id)
            .await?;
        let n = page_size(req);
        let cursor = match req.cursor.as_deref().filter(|c| !c.is_empty()) {
            Some(c) => Some(Cursor::parse(c).ok_or_else(bad_cursor)?),
            None => None,
        };
        let tpk = target_pk(req.obj_type, &req.obj_id);
        let (ids, next) = match (cursor, req.order.unwrap_or_default()) {
            (Some(Cursor::Time(after)), _) => self.newest_first(&tpk, Some(after), n).await?,
            (None, CommentOrder::New) => self.newest_first(&tpk, None, n).await?,
            (None, CommentOrder::Top) => self.top_first_page(req, n).await?,
            (Some(Cursor::Top { snapshot, offset }), _) => {
                self.top_page(req, &snapshot, offset, n).await?
            }
        };
        let rows = self.rows(&ids).await?;
        let items = self.views(viewer, &target, rows, true).await?;
        Ok(CommentPage {
            items,
            next_cursor: next.map(|c| c.encode()),
            total: self.total(req.obj_type, &req.obj_id).await?,
        })
    }

    /// `comment2/replies-list`: a thread's replies, oldest first. The thread
    /// of a reply is its top-level comment's. `total` is the thread's reply count.
    #[tracing::instrument(skip(self, req))]
    pub async fn replies_list(
        &self,
        viewer: Option<&str>,
        req: &ListCommentsRequest,
    ) -> Result<CommentPage, ApiError> {
        let pid = req
            .parent_id
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "parent_id is needed"))?;
        let (mut parent, target) = self.visible(viewer, pid).await?;
        if let Some(top) = parent.parent_id.clone() {
            parent = self.row(&top).await?.ok_or_else(not_found)?;
        }
        let n = page_size(req);
        let after = match req.cursor.as_deref().filter(|c| !c.is_empty()) {
            Some(c) => match Cursor::parse(c) {
                Some(Cursor::Time(k)) => Some(k),
                _ => return Err(bad_cursor()),
            },
            None => None,
        };
        let pk = Key::of(&parent.id);
        let mut range = ScanRange::all(n as u32 + 1);
        range.paging = after.map(|k| PagingState(k.into_bytes()));
        let page = self.replies.scan(&pk, &range).await?;
        let (ids, next) = take_page(page.rows.into_iter().map(|(k, ())| k), n);
        let rows = self.rows(&ids).await?;
        let items = self.views(viewer, &target, rows, false).await?;
        Ok(CommentPage {
            items,
            next_cursor: next.map(|c| c.encode()),
            total: self.counts.get(&pk, &Key::of(REPLIES)).await?,
        })
    }

    /// One page of an object's top-level comments, newest first, after `after`.
    async fn newest_first(
        &self,
        tpk: &Key,
        after: Option<Key>,
        n: usize,
    ) -> Result<(Vec<String>, Option<Cursor>), ApiError> {
        let mut range = ScanRange::all(n as u32 + 1).desc();
        range.paging = after.map(|k| PagingState(k.into_bytes()));
        let page = self.by_target.scan(tpk, &range).await?;
        Ok(take_page(page.rows.into_iter().map(|(k, ())| k), n))
    }

    /// The first page of `top`: ranks the newest [`MAX_RANKED`] top-level
    /// comments and, when they fill more than a page, stores the ranking.
    async fn top_first_page(
        &self,
        req: &ListCommentsRequest,
        n: usize,
    ) -> Result<(Vec<String>, Option<Cursor>), ApiError> {
        let tpk = target_pk(req.obj_type, &req.obj_id);
        let mut keys: Vec<(i64, String, Key)> = Vec::new();
        let mut paging = None;
        let mut more = false;
        let max = self.max_ranked;
        loop {
            let want = (max + 1 - keys.len()).min(500) as u32;
            let page = self
                .by_target
                .scan(&tpk, &ScanRange::all(want).desc().after(paging))
                .await?;
            for (k, ()) in page.rows {
                if keys.len() == max {
                    more = true;
                    break;
                }
                if let Some((at, id)) = read_time_key(&k) {
                    keys.push((at, id, k));
                }
            }
            match (more, page.paging, keys.last()) {
                (false, Some(_), Some((_, _, k))) => {
                    paging = Some(PagingState(k.as_bytes().to_vec()))
                }
                _ => break,
            }
        }
        let likes: Vec<i64> = stream::iter(keys.iter())
            .map(|(_, id, _)| async move { self.counts.get(&Key::of(id), &Key::of(LIKES)).await })
            .buffered(READ_CONCURRENCY)
            .try_collect()
            .await?;
        let older_than = if more {
            keys.last().map(|(_, _, k)| k.as_bytes().to_vec())
        } else {
            None
        };
        let ids = rank(
            keys.into_iter()
                .zip(likes)
                .map(|((at, id, _), l)| (l, at, id))
                .collect(),
        );
        if ids.len() <= n {
            return Ok((ids, older_than.map(|k| Cursor::Time(Key::from_bytes(k)))));
        }
        let snapshot = self.store_snapshot(req, ids.clone(), older_than).await?;
        let first = ids.into_iter().take(n).collect();
        Ok((
            first,
            Some(Cursor::Top {
                snapshot,
                offset: n,
            }),
        ))
    }

    /// Stores a ranking as a snapshot and answers its id. The id is a hash
    /// of the ranking, so first pages that rank the same way share one
    /// snapshot: reading `top` again and again writes nothing until likes or
    /// comments change the order (a write only when the snapshot is missing
    /// or older than half its life, which renews it).
    async fn store_snapshot(
        &self,
        req: &ListCommentsRequest,
        ids: Vec<String>,
        older_than: Option<Vec<u8>>,
    ) -> Result<String, ApiError> {
        let now = now_millis();
        let id = snapshot_id(req.obj_type, &req.obj_id, &ids, older_than.as_deref());
        let pk = Key::of(&id);
        if let Some(s) = self.snapshots.get(&pk, &Key::empty()).await? {
            if now - s.create_at < SNAPSHOT_TTL_MS / 2 {
                return Ok(id);
            }
        }
        self.prune_snapshots(now).await?;
        let row = TopSnapshotRow {
            obj_type: req.obj_type,
            obj_id: req.obj_id.clone(),
            create_at: now,
            ids,
            older_than,
        };
        self.snapshots.put(&pk, &Key::empty(), &row).await?;
        self.snapshots_by_time
            .put(&snapshots_by_time_pk(), &time_key(now, &id), &())
            .await?;
        Ok(id)
    }

    /// Removes up to [`PRUNE_BATCH`] expired age entries, oldest first, and
    /// their snapshots unless renewed since.
    async fn prune_snapshots(&self, now: i64) -> Result<(), ApiError> {
        let pk = snapshots_by_time_pk();
        let range = ScanRange {
            from: std::ops::Bound::Unbounded,
            to: std::ops::Bound::Excluded(Key::empty().i64(now - SNAPSHOT_TTL_MS)),
            order: infra::store::Order::Asc,
            limit: PRUNE_BATCH,
            paging: None,
        };
        for (k, ()) in self.snapshots_by_time.scan(&pk, &range).await?.rows {
            if let Some((at, id)) = read_time_key(&k) {
                let spk = Key::of(&id);
                let renewed = self
                    .snapshots
                    .get(&spk, &Key::empty())
                    .await?
                    .is_some_and(|s| s.create_at > at);
                if !renewed {
                    self.snapshots.delete(&spk, &Key::empty()).await?;
                }
            }
            self.snapshots_by_time.delete(&pk, &k).await?;
        }
        Ok(())
    }

    /// A later page of `top`: the snapshot's ids from `offset`, skipping
    /// comments deleted since, then the older unranked comments.
    async fn top_page(
        &self,
        req: &ListCommentsRequest,
        snapshot: &str,
        offset: usize,
        n: usize,
    ) -> Result<(Vec<String>, Option<Cursor>), ApiError> {
        let snap = self
            .snapshots
            .get(&Key::of(snapshot), &Key::empty())
            .await?
            .filter(|s| now_millis() - s.create_at < SNAPSHOT_TTL_MS)
            .ok_or_else(expired_cursor)?;
        if snap.obj_type != req.obj_type || snap.obj_id != req.obj_id {
            return Err(bad_cursor());
        }
        let ids: Vec<String> = snap.ids.iter().skip(offset).take(n).cloned().collect();
        let end = offset.saturating_add(ids.len());
        let next = if end < snap.ids.len() {
            Some(Cursor::Top {
                snapshot: snapshot.to_owned(),
                offset: end,
            })
        } else {
            snap.older_than.map(|k| Cursor::Time(Key::from_bytes(k)))
        };
        Ok((ids, next))
    }

    /// Rows of `ids` in order; comments deleted meanwhile are left out.
    async fn rows(&self, ids: &[String]) -> Result<Vec<CommentRow>, ApiError> {
        let rows: Vec<Option<CommentRow>> = stream::iter(ids.iter())
            .map(|id| self.row(id))
            .buffered(READ_CONCURRENCY)
            .try_collect()
            .await?;
        Ok(rows.into_iter().flatten().collect())
    }

    /// Counts and the viewer's like of one comment; with `preview`, its
    /// reply count and first replies too.
    async fn load(
        &self,
        viewer: Option<&str>,
        row: CommentRow,
        preview: bool,
    ) -> Result<Loaded, ApiError> {
        let pk = Key::of(&row.id);
        let likes = self.counts.get(&pk, &Key::of(LIKES)).await?;
        let liked = match viewer {
            Some(v) => self.likers.get(&pk, &Key::of(v)).await?.is_some(),
            None => false,
        };
        let mut loaded = Loaded {
            row,
            likes,
            liked,
            reply_count: 0,
            replies: Vec::new(),
        };
        if preview && loaded.row.parent_id.is_none() {
            loaded.reply_count = self.counts.get(&pk, &Key::of(REPLIES)).await?;
            if loaded.reply_count > 0 {
                let page = self
                    .replies
                    .scan(&pk, &ScanRange::all(PREVIEW_REPLIES))
                    .await?;
                let ids: Vec<String> = page
                    .rows
                    .iter()
                    .filter_map(|(k, ())| read_time_key(k).map(|(_, id)| id))
                    .collect();
                for r in self.rows(&ids).await? {
                    loaded
                        .replies
                        .push(Box::pin(self.load(viewer, r, false)).await?);
                }
            }
        }
        Ok(loaded)
    }

    /// The views of `rows` for `viewer`, with authors' names read once each.
    async fn views(
        &self,
        viewer: Option<&str>,
        target: &CommentTarget,
        rows: Vec<CommentRow>,
        preview: bool,
    ) -> Result<Vec<CommentView>, ApiError> {
        let loaded: Vec<Loaded> = stream::iter(rows)
            .map(|r| self.load(viewer, r, preview))
            .buffered(READ_CONCURRENCY)
            .try_collect()
            .await?;
        // Comments a moderator hid show to their authors only.
        let mut kept = Vec::with_capacity(loaded.len());
        for mut l in loaded {
            if self.hidden_from(viewer, &l.row).await? {
                continue;
            }
            let mut replies = Vec::with_capacity(l.replies.len());
            for r in l.replies {
                if !self.hidden_from(viewer, &r.row).await? {
                    replies.push(r);
                }
            }
            l.replies = replies;
            kept.push(l);
        }
        let loaded = kept;
        let mut names: BTreeMap<String, CardAuthor> = BTreeMap::new();
        let mut banned: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for l in loaded
            .iter()
            .flat_map(|l| std::iter::once(l).chain(l.replies.iter()))
        {
            for id in std::iter::once(&l.row.author).chain(l.row.reply_to.iter()) {
                if !names.contains_key(id) {
                    let (author, is_banned) = self.author(id).await?;
                    if is_banned {
                        banned.insert(id.clone());
                    }
                    names.insert(id.clone(), author);
                }
            }
        }
        // A banned account's comments (and replies) are not shown.
        Ok(loaded
            .into_iter()
            .filter(|l| !banned.contains(&l.row.author))
            .map(|mut l| {
                l.replies.retain(|r| !banned.contains(&r.row.author));
                view(l, viewer, target, &names)
            })
            .collect())
    }

    async fn hidden_from(&self, viewer: Option<&str>, row: &CommentRow) -> Result<bool, ApiError> {
        crate::moderation::ModerationService::hidden_from(
            &self.mod_states,
            protocol::moderation::ObjKind::Comment,
            &row.id,
            &row.author,
            viewer,
        )
        .await
    }

    /// An author as cards show them (a deleted account: its id, no name),
    /// and whether the account is banned.
    async fn author(&self, id: &str) -> Result<(CardAuthor, bool), ApiError> {
        let row = self.accounts.get(&Key::of(id), &Key::empty()).await?;
        let banned = row
            .as_ref()
            .is_some_and(|a| a.status == protocol::account::status::DISABLED);
        let ornament = match &self.decor {
            Some(d) => d.avatar_url(id).await,
            None => None,
        };
        Ok((
            CardAuthor {
                id: id.to_owned(),
                name: row.map(|a| a.name).unwrap_or_default(),
                avatar: None,
                ornament,
            },
            banned,
        ))
    }
}

fn author_of(names: &BTreeMap<String, CardAuthor>, id: &str) -> CardAuthor {
    names.get(id).cloned().unwrap_or_else(|| CardAuthor {
        id: id.to_owned(),
        ..CardAuthor::default()
    })
}

fn view(
    l: Loaded,
    viewer: Option<&str>,
    target: &CommentTarget,
    names: &BTreeMap<String, CardAuthor>,
) -> CommentView {
    let r = l.row;
    let can_delete = viewer.is_some_and(|v| v == r.author || v == target.owner);
    CommentView {
        author: author_of(names, &r.author),
        reply_to: r.reply_to.as_deref().map(|id| author_of(names, id)),
        replies: l
            .replies
            .into_iter()
            .map(|x| view(x, viewer, target, names))
            .collect(),
        id: r.id,
        obj_id: r.obj_id,
        obj_type: r.obj_type,
        content: r.content,
        like_count: l.likes,
        liked: l.liked,
        parent_id: r.parent_id,
        reply_count: l.reply_count,
        can_delete,
        create_at: r.create_at,
    }
}

/// The ids of up to `n` index keys, and the cursor after the n-th when
/// there were more (`keys` holds at most n + 1).
fn take_page(keys: impl Iterator<Item = Key>, n: usize) -> (Vec<String>, Option<Cursor>) {
    let mut ids = Vec::with_capacity(n);
    let mut last = None;
    let mut more = false;
    for k in keys {
        if ids.len() == n {
            more = true;
            break;
        }
        if let Some((_, id)) = read_time_key(&k) {
            ids.push(id);
        }
        last = Some(k);
    }
    (ids, last.filter(|_| more).map(Cursor::Time))
}

/// A snapshot's id: the hex of the first 16 bytes of a SHA-256 over the
/// object and the ranking (components length-prefixed, so none runs into
/// the next).
fn snapshot_id(obj_type: u8, obj_id: &str, ids: &[String], older_than: Option<&[u8]>) -> String {
    let mut h = Sha256::new();
    let mut part = |b: &[u8]| {
        h.update((b.len() as u64).to_be_bytes());
        h.update(b);
    };
    part(&[obj_type]);
    part(obj_id.as_bytes());
    for id in ids {
        part(id.as_bytes());
    }
    part(older_than.unwrap_or_default());
    hex::encode(h.finalize().get(..16).unwrap_or_default())
}

/// `top` order: most likes first, then newest, then by id (a total order,
/// so the same counts always rank the same way).
fn rank(mut entries: Vec<(i64, i64, String)>) -> Vec<String> {
    entries.sort_by(|a, b| b.cmp(a));
    entries.into_iter().map(|(_, _, id)| id).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn snapshot_ids_name_the_object_and_the_order() {
        let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let a = snapshot_id(9, "c1", &ids(&["x", "y"]), None);
        assert_eq!(a.len(), 32);
        assert_eq!(a, snapshot_id(9, "c1", &ids(&["x", "y"]), None));
        assert_ne!(a, snapshot_id(9, "c1", &ids(&["y", "x"]), None));
        assert_ne!(a, snapshot_id(4, "c1", &ids(&["x", "y"]), None));
        assert_ne!(a, snapshot_id(9, "c1", &ids(&["xy"]), None));
        assert_ne!(a, snapshot_id(9, "c1", &ids(&["x", "y"]), Some(&[1])));
        assert!(Cursor::parse(&format!("t.{a}.3")).is_some());
    }

    #[test]
    fn ranks_by_likes_then_newest() {
        let ids = rank(vec![
            (1, 100, "a".into()),
            (5, 50, "b".into()),
            (1, 200, "c".into()),
            (5, 50, "d".into()),
            (0, 300, "e".into()),
        ]);
        assert_eq!(ids, ["d", "b", "c", "a", "e"]);
    }

    #[test]
    fn pages_keys_with_a_cursor_only_when_more_follow() {
        let keys = |n: i64| (0..n).map(|i| time_key(i, &format!("id{i}")));
        let (ids, next) = take_page(keys(3), 2);
        assert_eq!(ids, ["id0", "id1"]);
        assert_eq!(next, Some(Cursor::Time(time_key(1, "id1"))));
        let (ids, next) = take_page(keys(2), 2);
        assert_eq!(ids, ["id0", "id1"]);
        assert_eq!(next, None);
        let (ids, next) = take_page(keys(0), 2);
        assert!(ids.is_empty());
        assert_eq!(next, None);
    }
}
