//! Characters (the tavern cards) and datacards: creating, editing,
//! publishing and deleting characters, their detail, the square's lists
//! (new, hot, recommend), the caller's recent and own characters, V2 card
//! import and export, and the three calls the chat service makes
//! (`load_for_chat`, `touch_recent`, `load_datacards`).
//!
//! Checks are in one order everywhere: an unknown or deleted character, or
//! another user's draft, is NotFound (a draft's existence is not revealed);
//! then changing someone else's published character is NoPermission.
//! Datacards are the owner's only: someone else's is NotFound.

pub mod card;
mod datacards;
pub mod extras;
mod lists;
pub mod moderation;
pub mod png;
mod presets;
pub mod preview;
pub mod row;
pub mod search;

use std::collections::BTreeMap;

use infra::objects::DynObjects;
use infra::store::{tables, DynStore, Key, Table};
use protocol::character::{
    self as wire, normalise_publish, CharacterCard, CharacterView, ChatSettingsView, OwnerView,
    PublishRequest,
};
use protocol::ErrorCode;

pub use self::datacards::datacard_view;
pub use self::presets::presets;
use self::row::{CharacterRow, ChatSettings, DatacardRow, Gender};
use crate::accounts::{now_millis, AccountRow};
use crate::error::{object_key, ApiError};

/// Most public entries one list call reads. `new` pages through the index
/// newest first and stops here (answering a cursor so the client goes on);
/// `hot` and `recommend` rank by chat count, which the index does not sort
/// by, so they read (up to) this many newest characters and sort those:
/// O(published characters) point reads per call, fine for a self-hosted
/// tavern of a few thousand characters. A larger deployment would keep a
/// ranking table updated by `touch_recent`.
const MAX_SCAN: usize = 5000;
/// Index entries read per store page while listing.
const SCAN_PAGE: u32 = 200;
/// Most recent-chat entries kept per account that `latest` reads.
const MAX_RECENT_SCAN: u32 = 1000;

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

/// The single partition of the public index.
fn public_pk() -> Key {
    Key::empty().u64(0)
}

fn public_ck(publish_at: i64, id: &str) -> Key {
    Key::empty().i64(publish_at).str(id)
}

fn owner_ck(create_at: i64, id: &str) -> Key {
    Key::empty().i64(create_at).str(id)
}

fn new_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

pub fn gender_to_wire(g: Gender) -> wire::Gender {
    match g {
        Gender::Male => wire::Gender::Male,
        Gender::Female => wire::Gender::Female,
        Gender::NonBinary => wire::Gender::NonBinary,
        Gender::Other => wire::Gender::Other,
    }
}

pub fn gender_from_wire(g: wire::Gender) -> Gender {
    match g {
        wire::Gender::Male => Gender::Male,
        wire::Gender::Female => Gender::Female,
        wire::Gender::NonBinary => Gender::NonBinary,
        wire::Gender::Other => Gender::Other,
    }
}

pub fn settings_to_wire(s: &ChatSettings) -> ChatSettingsView {
    ChatSettingsView {
        temperature: s.temperature,
        top_p: s.top_p,
        max_reply_tokens: s.max_reply_tokens,
    }
}

fn settings_from_wire(s: &ChatSettingsView) -> ChatSettings {
    ChatSettings {
        temperature: s.temperature,
        top_p: s.top_p,
        max_reply_tokens: s.max_reply_tokens,
    }
}

/// Whether `viewer` may see `row`: published, or their own. Deleted ones
/// are nobody's.
fn visible_to(row: &CharacterRow, viewer: Option<&str>) -> bool {
    !row.deleted && (row.published || viewer == Some(row.owner.as_str()))
}

#[derive(Clone)]
pub struct CharacterService {
    characters: Table<CharacterRow>,
    /// pk owner · ck (create_at, id).
    by_owner: Table<()>,
    /// pk 0 · ck (publish_at, id): every published, undeleted character.
    public: Table<()>,
    /// pk account · ck character id → last chat (ms).
    recent: Table<i64>,
    datacards: Table<DatacardRow>,
    /// pk owner · ck (create_at, id).
    datacards_by_owner: Table<()>,
    accounts: Table<AccountRow>,
    objects: DynObjects,
    /// Personas, reports, operator decisions and daily chat counts.
    extras: extras::Extras,
    /// Characters moderators hid (`crate::moderation`).
    mod_states: Table<crate::moderation::rows::ModStateRow>,
}

impl CharacterService {
    /// `limits`: where the report limit counts (see `crate::ratelimit`).
    pub fn new(
        store: DynStore,
        objects: DynObjects,
        limits: &crate::ratelimit::RateLimits,
    ) -> CharacterService {
        CharacterService {
            characters: Table::new(store.clone(), &tables::CHARACTERS),
            by_owner: Table::new(store.clone(), &tables::CHARACTERS_BY_OWNER),
            public: Table::new(store.clone(), &tables::CHARACTERS_PUBLIC),
            recent: Table::new(store.clone(), &tables::CHARACTERS_RECENT),
            datacards: Table::new(store.clone(), &tables::DATACARDS),
            datacards_by_owner: Table::new(store.clone(), &tables::DATACARDS_BY_OWNER),
            extras: extras::Extras::new(store.clone(), limits),
            mod_states: Table::new(store.clone(), &tables::MOD_STATES),
            accounts: Table::new(store, &tables::ACCOUNTS),
            objects,
        }
    }

    pub(crate) async fn row(&self, id: &str) -> Result<Option<CharacterRow>, ApiError> {
        if id.is_empty() || id.len() > 64 {
            return Ok(None);
        }
        Ok(self.characters.get(&Key::of(id), &Key::empty()).await?)
    }

    /// A character `viewer` may see (published or own), else NotFound.
    /// A character a moderator hid is its owner's alone.
    pub async fn visible(&self, viewer: Option<&str>, id: &str) -> Result<CharacterRow, ApiError> {
        let row = self
            .row(id)
            .await?
            .filter(|r| visible_to(r, viewer))
            .ok_or(ErrorCode::NotFound)?;
        if crate::moderation::ModerationService::hidden_from(
            &self.mod_states,
            protocol::moderation::ObjKind::Character,
            &row.id,
            &row.owner,
            viewer,
        )
        .await?
        {
            return Err(ErrorCode::NotFound.into());
        }
        Ok(row)
    }

    /// A character its owner changes: NotFound when unknown, deleted or
    /// someone else's draft; NoPermission when someone else's published one.
    async fn owned(&self, owner: &str, id: &str) -> Result<CharacterRow, ApiError> {
        let row = self.visible(Some(owner), id).await?;
        if row.owner != owner {
            return Err(ErrorCode::NoPermission.into());
        }
        Ok(row)
    }

    // ---- The chat service's calls -------------------------------------

    /// The character a chat starts with: published, or the viewer's own
    /// draft. Unknown, deleted or someone else's draft → NotFound.
    #[tracing::instrument(skip(self))]
    pub async fn load_for_chat(&self, viewer: &str, id: &str) -> Result<CharacterRow, ApiError> {
        self.visible(Some(viewer), id).await
    }

    /// Counts one more chat on the character (for hot and recommend) and
    /// records that `viewer` chatted with it now (for `character/latest`).
    /// An unknown character is NotFound and records nothing.
    #[tracing::instrument(skip(self))]
    pub async fn touch_recent(&self, viewer: &str, id: &str) -> Result<(), ApiError> {
        self.characters
            .update(&Key::of(id), &Key::empty(), None, |r| {
                r.chat_count = r.chat_count.saturating_add(1)
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.recent
            .put(&Key::of(viewer), &Key::of(id), &now_millis())
            .await?;
        self.count_daily_chat(id).await?;
        Ok(())
    }

    /// The owner's datacards among `ids`, in the order asked; missing ones
    /// and other users' are skipped.
    #[tracing::instrument(skip(self))]
    pub async fn load_datacards(
        &self,
        owner: &str,
        ids: &[String],
    ) -> Result<Vec<DatacardRow>, ApiError> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(d) = self.datacard_row(id).await? {
                if d.owner == owner {
                    out.push(d);
                }
            }
        }
        Ok(out)
    }

    // ---- Views ----------------------------------------------------------

    async fn owner_name(
        &self,
        cache: &mut BTreeMap<String, String>,
        id: &str,
    ) -> Result<String, ApiError> {
        if let Some(n) = cache.get(id) {
            return Ok(n.clone());
        }
        let name = self
            .accounts
            .get(&Key::of(id), &Key::empty())
            .await?
            .map(|a| a.name)
            .unwrap_or_default();
        cache.insert(id.to_owned(), name.clone());
        Ok(name)
    }

    fn card_with(row: &CharacterRow, owner_name: String) -> CharacterCard {
        CharacterCard {
            id: row.id.clone(),
            name: row.name.clone(),
            description: row.description.clone(),
            avatar: row.avatar.clone(),
            tags: row.tags.clone(),
            gender: gender_to_wire(row.gender),
            character_type: row.character_type,
            chat_count: row.chat_count,
            publish_at: row.publish_at,
            owner: OwnerView {
                id: row.owner.clone(),
                name: owner_name,
            },
            published: None,
        }
    }

    /// The list card of a character (the chat service shows it on sessions).
    pub async fn card(&self, row: &CharacterRow) -> Result<CharacterCard, ApiError> {
        let name = self.owner_name(&mut BTreeMap::new(), &row.owner).await?;
        Ok(Self::card_with(row, name))
    }

    /// List cards of many characters, reading each owner's name once.
    pub async fn cards(&self, rows: &[CharacterRow]) -> Result<Vec<CharacterCard>, ApiError> {
        let mut names = BTreeMap::new();
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let name = self.owner_name(&mut names, &r.owner).await?;
            out.push(Self::card_with(r, name));
        }
        Ok(out)
    }

    pub async fn view(
        &self,
        row: &CharacterRow,
        viewer: Option<&str>,
    ) -> Result<CharacterView, ApiError> {
        let owner_name = self.owner_name(&mut BTreeMap::new(), &row.owner).await?;
        Ok(CharacterView {
            id: row.id.clone(),
            name: row.name.clone(),
            description: row.description.clone(),
            persona: row.persona.clone(),
            scenario: row.scenario.clone(),
            greeting: row.greeting.clone(),
            alternate_greetings: row.alternate_greetings.clone(),
            example_dialogue: row.example_dialogue.clone(),
            system_prompt: row.system_prompt.clone(),
            post_history_instructions: row.post_history_instructions.clone(),
            creator_notes: row.creator_notes.clone(),
            tags: row.tags.clone(),
            gender: gender_to_wire(row.gender),
            character_type: row.character_type,
            avatar: row.avatar.clone(),
            settings: settings_to_wire(&row.settings),
            published: row.published,
            publish_at: row.publish_at,
            create_at: row.create_at,
            update_at: row.update_at,
            chat_count: row.chat_count,
            owner: OwnerView {
                id: row.owner.clone(),
                name: owner_name,
            },
            is_owner: viewer == Some(row.owner.as_str()),
        })
    }

    /// `character/detail`: a published character, or the caller's own.
    pub async fn detail(&self, viewer: Option<&str>, id: &str) -> Result<CharacterView, ApiError> {
        let row = self.visible(viewer, id).await?;
        self.view(&row, viewer).await
    }

    // ---- Writes -----------------------------------------------------------

    /// The avatar as stored: empty, or `/files/<key>` of an object this
    /// server holds (an upload, or a card's picture). Any host is accepted
    /// in the URL (the server may sit behind a proxy); what counts is that
    /// the object exists here. The server never fetches other URLs.
    async fn checked_avatar(&self, url: &str) -> Result<String, ApiError> {
        if url.is_empty() {
            return Ok(String::new());
        }
        let bad = || invalid("avatar must be an image uploaded to this server (/files/...)");
        let key = crate::tasks::object_key_of_url(url).ok_or_else(bad)?;
        if key.starts_with("up/") {
            return Err(bad());
        }
        let exists = self
            .objects
            .exists(&object_key(&key)?)
            .await
            .map_err(ApiError::internal)?;
        if !exists {
            return Err(bad());
        }
        Ok(crate::tasks::row::file_url(&key))
    }

    /// `tavern-pro/publish`: creates a character (no `id`) or replaces the
    /// editable fields of the caller's own. Answers its id.
    #[tracing::instrument(skip(self, req), fields(id = ?req.id))]
    pub async fn publish(&self, owner: &str, req: PublishRequest) -> Result<String, ApiError> {
        let req = normalise_publish(req).map_err(|e| invalid(e.to_string()))?;
        let avatar = self.checked_avatar(&req.avatar).await?;
        let now = now_millis();
        match req.id.clone().filter(|id| !id.is_empty()) {
            None => {
                let row = CharacterRow {
                    id: new_id(),
                    owner: owner.to_owned(),
                    name: req.name.clone(),
                    description: req.description.clone(),
                    persona: req.persona.clone(),
                    scenario: req.scenario.clone(),
                    greeting: req.greeting.clone(),
                    alternate_greetings: req.alternate_greetings.clone(),
                    example_dialogue: req.example_dialogue.clone(),
                    system_prompt: req.system_prompt.clone(),
                    post_history_instructions: req.post_history_instructions.clone(),
                    creator_notes: req.creator_notes.clone(),
                    tags: req.tags.clone(),
                    gender: gender_from_wire(req.gender),
                    character_type: req.character_type,
                    avatar,
                    settings: req
                        .settings
                        .as_ref()
                        .map(settings_from_wire)
                        .unwrap_or_default(),
                    published: req.published,
                    publish_at: if req.published { now } else { 0 },
                    create_at: now,
                    update_at: now,
                    chat_count: 0,
                    deleted: false,
                };
                self.insert(&row).await?;
                Ok(row.id)
            }
            Some(id) => {
                let before = self.owned(owner, &id).await?;
                self.check_publishable(&id, req.published).await?;
                let after = self
                    .characters
                    .update(&Key::of(&id), &Key::empty(), Some(before.clone()), |r| {
                        r.name = req.name.clone();
                        r.description = req.description.clone();
                        r.persona = req.persona.clone();
                        r.scenario = req.scenario.clone();
                        r.greeting = req.greeting.clone();
                        r.alternate_greetings = req.alternate_greetings.clone();
                        r.example_dialogue = req.example_dialogue.clone();
                        r.system_prompt = req.system_prompt.clone();
                        r.post_history_instructions = req.post_history_instructions.clone();
                        r.creator_notes = req.creator_notes.clone();
                        r.tags = req.tags.clone();
                        r.gender = gender_from_wire(req.gender);
                        r.character_type = req.character_type;
                        r.avatar = avatar.clone();
                        if let Some(s) = &req.settings {
                            r.settings = settings_from_wire(s);
                        }
                        // Publishing a draft dates it now; editing a
                        // published one keeps its place in the square.
                        if req.published && !r.published {
                            r.publish_at = now;
                        }
                        r.published = req.published;
                        r.update_at = now;
                    })
                    .await?
                    .filter(|r| !r.deleted)
                    .ok_or(ErrorCode::NotFound)?;
                self.reindex(&before, &after).await?;
                Ok(id)
            }
        }
    }

    /// Stores a new character and its index entries.
    async fn insert(&self, row: &CharacterRow) -> Result<(), ApiError> {
        self.characters
            .put(&Key::of(&row.id), &Key::empty(), row)
            .await?;
        self.by_owner
            .put(&Key::of(&row.owner), &owner_ck(row.create_at, &row.id), &())
            .await?;
        if row.published {
            self.public
                .put(&public_pk(), &public_ck(row.publish_at, &row.id), &())
                .await?;
        }
        Ok(())
    }

    /// Brings the public index in line with a change of `published` or
    /// `publish_at`. The row is the truth: a stale index entry left by a
    /// crash is skipped by the lists (they re-check every row).
    async fn reindex(&self, before: &CharacterRow, after: &CharacterRow) -> Result<(), ApiError> {
        let was = before.published && !before.deleted;
        let is = after.published && !after.deleted;
        if was && (!is || before.publish_at != after.publish_at) {
            self.public
                .delete(&public_pk(), &public_ck(before.publish_at, &before.id))
                .await?;
        }
        if is {
            self.public
                .put(&public_pk(), &public_ck(after.publish_at, &after.id), &())
                .await?;
        }
        Ok(())
    }

    /// `tavern-pro/delete`: the owner's character leaves every list. The row
    /// stays, marked deleted, so sessions that started with it keep working.
    #[tracing::instrument(skip(self))]
    pub async fn delete(&self, owner: &str, id: &str) -> Result<(), ApiError> {
        let before = self.owned(owner, id).await?;
        let after = self
            .characters
            .update(&Key::of(id), &Key::empty(), Some(before.clone()), |r| {
                r.deleted = true;
                r.update_at = now_millis();
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.reindex(&before, &after).await?;
        self.by_owner
            .delete(&Key::of(owner), &owner_ck(before.create_at, id))
            .await?;
        self.recent.delete(&Key::of(owner), &Key::of(id)).await?;
        Ok(())
    }

    /// Stores an imported card (as `card::CardData::into_publish_request`
    /// made it, filtered by the route) as a draft of `owner`; answers its id.
    pub async fn import(
        &self,
        owner: &str,
        req: PublishRequest,
        picture: Option<Vec<u8>>,
    ) -> Result<String, ApiError> {
        let id = new_id();
        let avatar = match picture {
            Some(png) => {
                let key = format!("ch/{id}/{}.png", hex::encode(rand::random::<[u8; 8]>()));
                self.objects
                    .put(&object_key(&key)?, png, "image/png")
                    .await
                    .map_err(ApiError::internal)?;
                crate::tasks::row::file_url(&key)
            }
            None => String::new(),
        };
        let now = now_millis();
        let row = CharacterRow {
            id: id.clone(),
            owner: owner.to_owned(),
            name: req.name,
            description: req.description,
            persona: req.persona,
            scenario: req.scenario,
            greeting: req.greeting,
            alternate_greetings: req.alternate_greetings,
            example_dialogue: req.example_dialogue,
            system_prompt: req.system_prompt,
            post_history_instructions: req.post_history_instructions,
            creator_notes: req.creator_notes,
            tags: req.tags,
            gender: gender_from_wire(req.gender),
            character_type: req.character_type,
            avatar,
            settings: req
                .settings
                .as_ref()
                .map(settings_from_wire)
                .unwrap_or_default(),
            published: false,
            publish_at: 0,
            create_at: now,
            update_at: now,
            chat_count: 0,
            deleted: false,
        };
        self.insert(&row).await?;
        Ok(id)
    }

    /// The picture of a character for a PNG card: its avatar when that is a
    /// readable image, else a portrait drawn from its name. Never fails for
    /// lack of an avatar.
    pub async fn picture(&self, row: &CharacterRow) -> Result<image::RgbaImage, ApiError> {
        if let Some(key) = crate::tasks::object_key_of_url(&row.avatar) {
            if let Some(obj) = self
                .objects
                .get(&object_key(&key)?)
                .await
                .map_err(ApiError::internal)?
            {
                match image::load_from_memory(&obj.bytes) {
                    Ok(img) => return Ok(img.to_rgba8()),
                    Err(e) => tracing::warn!(error = %e, id = %row.id, "avatar not readable"),
                }
            }
        }
        Ok(card::portrait(&row.name))
    }

    /// `tavern-pro/card/export`: the V2 card of a character the viewer may
    /// see (their own, or a published one), as JSON or as a PNG of its
    /// avatar (or generated portrait) with the card inside.
    #[tracing::instrument(skip(self))]
    pub async fn export(
        &self,
        viewer: Option<&str>,
        id: &str,
        format: CardFormat,
    ) -> Result<ExportedCard, ApiError> {
        let row = self.visible(viewer, id).await?;
        let creator = self.owner_name(&mut BTreeMap::new(), &row.owner).await?;
        let json = card::to_v2_json(&row, &creator);
        let bytes = match format {
            CardFormat::Json => serde_json::to_vec_pretty(&json).map_err(ApiError::internal)?,
            CardFormat::Png => {
                let picture = self.picture(&row).await?;
                tokio::task::spawn_blocking(move || card::to_png(&picture, &json))
                    .await
                    .map_err(ApiError::internal)?
                    .map_err(ApiError::internal)?
            }
        };
        Ok(ExportedCard {
            bytes,
            file_name: format!("{}.{}", file_stem(&row.name), format.extension()),
            content_type: format.content_type(),
        })
    }
}

/// The two card files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardFormat {
    Png,
    Json,
}

impl CardFormat {
    /// `png` (the default) or `json`.
    pub fn parse(s: Option<&str>) -> Option<CardFormat> {
        match s.map(str::trim).filter(|s| !s.is_empty()) {
            None => Some(CardFormat::Png),
            Some(s) if s.eq_ignore_ascii_case("png") => Some(CardFormat::Png),
            Some(s) if s.eq_ignore_ascii_case("json") => Some(CardFormat::Json),
            Some(_) => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            CardFormat::Png => "png",
            CardFormat::Json => "json",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            CardFormat::Png => "image/png",
            CardFormat::Json => "application/json",
        }
    }
}

/// An exported card file.
#[derive(Debug, Clone)]
pub struct ExportedCard {
    pub bytes: Vec<u8>,
    /// Safe to put in a Content-Disposition header as is.
    pub file_name: String,
    pub content_type: &'static str,
}

/// A file name from a character name: ASCII letters, digits, `-`, `_` and
/// spaces kept, anything else (quotes, slashes, control and non-ASCII
/// characters) becomes `_`; at most 64 characters; never empty.
pub fn file_stem(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let cleaned = cleaned.trim().trim_matches('_').trim();
    if cleaned.is_empty() {
        "character".to_owned()
    } else {
        cleaned.to_owned()
    }
}

#[cfg(test)]
mod tests;
