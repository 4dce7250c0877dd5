//! Models (spec 3 §7 Models; issue 19): model/*, square/model/*, resource/{createModel, commitModel, delModel, publish}, model downloads.
//! Bodies are JSON; every call on another account's draft answers NotFound.
//! The rules live in `crate::models` (`ops`, `feed`, `import`, `upload`).

use super::api::{doc, Api};
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use infra::store::Key;
use protocol::models::{
    CreateModelAnswer, CreateModelRequest, ModelDeclaration, ModelView, VersionSource, VersionView,
};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::models::ops::{ModelEdit, NewVersion, VersionEdit};
use crate::models::{model_view, version_view, ModelRow, ModelService, VersionRow};
use crate::routes::square::viewer;
use crate::state::AppState;

mod lists;
pub use lists::{community, feed_as};
use lists::{config_select, list, list_other, save, square_my, square_other, ver_select};

fn svc(s: &AppState) -> ModelService {
    ModelService::new(s.store.clone())
}

/// A model as `viewer` sees it, with its live figures from the rankings.
async fn view(
    s: &AppState,
    m: &ModelService,
    row: &ModelRow,
    viewer: Option<&str>,
) -> Result<protocol::models::ModelView, ApiError> {
    let versions = m.versions_of(row).await?;
    let stats = s.ranks.stats(&row.id).await?;
    Ok(model_view(row, &versions, stats, viewer))
}

#[derive(utoipa::ToSchema, Deserialize)]
pub struct ModelId {
    pub model_id: String,
    #[serde(default)]
    pub model_ver_no: Option<String>,
}

#[derive(utoipa::ToSchema, Deserialize)]
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

/// `model/del`: the model deleted.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ModelDeleted {
    pub model_id: String,
}

/// `model/detail-with-ver`: a model and the version asked for (else its
/// newest; null when it has none).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ModelWithVersion {
    pub model: ModelView,
    pub version: Option<VersionView>,
}

/// `resource/createModel` and `model/ver/add` (with `model_id`).
pub async fn create_model(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<CreateModelRequest>,
) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let m = svc(&s);
    let file = m.take_file(&b.file_id, &c.account.id).await?;
    let keep = file.clone();
    let made = m
        .create_version(NewVersion {
            owner: &c.account.id,
            owner_name: &c.account.name,
            file,
            name: &b.model.name,
            model_type: &b.model.model_type,
            base_model: &b.model.base_model,
            model_id: b.model.model_id.as_deref(),
            version_name: b.model.version_name.as_deref(),
            description: b.model.description.as_deref(),
            sha256: b.model.sha256.as_deref(),
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

#[derive(utoipa::ToSchema, Deserialize)]
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
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b.model)?;
    s.text_filter.clean(&mut b.version)?;
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
    Ok(ok(view(&s, &m, &row, Some(me)).await?))
}

/// `model/edit`.
pub async fn edit(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<CommitBody>,
) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b.model)?;
    s.text_filter.clean(&mut b.version)?;
    let m = svc(&s);
    let row = m.edit_model(&b.model_id, &c.account.id, &b.model).await?;
    Ok(ok(view(&s, &m, &row, Some(&c.account.id)).await?))
}

#[derive(utoipa::ToSchema, Deserialize)]
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
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b.version)?;
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
    Ok(ok(ModelDeleted {
        model_id: b.model_id.clone(),
    }))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[schema(as = ModelPublishBody)]
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
    Ok(ok(view(&s, &m, &row, Some(&c.account.id)).await?))
}

/// `model/delist`: the model, or one version (`model_ver_no`).
pub async fn delist(s: web::Data<AppState>, Authed(c): Authed, b: web::Json<ModelId>) -> ApiResult {
    let m = svc(&s);
    let row = m
        .delist(&b.model_id, &c.account.id, b.model_ver_no.as_deref())
        .await?;
    Ok(ok(view(&s, &m, &row, Some(&c.account.id)).await?))
}

/// `model/detail`.
pub async fn detail(req: HttpRequest, s: web::Data<AppState>, b: web::Json<ModelId>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let m = svc(&s);
    let row = m.model_for(&b.model_id, v.as_deref()).await?;
    Ok(ok(view(&s, &m, &row, v.as_deref()).await?))
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
    let model = view(&s, &m, &row, v.as_deref()).await?;
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
    Ok(ok(ModelWithVersion { model, version }))
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

#[derive(utoipa::ToSchema, Deserialize)]
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

/// `model/import/submit`: the address and `resource/createModel`'s fields.
#[derive(utoipa::ToSchema, Deserialize)]
pub struct ImportBody {
    pub url: String,
    #[serde(flatten)]
    pub model: ModelDeclaration,
}

/// `model/import/submit`: downloads the file at `url` (checked like an
/// upload) and makes a draft model (or a version of `model_id`).
pub async fn import_submit(
    s: web::Data<AppState>,
    Authed(c): Authed,
    b: web::Json<ImportBody>,
) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b.model)?;
    let m = svc(&s);
    if let Some(id) = &b.model.model_id {
        m.own_model(id, &c.account.id).await?;
    }
    let file = crate::models::import::import_file(&s, &c.account.id, &b.url).await?;
    let file = m.take_file(&file.file_id, &c.account.id).await?;
    let key = file.key.clone();
    let name = if b.model.name.trim().is_empty() {
        file.name.trim_end_matches(".safetensors").to_owned()
    } else {
        b.model.name.clone()
    };
    let made = m
        .create_version(NewVersion {
            owner: &c.account.id,
            owner_name: &c.account.name,
            file,
            name: &name,
            model_type: &b.model.model_type,
            base_model: &b.model.base_model,
            model_id: b.model.model_id.as_deref(),
            version_name: b.model.version_name.as_deref(),
            description: b.model.description.as_deref(),
            sha256: b.model.sha256.as_deref(),
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

#[derive(utoipa::ToSchema, Deserialize)]
#[schema(as = ModelUrlBody)]
pub struct UrlBody {
    pub url: String,
}

/// `model/recommend/byUrl`: proposed fields for the model at `url`.
pub async fn by_url(s: web::Data<AppState>, _a: Authed, b: web::Json<UrlBody>) -> ApiResult {
    Ok(ok(crate::models::import::propose(&s, &b.url).await?))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[schema(as = ModelDownloadQuery)]
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
    let mut resp = super::files::stream_object(&req, &s, key).await?;
    // A download counts for the rankings once per account (or visitor
    // address) and version a day, not once per range request.
    if !mine {
        let who = v.clone().unwrap_or_else(|| {
            req.connection_info()
                .realip_remote_addr()
                .unwrap_or("anonymous")
                .to_owned()
        });
        let now = crate::accounts::now_millis();
        let day = now / 86_400_000;
        s.ranks.record_soon(
            &model.id,
            &model.owner,
            crate::models::rank::ModelEvent::Download,
            now,
            Some(&format!("dl:{}:{who}:{day}", ver.ver_no)),
        );
    }
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
pub fn routes(api: &mut Api) {
    api.post(
        "/resource/createModel",
        create_model,
        doc("Create a model (or a version) from an uploaded file")
            .body::<CreateModelRequest>()
            .reply::<CreateModelAnswer>(),
    )
    .post(
        "/resource/commitModel",
        commit_model,
        doc("Finish a model draft")
            .body::<CommitBody>()
            .reply::<ModelView>(),
    )
    .post(
        "/resource/delModel",
        del_model,
        doc("Delete a model")
            .body::<ModelId>()
            .reply::<ModelDeleted>(),
    )
    .post(
        "/resource/publish",
        publish,
        doc("Publish a model")
            .body::<PublishBody>()
            .reply::<ModelView>(),
    )
    .post(
        "/model/list",
        list,
        doc("The caller's models").reply::<lists::ModelList>(),
    )
    .post(
        "/model/list/other",
        list_other,
        doc("Someone's published models").reply::<lists::ModelList>(),
    )
    .post(
        "/model/edit",
        edit,
        doc("Edit a model")
            .body::<CommitBody>()
            .reply::<ModelView>(),
    )
    .post(
        "/model/ver/edit",
        ver_edit,
        doc("Edit a model version")
            .body::<VerEditBody>()
            .reply::<VersionView>(),
    )
    .post(
        "/model/ver/add",
        create_model,
        doc("Add a version to a model from an uploaded file")
            .body::<CreateModelRequest>()
            .reply::<CreateModelAnswer>(),
    )
    .post(
        "/model/versionDetail",
        version_detail,
        doc("A model version with its model's name").body::<VerNo>(),
    )
    .post(
        "/model/delist",
        delist,
        doc("Delist a model or one version")
            .body::<ModelId>()
            .reply::<ModelView>(),
    )
    .post(
        "/model/save",
        save,
        doc("Save (collect) a model, toggled or set"),
    )
    .post(
        "/model/save/ver-refer",
        save,
        doc("Save a model version for reference"),
    )
    .post(
        "/model/detail-with-ver",
        detail_with_ver,
        doc("A model and one of its versions")
            .body::<ModelId>()
            .reply::<ModelWithVersion>(),
    )
    .post(
        "/model/publish",
        publish,
        doc("Publish a model (model path)")
            .body::<PublishBody>()
            .reply::<ModelView>(),
    )
    .post(
        "/model/import/submit",
        import_submit,
        doc("Import a model from a URL")
            .body::<ImportBody>()
            .reply::<CreateModelAnswer>(),
    )
    .post(
        "/model/recommend/byUrl",
        by_url,
        doc("Proposed fields for a model at a URL").body::<UrlBody>(),
    )
    .post(
        "/model/detail",
        detail,
        doc("One model").body::<ModelId>().reply::<ModelView>(),
    )
    .post(
        "/model/config-select",
        config_select,
        doc("The generator's model picker"),
    )
    .post(
        "/model/post-join",
        post_join,
        doc("Add example pictures to a model")
            .body::<PostJoinBody>()
            .reply::<VersionView>(),
    )
    .post(
        "/model/ver-select",
        ver_select,
        doc("A model's versions the caller may use"),
    )
    .get(
        "/model/download",
        download,
        doc("Download a model version's file")
            .raw("application/octet-stream")
            .query(&["model_ver_no"]),
    )
    .post(
        "/square/model/my",
        square_my,
        doc("The caller's models as cards").reply::<protocol::square::FeedPage>(),
    )
    .post(
        "/square/model/other",
        square_other,
        doc("Someone's published models as cards").reply::<protocol::square::FeedPage>(),
    );
}
