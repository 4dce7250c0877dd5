//! Moderators: granted and revoked by operators (`moderation/moderator/*`),
//! each change written to the audit log.

use infra::store::{Key, ScanRange};
use protocol::moderation::{ObjKind, Role};
use protocol::ErrorCode;
use serde::Serialize;

use super::rows::ModeratorRow;
use super::{audit, ALL};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;

/// A moderator as the console lists them.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ModeratorView {
    pub account_id: String,
    pub name: String,
    pub granted_by: String,
    pub create_at: i64,
}

/// Makes `account` a moderator.
pub async fn grant(
    st: &AppState,
    op: &AccountRow,
    account: &str,
    reason: &str,
) -> Result<ModeratorView, ApiError> {
    let target = st.accounts.get(account).await?.ok_or(ErrorCode::NotFound)?;
    if st.accounts.is_admin(&target) {
        return Err(ErrorCode::ModerationStateConflict.into());
    }
    let row = ModeratorRow {
        account_id: target.id.clone(),
        granted_by: op.id.clone(),
        create_at: now_millis(),
    };
    if st
        .moderation
        .moderators
        .insert_if_absent(&Key::of(ALL), &Key::of(&target.id), &row)
        .await?
        .is_err()
    {
        return Err(ErrorCode::ModerationStateConflict.into());
    }
    audit(
        st,
        op,
        Role::Operator,
        "grant_moderator",
        ObjKind::Account,
        &target.id,
        &target.id,
        reason,
    )
    .await?;
    Ok(ModeratorView {
        account_id: row.account_id,
        name: target.name,
        granted_by: row.granted_by,
        create_at: row.create_at,
    })
}

/// Takes the moderator role back.
pub async fn revoke(
    st: &AppState,
    op: &AccountRow,
    account: &str,
    reason: &str,
) -> Result<(), ApiError> {
    let m = &st.moderation;
    if m.moderators
        .get(&Key::of(ALL), &Key::of(account))
        .await?
        .is_none()
    {
        return Err(ErrorCode::ModerationStateConflict.into());
    }
    m.moderators
        .delete(&Key::of(ALL), &Key::of(account))
        .await?;
    audit(
        st,
        op,
        Role::Operator,
        "revoke_moderator",
        ObjKind::Account,
        account,
        account,
        reason,
    )
    .await?;
    Ok(())
}

/// Every moderator, in account id order.
pub async fn list(st: &AppState) -> Result<Vec<ModeratorView>, ApiError> {
    let mut out = Vec::new();
    let mut paging = None;
    loop {
        let page = st
            .moderation
            .moderators
            .scan(&Key::of(ALL), &ScanRange::all(500).after(paging))
            .await?;
        for (_, r) in page.rows {
            let name = st.accounts.get(&r.account_id).await?.map(|a| a.name);
            out.push(ModeratorView {
                account_id: r.account_id,
                name: name.unwrap_or_default(),
                granted_by: r.granted_by,
                create_at: r.create_at,
            });
        }
        paging = page.paging;
        if paging.is_none() {
            break;
        }
    }
    Ok(out)
}
