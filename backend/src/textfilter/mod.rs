//! The text filter's service: the effective list (the default list shipped
//! in `protocol/src/textfilter/default_list.json`, overlaid by operators'
//! entries and deletions stored in `TEXT_FILTER_ENTRIES`), compiled once and
//! swapped atomically on change, and the one call every write path makes
//! ([`TextFilterService::apply`]: mask in place, or refuse).
//!
//! Operators' writes are validated by compiling the whole new list before
//! anything is stored, so a stored list always compiles. Every node reloads
//! from the Store after its own writes and every `EASEL_TEXT_FILTER_RELOAD_MS`
//! (default 30 000; 0 never), so other nodes follow an operator's change
//! within that period.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::textfilter::wire::{EntryList, EntrySource, EntryView};
use protocol::textfilter::{default_list, Entry, Scene, TextFilter, Verdict};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::now_millis;
use crate::error::ApiError;

mod paths;
pub mod stream;
pub use paths::Filtered;
pub use stream::{Released, StreamFilter};

/// The table's one partition.
const BUCKET: &str = "entries";
/// Rows read per page when loading.
const PAGE: u32 = 500;
/// Most operator rows (entries and deletions) kept.
pub const MAX_STORED_ENTRIES: usize = 5_000;

/// `TEXT_FILTER_ENTRIES` row: an operator's entry, or the deletion of a
/// default one (`entry: None`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEntry {
    pub id: String,
    pub entry: Option<Entry>,
    pub updated_at: i64,
    /// The operator's account id.
    pub updated_by: String,
}

/// The compiled list and how it was made.
struct Compiled {
    filter: TextFilter,
    views: Vec<EntryView>,
    deleted_defaults: Vec<String>,
}

#[derive(Clone)]
pub struct TextFilterService {
    rows: Table<StoredEntry>,
    current: Arc<ArcSwap<Compiled>>,
    /// Serialises reloads so an older read never replaces a newer one.
    reloading: Arc<tokio::sync::Mutex<()>>,
}

/// Builds the effective list: defaults, then stored rows by id.
fn effective(stored: &[StoredEntry]) -> (Vec<EntryView>, Vec<String>) {
    let mut by_id: BTreeMap<String, EntryView> = default_list()
        .into_iter()
        .map(|entry| {
            (
                entry.id.clone(),
                EntryView {
                    entry,
                    source: EntrySource::Default,
                    updated_at: 0,
                },
            )
        })
        .collect();
    let mut deleted = Vec::new();
    for row in stored {
        match &row.entry {
            Some(entry) => {
                by_id.insert(
                    row.id.clone(),
                    EntryView {
                        entry: entry.clone(),
                        source: EntrySource::Operator,
                        updated_at: row.updated_at,
                    },
                );
            }
            None => {
                if by_id.remove(&row.id).is_some() {
                    deleted.push(row.id.clone());
                }
            }
        }
    }
    (by_id.into_values().collect(), deleted)
}

/// Compiles the effective list; an entry that no longer compiles (a stored
/// pattern a newer `regex` refuses) is left out with a warning rather than
/// stopping the server.
fn compile(stored: &[StoredEntry]) -> Compiled {
    let (mut views, deleted_defaults) = effective(stored);
    views.retain(|v| match TextFilter::compile(vec![v.entry.clone()]) {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(error = %e, "text filter: entry left out");
            false
        }
    });
    let entries: Vec<Entry> = views.iter().map(|v| v.entry.clone()).collect();
    let filter = TextFilter::compile(entries).unwrap_or_else(|e| {
        tracing::error!(error = %e, "text filter: list does not compile; using none");
        TextFilter::empty()
    });
    Compiled {
        filter,
        views,
        deleted_defaults,
    }
}

fn invalid(e: impl std::fmt::Display) -> ApiError {
    ApiError::with_msg(ErrorCode::TextFilterEntryInvalid, e.to_string())
}

impl TextFilterService {
    /// Loads and compiles the list.
    pub async fn new(store: DynStore) -> Result<TextFilterService, ApiError> {
        let service = TextFilterService {
            rows: Table::new(store, &tables::TEXT_FILTER_ENTRIES),
            current: Arc::new(ArcSwap::from_pointee(compile(&[]))),
            reloading: Arc::new(tokio::sync::Mutex::new(())),
        };
        service.reload().await?;
        Ok(service)
    }

    /// Reloads every `every` in the background (`None`: never).
    pub fn start(&self, every: Option<Duration>) {
        let Some(every) = every else { return };
        let service = self.clone();
        actix_web::rt::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tick.tick().await;
                if let Err(e) = service.reload().await {
                    tracing::warn!(error = %e, "text filter: reload failed");
                }
            }
        });
    }

    /// The reload period from `EASEL_TEXT_FILTER_RELOAD_MS`.
    pub fn reload_period() -> Result<Option<Duration>, anyhow::Error> {
        let ms: u64 = match std::env::var("EASEL_TEXT_FILTER_RELOAD_MS") {
            Ok(v) => v
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("EASEL_TEXT_FILTER_RELOAD_MS must be a number"))?,
            Err(_) => 30_000,
        };
        Ok((ms > 0).then(|| Duration::from_millis(ms)))
    }

    async fn stored(&self) -> Result<Vec<StoredEntry>, ApiError> {
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .rows
                .scan(&Key::of(BUCKET), &ScanRange::all(PAGE).after(paging))
                .await?;
            out.extend(page.rows.into_iter().map(|(_, row)| row));
            match page.paging {
                Some(p) if out.len() < MAX_STORED_ENTRIES => paging = Some(p),
                _ => break,
            }
        }
        Ok(out)
    }

    /// Reads the Store and swaps the compiled list in.
    pub async fn reload(&self) -> Result<(), ApiError> {
        let _one_at_a_time = self.reloading.lock().await;
        let stored = self.stored().await?;
        self.current.store(Arc::new(compile(&stored)));
        Ok(())
    }

    /// Checks `text` written in `scene`.
    pub fn check(&self, text: &str, scene: Scene) -> Verdict {
        self.current.load().filter.check(text, scene)
    }

    /// The one call of every write path: a text matching a refusing entry
    /// answers `refusal` (40170 `textViolatesRules` for most, 40171 for task
    /// prompts, 70020 in polish); a masking match replaces the text by its
    /// masked form.
    pub fn apply_with(
        &self,
        scene: Scene,
        text: &mut String,
        refusal: ErrorCode,
    ) -> Result<(), ApiError> {
        if text.is_empty() {
            return Ok(());
        }
        let verdict = self.check(text, scene);
        if verdict.refused {
            let categories: Vec<&str> = verdict
                .hits
                .iter()
                .filter(|h| h.action == protocol::textfilter::Action::Refuse)
                .map(|h| h.category.as_str())
                .collect();
            tracing::info!(
                scene = scene.as_str(),
                ?categories,
                "text refused by the filter"
            );
            return Err(ApiError::with_msg(
                refusal,
                format!(
                    "this {} violates the content rules",
                    match scene {
                        Scene::Character => "character text",
                        other => other.as_str(),
                    }
                ),
            ));
        }
        if !verdict.hits.is_empty() {
            *text = verdict.masked;
        }
        Ok(())
    }

    /// [`Self::apply_with`] answering 40170 `textViolatesRules`.
    pub fn apply(&self, scene: Scene, text: &mut String) -> Result<(), ApiError> {
        self.apply_with(scene, text, ErrorCode::TextViolatesRules)
    }

    /// [`Self::apply`] on an optional text.
    pub fn apply_opt(&self, scene: Scene, text: &mut Option<String>) -> Result<(), ApiError> {
        match text {
            Some(t) => self.apply(scene, t),
            None => Ok(()),
        }
    }

    /// [`Self::apply`] on several texts of one scene (tags, a list).
    pub fn apply_all(&self, scene: Scene, texts: &mut [String]) -> Result<(), ApiError> {
        texts.iter_mut().try_for_each(|t| self.apply(scene, t))
    }

    /// Whether a prompt would be refused: a refusing entry of the prompt
    /// scene, or the polish content rule (a minor named with a sexual term,
    /// `polish/rules.rs`) on the text or on its folded words (so "ｃｈｉｌｄ",
    /// "k1d" and "n.u.d.e" count).
    pub fn refuses_prompt(&self, text: &str) -> bool {
        self.check(text, Scene::Prompt).refused || Self::breaks_prompt_rule(text)
    }

    /// The polish content rule, on the text and its folded words.
    pub fn breaks_prompt_rule(text: &str) -> bool {
        use crate::polish::rules::violates;
        violates(text) || violates(&protocol::textfilter::normalise::folded_words(text))
    }

    /// The effective list for operators.
    pub fn list(&self) -> EntryList {
        let current = self.current.load();
        EntryList {
            list: current.views.clone(),
            deleted_defaults: current.deleted_defaults.clone(),
        }
    }

    /// Adds or replaces an entry (a default one's id overrides it).
    pub async fn upsert(&self, operator: &str, entry: Entry) -> Result<EntryView, ApiError> {
        let mut stored = self.stored().await?;
        if stored.len() >= MAX_STORED_ENTRIES && !stored.iter().any(|r| r.id == entry.id) {
            return Err(invalid("the list is full"));
        }
        TextFilter::compile(vec![entry.clone()]).map_err(invalid)?;
        let row = StoredEntry {
            id: entry.id.clone(),
            entry: Some(entry.clone()),
            updated_at: now_millis(),
            updated_by: operator.to_owned(),
        };
        stored.retain(|r| r.id != row.id);
        stored.push(row.clone());
        // The whole list must still compile before anything is stored.
        let (views, _) = effective(&stored);
        TextFilter::compile(views.into_iter().map(|v| v.entry).collect()).map_err(invalid)?;
        self.rows
            .put(&Key::of(BUCKET), &Key::of(&row.id), &row)
            .await?;
        tracing::info!(id = %row.id, operator, "text filter entry written");
        self.reload().await?;
        Ok(EntryView {
            entry,
            source: EntrySource::Operator,
            updated_at: row.updated_at,
        })
    }

    /// Deletes an entry: an operator's row goes; a default entry is marked
    /// deleted. An unknown id answers NotFound.
    pub async fn delete(&self, operator: &str, id: &str) -> Result<(), ApiError> {
        let is_default = default_list().iter().any(|e| e.id == id);
        let pk = Key::of(BUCKET);
        let ck = Key::of(id);
        let present = self.rows.get(&pk, &ck).await?;
        match (is_default, present) {
            (true, Some(StoredEntry { entry: None, .. })) | (false, None) => {
                return Err(ErrorCode::NotFound.into())
            }
            (true, _) => {
                let row = StoredEntry {
                    id: id.to_owned(),
                    entry: None,
                    updated_at: now_millis(),
                    updated_by: operator.to_owned(),
                };
                self.rows.put(&pk, &ck, &row).await?;
            }
            (false, Some(_)) => self.rows.delete(&pk, &ck).await?,
        }
        tracing::info!(id, operator, "text filter entry deleted");
        self.reload().await
    }

    /// Brings a deleted or edited default entry back to its shipped form.
    pub async fn restore_default(&self, id: &str) -> Result<(), ApiError> {
        if !default_list().iter().any(|e| e.id == id) {
            return Err(ErrorCode::NotFound.into());
        }
        self.rows.delete(&Key::of(BUCKET), &Key::of(id)).await?;
        self.reload().await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn row(id: &str, entry: Option<Entry>) -> StoredEntry {
        StoredEntry {
            id: id.into(),
            entry,
            updated_at: 1,
            updated_by: "op".into(),
        }
    }

    #[test]
    fn stored_rows_overlay_the_defaults() {
        let (views, deleted) = effective(&[]);
        assert_eq!(views.len(), default_list().len());
        assert!(deleted.is_empty());

        let mut edited = default_list()
            .into_iter()
            .find(|e| e.id == "default.en.ass")
            .unwrap();
        edited.action = protocol::textfilter::Action::Refuse;
        let extra = Entry {
            id: "op.grape".into(),
            term: "grape".into(),
            ..edited.clone()
        };
        let stored = vec![
            row("default.en.fuck", None),
            row("default.en.ass", Some(edited)),
            row("op.grape", Some(extra)),
            row("never.existed", None),
        ];
        let c = compile(&stored);
        assert_eq!(c.deleted_defaults, vec!["default.en.fuck".to_owned()]);
        assert_eq!(c.views.len(), default_list().len());
        assert!(c.filter.check("fuck", Scene::Comment).is_clean());
        assert!(c.filter.check("a grape", Scene::Comment).refused);
        assert!(c.filter.check("a55", Scene::Comment).refused);
    }

    fn entry(id: &str, term: &str, action: protocol::textfilter::Action) -> Entry {
        Entry {
            id: id.into(),
            term: term.into(),
            kind: protocol::textfilter::Kind::Word,
            lang: "en".into(),
            category: "test".into(),
            action,
            scenes: vec![],
            whole_word: true,
        }
    }

    /// Two nodes on one store: a change made on one is seen by the other at
    /// its next reload, and the other's compiled list is never half-made.
    #[tokio::test]
    async fn another_node_follows_after_its_reload() {
        use protocol::textfilter::Action;
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(
            infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap(),
        );
        let a = TextFilterService::new(store.clone()).await.unwrap();
        let b = TextFilterService::new(store).await.unwrap();
        a.upsert("op", entry("op.grape", "grape", Action::Refuse))
            .await
            .unwrap();
        assert!(a.check("grape", Scene::Name).refused);
        assert!(b.check("grape", Scene::Name).is_clean(), "not reloaded yet");
        b.reload().await.unwrap();
        assert!(b.check("grape", Scene::Name).refused);

        // A bad entry is refused and stores nothing.
        let mut bad = entry("op.bad", "(", Action::Mask);
        bad.kind = protocol::textfilter::Kind::Pattern;
        let e = a.upsert("op", bad).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::TextFilterEntryInvalid);
        b.reload().await.unwrap();
        assert!(!b.list().list.iter().any(|v| v.entry.id == "op.bad"));

        // apply: masks in place, refuses with the key, leaves clean text alone.
        let mut text = "what the fuck".to_owned();
        a.apply(Scene::Comment, &mut text).unwrap();
        assert_eq!(text, "what the ****");
        let mut text = "a grape".to_owned();
        let e = a.apply(Scene::Comment, &mut text).unwrap_err();
        assert_eq!(e.code, ErrorCode::TextViolatesRules);
        let mut text = "a quiet sea".to_owned();
        a.apply(Scene::Comment, &mut text).unwrap();
        assert_eq!(text, "a quiet sea");
    }

    #[test]
    fn the_prompt_rule_sees_through_evasions() {
        assert!(TextFilterService::breaks_prompt_rule("a nude child"));
        assert!(TextFilterService::breaks_prompt_rule("a ｎｕｄｅ k1d"));
        assert!(TextFilterService::breaks_prompt_rule(
            "n.u.d.e, little g-i-r-l"
        ));
        assert!(!TextFilterService::breaks_prompt_rule(
            "a child flying a kite"
        ));
        assert!(!TextFilterService::breaks_prompt_rule(
            "kidney beans, a nude statue"
        ));
    }

    #[test]
    fn an_entry_that_does_not_compile_is_left_out() {
        let bad = Entry {
            id: "op.bad".into(),
            term: "(".into(),
            kind: protocol::textfilter::Kind::Pattern,
            lang: "*".into(),
            category: "x".into(),
            action: protocol::textfilter::Action::Mask,
            scenes: vec![],
            whole_word: true,
        };
        let c = compile(&[row("op.bad", Some(bad))]);
        assert_eq!(c.views.len(), default_list().len());
        assert!(c.filter.check("shit", Scene::Comment).hits.len() == 1);
    }
}
