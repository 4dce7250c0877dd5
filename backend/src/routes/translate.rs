//! Translation and the prompt dictionary (spec 3 §3, §4, §7, §9; spec 1 §5,
//! §7): `/translate/locals` (many texts), `/translate/local` (one text),
//! `/translate/18n` (UI labels), `/prompt/definitions` (the dictionary in a
//! language, by category and page) and `/prompt/prompt_{lang}.json` (the
//! whole per-language map the spec's client loads).
//!
//! Visitors may translate too: calls are limited per client address, and per
//! account for logged-in callers. The cache is per session: the login
//! session (its token hash), else the visitor's `deviceId`, else the address.

use std::collections::BTreeMap;

use actix_web::{web, HttpRequest};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::auth::{client_ip, device_id_of};
use crate::error::{ok, ApiError, ApiResult};
use crate::prompts::{self, Entry, Lang, TextIn, TextKind, TextOut, MAX_TEXTS, MAX_TEXT_CHARS};
use crate::state::AppState;

/// Page size of `/prompt/definitions` when none is asked, and the most allowed.
const DEFAULT_PAGE: usize = 200;
const MAX_PAGE: usize = 1000;

/// The session the cache is keyed by, after the rate limit.
async fn session(req: &HttpRequest, state: &AppState) -> Result<String, ApiError> {
    let address = client_ip(req);
    let (session, allowed) = match crate::auth::optional_caller(req, state).await? {
        Some(caller) => {
            let allowed = state
                .prompts
                .allow(prompts::Caller::Account {
                    id: &caller.account.id,
                })
                .await;
            (format!("token:{}", caller.token_hash), allowed)
        }
        None => {
            let allowed = state
                .prompts
                .allow(prompts::Caller::Visitor { address: &address })
                .await;
            let s = match device_id_of(req) {
                Some(d) => format!("device:{d}"),
                None => format!("address:{address}"),
            };
            (s, allowed)
        }
    };
    if !allowed {
        return Err(ErrorCode::TooManyRequests.into());
    }
    Ok(session)
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

fn check_text(i: usize, text: &str) -> Result<(), ApiError> {
    let n = text.chars().count();
    if n > MAX_TEXT_CHARS {
        return Err(invalid(format!(
            "text {i} has {n} characters; at most {MAX_TEXT_CHARS} are allowed"
        )));
    }
    Ok(())
}

/// A text as sent: a bare string, or an object with its list type.
#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(untagged)]
pub enum TextItem {
    Plain(String),
    Typed {
        text: String,
        #[serde(default, alias = "subType", alias = "sub_type")]
        r#type: Option<TextKind>,
    },
}

/// `POST /translate/locals`: `{texts: [string | {text, type}], language,
/// type?}` (`list` is accepted for `texts`). `type` is the editor list type
/// (`normal` default, `style`, `quality`, `command`, `eg`) or `comment`.
#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct LocalsRequest {
    #[serde(alias = "list", default)]
    pub texts: Vec<TextItem>,
    #[serde(default, alias = "lang")]
    pub language: Option<String>,
    #[serde(default, alias = "subType", alias = "sub_type")]
    pub r#type: Option<TextKind>,
}

/// `POST /translate/local`: `{text, language, type?}`.
#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct LocalRequest {
    pub text: String,
    #[serde(default, alias = "lang")]
    pub language: Option<String>,
    #[serde(default, alias = "subType", alias = "sub_type")]
    pub r#type: Option<TextKind>,
}

/// One translated text on the wire.
#[derive(Debug, Serialize)]
pub struct TextView {
    pub text: String,
    /// `to_english`, `to_local` or `keep` (spec 1 §5's thresholds).
    pub plan: prompts::Plan,
    pub source: Lang,
    pub target: Lang,
    pub translation: Option<String>,
    /// Parts left untranslated because the translator did not know them.
    pub unknown: Vec<String>,
    pub provider: Option<&'static str>,
    /// Served from this session's cache (translated earlier in the session).
    pub cached: bool,
    pub chinese_share: Option<f64>,
}

impl From<TextOut> for TextView {
    fn from(o: TextOut) -> Self {
        TextView {
            text: o.text,
            plan: o.plan,
            source: o.source,
            target: o.target,
            translation: o.translation,
            unknown: o.unknown,
            provider: o.provider,
            cached: o.cached,
            chinese_share: o.chinese_share,
        }
    }
}

/// The user's language: the body's, else `Accept-Language`, else English.
fn language_of(req: &HttpRequest, asked: Option<&str>) -> Lang {
    match asked.map(str::trim).filter(|l| !l.is_empty()) {
        Some(l) => Lang::normalise(l),
        None => req
            .headers()
            .get("accept-language")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split([',', ';']).next())
            .map_or(Lang::En, Lang::normalise),
    }
}

pub async fn locals(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<LocalsRequest>,
) -> ApiResult {
    let body = body.into_inner();
    if body.texts.len() > MAX_TEXTS {
        return Err(invalid(format!(
            "{} texts; at most {MAX_TEXTS} per call",
            body.texts.len()
        )));
    }
    let default_kind = body.r#type.unwrap_or_default();
    let texts: Vec<TextIn> = body
        .texts
        .into_iter()
        .map(|t| match t {
            TextItem::Plain(text) => TextIn {
                text,
                kind: default_kind,
            },
            TextItem::Typed { text, r#type } => TextIn {
                text,
                kind: r#type.unwrap_or(default_kind),
            },
        })
        .collect();
    for (i, t) in texts.iter().enumerate() {
        check_text(i, &t.text)?;
    }
    let language = language_of(&req, body.language.as_deref());
    let session = session(&req, &state).await?;
    let items: Vec<TextView> = state
        .prompts
        .translate_all(&session, &texts, language)
        .await
        .into_iter()
        .map(TextView::from)
        .collect();
    Ok(ok(serde_json::json!({
        "language": language,
        "provider": state.prompts.provider(),
        "items": items,
    })))
}

pub async fn local(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<LocalRequest>,
) -> ApiResult {
    let body = body.into_inner();
    check_text(0, &body.text)?;
    let language = language_of(&req, body.language.as_deref());
    let session = session(&req, &state).await?;
    let text = TextIn {
        text: body.text,
        kind: body.r#type.unwrap_or_default(),
    };
    let mut out = state
        .prompts
        .translate_all(&session, std::slice::from_ref(&text), language)
        .await;
    let item = out
        .pop()
        .ok_or_else(|| ApiError::internal("no translation result"))?;
    Ok(ok(TextView::from(item)))
}

/// `list` of `/translate/18n`: `{content: [key]}` as the spec names it, or
/// the keys as a bare array.
#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[serde(untagged)]
pub enum LabelList {
    Content { content: Vec<String> },
    Keys(Vec<String>),
}

/// `POST /translate/18n`: `{list: {content: [key]}, language}`.
#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct LabelsRequest {
    pub list: LabelList,
    #[serde(default, alias = "lang")]
    pub language: Option<String>,
}

/// Answers `{language, content: [text], missing: [key]}`: `content` is
/// parallel to the keys, each the dictionary's text for the key in the
/// language, or the key itself when the dictionary lacks it (then it is
/// also listed in `missing`).
pub async fn labels(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<LabelsRequest>,
) -> ApiResult {
    let body = body.into_inner();
    let keys = match body.list {
        LabelList::Content { content } => content,
        LabelList::Keys(k) => k,
    };
    if keys.len() > MAX_TEXTS {
        return Err(invalid(format!(
            "{} keys; at most {MAX_TEXTS} per call",
            keys.len()
        )));
    }
    for (i, k) in keys.iter().enumerate() {
        check_text(i, k)?;
    }
    let language = language_of(&req, body.language.as_deref());
    session(&req, &state).await?;
    let found = state.prompts.labels(&keys, language);
    let missing: Vec<&String> = keys
        .iter()
        .zip(&found)
        .filter(|(_, (_, hit))| !hit)
        .map(|(k, _)| k)
        .collect();
    let content: Vec<&String> = found.iter().map(|(t, _)| t).collect();
    Ok(ok(serde_json::json!({
        "language": language,
        "content": content,
        "missing": missing,
    })))
}

/// A dictionary word as spec 3 §3 names its fields ("Prompt dictionary
/// word": text, lang, subType, desc, dir, isAlias), plus the English `term`
/// (the map key) and whether `lang` is a real translation.
#[derive(Debug, Serialize)]
pub struct Definition<'a> {
    pub term: &'a str,
    /// The English text a prompt uses.
    pub text: &'a str,
    /// The text in the requested language (the English text when untranslated).
    pub lang: &'a str,
    #[serde(rename = "subType")]
    pub sub_type: &'static str,
    pub desc: &'a str,
    /// The category.
    pub dir: &'a str,
    #[serde(rename = "isAlias")]
    pub is_alias: bool,
    pub translated: bool,
}

fn definition(e: &Entry, lang: Lang) -> Definition<'_> {
    let local = e.text_in(lang);
    Definition {
        term: &e.term,
        text: &e.term,
        lang: local.unwrap_or(&e.term),
        sub_type: e.sub_type(),
        desc: &e.description,
        dir: e.category,
        is_alias: false,
        translated: local.is_some() && lang != Lang::En,
    }
}

/// `POST /prompt/definitions`: `{language, category?, cursor?, limit?}`.
#[derive(utoipa::ToSchema, Debug, Deserialize, Default)]
pub struct DefinitionsRequest {
    #[serde(default, alias = "lang")]
    pub language: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Answers `{language, categories: [{name, count}], total, items:
/// [Definition], next_cursor}`. Items are ordered by category, then term;
/// the cursor is the position after the page (the dictionary is fixed per
/// build, so positions are stable).
pub async fn definitions(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> ApiResult {
    // An empty body asks for the first page in the caller's language.
    let body: DefinitionsRequest = if body.iter().all(u8::is_ascii_whitespace) {
        DefinitionsRequest::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| invalid(e.to_string()))?
    };
    let language = language_of(&req, body.language.as_deref());
    let dict = state.prompts.dictionary();
    let category = body
        .category
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    if let Some(c) = category {
        if !dict.categories().iter().any(|(name, _)| *name == c) {
            return Err(invalid(format!("no category {c:?}")));
        }
    }
    let start: usize = match body
        .cursor
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        Some(c) => c.parse().map_err(|_| invalid("bad cursor"))?,
        None => 0,
    };
    let limit = body.limit.unwrap_or(DEFAULT_PAGE);
    if limit == 0 || limit > MAX_PAGE {
        return Err(invalid(format!("limit must be 1 to {MAX_PAGE}")));
    }
    let all: Vec<&Entry> = dict
        .entries()
        .iter()
        .filter(|e| category.is_none_or(|c| e.category == c))
        .collect();
    let items: Vec<Definition<'_>> = all
        .iter()
        .skip(start)
        .take(limit)
        .map(|e| definition(e, language))
        .collect();
    let next = start.saturating_add(limit);
    let categories: Vec<serde_json::Value> = dict
        .categories()
        .into_iter()
        .map(|(name, count)| serde_json::json!({"name": name, "count": count}))
        .collect();
    Ok(ok(serde_json::json!({
        "language": language,
        "categories": categories,
        "total": all.len(),
        "items": items,
        "next_cursor": (next < all.len()).then(|| next.to_string()),
    })))
}

/// `GET /prompt/prompt_{lang}.json`: the whole map from lowercased term to
/// definition in one language (spec 3 §7's per-language file).
pub async fn definitions_file(state: web::Data<AppState>, lang: web::Path<String>) -> ApiResult {
    let language = Lang::normalise(&lang.into_inner());
    let map: BTreeMap<&str, Definition<'_>> = state
        .prompts
        .dictionary()
        .entries()
        .iter()
        .map(|e| (e.term.as_str(), definition(e, language)))
        .collect();
    Ok(ok(map))
}
