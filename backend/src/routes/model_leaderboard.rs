//! Model ranking calls (spec 3 §7 Model ranking, Tags; issue 19 items 3, 5):
//! `model/{rank-index, rank-detail, rank-detail-all, recommend,
//! recommend/pack}`, `model/leaderboard/{hottest-models, post-heroes,
//! calculates, portfolio-star}`, `rank/{push-surveys, get-surveys}`,
//! `source-category/sub-list`; model likes and collects (`model/like`,
//! `model/collect`, with `cancel`), and the operators'
//! `admin/rank/survey/upsert`. The service is `models::rank`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::models::rank::{Board, RankDetailRequest, Window, MAX_PAGE};
use protocol::models::survey::{PushSurveyRequest, SurveyDef};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::{json, Value};

use super::square::viewer;
use crate::accounts::now_millis;
use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::models::rank::{ModelFilter, ModelReaction};
use crate::state::AppState;

type Body<T> = web::Json<T>;

/// The default number of rows of a board's top in `rank-detail-all`.
const TOP_N: usize = 10;

/// Bodies with an optional window and paging.
#[derive(utoipa::ToSchema, Debug, Deserialize, Default)]
#[serde(default)]
pub struct WindowRequest {
    time_type: Value,
    page: Option<u32>,
    page_size: Option<u32>,
    size: Option<u32>,
    cursor: Option<String>,
}

fn window(v: &Value, default: Window) -> Result<Window, ApiError> {
    Window::parse(v, default).ok_or_else(|| {
        ApiError::with_msg(
            ErrorCode::InvalidParams,
            "time_type: day, week, month or all (1, 2, 3 or 0)",
        )
    })
}

/// (offset, limit) from a cursor (the count already shown) or a 1-based page.
fn paging(
    cursor: Option<&str>,
    page: Option<u32>,
    size: Option<u32>,
    default: usize,
) -> Result<(usize, usize), ApiError> {
    let limit = size
        .map(|s| s as usize)
        .unwrap_or(default)
        .clamp(1, MAX_PAGE);
    let offset = match cursor.map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| ApiError::with_msg(ErrorCode::InvalidParams, "cursor: not one we gave"))?,
        None => (page.unwrap_or(1).max(1) as usize - 1) * limit,
    };
    Ok((offset, limit))
}

pub async fn rank_index(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<WindowRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let w = window(&b.time_type, Window::Week)?;
    let now = now_millis();
    let mut boards = Vec::new();
    for board in Board::ALL {
        boards.push(
            s.ranks
                .board(board, w, &ModelFilter::default(), v.as_deref(), 0, 3, now)
                .await?,
        );
    }
    Ok(ok(json!({ "time_type": w, "boards": boards })))
}

pub async fn rank_detail(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<RankDetailRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let board = Board::parse(&b.rank_type).ok_or_else(|| {
        ApiError::with_msg(
            ErrorCode::InvalidParams,
            "rank_type: hottest, most_used, most_downloaded, top_earning or new_rising (1 to 5)",
        )
    })?;
    detail(&s, v.as_deref(), board, &b).await
}

async fn detail(
    s: &AppState,
    viewer: Option<&str>,
    board: Board,
    b: &RankDetailRequest,
) -> ApiResult {
    let w = window(&b.time_type, Window::Week)?;
    let filter = ModelFilter::from_request(b)?;
    let (offset, limit) = paging(b.cursor.as_deref(), b.page, b.page_size, 20)?;
    Ok(ok(s
        .ranks
        .board(board, w, &filter, viewer, offset, limit, now_millis())
        .await?))
}

pub async fn rank_detail_all(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<WindowRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let w = window(&b.time_type, Window::Week)?;
    let n = b.size.or(b.page_size).map(|n| n as usize).unwrap_or(TOP_N);
    let now = now_millis();
    let mut boards = Vec::new();
    for board in Board::ALL {
        boards.push(
            s.ranks
                .board(board, w, &ModelFilter::default(), v.as_deref(), 0, n, now)
                .await?,
        );
    }
    Ok(ok(json!({ "time_type": w, "boards": boards })))
}

pub async fn hottest_models(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<RankDetailRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    detail(&s, v.as_deref(), Board::Hottest, &b).await
}

pub async fn recommend(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<WindowRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let n = b.size.or(b.page_size).map(|n| n as usize).unwrap_or(20);
    let items = s.ranks.recommend(v.as_deref(), n, now_millis()).await?;
    Ok(ok(json!({ "items": items })))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[schema(as = ModelLeaderboardModelRef)]
pub struct ModelRef {
    model_id: String,
    #[serde(default)]
    size: Option<u32>,
    #[serde(default)]
    cancel: bool,
}

pub async fn recommend_pack(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<ModelRef>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let n = b.size.map(|n| n as usize).unwrap_or(10);
    let items = s
        .ranks
        .pack(b.model_id.trim(), v.as_deref(), n, now_millis())
        .await?;
    Ok(ok(json!({ "model_id": b.model_id, "items": items })))
}

pub async fn post_heroes(s: web::Data<AppState>, b: Body<WindowRequest>) -> ApiResult {
    let w = window(&b.time_type, Window::Week)?;
    let (offset, limit) = paging(b.cursor.as_deref(), b.page, b.page_size.or(b.size), 20)?;
    let board = s.ranks.post_heroes(&s.square, w, now_millis()).await?;
    let items: Vec<_> = board.heroes.iter().skip(offset).take(limit).collect();
    let end = offset + items.len();
    Ok(ok(json!({
        "time_type": w,
        "items": items,
        "total": board.heroes.len(),
        "next_cursor": (end < board.heroes.len()).then(|| end.to_string()),
        "computed_at": board.computed_at,
    })))
}

pub async fn portfolio_star(s: web::Data<AppState>, b: Body<WindowRequest>) -> ApiResult {
    let w = window(&b.time_type, Window::Week)?;
    let (offset, limit) = paging(b.cursor.as_deref(), b.page, b.page_size.or(b.size), 20)?;
    let (items, total) = s
        .ranks
        .portfolio_star(w, offset, limit, now_millis())
        .await?;
    let end = offset + items.len();
    Ok(ok(json!({
        "time_type": w,
        "items": items,
        "total": total,
        "next_cursor": (end < total).then(|| end.to_string()),
    })))
}

pub async fn calculates(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(s.ranks.calculates(now_millis()).await?))
}

pub async fn push_surveys(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<PushSurveyRequest>,
) -> ApiResult {
    Ok(ok(s
        .ranks
        .push_survey(&a.0.account.id, &b, now_millis())
        .await?))
}

pub async fn get_surveys(req: HttpRequest, s: web::Data<AppState>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(protocol::character::Items {
        items: s.ranks.surveys(v.as_deref()).await?,
    }))
}

/// Operators define a survey.
pub async fn upsert_survey(a: Authed, s: web::Data<AppState>, b: Body<SurveyDef>) -> ApiResult {
    if !s.accounts.is_admin(&a.0.account) {
        return Err(ErrorCode::NoPermission.into());
    }
    s.ranks.upsert_survey(&b).await?;
    Ok(ok(protocol::character::IdAnswer { id: b.id.clone() }))
}

#[derive(utoipa::ToSchema, Debug, Deserialize, Default)]
#[serde(default)]
pub struct CategoryRequest {
    parent: Option<String>,
}

pub async fn categories(s: web::Data<AppState>, b: Body<CategoryRequest>) -> ApiResult {
    let parent = b.into_inner().parent;
    let items = s.ranks.categories(parent.as_deref(), now_millis()).await?;
    Ok(ok(json!({ "parent": parent, "items": items })))
}

async fn react(a: Authed, s: &AppState, b: &ModelRef, kind: ModelReaction) -> ApiResult {
    let mark = s
        .ranks
        .react(
            &a.0.account.id,
            b.model_id.trim(),
            kind,
            !b.cancel,
            now_millis(),
        )
        .await?;
    let stats = s.ranks.stats(b.model_id.trim()).await?;
    Ok(ok(json!({
        "model_id": b.model_id,
        "liked": mark.liked,
        "collected": mark.collected,
        "likes": stats.likes.max(0),
        "collects": stats.collects.max(0),
    })))
}

pub async fn like(a: Authed, s: web::Data<AppState>, b: Body<ModelRef>) -> ApiResult {
    react(a, &s, &b, ModelReaction::Like).await
}

pub async fn collect(a: Authed, s: web::Data<AppState>, b: Body<ModelRef>) -> ApiResult {
    react(a, &s, &b, ModelReaction::Collect).await
}

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(api: &mut Api) {
    api.post(
        "/model/rank-index",
        rank_index,
        doc("The model ranking boards' index").body::<WindowRequest>(),
    )
    .post(
        "/model/rank-detail",
        rank_detail,
        doc("One model ranking board")
            .body::<RankDetailRequest>()
            .reply::<protocol::models::rank::BoardPage>(),
    )
    .post(
        "/model/rank-detail-all",
        rank_detail_all,
        doc("Every model ranking board").body::<WindowRequest>(),
    )
    .post(
        "/model/recommend",
        recommend,
        doc("Recommended models").body::<WindowRequest>(),
    )
    .post(
        "/model/recommend/pack",
        recommend_pack,
        doc("Recommended model packs").body::<ModelRef>(),
    )
    .post(
        "/model/like",
        like,
        doc("Like or unlike a model").body::<ModelRef>(),
    )
    .post(
        "/model/collect",
        collect,
        doc("Collect or uncollect a model").body::<ModelRef>(),
    )
    .post(
        "/model/leaderboard/hottest-models",
        hottest_models,
        doc("The hottest models")
            .body::<RankDetailRequest>()
            .reply::<protocol::models::rank::BoardPage>(),
    )
    .post(
        "/model/leaderboard/post-heroes",
        post_heroes,
        doc("Authors ranked by their works' likes").body::<WindowRequest>(),
    )
    .post(
        "/model/leaderboard/calculates",
        calculates,
        doc("A model's ranking figures"),
    )
    .post(
        "/model/leaderboard/portfolio-star",
        portfolio_star,
        doc("Creators ranked by their models' figures").body::<WindowRequest>(),
    )
    .post(
        "/rank/push-surveys",
        push_surveys,
        doc("Answer the ranking survey")
            .body::<PushSurveyRequest>()
            .reply::<protocol::models::survey::SurveyView>(),
    )
    .post(
        "/rank/get-surveys",
        get_surveys,
        doc("The ranking survey")
            .reply::<protocol::character::Items<protocol::models::survey::SurveyView>>(),
    )
    .post(
        "/admin/rank/survey/upsert",
        upsert_survey,
        doc("Operators: define the ranking survey")
            .body::<SurveyDef>()
            .reply::<protocol::character::IdAnswer>(),
    )
    .post(
        "/source-category/sub-list",
        categories,
        doc("Model categories").body::<CategoryRequest>(),
    );
}
