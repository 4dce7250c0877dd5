//! Square family (spec 3 §7 "Square v1", "Square v3"): every feed call, one
//! handler made per (content, default tab), the caller's collection, the
//! creators list and the square's configuration (tabs and filter sets per
//! page key, spec 3 §2).

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::square::feed::{FeedKind, FeedPage, FeedRequest, OrderBy};
use serde_json::json;

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::square::social::Reaction;
use crate::state::AppState;

pub(crate) type Handler = std::pin::Pin<Box<dyn std::future::Future<Output = ApiResult>>>;

/// The viewer's account id when a token is sent (a bad token is NeedLogin).
pub async fn viewer(req: &HttpRequest, state: &AppState) -> Result<Option<String>, ApiError> {
    Ok(crate::auth::optional_caller(req, state)
        .await?
        .map(|c| c.account.id))
}

async fn feed(
    req: HttpRequest,
    state: web::Data<AppState>,
    mut body: FeedRequest,
    kind: FeedKind,
    default: OrderBy,
    force: bool,
) -> ApiResult {
    if force || body.order_by.is_none() {
        body.order_by = Some(default);
    }
    let v = viewer(&req, &state).await?;
    Ok(ok(state.square.feed(kind, v.as_deref(), &body).await?))
}

/// A feed handler: `kind`'s works, in the body's `order_by` (else
/// `default`; always `default` when `force`).
pub fn feed_as(
    kind: FeedKind,
    default: OrderBy,
    force: bool,
) -> impl Fn(HttpRequest, web::Data<AppState>, web::Json<FeedRequest>) -> Handler + Clone + 'static
{
    move |req, state, body| {
        let body = body.into_inner();
        Box::pin(feed(req, state, body, kind, default, force))
    }
}

/// `square/v3/collect/list`: the caller's collection.
pub async fn collect_list(
    a: Authed,
    s: web::Data<AppState>,
    b: web::Json<FeedRequest>,
) -> ApiResult {
    let b = b.into_inner();
    let me = a.0.account.id;
    Ok(ok(s
        .square
        .reaction_list(Some(&me), &me, Reaction::Collect, &b)
        .await?))
}

/// `square/v3/account/list`: creators, most followed first among those
/// whose works rank in the newest hot snapshot.
pub async fn account_list(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<FeedRequest>,
) -> ApiResult {
    let b = b.into_inner();
    let v = viewer(&req, &s).await?;
    Ok(ok(s.square.creators(v.as_deref(), b.size()).await?))
}

/// The tabs and filters of each page key (spec 3 §2 tables).
pub fn page_config() -> serde_json::Value {
    let tabs = |t: &[&str]| json!(t);
    let all = ["recommend", "follows", "hot", "new"];
    json!({
        "time_types": ["all", "day", "week", "month"],
        "pages": [
            {"key": "home", "feed": "squareMixRecommend", "tabs": tabs(&all), "filters": ["preference", "timeType", "resourceType"]},
            {"key": "swift_app", "feed": "aiApp", "tabs": tabs(&all), "filters": ["preference", "timeType", "appType"]},
            {"key": "cyberPub", "feed": "character", "tabs": tabs(&["recommend", "hot", "new", "recently"]), "filters": ["preference", "timeType", "genders", "characterType"]},
            {"key": "post", "feed": "post", "tabs": tabs(&all), "filters": ["preference", "timeType", "postType"]},
            {"key": "ai-video", "feed": "aiVideo", "tabs": tabs(&all), "filters": ["preference", "timeType"]},
            {"key": "ai-audio", "feed": "timbre", "tabs": tabs(&all), "filters": ["preference", "timeType", "genders", "age", "language", "intonation"]},
            {"key": "model", "feed": "model", "tabs": tabs(&all), "filters": ["preference", "timeType", "modelType", "baseModels"]},
            {"key": "lora_train", "feed": "loraTrain", "tabs": tabs(&all), "filters": ["preference", "timeType", "baseModels"]},
            {"key": "workflowPage", "feed": "comfyui", "tabs": tabs(&all), "filters": ["preference", "timeType", "runAvailable", "nodesType"]},
            {"key": "design_template", "feed": "designTemplate", "tabs": tabs(&all), "filters": ["preference", "timeType"]},
            {"key": "novel", "feed": "ai_ebook", "tabs": tabs(&all), "filters": ["preference", "timeType"]}
        ],
        "content_types": [{"value": 1, "label": "Explore"}, {"value": 9, "label": "Tavern"}, {"value": 4, "label": "Posts"}, {"value": 7, "label": "Video"}],
        "post_types": ["picture", "article", "video"]
    })
}

pub async fn config() -> ApiResult {
    Ok(ok(page_config()))
}

pub fn routes(api: &mut Api) {
    use FeedKind as K;
    use OrderBy as O;
    // (path, content, default tab, tab forced, summary)
    let feeds: &[(&str, FeedKind, OrderBy, bool, &'static str)] = &[
        (
            "/square/v3/recommend",
            K::Mix,
            O::Recommend,
            false,
            "The square feed, recommended first",
        ),
        (
            "/square/v3/follow",
            K::Mix,
            O::Follows,
            true,
            "The square feed of followed accounts",
        ),
        (
            "/square/v3/recent",
            K::Mix,
            O::New,
            false,
            "The square feed, newest first",
        ),
        (
            "/square/v3/post/recommend",
            K::Post,
            O::Recommend,
            false,
            "Recommended picture posts",
        ),
        (
            "/square/v3/post/list",
            K::Post,
            O::New,
            false,
            "Picture posts, newest first",
        ),
        (
            "/square/v3/artwork/list",
            K::Artwork,
            O::New,
            false,
            "Works, newest first",
        ),
        (
            "/square/v3/ai_video/list",
            K::Video,
            O::New,
            false,
            "Video posts, newest first",
        ),
        (
            "/square/v3/design_template/recommend",
            K::DesignTemplate,
            O::Recommend,
            false,
            "Recommended design templates",
        ),
        (
            "/square/v3/design_template/list",
            K::DesignTemplate,
            O::New,
            false,
            "Design templates, newest first",
        ),
        (
            "/square/v3/ebook/recommend",
            K::Ebook,
            O::Recommend,
            false,
            "Recommended e-books",
        ),
        (
            "/square/v3/ebook/list",
            K::Ebook,
            O::New,
            false,
            "E-books, newest first",
        ),
        (
            "/square/v3/timbre/list",
            K::Timbre,
            O::New,
            false,
            "Voice posts, newest first",
        ),
        (
            "/square/v3/comfy_ui",
            K::Comfyui,
            O::New,
            false,
            "ComfyUI workflow posts, newest first",
        ),
        (
            "/square/v3/comfy_ui/account_list",
            K::Comfyui,
            O::New,
            false,
            "ComfyUI workflow posts of an account",
        ),
        (
            "/square/recommend",
            K::Mix,
            O::Recommend,
            false,
            "The square feed, recommended first (older path)",
        ),
        (
            "/square/list",
            K::Mix,
            O::New,
            false,
            "The square feed, newest first (older path)",
        ),
        (
            "/square/follow/list",
            K::Mix,
            O::Follows,
            true,
            "The square feed of followed accounts (older path)",
        ),
        (
            "/square/post",
            K::Post,
            O::New,
            false,
            "Picture posts, newest first (older path)",
        ),
        (
            "/square/post/follow",
            K::Post,
            O::Follows,
            true,
            "Picture posts of followed accounts",
        ),
        (
            "/square/palette/template/list",
            K::DesignTemplate,
            O::New,
            false,
            "Design templates, newest first (palette path)",
        ),
        (
            "/square/face-swap",
            K::App,
            O::New,
            false,
            "Face swap apps, newest first",
        ),
        (
            "/square/face-swap/follow",
            K::App,
            O::Follows,
            true,
            "Face swap apps of followed accounts",
        ),
        (
            "/square/ai-video/list",
            K::Video,
            O::New,
            false,
            "Video posts, newest first (older path)",
        ),
        (
            "/square/ai-video/select",
            K::Video,
            O::Hot,
            false,
            "Selected video posts, hottest first",
        ),
        (
            "/square/timbre/list",
            K::Timbre,
            O::New,
            false,
            "Voice posts, newest first (older path)",
        ),
    ];
    for &(path, kind, default, force, summary) in feeds {
        api.post(
            path,
            feed_as(kind, default, force),
            doc(summary).reply::<FeedPage>(),
        );
    }
    // Models (issue 19): published models in the body's order (new, hot,
    // recommend; `models::rank::feed_order`), else the path's; the
    // lora_train feed keeps models with a trained version (cards with
    // channel 1).
    for (path, default, trained_only, summary) in [
        (
            "/square/v3/model/list",
            O::New,
            false,
            "Published models, newest first",
        ),
        (
            "/square/v3/model/recommend",
            O::Recommend,
            false,
            "Recommended models",
        ),
        (
            "/square/v3/model/new/recommend",
            O::New,
            false,
            "New models",
        ),
        (
            "/square/model/recommend",
            O::Recommend,
            false,
            "Recommended models (older path)",
        ),
        (
            "/square/model/list",
            O::New,
            false,
            "Published models, newest first (older path)",
        ),
        (
            "/square/v3/lora/template/recommend",
            O::Recommend,
            true,
            "Recommended trained LoRA models",
        ),
        (
            "/square/v3/lora/template",
            O::New,
            true,
            "Trained LoRA models, newest first",
        ),
        (
            "/square/lora/template",
            O::New,
            true,
            "Trained LoRA models, newest first (older path)",
        ),
    ] {
        api.post(
            path,
            super::model::feed_as(default, trained_only),
            doc(summary).reply::<FeedPage>(),
        );
    }
    api.post(
        "/square/v3/app/list",
        super::video::effect_apps,
        doc("The AI apps (video effect templates) as cards"),
    )
    .post(
        "/square/v3/collect/list",
        collect_list,
        doc("The caller's collection")
            .body::<FeedRequest>()
            .reply::<FeedPage>(),
    )
    .post(
        "/square/v3/account/list",
        account_list,
        doc("Creators, most followed first")
            .body::<FeedRequest>()
            .reply::<protocol::square::social::AccountPage>(),
    )
    .post(
        "/square/v3/ai_filter",
        config,
        doc("The square's AI filter options"),
    )
    .post(
        "/square/my-artwork/community",
        super::model::community,
        doc("Works made with a model, or the caller's works").reply::<FeedPage>(),
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn page_config_has_every_page_key_of_spec_3() {
        let c = page_config();
        let keys: Vec<&str> = c["pages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["key"].as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "home",
                "swift_app",
                "cyberPub",
                "post",
                "ai-video",
                "ai-audio",
                "model",
                "lora_train",
                "workflowPage",
                "design_template",
                "novel"
            ]
        );
        assert_eq!(
            c["pages"][5]["filters"],
            json!([
                "preference",
                "timeType",
                "genders",
                "age",
                "language",
                "intonation"
            ])
        );
    }
}
