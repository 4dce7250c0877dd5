//! The operators' home-page calls (`EASEL_ADMINS`): `admin/home/*` edit the
//! draft (banners, modules, popups, feature switches) and publish it,
//! `admin/home/popup/stats` reads what viewers did with each popup, and
//! `square/component/page/preview` shows the draft for a chosen audience.

use std::collections::BTreeMap;

use actix_web::web;
use protocol::home::rules::primary_language;
use protocol::home::view::ModuleView;
use protocol::home::{Audience, Banner, Module, Popup, Viewer};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use super::api::{doc, Api};
use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::home::elements;
use crate::home::{ItemKind, Visible};
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.post(
        "/square/component/page/preview",
        preview,
        doc("Operators: preview a draft home page for an audience").body::<PreviewBody>(),
    )
    .post(
        "/admin/home/draft",
        admin_draft,
        doc("Operators: the home page draft"),
    )
    .post(
        "/admin/home/banner/save",
        admin_banner,
        doc("Operators: save a home banner (new, or an edit by id)"),
    )
    .post(
        "/admin/home/module/save",
        admin_module,
        doc("Operators: save a home module (new, or an edit by id)"),
    )
    .post(
        "/admin/home/popup/save",
        admin_popup,
        doc("Operators: save a popup (new, or an edit by id)"),
    )
    .post(
        "/admin/home/popup/stats",
        admin_popup_stats,
        doc("Operators: each popup's shown, closed, clicked and don't-show-again counts")
            .body::<StatsBody>(),
    )
    .post(
        "/admin/home/delete",
        admin_delete,
        doc("Operators: delete a home item").body::<DeleteBody>(),
    )
    .post(
        "/admin/home/features",
        admin_features,
        doc("Operators: set the feature switches app/fetch answers").body::<FeaturesBody>(),
    )
    .post(
        "/admin/home/publish",
        admin_publish,
        doc("Operators: publish the home page draft").body::<PublishBody>(),
    )
    .post(
        "/admin/home/clock",
        admin_clock,
        doc("Operators: set the home test clock (test builds only)").body::<ClockBody>(),
    );
}

fn operator(s: &AppState, caller: &Authed) -> Result<String, ApiError> {
    super::require_operator(s, caller)?;
    Ok(caller.0.account.id.clone())
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct PreviewBody {
    #[serde(default = "visitor")]
    audience: Audience,
    #[serde(default)]
    lang: Option<String>,
    /// Preview the page as it will be at this time (unix ms); now by default.
    #[serde(default)]
    at: Option<i64>,
}

fn visitor() -> Audience {
    Audience::Visitor
}

/// The draft as the chosen audience would see it: banners, slots, modules
/// with their elements (as that audience may see them), and the popups
/// aimed at it (caps aside). Operators only.
async fn preview(s: web::Data<AppState>, caller: Authed, b: web::Json<PreviewBody>) -> ApiResult {
    operator(&s, &caller)?;
    let draft = s.home.draft().await?;
    let viewer = Viewer {
        audience: b.audience,
        language: primary_language(b.lang.as_deref().unwrap_or("en")),
    };
    let v = Visible {
        comp: &draft,
        viewer: &viewer,
        now: b.at.unwrap_or_else(|| s.home.now()),
    };
    let mut modules = Vec::new();
    for m in v.modules(None) {
        // Elements as a visitor may see them (never the operator's own drafts).
        let content = elements::content(&s, None, m, None, None).await?;
        modules.push(json!({"module": ModuleView::from(m), "elements": content.elements}));
    }
    let popups: Vec<protocol::home::view::PopupView> =
        v.popups().into_iter().map(Into::into).collect();
    Ok(ok(json!({
        "version": draft.version,
        "audience": viewer.audience,
        "language": viewer.language,
        "banners": v.banners(None),
        "slots": v.slots(&[]),
        "modules": modules,
        "popups": popups,
        "features": draft.features,
    })))
}

async fn admin_draft(s: web::Data<AppState>, caller: Authed) -> ApiResult {
    operator(&s, &caller)?;
    Ok(ok(s.home.draft_state().await?))
}

#[derive(Debug, Deserialize)]
struct SaveBody<T> {
    /// The draft version the composer edited (a stale one answers 40648).
    #[serde(default)]
    version: Option<u64>,
    item: T,
}

async fn admin_banner(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<SaveBody<Banner>>,
) -> ApiResult {
    let by = operator(&s, &caller)?;
    let (id, draft) = s.home.save_banner(&by, b.version, &b.item).await?;
    Ok(ok(json!({"id": id, "draft": draft})))
}

async fn admin_module(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<SaveBody<Module>>,
) -> ApiResult {
    let by = operator(&s, &caller)?;
    let (id, draft) = s.home.save_module(&by, b.version, &b.item).await?;
    Ok(ok(json!({"id": id, "draft": draft})))
}

async fn admin_popup(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<SaveBody<Popup>>,
) -> ApiResult {
    let by = operator(&s, &caller)?;
    let (id, draft) = s.home.save_popup(&by, b.version, &b.item).await?;
    Ok(ok(json!({"id": id, "draft": draft})))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(default)]
struct StatsBody {
    /// Popup ids; empty: every popup of the draft and the published page.
    ids: Vec<String>,
}

/// What viewers did with each popup (shows, closes, clicks, "don't show
/// again"; in all and by distinct accounts and visitors). Operators only.
async fn admin_popup_stats(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<StatsBody>,
) -> ApiResult {
    operator(&s, &caller)?;
    if b.ids.len() > crate::home::stats::MAX_STATS {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "ids: at most 300",
        ));
    }
    let ids = if b.ids.is_empty() {
        s.home.popup_ids().await?
    } else {
        b.ids.clone()
    };
    Ok(ok(json!({"stats": s.home.popup_stats(&ids).await?})))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct DeleteBody {
    #[serde(default)]
    version: Option<u64>,
    kind: ItemKind,
    id: String,
}

async fn admin_delete(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<DeleteBody>,
) -> ApiResult {
    let by = operator(&s, &caller)?;
    let draft = s.home.delete(&by, b.version, b.kind, &b.id).await?;
    Ok(ok(json!({ "draft": draft })))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct FeaturesBody {
    #[serde(default)]
    version: Option<u64>,
    features: BTreeMap<String, bool>,
}

async fn admin_features(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<FeaturesBody>,
) -> ApiResult {
    let by = operator(&s, &caller)?;
    let draft = s.home.set_features(&by, b.version, &b.features).await?;
    Ok(ok(json!({ "draft": draft })))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(default)]
#[schema(as = HomeAdminPublishBody)]
struct PublishBody {
    version: Option<u64>,
}

async fn admin_publish(
    s: web::Data<AppState>,
    caller: Authed,
    b: web::Json<PublishBody>,
) -> ApiResult {
    operator(&s, &caller)?;
    let live = s.home.publish(b.version).await?;
    Ok(ok(
        json!({"version": live.version, "published_at": live.published_at}),
    ))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct ClockBody {
    now_ms: i64,
}

/// Sets the test clock (`EASEL_HOME_TEST_CLOCK=1` only; NotFound otherwise).
async fn admin_clock(s: web::Data<AppState>, caller: Authed, b: web::Json<ClockBody>) -> ApiResult {
    operator(&s, &caller)?;
    let now = s.home.set_clock(b.now_ms)?;
    Ok(ok(json!({ "now_ms": now })))
}
