//! Account bans with a duration and a reason (`moderation/ban`, `unban`,
//! `ban/list`; the operator's `admin/account/status` remains a permanent
//! ban). A ban sets the account's status to disabled, which ends its
//! tokens and closes its sockets (4403) at once, takes its works out of
//! feeds and search, and cancels its open tasks through the task
//! service's cancel path (each hold is voided exactly once by the task
//! core's compare-and-set). The sweeper lifts bans whose time is up.

use std::time::Duration;

use infra::store::{Key, ScanRange};
use protocol::account::status;
use protocol::moderation::{
    ban_duration, mod_reason, AuditEntry, BanRequest, BanView, ObjKind, Role,
};
use protocol::ErrorCode;

use super::rows::BanRow;
use super::{audit, may_act_on, page_limit, paging, rule_error, ALL};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;
use crate::tasks::core::OPEN_BUCKETS;
use crate::tasks::machine::TaskOp;
use crate::tasks::row::Owner;

fn by_time_ck(at: i64, account: &str) -> Key {
    Key::empty().i64(at).str(account)
}

async fn view(st: &AppState, b: BanRow) -> Result<BanView, ApiError> {
    let name = st.accounts.get(&b.account_id).await?.map(|a| a.name);
    let by_name = st.accounts.get(&b.by).await?.map(|a| a.name);
    Ok(BanView {
        account_id: b.account_id,
        name: name.unwrap_or_default(),
        reason: b.reason,
        by: b.by,
        by_name: by_name.unwrap_or_default(),
        create_at: b.create_at,
        until: b.until,
    })
}

/// Cancels every open task of `account`; answers how many it cancelled.
pub async fn cancel_tasks(st: &AppState, account: &str) -> Result<usize, ApiError> {
    let core = st.tasks.registry.core().clone();
    let owner = Owner::Account(account.to_owned());
    let mut n = 0;
    for bucket in 0..OPEN_BUCKETS {
        let pk = Key::empty().u64(bucket);
        let mut paging = None;
        loop {
            let page = core
                .open
                .scan(&pk, &ScanRange::all(500).after(paging))
                .await?;
            for (ck, _payer) in &page.rows {
                let Some(id) = ck.reader().str() else {
                    continue;
                };
                let Some(row) = core.get(&id).await? else {
                    continue;
                };
                if row.owner == owner && !row.status.is_final() {
                    st.tasks.registry.apply(&id, TaskOp::Cancel).await?;
                    n += 1;
                }
            }
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
    }
    Ok(n)
}

/// `moderation/ban`.
pub async fn ban(
    st: &AppState,
    actor: &AccountRow,
    role: Role,
    req: &BanRequest,
) -> Result<BanView, ApiError> {
    let reason = mod_reason(&req.reason).map_err(rule_error)?;
    let secs = ban_duration(req.duration_secs).map_err(rule_error)?;
    let target = st
        .accounts
        .get(&req.account_id)
        .await?
        .ok_or(ErrorCode::NotFound)?;
    if target.id == actor.id {
        return Err(ErrorCode::ModerationSelf.into());
    }
    may_act_on(st, role, &target.id).await?;
    if st.accounts.is_admin(&target) {
        // Operators come from settings: nobody bans them here.
        return Err(ErrorCode::ModerationTargetProtected.into());
    }
    let m = &st.moderation;
    let pk = Key::of(&target.id);
    let before = m.bans.get(&pk, &Key::empty()).await?;
    if let Some(b) = &before {
        if b.by_role == Role::Operator && role != Role::Operator {
            return Err(ErrorCode::ModerationTargetProtected.into());
        }
    }
    let now = now_millis();
    let until = secs.map_or(0, |s| now.saturating_add((s as i64).saturating_mul(1000)));
    let row = BanRow {
        account_id: target.id.clone(),
        reason: reason.clone(),
        by: actor.id.clone(),
        by_role: role,
        create_at: now,
        until,
    };
    m.bans.put(&pk, &Key::empty(), &row).await?;
    m.bans_by_time
        .put(&Key::of(ALL), &by_time_ck(now, &target.id), &())
        .await?;
    if let Some(b) = &before {
        if b.create_at != now {
            m.bans_by_time
                .delete(&Key::of(ALL), &by_time_ck(b.create_at, &target.id))
                .await?;
        }
    }
    st.accounts.set_status(&target.id, status::DISABLED).await?;
    st.square.author_changed(&target.id).await?;
    let cancelled = cancel_tasks(st, &target.id).await?;
    tracing::info!(cancelled, "account banned");
    let why = if until == 0 {
        reason.clone()
    } else {
        format!("{reason} (until {until})")
    };
    audit(
        st,
        actor,
        role,
        "ban",
        ObjKind::Account,
        &target.id,
        &target.id,
        &why,
    )
    .await?;
    view(st, row).await
}

/// Lifts a ban (`moderation/unban`, the operator's status call, expiry).
async fn lift(st: &AppState, account: &str) -> Result<(), ApiError> {
    let m = &st.moderation;
    let pk = Key::of(account);
    if let Some(b) = m.bans.get(&pk, &Key::empty()).await? {
        m.bans.delete(&pk, &Key::empty()).await?;
        m.bans_by_time
            .delete(&Key::of(ALL), &by_time_ck(b.create_at, account))
            .await?;
    }
    st.accounts.set_status(account, status::NORMAL).await?;
    st.square.author_changed(account).await?;
    Ok(())
}

/// `moderation/unban`.
pub async fn unban(
    st: &AppState,
    actor: &AccountRow,
    role: Role,
    account: &str,
    reason: &str,
) -> Result<(), ApiError> {
    let reason = mod_reason(reason).map_err(rule_error)?;
    let target = st.accounts.get(account).await?.ok_or(ErrorCode::NotFound)?;
    if target.id == actor.id {
        return Err(ErrorCode::ModerationSelf.into());
    }
    may_act_on(st, role, &target.id).await?;
    let row = st
        .moderation
        .bans
        .get(&Key::of(account), &Key::empty())
        .await?;
    match &row {
        Some(b) if b.by_role == Role::Operator && role != Role::Operator => {
            return Err(ErrorCode::ModerationTargetProtected.into());
        }
        // A ban by the operator's status call has no row: operators lift it.
        None if target.status == status::DISABLED && role != Role::Operator => {
            return Err(ErrorCode::ModerationTargetProtected.into());
        }
        None if target.status != status::DISABLED => {
            return Err(ErrorCode::ModerationStateConflict.into());
        }
        _ => {}
    }
    lift(st, account).await?;
    audit(
        st,
        actor,
        role,
        "unban",
        ObjKind::Account,
        account,
        account,
        &reason,
    )
    .await?;
    Ok(())
}

/// Active bans, newest first.
pub async fn list(
    st: &AppState,
    limit: u32,
    cursor: Option<&str>,
) -> Result<(Vec<BanView>, Option<String>), ApiError> {
    let m = &st.moderation;
    let page = m
        .bans_by_time
        .scan(
            &Key::of(ALL),
            &ScanRange::all(page_limit(limit))
                .desc()
                .after(paging(cursor)?),
        )
        .await?;
    let now = now_millis();
    let mut items = Vec::new();
    for (ck, ()) in page.rows {
        let mut r = ck.reader();
        let (Some(_), Some(account)) = (r.i64(), r.str()) else {
            continue;
        };
        if let Some(b) = m.bans.get(&Key::of(&account), &Key::empty()).await? {
            if b.until == 0 || b.until > now {
                items.push(view(st, b).await?);
            }
        }
    }
    Ok((items, page.paging.map(|p| p.to_hex())))
}

/// Lifts every ban whose time is up at `now`; answers how many.
pub async fn lift_expired(st: &AppState, now: i64) -> Result<usize, ApiError> {
    let m = &st.moderation;
    let mut due = Vec::new();
    let mut paging = None;
    loop {
        let page = m
            .bans_by_time
            .scan(&Key::of(ALL), &ScanRange::all(500).after(paging))
            .await?;
        for (ck, ()) in &page.rows {
            let mut r = ck.reader();
            if let (Some(_), Some(account)) = (r.i64(), r.str()) {
                if let Some(b) = m.bans.get(&Key::of(&account), &Key::empty()).await? {
                    if b.until > 0 && b.until <= now {
                        due.push(b);
                    }
                }
            }
        }
        paging = page.paging;
        if paging.is_none() {
            break;
        }
    }
    for b in &due {
        // Compare-and-set: a ban changed meanwhile (extended) stays.
        let pk = Key::of(&b.account_id);
        if m.bans
            .compare_and_set(&pk, &Key::empty(), b, None)
            .await?
            .is_err()
        {
            continue;
        }
        m.bans_by_time
            .delete(&Key::of(ALL), &by_time_ck(b.create_at, &b.account_id))
            .await?;
        st.accounts
            .set_status(&b.account_id, status::NORMAL)
            .await?;
        st.square.author_changed(&b.account_id).await?;
        st.moderation
            .record(&AuditEntry {
                id: uuid::Uuid::now_v7().simple().to_string(),
                actor: String::new(),
                actor_name: "ban expiry".into(),
                actor_role: b.by_role,
                action: "unban".into(),
                obj_type: ObjKind::Account.code(),
                obj_id: b.account_id.clone(),
                target_account: b.account_id.clone(),
                reason: "the ban's time is up".into(),
                create_at: now_millis(),
            })
            .await?;
    }
    Ok(due.len())
}

/// Lifts expired bans every `every` (`EASEL_BAN_SWEEP_SECS`, default 30).
pub fn start_sweeper(st: actix_web::web::Data<AppState>, every: Duration) {
    actix_web::rt::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            if let Err(e) = lift_expired(&st, now_millis()).await {
                tracing::warn!(error = %e, "moderation: lifting expired bans failed");
            }
        }
    });
}

/// `EASEL_BAN_SWEEP_SECS` (default 30, at least 1).
pub fn sweep_every_from_env() -> anyhow::Result<Duration> {
    match std::env::var("EASEL_BAN_SWEEP_SECS") {
        Ok(v) if !v.trim().is_empty() => {
            let n: u64 = v
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("EASEL_BAN_SWEEP_SECS must be a number"))?;
            Ok(Duration::from_secs(n.max(1)))
        }
        _ => Ok(Duration::from_secs(30)),
    }
}
