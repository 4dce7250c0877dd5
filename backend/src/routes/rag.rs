//! Documents to datacards (spec 3 §7 "Other"): `langflow/parse-rag-file`
//! (a `multipart/form-data` form with the document in its `file` field, the
//! raw document as the body, or a JSON `{file_id}` naming a confirmed
//! upload of the caller), `langflow/progress` and
//! `langflow/character-datacards`. The work is in `crate::rag`.

use super::api::{doc, Api};
use actix_web::http::header;
use actix_web::{web, HttpRequest};
use futures_util::StreamExt;
use infra::store::{tables, Key, Table};
use protocol::character::Items;
use protocol::rag::{ParseRagAnswer, ParseRagQuery, ParseRagUpload, RagIdRequest};
use protocol::ErrorCode;

use crate::auth::Authed;
use crate::error::{object_key, ok, ApiError, ApiResult};
use crate::state::AppState;
use crate::uploads::UploadRow;

type State = web::Data<AppState>;

pub fn routes(api: &mut Api) {
    api.post(
        "/langflow/parse-rag-file",
        parse_rag_file,
        doc("Parse an uploaded file into a character's data cards")
            .query(&["character_id", "file_name"]),
    )
    .post(
        "/langflow/progress",
        progress,
        doc("A file parsing job's progress").body::<RagIdRequest>(),
    )
    .get(
        "/langflow/progress",
        progress_get,
        doc("A file parsing job's progress").query(&["id"]),
    )
    .post(
        "/langflow/character-datacards",
        character_datacards,
        doc("A character's data cards from files").body::<RagIdRequest>(),
    );
}

fn too_large(limit: usize) -> ApiError {
    ApiError::with_msg(
        ErrorCode::RagFileTooLarge,
        format!("the document is too large (at most {limit} bytes)"),
    )
}

/// The body, refused as soon as it passes `limit` (a declared length over
/// it is refused before reading).
async fn read_body(
    req: &HttpRequest,
    mut payload: web::Payload,
    limit: usize,
) -> Result<Vec<u8>, ApiError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large(limit));
    }
    let mut body = Vec::with_capacity(declared.unwrap_or(0).min(limit));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::with_msg(ErrorCode::InvalidParams, format!("reading the body: {e}"))
        })?;
        if body.len().saturating_add(chunk.len()) > limit {
            return Err(too_large(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn content_type(req: &HttpRequest) -> String {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// `POST /api/v1/langflow/parse-rag-file[?character_id=..&file_name=..]`:
/// the document (text, Markdown, HTML or PDF; at most 10 MB) as a
/// `multipart/form-data` form (see [`read_form`]), as the body, or
/// `application/json` `{file_id, character_id?}` for an upload. Answers
/// `{id}`, the job to poll with `langflow/progress`.
pub async fn parse_rag_file(
    req: HttpRequest,
    a: Authed,
    s: State,
    q: web::Query<ParseRagQuery>,
    payload: web::Payload,
) -> ApiResult {
    let owner = a.0.account.id.clone();
    let limit = s.rag.settings().max_bytes;
    let ctype = content_type(&req);
    let (bytes, file_name, character_id) = if ctype == "multipart/form-data" {
        let form = read_form(&req, payload, limit).await?;
        (
            form.bytes,
            form.file_name,
            form.character_id.or_else(|| q.character_id.clone()),
        )
    } else if ctype == "application/json" {
        let body = read_body(&req, payload, 64 * 1024).await?;
        let b: ParseRagUpload = serde_json::from_slice(&body)
            .map_err(|e| ApiError::with_msg(ErrorCode::InvalidParams, e.to_string()))?;
        let (bytes, name) = upload_bytes(&s, &owner, &b.file_id, limit).await?;
        (
            bytes,
            name,
            b.character_id.or_else(|| q.character_id.clone()),
        )
    } else {
        let bytes = read_body(&req, payload, limit).await?;
        let name = q.file_name.clone().unwrap_or_default();
        (bytes, name, q.character_id.clone())
    };
    let id = s
        .rag
        .submit(&owner, bytes, &file_name, character_id.as_deref())
        .await?;
    Ok(ok(ParseRagAnswer { id }))
}

/// A document sent as a form.
struct Form {
    bytes: Vec<u8>,
    file_name: String,
    character_id: Option<String>,
}

/// Declared part types a document may have (browsers send
/// `application/octet-stream` or nothing for `.md`); the bytes are sniffed
/// afterwards whatever the part says.
const FORM_TYPES: &[&str] = &[
    "text/plain",
    "text/markdown",
    "text/x-markdown",
    "text/html",
    "application/xhtml+xml",
    "application/pdf",
    "application/octet-stream",
];

/// File name endings a document may have (or none).
const FORM_EXTENSIONS: &[&str] = &[
    "txt", "text", "md", "markdown", "mdown", "mkd", "html", "htm", "xhtml", "pdf",
];

fn form_invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::RagFormInvalid, msg.into())
}

/// Most bytes of a form's other fields (`character_id`).
const FORM_FIELD_BYTES: usize = 256;
/// Room for the form's boundaries and part headers besides the document.
const FORM_OVERHEAD: usize = 64 * 1024;

/// Reads a `multipart/form-data` body (RFC 7578): exactly one field `file`
/// (the document: at most `limit` bytes, `ragFileTooLarge`; a declared type
/// or file name ending that is not a document's, `ragFileType`) and an
/// optional `character_id`. Anything else, a second file or an unreadable
/// form answers `ragFormInvalid`. Reading stops as soon as a limit is passed.
async fn read_form(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
) -> Result<Form, ApiError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit.saturating_add(FORM_OVERHEAD)) {
        return Err(too_large(limit));
    }
    let mut form = actix_multipart::Multipart::new(req.headers(), payload);
    let mut file: Option<(Vec<u8>, String)> = None;
    let mut character_id = None;
    while let Some(field) = form.next().await {
        let mut field = field.map_err(|e| form_invalid(format!("unreadable form: {e}")))?;
        let name = field.name().unwrap_or_default().to_owned();
        match name.as_str() {
            "file" => {
                if file.is_some() {
                    return Err(form_invalid(
                        "one document per call: the form has two file fields",
                    ));
                }
                let file_name = field
                    .content_disposition()
                    .and_then(|cd| cd.get_filename())
                    .unwrap_or_default()
                    .to_owned();
                check_form_type(field.content_type().map(|m| m.essence_str()), &file_name)?;
                let mut bytes = Vec::new();
                while let Some(chunk) = field.next().await {
                    let chunk = chunk.map_err(|e| form_invalid(format!("unreadable form: {e}")))?;
                    if bytes.len().saturating_add(chunk.len()) > limit {
                        return Err(too_large(limit));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                file = Some((bytes, file_name));
            }
            "character_id" => {
                let mut text = Vec::new();
                while let Some(chunk) = field.next().await {
                    let chunk = chunk.map_err(|e| form_invalid(format!("unreadable form: {e}")))?;
                    if text.len().saturating_add(chunk.len()) > FORM_FIELD_BYTES {
                        return Err(form_invalid("character_id is too long"));
                    }
                    text.extend_from_slice(&chunk);
                }
                let text = String::from_utf8(text)
                    .map_err(|_| form_invalid("character_id is not UTF-8 text"))?;
                character_id = Some(text.trim().to_owned()).filter(|c| !c.is_empty());
            }
            other => {
                return Err(form_invalid(format!(
                    "unknown form field {other:?}: send file (and character_id)"
                )))
            }
        }
    }
    let (bytes, file_name) =
        file.ok_or_else(|| form_invalid("the form has no field named file"))?;
    Ok(Form {
        bytes,
        file_name,
        character_id,
    })
}

/// The `file` part's declared type and name ending must be a document's.
fn check_form_type(declared: Option<&str>, file_name: &str) -> Result<(), ApiError> {
    if let Some(t) = declared {
        let t = t.to_ascii_lowercase();
        if !FORM_TYPES.contains(&t.as_str()) {
            return Err(ApiError::with_msg(
                ErrorCode::RagFileType,
                format!("the file is {t}: send a text, Markdown, HTML or PDF document"),
            ));
        }
    }
    let ext = std::path::Path::new(file_name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if let Some(ext) = ext {
        if !FORM_EXTENSIONS.contains(&ext.as_str()) {
            return Err(ApiError::with_msg(
                ErrorCode::RagFileType,
                format!("a .{ext} file is not a text, Markdown, HTML or PDF document"),
            ));
        }
    }
    Ok(())
}

/// The bytes and name of the caller's confirmed upload; another account's
/// or an unconfirmed one answers like a missing one.
async fn upload_bytes(
    s: &AppState,
    owner: &str,
    file_id: &str,
    limit: usize,
) -> Result<(Vec<u8>, String), ApiError> {
    let file_id = file_id.trim();
    if file_id.is_empty() || file_id.len() > 64 {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "file_id is required",
        ));
    }
    let uploads: Table<UploadRow> = Table::new(s.store.clone(), &tables::UPLOADS);
    let row = uploads
        .get(&Key::of(file_id), &Key::empty())
        .await?
        .filter(|u| u.owner == owner)
        .ok_or(ErrorCode::NotFound)?;
    let key = row.key.clone().ok_or(ErrorCode::NotFound)?;
    if usize::try_from(row.size).unwrap_or(usize::MAX) > limit {
        return Err(too_large(limit));
    }
    let stored = s
        .objects
        .get(&object_key(&key)?)
        .await
        .map_err(ApiError::internal)?
        .ok_or(ErrorCode::NotFound)?;
    if stored.bytes.len() > limit {
        return Err(too_large(limit));
    }
    Ok((stored.bytes, row.file_name))
}

/// `POST /api/v1/langflow/progress` `{id}`: the caller's job.
pub async fn progress(a: Authed, s: State, b: web::Json<RagIdRequest>) -> ApiResult {
    Ok(ok(s.rag.progress(&a.0.account.id, &b.id).await?))
}

/// `GET /api/v1/langflow/progress?id=..`.
pub async fn progress_get(a: Authed, s: State, q: web::Query<RagIdRequest>) -> ApiResult {
    Ok(ok(s.rag.progress(&a.0.account.id, &q.id).await?))
}

/// `POST /api/v1/langflow/character-datacards` `{character_id}`: the
/// datacards documents made for the caller's character.
pub async fn character_datacards(a: Authed, s: State, b: web::Json<RagIdRequest>) -> ApiResult {
    Ok(ok(Items {
        items: s
            .rag
            .character_cards(&a.0.account.id, &b.character_id)
            .await?,
    }))
}
