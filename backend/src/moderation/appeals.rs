//! NSFW rating appeals (`resource/nsfw-appeal/create`, `rate-limit`,
//! `moderation/appeal/decide`). The owner of a work rated NSFW appeals
//! once per work (`mod_appeal_by_object`, insert-if-absent), at most
//! `appeals_per_day` times per UTC day (`mod_appeal_days`, counted by
//! compare-and-set); the appeal joins the moderators' queue; the decision
//! (rating kept or changed, with its reason) reaches the owner as a
//! notification (frame 13).

use infra::store::Key;
use protocol::moderation::{
    mod_reason, user_text, AppealDecision, AppealLimit, AppealRequest, AppealStatus, AppealView,
    ObjKind, Role,
};
use protocol::square::social::NotificationKind;
use protocol::ErrorCode;

use super::reports::APPEAL;
use super::rows::AppealRow;
use super::{audit, kind_of, may_act_on, rule_error};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;

const DAY_MS: i64 = 86_400_000;

fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// `resource/nsfw-appeal/rate-limit` for `account` at `now`.
pub async fn limit(st: &AppState, account: &str) -> Result<AppealLimit, ApiError> {
    let m = &st.moderation;
    let now = now_millis();
    let used = m
        .appeal_days
        .get(&Key::of(account), &Key::empty().i64(day_of(now)))
        .await?
        .unwrap_or(0);
    Ok(AppealLimit {
        limit: m.appeals_per_day,
        remaining: m.appeals_per_day.saturating_sub(used),
        reset_at: (day_of(now) + 1) * DAY_MS,
    })
}

/// Counts one appeal of today, unless the limit is reached.
async fn take_one(st: &AppState, account: &str, day: i64) -> Result<u32, ApiError> {
    let m = &st.moderation;
    let (pk, ck) = (Key::of(account), Key::empty().i64(day));
    loop {
        match m.appeal_days.get(&pk, &ck).await? {
            None => {
                if m.appeal_days.insert_if_absent(&pk, &ck, &1).await?.is_ok() {
                    return Ok(m.appeals_per_day.saturating_sub(1));
                }
            }
            Some(n) if n >= m.appeals_per_day => return Err(ErrorCode::AppealLimit.into()),
            Some(n) => {
                if m.appeal_days
                    .compare_and_set(&pk, &ck, &n, Some(&(n + 1)))
                    .await?
                    .is_ok()
                {
                    return Ok(m.appeals_per_day.saturating_sub(n + 1));
                }
            }
        }
    }
}

/// `resource/nsfw-appeal/create`: answers the appeal id and the appeals left today.
pub async fn create(
    st: &AppState,
    owner: &AccountRow,
    req: &AppealRequest,
) -> Result<(String, u32), ApiError> {
    let kind = kind_of(req.obj_type)?;
    if kind != ObjKind::Work {
        return Err(rule_error(protocol::moderation::RuleError::ObjType));
    }
    let text = user_text(&req.text).map_err(rule_error)?;
    let w = st
        .square
        .work_row(req.obj_id.trim())
        .await?
        .filter(|w| w.author == owner.id)
        .ok_or(ErrorCode::NotFound)?;
    // A rating or a moderator's hide or feed ban may be appealed.
    if !w.nsfw && w.moderation.is_none() {
        return Err(ErrorCode::AppealNotFlagged.into());
    }
    let m = &st.moderation;
    let key = kind.key(&w.id);
    let now = now_millis();
    let id = uuid::Uuid::now_v7().simple().to_string();
    if m.appeal_by_object
        .insert_if_absent(&Key::of(&key), &Key::empty(), &id)
        .await?
        .is_err()
    {
        return Err(ErrorCode::AppealDuplicate.into());
    }
    let remaining = match take_one(st, &owner.id, day_of(now)).await {
        Ok(r) => r,
        Err(e) => {
            // Over the limit: the object may be appealed another day.
            m.appeal_by_object
                .delete(&Key::of(&key), &Key::empty())
                .await?;
            return Err(e);
        }
    };
    let row = AppealRow {
        id: id.clone(),
        obj_type: kind.code(),
        obj_id: w.id.clone(),
        owner: owner.id.clone(),
        text,
        create_at: now,
        status: AppealStatus::Open,
        reason: String::new(),
        decided_by: String::new(),
        decided_at: 0,
    };
    m.appeals.put(&Key::of(&id), &Key::empty(), &row).await?;
    // Listed under its author, for the export and the deletion sweep.
    crate::accounts::owned::record(
        &st.store,
        &owner.id,
        crate::accounts::owned::OwnedKind::Appeal,
        now,
        &id,
        &key,
    )
    .await?;
    m.enqueue(APPEAL, &key).await?;
    Ok((id, remaining))
}

/// `moderation/appeal/decide`.
pub async fn decide(
    st: &AppState,
    actor: &AccountRow,
    role: Role,
    req: &AppealDecision,
) -> Result<AppealView, ApiError> {
    let reason = mod_reason(&req.reason).map_err(rule_error)?;
    let m = &st.moderation;
    let pk = Key::of(&req.appeal_id);
    let a = m
        .appeals
        .get(&pk, &Key::empty())
        .await?
        .ok_or(ErrorCode::NotFound)?;
    if a.status != AppealStatus::Open {
        return Err(ErrorCode::ModerationStateConflict.into());
    }
    if a.owner == actor.id {
        return Err(ErrorCode::ModerationSelf.into());
    }
    may_act_on(st, role, &a.owner).await?;
    let w = st
        .square
        .work_row(&a.obj_id)
        .await?
        .ok_or(ErrorCode::NotFound)?;
    let changed = w.nsfw != req.nsfw;
    // Restoring lifts the hide or feed ban the owner appealed.
    let restore = match (&w.moderation, req.restore) {
        (Some(mv), true) => Some(mv.state),
        (None, true) => return Err(ErrorCode::ModerationStateConflict.into()),
        (_, false) => None,
    };
    if let Some(state) = restore {
        // First, so a hide the actor may not lift leaves the appeal open.
        super::review::lift(st, actor, role, ObjKind::Work, &w.id, state, &reason).await?;
    }
    let now = now_millis();
    let decided = m
        .appeals
        .compare_and_set(
            &pk,
            &Key::empty(),
            &a,
            Some(&AppealRow {
                status: if changed || restore.is_some() {
                    AppealStatus::Changed
                } else {
                    AppealStatus::Kept
                },
                reason: reason.clone(),
                decided_by: actor.id.clone(),
                decided_at: now,
                ..a.clone()
            }),
        )
        .await?;
    if decided.is_err() {
        return Err(ErrorCode::ModerationStateConflict.into());
    }
    if changed {
        st.square.set_nsfw(&w.id, req.nsfw).await?;
    }

    m.dequeue(APPEAL, &ObjKind::Work.key(&w.id)).await?;
    let action = if changed || restore.is_some() {
        "appeal_change"
    } else {
        "appeal_keep"
    };
    audit(
        st,
        actor,
        role,
        action,
        ObjKind::Work,
        &w.id,
        &a.owner,
        &reason,
    )
    .await?;
    let text = if restore.is_some() && !changed {
        format!("your appeal was accepted: the work is restored: {reason}")
    } else if changed {
        format!(
            "your appeal was accepted: the rating is now {}: {reason}",
            if req.nsfw { "NSFW" } else { "safe" }
        )
    } else {
        format!("your appeal was declined: the rating stays: {reason}")
    };
    st.square
        .notify(
            &a.owner,
            &actor.id,
            NotificationKind::Moderation,
            Some((&w.id, ObjKind::Work.code())),
            &text,
        )
        .await;
    Ok(m.appeals
        .get(&pk, &Key::empty())
        .await?
        .ok_or(ErrorCode::NotFound)?
        .view())
}

/// The appeal of work `work_id`, if its owner made one (for the owner's
/// view of the work).
pub async fn of_work(st: &AppState, work_id: &str) -> Result<Option<AppealView>, ApiError> {
    let m = &st.moderation;
    let key = ObjKind::Work.key(work_id);
    let Some(id) = m
        .appeal_by_object
        .get(&Key::of(&key), &Key::empty())
        .await?
    else {
        return Ok(None);
    };
    Ok(m.appeals
        .get(&Key::of(&id), &Key::empty())
        .await?
        .map(|a| a.view()))
}
