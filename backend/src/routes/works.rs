//! Artwork and post family (spec 3 §7 "Artwork", "Activities and posts"):
//! publishing pictures, articles and videos, editing, detail, deleting,
//! visibility, likes and collects, the lists of one's own and another's
//! works, and the pictures an account reused (`account/img-use/history`).

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::character::IdAnswer;
use protocol::square::feed::FeedPage;
use protocol::square::feed::FeedRequest;
use protocol::square::social::{AccountRequest, IdRequest};
use protocol::square::social::{FollowAnswer, ReactionAnswer};
use protocol::square::work::WorkDetail;
use protocol::square::work::{
    ContentCheckRequest, EditWorkRequest, PublishArticleRequest, PublishPictureRequest,
    PublishVideoRequest, VisibilityRequest,
};
use protocol::Empty;
use serde::{Deserialize, Serialize};

use super::square::viewer;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::square::social::Reaction;
use crate::state::AppState;

type Body<T> = web::Json<T>;

/// `video/play`: the post and its play count.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PlayAnswer {
    pub id: String,
    pub plays: i64,
}

/// `ai-video/report`: the report filed (`updated` stays false for old clients).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct VideoReportAnswer {
    pub updated: bool,
    pub report_id: String,
}

/// `post/check`: the text passed.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = ContentCheckAnswer)]
pub struct CheckAnswer {
    pub ok: bool,
}

pub async fn publish_picture(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<PublishPictureRequest>,
) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let id = s.square.publish_picture(&a.0.account, b).await?;
    s.awards.on_publish(&a.0.account.id).await;
    Ok(ok(IdAnswer { id }))
}

pub async fn publish_article(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<PublishArticleRequest>,
) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let id = s.square.publish_article(&a.0.account, b).await?;
    s.awards.on_publish(&a.0.account.id).await;
    Ok(ok(IdAnswer { id }))
}

pub async fn publish_video(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<PublishVideoRequest>,
) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let id = s.square.publish_video(&a.0.account, b).await?;
    s.awards.on_publish(&a.0.account.id).await;
    Ok(ok(IdAnswer { id }))
}

pub async fn edit(a: Authed, s: web::Data<AppState>, b: Body<EditWorkRequest>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    Ok(ok(s.square.edit(&a.0.account, b).await?))
}

pub async fn check(s: web::Data<AppState>, b: Body<ContentCheckRequest>) -> ApiResult {
    s.square.content_check(&b)?;
    // Refused texts answer their key here too; masked ones pass.
    s.text_filter.clean(&mut b.into_inner())?;
    Ok(ok(CheckAnswer { ok: true }))
}

pub async fn detail(req: HttpRequest, s: web::Data<AppState>, b: Body<IdRequest>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let mut d = s.square.detail(v.as_deref(), &b.id).await?;
    if v.as_deref() == Some(d.author.id.as_str()) {
        d.appeal = crate::moderation::appeals::of_work(&s, &d.id).await?;
    }
    Ok(ok(d))
}

/// `ai-video/detail` (spec 3 §7): a video post's page.
pub async fn video_detail(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<IdRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s.square.video_detail(v.as_deref(), &b.id).await?))
}

/// `ai-video/play` (spec 3 §7): counts a play.
pub async fn video_play(req: HttpRequest, s: web::Data<AppState>, b: Body<IdRequest>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let plays = s.square.video_play(v.as_deref(), &b.id).await?;
    Ok(ok(PlayAnswer {
        id: b.id.clone(),
        plays,
    }))
}

#[derive(utoipa::ToSchema, Debug, serde::Deserialize)]
pub struct VideoReport {
    pub id: String,
    pub reason: String,
    #[serde(default)]
    pub detail: String,
}

/// `ai-video/report` (spec 3 §7): reports a video post into the
/// moderators' queue (obj_type 15, a video work) under `report`'s rules: one
/// open report per reporter and post (a second answers `reportDuplicate`),
/// never one's own (`reportSelf`). `updated` stays false for old clients.
pub async fn video_report(a: Authed, s: web::Data<AppState>, b: Body<VideoReport>) -> ApiResult {
    let me = &a.0.account.id;
    // Only a video post is reported here (another work answers NotFound).
    s.square.video_author(Some(me), &b.id).await?;
    let req = protocol::moderation::ReportRequest {
        obj_id: b.id.clone(),
        obj_type: 15,
        reason: b.reason.clone(),
        text: b.detail.clone(),
    };
    let report_id = crate::moderation::reports::file(&s, &a.0.account, &req).await?;
    Ok(ok(VideoReportAnswer {
        updated: false,
        report_id,
    }))
}

pub async fn delete(a: Authed, s: web::Data<AppState>, b: Body<IdRequest>) -> ApiResult {
    s.square.delete(&a.0.account, &b.id).await?;
    Ok(ok(Empty {}))
}

pub async fn visibility(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<VisibilityRequest>,
) -> ApiResult {
    Ok(ok(s
        .square
        .set_visibility(&a.0.account, &b.id, b.visibility)
        .await?))
}

fn react(
    kind: Reaction,
    on: bool,
) -> impl Fn(
    Authed,
    web::Data<AppState>,
    Body<IdRequest>,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ApiResult>>>
       + Clone
       + 'static {
    move |a, s, b| {
        Box::pin(async move { Ok(ok(s.square.react(&a.0.account, &b.id, kind, on).await?)) })
    }
}

/// `artwork/list` (and `square/my-artwork/community` without a model): the caller's own works, every visibility.
pub async fn my_works(a: Authed, s: web::Data<AppState>, b: Body<FeedRequest>) -> ApiResult {
    let b = b.into_inner();
    let me = a.0.account.id;
    Ok(ok(s.square.author_works(Some(&me), &me, &b).await?))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct OtherRequest {
    account_id: String,
    #[serde(flatten)]
    feed: FeedRequest,
}

/// `artwork/list/other`: another account's works as the caller may see them.
pub async fn other_works(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<OtherRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s
        .square
        .author_works(v.as_deref(), &b.account_id, &b.feed)
        .await?))
}

/// `account/like/list`: the works an account liked, as the caller may see them.
pub async fn like_list(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<OtherRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s
        .square
        .reaction_list(v.as_deref(), &b.account_id, Reaction::Like, &b.feed)
        .await?))
}

/// `artwork/home/list`: the home square (recommend unless asked otherwise).
pub async fn home_list(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<FeedRequest>,
) -> ApiResult {
    let b = b.into_inner();
    let v = viewer(&req, &s).await?;
    Ok(ok(s
        .square
        .feed(protocol::square::FeedKind::Mix, v.as_deref(), &b)
        .await?))
}

/// `artwork/selected/recommend` and `portfolio/recommend`: the best pictures now (hot).
pub async fn selected(req: HttpRequest, s: web::Data<AppState>, b: Body<FeedRequest>) -> ApiResult {
    let mut b = b.into_inner();
    b.order_by = Some(protocol::square::OrderBy::Hot);
    let v = viewer(&req, &s).await?;
    Ok(ok(s
        .square
        .feed(protocol::square::FeedKind::Artwork, v.as_deref(), &b)
        .await?))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct ImgUseAdd {
    url: String,
    #[serde(default)]
    work_id: Option<String>,
}

pub async fn img_use_list(a: Authed, s: web::Data<AppState>) -> ApiResult {
    Ok(ok(protocol::character::Items {
        items: s.square.img_use_list(&a.0.account.id).await?,
    }))
}

pub async fn img_use_add(a: Authed, s: web::Data<AppState>, b: Body<ImgUseAdd>) -> ApiResult {
    s.square
        .img_use_add(&a.0.account.id, &b.url, b.work_id.as_deref())
        .await?;
    Ok(ok(Empty {}))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct ImgUseDel {
    url: String,
}

pub async fn img_use_del(a: Authed, s: web::Data<AppState>, b: Body<ImgUseDel>) -> ApiResult {
    s.square.img_use_del(&a.0.account.id, &b.url).await?;
    Ok(ok(Empty {}))
}

pub async fn follow(a: Authed, s: web::Data<AppState>, b: Body<AccountRequest>) -> ApiResult {
    let out = s.square.follow(&a.0.account, &b.account_id, true).await?;
    s.awards
        .happened(&a.0.account.id, protocol::awards::Trigger::FirstFollow)
        .await;
    Ok(ok(out))
}

pub async fn unfollow(a: Authed, s: web::Data<AppState>, b: Body<AccountRequest>) -> ApiResult {
    Ok(ok(s
        .square
        .follow(&a.0.account, &b.account_id, false)
        .await?))
}

pub fn routes(api: &mut Api) {
    api.post(
        "/post/portfolio/add_v2",
        publish_picture,
        doc("Publish a finished task's pictures as a work")
            .body::<PublishPictureRequest>()
            .reply::<IdAnswer>(),
    )
    .post(
        "/post/portfolio/add",
        publish_picture,
        doc("Publish pictures as a work (older path)")
            .body::<PublishPictureRequest>()
            .reply::<IdAnswer>(),
    )
    .post(
        "/post/article/add",
        publish_article,
        doc("Publish an article")
            .body::<PublishArticleRequest>()
            .reply::<IdAnswer>(),
    )
    .post(
        "/post/article/edit",
        edit,
        doc("Edit an article")
            .body::<EditWorkRequest>()
            .reply::<WorkDetail>(),
    )
    .post(
        "/post/video/add",
        publish_video,
        doc("Publish a video post")
            .body::<PublishVideoRequest>()
            .reply::<IdAnswer>(),
    )
    .post(
        "/ai-video/detail",
        video_detail,
        doc("A video post's page")
            .body::<IdRequest>()
            .reply::<WorkDetail>(),
    )
    .post(
        "/ai-video/play",
        video_play,
        doc("Count a video post's play")
            .body::<IdRequest>()
            .reply::<PlayAnswer>(),
    )
    .post(
        "/ai-video/report",
        video_report,
        doc("Report a video post")
            .body::<VideoReport>()
            .reply::<VideoReportAnswer>(),
    )
    .post(
        "/post/video/edit",
        edit,
        doc("Edit a video post")
            .body::<EditWorkRequest>()
            .reply::<WorkDetail>(),
    )
    .post(
        "/post/detail",
        detail,
        doc("One post").body::<IdRequest>().reply::<WorkDetail>(),
    )
    .post(
        "/post/content/check",
        check,
        doc("Check a post's text before publishing")
            .body::<ContentCheckRequest>()
            .reply::<CheckAnswer>(),
    )
    .post(
        "/portfolio/edit",
        edit,
        doc("Edit a work")
            .body::<EditWorkRequest>()
            .reply::<WorkDetail>(),
    )
    .post(
        "/portfolio/recommend",
        selected,
        doc("Selected works")
            .body::<FeedRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/artwork/detail",
        detail,
        doc("One work").body::<IdRequest>().reply::<WorkDetail>(),
    )
    .post(
        "/artwork/delete",
        delete,
        doc("Delete one of the caller's works")
            .body::<IdRequest>()
            .reply::<Empty>(),
    )
    .post(
        "/artwork/visibility",
        visibility,
        doc("Set a work's visibility")
            .body::<VisibilityRequest>()
            .reply::<WorkDetail>(),
    )
    .post(
        "/artwork/list",
        my_works,
        doc("The caller's works")
            .body::<FeedRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/artwork/home/list",
        home_list,
        doc("The home square")
            .body::<FeedRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/artwork/list/other",
        other_works,
        doc("Another account's works")
            .body::<OtherRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/artwork/selected/recommend",
        selected,
        doc("Selected works (artwork path)")
            .body::<FeedRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/artwork/like",
        react(Reaction::Like, true),
        doc("Like a work")
            .body::<IdRequest>()
            .reply::<ReactionAnswer>(),
    )
    .post(
        "/artwork/like-cancel",
        react(Reaction::Like, false),
        doc("Take back a like")
            .body::<IdRequest>()
            .reply::<ReactionAnswer>(),
    )
    .post(
        "/artwork/collect",
        react(Reaction::Collect, true),
        doc("Collect a work")
            .body::<IdRequest>()
            .reply::<ReactionAnswer>(),
    )
    .post(
        "/artwork/collect-cancel",
        react(Reaction::Collect, false),
        doc("Take back a collect")
            .body::<IdRequest>()
            .reply::<ReactionAnswer>(),
    )
    .post(
        "/account/follow",
        follow,
        doc("Follow an account")
            .body::<AccountRequest>()
            .reply::<FollowAnswer>(),
    )
    .post(
        "/account/follow-cancel",
        unfollow,
        doc("Stop following an account")
            .body::<AccountRequest>()
            .reply::<FollowAnswer>(),
    )
    .post(
        "/account/like/list",
        like_list,
        doc("The works an account liked")
            .body::<OtherRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/account/img-use/history",
        img_use_list,
        doc("The pictures the caller used lately")
            .reply::<protocol::character::Items<crate::square::row::ImgUseRow>>(),
    )
    .post(
        "/account/img-use/history/add",
        img_use_add,
        doc("Add a picture to the caller's used pictures")
            .body::<ImgUseAdd>()
            .reply::<Empty>(),
    )
    .post(
        "/account/img-use/history/del",
        img_use_del,
        doc("Remove a picture from the caller's used pictures")
            .body::<ImgUseDel>()
            .reply::<Empty>(),
    );
}
