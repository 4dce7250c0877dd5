//! Models (spec 3 §7 Models; issue 19): model/*, square/model/*, resource/{createModel, commitModel, delModel, publish}, model downloads.
//! Bodies are JSON; every call on another account's draft answers NotFound.
//! The rules live in `crate::models` (`ops`, `feed`, `import`, `upload`).

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use infra::store::Key;
use protocol::models::{CreateModelAnswer, CreateModelRequest, PublishStatus, VersionSource};
use protocol::square::feed::FeedRequest;
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::models::ops::{ModelEdit, NewVersion, VersionEdit};
use crate::models::{model_view, version_view, ModelRow, ModelService, SavedModel, VersionRow};
use crate::routes::square::viewer;
use crate::state::AppState;

fn svc(s: &AppState) -> ModelService {
    ModelService::new(s.store.clone())
}

async fn view(
    m: &ModelService,
    row: &ModelRow,
    viewer: Option<&str>,
) -> Result<protocol::models::ModelView, ApiError> {
    let versions = m.versions_of(row).await?;
    Ok(model_view(row, &versions, Default::default(), viewer))
}

#[derive(Deserialize)]
pub struct ModelId {
    pub model_id: String,
    #[serde(default)]
    pub model_ver_no: Option<String>,
}

#[derive(Deserialize)]
pub struct VerNo {
    pub model_ver_no: String,
}

fn answer(v: &VersionRow) -> CreateModelAnswer {
    let f = v.file.as_ref();
    CreateModelAnswer {
        model_id: v.model_id.clone(),
        model_ver_no: v.ver_no.clone(),
        sha256: f.map(|f| f.sha256.clone()).unwrap_or_default(),
        autov2: f.map(|f| f.autov2.clone()).unwrap_or_default(),
    }
}

/// `resource/createModel` and `model/ver/add` (with `model_id`).
pub async fn create_model(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<CreateModelRequest>,
) -> ApiResult {
    let m = svc(&s);
    let file = m.take_file(&b.file_id, &c.account.id).await?;
    let keep = file.clone();
    let made = m
        .create_version(NewVersion {
            owner: &c.account.id,
            owner_name: &c.account.name,
            file,
            name: &b.name,
            model_type: &b.model_type,
            base_model: &b.base_model,
            model_id: b.model_id.as_deref(),
            version_name: b.version_name.as_deref(),
            description: b.description.as_deref(),
            sha256: b.sha256.as_deref(),
            source: VersionSource::Upload,
        })
        .await;
    match made {
        Ok((_, v)) => Ok(ok(answer(&v))),
        Err(e) => {
            // A refused declaration leaves the file for a corrected call.
            m.files
                .put(&Key::of(&keep.file_id), &Key::empty(), &keep)
                .await?;
            Err(e)
        }
    }
}

#[derive(Deserialize)]
pub struct CommitBody {
    pub model_id: String,
    #[serde(flatten)]
    pub model: ModelEdit,
    #[serde(default)]
    pub model_ver_no: Option<String>,
    #[serde(flatten)]
    pub version: VersionEdit,
    /// Publish after saving (all ready versions).
    #[serde(default)]
    pub publish: bool,
}

/// `resource/commitModel`: finishes a draft (model fields and, with
/// `model_ver_no`, that version's); `publish: true` publishes it too.
pub async fn commit_model(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<CommitBody>,
) -> ApiResult {
    let m = svc(&s);
    let me = c.account.id.as_str();
    let mut row = m.edit_model(&b.model_id, me, &b.model).await?;
    if let Some(ver) = &b.model_ver_no {
        let (model, _) = m.edit_version(ver, me, &b.version).await?;
        if model.id != row.id {
            return Err(ErrorCode::NotFound.into());
        }
    }
    if b.publish {
        row = m.publish(&b.model_id, me, &[]).await?;
    }
    Ok(ok(view(&m, &row, Some(me)).await?))
}

/// `model/edit`.
pub async fn edit(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<CommitBody>,
) -> ApiResult {
    let m = svc(&s);
    let row = m.edit_model(&b.model_id, &c.account.id, &b.model).await?;
    Ok(ok(view(&m, &row, Some(&c.account.id)).await?))
}

#[derive(Deserialize)]
pub struct VerEditBody {
    pub model_ver_no: String,
    #[serde(flatten)]
    pub version: VersionEdit,
}

/// `model/ver/edit`.
pub async fn ver_edit(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<VerEditBody>,
) -> ApiResult {
    let m = svc(&s);
    let (model, v) = m
        .edit_version(&b.model_ver_no, &c.account.id, &b.version)
        .await?;
    Ok(ok(version_view(&model, &v, Some(&c.account.id))))
}

/// `resource/delModel`.
pub async fn del_model(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<ModelId>,
) -> ApiResult {
    svc(&s)
        .delete(&s.objects, &b.model_id, &c.account.id)
        .await?;
    Ok(ok(json!({ "model_id": b.model_id })))
}

#[derive(Deserialize)]
pub struct PublishBody {
    pub model_id: String,
    #[serde(default)]
    pub model_ver_nos: Vec<String>,
    #[serde(default)]
    pub model_ver_no: Option<String>,
}

/// `resource/publish`, `model/publish`.
pub async fn publish(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<PublishBody>,
) -> ApiResult {
    let m = svc(&s);
    let mut chosen = b.model_ver_nos.clone();
    chosen.extend(b.model_ver_no.clone());
    let row = m.publish(&b.model_id, &c.account.id, &chosen).await?;
    Ok(ok(view(&m, &row, Some(&c.account.id)).await?))
}

/// `model/delist`: the model, or one version (`model_ver_no`).
pub async fn delist(s: web::Data<AppState>, Authed(c): Authed, b: web::Json<ModelId>) -> ApiResult {
    let m = svc(&s);
    let row = m
        .delist(&b.model_id, &c.account.id, b.model_ver_no.as_deref())
        .await?;
    Ok(ok(view(&m, &row, Some(&c.account.id)).await?))
}

/// `model/detail`.
pub async fn detail(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ModelId>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let m = svc(&s);
    let row = m.model_for(&b.model_id, v.as_deref()).await?;
    Ok(ok(view(&m, &row, v.as_deref()).await?))
}

/// `model/detail-with-ver`: the model and one version (the asked one, else
/// the newest the viewer sees).
pub async fn detail_with_ver(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<ModelId>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let m = svc(&s);
    let row = m.model_for(&b.model_id, v.as_deref()).await?;
    let model = view(&m, &row, v.as_deref()).await?;
    let version = match &b.model_ver_no {
        Some(want) => Some(
            model
                .versions
                .iter()
                .find(|x| &x.model_ver_no == want)
                .cloned()
                .ok_or(ErrorCode::NotFound)?,
        ),
        None => model.versions.last().cloned(),
    };
    Ok(ok(json!({ "model": model, "version": version })))
}

/// `model/versionDetail`: a version with its model's name and owner.
pub async fn version_detail(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VerNo>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let (model, ver) = svc(&s).version_for(&b.model_ver_no, v.as_deref()).await?;
    let mut out = serde_json::to_value(version_view(&model, &ver, v.as_deref()))
        .map_err(ApiError::internal)?;
    if let Some(o) = out.as_object_mut() {
        o.insert("model_name".into(), json!(model.name));
        o.insert(
            "owner".into(),
            json!({"id": model.owner, "name": model.owner_name}),
        );
        o.insert(
            "is_mine".into(),
            json!(v.as_deref() == Some(model.owner.as_str())),
        );
    }
    Ok(ok(out))
}

#[derive(Deserialize)]
pub struct ListBody {
    #[serde(default)]
    pub account_id: Option<String>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
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
    let n = b.page_size.unwrap_or(20).clamp(1, 100) as usize;
    let mine = viewer == Some(account);
    let mut before = cursor_of(b.cursor.as_deref())?;
    let mut items = Vec::new();
    let mut next = None;
    'pages: loop {
        let rows = m.owned_page(account, before.clone(), n + 1).await?;
        let done = rows.len() <= n;
        for r in rows {
            before = Some((r.create_at, r.id.clone()));
            if !mine && r.publish_status != PublishStatus::Published {
                continue;
            }
            if items.len() == n {
                next = items.last().map(|x: &protocol::models::ModelView| {
                    format!("{}.{}", x.create_at, x.model_id)
                });
                break 'pages;
            }
            items.push(view(&m, &r, viewer).await?);
        }
        if done {
            break;
        }
    }
    Ok(ok(json!({ "items": items, "next_cursor": next })))
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

#[derive(Deserialize)]
pub struct PostJoinBody {
    pub model_ver_no: String,
    pub images: Vec<String>,
}

/// `model/post-join`: the creator adds example pictures (their works' URLs)
/// to a version's gallery (at most 20 in all).
pub async fn post_join(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<PostJoinBody>,
) -> ApiResult {
    let m = svc(&s);
    let (_, v) = m.version_for(&b.model_ver_no, Some(&c.account.id)).await?;
    if v.owner != c.account.id {
        return Err(ErrorCode::NotFound.into());
    }
    let mut images = v.images.clone();
    for i in crate::models::ops::check_images(&b.images)? {
        if !images.contains(&i) {
            images.push(i);
        }
    }
    let e = VersionEdit {
        images: Some(images),
        ..VersionEdit::default()
    };
    let (model, v) = m.edit_version(&b.model_ver_no, &c.account.id, &e).await?;
    Ok(ok(version_view(&model, &v, Some(&c.account.id))))
}

#[derive(Deserialize)]
pub struct ImportBody {
    pub url: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub model_type: serde_json::Value,
    #[serde(default)]
    pub base_model: serde_json::Value,
    #[serde(default)]
    pub model_id: Option<String>,
    #[serde(default)]
    pub version_name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub sha256: Option<String>,
}

/// `model/import/submit`: downloads the file at `url` (checked like an
/// upload) and makes a draft model (or a version of `model_id`).
pub async fn import_submit(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<ImportBody>,
) -> ApiResult {
    let m = svc(&s);
    if let Some(id) = &b.model_id {
        m.own_model(id, &c.account.id).await?;
    }
    let file = crate::models::import::import_file(&s, &c.account.id, &b.url).await?;
    let file = m.take_file(&file.file_id, &c.account.id).await?;
    let key = file.key.clone();
    let name = if b.name.trim().is_empty() {
        file.name.trim_end_matches(".safetensors").to_owned()
    } else {
        b.name.clone()
    };
    let made = m
        .create_version(NewVersion {
            owner: &c.account.id,
            owner_name: &c.account.name,
            file,
            name: &name,
            model_type: &b.model_type,
            base_model: &b.base_model,
            model_id: b.model_id.as_deref(),
            version_name: b.version_name.as_deref(),
            description: b.description.as_deref(),
            sha256: b.sha256.as_deref(),
            source: VersionSource::Import,
        })
        .await;
    match made {
        Ok((_, v)) => Ok(ok(answer(&v))),
        Err(e) => {
            if let Ok(k) = crate::error::object_key(&key) {
                let _ = s.objects.delete(&k).await;
            }
            Err(e)
        }
    }
}

#[derive(Deserialize)]
pub struct UrlBody {
    pub url: String,
}

/// `model/recommend/byUrl`: proposed fields for the model at `url`.
pub async fn by_url(s: web::Data<AppState>, _a: Authed, b: web::Json<UrlBody>) -> ApiResult {
    Ok(ok(crate::models::import::propose(&s, &b.url).await?))
}

/// `square/model/my`: the caller's models as cards.
pub async fn square_my(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<FeedRequest>,
) -> ApiResult {
    let me = c.account.id.as_str();
    Ok(ok(svc(&s).account_cards(me, Some(me), &b).await?))
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
    Ok(ok(svc(&s).account_cards(&who, v.as_deref(), &b).await?))
}

/// The model feeds (`square/v3/model/*`, `square/model/{list, recommend}`):
/// published models, newest first.
pub async fn feed(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<FeedRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(svc(&s).feed(&b, v.as_deref(), false).await?))
}

/// The lora_train feeds: published models with a trained version.
pub async fn lora_train_feed(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<FeedRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(svc(&s).feed(&b, v.as_deref(), true).await?))
}

#[derive(Deserialize)]
pub struct DownloadQuery {
    pub model_ver_no: String,
}

/// `GET model/download?model_ver_no=`: the version's file, with ranges,
/// when the creator allows downloads or the caller owns it; else 404.
pub async fn download(
    req: HttpRequest,
    s: web::Data<AppState>,
    q: web::Query<DownloadQuery>,
) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &s).await?;
    let (model, ver) = svc(&s).version_for(&q.model_ver_no, v.as_deref()).await?;
    let mine = v.as_deref() == Some(model.owner.as_str());
    if !(mine || model.allow_download) {
        return Err(ErrorCode::NotFound.into());
    }
    let f = ver.file.as_ref().ok_or(ErrorCode::NotFound)?;
    let key = crate::error::object_key(&f.key)?;
    let name = crate::models::engine_file_name(f);
    let mut resp = super::resource::stream_object(&req, &s, key).await?;
    resp.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        header::HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
            .map_err(ApiError::internal)?,
    );
    resp.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("private, no-store"),
    );
    Ok(resp)
}

/// Registered plain under `/api/v1` (before the scopes).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/resource/createModel", web::post().to(create_model))
        .route("/resource/commitModel", web::post().to(commit_model))
        .route("/resource/delModel", web::post().to(del_model))
        .route("/resource/publish", web::post().to(publish))
        .route("/model/list", web::post().to(list))
        .route("/model/list/other", web::post().to(list_other))
        .route("/model/edit", web::post().to(edit))
        .route("/model/ver/edit", web::post().to(ver_edit))
        .route("/model/ver/add", web::post().to(create_model))
        .route("/model/versionDetail", web::post().to(version_detail))
        .route("/model/delist", web::post().to(delist))
        .route("/model/save", web::post().to(save))
        .route("/model/save/ver-refer", web::post().to(save))
        .route("/model/detail-with-ver", web::post().to(detail_with_ver))
        .route("/model/publish", web::post().to(publish))
        .route("/model/import/submit", web::post().to(import_submit))
        .route("/model/recommend/byUrl", web::post().to(by_url))
        .route("/model/detail", web::post().to(detail))
        .route("/model/config-select", web::post().to(config_select))
        .route("/model/post-join", web::post().to(post_join))
        .route("/model/ver-select", web::post().to(ver_select))
        .route("/model/download", web::get().to(download))
        .route("/square/model/my", web::post().to(square_my))
        .route("/square/model/other", web::post().to(square_other));
}
