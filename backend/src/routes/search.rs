//! Search and tags family (spec 3 §7 "Search", "Tags"): results, completion
//! as you type, hot terms, the caller's history, tags in use.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::character::Items;
use protocol::square::search::{
    CompleteRequest, HistoryDelRequest, SearchRequest, TagGroupRequest,
};
use protocol::square::search::{TagGroup, TermCount};
use protocol::square::FeedPage;
use protocol::Empty;

use super::square::viewer;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::prompts::lang::Lang;
use crate::state::AppState;

type Body<T> = web::Json<T>;

/// `search/hot-shading`: the hottest term, null when there is none.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Shading {
    pub text: Option<String>,
}

pub async fn list(req: HttpRequest, s: web::Data<AppState>, b: Body<SearchRequest>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s.square.search(v.as_deref(), &b, &s.characters).await?))
}

pub async fn complete(s: web::Data<AppState>, b: Body<CompleteRequest>) -> ApiResult {
    Ok(ok(Items {
        items: s.square.complete(&b.keyword).await?,
    }))
}

pub async fn hot(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(Items {
        items: s.square.hot_terms(10).await?,
    }))
}

/// `search/hot-shading`: the placeholder of the search box, the hottest term.
pub async fn shading(s: web::Data<AppState>) -> ApiResult {
    let top = s
        .square
        .hot_terms(1)
        .await?
        .into_iter()
        .next()
        .map(|t| t.text);
    Ok(ok(Shading { text: top }))
}

pub async fn history(a: Authed, s: web::Data<AppState>) -> ApiResult {
    Ok(ok(Items {
        items: s.square.history(&a.0.account.id).await?,
    }))
}

pub async fn history_clear(a: Authed, s: web::Data<AppState>) -> ApiResult {
    s.square.history_clear(&a.0.account.id).await?;
    Ok(ok(Empty {}))
}

pub async fn history_del(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<HistoryDelRequest>,
) -> ApiResult {
    s.square.history_del(&a.0.account.id, &b.keyword).await?;
    Ok(ok(Empty {}))
}

/// `square/v3/tag/list`: every tag in use, most used first.
pub async fn tag_list(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(Items {
        items: s.square.tags(None, 200),
    }))
}

/// `tag/hot`, `recommend/hotTag`: the tags of the last 7 days' works.
pub async fn tag_hot(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(Items {
        items: s.square.tags(Some(7), 30),
    }))
}

pub async fn tag_groups(s: web::Data<AppState>, b: Body<TagGroupRequest>) -> ApiResult {
    let lang = b.lang.as_deref().map(Lang::normalise).unwrap_or(Lang::En);
    Ok(ok(Items {
        items: s.square.tags_by_group(s.prompts.dictionary(), lang),
    }))
}

pub fn routes(api: &mut Api) {
    api.post(
        "/square/v3/search/list",
        list,
        doc("Search works")
            .body::<SearchRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/portfolio/search",
        list,
        doc("Search works (portfolio path)")
            .body::<SearchRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/square/search/complete",
        complete,
        doc("Search completions")
            .body::<CompleteRequest>()
            .reply::<Items<String>>(),
    )
    .post(
        "/search/hot/v2",
        hot,
        doc("Hot searches").reply::<Items<TermCount>>(),
    )
    .get(
        "/search/hot/v2",
        hot,
        doc("Hot searches").reply::<Items<TermCount>>(),
    )
    .post(
        "/search/hot-shading",
        shading,
        doc("The search box's placeholder").reply::<Shading>(),
    )
    .get(
        "/search/hot-shading",
        shading,
        doc("The search box's placeholder").reply::<Shading>(),
    )
    .post(
        "/search/history",
        history,
        doc("The caller's search history").reply::<Items<TermCount>>(),
    )
    .post(
        "/search/history/clear",
        history_clear,
        doc("Clear the caller's search history").reply::<Empty>(),
    )
    .post(
        "/search/history/del",
        history_del,
        doc("Delete one search from the history")
            .body::<HistoryDelRequest>()
            .reply::<Empty>(),
    )
    .post(
        "/square/v3/tag/list",
        tag_list,
        doc("Every tag in use, most used first").reply::<Items<TermCount>>(),
    )
    .post(
        "/tag/hot",
        tag_hot,
        doc("The last week's hot tags").reply::<Items<TermCount>>(),
    )
    .post(
        "/recommend/hotTag",
        tag_hot,
        doc("The last week's hot tags (recommend path)").reply::<Items<TermCount>>(),
    )
    .post(
        "/tag/get_by_group",
        tag_groups,
        doc("Tags by group")
            .body::<TagGroupRequest>()
            .reply::<Items<TagGroup>>(),
    );
}
