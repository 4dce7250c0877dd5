//! The tavern's side tables and two of their calls: the user's chat persona
//! (who `{{user}}` is: `account/character/setting/...`, read by the chat
//! service for every prompt) and the weekly hot list
//! (`character/chat/recommend_hot`) with the per-day chat counts it reads.
//!
//! The hot list is exact for its window: `touch_recent` (called once per
//! new session) adds one to `(today, character)` in
//! `CHARACTER_CHATS_DAILY`, and the list sums the last seven UTC days'
//! partitions. A day's partition holds one small row per character chatted
//! that day; partitions older than the window are never read again (on
//! ScyllaDB a table TTL would drop them; on the embedded store they are a
//! few bytes per character and day).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::character::effective_limit;
use protocol::character_extras::{
    normalise_display_name, normalise_persona, HotCard, PersonaUpdate, PersonaView,
};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::moderation::{ModerationRow, ReportRow};
use super::CharacterService;
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::ratelimit::{RateLimiter, RateLimits};

/// Days the hot list counts, today included.
pub const HOT_WINDOW_DAYS: i64 = 7;
/// Most day-count rows read per day (the list is over the characters
/// chatted most among these; a day with more active characters is cut).
const MAX_DAY_SCAN: usize = 20_000;
/// Reports one account may send per hour (a changed report counts too).
pub const REPORTS_PER_HOUR: u32 = 10;

const DAY_MS: i64 = 86_400_000;

/// The UTC day number of a time in milliseconds.
pub fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// A stored chat persona. Both fields may be empty (then `{{user}}` is the
/// account name and nothing is said about the user).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PersonaRow {
    pub display_name: String,
    pub persona: String,
    pub update_at: i64,
}

/// Who `{{user}}` is in a chat: the name characters use, and the user's
/// self-description (empty when none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatUser {
    pub name: String,
    pub persona: String,
}

/// The side tables of the tavern, kept in one field of `CharacterService`.
#[derive(Clone)]
pub struct Extras {
    /// pk account · ck () → the chat persona.
    pub(super) personas: Table<PersonaRow>,
    /// pk character · ck reporter → the report (one per reporter).
    pub(super) reports: Table<ReportRow>,
    /// pk 0 · ck (update_at, character, reporter): the operators' list.
    pub(super) reports_by_time: Table<()>,
    /// pk character · ck (): unpublished by an operator.
    pub(super) moderation: Table<ModerationRow>,
    /// pk UTC day · ck character → chats started that day.
    pub(super) daily: Table<u64>,
    /// Reports per account (see [`REPORTS_PER_HOUR`]).
    pub(super) report_limit: Arc<RateLimiter>,
}

impl Extras {
    pub fn new(store: DynStore, limits: &RateLimits) -> Extras {
        Extras {
            personas: Table::new(store.clone(), &tables::CHAT_PERSONAS),
            reports: Table::new(store.clone(), &tables::CHARACTER_REPORTS),
            reports_by_time: Table::new(store.clone(), &tables::CHARACTER_REPORTS_BY_TIME),
            moderation: Table::new(store.clone(), &tables::CHARACTER_MODERATION),
            daily: Table::new(store, &tables::CHARACTER_CHATS_DAILY),
            report_limit: Arc::new(limits.limiter(
                "character_reports",
                REPORTS_PER_HOUR,
                Duration::from_secs(3600),
            )),
        }
    }
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

fn persona_view(account: &AccountRow, row: &PersonaRow) -> PersonaView {
    PersonaView {
        display_name: row.display_name.clone(),
        persona: row.persona.clone(),
        user_name: if row.display_name.is_empty() {
            account.name.clone()
        } else {
            row.display_name.clone()
        },
    }
}

impl CharacterService {
    // ---- Chat persona -----------------------------------------------------

    async fn persona_row(&self, account: &str) -> Result<PersonaRow, ApiError> {
        Ok(self
            .extras
            .personas
            .get(&Key::of(account), &Key::empty())
            .await?
            .unwrap_or_default())
    }

    /// Who `{{user}}` is in `account`'s chats: the display name (or the
    /// account name) and the persona.
    pub async fn chat_user(&self, account: &AccountRow) -> Result<ChatUser, ApiError> {
        let v = persona_view(account, &self.persona_row(&account.id).await?);
        Ok(ChatUser {
            name: v.user_name,
            persona: v.persona,
        })
    }

    /// `account/character/setting/get`.
    pub async fn persona(&self, account: &AccountRow) -> Result<PersonaView, ApiError> {
        Ok(persona_view(account, &self.persona_row(&account.id).await?))
    }

    /// `account/character/setting/update`: absent fields are kept, empty
    /// ones cleared. Last writer wins (only the account itself writes it).
    #[tracing::instrument(skip(self, account, req), fields(account = %account.id))]
    pub async fn update_persona(
        &self,
        account: &AccountRow,
        req: &PersonaUpdate,
    ) -> Result<PersonaView, ApiError> {
        let name = req
            .display_name
            .as_deref()
            .map(normalise_display_name)
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        let persona = req
            .persona
            .as_deref()
            .map(normalise_persona)
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        let mut row = self.persona_row(&account.id).await?;
        if let Some(n) = name {
            row.display_name = n;
        }
        if let Some(p) = persona {
            row.persona = p;
        }
        row.update_at = now_millis();
        self.extras
            .personas
            .put(&Key::of(&account.id), &Key::empty(), &row)
            .await?;
        Ok(persona_view(account, &row))
    }

    // ---- Weekly hot list --------------------------------------------------

    /// Counts one chat with `id` today (called by `touch_recent`).
    pub(super) async fn count_daily_chat(&self, id: &str) -> Result<(), ApiError> {
        let pk = Key::empty().i64(day_of(now_millis()));
        let ck = Key::of(id);
        loop {
            if self
                .extras
                .daily
                .insert_if_absent(&pk, &ck, &1)
                .await?
                .is_ok()
            {
                return Ok(());
            }
            let bumped = self
                .extras
                .daily
                .update(&pk, &ck, None, |n| *n = n.saturating_add(1))
                .await?;
            if bumped.is_some() {
                return Ok(());
            }
        }
    }

    /// Chats per character over the [`HOT_WINDOW_DAYS`] days ending on `today`.
    pub(super) async fn week_counts(&self, today: i64) -> Result<BTreeMap<String, u64>, ApiError> {
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for day in (today - HOT_WINDOW_DAYS + 1)..=today {
            let pk = Key::empty().i64(day);
            let mut paging = None;
            let mut read = 0usize;
            loop {
                let page = self
                    .extras
                    .daily
                    .scan(&pk, &ScanRange::all(500).after(paging))
                    .await?;
                for (ck, n) in &page.rows {
                    if let Some(id) = ck.reader().str() {
                        let c = counts.entry(id).or_default();
                        *c = c.saturating_add(*n);
                    }
                }
                read += page.rows.len();
                match page.paging {
                    Some(p) if read < MAX_DAY_SCAN => paging = Some(p),
                    _ => break,
                }
            }
        }
        Ok(counts)
    }

    /// `character/chat/recommend_hot`: the published characters with the
    /// most chats started in the last seven days (ties: more chats overall,
    /// then id). Characters nobody chatted with this week are not listed.
    #[tracing::instrument(skip(self))]
    pub async fn recommend_hot(&self, limit: u32) -> Result<Vec<HotCard>, ApiError> {
        let limit = effective_limit(limit) as usize;
        let counts = self.week_counts(day_of(now_millis())).await?;
        let mut ranked: Vec<(String, u64)> = counts.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut rows = Vec::new();
        for (id, n) in ranked {
            if let Some(r) = self.row(&id).await?.filter(|r| r.published && !r.deleted) {
                rows.push((r, n));
            }
            // Read a few past the limit so ties can be ordered by total chats.
            if rows.len() >= limit.saturating_add(8) {
                break;
            }
        }
        rows.sort_by(|(a, na), (b, nb)| {
            nb.cmp(na)
                .then(b.chat_count.cmp(&a.chat_count))
                .then(a.id.cmp(&b.id))
        });
        rows.truncate(limit);
        let (rows, weeks): (Vec<_>, Vec<u64>) = rows.into_iter().unzip();
        let cards = self.cards(&rows).await?;
        Ok(cards
            .into_iter()
            .zip(weeks)
            .map(|(card, week_chats)| HotCard { card, week_chats })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn days_are_utc_and_floor() {
        assert_eq!(day_of(0), 0);
        assert_eq!(day_of(DAY_MS - 1), 0);
        assert_eq!(day_of(DAY_MS), 1);
        assert_eq!(day_of(-1), -1);
    }

    #[tokio::test]
    async fn the_week_counts_seven_days_and_today() {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(
            infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap(),
        );
        let objects: infra::objects::DynObjects =
            Arc::new(infra::objects::LocalObjects::new(dir.path().join("o")).unwrap());
        let s = CharacterService::new(store, objects, &crate::ratelimit::RateLimits::local());
        let today = day_of(now_millis());
        // Counted today through the service, and older days written directly.
        s.count_daily_chat("a").await.unwrap();
        s.count_daily_chat("a").await.unwrap();
        s.count_daily_chat("b").await.unwrap();
        let put = |day: i64, id: &'static str, n: u64| {
            let daily = s.extras.daily.clone();
            async move {
                daily
                    .put(&Key::empty().i64(day), &Key::of(id), &n)
                    .await
                    .unwrap()
            }
        };
        put(today - 6, "b", 5).await; // the oldest day in the window
        put(today - 7, "a", 100).await; // a day too old
        put(today - 7, "c", 100).await;
        put(today + 1, "c", 100).await; // not yet
        let counts = s.week_counts(today).await.unwrap();
        assert_eq!(
            counts.into_iter().collect::<Vec<_>>(),
            [("a".to_owned(), 2), ("b".to_owned(), 6)]
        );
        // Seven days on, only tomorrow's entry is still in the window.
        let later = s.week_counts(today + 7).await.unwrap();
        assert_eq!(
            later.into_iter().collect::<Vec<_>>(),
            [("c".to_owned(), 100)]
        );
    }

    #[test]
    fn the_user_name_falls_back_to_the_account_name() {
        let account = AccountRow {
            id: "a".into(),
            email: "a@example.com".into(),
            name: "Alice".into(),
            password_hash: String::new(),
            status: 1,
            create_at: 0,
            device_code: String::new(),
            settings: Default::default(),
            payment: Default::default(),
            company: false,
            perks: None,
            deletion: None,
            email_verified: false,
        };
        let mut row = PersonaRow::default();
        assert_eq!(persona_view(&account, &row).user_name, "Alice");
        row.display_name = "Captain".into();
        assert_eq!(persona_view(&account, &row).user_name, "Captain");
    }
}
