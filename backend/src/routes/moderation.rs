//! Moderation calls (issue 20; `/work/wt/MOD_API.md`): reports, the
//! moderators' queue, review (hide, feed ban and their undoing), account
//! bans, roles, the audit log, and NSFW appeals. Logic in
//! `crate::moderation`; every call checks the caller's role there or here.

use super::api::{doc, Api};
use actix_web::web;
use protocol::character::{Items, ListAnswer};
use protocol::character_extras::{
    ReportAnswer as CharacterReportAnswer, ReportRequest as CharacterReport,
};
use protocol::moderation::{
    AccountRequest, AppealDecision, AppealRequest, BanRequest, ModState, ObjKind, ObjectRequest,
    PageRequest, ReasonItem, ReportAnswer, ReportReason, ReportRequest, ReviewRequest,
};
use protocol::moderation::{AppealLimit, AppealView, AuditEntry, BanView, QueueItem, Role};
use protocol::ErrorCode;
use serde::Serialize;

use crate::moderation::roles::ModeratorView;

/// `review/*`: the object's state after the call.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ReviewState {
    /// `visible`, `hidden` or `feed_banned`.
    pub state: String,
}

/// `appeal/create`: the appeal filed, and how many the caller has left.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AppealFiled {
    pub appeal_id: String,
    pub remaining: u32,
}

/// `moderation/me`: the caller's role.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = ModerationMe)]
pub struct MyRole {
    pub role: Role,
}

/// `resolve`, `dismiss`: how many open reports were closed.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = ReportsClosed)]
pub struct Closed {
    pub closed: u32,
}

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
        doc("Report an object")
            .body::<ReportRequest>()
            .reply::<ReportAnswer>(),
    )
    .post(
        "/report/portfolio",
        report_portfolio,
        doc("Report a work")
            .body::<ReportRequest>()
            .reply::<ReportAnswer>(),
    )
    .post(
        "/report/palette",
        report_palette,
        doc("Report a design template")
            .body::<ReportRequest>()
            .reply::<ReportAnswer>(),
    )
    .post(
        "/report/ai-character",
        report_character,
        doc("Report a character")
            .body::<CharacterReport>()
            .reply::<CharacterReportAnswer>(),
    )
    .post(
        "/report/reasons",
        reasons,
        doc("The report reasons").reply::<Items<ReasonItem>>(),
    )
    .post(
        "/review/hide",
        hide,
        doc("Moderators: hide an object")
            .body::<ReviewRequest>()
            .reply::<ReviewState>(),
    )
    .post(
        "/review/unhide",
        unhide,
        doc("Moderators: unhide an object")
            .body::<ReviewRequest>()
            .reply::<ReviewState>(),
    )
    .post(
        "/review/ban",
        feed_ban,
        doc("Moderators: ban an object from feeds")
            .body::<ReviewRequest>()
            .reply::<ReviewState>(),
    )
    .post(
        "/review/unban",
        feed_unban,
        doc("Moderators: let an object back into feeds")
            .body::<ReviewRequest>()
            .reply::<ReviewState>(),
    )
    .post(
        "/resource/nsfw-appeal/create",
        appeal,
        doc("Appeal an NSFW verdict")
            .body::<AppealRequest>()
            .reply::<AppealFiled>(),
    )
    .post(
        "/resource/nsfw-appeal/rate-limit",
        appeal_limit,
        doc("How many NSFW appeals the caller has left").reply::<AppealLimit>(),
    )
    .scope("/moderation", |api| {
        api.post(
            "/me",
            me,
            doc("The caller's moderation role and bans").reply::<MyRole>(),
        )
        .post(
            "/queue",
            queue,
            doc("Moderators: the report queue")
                .body::<PageRequest>()
                .reply::<ListAnswer<QueueItem>>(),
        )
        .post(
            "/item",
            item,
            doc("Moderators: one queued report")
                .body::<ObjectRequest>()
                .reply::<QueueItem>(),
        )
        .post(
            "/report/resolve",
            resolve,
            doc("Moderators: resolve a report")
                .body::<ObjectRequest>()
                .reply::<Closed>(),
        )
        .post(
            "/report/dismiss",
            dismiss,
            doc("Moderators: dismiss a report")
                .body::<ObjectRequest>()
                .reply::<Closed>(),
        )
        .post(
            "/ban",
            ban,
            doc("Moderators: ban an account")
                .body::<BanRequest>()
                .reply::<BanView>(),
        )
        .post(
            "/unban",
            unban,
            doc("Moderators: lift an account's ban")
                .body::<AccountRequest>()
                .reply::<protocol::Empty>(),
        )
        .post(
            "/ban/list",
            ban_list,
            doc("Moderators: the bans")
                .body::<PageRequest>()
                .reply::<ListAnswer<BanView>>(),
        )
        .post(
            "/appeal/decide",
            decide,
            doc("Moderators: decide an appeal")
                .body::<AppealDecision>()
                .reply::<AppealView>(),
        )
        .post(
            "/audit/list",
            audit_list,
            doc("Moderators: the moderation audit log")
                .body::<PageRequest>()
                .reply::<ListAnswer<AuditEntry>>(),
        )
        .post(
            "/moderator/grant",
            grant,
            doc("Operators: make an account a moderator")
                .body::<AccountRequest>()
                .reply::<ModeratorView>(),
        )
        .post(
            "/moderator/revoke",
            revoke,
            doc("Operators: take the moderator role back")
                .body::<AccountRequest>()
                .reply::<protocol::Empty>(),
        )
        .post(
            "/moderator/list",
            moderators,
            doc("Operators: the moderators").reply::<Items<ModeratorView>>(),
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
    Ok(ok(Items { items }))
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
    Ok(ok(ReviewState {
        state: shown.to_owned(),
    }))
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
    Ok(ok(AppealFiled {
        appeal_id,
        remaining,
    }))
}

pub async fn appeal_limit(a: Authed, s: State) -> ApiResult {
    Ok(ok(appeals::limit(&s, &a.0.account.id).await?))
}

pub async fn me(a: Authed, s: State) -> ApiResult {
    Ok(ok(MyRole {
        role: role_of(&s, &a.0.account).await?,
    }))
}

pub async fn queue(a: Authed, s: State, b: Body<PageRequest>) -> ApiResult {
    moderator(&s, &a.0.account).await?;
    let (items, cursor) =
        reports::queue(&s, b.kind.as_deref(), b.limit, b.cursor.as_deref()).await?;
    Ok(ok(ListAnswer { items, cursor }))
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
    Ok(ok(Closed { closed }))
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
    Ok(ok(protocol::Empty {}))
}

pub async fn ban_list(a: Authed, s: State, b: Body<PageRequest>) -> ApiResult {
    moderator(&s, &a.0.account).await?;
    let (items, cursor) = bans::list(&s, b.limit, b.cursor.as_deref()).await?;
    Ok(ok(ListAnswer { items, cursor }))
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
    Ok(ok(ListAnswer { items, cursor }))
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
    Ok(ok(protocol::Empty {}))
}

pub async fn moderators(a: Authed, s: State) -> ApiResult {
    operator(&s, &a.0.account).await?;
    Ok(ok(Items {
        items: m::list_moderators(&s).await?,
    }))
}
