//! Theme activities (spec 3 §7 "Activities and posts", issue 22 part 1):
//! `theme-activity/{list, detail, post-list, character-join,
//! period-excellent-list}`, `activity/{my-list, commit, my-apply, vote,
//! vote-cancel}` and the operators' `admin/activity/{create, edit, list,
//! close, judge}`. Plain routes (no `/activity` scope), so other
//! `activity/...` families (check-in) live beside them.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::activity::{
    ActivityAdmin, ActivityDetail, ActivitySummary, CommitResult, EntryView, Page,
    PeriodResultView, VoteResult,
};
use protocol::activity::{
    ActivityRequest, CharacterJoinRequest, CommitRequest, JudgeRequest, ListRequest, MyRequest,
    PostListRequest, UpsertRequest, VoteRequest,
};
use protocol::character::Items;

use super::square::viewer;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;

pub fn routes(api: &mut Api) {
    api.post(
        "/theme-activity/list",
        list,
        doc("List theme activities")
            .body::<ListRequest>()
            .reply::<Page<ActivitySummary>>(),
    )
    .post(
        "/theme-activity/detail",
        detail,
        doc("One theme activity")
            .body::<ActivityRequest>()
            .reply::<ActivityDetail>(),
    )
    .post(
        "/theme-activity/post-list",
        post_list,
        doc("The works entered in a theme activity")
            .body::<PostListRequest>()
            .reply::<PostPage>(),
    )
    .post(
        "/theme-activity/character-join",
        character_join,
        doc("Enter a character in a theme activity")
            .body::<CharacterJoinRequest>()
            .reply::<CommitResult>(),
    )
    .post(
        "/theme-activity/period-excellent-list",
        excellent_list,
        doc("A theme activity's excellent works of a period")
            .body::<ActivityRequest>()
            .reply::<Items<PeriodResultView>>(),
    )
    .post(
        "/activity/my-list",
        my_list,
        doc("The activities the caller entered")
            .body::<MyRequest>()
            .reply::<Page<ActivitySummary>>(),
    )
    .post(
        "/activity/commit",
        commit,
        doc("Enter a work in an activity")
            .body::<CommitRequest>()
            .reply::<CommitResult>(),
    )
    .post(
        "/activity/my-apply",
        my_apply,
        doc("The caller's entries in an activity")
            .body::<MyRequest>()
            .reply::<Page<EntryView>>(),
    )
    .post(
        "/activity/vote",
        vote,
        doc("Vote for an activity entry")
            .body::<VoteRequest>()
            .reply::<VoteResult>(),
    )
    .post(
        "/activity/vote-cancel",
        vote_cancel,
        doc("Take back a vote for an activity entry")
            .body::<VoteRequest>()
            .reply::<VoteResult>(),
    )
    .post(
        "/admin/activity/create",
        admin_create,
        doc("Operators: create an activity")
            .body::<UpsertRequest>()
            .reply::<ActivityAdmin>(),
    )
    .post(
        "/admin/activity/edit",
        admin_edit,
        doc("Operators: edit an activity")
            .body::<UpsertRequest>()
            .reply::<ActivityAdmin>(),
    )
    .post(
        "/admin/activity/list",
        admin_list,
        doc("Operators: list activities").reply::<Items<ActivityAdmin>>(),
    )
    .post(
        "/admin/activity/close",
        admin_close,
        doc("Operators: close an activity")
            .body::<JudgeRequest>()
            .reply::<PeriodResultView>(),
    )
    .post(
        "/admin/activity/judge",
        admin_judge,
        doc("Operators: judge an activity's entries")
            .body::<JudgeRequest>()
            .reply::<PeriodResultView>(),
    );
}

/// `activity/post/list`: a page of a period's entries, and the period.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = ActivityPostPage)]
pub struct PostPage {
    pub items: Vec<EntryView>,
    pub next_cursor: Option<String>,
    pub period: u32,
}

pub async fn list(s: web::Data<AppState>, b: Body<ListRequest>) -> ApiResult {
    Ok(ok(s.activities.list(&b).await?))
}

pub async fn detail(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<ActivityRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s.activities.detail(&b.id, v.as_deref()).await?))
}

pub async fn post_list(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<PostListRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let (page, period) = s.activities.post_list(&b, v.as_deref()).await?;
    Ok(ok(PostPage {
        items: page.items,
        next_cursor: page.next_cursor,
        period,
    }))
}

#[tracing::instrument(skip_all, fields(activity = %b.id))]
pub async fn character_join(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<CharacterJoinRequest>,
) -> ApiResult {
    Ok(ok(s.activities.character_join(&a.0.account.id, &b).await?))
}

pub async fn excellent_list(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<ActivityRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(Items {
        items: s.activities.excellent_list(&b, v.as_deref()).await?,
    }))
}

pub async fn my_list(a: Authed, s: web::Data<AppState>, b: Body<MyRequest>) -> ApiResult {
    Ok(ok(s.activities.my_list(&a.0.account.id, &b).await?))
}

pub async fn commit(a: Authed, s: web::Data<AppState>, b: Body<CommitRequest>) -> ApiResult {
    Ok(ok(s.activities.commit(&a.0.account.id, &b).await?))
}

pub async fn my_apply(a: Authed, s: web::Data<AppState>, b: Body<MyRequest>) -> ApiResult {
    Ok(ok(s.activities.my_apply(&a.0.account.id, &b).await?))
}

pub async fn vote(a: Authed, s: web::Data<AppState>, b: Body<VoteRequest>) -> ApiResult {
    Ok(ok(s.activities.vote(&a.0.account.id, &b.entry_id).await?))
}

pub async fn vote_cancel(a: Authed, s: web::Data<AppState>, b: Body<VoteRequest>) -> ApiResult {
    Ok(ok(s
        .activities
        .vote_cancel(&a.0.account.id, &b.entry_id)
        .await?))
}

use super::require_operator as operator;

#[tracing::instrument(skip_all)]
pub async fn admin_create(a: Authed, s: web::Data<AppState>, b: Body<UpsertRequest>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(s.activities.create(&a.0.account.id, &b).await?))
}

#[tracing::instrument(skip_all, fields(activity = ?b.id))]
pub async fn admin_edit(a: Authed, s: web::Data<AppState>, b: Body<UpsertRequest>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(s.activities.edit(&a.0.account.id, &b).await?))
}

pub async fn admin_list(a: Authed, s: web::Data<AppState>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(Items {
        items: s.activities.admin_list(&a.0.account.id).await?,
    }))
}

#[tracing::instrument(skip_all, fields(activity = %b.id, period = b.period))]
pub async fn admin_close(a: Authed, s: web::Data<AppState>, b: Body<JudgeRequest>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(s
        .activities
        .close(&a.0.account.id, &b.id, b.period)
        .await?))
}

#[tracing::instrument(skip_all, fields(activity = %b.id, period = b.period))]
pub async fn admin_judge(a: Authed, s: web::Data<AppState>, b: Body<JudgeRequest>) -> ApiResult {
    operator(&s, &a)?;
    let b = b.into_inner();
    Ok(ok(s
        .activities
        .judge(&b.id, b.period, b.picks, Some(&a.0.account.id))
        .await?))
}
