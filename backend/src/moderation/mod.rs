//! Moderation (issue 20; API in `/work/wt/MOD_API.md`): roles (operators
//! from `EASEL_ADMINS`, moderators granted by an operator), the append-only
//! audit log, users' reports and the moderators' queue (`reports.rs`),
//! hiding and feed bans of objects (`review.rs`), account bans with a
//! duration (`bans.rs`), and NSFW rating appeals (`appeals.rs`). The wire
//! types and rules are `protocol::moderation`.
//!
//! Every moderator action is checked against the caller's role on the
//! server, written to the audit log (`mod_audit`, and per object
//! `mod_audit_by_object`) by insert-if-absent, and never edited: no code
//! path updates or deletes an audit row.

pub mod appeals;
pub mod bans;
pub mod legacy;
pub mod reports;
pub mod review;
pub mod roles;
pub mod rows;
pub mod target;

use infra::store::{tables, DynStore, Key, PagingState, ScanRange, Table};
use protocol::moderation::{AuditEntry, ObjKind, Role, RuleError};
use protocol::ErrorCode;

pub use self::roles::{grant, list as list_moderators, revoke};
use self::rows::{AppealRow, BanRow, ModReportRow, ModStateRow, ModeratorRow};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;

/// The partition of the one-partition indexes.
const ALL: &str = "all";
/// Appeals per account per UTC day unless `EASEL_NSFW_APPEALS_PER_DAY` says otherwise.
pub const DEFAULT_APPEALS_PER_DAY: u32 = 3;

/// The moderation tables and settings.
#[derive(Clone)]
pub struct ModerationService {
    pub(crate) moderators: Table<ModeratorRow>,
    pub(crate) audit: Table<AuditEntry>,
    pub(crate) audit_by_object: Table<AuditEntry>,
    pub(crate) reports: Table<ModReportRow>,
    pub(crate) reports_open: Table<i64>,
    pub(crate) queue: Table<()>,
    pub(crate) queue_since: Table<i64>,
    pub(crate) states: Table<ModStateRow>,
    pub(crate) bans: Table<BanRow>,
    pub(crate) bans_by_time: Table<()>,
    pub(crate) appeals: Table<AppealRow>,
    pub(crate) appeal_by_object: Table<String>,
    pub(crate) appeal_days: Table<u32>,
    pub(crate) report_limit: std::sync::Arc<crate::ratelimit::RateLimiter>,
    pub appeals_per_day: u32,
}

impl ModerationService {
    /// `limits`: where the report limit counts (see `crate::ratelimit`).
    pub fn new(
        store: DynStore,
        appeals_per_day: u32,
        limits: &crate::ratelimit::RateLimits,
    ) -> ModerationService {
        ModerationService {
            moderators: Table::new(store.clone(), &tables::MOD_MODERATORS),
            audit: Table::new(store.clone(), &tables::MOD_AUDIT),
            audit_by_object: Table::new(store.clone(), &tables::MOD_AUDIT_BY_OBJECT),
            reports: Table::new(store.clone(), &tables::MOD_REPORTS),
            reports_open: Table::new(store.clone(), &tables::MOD_REPORTS_OPEN),
            queue: Table::new(store.clone(), &tables::MOD_QUEUE),
            queue_since: Table::new(store.clone(), &tables::MOD_QUEUE_SINCE),
            states: Table::new(store.clone(), &tables::MOD_STATES),
            bans: Table::new(store.clone(), &tables::MOD_BANS),
            bans_by_time: Table::new(store.clone(), &tables::MOD_BANS_BY_TIME),
            appeals: Table::new(store.clone(), &tables::MOD_APPEALS),
            appeal_by_object: Table::new(store.clone(), &tables::MOD_APPEAL_BY_OBJECT),
            appeal_days: Table::new(store, &tables::MOD_APPEAL_DAYS),
            report_limit: std::sync::Arc::new(limits.limiter(
                "reports",
                30,
                std::time::Duration::from_secs(3600),
            )),
            appeals_per_day,
        }
    }

    /// `EASEL_NSFW_APPEALS_PER_DAY` (default 3, at least 1).
    pub fn appeals_per_day_from_env() -> anyhow::Result<u32> {
        match std::env::var("EASEL_NSFW_APPEALS_PER_DAY") {
            Ok(v) if !v.trim().is_empty() => {
                let n: u32 = v
                    .trim()
                    .parse()
                    .map_err(|_| anyhow::anyhow!("EASEL_NSFW_APPEALS_PER_DAY must be a number"))?;
                Ok(n.max(1))
            }
            _ => Ok(DEFAULT_APPEALS_PER_DAY),
        }
    }

    /// Is `account` a granted moderator?
    pub async fn is_moderator(&self, account: &str) -> Result<bool, ApiError> {
        Ok(self
            .moderators
            .get(&Key::of(ALL), &Key::of(account))
            .await?
            .is_some())
    }

    /// Writes one audit entry (never changed afterwards).
    pub async fn record(&self, e: &AuditEntry) -> Result<(), ApiError> {
        let ck = Key::empty().i64(e.create_at).str(&e.id);
        // Insert-if-absent: an id is never written twice, so no entry is overwritten.
        let _ = self.audit.insert_if_absent(&Key::of(ALL), &ck, e).await?;
        if let Some(kind) = ObjKind::from_code(e.obj_type) {
            let _ = self
                .audit_by_object
                .insert_if_absent(&Key::of(&kind.key(&e.obj_id)), &ck, e)
                .await?;
        }
        Ok(())
    }

    /// The audit log, newest first.
    pub async fn audit_page(
        &self,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<(Vec<AuditEntry>, Option<String>), ApiError> {
        let page = self
            .audit
            .scan(
                &Key::of(ALL),
                &ScanRange::all(page_limit(limit))
                    .desc()
                    .after(paging(cursor)?),
            )
            .await?;
        Ok((
            page.rows.into_iter().map(|(_, e)| e).collect(),
            page.paging.map(|p| p.to_hex()),
        ))
    }

    /// One object's history, newest first (at most `n`).
    pub async fn history(
        &self,
        kind: ObjKind,
        id: &str,
        n: u32,
    ) -> Result<Vec<AuditEntry>, ApiError> {
        let page = self
            .audit_by_object
            .scan(&Key::of(&kind.key(id)), &ScanRange::all(n).desc())
            .await?;
        Ok(page.rows.into_iter().map(|(_, e)| e).collect())
    }

    /// The moderation state of an object, if any.
    pub async fn state(&self, kind: ObjKind, id: &str) -> Result<Option<ModStateRow>, ApiError> {
        Ok(self
            .states
            .get(&Key::of(&kind.key(id)), &Key::empty())
            .await?)
    }

    /// Is this object hidden from `viewer` (hidden, and `viewer` is not its owner)?
    pub async fn hidden_from(
        states: &Table<ModStateRow>,
        kind: ObjKind,
        id: &str,
        owner: &str,
        viewer: Option<&str>,
    ) -> Result<bool, ApiError> {
        if viewer == Some(owner) {
            return Ok(false);
        }
        Ok(states
            .get(&Key::of(&kind.key(id)), &Key::empty())
            .await?
            .is_some_and(|s| s.state == protocol::moderation::ModState::Hidden))
    }
}

/// A page size: 1 to 100, 20 when 0.
pub fn page_limit(limit: u32) -> u32 {
    if limit == 0 {
        20
    } else {
        limit.clamp(1, 100)
    }
}

/// A hex cursor, checked.
pub fn paging(cursor: Option<&str>) -> Result<Option<PagingState>, ApiError> {
    match cursor.filter(|c| !c.is_empty()) {
        None => Ok(None),
        Some(c) => PagingState::from_hex(c)
            .map(Some)
            .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "bad cursor")),
    }
}

/// The caller's role.
pub async fn role_of(st: &AppState, a: &AccountRow) -> Result<Role, ApiError> {
    if st.accounts.is_admin(a) {
        Ok(Role::Operator)
    } else if st.moderation.is_moderator(&a.id).await? {
        Ok(Role::Moderator)
    } else {
        Ok(Role::User)
    }
}

/// The caller's role when it moderates, else 40150.
pub async fn moderator(st: &AppState, a: &AccountRow) -> Result<Role, ApiError> {
    let r = role_of(st, a).await?;
    if r.moderates() {
        Ok(r)
    } else {
        Err(ErrorCode::ModeratorOnly.into())
    }
}

/// The caller when it is an operator, else 40150.
pub async fn operator(st: &AppState, a: &AccountRow) -> Result<(), ApiError> {
    if role_of(st, a).await? == Role::Operator {
        Ok(())
    } else {
        Err(ErrorCode::ModeratorOnly.into())
    }
}

/// A moderator may not act on an operator's or another moderator's
/// account or object; operators act on anyone.
pub async fn may_act_on(st: &AppState, actor: Role, owner: &str) -> Result<(), ApiError> {
    if actor == Role::Operator {
        return Ok(());
    }
    let Some(target) = st.accounts.get(owner).await? else {
        return Ok(());
    };
    if role_of(st, &target).await? >= Role::Moderator {
        return Err(ErrorCode::ModerationTargetProtected.into());
    }
    Ok(())
}

/// The envelope error of a broken rule.
pub fn rule_error(e: RuleError) -> ApiError {
    let code = match e {
        RuleError::Reason => ErrorCode::ReportReasonInvalid,
        RuleError::Text | RuleError::OtherNeedsText => ErrorCode::ReportTextInvalid,
        RuleError::ReasonRequired => ErrorCode::ModerationReasonRequired,
        RuleError::Duration => ErrorCode::BanDurationInvalid,
        RuleError::ObjType => ErrorCode::ModerationObjTypeInvalid,
    };
    ApiError::with_msg(code, e.to_string())
}

/// The object kind of a wire `obj_type`, else 40161.
pub fn kind_of(code: u8) -> Result<ObjKind, ApiError> {
    ObjKind::from_code(code).ok_or_else(|| rule_error(RuleError::ObjType))
}

/// Builds and records an audit entry for `actor`'s action.
#[allow(clippy::too_many_arguments)]
pub async fn audit(
    st: &AppState,
    actor: &AccountRow,
    role: Role,
    action: &str,
    kind: ObjKind,
    obj_id: &str,
    target_account: &str,
    reason: &str,
) -> Result<AuditEntry, ApiError> {
    let e = AuditEntry {
        id: uuid::Uuid::now_v7().simple().to_string(),
        actor: actor.id.clone(),
        actor_name: actor.name.clone(),
        actor_role: role,
        action: action.to_owned(),
        obj_type: kind.code(),
        obj_id: obj_id.to_owned(),
        target_account: target_account.to_owned(),
        reason: reason.to_owned(),
        create_at: now_millis(),
    };
    st.moderation.record(&e).await?;
    tracing::info!(action, obj_type = kind.code(), "moderation action");
    Ok(e)
}
