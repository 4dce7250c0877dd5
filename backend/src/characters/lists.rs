//! Listing characters: the public index newest first (`new`), the most
//! chatted among the newest [`MAX_SCAN`] (`hot`, `recommend`), a viewer's
//! recent chats and a creator's own characters.

use std::collections::BTreeMap;

use infra::store::{Key, PagingState, ScanRange};
use protocol::character::{
    effective_limit, CharacterCard, ListAnswer, ListRequest, OrderBy, RecentCard,
};

use super::row::CharacterRow;
use super::{
    gender_to_wire, invalid, public_pk, visible_to, CharacterService, MAX_RECENT_SCAN, MAX_SCAN,
    SCAN_PAGE,
};
use crate::error::ApiError;
use protocol::ErrorCode;

/// Whether `row` passes a list's filters.
fn matches(row: &CharacterRow, req: &ListRequest, keyword: &str) -> bool {
    if !req.genders.is_empty() && !req.genders.contains(&gender_to_wire(row.gender)) {
        return false;
    }
    if req.character_type != 0 && row.character_type != req.character_type {
        return false;
    }
    keyword.is_empty()
        || row.name.to_lowercase().contains(keyword)
        || row.description.to_lowercase().contains(keyword)
        || row.tags.iter().any(|t| t.to_lowercase().contains(keyword))
}

impl CharacterService {
    /// Reads published characters newest first, from just after `start`
    /// (a public-index clustering key), keeping those `keep` accepts,
    /// until `want` are kept or [`MAX_SCAN`] entries were read. Answers the
    /// kept rows with their index keys, and whether the index has more.
    pub(super) async fn scan_public(
        &self,
        start: Option<PagingState>,
        want: usize,
        keep: impl Fn(&CharacterRow) -> bool,
    ) -> Result<(Vec<(Key, CharacterRow)>, Option<PagingState>), ApiError> {
        let mut kept = Vec::new();
        let mut paging = start;
        let mut read = 0usize;
        loop {
            let page = self
                .public
                .scan(
                    &public_pk(),
                    &ScanRange::all(SCAN_PAGE).desc().after(paging.clone()),
                )
                .await?;
            let more = page.paging.is_some();
            for (ck, ()) in page.rows {
                read += 1;
                paging = Some(PagingState(ck.as_bytes().to_vec()));
                let mut reader = ck.reader();
                let id = reader.i64().and_then(|_| reader.str());
                let Some(id) = id else { continue };
                if let Some(row) = self.row(&id).await? {
                    // A character a moderator hid leaves every public list.
                    if row.published
                        && !row.deleted
                        && keep(&row)
                        && !crate::moderation::ModerationService::hidden_from(
                            &self.mod_states,
                            protocol::moderation::ObjKind::Character,
                            &row.id,
                            &row.owner,
                            None,
                        )
                        .await?
                    {
                        kept.push((ck, row));
                        if kept.len() >= want {
                            return Ok((kept, paging));
                        }
                    }
                }
                if read >= MAX_SCAN {
                    return Ok((kept, paging));
                }
            }
            if !more {
                return Ok((kept, None));
            }
        }
    }

    /// `square/.../character/list`. `new`: newest first, the cursor is the
    /// index position; `hot`: most chatted first among the newest
    /// [`MAX_SCAN`], the cursor is an offset (`h<n>`).
    #[tracing::instrument(skip(self))]
    pub async fn list(&self, req: &ListRequest) -> Result<ListAnswer<CharacterCard>, ApiError> {
        let limit = effective_limit(req.limit) as usize;
        let keyword = req.keyword.trim().to_lowercase();
        if keyword.chars().count() > 64 {
            return Err(invalid("keyword may have at most 64 characters"));
        }
        if req.character_type > 2 {
            return Err(invalid("character_type must be 0 (all), 1 or 2"));
        }
        let cursor = req.cursor.as_deref().filter(|c| !c.is_empty());
        match req.order_by {
            OrderBy::New => {
                let start = match cursor {
                    Some(c) => Some(PagingState::from_hex(c).ok_or_else(|| invalid("bad cursor"))?),
                    None => None,
                };
                let (rows, paging) = self
                    .scan_public(start, limit, |r| matches(r, req, &keyword))
                    .await?;
                let rows: Vec<CharacterRow> = rows.into_iter().map(|(_, r)| r).collect();
                Ok(ListAnswer {
                    items: self.cards(&rows).await?,
                    cursor: paging.map(|p| p.to_hex()),
                })
            }
            OrderBy::Hot => {
                let offset = match cursor {
                    Some(c) => c
                        .strip_prefix('h')
                        .and_then(|n| n.parse::<usize>().ok())
                        .ok_or_else(|| invalid("bad cursor"))?,
                    None => 0,
                };
                let ranked = self.ranked(MAX_SCAN, |r| matches(r, req, &keyword)).await?;
                let end = offset.saturating_add(limit).min(ranked.len());
                let page = ranked.get(offset.min(end)..end).unwrap_or_default();
                Ok(ListAnswer {
                    items: self.cards(page).await?,
                    cursor: (end < ranked.len()).then(|| format!("h{end}")),
                })
            }
        }
    }

    /// Published characters matching `keep`, most chatted first (ties:
    /// newest first), among the newest `scan` entries.
    async fn ranked(
        &self,
        scan: usize,
        keep: impl Fn(&CharacterRow) -> bool,
    ) -> Result<Vec<CharacterRow>, ApiError> {
        let (rows, _) = self.scan_public(None, scan, keep).await?;
        let mut rows: Vec<CharacterRow> = rows.into_iter().map(|(_, r)| r).collect();
        rows.sort_by(|a, b| {
            b.chat_count
                .cmp(&a.chat_count)
                .then(b.publish_at.cmp(&a.publish_at))
                .then(a.id.cmp(&b.id))
        });
        Ok(rows)
    }

    /// `square/.../character/recommend`: the most chatted published characters.
    pub async fn recommend(&self, limit: u32) -> Result<Vec<CharacterCard>, ApiError> {
        let mut rows = self.ranked(MAX_SCAN, |_| true).await?;
        rows.truncate(effective_limit(limit) as usize);
        self.cards(&rows).await
    }

    /// `character/latest`: the characters `viewer` chatted with, most recent
    /// first, that they may still see.
    pub async fn latest(&self, viewer: &str, limit: u32) -> Result<Vec<RecentCard>, ApiError> {
        let page = self
            .recent
            .scan(&Key::of(viewer), &ScanRange::all(MAX_RECENT_SCAN))
            .await?;
        let mut entries: Vec<(i64, String)> = page
            .rows
            .into_iter()
            .filter_map(|(ck, at)| ck.reader().str().map(|id| (at, id)))
            .collect();
        entries.sort_by(|a, b| b.cmp(a));
        let limit = effective_limit(limit) as usize;
        let mut names = BTreeMap::new();
        let mut out = Vec::new();
        for (at, id) in entries {
            if out.len() >= limit {
                break;
            }
            let Some(row) = self.row(&id).await?.filter(|r| visible_to(r, Some(viewer))) else {
                continue;
            };
            let name = self.owner_name(&mut names, &row.owner).await?;
            out.push(RecentCard {
                card: Self::card_with(&row, name),
                last_chat_at: at,
            });
        }
        Ok(out)
    }

    /// `tavern-pro/recently/remove`: forgets one recent chat of `viewer`.
    pub async fn remove_recent(&self, viewer: &str, id: &str) -> Result<(), ApiError> {
        let present = self.recent.get(&Key::of(viewer), &Key::of(id)).await?;
        if present.is_none() {
            return Err(ErrorCode::NotFound.into());
        }
        self.recent.delete(&Key::of(viewer), &Key::of(id)).await?;
        Ok(())
    }

    /// `tavern-pro/my`: the caller's characters, drafts included, newest first.
    pub async fn mine(&self, owner: &str) -> Result<Vec<CharacterCard>, ApiError> {
        let mut rows = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .by_owner
                .scan(
                    &Key::of(owner),
                    &ScanRange::all(SCAN_PAGE).desc().after(paging),
                )
                .await?;
            for (ck, ()) in page.rows {
                let mut reader = ck.reader();
                let Some(id) = reader.i64().and_then(|_| reader.str()) else {
                    continue;
                };
                if let Some(r) = self.row(&id).await?.filter(|r| !r.deleted) {
                    rows.push(r);
                }
            }
            match page.paging {
                Some(p) if rows.len() < MAX_SCAN => paging = Some(p),
                _ => break,
            }
        }
        let mut cards = self.cards(&rows).await?;
        for (c, r) in cards.iter_mut().zip(&rows) {
            c.published = Some(r.published);
        }
        Ok(cards)
    }
}
