//! Check-in and award calls (spec 3 §7): `activity/checkin/info`,
//! `activity/checkin`, `activity/checkin/time-zone` (`{tz}`: changes the
//! pinned zone, once per 30 days), `face-photo/mark-user-activity-award-list`,
//! `face-photo/mark-temp-coins-popup`, and the operator's
//! `admin/award/{list, upsert, delete}` and `admin/checkin/schedule/set`.
//! Plain routes (no scope), so other families may share the `activity/`,
//! `face-photo/` and `admin/` prefixes.

use super::api::{doc, Api};
use actix_web::web;
use protocol::awards::{
    AwardDef, AwardDeleteRequest, AwardUpsertRequest, CheckinRequest, Schedule, ScheduleRequest,
    TimeZoneRequest, Trigger,
};
use protocol::awards::{AwardList, CheckinDone, CheckinInfo};
use protocol::ErrorCode;
use serde_json::json;

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

/// The check-in bodies are optional: an empty body is `{}`.
fn checkin_body(bytes: &web::Bytes) -> Result<CheckinRequest, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(CheckinRequest::default());
    }
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::with_msg(ErrorCode::InvalidParams, format!("bad body: {e}")))
}

pub async fn info(a: Authed, s: web::Data<AppState>, b: web::Bytes) -> ApiResult {
    let req = checkin_body(&b)?;
    Ok(ok(s
        .awards
        .info(&a.0.account.id, req.tz.as_deref())
        .await?))
}

pub async fn checkin(a: Authed, s: web::Data<AppState>, b: web::Bytes) -> ApiResult {
    let req = checkin_body(&b)?;
    Ok(ok(s
        .awards
        .check_in(&a.0.account.id, req.tz.as_deref())
        .await?))
}

/// `activity/checkin/time-zone` `{tz}`: an unknown zone answers
/// `checkinTimeZoneInvalid` (400), a second change within 30 days
/// `checkinTimeZoneChangeTooSoon`; answers the check-in info in the new zone.
pub async fn time_zone(
    a: Authed,
    s: web::Data<AppState>,
    b: web::Json<TimeZoneRequest>,
) -> ApiResult {
    Ok(ok(s.awards.set_zone(&a.0.account.id, &b.tz).await?))
}

pub async fn award_list(a: Authed, s: web::Data<AppState>) -> ApiResult {
    Ok(ok(s.awards.take_unseen(&a.0.account.id).await?))
}

/// `temp-coins/popup`: whether this call marked the popup seen.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = TempCoinsPopupMarked)]
pub struct PopupMarked {
    pub marked: bool,
}

pub async fn temp_coins_popup(a: Authed, s: web::Data<AppState>) -> ApiResult {
    let marked = s.awards.mark_temp_coins_popup(&a.0.account.id).await?;
    Ok(ok(PopupMarked { marked }))
}

use super::require_operator as operator;

fn config_view(c: &protocol::awards::AwardConfig) -> serde_json::Value {
    json!({
        "schedule": c.schedule.rewards,
        "awards": c.awards,
        "triggers": Trigger::ALL.iter().map(|t| json!({
            "trigger": t,
            "daily": t.daily(),
            "default": t.default_award(),
        })).collect::<Vec<_>>(),
    })
}

pub async fn admin_list(a: Authed, s: web::Data<AppState>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(config_view(&s.awards.config().await?)))
}

#[tracing::instrument(skip_all, fields(trigger = %b.trigger))]
pub async fn admin_upsert(
    a: Authed,
    s: web::Data<AppState>,
    b: web::Json<AwardUpsertRequest>,
) -> ApiResult {
    operator(&s, &a)?;
    let b = b.into_inner();
    let mut def = Trigger::parse(&b.trigger)
        .and_then(|trigger| {
            AwardDef {
                trigger,
                title: b.title,
                amount: b.amount,
                enabled: b.enabled,
            }
            .checked()
        })
        .ok_or(ErrorCode::AwardInvalid)?;
    s.text_filter
        .apply(protocol::textfilter::Scene::Title, &mut def.title)?;
    let c = s
        .awards
        .change_config(|c| {
            c.upsert(def.clone());
            Ok(())
        })
        .await?;
    Ok(ok(config_view(&c)))
}

#[tracing::instrument(skip_all, fields(trigger = %b.trigger))]
pub async fn admin_delete(
    a: Authed,
    s: web::Data<AppState>,
    b: web::Json<AwardDeleteRequest>,
) -> ApiResult {
    operator(&s, &a)?;
    let trigger = Trigger::parse(&b.trigger).ok_or(ErrorCode::AwardInvalid)?;
    let c = s
        .awards
        .change_config(|c| {
            if c.remove(trigger) {
                Ok(())
            } else {
                Err(ErrorCode::NotFound.into())
            }
        })
        .await?;
    Ok(ok(config_view(&c)))
}

#[tracing::instrument(skip_all)]
pub async fn admin_schedule(
    a: Authed,
    s: web::Data<AppState>,
    b: web::Json<ScheduleRequest>,
) -> ApiResult {
    operator(&s, &a)?;
    let schedule =
        Schedule::parse(b.into_inner().rewards).ok_or(ErrorCode::CheckinScheduleInvalid)?;
    let c = s
        .awards
        .change_config(|c| {
            c.schedule = schedule.clone();
            Ok(())
        })
        .await?;
    Ok(ok(config_view(&c)))
}

pub fn routes(api: &mut Api) {
    api.post(
        "/activity/checkin/info",
        info,
        doc("The caller's check-in streak and today's award").reply::<CheckinInfo>(),
    )
    .post(
        "/activity/checkin",
        checkin,
        doc("Check in for today").reply::<CheckinDone>(),
    )
    .post(
        "/activity/checkin/time-zone",
        time_zone,
        doc("Change the caller's check-in time zone (once per 30 days)")
            .body::<TimeZoneRequest>()
            .reply::<CheckinInfo>(),
    )
    .post(
        "/face-photo/mark-user-activity-award-list",
        award_list,
        doc("Mark the caller's activity awards as seen").reply::<AwardList>(),
    )
    .post(
        "/face-photo/mark-temp-coins-popup",
        temp_coins_popup,
        doc("Mark the temporary coins popup as seen").reply::<PopupMarked>(),
    )
    .post(
        "/admin/award/list",
        admin_list,
        doc("Operators: the award configuration"),
    )
    .post(
        "/admin/award/upsert",
        admin_upsert,
        doc("Operators: add or change an award").body::<AwardUpsertRequest>(),
    )
    .post(
        "/admin/award/delete",
        admin_delete,
        doc("Operators: delete an award").body::<AwardDeleteRequest>(),
    )
    .post(
        "/admin/checkin/schedule/set",
        admin_schedule,
        doc("Operators: set the check-in award schedule").body::<ScheduleRequest>(),
    );
}
