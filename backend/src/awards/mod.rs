//! Daily check-in and task awards (issue 22 part 2): the check-in service
//! (`checkin.rs`: one a day in the user's zone, streaks, rewards by the
//! operator's schedule), task awards (`tasks.rs`: first post of the day,
//! first generation, ... each paid once), the popups' unseen list, and
//! the operator's configuration. Credits move only through the ledger,
//! keyed so that each reward is paid exactly once however requests race;
//! the rules themselves are `protocol::awards`.

pub mod checkin;
pub mod clock;
pub mod tasks;

use std::sync::Arc;

use infra::store::{tables, DynStore, Key, Table};
use protocol::awards::{AwardConfig, AwardView};
use serde::{Deserialize, Serialize};

use crate::accounts::AccountService;
use crate::credits::Ledger;
use crate::error::ApiError;

pub use clock::Clock;

/// An account's check-ins (`CHECKIN_STATE`, pk account id).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckinRow {
    /// The last day checked in (days since 1970-01-01 in `tz`).
    pub last_day: Option<i32>,
    /// The streak that day completed.
    pub streak: u32,
    /// Days checked in ever.
    pub total: u32,
    /// What the last check-in paid (so a retry of that day pays the same).
    pub last_reward: i64,
    /// The account's zone, pinned at its first check-in (or its first
    /// choice): a client cannot move its day by sending another zone later;
    /// only `activity/checkin/time-zone` changes it (see `protocol::awards::rezone`).
    pub tz: Option<String>,
    /// The day whose temporary-credits popup was marked seen.
    pub popup_day: Option<i32>,
    /// When the last check-in was made (ms; none in rows written before it was kept).
    #[serde(default)]
    pub last_at: Option<i64>,
    /// The day of the ledger key the last check-in was paid under, when a
    /// zone change moved `last_day` away from it (none: `last_day`).
    #[serde(default)]
    pub paid_day: Option<i32>,
    /// No check-in before this instant (ms): set by a zone change.
    #[serde(default)]
    pub not_before: Option<i64>,
    /// When the zone was last changed (ms); choosing the first one does not count.
    #[serde(default)]
    pub tz_changed_at: Option<i64>,
}

#[derive(Clone)]
pub struct AwardService {
    inner: Arc<Inner>,
}

struct Inner {
    checkins: Table<CheckinRow>,
    config: Table<AwardConfig>,
    unseen: Table<AwardView>,
    ledger: Ledger,
    /// Pushes the "award granted" frame (13) to the account's sockets.
    accounts: AccountService,
    clock: Arc<dyn Clock>,
    /// The configuration until an operator changes it: the shipped one, with
    /// the task awards off when `EASEL_TASK_AWARDS=off` (check-in stays).
    shipped: AwardConfig,
}

/// The shipped configuration under `EASEL_TASK_AWARDS` (`on`, the default, or `off`).
fn shipped_from_env() -> AwardConfig {
    let mut shipped = AwardConfig::shipped();
    if std::env::var("EASEL_TASK_AWARDS").is_ok_and(|v| v.trim() == "off") {
        for a in &mut shipped.awards {
            a.enabled = false;
        }
    }
    shipped
}

impl AwardService {
    pub fn new(
        store: DynStore,
        ledger: Ledger,
        accounts: AccountService,
        clock: Arc<dyn Clock>,
    ) -> AwardService {
        AwardService {
            inner: Arc::new(Inner {
                checkins: Table::new(store.clone(), &tables::CHECKIN_STATE),
                config: Table::new(store.clone(), &tables::AWARD_CONFIG),
                unseen: Table::new(store, &tables::AWARD_UNSEEN),
                ledger,
                accounts,
                clock,
                shipped: shipped_from_env(),
            }),
        }
    }

    fn now(&self) -> i64 {
        self.inner.clock.now_ms()
    }

    /// The account's check-in record and its awards not shown yet (the
    /// data export).
    pub async fn of_account(
        &self,
        account: &str,
    ) -> Result<(Option<CheckinRow>, Vec<AwardView>), ApiError> {
        let pk = Key::of(account);
        let checkin = self.inner.checkins.get(&pk, &Key::empty()).await?;
        let mut unseen = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .inner
                .unseen
                .scan(&pk, &infra::store::ScanRange::all(500).after(paging))
                .await?;
            unseen.extend(page.rows.into_iter().map(|(_, v)| v));
            paging = page.paging;
            if paging.is_none() {
                return Ok((checkin, unseen));
            }
        }
    }

    /// Removes the account's check-in record and unseen awards (its
    /// deletion; what was paid stays in the ledger). Idempotent.
    pub async fn forget(&self, account: &str) -> Result<(), ApiError> {
        let pk = Key::of(account);
        self.inner.unseen.delete_partition(&pk).await?;
        self.inner.checkins.delete(&pk, &Key::empty()).await?;
        Ok(())
    }

    /// The operator's configuration, or the shipped one until they change it.
    pub async fn config(&self) -> Result<AwardConfig, ApiError> {
        Ok(self
            .inner
            .config
            .get(&config_pk(), &Key::empty())
            .await?
            .unwrap_or_else(|| self.inner.shipped.clone()))
    }

    /// Changes the configuration by compare-and-set (starting from the
    /// shipped one); `f` answers an error to refuse the change.
    pub async fn change_config(
        &self,
        mut f: impl FnMut(&mut AwardConfig) -> Result<(), ApiError>,
    ) -> Result<AwardConfig, ApiError> {
        let t = &self.inner.config;
        loop {
            let cur = t.get(&config_pk(), &Key::empty()).await?;
            let mut next = cur.clone().unwrap_or_else(|| self.inner.shipped.clone());
            f(&mut next)?;
            let applied = match &cur {
                None => t
                    .insert_if_absent(&config_pk(), &Key::empty(), &next)
                    .await?
                    .is_ok(),
                Some(c) => t
                    .compare_and_set(&config_pk(), &Key::empty(), c, Some(&next))
                    .await?
                    .is_ok(),
            };
            if applied {
                return Ok(next);
            }
        }
    }

    async fn checkin_row(&self, account: &str) -> Result<Option<CheckinRow>, ApiError> {
        Ok(self
            .inner
            .checkins
            .get(&Key::of(account), &Key::empty())
            .await?)
    }
}

fn config_pk() -> Key {
    Key::of("0")
}
