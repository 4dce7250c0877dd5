//! Account deletion (issue 21 item 6): the request (password re-entered),
//! the grace period, its cancel, and the sweep that removes or anonymises
//! the person's data everywhere once the grace is over.
//!
//! Storage: `DELETION_REQUESTS` (one row per account: times, state and the
//! sweep's step cursor), `DELETION_DUE` (requests by purge time, read by the
//! sweeper), and a [`DeletionMark`] on the account row itself, so sign-in
//! and token checks see it with the read they already make.
//!
//! The sweep runs [`STEPS`] in order. Each step drains an owner index: it
//! removes the first item through the domain's own delete (so feeds, search
//! and counters follow), then the index entry, and starts again; an index
//! found empty ends the step and moves the cursor. Every removal is
//! idempotent, so a crash anywhere is finished by the next run from the
//! cursor (`backend/tests/api/account_deletion.rs` kills the server
//! mid-sweep). What each domain does is in [`STEPS`]' docs.
//!
//! Files: `mod.rs` (types, request, status), `cancel.rs` (the cancel, by
//! password, phone code or provider), `sweep.rs` (the sweeper and
//! `drain`), `steps.rs` (each step), `extra.rs` (moderation, ornaments,
//! uploads), `engagement.rs` (check-ins, awards, analytics, surveys,
//! activities), `backfill.rs` (owner index of old rows).

use std::time::Duration;

use infra::store::{tables, Key, Table};
use protocol::account::status;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::{now_millis, AccountRow, AccountService, EmailClaim};
use crate::error::ApiError;
use crate::state::AppState;

mod backfill;
mod cancel;
mod engagement;
mod extra;
mod steps;
mod sweep;

pub use backfill::{ensure_backfilled, start_backfill};
pub use cancel::{cancel, CancelProof};
pub use sweep::{start_sweeper, sweep_account, sweep_due};

/// The name an account shows once deleted (comments it wrote on other
/// people's threads stay, authored by it).
pub const DELETED_NAME: &str = "Deleted user";

/// On the account row: a deletion asked for (or done).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeletionMark {
    /// When it was asked (ms).
    pub requested_at: i64,
    /// When the grace ends and the sweep may start (ms).
    pub purge_at: i64,
    /// The sweep finished: the row is an anonymous tombstone.
    #[serde(default)]
    pub done: bool,
}

impl DeletionMark {
    /// What sign-in answers for this account: 20010, with the purge time
    /// while the grace lasts (the web app then offers `account/delete/cancel`).
    pub fn refusal(&self) -> ApiError {
        if self.done {
            ApiError::with_msg(ErrorCode::ActNotAvailable, "this account was deleted")
        } else {
            ApiError::with_msg(
                ErrorCode::ActNotAvailable,
                format!("account deletion scheduled at {}", self.purge_at),
            )
        }
    }
}

/// Where a deletion stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeletionState {
    /// In its grace period: can be cancelled.
    Pending,
    /// The sweep started: no way back.
    Sweeping,
    /// Everything removed or anonymised.
    Done,
}

/// `DELETION_REQUESTS` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeletionRequest {
    pub account_id: String,
    pub requested_at: i64,
    pub purge_at: i64,
    pub state: DeletionState,
    /// The sweep's cursor: index in [`STEPS`] of the step to run next.
    pub step: u32,
    /// Items removed so far (works, chats, ...), for operators.
    pub removed: u64,
    #[serde(default)]
    pub done_at: Option<i64>,
}

/// What a deletion request answers (and operators read).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeletionView {
    pub account_id: String,
    pub state: DeletionState,
    pub requested_at: i64,
    pub purge_at: i64,
    pub step: u32,
    pub steps: u32,
    /// The step's name (`"done"` at the end).
    pub step_name: String,
    pub removed: u64,
    pub grace_days: u32,
}

/// One step of the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Square works: removed (feeds, detail, search, counters, their comments).
    Works,
    /// Characters: marked deleted and out of every list and search.
    Characters,
    /// Datacards: removed.
    Datacards,
    /// Character chat sessions and their messages: removed.
    Chats,
    /// Generation-agent conversations and messages: removed.
    Agent,
    /// IM channels: left; channels the person owns are disbanded.
    Channels,
    /// Generation tasks and their stored outputs: removed.
    Tasks,
    /// Models, their versions and files: removed.
    Models,
    /// Datasets: removed.
    Datasets,
    /// Training records: removed.
    Trainings,
    /// Timbres (voices) and their samples: removed.
    Timbres,
    /// Editor workspaces and media-bin materials: removed.
    Editor,
    /// Likes and collects the person gave: taken back (counts follow).
    Reactions,
    /// Follows both ways: ended (counts follow).
    Follows,
    /// The person's notifications: removed.
    Notifications,
    /// Moderation reports and appeals the person filed: removed; as a
    /// moderator, their grant ends and their decisions stay, anonymised.
    Moderation,
    /// Ornaments bought and worn: removed.
    Ornaments,
    /// Files the person uploaded (no object of theirs is left to use
    /// them): removed from the object store and the uploads table.
    Uploads,
    /// Data exports: object and row removed.
    Exports,
    /// Activity contributions and votes, survey answers, check-ins,
    /// unseen awards, the analytics opt-out (`engagement.rs`).
    Engagement,
    /// Sessions ended, e-mail and phone claims released, the row anonymised (kept as
    /// a tombstone so the ledger, orders and others' threads stay whole).
    Identity,
}

/// The sweep, in order.
pub const STEPS: &[Step] = &[
    Step::Works,
    Step::Characters,
    Step::Datacards,
    Step::Chats,
    Step::Agent,
    Step::Channels,
    Step::Tasks,
    Step::Models,
    Step::Datasets,
    Step::Trainings,
    Step::Timbres,
    Step::Editor,
    Step::Reactions,
    Step::Follows,
    Step::Notifications,
    Step::Moderation,
    Step::Ornaments,
    Step::Uploads,
    Step::Exports,
    // Added after the others: a sweep stopped at Identity by an older
    // build runs it first, none skips a step.
    Step::Engagement,
    Step::Identity,
];

impl Step {
    pub fn name(self) -> &'static str {
        match self {
            Step::Works => "works",
            Step::Characters => "characters",
            Step::Datacards => "datacards",
            Step::Chats => "chats",
            Step::Agent => "agent",
            Step::Channels => "channels",
            Step::Tasks => "tasks",
            Step::Models => "models",
            Step::Datasets => "datasets",
            Step::Trainings => "trainings",
            Step::Timbres => "timbres",
            Step::Editor => "editor",
            Step::Reactions => "reactions",
            Step::Follows => "follows",
            Step::Notifications => "notifications",
            Step::Moderation => "moderation",
            Step::Ornaments => "ornaments",
            Step::Uploads => "uploads",
            Step::Exports => "exports",
            Step::Engagement => "engagement",
            Step::Identity => "identity",
        }
    }
}

/// `EASEL_ACCOUNT_DELETION_GRACE_DAYS` (default 14; 0 sweeps at the next run).
pub fn grace_days_from_env() -> anyhow::Result<u32> {
    env_number("EASEL_ACCOUNT_DELETION_GRACE_DAYS", 14)
}

/// `EASEL_ACCOUNT_DELETION_SWEEP_SECS` (default 300, at least 1): how often
/// the sweeper looks for deletions whose grace is over.
pub fn sweep_every_from_env() -> anyhow::Result<Duration> {
    Ok(Duration::from_secs(
        env_number("EASEL_ACCOUNT_DELETION_SWEEP_SECS", 300)?.max(1) as u64,
    ))
}

fn env_number(name: &str, default: u32) -> anyhow::Result<u32> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse()
            .map_err(|_| anyhow::anyhow!("{name} must be a whole number")),
        _ => Ok(default),
    }
}

/// The deletion tables.
#[derive(Clone)]
pub struct DeletionTables {
    pub requests: Table<DeletionRequest>,
    pub due: Table<()>,
}

impl DeletionTables {
    pub fn new(store: infra::store::DynStore) -> DeletionTables {
        DeletionTables {
            requests: Table::new(store.clone(), &tables::DELETION_REQUESTS),
            due: Table::new(store, &tables::DELETION_DUE),
        }
    }
}

pub(super) fn due_pk() -> Key {
    Key::empty().u64(0)
}

pub(super) fn due_ck(purge_at: i64, account: &str) -> Key {
    Key::empty().i64(purge_at).str(account)
}

fn view(r: &DeletionRequest, grace_days: u32) -> DeletionView {
    let steps = STEPS.len() as u32;
    DeletionView {
        account_id: r.account_id.clone(),
        state: r.state,
        requested_at: r.requested_at,
        purge_at: r.purge_at,
        step: r.step,
        steps,
        step_name: STEPS
            .get(r.step as usize)
            .map_or("done", |s| s.name())
            .to_owned(),
        removed: r.removed,
        grace_days,
    }
}

impl AccountService {
    /// Marks the row (`None` clears the mark), compare-and-set on the latest row.
    pub(super) async fn set_deletion_mark(
        &self,
        account_id: &str,
        mark: Option<DeletionMark>,
    ) -> Result<AccountRow, ApiError> {
        self.accounts
            .update(&Key::of(account_id), &Key::empty(), None, |row| {
                row.deletion = mark.clone();
            })
            .await?
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// The sweep's last step: every session ended, the e-mail claim
    /// released (the address can sign up again), the row anonymised.
    pub(super) async fn anonymise(&self, account_id: &str) -> Result<(), ApiError> {
        self.end_sessions(account_id, None).await?;
        let Some(row) = self.get(account_id).await? else {
            return Ok(());
        };
        if !row.email.is_empty() {
            let key = Key::of(&row.email);
            if let Some(claim) = self.by_email.get(&key, &Key::empty()).await? {
                if claim.account_id == account_id {
                    // Only our own claim: a new sign-up may hold it already.
                    let _ = self
                        .by_email
                        .compare_and_set(&key, &Key::empty(), &claim, None::<&EmailClaim>)
                        .await?;
                }
            }
        }
        self.accounts
            .update(&Key::of(account_id), &Key::empty(), None, |row| {
                row.email = String::new();
                row.name = DELETED_NAME.to_owned();
                row.password_hash = String::new();
                row.device_code = String::new();
                row.status = status::DISABLED;
                row.perks = None;
                if let Some(m) = row.deletion.as_mut() {
                    m.done = true;
                }
            })
            .await?;
        Ok(())
    }
}

/// `account/delete/request`: records the request and its purge time, marks
/// the account and ends every session and socket. The caller re-entered its
/// password first ([`super::reauth::confirm`]).
pub async fn request(st: &AppState, caller: &super::Caller) -> Result<DeletionView, ApiError> {
    let grace_days = grace_days_from_env().map_err(ApiError::internal)?;
    let t = DeletionTables::new(st.store.clone());
    let id = &caller.account.id;
    let now = now_millis();
    let purge_at = now.saturating_add(i64::from(grace_days) * 86_400_000);
    let row = DeletionRequest {
        account_id: id.clone(),
        requested_at: now,
        purge_at,
        state: DeletionState::Pending,
        step: 0,
        removed: 0,
        done_at: None,
    };
    // The request row first: a mark without it is never left (a crash
    // before the mark leaves a request that the sweeper finds and carries
    // out, which is what was asked).
    let stored = match t
        .requests
        .insert_if_absent(&Key::of(id), &Key::empty(), &row)
        .await?
    {
        Ok(()) => row,
        Err(existing) => existing,
    };
    t.due
        .put(&due_pk(), &due_ck(stored.purge_at, id), &())
        .await?;
    st.accounts
        .set_deletion_mark(
            id,
            Some(DeletionMark {
                requested_at: stored.requested_at,
                purge_at: stored.purge_at,
                done: false,
            }),
        )
        .await?;
    st.accounts.end_sessions(id, None).await?;
    tracing::info!(account = %id, purge_at = stored.purge_at, "account deletion requested");
    Ok(view(&stored, grace_days))
}

/// An operator's view of an account's deletion.
pub async fn status_of(st: &AppState, account: &str) -> Result<DeletionView, ApiError> {
    let grace_days = grace_days_from_env().map_err(ApiError::internal)?;
    let t = DeletionTables::new(st.store.clone());
    let r = t
        .requests
        .get(&Key::of(account), &Key::empty())
        .await?
        .ok_or(ErrorCode::NotFound)?;
    Ok(view(&r, grace_days))
}
