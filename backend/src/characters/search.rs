//! What the square's search index holds of characters: one document per
//! published character (name, description, tags, its creator), made from
//! the Store when the index is rebuilt and on each publish.

use search::{DocKind, SearchDoc, Visibility};

use super::row::CharacterRow;
use super::{CharacterService, MAX_SCAN};
use crate::error::ApiError;

impl CharacterService {
    /// The search document of a character (published ones are public).
    pub async fn search_doc(&self, row: &CharacterRow) -> Result<SearchDoc, ApiError> {
        let card = self.card(row).await?;
        Ok(SearchDoc {
            kind: DocKind::Character,
            id: row.id.clone(),
            title: row.name.clone(),
            body: row.description.clone(),
            tags: row.tags.clone(),
            author_id: row.owner.clone(),
            author_name: card.owner.name,
            visibility: if row.published {
                Visibility::Public
            } else {
                Visibility::Private
            },
            nsfw: false,
            created_ms: card.publish_at,
            popularity: card.chat_count as f64,
        })
    }

    /// Documents of the newest published characters (up to the list scan limit).
    pub async fn search_docs(&self) -> Result<Vec<SearchDoc>, ApiError> {
        let (rows, _) = self.scan_public(None, MAX_SCAN, |_| true).await?;
        let mut out = Vec::with_capacity(rows.len());
        for (_, r) in rows {
            out.push(self.search_doc(&r).await?);
        }
        Ok(out)
    }

    /// The row of a character by id, whatever its state (for the search index).
    pub async fn row_for_search(&self, id: &str) -> Result<Option<CharacterRow>, ApiError> {
        self.row(id).await
    }
}
