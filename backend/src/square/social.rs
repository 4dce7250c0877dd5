//! Likes, collects, follows and profiles. Each reaction is one row keyed by
//! (object, account), written by insert-if-absent, so a double like counts
//! once however the requests race; its undo deletes the row by
//! compare-and-set, so only one undo takes the count down. Counts live in
//! counter tables and are read without a scan. (A crash between the row and
//! its counter leaves the count one off: known limit.)

use std::ops::Bound;
use std::sync::Arc;

use infra::store::{Key, ScanRange};
use protocol::square::social::{
    AccountCard, AccountPage, FollowAnswer, NotificationKind, Profile, ProfileEdit, ReactionAnswer,
    MAX_BIO_CHARS,
};
use protocol::ErrorCode;

use super::cursor::Cursor;
use super::{count, SquareService};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;

/// Which reaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    Like,
    Collect,
}

impl SquareService {
    /// `artwork/like`, `collect` (`on`) and their `-cancel` (`!on`).
    pub async fn react(
        &self,
        who: &AccountRow,
        id: &str,
        kind: Reaction,
        on: bool,
    ) -> Result<ReactionAnswer, ApiError> {
        let name = match kind {
            Reaction::Like => "likes",
            Reaction::Collect => "collects",
        };
        self.inner.limits.check(&who.id, name).await?;
        let w = self.visible_work(Some(&who.id), id).await?;
        let t = &self.inner.t;
        let (rows, mine, mine_by_time, counter) = match kind {
            Reaction::Like => (&t.work_likes, &t.liked, &t.liked_by_time, count::LIKES),
            Reaction::Collect => (
                &t.work_collects,
                &t.collected,
                &t.collected_by_time,
                count::COLLECTS,
            ),
        };
        let (pk, ck) = (Key::of(id), Key::of(&who.id));
        if on {
            let now = now_millis();
            if rows.insert_if_absent(&pk, &ck, &now).await?.is_ok() {
                // Everything that follows the row goes in one round, so the
                // store commits it together (group commit).
                let (me, work, at) = (Key::of(&who.id), Key::of(id), Key::empty().i64(now).str(id));
                let nk = if kind == Reaction::Like {
                    NotificationKind::Like
                } else {
                    NotificationKind::Collect
                };
                let (a, b, c, d, ()) = tokio::join!(
                    mine.put(&me, &work, &now),
                    mine_by_time.put(&me, &at, &()),
                    self.bump(id, counter, 1),
                    async {
                        if kind == Reaction::Like {
                            self.bump_account(&w.author, count::LIKES_RECEIVED, 1).await
                        } else {
                            Ok(())
                        }
                    },
                    self.notify(
                        &w.author,
                        &who.id,
                        nk,
                        Some((id, protocol::square::ObjType::POST)),
                        &w.title
                    ),
                );
                a?;
                b?;
                c?;
                d?;
                self.announce(Some(id), None).await;
            }
        } else if self.withdraw_reaction(&who.id, id, &w.author, kind).await? {
            self.announce(Some(id), None).await;
        }
        let counts = self.counts(id).await?;
        let (pk, ck) = (Key::of(&who.id), Key::of(id));
        Ok(ReactionAnswer {
            id: id.to_owned(),
            liked: t.liked.get(&pk, &ck).await?.is_some(),
            collected: t.collected.get(&pk, &ck).await?.is_some(),
            likes: counts.likes.max(0),
            collects: counts.collects.max(0),
        })
    }

    async fn account(&self, id: &str) -> Result<AccountRow, ApiError> {
        let a = self
            .inner
            .t
            .accounts
            .get(&Key::of(id), &Key::empty())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if a.status == protocol::account::status::DISABLED {
            return Err(ErrorCode::NotFound.into());
        }
        Ok(a)
    }

    /// `account/follow` (`on`) and `account/follow-cancel`.
    pub async fn follow(
        &self,
        who: &AccountRow,
        whom: &str,
        on: bool,
    ) -> Result<FollowAnswer, ApiError> {
        if who.id == whom {
            return Err(ErrorCode::FollowSelf.into());
        }
        self.inner.limits.check(&who.id, "follows").await?;
        self.account(whom).await?;
        let t = &self.inner.t;
        let (a, b) = (Key::of(&who.id), Key::of(whom));
        if on {
            let now = now_millis();
            if t.follows.insert_if_absent(&a, &b, &now).await?.is_ok() {
                t.followers.put(&b, &a, &now).await?;
                self.bump_account(whom, count::FOLLOWERS, 1).await?;
                self.bump_account(&who.id, count::FOLLOWING, 1).await?;
                self.notify(whom, &who.id, NotificationKind::Follow, None, "")
                    .await;
            }
        } else {
            self.unfollow(&who.id, whom).await?;
        }
        Ok(FollowAnswer {
            account_id: whom.to_owned(),
            following: t.follows.get(&a, &b).await?.is_some(),
            followers: self.account_count(whom, count::FOLLOWERS).await?,
        })
    }

    /// `account/followers` (`followers`) and `account/following` (`!followers`).
    pub async fn follow_list(
        &self,
        viewer: Option<&str>,
        account: &str,
        followers: bool,
        cursor: Option<&str>,
        n: usize,
    ) -> Result<AccountPage, ApiError> {
        self.account(account).await?;
        let table = if followers {
            &self.inner.t.followers
        } else {
            &self.inner.t.follows
        };
        let after = match Cursor::parse(cursor)? {
            Some(Cursor::Time { id, .. }) => Some(Key::of(&id)),
            Some(_) => {
                return Err(ApiError::with_msg(
                    ErrorCode::InvalidParams,
                    "the cursor is not valid",
                ))
            }
            None => None,
        };
        let mut range = ScanRange::all(n as u32 + 1);
        if let Some(k) = after {
            range.from = Bound::Excluded(k);
        }
        let page = table.scan(&Key::of(account), &range).await?;
        let mut ids: Vec<String> = page
            .rows
            .iter()
            .filter_map(|(k, _)| k.reader().str())
            .collect();
        let more = ids.len() > n;
        ids.truncate(n);
        let mut items = Vec::with_capacity(ids.len());
        for id in &ids {
            let Ok(a) = self.account(id).await else {
                continue;
            };
            items.push(self.account_card(viewer, &a).await?);
        }
        Ok(AccountPage {
            next_cursor: if more {
                ids.last().map(|id| {
                    Cursor::Time {
                        anchor: 0,
                        ms: 0,
                        id: id.clone(),
                    }
                    .encode()
                })
            } else {
                None
            },
            items,
        })
    }

    pub(crate) async fn account_card(
        &self,
        viewer: Option<&str>,
        a: &AccountRow,
    ) -> Result<AccountCard, ApiError> {
        let prof = self
            .inner
            .t
            .profiles
            .get(&Key::of(&a.id), &Key::empty())
            .await?;
        Ok(AccountCard {
            id: a.id.clone(),
            name: a.name.clone(),
            avatar: prof.and_then(|p| p.avatar),
            followers: self.account_count(&a.id, count::FOLLOWERS).await?,
            works: self.account_count(&a.id, count::WORKS).await?,
            following: self.is_following(viewer, &a.id).await?,
        })
    }

    /// `account/profile`.
    pub async fn profile(&self, viewer: Option<&str>, id: &str) -> Result<Profile, ApiError> {
        let a = self.account(id).await?;
        let p = self
            .inner
            .t
            .profiles
            .get(&Key::of(id), &Key::empty())
            .await?
            .unwrap_or_default();
        let nsfw_mode = (viewer == Some(id)).then(|| super::nsfw_view::mode_of(&p));
        Ok(Profile {
            id: a.id.clone(),
            name: a.name.clone(),
            avatar: p.avatar,
            bio: p.bio,
            followers: self.account_count(id, count::FOLLOWERS).await?,
            following: self.account_count(id, count::FOLLOWING).await?,
            works: self.account_count(id, count::WORKS).await?,
            likes_received: self.account_count(id, count::LIKES_RECEIVED).await?,
            followed: self.is_following(viewer, id).await?,
            me: viewer == Some(id),
            show_nsfw: (viewer == Some(id)).then_some(p.show_nsfw),
            create_at: a.create_at,
            nsfw_mode,
            links: Vec::new(),
        })
    }

    /// `account/profile/edit`: name, bio, avatar, the NSFW preference.
    pub async fn edit_profile(
        &self,
        who: &AccountRow,
        e: ProfileEdit,
    ) -> Result<Profile, ApiError> {
        if let Some(m) = &e.nsfw_mode {
            // Checked before anything is written: a bad mode changes nothing.
            protocol::square::nsfw::NsfwMode::parse(m).ok_or(ErrorCode::NsfwModeInvalid)?;
        }
        if let Some(name) = &e.name {
            let name = protocol::account::DisplayName::parse(name)
                .map_err(|_| ApiError::new(ErrorCode::NameInvalid))?;
            let name = name.as_str().to_owned();
            self.inner
                .t
                .accounts
                .update(&Key::of(&who.id), &Key::empty(), None, |a| {
                    a.name = name.clone()
                })
                .await?;
        }
        let bio = match &e.bio {
            Some(b) => Some(protocol::square::work::check_body("bio", b, MAX_BIO_CHARS)?),
            None => None,
        };
        let avatar = match e.avatar.as_deref().map(str::trim) {
            Some("") => Some(None),
            Some(u) => Some(Some(self.own_file(u).await?)),
            None => None,
        };
        let pk = Key::of(&who.id);
        let current = self.inner.t.profiles.get(&pk, &Key::empty()).await?;
        let mut next = current.clone().unwrap_or_default();
        if let Some(b) = bio {
            next.bio = b;
        }
        if let Some(a) = avatar {
            next.avatar = a;
        }
        super::nsfw_view::apply_edit(&mut next, e.nsfw_mode.as_deref(), e.show_nsfw)?;
        match current {
            Some(c) => {
                let applied = self
                    .inner
                    .t
                    .profiles
                    .compare_and_set(&pk, &Key::empty(), &c, Some(&next))
                    .await?;
                if applied.is_err() {
                    return Err(ApiError::with_msg(
                        ErrorCode::Conflict,
                        "the profile changed meanwhile; try again",
                    ));
                }
            }
            None => {
                if self
                    .inner
                    .t
                    .profiles
                    .insert_if_absent(&pk, &Key::empty(), &next)
                    .await?
                    .is_err()
                {
                    return Err(ApiError::with_msg(
                        ErrorCode::Conflict,
                        "the profile changed meanwhile; try again",
                    ));
                }
            }
        }
        self.reload_author(&who.id).await?;
        self.announce(None, Some(&who.id)).await;
        self.search_upsert_account(&who.id).await;
        self.profile(Some(&who.id), &who.id).await
    }

    /// Ids of the works `account` liked or collected, newest first.
    pub(crate) async fn reacted(
        &self,
        account: &str,
        kind: Reaction,
        cursor: Option<&str>,
        n: usize,
        keep: &(dyn Fn(&str) -> bool + Sync),
    ) -> Result<(Vec<Arc<str>>, Option<String>), ApiError> {
        let t = &self.inner.t;
        let table = match kind {
            Reaction::Like => &t.liked_by_time,
            Reaction::Collect => &t.collected_by_time,
        };
        let mut range = ScanRange::all(n as u32 * 2 + 1).desc();
        if let Some(Cursor::Time { ms, id, .. }) = Cursor::parse(cursor)? {
            range.to = Bound::Excluded(Key::empty().i64(ms).str(&id));
        }
        let mut out = Vec::new();
        let mut last = None;
        let mut paging = None;
        let mut scanned = 0usize;
        loop {
            let page = table
                .scan(&Key::of(account), &range.clone().after(paging))
                .await?;
            for (k, ()) in &page.rows {
                let mut r = k.reader();
                let (Some(ms), Some(id)) = (r.i64(), r.str()) else {
                    continue;
                };
                if out.len() == n {
                    return Ok((
                        out,
                        last.map(|(ms, id)| Cursor::Time { anchor: 0, ms, id }.encode()),
                    ));
                }
                last = Some((ms, id.clone()));
                scanned += 1;
                if keep(&id) {
                    out.extend(self.existing(vec![id]));
                }
            }
            match page.paging {
                // A bound on rows read for one page: a short page then
                // goes on from the last row looked at.
                Some(_) if scanned >= MAX_REACTED_SCAN => {
                    return Ok((
                        out,
                        last.map(|(ms, id)| Cursor::Time { anchor: 0, ms, id }.encode()),
                    ))
                }
                Some(p) => paging = Some(p),
                None => return Ok((out, None)),
            }
        }
    }
}

/// Rows of a like or collect list read at most for one page.
const MAX_REACTED_SCAN: usize = 2000;

/// Pictures kept in an account's reuse history.
pub const IMG_USE_LEN: usize = 50;

impl SquareService {
    /// `square/v3/account/list`: creators whose works rank in the newest hot
    /// snapshot, by the sum of their works' hot scores.
    pub async fn creators(&self, viewer: Option<&str>, n: usize) -> Result<AccountPage, ApiError> {
        self.ready().await;
        let ids: Vec<String> = {
            let ix = self
                .inner
                .index
                .read()
                .map_err(|_| ApiError::internal("feed index poisoned"))?;
            let Some(snap) = ix.newest_snapshot() else {
                return Ok(AccountPage {
                    items: Vec::new(),
                    next_cursor: None,
                });
            };
            let mut score: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
            for (id, hot) in &snap.ranked {
                if let Some(e) = ix.get(id) {
                    *score.entry(&e.author).or_default() += hot;
                }
            }
            let mut v: Vec<(&str, f64)> = score.into_iter().collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            v.into_iter().take(n).map(|(a, _)| a.to_owned()).collect()
        };
        let mut items = Vec::new();
        for id in ids {
            let Ok(a) = self.account(&id).await else {
                continue;
            };
            items.push(self.account_card(viewer, &a).await?);
        }
        Ok(AccountPage {
            items,
            next_cursor: None,
        })
    }

    /// `account/img-use/history`: newest first.
    pub async fn img_use_list(&self, who: &str) -> Result<Vec<super::row::ImgUseRow>, ApiError> {
        let page = self
            .inner
            .t
            .img_use
            .scan(&Key::of(who), &ScanRange::all(IMG_USE_LEN as u32).desc())
            .await?;
        Ok(page.rows.into_iter().map(|(_, r)| r).collect())
    }

    /// `account/img-use/history/add`: a picture of this server the account
    /// reused; the same picture again moves to the top.
    pub async fn img_use_add(
        &self,
        who: &str,
        url: &str,
        work: Option<&str>,
    ) -> Result<(), ApiError> {
        let url = self.own_file(url).await?;
        self.img_use_del(who, &url).await?;
        let now = now_millis();
        let row = super::row::ImgUseRow {
            url: url.clone(),
            work_id: work.map(str::to_owned),
            create_at: now,
        };
        self.inner
            .t
            .img_use
            .put(&Key::of(who), &Key::empty().i64(now).str(&url), &row)
            .await?;
        let all = self
            .inner
            .t
            .img_use
            .scan(&Key::of(who), &ScanRange::all(200).desc())
            .await?;
        for (k, _) in all.rows.into_iter().skip(IMG_USE_LEN) {
            self.inner.t.img_use.delete(&Key::of(who), &k).await?;
        }
        Ok(())
    }

    /// `account/img-use/history/del`.
    pub async fn img_use_del(&self, who: &str, url: &str) -> Result<(), ApiError> {
        let page = self
            .inner
            .t
            .img_use
            .scan(&Key::of(who), &ScanRange::all(200))
            .await?;
        let key = crate::tasks::object_key_of_url(url);
        for (k, r) in page.rows {
            if crate::tasks::object_key_of_url(&r.url) == key {
                self.inner.t.img_use.delete(&Key::of(who), &k).await?;
            }
        }
        Ok(())
    }
}

impl SquareService {
    /// An account's status, name or avatar changed: this node's feed index
    /// and the search index follow, and other nodes are told.
    pub async fn author_changed(&self, id: &str) -> Result<(), ApiError> {
        self.reload_author(id).await?;
        self.announce(None, Some(id)).await;
        self.search_upsert_account(id).await;
        Ok(())
    }
}

impl SquareService {
    /// Recounts a work's likes and collects from their rows and mends the
    /// counters (a crash between a row and its counter leaves a count one
    /// off); answers the corrections made. Operators call it
    /// (`admin/square/recount`).
    pub async fn recount(&self, id: &str) -> Result<serde_json::Value, ApiError> {
        let t = &self.inner.t;
        let mut fixed = serde_json::Map::new();
        for (rows, name) in [
            (&t.work_likes, count::LIKES),
            (&t.work_collects, count::COLLECTS),
        ] {
            let mut n = 0i64;
            let mut paging = None;
            loop {
                let page = rows
                    .scan(&Key::of(id), &ScanRange::all(1000).after(paging))
                    .await?;
                n += page.rows.len() as i64;
                match page.paging {
                    Some(p) => paging = Some(p),
                    None => break,
                }
            }
            let stored = t.work_counts.get(&Key::of(id), &Key::of(name)).await?;
            if stored != n {
                self.bump(id, name, n - stored).await?;
            }
            fixed.insert(
                name.to_owned(),
                serde_json::json!({ "was": stored, "now": n }),
            );
        }
        self.announce(Some(id), None).await;
        Ok(serde_json::Value::Object(fixed))
    }
}
