//! Resource family (spec 2 §7 "Chunked upload", audio upload helper): the
//! pre-signed upload flow (`pre-sign/get`, PUT of each part to its
//! pre-signed URL, `pre-sign/confirm` per part and for the whole file), and
//! serving stored objects under `/files/`.
//!
//! A pre-signed URL carries a random per-part token: whoever holds it may PUT
//! that one part, like an S3 pre-signed URL; everything else needs the
//! owner's token. Parts are kept as objects until the file is confirmed,
//! then joined into one object whose URL the task calls accept as input.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use infra::store::{tables, Key, Table};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::accounts::now_millis;
use crate::auth::Authed;
use crate::error::{object_key, ok, ApiError, ApiResult};
use crate::state::AppState;

/// Parts are at most this large (spec 2 §9: 20 MB chunks).
pub const CHUNK_SIZE: u64 = 20 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadRow {
    pub file_id: String,
    pub owner: String,
    pub file_name: String,
    pub content_type: String,
    pub size: u64,
    pub category: i64,
    pub chunk_size: u64,
    /// One random token per part: the capability in its pre-signed URL.
    pub part_tokens: Vec<String>,
    pub parts_done: Vec<bool>,
    /// Key of the joined file once confirmed.
    pub key: Option<String>,
    pub created_at: i64,
}

#[derive(Debug, Deserialize)]
pub struct PreSignRequest {
    pub file_size: u64,
    pub file_name: String,
    #[serde(default)]
    pub content_type: Option<String>,
    #[serde(default)]
    pub category: Option<i64>,
}

#[derive(Debug, Deserialize)]
pub struct ConfirmRequest {
    pub file_id: String,
    #[serde(default)]
    pub pre_sign_url: Option<String>,
}

#[derive(Debug, Deserialize)]
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

pub async fn pre_sign_get(
    req: HttpRequest,
    state: web::Data<AppState>,
    Authed(caller): Authed,
    body: web::Json<PreSignRequest>,
) -> ApiResult {
    let max = state.settings.generation.max_upload_bytes;
    if body.file_size == 0 {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "file_size must be positive",
        ));
    }
    if body.file_size > max {
        return Err(ApiError::with_msg(
            ErrorCode::PayloadTooLarge,
            format!("files may be at most {max} bytes"),
        ));
    }
    let content_type = body
        .content_type
        .clone()
        .unwrap_or_else(|| "application/octet-stream".into())
        .to_lowercase();
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
    };
    uploads(&state)
        .put(&Key::of(&file_id), &Key::empty(), &row)
        .await?;
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

fn part_key(file_id: &str, part: usize) -> String {
    format!("up/{file_id}/part-{part}")
}

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
    let final_key = format!("u/{}/{}", row.file_id, row.file_name);
    let url = format!("{}/files/{final_key}", base_url(&req));
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
    if row.key.is_some() {
        return Ok(ok(json!({ "status": 0, "url": url })));
    }
    if row.parts_done.iter().any(|d| !d) {
        return Err(ApiError::with_msg(
            ErrorCode::Conflict,
            "not every part was uploaded",
        ));
    }
    let mut bytes = Vec::with_capacity(row.size as usize);
    for i in 0..row.parts_done.len() {
        let part = state
            .objects
            .get(&object_key(&part_key(&row.file_id, i))?)
            .await
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::internal("an uploaded part is missing"))?;
        bytes.extend_from_slice(&part.bytes);
    }
    if row.content_type.starts_with("image/") {
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
    }
    state
        .objects
        .put(&object_key(&final_key)?, bytes, &row.content_type)
        .await
        .map_err(ApiError::internal)?;
    for i in 0..row.parts_done.len() {
        if let Ok(k) = object_key(&part_key(&row.file_id, i)) {
            let _ = state.objects.delete(&k).await;
        }
    }
    let key = final_key.clone();
    table
        .update(&Key::of(&row.file_id), &Key::empty(), Some(row), move |r| {
            r.key = Some(key.clone())
        })
        .await?;
    Ok(ok(json!({ "status": 0, "url": url })))
}

/// A stored object. Keys are unguessable and never reused, so they are cached for a year.
pub async fn file(state: web::Data<AppState>, path: web::Path<String>) -> ApiResult {
    let key =
        infra::objects::ObjectKey::parse(&path.into_inner()).map_err(|_| ErrorCode::NotFound)?;
    if key.as_str().starts_with("up/") {
        return Err(ErrorCode::NotFound.into());
    }
    let obj = state
        .objects
        .get(&key)
        .await
        .map_err(ApiError::internal)?
        .ok_or(ErrorCode::NotFound)?;
    Ok(HttpResponse::Ok()
        .content_type(obj.content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .body(obj.bytes))
}
