//! Resource family (spec 2 §7 "Chunked upload", audio upload helper): the
//! pre-signed upload flow (`pre-sign/get`, PUT of each part to its
//! pre-signed URL, `pre-sign/confirm` per part and for the whole file).
//!
//! A pre-signed URL carries a random per-part token: whoever holds it may PUT
//! that one part, like an S3 pre-signed URL; everything else needs the
//! owner's token. Parts are kept as objects until the file is confirmed,
//! then joined into one object whose URL the task calls accept as input.
//! Serving the stored objects is `routes/files.rs`.

use actix_web::{web, HttpRequest, HttpResponse};
use infra::store::{tables, Key, Table};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use crate::accounts::now_millis;
use crate::auth::Authed;
use crate::error::{object_key, ok, ApiError, ApiResult};
use crate::state::AppState;

/// Parts are at most this large (spec 2 §9: 20 MB chunks).
pub const CHUNK_SIZE: u64 = 20 * 1024 * 1024;

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct PreSignRequest {
    pub file_size: u64,
    pub file_name: String,
    #[serde(default)]
    pub content_type: Option<String>,
    #[serde(default)]
    pub category: Option<i64>,
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[schema(as = ResourceConfirmRequest)]
pub struct ConfirmRequest {
    pub file_id: String,
    #[serde(default)]
    pub pre_sign_url: Option<String>,
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct PartQuery {
    pub t: String,
}

fn uploads(state: &AppState) -> Table<UploadRow> {
    Table::new(state.store.clone(), &tables::UPLOADS)
}

fn base_url(req: &HttpRequest) -> String {
    let ci = req.connection_info();
    format!("{}://{}", ci.scheme(), ci.host())
}

fn safe_name(name: &str) -> String {
    let cleaned: String = name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let cleaned = cleaned.trim_start_matches('.').to_owned();
    if cleaned.is_empty() {
        "file".into()
    } else {
        cleaned
    }
}

fn allowed_type(ct: &str) -> bool {
    ["image/png", "image/jpeg", "image/gif", "image/webp"].contains(&ct)
        || ct.starts_with("video/")
        || ct.starts_with("audio/")
        || ct == "application/octet-stream"
}

/// The type an upload is stored and served as: a video (category 8) or
/// audio (59) upload sent as `application/octet-stream` (the spec's audio
/// helper does) takes its type from the file name, so that it plays in a
/// browser and a video is checked by ffprobe like any other.
/// An audio upload (59) is always stored as audio (it is decoded at
/// confirmation, whatever it was declared as).
fn media_type(category: Option<i64>, file_name: &str, ct: &str) -> String {
    let audio_declared_otherwise = category == Some(CATEGORY_AUDIO) && !ct.starts_with("audio/");
    if ct != "application/octet-stream" && !audio_declared_otherwise {
        return ct.to_owned();
    }
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match (category, ext.as_str()) {
        (Some(CATEGORY_VIDEO), "webm") => "video/webm",
        (Some(CATEGORY_VIDEO), "mov") => "video/quicktime",
        (Some(CATEGORY_VIDEO), "mkv") => "video/x-matroska",
        (Some(CATEGORY_VIDEO), _) => "video/mp4",
        (Some(CATEGORY_AUDIO), "mp3") => "audio/mpeg",
        (Some(CATEGORY_AUDIO), "wav") => "audio/wav",
        (Some(CATEGORY_AUDIO), "ogg" | "opus") => "audio/ogg",
        (Some(CATEGORY_AUDIO), "m4a" | "mp4") => "audio/mp4",
        (Some(CATEGORY_AUDIO), _) => "audio/aac",
        _ => ct,
    }
    .to_owned()
}

pub async fn pre_sign_get(
    req: HttpRequest,
    state: web::Data<AppState>,
    Authed(caller): Authed,
    body: web::Json<PreSignRequest>,
) -> ApiResult {
    let wanted_type = body
        .content_type
        .as_deref()
        .unwrap_or("application/octet-stream")
        .to_lowercase();
    // Images are read whole (to check them); video, audio and other files
    // are joined and served by ranges, so they may be far larger.
    if body.category == Some(CATEGORY_AUDIO) {
        protocol::audio::transport::check_upload_size(body.file_size)
            .map_err(|(code, msg)| ApiError::with_msg(code, msg))?;
    }
    let model_file = body.category == Some(MODEL_FILE_CATEGORY);
    if model_file && wanted_type != "application/octet-stream" {
        return Err(ApiError::with_msg(
            ErrorCode::ModelFileInvalid,
            "model files are uploaded as application/octet-stream",
        ));
    }
    let max = if model_file {
        state.settings.generation.max_model_upload_bytes
    } else if wanted_type.starts_with("image/") {
        state.settings.generation.max_upload_bytes
    } else {
        state.settings.generation.max_media_upload_bytes
    };
    if body.file_size == 0 {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "file_size must be positive",
        ));
    }
    if body.file_size > max {
        return Err(ApiError::with_msg(
            if model_file {
                ErrorCode::ModelFileTooLarge
            } else {
                ErrorCode::PayloadTooLarge
            },
            format!("files may be at most {max} bytes"),
        ));
    }
    let content_type = media_type(
        body.category,
        &body.file_name,
        &body
            .content_type
            .clone()
            .unwrap_or_else(|| "application/octet-stream".into())
            .to_lowercase(),
    );
    if !allowed_type(&content_type) {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "only images, video and audio may be uploaded",
        ));
    }
    let parts = body.file_size.div_ceil(CHUNK_SIZE) as usize;
    let file_id = uuid::Uuid::now_v7().simple().to_string();
    let row = UploadRow {
        file_id: file_id.clone(),
        owner: caller.account.id.clone(),
        file_name: safe_name(&body.file_name),
        content_type,
        size: body.file_size,
        category: body.category.unwrap_or(0),
        chunk_size: CHUNK_SIZE,
        part_tokens: (0..parts)
            .map(|_| hex::encode(rand::random::<[u8; 16]>()))
            .collect(),
        parts_done: vec![false; parts],
        key: None,
        created_at: now_millis(),
        nsfw: None,
    };
    uploads(&state)
        .put(&Key::of(&file_id), &Key::empty(), &row)
        .await?;
    state.upload_sweeper.opened(&row).await?;
    let base = base_url(&req);
    let pre_signs: Vec<String> = row
        .part_tokens
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{base}/api/v1/resource/upload/{file_id}/{i}?t={t}"))
        .collect();
    Ok(ok(
        json!({ "file_id": file_id, "pre_signs": pre_signs, "chunk_size": CHUNK_SIZE }),
    ))
}

use crate::uploads::{part_key, poster_key, UploadRow, CATEGORY_AUDIO, CATEGORY_VIDEO};
use protocol::models::rules::MODEL_FILE_CATEGORY;

/// PUT of one part to its pre-signed URL.
pub async fn put_part(
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
    query: web::Query<PartQuery>,
    body: web::Bytes,
) -> ApiResult {
    let (file_id, part) = path.into_inner();
    let table = uploads(&state);
    let row = table
        .get(&Key::of(&file_id), &Key::empty())
        .await?
        .ok_or(ErrorCode::NotFound)?;
    let token_ok = row
        .part_tokens
        .get(part)
        .is_some_and(|t| constant_eq(t.as_bytes(), query.t.as_bytes()));
    if !token_ok {
        return Err(ErrorCode::NoPermission.into());
    }
    if row.key.is_some() {
        return Err(ApiError::with_msg(
            ErrorCode::Conflict,
            "the upload is already confirmed",
        ));
    }
    let expected = if part + 1 == row.parts_done.len() {
        row.size - row.chunk_size * part as u64
    } else {
        row.chunk_size
    };
    if body.len() as u64 != expected {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            format!("part {part} must be {expected} bytes, got {}", body.len()),
        ));
    }
    state
        .objects
        .put(
            &object_key(&part_key(&file_id, part))?,
            body.to_vec(),
            "application/octet-stream",
        )
        .await
        .map_err(ApiError::internal)?;
    table
        .update(&Key::of(&file_id), &Key::empty(), Some(row), |r| {
            if let Some(d) = r.parts_done.get_mut(part) {
                *d = true;
            }
        })
        .await?;
    Ok(HttpResponse::Ok().finish())
}

fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// With `pre_sign_url`: confirms one part and answers the file's URL. Without:
/// joins the parts into the file and answers `status: 0` (spec 2 §7).
pub async fn confirm(
    req: HttpRequest,
    state: web::Data<AppState>,
    Authed(caller): Authed,
    body: web::Json<ConfirmRequest>,
) -> ApiResult {
    let table = uploads(&state);
    let row = table
        .get(&Key::of(&body.file_id), &Key::empty())
        .await?
        .filter(|r| r.owner == caller.account.id)
        .ok_or(ErrorCode::NotFound)?;
    let model_file = row.category == MODEL_FILE_CATEGORY;
    let final_key = if model_file {
        crate::models::upload::model_key(&row.file_id, &row.file_name)
    } else {
        format!("u/{}/{}", row.file_id, row.file_name)
    };
    // A model file is private: it has no URL (`model/download` serves it).
    let url = (!model_file).then(|| format!("{}/files/{final_key}", base_url(&req)));
    if let Some(psu) = &body.pre_sign_url {
        let part = row
            .part_tokens
            .iter()
            .position(|t| psu.contains(&format!("t={t}")))
            .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "unknown pre_sign_url"))?;
        if !row.parts_done.get(part).copied().unwrap_or(false) && row.key.is_none() {
            return Err(ApiError::with_msg(
                ErrorCode::Conflict,
                "that part was not uploaded",
            ));
        }
        return Ok(ok(json!({ "url": url })));
    }
    if row.key.is_some() && model_file {
        let files = crate::models::ModelService::new(state.store.clone()).files;
        return Ok(ok(
            match files.get(&Key::of(&row.file_id), &Key::empty()).await? {
                Some(f) => crate::models::upload::answer(&f),
                // Already made into a model version.
                None => json!({ "status": 0, "file_id": row.file_id, "url": null }),
            },
        ));
    }
    if row.key.is_some() {
        let poster_url = poster_url(&state, &req, &row.file_id).await;
        // An image's NSFW score once the background queue has scored it.
        return Ok(ok(
            json!({ "status": 0, "url": url, "poster_url": poster_url, "nsfw": row.nsfw }),
        ));
    }
    if row.parts_done.iter().any(|d| !d) {
        return Err(ApiError::with_msg(
            ErrorCode::Conflict,
            "not every part was uploaded",
        ));
    }
    let parts: Vec<infra::objects::ObjectKey> = (0..row.parts_done.len())
        .map(|i| object_key(&part_key(&row.file_id, i)))
        .collect::<Result<_, _>>()?;
    let mut model_answer = None;
    if model_file {
        let file = crate::models::upload::confirm(&state, &row, &parts).await?;
        model_answer = Some(crate::models::upload::answer(&file));
    } else if row.content_type.starts_with("image/") {
        // Images are at most the image limit: read whole and checked.
        let mut bytes = Vec::with_capacity(row.size as usize);
        for p in &parts {
            let part = state
                .objects
                .get(p)
                .await
                .map_err(ApiError::internal)?
                .ok_or_else(|| ApiError::internal("an uploaded part is missing"))?;
            bytes.extend_from_slice(&part.bytes);
        }
        match crate::tasks::image_size(&bytes) {
            Some((w, h)) if w <= 8192 && h <= 8192 => {}
            Some(_) => {
                return Err(ApiError::with_msg(
                    ErrorCode::UploadError,
                    "images may be at most 8192 px a side",
                ))
            }
            None => {
                return Err(ApiError::with_msg(
                    ErrorCode::UploadError,
                    "the file is not a readable image",
                ))
            }
        }
        state
            .objects
            .put(&object_key(&final_key)?, bytes, &row.content_type)
            .await
            .map_err(ApiError::internal)?;
    } else {
        // Joined by the object store, one part at a time: a 1 GB video
        // never sits in memory.
        let n = state
            .objects
            .concat(&parts, &object_key(&final_key)?, &row.content_type)
            .await
            .map_err(ApiError::internal)?;
        if n != row.size {
            return Err(ApiError::with_msg(
                ErrorCode::UploadError,
                format!("the parts hold {n} bytes, not the {} announced", row.size),
            ));
        }
        if row.category == CATEGORY_AUDIO || row.content_type.starts_with("audio/") {
            // Audio is what decodes as audio, within 10 minutes (spec 2 §8).
            let key = object_key(&final_key)?;
            if let Err((code, why)) =
                crate::media::check_stored_audio(&state.objects, &key, n).await
            {
                let _ = state.objects.delete(&key).await;
                return Err(ApiError::with_msg(code, why));
            }
        } else if row.content_type.starts_with("video/") {
            // What it claims: a video ffprobe can read (spec 2 §8).
            let key = object_key(&final_key)?;
            match probe_video(&state, &key, n).await {
                Err(why) => {
                    let _ = state.objects.delete(&key).await;
                    return Err(ApiError::with_msg(ErrorCode::UploadVideoError, why));
                }
                // A poster for every video (spec 2 §4): the middle frame.
                Ok(Some(png)) => {
                    state
                        .objects
                        .put(&object_key(&poster_key(&row.file_id))?, png, "image/png")
                        .await
                        .map_err(ApiError::internal)?;
                }
                Ok(None) => {}
            }
        }
    }
    for i in 0..row.parts_done.len() {
        if let Ok(k) = object_key(&part_key(&row.file_id, i)) {
            let _ = state.objects.delete(&k).await;
        }
    }
    let key = final_key.clone();
    let closed = row.clone();
    table
        .update(&Key::of(&row.file_id), &Key::empty(), Some(row), move |r| {
            r.key = Some(key.clone())
        })
        .await?;
    state.upload_sweeper.closed(&closed).await?;
    if closed.content_type.starts_with("image/") && !model_file {
        // Scored in the background: the answer never waits on the model.
        state.nsfw_uploads.enqueue(&closed.file_id, &final_key);
    }
    if let Some(answer) = model_answer {
        return Ok(ok(answer));
    }
    let poster_url = poster_url(&state, &req, &closed.file_id).await;
    Ok(ok(
        json!({ "status": 0, "url": url, "poster_url": poster_url }),
    ))
}

/// Checks that a stored upload is a video ffprobe can read; answers its
/// poster (the middle frame, PNG).
async fn probe_video(
    state: &AppState,
    key: &infra::objects::ObjectKey,
    size: u64,
) -> Result<Option<Vec<u8>>, String> {
    let (info, poster) = crate::media::inspect_stored(&state.objects, key, size, true).await?;
    match info.video {
        Some(v) if v.width > 0 && v.height > 0 => Ok(poster),
        _ => Err("the file has no video picture".into()),
    }
}

/// The URL of an uploaded video's poster, when it has one.
async fn poster_url(state: &AppState, req: &HttpRequest, file_id: &str) -> Option<String> {
    let key = object_key(&poster_key(file_id)).ok()?;
    state.objects.head(&key).await.ok().flatten()?;
    Some(format!("{}/files/{}", base_url(req), poster_key(file_id)))
}

/// `getPreSignAddr`: an unfinished upload's part URLs and which parts are
/// done, so a client whose connection was cut resumes from there.
pub async fn pre_sign_addr(
    req: HttpRequest,
    state: web::Data<AppState>,
    Authed(caller): Authed,
    body: web::Json<ConfirmRequest>,
) -> ApiResult {
    let row = uploads(&state)
        .get(&Key::of(&body.file_id), &Key::empty())
        .await?
        .filter(|r| r.owner == caller.account.id)
        .ok_or(ErrorCode::NotFound)?;
    let base = base_url(&req);
    let pre_signs: Vec<String> = row
        .part_tokens
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{base}/api/v1/resource/upload/{}/{i}?t={t}", row.file_id))
        .collect();
    Ok(ok(json!({
        "file_id": row.file_id,
        "pre_signs": pre_signs,
        "chunk_size": row.chunk_size,
        "parts_done": row.parts_done,
        "confirmed": row.key.is_some(),
        "nsfw": row.nsfw,
    })))
}
