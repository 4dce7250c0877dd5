//! `review/hide`, `review/unhide`, `review/ban`, `review/unban`: a
//! moderator hides an object from everyone but its owner, or takes a work
//! out of feeds and search (it still opens by its link and on its author's
//! profile), and restores it. The owner sees the reason on the work's
//! detail and in a notification (frame 13). A moderator cannot act on an
//! operator's or another moderator's object, nor undo an operator's action.

use protocol::moderation::{mod_reason, ModState, ModerationView, ObjKind, Role};
use protocol::square::social::NotificationKind;
use protocol::ErrorCode;

use super::rows::ModStateRow;
use super::target::resolve;
use super::{audit, may_act_on, rule_error};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;
use infra::store::Key;

fn check_kind(kind: ObjKind, state: ModState) -> Result<(), ApiError> {
    let ok = match state {
        ModState::Hidden => kind.hideable(),
        ModState::FeedBanned => kind == ObjKind::Work,
    };
    if ok {
        Ok(())
    } else {
        Err(rule_error(protocol::moderation::RuleError::ObjType))
    }
}

fn action(state: ModState, on: bool) -> &'static str {
    match (state, on) {
        (ModState::Hidden, true) => "hide",
        (ModState::Hidden, false) => "unhide",
        (ModState::FeedBanned, true) => "feed_ban",
        (ModState::FeedBanned, false) => "feed_unban",
    }
}

/// Puts `kind`/`id` in `state`.
pub async fn apply(
    st: &AppState,
    actor: &AccountRow,
    role: Role,
    kind: ObjKind,
    id: &str,
    state: ModState,
    reason: &str,
) -> Result<(), ApiError> {
    check_kind(kind, state)?;
    let reason = mod_reason(reason).map_err(rule_error)?;
    let t = resolve(st, None, kind, id).await?;
    if t.owner == actor.id && role != Role::Operator {
        return Err(ErrorCode::ModerationSelf.into());
    }
    may_act_on(st, role, &t.owner).await?;
    let m = &st.moderation;
    let pk = Key::of(&kind.key(&t.id));
    if let Some(before) = m.states.get(&pk, &Key::empty()).await? {
        if before.state == state {
            return Err(ErrorCode::ModerationStateConflict.into());
        }
        if before.by_role == Role::Operator && role != Role::Operator {
            return Err(ErrorCode::ModerationTargetProtected.into());
        }
    }
    let now = now_millis();
    m.states
        .put(
            &pk,
            &Key::empty(),
            &ModStateRow {
                state,
                owner: t.owner.clone(),
                reason: reason.clone(),
                by: actor.id.clone(),
                by_role: role,
                at: now,
            },
        )
        .await?;
    if kind == ObjKind::Work {
        st.square
            .set_moderation(
                &t.id,
                Some(ModerationView {
                    state,
                    reason: reason.clone(),
                    at: now,
                }),
            )
            .await?;
    }
    audit(
        st,
        actor,
        role,
        action(state, true),
        kind,
        &t.id,
        &t.owner,
        &reason,
    )
    .await?;
    let what = match state {
        ModState::Hidden => "hidden by a moderator",
        ModState::FeedBanned => "removed from feeds by a moderator",
    };
    st.square
        .notify(
            &t.owner,
            &actor.id,
            NotificationKind::Moderation,
            Some((&t.id, kind.code())),
            &format!("{what}: {reason}"),
        )
        .await;
    Ok(())
}

/// Lifts `state` from `kind`/`id`.
pub async fn lift(
    st: &AppState,
    actor: &AccountRow,
    role: Role,
    kind: ObjKind,
    id: &str,
    state: ModState,
    reason: &str,
) -> Result<(), ApiError> {
    check_kind(kind, state)?;
    let reason = mod_reason(reason).map_err(rule_error)?;
    let t = resolve(st, None, kind, id).await?;
    let m = &st.moderation;
    let pk = Key::of(&kind.key(&t.id));
    let Some(before) = m.states.get(&pk, &Key::empty()).await? else {
        return Err(ErrorCode::ModerationStateConflict.into());
    };
    if before.state != state {
        return Err(ErrorCode::ModerationStateConflict.into());
    }
    if before.by_role == Role::Operator && role != Role::Operator {
        return Err(ErrorCode::ModerationTargetProtected.into());
    }
    may_act_on(st, role, &t.owner).await?;
    m.states.delete(&pk, &Key::empty()).await?;
    if kind == ObjKind::Work {
        st.square.set_moderation(&t.id, None).await?;
    }
    audit(
        st,
        actor,
        role,
        action(state, false),
        kind,
        &t.id,
        &t.owner,
        &reason,
    )
    .await?;
    st.square
        .notify(
            &t.owner,
            &actor.id,
            NotificationKind::Moderation,
            Some((&t.id, kind.code())),
            &format!("restored by a moderator: {reason}"),
        )
        .await;
    Ok(())
}
