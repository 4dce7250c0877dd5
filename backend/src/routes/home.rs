//! The home page's calls (issue 22 part 3; spec 3 §7 "Face photo and popups"
//! and the square's column and component calls). Viewers: `banner/home`,
//! `slot/list`, `app/fetch`, `face-photo/*`, `theme-activity/face-popup/*`,
//! `square/column/config`, `square/component/*`. The operators' calls are in
//! `home_admin.rs`.

use super::api::{doc, Api};

use actix_web::{web, HttpRequest};
use protocol::awards::Zone;
use protocol::home::rules::primary_language;
use protocol::home::view::{AppConfig, BannerView, ModuleView, PopupAnswer, PopupInfo, SlotView};
use protocol::home::{PopupKind, Viewer};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use crate::auth::{device_id_of, optional_caller};
use crate::error::{ok, ApiError, ApiResult};
use crate::home::elements;
use crate::home::popups::PopupAction;
use crate::home::{audience_of, Visible};
use crate::popups::Subject;
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.post(
        "/banner/home",
        banners,
        doc("The home page's banners for this viewer")
            .body::<ViewBody>()
            .reply::<Banners>(),
    )
    .post(
        "/slot/list",
        slots,
        doc("The home page's slots for this viewer")
            .body::<ViewBody>()
            .reply::<Slots>(),
    )
    .post(
        "/app/fetch",
        app_fetch,
        doc("App configuration for the client")
            .body::<ViewBody>()
            .reply::<AppConfig>(),
    )
    .post(
        "/face-photo/get",
        popup_get,
        doc("The popup to show now (recorded as shown)")
            .body::<ViewBody>()
            .reply::<PopupAnswer>(),
    )
    .post(
        "/face-photo/dont-pop",
        dont_pop,
        doc("Stop showing a popup").body::<ViewBody>(),
    )
    .post(
        "/face-photo/popup-info",
        popup_info,
        doc("A popup's content")
            .body::<ViewBody>()
            .reply::<PopupInfos>(),
    )
    .post(
        "/face-photo/mark-face-photo-popup",
        popup_mark,
        doc("Mark the face photo popup as seen").body::<ViewBody>(),
    )
    .post(
        "/face-photo/mark-wakeup-user-popup",
        wakeup,
        doc("Mark the wake-up popup as seen")
            .body::<ViewBody>()
            .reply::<PopupAnswer>(),
    )
    .post(
        "/theme-activity/face-popup/module-list",
        module_list,
        doc("The popup's modules")
            .body::<ViewBody>()
            .reply::<Modules>(),
    )
    .post(
        "/theme-activity/face-popup/batch-content",
        batch_content,
        doc("The content of several popup modules").body::<ViewBody>(),
    )
    .post(
        "/square/column/config",
        column_config,
        doc("The square's tabs and filters per page").body::<ViewBody>(),
    )
    .post(
        "/square/component/config-v2",
        component_config,
        doc("The page configuration with every slot's components").body::<ViewBody>(),
    )
    .post(
        "/square/component/element/dynamic",
        module_element,
        doc("One page module's elements").body::<ViewBody>(),
    )
    .post(
        "/square/component/module/element",
        module_element,
        doc("One page module's elements (module path)").body::<ViewBody>(),
    );
    super::home_admin::routes(api);
}

/// What the viewer calls take (every field optional; unknown ones ignored,
/// as the spec's client sends its own).
#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
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
    /// The viewer's IANA time zone (`Asia/Shanghai`): popup caps count days
    /// in an account's pinned zone, else in this one, else in UTC.
    tz: Option<String>,
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

/// The zone popup caps count days in for this viewer.
async fn zone_of(s: &AppState, w: &Who, b: &ViewBody) -> Result<Zone, ApiError> {
    s.awards
        .viewer_zone(w.account.as_deref(), b.tz.as_deref())
        .await
}

/// `home/banners`: the banners this viewer sees, and the live version.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = HomeBanners)]
pub struct Banners {
    pub banners: Vec<BannerView>,
    pub version: u64,
}

/// `home/slots`: the slots this viewer sees, and the live version.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = HomeSlots)]
pub struct Slots {
    pub slots: Vec<SlotView>,
    pub version: u64,
}

/// `face-photo/popup-info`: every popup's state for the caller, and its zone.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct PopupInfos {
    pub popups: Vec<PopupInfo>,
    pub time_zone: String,
}

/// `home/module/list`: the modules this viewer sees.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = HomeModules)]
pub struct Modules {
    pub modules: Vec<ModuleView>,
}

async fn banners(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let live = s.home.live().await?;
    let v = Visible {
        comp: &live,
        viewer: &w.viewer,
        now: s.home.now(),
    };
    Ok(ok(Banners {
        banners: v.banners(b.slot.as_deref()),
        version: live.version,
    }))
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
    Ok(ok(Slots {
        slots: v.slots(&only),
        version: live.version,
    }))
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
            let zone = zone_of(&s, &w, &b).await?;
            let a = s.home.pick_popup(who, &w.viewer, &zone, &[], false).await?;
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
        Some(who) => {
            let zone = zone_of(&s, &w, &b).await?;
            Ok(ok(s
                .home
                .pick_popup(who, &w.viewer, &zone, &kinds, true)
                .await?))
        }
        None => Ok(ok(PopupAnswer {
            show: false,
            popup: None,
            away_days: 0,
        })),
    }
}

async fn wakeup(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ViewBody>) -> ApiResult {
    let w = who(&req, &s, &b).await?;
    let zone = zone_of(&s, &w, &b).await?;
    let who = w.subject.ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(s
        .home
        .pick_popup(&who, &w.viewer, &zone, &[PopupKind::Wakeup], true)
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
    let zone = zone_of(&s, &w, &b).await?;
    let who = w.subject.ok_or(ErrorCode::NeedLogin)?;
    Ok(ok(PopupInfos {
        popups: s.home.popup_info(&who, &w.viewer, &zone).await?,
        time_zone: zone.name().to_owned(),
    }))
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
    Ok(ok(Modules { modules }))
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
