//! Model lists (spec 3 §7 Models): `model/list`, `list/other`,
//! `save` and `save/ver-refer`, `config-select` (the generator's picker), `ver-select`,
//! `square/model/{my, other}` and the model and lora_train feeds.

use actix_web::{web, HttpRequest};
use infra::store::Key;
use protocol::models::PublishStatus;
use protocol::square::feed::{FeedRequest, OrderBy};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{svc, ModelId};
use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::models::{ModelRow, SavedModel, VersionRow};
use crate::routes::square::viewer;
use crate::state::AppState;

#[derive(Deserialize)]
pub struct ListBody {
    #[serde(default)]
    pub account_id: Option<String>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// A page of `model/list` and `list/other`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ModelList {
    items: Vec<protocol::models::ModelView>,
    next_cursor: Option<String>,
}

fn cursor_of(c: Option<&str>) -> Result<Option<(i64, String)>, ApiError> {
    let Some(c) = c.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    c.split_once('.')
        .and_then(|(a, id)| Some((a.parse().ok()?, id.to_owned())))
        .map(Some)
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "bad cursor"))
}

async fn list_of(s: &AppState, account: &str, viewer: Option<&str>, b: &ListBody) -> ApiResult {
    let m = svc(s);
    let mut rows: Vec<ModelRow> = Vec::new();
    let n = b.page_size.unwrap_or(20).clamp(1, 100) as usize;
    let mine = viewer == Some(account);
    let mut before = cursor_of(b.cursor.as_deref())?;
    let mut next = None;
    'pages: loop {
        let page = m.owned_page(account, before.clone(), n + 1).await?;
        let done = page.len() <= n;
        for r in page {
            before = Some((r.create_at, r.id.clone()));
            if !mine && r.publish_status != PublishStatus::Published {
                continue;
            }
            if rows.len() == n {
                next = rows.last().map(|x| format!("{}.{}", x.create_at, x.id));
                break 'pages;
            }
            rows.push(r);
        }
        if done {
            break;
        }
    }
    // Versions and live figures in one batched read each for the page.
    let items = s.ranks.views_of(&rows, viewer).await?;
    // Serialised as is (not through a JSON value, which would widen the
    // versions' f32 weights): the same numbers as `model/detail`.
    Ok(ok(ModelList {
        items,
        next_cursor: next,
    }))
}

/// `model/list`: the caller's models (every status), newest first.
pub async fn list(s: web::Data<AppState>, Authed(c): Authed, b: web::Json<ListBody>) -> ApiResult {
    list_of(&s, &c.account.id, Some(&c.account.id), &b).await
}

/// `model/list/other`: someone's published models.
pub async fn list_other(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ListBody>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let who = b
        .account_id
        .clone()
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "account_id is required"))?;
    list_of(&s, &who, v.as_deref(), &b).await
}

#[derive(Deserialize)]
pub struct SaveBody {
    #[serde(default)]
    pub model_id: Option<String>,
    #[serde(default)]
    pub model_ver_no: Option<String>,
    /// true saves, false removes; absent toggles.
    #[serde(default)]
    pub save: Option<bool>,
}

/// `model/save` (toggle or set) and `model/save/ver-refer` (save with a version).
pub async fn save(s: web::Data<AppState>, Authed(c): Authed, b: web::Json<SaveBody>) -> ApiResult {
    let m = svc(&s);
    let me = c.account.id.as_str();
    let (model_id, ver) = match (&b.model_id, &b.model_ver_no) {
        (_, Some(ver)) => {
            let (model, v) = m.version_for(ver, Some(me)).await?;
            (model.id, Some(v.ver_no))
        }
        (Some(id), None) => (m.model_for(id, Some(me)).await?.id, None),
        (None, None) => {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "model_id or model_ver_no is required",
            ))
        }
    };
    let (pk, ck) = (Key::of(me), Key::of(&model_id));
    let had = m.saves.get(&pk, &ck).await?.is_some();
    let want = b.save.unwrap_or(!had || ver.is_some());
    if want {
        let row = SavedModel {
            saved_at: crate::accounts::now_millis(),
            ver_no: ver.clone(),
        };
        m.saves.put(&pk, &ck, &row).await?;
    } else {
        m.saves.delete(&pk, &ck).await?;
    }
    Ok(ok(
        json!({ "model_id": model_id, "saved": want, "model_ver_no": ver }),
    ))
}

#[derive(Deserialize)]
pub struct SelectBody {
    #[serde(default)]
    pub model_type: serde_json::Value,
    #[serde(default)]
    pub base_model: serde_json::Value,
    #[serde(default)]
    pub keyword: Option<String>,
    #[serde(default)]
    pub page_size: Option<u32>,
}

/// A picker entry (spec 3 §3 "Lora and embedding entries").
fn entry(m: &ModelRow, v: &VersionRow) -> serde_json::Value {
    json!({
        "id": v.ver_no,
        "model_id": m.id,
        "model_ver_no": v.ver_no,
        "model_type": m.model_type,
        "base_model": m.family,
        "base_model_name": m.variant,
        "name": m.name,
        "version_name": v.name,
        "weight": v.weight,
        "banner": v.images.first(),
        "trained_words": v.trained_words,
        "status": v.status,
        "publish_status": v.publish_status,
        "is_mine": m.owner == v.owner,
        "agency_fee": m.agency_fee,
    })
}

fn usable(m: &ModelRow, v: &VersionRow, me: Option<&str>) -> bool {
    v.status == protocol::models::VersionStatus::Ready
        && (me == Some(m.owner.as_str())
            || (m.publish_status == PublishStatus::Published
                && v.publish_status == PublishStatus::Published))
}

/// `model/config-select`: the generator's picker: published models and the
/// caller's own ready versions, filtered by type and by the checkpoint's
/// family (a LoRA fits the family's checkpoints, `rules::fits`).
pub async fn config_select(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<SelectBody>,
) -> ApiResult {
    use protocol::models::rules::{fits, parse_base_model, parse_model_type};
    let v = viewer(&req, &s).await?;
    let me = v.as_deref();
    let m = svc(&s);
    let ty = (!b.model_type.is_null())
        .then(|| parse_model_type(&b.model_type))
        .map(|t| {
            t.ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "unknown model_type"))
        })
        .transpose()?;
    let fam = (!b.base_model.is_null())
        .then(|| parse_base_model(&b.base_model))
        .map(|f| {
            f.map(|(f, _)| f)
                .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "unknown base_model"))
        })
        .transpose()?;
    let n = b.page_size.unwrap_or(50).clamp(1, 100) as usize;
    let kw = b
        .keyword
        .as_deref()
        .map(str::to_lowercase)
        .filter(|k| !k.is_empty());
    let keep = |r: &ModelRow| {
        ty.is_none_or(|t| r.model_type == t)
            && fam.as_deref().is_none_or(|f| fits(f, &r.family))
            && kw
                .as_deref()
                .is_none_or(|k| r.name.to_lowercase().contains(k))
    };
    let mut models: Vec<ModelRow> = Vec::new();
    if let Some(me) = me {
        models.extend(m.owned(me, 100).await?.into_iter().filter(|r| keep(r)));
    }
    for (_, id) in m.public_page(None, 200, |_| true).await? {
        if models.iter().any(|r| r.id == id) {
            continue;
        }
        if let Ok(r) = m.model_for(&id, me).await {
            if keep(&r) {
                models.push(r);
            }
        }
    }
    let mut items = Vec::new();
    'outer: for r in &models {
        for ver in m.versions_of(r).await?.iter().rev() {
            if usable(r, ver, me) {
                items.push(entry(r, ver));
                if items.len() >= n {
                    break 'outer;
                }
            }
        }
    }
    Ok(ok(json!({ "items": items })))
}

/// `model/ver-select`: the versions of one model the caller may use.
pub async fn ver_select(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ModelId>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let m = svc(&s);
    let r = m.model_for(&b.model_id, v.as_deref()).await?;
    let items: Vec<serde_json::Value> = m
        .versions_of(&r)
        .await?
        .iter()
        .rev()
        .filter(|x| usable(&r, x, v.as_deref()))
        .map(|x| entry(&r, x))
        .collect();
    Ok(ok(json!({ "items": items })))
}

/// `square/model/my`: the caller's models as cards.
pub async fn square_my(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<FeedRequest>,
) -> ApiResult {
    let me = c.account.id.as_str();
    Ok(ok(s.ranks.account_cards(me, Some(me), &b).await?))
}

/// `square/model/other`: someone's published models as cards.
pub async fn square_other(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<FeedRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let who = b
        .account_id
        .clone()
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "account_id is required"))?;
    Ok(ok(s.ranks.account_cards(&who, v.as_deref(), &b).await?))
}

/// A model feed handler: published models (`trained_only`: with a trained
/// version, the lora_train feeds) in the body's `order_by` (new, hot,
/// recommend: `models::rank::feed_order`), else in `default`.
pub fn feed_as(
    default: OrderBy,
    trained_only: bool,
) -> impl Fn(
    HttpRequest,
    web::Data<AppState>,
    web::Json<FeedRequest>,
) -> crate::routes::square::Handler
       + Clone
       + 'static {
    move |req, s, b| {
        let mut b = b.into_inner();
        Box::pin(async move {
            if b.order_by.is_none() {
                b.order_by = Some(default);
            }
            let v = viewer(&req, &s).await?;
            let now = crate::accounts::now_millis();
            Ok(ok(s
                .ranks
                .model_feed(&b, v.as_deref(), trained_only, now)
                .await?))
        })
    }
}

#[derive(Deserialize)]
pub struct CommunityBody {
    #[serde(default)]
    pub model_id: Option<String>,
    #[serde(default)]
    pub model_ver_no: Option<String>,
    #[serde(flatten)]
    pub feed: FeedRequest,
}

/// `square/my-artwork/community`: with `model_id` (or `model_ver_no`), the
/// model's community gallery: published works made with it (with that
/// version), newest first, as the caller (or a visitor) may see them; a
/// model the caller may not see answers NotFound, a version of another
/// model than `model_id` too. Without either, the caller's own works (the
/// call's first meaning; logged-in only).
pub async fn community(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<CommunityBody>,
) -> ApiResult {
    let b = b.into_inner();
    let given = |x: &Option<String>| {
        x.as_deref()
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_owned)
    };
    let (model_id, ver_no) = (given(&b.model_id), given(&b.model_ver_no));
    if model_id.is_none() && ver_no.is_none() {
        let Authed(c) = <Authed as actix_web::FromRequest>::extract(&req).await?;
        let me = c.account.id;
        return Ok(ok(s.square.author_works(Some(&me), &me, &b.feed).await?));
    }
    let v = viewer(&req, &s).await?;
    let m = svc(&s);
    let model = match &ver_no {
        Some(ver) => {
            let (model, _) = m.version_for(ver, v.as_deref()).await?;
            if model_id.as_ref().is_some_and(|id| *id != model.id) {
                return Err(ErrorCode::NotFound.into());
            }
            model
        }
        None => {
            m.model_for(model_id.as_deref().unwrap_or_default(), v.as_deref())
                .await?
        }
    };
    Ok(ok(s
        .square
        .model_works(v.as_deref(), &model.id, ver_no.as_deref(), &b.feed)
        .await?))
}
