//! Video calls (spec 2 §7, DESIGN.md Contracts "Video"), under
//! `/api/v1/task/v2/video`: `text-to-video`, `img-to-video` (also effects
//! with a `template_id` and Live2D with a `live2d` image), and
//! `multi-img-to-video` create tasks (`data: {id}`), and so do the tools on
//! an earlier video (`parent_task_id`) or an uploaded one
//! (`generate_video.video_url`): `upscale`, `extend`, `frame-interpolation`; `estimate` answers the
//! cost fields; `model-gen-param` the video models' parameter config and
//! the effect templates. Finished tasks carry `video_uris`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::character::IdAnswer;
use protocol::task::view::ListAnswer;
use protocol::video::codes::VideoAction;
use protocol::video::cost::VideoEstimate;
use protocol::video::models::{model_param_config, EFFECT_TEMPLATES, VIDEO_MODELS};
use protocol::video::prepare::video_action_of;
use protocol::video::request::VideoCreateRequest;
use protocol::ErrorCode;
use serde_json::json;

use super::task::requester;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

pub fn routes(api: &mut Api) {
    api.scope("/video", |api| {
        super::editor::routes(api);
        api.post(
            "/text-to-video",
            text_to_video,
            doc("Create a text-to-video task")
                .body::<VideoCreateRequest>()
                .reply::<IdAnswer>(),
        )
        .post(
            "/img-to-video",
            img_to_video,
            doc("Create an image-to-video task")
                .body::<VideoCreateRequest>()
                .reply::<IdAnswer>(),
        )
        .post(
            "/multi-img-to-video",
            multi_img_to_video,
            doc("Create a video task from several pictures")
                .body::<VideoCreateRequest>()
                .reply::<IdAnswer>(),
        )
        .post(
            "/upscale",
            upscale,
            doc("Create a video upscale task")
                .body::<VideoCreateRequest>()
                .reply::<IdAnswer>(),
        )
        .post(
            "/extend",
            extend,
            doc("Create a task that extends a video")
                .body::<VideoCreateRequest>()
                .reply::<IdAnswer>(),
        )
        .post(
            "/frame-interpolation",
            frame_interpolation,
            doc("Create a frame interpolation task")
                .body::<VideoCreateRequest>()
                .reply::<IdAnswer>(),
        )
        .post(
            "/estimate",
            estimate,
            doc("Estimate a video task's cost")
                .body::<VideoCreateRequest>()
                .reply::<VideoEstimate>(),
        )
        .post(
            "/model-gen-param",
            model_gen_param,
            doc("The video models' generation parameters"),
        )
        .get(
            "/model-gen-param",
            model_gen_param,
            doc("The video models' generation parameters"),
        )
        .post(
            "/model-param",
            model_param,
            doc("The video model parameter configuration").body::<ModelRef>(),
        )
        .post(
            "/get-meta-info",
            get_meta_info,
            doc("A video task's parameters, to make it again").body::<MetaInfoRequest>(),
        )
        .post(
            "/histories",
            histories,
            doc("The caller's finished video tasks")
                .body::<protocol::task::view::ListRequest>()
                .reply::<ListAnswer>(),
        )
        .get(
            "/effect-preview",
            effect_preview,
            doc("A still preview of a video effect template (PNG)")
                .raw("image/png")
                .query(&["id"]),
        );
    });
}

/// What an effect preview is painted from, per input slot.
const PREVIEW_SUBJECTS: [&str; 3] = [
    "a portrait in warm light, soft background",
    "a seaside town at golden hour",
    "a forest path in autumn",
];
/// Preview side, pixels.
const PREVIEW_SIDE: u32 = 320;

/// `square/v3/app/list` (spec 3 §7: "the app/list call also supplies video
/// effect templates"): the effect templates as AI-app cards (obj_type 14,
/// spec 1 §3), with a preview picture, their input slots and cost.
pub async fn effect_apps() -> ApiResult {
    let items: Vec<_> = EFFECT_TEMPLATES
        .iter()
        .map(|t| {
            json!({
                "obj_type": 14,
                "id": t.id,
                "template_id": t.id,
                "title": t.name,
                "cover": {"url": format!("/api/v1/task/v2/video/effect-preview?id={}", t.id)},
                "inputs": t.inputs,
                "duration": t.duration,
                "fps": t.fps,
                "credits": t.credits,
                "neural": false,
            })
        })
        .collect();
    Ok(ok(json!({ "items": items, "next_cursor": null })))
}

#[derive(utoipa::ToSchema, Debug, serde::Deserialize)]
struct PreviewQuery {
    id: String,
}

/// `GET video/effect-preview?id=`: a still of the effect template over the
/// reference painting (PNG), made once and kept in the object store.
async fn effect_preview(
    s: web::Data<AppState>,
    q: web::Query<PreviewQuery>,
) -> Result<actix_web::HttpResponse, ApiError> {
    let t = protocol::video::effect_template(&q.id).ok_or(ErrorCode::NotFound)?;
    let key = crate::error::object_key(&format!("fx/{}/preview-{PREVIEW_SIDE}.png", t.id))?;
    let png = match s.objects.get(&key).await.map_err(ApiError::internal)? {
        Some(obj) => obj.bytes,
        None => {
            let (id, n) = (t.id, usize::from(t.inputs).clamp(1, PREVIEW_SUBJECTS.len()));
            let png = web::block(move || {
                engines::reference::video::effect_preview(
                    id,
                    PREVIEW_SUBJECTS.get(..n).unwrap_or(&PREVIEW_SUBJECTS),
                    PREVIEW_SIDE,
                )
            })
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::internal)?;
            s.objects
                .put(&key, png.clone(), "image/png")
                .await
                .map_err(ApiError::internal)?;
            png
        }
    };
    Ok(actix_web::HttpResponse::Ok()
        .content_type("image/png")
        .insert_header(("cache-control", "public, max-age=86400"))
        .body(png))
}

/// `task/v2/camera/config` (spec 2 §3, §7): the camera control modes, their
/// wire names and labels, the offset range, and the models that take one.
pub async fn camera_config() -> ApiResult {
    use protocol::video::constants::CAMERA_OFFSET_RANGE;
    use protocol::video::models::CameraMode;
    Ok(ok(json!({
        "modes": CameraMode::ALL.iter().map(|m| json!({
            "mode": m.wire(),
            "label": m.label(),
        })).collect::<Vec<_>>(),
        "offset": {"min": CAMERA_OFFSET_RANGE.0, "max": CAMERA_OFFSET_RANGE.1, "default": 0},
        "models": VIDEO_MODELS.iter().filter(|m| m.camera_control).map(|m| m.id).collect::<Vec<_>>(),
    })))
}

#[derive(utoipa::ToSchema, Debug, serde::Deserialize)]
#[schema(as = VideoModelRef)]
struct ModelRef {
    #[serde(default)]
    model_no: Option<String>,
}

/// `video/model-param` (the spec's "video model parameter fetch", path
/// ours): one model's parameter config.
async fn model_param(b: web::Json<ModelRef>) -> ApiResult {
    let id = b.model_no.as_deref().unwrap_or_default();
    let m = protocol::video::video_model(id).ok_or_else(|| {
        ApiError::with_msg(ErrorCode::InvalidParams, format!("no video model {id:?}"))
    })?;
    Ok(ok(model_param_config(m)))
}

#[derive(utoipa::ToSchema, Debug, serde::Deserialize)]
struct MetaInfoRequest {
    #[serde(default)]
    task_id: Option<String>,
    /// The spec sends `v2`; the only flow this server has.
    #[serde(default)]
    task_flow_version: Option<String>,
}

/// `video/get-meta-info` (spec 2 §7, path ours; `task_flow_version` v2): an
/// own video task's create payload and the tab it restores into (§4).
async fn get_meta_info(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<MetaInfoRequest>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    if b.task_flow_version.as_deref().is_some_and(|v| v != "v2") {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "only task_flow_version v2 exists",
        ));
    }
    let id = b.task_id.as_deref().unwrap_or_default();
    let row = s.tasks.owned(&who, id).await?;
    let Some(v) = row.job.video.as_ref().filter(|_| row.action.is_video()) else {
        return Err(ErrorCode::NotFound.into());
    };
    let tab = protocol::video::restore_tab(
        Some(v.action.task_domain_type()),
        Some(protocol::video::constants::TASK_TYPE_VIDEO),
        &v.model_no,
        !v.images.is_empty(),
    );
    Ok(ok(json!({
        "task_id": row.id,
        "task_flow_version": "v2",
        "action": v.action.name(),
        "task_domain_type": v.action.task_domain_type(),
        "tab": tab,
        "payload": row.request,
        "video_uris": row.outputs.iter().filter(|o| o.mime.starts_with("video/")).map(|o| crate::tasks::row::file_url(&o.key)).collect::<Vec<_>>(),
    })))
}

/// `video/histories`: the caller's finished video tasks, newest first.
async fn histories(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<protocol::task::view::ListRequest>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    let mut b = b.into_inner();
    b.success_only = Some(true);
    b.video_only = Some(true);
    Ok(ok(s.tasks.list(&who, &b).await?))
}

async fn create(
    req: HttpRequest,
    s: web::Data<AppState>,
    mut body: VideoCreateRequest,
    path: &str,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    s.text_filter.clean(&mut body)?;
    let action = video_action_of(path, &body).ok_or(ErrorCode::InvalidParams)?;
    let id = s.tasks.create_video(&who, &body, action).await?;
    s.awards.on_task(&who).await;
    Ok(ok(IdAnswer { id }))
}

async fn text_to_video(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VideoCreateRequest>,
) -> ApiResult {
    create(req, s, b.into_inner(), "text-to-video").await
}

async fn img_to_video(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VideoCreateRequest>,
) -> ApiResult {
    create(req, s, b.into_inner(), "img-to-video").await
}

async fn multi_img_to_video(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VideoCreateRequest>,
) -> ApiResult {
    create(req, s, b.into_inner(), "multi-img-to-video").await
}

async fn upscale(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VideoCreateRequest>,
) -> ApiResult {
    create(req, s, b.into_inner(), "upscale").await
}

async fn extend(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VideoCreateRequest>,
) -> ApiResult {
    create(req, s, b.into_inner(), "extend").await
}

async fn frame_interpolation(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VideoCreateRequest>,
) -> ApiResult {
    create(req, s, b.into_inner(), "frame-interpolation").await
}

/// The action an estimate is for: a tool by its `action` code (47-49),
/// multi-image by its task domain type (25),
/// image-to-video (effects, Live2D) when images are given, else text.
fn estimate_action(b: &VideoCreateRequest) -> Option<VideoAction> {
    // The tools say which they are by their action code (47, 48, 49).
    if let Some(tool) = b
        .extra
        .get("action")
        .and_then(|a| a.as_i64().or_else(|| a.as_str()?.trim().parse().ok()))
        .and_then(VideoAction::from_code)
        .filter(|a| a.is_tool())
    {
        return Some(tool);
    }
    let path = match b.task_domain_type {
        Some(25) => "multi-img-to-video",
        _ if b
            .template_id
            .as_deref()
            .is_some_and(|t| !t.trim().is_empty()) =>
        {
            "img-to-video"
        }
        _ if !b.meta.generate_video.image_opts.is_empty() => "img-to-video",
        _ => "text-to-video",
    };
    video_action_of(path, b)
}

async fn estimate(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<VideoCreateRequest>,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    let action = estimate_action(&b).ok_or_else(|| {
        ApiError::with_msg(
            ErrorCode::InvalidParams,
            "no video action fits this payload",
        )
    })?;
    Ok(ok(s.tasks.video_estimate(&who, &b, action).await?))
}

async fn model_gen_param() -> ApiResult {
    Ok(ok(json!({
        "items": VIDEO_MODELS.iter().map(model_param_config).collect::<Vec<_>>(),
        "effects": EFFECT_TEMPLATES,
        // Honest about what renders them on this server.
        "engine": engines::reference::video::LABEL,
        "neural": false,
    })))
}
