//! The sweep (see `mod.rs`): deletions whose grace is over, one account at
//! a time from its step cursor, each step draining an owner index.

use std::future::Future;
use std::time::Duration;

use infra::store::{Key, ScanRange, Table, TableDef};
use protocol::ErrorCode;

use super::{due_pk, DeletionState, DeletionTables, STEPS};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;
use crate::tasks::Requester;

static SWEEP_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs every deletion whose grace is over, removing at most `budget`
/// items in all; answers how many accounts it finished.
pub async fn sweep_due(st: &AppState, now: i64, mut budget: u64) -> Result<usize, ApiError> {
    // One sweep at a time in a process (the timer and an operator's call):
    // two runners would both be right, but would redo each other's items.
    let _one = SWEEP_LOCK.lock().await;
    // Rows older than the owner index are listed once it is backfilled.
    super::backfill::ensure_backfilled(st).await?;
    let t = DeletionTables::new(st.store.clone());
    let mut finished = 0;
    loop {
        let page = t.due.scan(&due_pk(), &ScanRange::all(50)).await?;
        let mut progressed = false;
        for (ck, ()) in &page.rows {
            let mut r = ck.reader();
            let (Some(at), Some(account)) = (r.i64(), r.str()) else {
                t.due.delete(&due_pk(), ck).await?;
                continue;
            };
            if at > now {
                return Ok(finished);
            }
            if budget == 0 {
                return Ok(finished);
            }
            if sweep_account(st, &account, &mut budget).await? {
                t.due.delete(&due_pk(), ck).await?;
                finished += 1;
                progressed = true;
            } else {
                return Ok(finished);
            }
        }
        if !progressed {
            return Ok(finished);
        }
    }
}

/// Runs one account's sweep from its cursor, within `budget` items. Answers
/// whether it finished (or there was nothing to do).
pub async fn sweep_account(
    st: &AppState,
    account: &str,
    budget: &mut u64,
) -> Result<bool, ApiError> {
    let t = DeletionTables::new(st.store.clone());
    let pk = Key::of(account);
    let Some(mut req) = t.requests.get(&pk, &Key::empty()).await? else {
        return Ok(true);
    };
    if req.state == DeletionState::Done {
        return Ok(true);
    }
    if req.state == DeletionState::Pending {
        let mut next = req.clone();
        next.state = DeletionState::Sweeping;
        if t.requests
            .compare_and_set(&pk, &Key::empty(), &req, Some(&next))
            .await?
            .is_err()
        {
            // Cancelled (or taken) meanwhile: read again next time.
            return Ok(false);
        }
        req = next;
        tracing::info!(account, "account deletion sweep started");
    }
    let Some(owner) = st.accounts.get(account).await? else {
        return Ok(true);
    };
    while let Some(step) = STEPS.get(req.step as usize).copied() {
        let before = *budget;
        let done = super::steps::run(st, &owner, step, budget).await?;
        req.removed += before - *budget;
        if done {
            req.step += 1;
        }
        t.requests.put(&pk, &Key::empty(), &req).await?;
        if !done {
            return Ok(false);
        }
    }
    req.state = DeletionState::Done;
    req.done_at = Some(now_millis());
    t.requests.put(&pk, &Key::empty(), &req).await?;
    tracing::info!(account, removed = req.removed, "account deleted");
    Ok(true)
}

/// Removes the index entries of `pk` in `table`, calling `remove` with each
/// entry's id first, until the partition is empty (`true`) or the budget
/// runs out (`false`). Errors of the domain (the item is gone, not the
/// owner's any more, already left) end that item; store errors stop the
/// sweep, which the next run resumes.
pub(crate) async fn drain<F, Fut>(
    st: &AppState,
    table: &'static TableDef,
    pk: Key,
    time_then_id: bool,
    budget: &mut u64,
    mut remove: F,
) -> Result<bool, ApiError>
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Result<(), ApiError>>,
{
    let index: Table<serde_json::Value> = Table::new(st.store.clone(), table);
    loop {
        let page = index.scan(&pk, &ScanRange::all(50)).await?;
        if page.rows.is_empty() {
            return Ok(true);
        }
        for (ck, _) in &page.rows {
            if *budget == 0 {
                return Ok(false);
            }
            let mut r = ck.reader();
            if time_then_id {
                let _ = r.i64();
            }
            if let Some(id) = r.str() {
                match remove(id).await {
                    Ok(()) => {}
                    Err(e) if matches!(e.code, ErrorCode::Internal | ErrorCode::Unavailable) => {
                        return Err(e)
                    }
                    Err(e) => {
                        tracing::debug!(table = table.name, code = %e.code, "deletion: item skipped")
                    }
                }
            }
            index.delete(&pk, ck).await?;
            *budget = budget.saturating_sub(1);
        }
    }
}

/// Removes a task the way its owner would.
pub(crate) async fn remove_task(
    st: &AppState,
    owner: &AccountRow,
    id: &str,
) -> Result<(), ApiError> {
    st.tasks
        .delete(&Requester::Account(Box::new(owner.clone())), id)
        .await
}

/// Anonymises the row: the last step.
pub(crate) async fn finish_identity(st: &AppState, account: &str) -> Result<(), ApiError> {
    st.phones.release(account).await?;
    // Links, language and notification choices go with the person.
    st.security
        .profiles
        .delete(&Key::of(account), &Key::empty())
        .await?;
    st.accounts.anonymise(account).await?;
    st.square.author_changed(account).await?;
    Ok(())
}

/// The sweeper: every `every`, the deletions whose grace is over.
pub fn start_sweeper(st: actix_web::web::Data<AppState>, every: Duration) {
    actix_web::rt::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            match sweep_due(&st, now_millis(), u64::MAX).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(accounts = n, "account deletion sweep"),
                Err(e) => tracing::warn!(error = %e, "account deletion sweep failed"),
            }
        }
    });
}
