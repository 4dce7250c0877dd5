//! The home page's calls (issue 22 part 3; spec 3 §7 "Face photo and popups"
//! and the square's column and component calls). Viewers: `banner/home`,
//! `slot/list`, `app/fetch`, `face-photo/*`, `theme-activity/face-popup/*`,
//! `square/column/config`, `square/component/*`. Operators (`EASEL_ADMINS`):
//! `admin/home/*` edit the draft and publish it, and
//! `square/component/page/preview` shows the draft for a chosen audience.

use super::api::{doc, Api};
use std::collections::BTreeMap;

use actix_web::{web, HttpRequest};
use protocol::home::rules::primary_language;
use protocol::home::view::{AppConfig, ModuleView};
use protocol::home::{Audience, Banner, Module, Popup, PopupKind, Viewer};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use crate::auth::{device_id_of, optional_caller, Authed};
use crate::error::{ok, ApiError, ApiResult};
use crate::home::elements;
use crate::home::popups::PopupAction;
use crate::home::{audience_of, ItemKind, Visible};
use crate::popups::Subject;
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.post(
        "/banner/home",
        banners,
        doc("The home page's banners for this viewer"),
    )
    .post(
        "/slot/list",
        slots,
        doc("The home page's slots for this viewer"),
    )
    .post(
        "/app/fetch",
        app_fetch,
        doc("App configuration for the client"),
    )
    .post(
        "/face-photo/get",
        popup_get,
        doc("The popup to show now (recorded as shown)"),
    )
    .post(
        "/face-photo/dont-pop",
        dont_pop,
        doc("Stop showing a popup"),
    )
    .post(
        "/face-photo/popup-info",
        popup_info,
        doc("A popup's content"),
    )
    .post(
        "/face-photo/mark-face-photo-popup",
        popup_mark,
        doc("Mark the face photo popup as seen"),
    )
    .post(
        "/face-photo/mark-wakeup-user-popup",
        wakeup,
        doc("Mark the wake-up popup as seen"),
    )
    .post(
        "/theme-activity/face-popup/module-list",
        module_list,
        doc("The popup's modules"),
    )
    .post(
        "/theme-activity/face-popup/batch-content",
        batch_content,
        doc("The content of several popup modules"),
    )
    .post(
        "/square/column/config",
        column_config,
        doc("The square's tabs and filters per page"),
    )
    .post(
        "/square/component/config-v2",
        component_config,
        doc("The page configuration with every slot's components"),
    )
    .post(
        "/square/component/element/dynamic",
        module_element,
        doc("One page module's elements"),
    )
    .post(
        "/square/component/module/element",
        module_element,
        doc("One page module's elements (module path)"),
    )
    .post(
        "/square/component/page/preview",
        preview,
        doc("Operators: preview a draft home page for an audience"),
    )
    .post(
        "/admin/home/draft",
        admin_draft,
        doc("Operators: the home page draft"),
    )
    .post(
        "/admin/home/banner/save",
        admin_banner,
        doc("Operators: save a home banner"),
    )
    .post(
        "/admin/home/module/save",
        admin_module,
        doc("Operators: save a home module"),
    )
    .post(
        "/admin/home/popup/save",
        admin_popup,
        doc("Operators: save a popup"),
    )
    .post(
        "/admin/home/delete",
        admin_delete,
        doc("Operators: delete a home item"),
    )
    .post(
        "/admin/home/features",
        admin_features,
        doc("Operators: set the home page features"),
    )
    .post(
        "/admin/home/publish",
        admin_publish,
        doc("Operators: publish the home page draft"),
    )
    .post(
        "/admin/home/clock",
        admin_clock,
        doc("Operators: set the home test clock (test builds only)"),
    );
}

/// What the viewer calls take (every field optional; unknown ones ignored,
/// as the spec's client sends its own).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ViewBody {
    /// The viewer's language (`en`, `zh-CN`); else `Accept-Language`.
    lang: Option<String>,
    language: Option<String>,
    slot: Option<String>,
    slots: Vec<String>,
    module_id: Option<String>,
    module_ids: Vec<String>,
    cursor: Option<String>,
    page_size: Option<u32>,
    /// A popup id.
    id: Option<String>,
    action: Option<String>,
}

/// Who is asking: the account (if any), the subject marks are kept for,
/// and the viewer targeting is matched against.
struct Who {
    account: Option<String>,
    subject: Option<Subject>,
    viewer: Viewer,
}

fn language(req: &HttpRequest, b: &ViewBody) -> String {
    let tag = b
        .lang
        .as_deref()
        .or(b.language.as_deref())
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| {
            req.headers()
                .get(actix_web::http::header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_default();
    primary_language(&tag)
}

async fn who(req: &HttpRequest, state: &AppState, b: &ViewBody) -> Result<Who, ApiError> {
    let caller = optional_caller(req, state).await?;
    let account = caller.as_ref().map(|c| &c.account);
    let viewer = Viewer {
        audience: audience_of(account),
        language: language(req, b),
    };
    let subject = match account {
        Some(a) => Some(Subject::Account(a.id.clone())),
        None => device_id_of(req).map(Subject::Device),
    };
    Ok(Who {
        account: account.map(|a| a.id.clone()),
        subject,
        viewer,
    })
}

async fn banners(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    Ok(ok(
        json!({"banners": v.banners(b.slot.as_deref()), "version": live.version}),
    ))
}

async fn slots(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    let mut only = b.slots.clone();
    only.extend(b.slot.clone());
    Ok(ok(
        json!({"slots": v.slots(&only), "version": live.version}),
    ))
}

async fn app_fetch(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let now = s.home.now();
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now,
    };
    // Looking does not count as a show: the popup is taken by face-photo/get.
    let (popup_waiting, away_days) = match &w.subject {
        Some(who) => {
            let a = s.home.pick_popup(who, &w.viewer, &[], false).await?;
            (a.show, a.away_days)
        }
        None => (false, 0),
    };
    Ok(ok(AppConfig {
        audience: w.viewer.audience,
        language: w.viewer.language.clone(),
        version: live.version,
        features: live.features.clone(),
        slots: v.slots(&[]).into_iter().map(|s| s.name).collect(),
        modules: v.modules(None).into_iter().map(|m| m.id.clone()).collect(),
        banners: v.banners(None).len(),
        popup_waiting,
        away_days,
    }))
}

/// The popup to show now, recorded as shown (a browser without a device
/// cookie yet gets none: it has the cookie from this answer on).
async fn popup_get(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let kinds = [PopupKind::FacePhoto, PopupKind::Notice, PopupKind::Wakeup];
    match &w.subject {
        Some(who) => Ok(ok(s.home.pick_popup(who, &w.viewer, &kinds, true).await?)),
        None => Ok(ok(json!({"show": false, "popup": null, "away_days": 0}))),
    }
}

async fn wakeup(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let who = w.subject.ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(s
        .home
        .pick_popup(&who, &w.viewer, &[PopupKind::Wakeup], true)
        .await?))
}

fn popup_id(b: &ViewBody) -> Result<String, ApiError> {
    b.id.clone()
        .filter(|id| !id.is_empty())
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "id: the popup's id"))
}

async fn dont_pop(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let id = popup_id(&b)?;
    let w = who(&req, &s, &b).await?;
    let who = w.subject.ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(s.home.dont_pop(&who, &id).await?))
}

async fn popup_mark(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let id = popup_id(&b)?;
    let action = match b.action.as_deref().unwrap_or("close") {
        "close" => PopupAction::Close,
        "click" => PopupAction::Click,
        _ => {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "action: close or click",
            ))
        }
    };
    let w = who(&req, &s, &b).await?;
    let who = w.subject.ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(s.home.mark(&who, &id, action).await?))
}

async fn popup_info(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let who = w.subject.ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(
        json!({"popups": s.home.popup_info(&who, &w.viewer).await?}),
    ))
}

async fn module_list(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ViewBody>,
) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    let modules: Vec<ModuleView> = v
        .modules(b.slot.as_deref())
        .into_iter()
        .map(ModuleView::from)
        .collect();
    Ok(ok(json!({"modules": modules})))
}

async fn batch_content(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ViewBody>,
) -> ApiResult {
    if b.module_ids.len() > 20 {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "module_ids: at most 20",
        ));
    }
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    let ids: Vec<String> = if b.module_ids.is_empty() {
        v.modules(b.slot.as_deref())
            .into_iter()
            .map(|m| m.id.clone())
            .collect()
    } else {
        b.module_ids.clone()
    };
    let mut contents = Vec::with_capacity(ids.len());
    for id in ids {
        // A module this viewer may not see is left out, like a missing one.
        let Ok(m) = v.module(&id) else { continue };
        contents.push(elements::content(&s, w.account.as_deref(), m, None, b.page_size).await?);
    }
    Ok(ok(json!({"contents": contents})))
}

/// `component/element/dynamic` and `component/module/element`: one page of a module.
async fn module_element(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ViewBody>,
) -> ApiResult {
    let id = b
        .module_id
        .clone()
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "module_id"))?;
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    let m = v.module(&id)?;
    Ok(ok(elements::content(
        &s,
        w.account.as_deref(),
        m,
        b.cursor.as_deref(),
        b.page_size,
    )
    .await?))
}

/// The square's page configuration (tabs and filters per page key) with the
/// columns (modules) this viewer sees.
async fn column_config(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ViewBody>,
) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    let mut config = super::square::page_config();
    let columns: Vec<ModuleView> = v
        .modules(b.slot.as_deref())
        .into_iter()
        .map(ModuleView::from)
        .collect();
    if let Some(o) = config.as_object_mut() {
        o.insert("columns".into(), json!(columns));
    }
    Ok(ok(config))
}

/// The page configuration with every slot's components for this viewer.
async fn component_config(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ViewBody>,
) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    let mut config = super::square::page_config();
    if let Some(o) = config.as_object_mut() {
        o.insert("components".into(), json!(v.slots(&b.slots)));
        o.insert("features".into(), json!(live.features));
        o.insert("version".into(), json!(live.version));
    }
    Ok(ok(config))
}

fn operator(s: &AppState, caller: &Authed) -> Result<String, ApiError> {
    super::require_operator(s, caller)?;
    Ok(caller.0.account.id.clone())
}

#[derive(Debug, Deserialize)]
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

#[derive(Debug, Deserialize)]
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

#[derive(Debug, Deserialize)]
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

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
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

#[derive(Debug, Deserialize)]
struct ClockBody {
    now_ms: i64,
}

/// Sets the test clock (`EASEL_HOME_TEST_CLOCK=1` only; NotFound otherwise).
async fn admin_clock(s: web::Data<AppState>, caller: Authed, b: web::Json<ClockBody>) -> ApiResult {
    operator(&s, &caller)?;
    let now = s.home.set_clock(b.now_ms)?;
    Ok(ok(json!({ "now_ms": now })))
}
