//! Moderation calls (issue 20; `/work/wt/MOD_API.md`): reports, the
//! moderators' queue, review (hide, feed ban and their undoing), account
//! bans, roles, the audit log, and NSFW appeals. Logic in
//! `crate::moderation`; every call checks the caller's role there or here.

use super::api::{doc, Api};
use actix_web::web;
use protocol::character_extras::{
    ReportAnswer as CharacterReportAnswer, ReportRequest as CharacterReport,
};
use protocol::moderation::{
    AccountRequest, AppealDecision, AppealRequest, BanRequest, ModState, ObjKind, ObjectRequest,
    PageRequest, ReasonItem, ReportAnswer, ReportReason, ReportRequest, ReviewRequest,
};
use protocol::ErrorCode;
use serde_json::json;

use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::moderation::{
    self as m, appeals, bans, kind_of, moderator, operator, reports, review, role_of,
};
use crate::state::AppState;

type Body<T> = web::Json<T>;
type State = web::Data<AppState>;

pub fn routes(api: &mut Api) {
    api.post(
        "/report",
        report,
        doc("Report an object").body::<ReportRequest>(),
    )
    .post(
        "/report/portfolio",
        report_portfolio,
        doc("Report a work").body::<ReportRequest>(),
    )
    .post(
        "/report/palette",
        report_palette,
        doc("Report a design template").body::<ReportRequest>(),
    )
    .post(
        "/report/ai-character",
        report_character,
        doc("Report a character").body::<CharacterReport>(),
    )
    .post("/report/reasons", reasons, doc("The report reasons"))
    .post(
        "/review/hide",
        hide,
        doc("Moderators: hide an object").body::<ReviewRequest>(),
    )
    .post(
        "/review/unhide",
        unhide,
        doc("Moderators: unhide an object").body::<ReviewRequest>(),
    )
    .post(
        "/review/ban",
        feed_ban,
        doc("Moderators: ban an object from feeds").body::<ReviewRequest>(),
    )
    .post(
        "/review/unban",
        feed_unban,
        doc("Moderators: let an object back into feeds").body::<ReviewRequest>(),
    )
    .post(
        "/resource/nsfw-appeal/create",
        appeal,
        doc("Appeal an NSFW verdict").body::<AppealRequest>(),
    )
    .post(
        "/resource/nsfw-appeal/rate-limit",
        appeal_limit,
        doc("How many NSFW appeals the caller has left"),
    )
    .scope("/moderation", |api| {
        api.post("/me", me, doc("The caller's moderation role and bans"))
            .post(
                "/queue",
                queue,
                doc("Moderators: the report queue").body::<PageRequest>(),
            )
            .post(
                "/item",
                item,
                doc("Moderators: one queued report").body::<ObjectRequest>(),
            )
            .post(
                "/report/resolve",
                resolve,
                doc("Moderators: resolve a report").body::<ObjectRequest>(),
            )
            .post(
                "/report/dismiss",
                dismiss,
                doc("Moderators: dismiss a report").body::<ObjectRequest>(),
            )
            .post(
                "/ban",
                ban,
                doc("Moderators: ban an account").body::<BanRequest>(),
            )
            .post(
                "/unban",
                unban,
                doc("Moderators: lift an account's ban").body::<AccountRequest>(),
            )
            .post(
                "/ban/list",
                ban_list,
                doc("Moderators: the bans").body::<PageRequest>(),
            )
            .post(
                "/appeal/decide",
                decide,
                doc("Moderators: decide an appeal").body::<AppealDecision>(),
            )
            .post(
                "/audit/list",
                audit_list,
                doc("Moderators: the moderation audit log").body::<PageRequest>(),
            )
            .post(
                "/moderator/grant",
                grant,
                doc("Operators: make an account a moderator").body::<AccountRequest>(),
            )
            .post(
                "/moderator/revoke",
                revoke,
                doc("Operators: take the moderator role back").body::<AccountRequest>(),
            )
            .post(
                "/moderator/list",
                moderators,
                doc("Operators: the moderators"),
            );
    });
}

async fn file(s: &AppState, a: &Authed, r: &ReportRequest) -> ApiResult {
    let report_id = reports::file(s, &a.0.account, r).await?;
    Ok(ok(ReportAnswer { report_id }))
}

pub async fn report(a: Authed, s: State, b: Body<ReportRequest>) -> ApiResult {
    file(&s, &a, &b).await
}

/// A work (obj_type 4) whatever `obj_type` says.
pub async fn report_portfolio(a: Authed, s: State, b: Body<ReportRequest>) -> ApiResult {
    let mut r = b.into_inner();
    r.obj_type = ObjKind::Work.code();
    file(&s, &a, &r).await
}

/// A design template (obj_type 11).
pub async fn report_palette(a: Authed, s: State, b: Body<ReportRequest>) -> ApiResult {
    let mut r = b.into_inner();
    r.obj_type = ObjKind::Palette.code();
    file(&s, &a, &r).await
}

/// `report/ai-character` (its body kept): the moderators' queue, and the
/// operators' character report list as before.
pub async fn report_character(a: Authed, s: State, b: Body<CharacterReport>) -> ApiResult {
    let r = ReportRequest {
        obj_id: b.character_id.clone(),
        obj_type: ObjKind::Character.code(),
        reason: b.reason.clone(),
        text: b.detail.clone(),
    };
    reports::file(&s, &a.0.account, &r).await?;
    // The operators' character list keeps the reasons it knows.
    if protocol::character_extras::ReportReason::parse(b.reason.trim()).is_some() {
        s.characters.report(&a.0.account.id, &b).await?;
    }
    Ok(ok(CharacterReportAnswer { updated: false }))
}

pub async fn reasons() -> ApiResult {
    let items: Vec<ReasonItem> = ReportReason::ALL
        .into_iter()
        .map(|r| ReasonItem {
            reason: r.as_str().to_owned(),
            needs_text: r.needs_text(),
        })
        .collect();
    Ok(ok(json!({ "items": items })))
}

async fn review_call(
    s: &AppState,
    a: &Authed,
    b: &ReviewRequest,
    state: ModState,
    on: bool,
) -> ApiResult {
    let role = moderator(s, &a.0.account).await?;
    let kind = kind_of(b.obj_type)?;
    let id = b.obj_id.trim();
    if on {
        review::apply(s, &a.0.account, role, kind, id, state, &b.reason).await?;
    } else {
        review::lift(s, &a.0.account, role, kind, id, state, &b.reason).await?;
    }
    let shown = match (on, state) {
        (false, _) => "visible",
        (true, ModState::Hidden) => "hidden",
        (true, ModState::FeedBanned) => "feed_banned",
    };
    Ok(ok(json!({ "state": shown })))
}

pub async fn hide(a: Authed, s: State, b: Body<ReviewRequest>) -> ApiResult {
    review_call(&s, &a, &b, ModState::Hidden, true).await
}

pub async fn unhide(a: Authed, s: State, b: Body<ReviewRequest>) -> ApiResult {
    review_call(&s, &a, &b, ModState::Hidden, false).await
}

pub async fn feed_ban(a: Authed, s: State, b: Body<ReviewRequest>) -> ApiResult {
    review_call(&s, &a, &b, ModState::FeedBanned, true).await
}

pub async fn feed_unban(a: Authed, s: State, b: Body<ReviewRequest>) -> ApiResult {
    review_call(&s, &a, &b, ModState::FeedBanned, false).await
}

pub async fn appeal(a: Authed, s: State, b: Body<AppealRequest>) -> ApiResult {
    let (appeal_id, remaining) = appeals::create(&s, &a.0.account, &b).await?;
    Ok(ok(
        json!({ "appeal_id": appeal_id, "remaining": remaining }),
    ))
}

pub async fn appeal_limit(a: Authed, s: State) -> ApiResult {
    Ok(ok(appeals::limit(&s, &a.0.account.id).await?))
}

pub async fn me(a: Authed, s: State) -> ApiResult {
    Ok(ok(json!({ "role": role_of(&s, &a.0.account).await? })))
}

pub async fn queue(a: Authed, s: State, b: Body<PageRequest>) -> ApiResult {
    moderator(&s, &a.0.account).await?;
    let (items, cursor) =
        reports::queue(&s, b.kind.as_deref(), b.limit, b.cursor.as_deref()).await?;
    Ok(ok(json!({ "items": items, "cursor": cursor })))
}

pub async fn item(a: Authed, s: State, b: Body<ObjectRequest>) -> ApiResult {
    moderator(&s, &a.0.account).await?;
    let kind = kind_of(b.obj_type)?;
    let it = reports::item(&s, reports::REPORT, kind, b.obj_id.trim()).await?;
    if it.summary.gone && it.reports.is_none() && it.appeal.is_none() && it.history.is_empty() {
        return Err(ErrorCode::NotFound.into());
    }
    Ok(ok(it))
}

async fn close(s: &AppState, a: &Authed, b: &ObjectRequest, status: &str) -> ApiResult {
    let role = moderator(s, &a.0.account).await?;
    let kind = kind_of(b.obj_type)?;
    let reason = protocol::moderation::mod_reason(&b.reason).map_err(m::rule_error)?;
    let closed = reports::close(
        s,
        &a.0.account,
        role,
        kind,
        b.obj_id.trim(),
        status,
        &reason,
    )
    .await?;
    Ok(ok(json!({ "closed": closed })))
}

pub async fn resolve(a: Authed, s: State, b: Body<ObjectRequest>) -> ApiResult {
    close(&s, &a, &b, "resolved").await
}

pub async fn dismiss(a: Authed, s: State, b: Body<ObjectRequest>) -> ApiResult {
    close(&s, &a, &b, "dismissed").await
}

pub async fn ban(a: Authed, s: State, b: Body<BanRequest>) -> ApiResult {
    let role = moderator(&s, &a.0.account).await?;
    Ok(ok(bans::ban(&s, &a.0.account, role, &b).await?))
}

pub async fn unban(a: Authed, s: State, b: Body<AccountRequest>) -> ApiResult {
    let role = moderator(&s, &a.0.account).await?;
    bans::unban(&s, &a.0.account, role, b.account_id.trim(), &b.reason).await?;
    Ok(ok(json!({})))
}

pub async fn ban_list(a: Authed, s: State, b: Body<PageRequest>) -> ApiResult {
    moderator(&s, &a.0.account).await?;
    let (items, cursor) = bans::list(&s, b.limit, b.cursor.as_deref()).await?;
    Ok(ok(json!({ "items": items, "cursor": cursor })))
}

pub async fn decide(a: Authed, s: State, b: Body<AppealDecision>) -> ApiResult {
    let role = moderator(&s, &a.0.account).await?;
    Ok(ok(appeals::decide(&s, &a.0.account, role, &b).await?))
}

pub async fn audit_list(a: Authed, s: State, b: Body<PageRequest>) -> ApiResult {
    operator(&s, &a.0.account).await?;
    let (items, cursor) = s
        .moderation
        .audit_page(b.limit, b.cursor.as_deref())
        .await?;
    Ok(ok(json!({ "items": items, "cursor": cursor })))
}

pub async fn grant(a: Authed, s: State, b: Body<AccountRequest>) -> ApiResult {
    operator(&s, &a.0.account).await?;
    Ok(ok(m::grant(
        &s,
        &a.0.account,
        b.account_id.trim(),
        &b.reason,
    )
    .await?))
}

pub async fn revoke(a: Authed, s: State, b: Body<AccountRequest>) -> ApiResult {
    operator(&s, &a.0.account).await?;
    m::revoke(&s, &a.0.account, b.account_id.trim(), &b.reason).await?;
    Ok(ok(json!({})))
}

pub async fn moderators(a: Authed, s: State) -> ApiResult {
    operator(&s, &a.0.account).await?;
    Ok(ok(json!({ "items": m::list_moderators(&s).await? })))
}
