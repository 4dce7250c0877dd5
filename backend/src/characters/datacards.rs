//! Datacards: named knowledge (lore, facts about the user, a world) a chat
//! session can bind. Owner only: another user's card is NotFound.

use infra::store::{Key, ScanRange};
use protocol::character::{normalise_datacard, DatacardView};
use protocol::ErrorCode;

use super::row::DatacardRow;
use super::{invalid, new_id, owner_ck, CharacterService, SCAN_PAGE};
use crate::accounts::now_millis;
use crate::error::ApiError;

/// Most datacards `datacard/my` lists.
const MAX_DATACARDS: usize = 1000;

pub fn datacard_view(d: &DatacardRow) -> DatacardView {
    DatacardView {
        id: d.id.clone(),
        title: d.title.clone(),
        content: d.content.clone(),
        create_at: d.create_at,
        update_at: d.update_at,
    }
}

impl CharacterService {
    pub(super) async fn datacard_row(&self, id: &str) -> Result<Option<DatacardRow>, ApiError> {
        if id.is_empty() || id.len() > 64 {
            return Ok(None);
        }
        Ok(self.datacards.get(&Key::of(id), &Key::empty()).await?)
    }

    async fn own_datacard(&self, owner: &str, id: &str) -> Result<DatacardRow, ApiError> {
        self.datacard_row(id)
            .await?
            .filter(|d| d.owner == owner)
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    #[tracing::instrument(skip(self, content))]
    pub async fn create_datacard(
        &self,
        owner: &str,
        title: &str,
        content: &str,
    ) -> Result<String, ApiError> {
        let (title, content) =
            normalise_datacard(title, content).map_err(|e| invalid(e.to_string()))?;
        let now = now_millis();
        let d = DatacardRow {
            id: new_id(),
            owner: owner.to_owned(),
            title,
            content,
            create_at: now,
            update_at: now,
        };
        self.datacards
            .put(&Key::of(&d.id), &Key::empty(), &d)
            .await?;
        self.datacards_by_owner
            .put(&Key::of(owner), &owner_ck(now, &d.id), &())
            .await?;
        Ok(d.id)
    }

    /// Creates a datacard under an id the caller chose, once: when a card
    /// with this id exists (a resumed document import made it already), it
    /// is left as it is. Answers whether this call made it.
    #[tracing::instrument(skip(self, content))]
    pub async fn create_datacard_keyed(
        &self,
        owner: &str,
        id: &str,
        title: &str,
        content: &str,
    ) -> Result<bool, ApiError> {
        if id.is_empty() || id.len() > 64 {
            return Err(invalid("a datacard id has 1 to 64 characters"));
        }
        let (title, content) =
            normalise_datacard(title, content).map_err(|e| invalid(e.to_string()))?;
        let now = now_millis();
        let d = DatacardRow {
            id: id.to_owned(),
            owner: owner.to_owned(),
            title,
            content,
            create_at: now,
            update_at: now,
        };
        let made = match self
            .datacards
            .insert_if_absent(&Key::of(id), &Key::empty(), &d)
            .await?
        {
            Ok(()) => true,
            Err(present) if present.owner == owner => {
                // Made by an earlier run: make sure its index entry exists too.
                self.datacards_by_owner
                    .put(&Key::of(owner), &owner_ck(present.create_at, id), &())
                    .await?;
                return Ok(false);
            }
            Err(_) => return Err(ErrorCode::NotFound.into()),
        };
        self.datacards_by_owner
            .put(&Key::of(owner), &owner_ck(now, id), &())
            .await?;
        Ok(made)
    }

    #[tracing::instrument(skip(self, content))]
    pub async fn edit_datacard(
        &self,
        owner: &str,
        id: &str,
        title: &str,
        content: &str,
    ) -> Result<DatacardView, ApiError> {
        let (title, content) =
            normalise_datacard(title, content).map_err(|e| invalid(e.to_string()))?;
        let before = self.own_datacard(owner, id).await?;
        let after = self
            .datacards
            .update(&Key::of(id), &Key::empty(), Some(before), |d| {
                d.title = title.clone();
                d.content = content.clone();
                d.update_at = now_millis();
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(datacard_view(&after))
    }

    #[tracing::instrument(skip(self))]
    pub async fn delete_datacard(&self, owner: &str, id: &str) -> Result<(), ApiError> {
        let d = self.own_datacard(owner, id).await?;
        self.datacards.delete(&Key::of(id), &Key::empty()).await?;
        self.datacards_by_owner
            .delete(&Key::of(owner), &owner_ck(d.create_at, id))
            .await?;
        Ok(())
    }

    pub async fn datacard(&self, owner: &str, id: &str) -> Result<DatacardView, ApiError> {
        Ok(datacard_view(&self.own_datacard(owner, id).await?))
    }

    /// The owner's datacards, newest first.
    pub async fn my_datacards(&self, owner: &str) -> Result<Vec<DatacardView>, ApiError> {
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .datacards_by_owner
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
                if let Some(d) = self.datacard_row(&id).await?.filter(|d| d.owner == owner) {
                    out.push(datacard_view(&d));
                }
            }
            match page.paging {
                Some(p) if out.len() < MAX_DATACARDS => paging = Some(p),
                _ => break,
            }
        }
        Ok(out)
    }
}
