//! Characters family (spec 3 §7 "Characters and chat", tavern-pro, square
//! character lists, datacards): publish, detail, lists, recommend, latest,
//! my, delete, default settings, form config, presets, V2 card import and
//! export, and datacard CRUD. The chat calls (`/character/session/...`,
//! `quick-chat`, `reply`, `message`) are in the chat family's file.
//!
//! Visitors (no token) may read published characters (detail, lists,
//! recommend, export) and the form's config; everything else needs a
//! logged-in account with a complete profile.

use super::api::{doc, Api};
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use protocol::character::{CharacterCard, CharacterView, DatacardView, Preset, RecentCard};
use protocol::character::{
    CharacterLimits, CharacterTypeView, ConfigAnswer, DatacardCreate, DatacardEdit,
    DefaultSettingAnswer, ExportQuery, Gender, IdAnswer, IdRequest, Items, LimitRequest,
    ListRequest, ModelInfoView, PublishRequest, MAX_CARD_BYTES,
};
use protocol::{Empty, ErrorCode};
use serde_json::json;

use crate::auth::{optional_caller, Authed};
use crate::characters::card::{self, CardError};
use crate::characters::CardFormat;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;
type State = web::Data<AppState>;

/// Registers every route of the family under `/api/v1` (individual routes,
/// not a `/character` scope: the chat family shares that prefix).
pub fn routes(api: &mut Api) {
    api.post(
        "/tavern-pro/publish",
        publish,
        doc("Publish a character")
            .body::<PublishRequest>()
            .reply::<IdAnswer>(),
    )
    .post(
        "/tavern-pro/detail",
        detail,
        doc("One character (tavern form)")
            .body::<IdRequest>()
            .reply::<CharacterView>(),
    )
    .post(
        "/character/detail",
        detail,
        doc("One character")
            .body::<IdRequest>()
            .reply::<CharacterView>(),
    )
    .post(
        "/square/v3/character/list",
        list,
        doc("The characters feed").body::<ListRequest>(),
    )
    .post(
        "/square/character/list",
        list,
        doc("The characters feed (older path)").body::<ListRequest>(),
    )
    .post(
        "/square/v3/character/recommend",
        recommend,
        doc("Recommended characters")
            .body::<LimitRequest>()
            .reply::<Items<CharacterCard>>(),
    )
    .post(
        "/square/character/recommend",
        recommend,
        doc("Recommended characters (older path)")
            .body::<LimitRequest>()
            .reply::<Items<CharacterCard>>(),
    )
    .post(
        "/character/latest",
        latest,
        doc("Characters the caller chatted with lately")
            .body::<LimitRequest>()
            .reply::<Items<RecentCard>>(),
    )
    .post(
        "/tavern-pro/recently/remove",
        remove_recent,
        doc("Remove a character from the caller's recent list")
            .body::<IdRequest>()
            .reply::<Empty>(),
    )
    .post(
        "/tavern-pro/my",
        mine,
        doc("The caller's characters").reply::<Items<CharacterCard>>(),
    )
    .post(
        "/tavern-pro/delete",
        delete,
        doc("Delete one of the caller's characters")
            .body::<IdRequest>()
            .reply::<Empty>(),
    )
    .post(
        "/character/default_setting",
        default_setting,
        doc("Default settings for a new character").reply::<DefaultSettingAnswer>(),
    )
    .get(
        "/character/default_setting",
        default_setting,
        doc("Default settings for a new character").reply::<DefaultSettingAnswer>(),
    )
    .post(
        "/tavern-pro/config",
        config,
        doc("Character editor configuration").reply::<ConfigAnswer>(),
    )
    .get(
        "/tavern-pro/config",
        config,
        doc("Character editor configuration").reply::<ConfigAnswer>(),
    )
    .post(
        "/tavern-pro/preset/list",
        presets,
        doc("Character presets").reply::<Items<Preset>>(),
    )
    .get(
        "/tavern-pro/preset/list",
        presets,
        doc("Character presets").reply::<Items<Preset>>(),
    )
    .post(
        "/tavern-pro/card/import",
        import,
        doc("Import a character card (PNG or JSON)")
            .upload("image/png")
            .reply::<IdAnswer>(),
    )
    .get(
        "/tavern-pro/card/export",
        export,
        doc("Export a character card (PNG or JSON)")
            .raw("image/png")
            .query(&["id", "format"]),
    )
    .post(
        "/datacard/create",
        datacard_create,
        doc("Create a data card (character knowledge)")
            .body::<DatacardCreate>()
            .reply::<IdAnswer>(),
    )
    .post(
        "/datacard/edit",
        datacard_edit,
        doc("Edit a data card")
            .body::<DatacardEdit>()
            .reply::<DatacardView>(),
    )
    .post(
        "/datacard/delete",
        datacard_delete,
        doc("Delete a data card")
            .body::<IdRequest>()
            .reply::<Empty>(),
    )
    .post(
        "/datacard/detail",
        datacard_detail,
        doc("One data card")
            .body::<IdRequest>()
            .reply::<DatacardView>(),
    )
    .post(
        "/datacard/my",
        datacard_my,
        doc("The caller's data cards").reply::<Items<DatacardView>>(),
    );
}

/// The caller's account id when a token is sent (a bad token is NeedLogin),
/// `None` for a visitor.
async fn viewer(req: &HttpRequest, s: &AppState) -> Result<Option<String>, ApiError> {
    Ok(optional_caller(req, s).await?.map(|c| c.account.id))
}

fn model_view(s: &AppState) -> ModelInfoView {
    let m = s.llm.info();
    ModelInfoView {
        name: m.name,
        label: m.label,
        neural: m.neural,
        context_tokens: m.context_tokens,
    }
}

pub async fn publish(a: Authed, s: State, b: Body<PublishRequest>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let id = s.characters.publish(&a.0.account.id, b).await?;
    s.square.search_character(&s.characters, &id).await;
    Ok(ok(IdAnswer { id }))
}

pub async fn detail(req: HttpRequest, s: State, b: Body<IdRequest>) -> ApiResult {
    let who = viewer(&req, &s).await?;
    Ok(ok(s.characters.detail(who.as_deref(), &b.id).await?))
}

pub async fn list(req: HttpRequest, s: State, b: Body<ListRequest>) -> ApiResult {
    // A bad token still answers NeedLogin, as everywhere.
    viewer(&req, &s).await?;
    let page = s.characters.list(&b).await?;
    // The tavern's cards, also as the square's content cards (obj_type 9,
    // cover, author) with the feeds' `next_cursor` beside the tavern's `cursor`.
    let items: Vec<serde_json::Value> = page
        .items
        .iter()
        .map(|c| {
            let mut v = json!(c);
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "obj_type".into(),
                    json!(protocol::square::ObjType::CHARACTER),
                );
                o.insert("title".into(), json!(c.name));
                o.insert("cover".into(), json!({ "url": c.avatar }));
                o.insert(
                    "author".into(),
                    json!({ "id": c.owner.id, "name": c.owner.name }),
                );
            }
            v
        })
        .collect();
    Ok(ok(
        json!({ "items": items, "cursor": page.cursor, "next_cursor": page.cursor }),
    ))
}

pub async fn recommend(req: HttpRequest, s: State, b: Body<LimitRequest>) -> ApiResult {
    viewer(&req, &s).await?;
    Ok(ok(Items {
        items: s.characters.recommend(b.limit).await?,
    }))
}

pub async fn latest(a: Authed, s: State, b: Body<LimitRequest>) -> ApiResult {
    Ok(ok(Items {
        items: s.characters.latest(&a.0.account.id, b.limit).await?,
    }))
}

pub async fn remove_recent(a: Authed, s: State, b: Body<IdRequest>) -> ApiResult {
    s.characters.remove_recent(&a.0.account.id, &b.id).await?;
    Ok(ok(Empty {}))
}

pub async fn mine(a: Authed, s: State) -> ApiResult {
    Ok(ok(Items {
        items: s.characters.mine(&a.0.account.id).await?,
    }))
}

pub async fn delete(a: Authed, s: State, b: Body<IdRequest>) -> ApiResult {
    s.characters.delete(&a.0.account.id, &b.id).await?;
    s.square.search_character(&s.characters, &b.id).await;
    Ok(ok(Empty {}))
}

pub async fn default_setting(s: State) -> ApiResult {
    let d = protocol::character::ChatSettingsView::default();
    Ok(ok(DefaultSettingAnswer {
        temperature: d.temperature,
        top_p: d.top_p,
        max_reply_tokens: d.max_reply_tokens,
        model: model_view(&s),
    }))
}

pub async fn config(s: State) -> ApiResult {
    Ok(ok(ConfigAnswer {
        limits: CharacterLimits::current(),
        genders: Gender::ALL.to_vec(),
        character_types: vec![
            CharacterTypeView {
                value: 1,
                label: "entertainment".into(),
            },
            CharacterTypeView {
                value: 2,
                label: "tool".into(),
            },
        ],
        settings: protocol::character::ChatSettingsView::default(),
        model: model_view(&s),
    }))
}

pub async fn presets() -> ApiResult {
    Ok(ok(Items {
        items: crate::characters::presets(),
    }))
}

/// Reads a raw body of at most `limit` bytes. An oversize body is read to
/// its end (up to four times the limit) before answering PayloadTooLarge,
/// so the client, still sending, receives the answer instead of a reset.
async fn read_body(
    req: &HttpRequest,
    mut payload: web::Payload,
    limit: usize,
) -> Result<Vec<u8>, ApiError> {
    let too_large = || {
        ApiError::with_msg(
            ErrorCode::PayloadTooLarge,
            format!("a character card may be at most {limit} bytes"),
        )
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit.saturating_mul(4)) {
        return Err(too_large());
    }
    let mut body = Vec::with_capacity(declared.unwrap_or(0).min(limit));
    let mut seen = 0usize;
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::with_msg(ErrorCode::InvalidParams, format!("reading the body: {e}"))
        })?;
        seen = seen.saturating_add(chunk.len());
        if seen > limit.saturating_mul(4) {
            return Err(too_large());
        }
        if seen <= limit {
            body.extend_from_slice(&chunk);
        }
    }
    if seen > limit {
        return Err(too_large());
    }
    Ok(body)
}

/// `POST /api/v1/tavern-pro/card/import`: the raw card (`image/png` or
/// `application/json`, at most 8 MB) becomes a draft of the caller.
pub async fn import(req: HttpRequest, a: Authed, s: State, payload: web::Payload) -> ApiResult {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let expect_png = match content_type.as_str() {
        "image/png" => Some(true),
        "application/json" | "text/json" | "text/plain" => Some(false),
        "" | "application/octet-stream" => None,
        _ => {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "Content-Type must be image/png or application/json",
            ))
        }
    };
    let body = read_body(&req, payload, MAX_CARD_BYTES).await?;
    let parsed = tokio::task::spawn_blocking(move || -> Result<_, CardError> {
        match expect_png {
            Some(true) => card::parse_png(&body).map(|(c, p)| (c, Some(p))),
            Some(false) => card::parse_json(&body).map(|c| (c, None)),
            None => card::parse_any(&body),
        }
    })
    .await
    .map_err(ApiError::internal)?;
    let (data, picture) =
        parsed.map_err(|e| ApiError::with_msg(ErrorCode::CharacterCardInvalid, e.to_string()))?;
    let mut draft = data
        .into_publish_request()
        .map_err(|e| ApiError::with_msg(ErrorCode::CharacterCardInvalid, e.to_string()))?;
    // Every text the card brings, in the `character` scene, as in publish.
    s.text_filter.clean(&mut draft)?;
    let id = s.characters.import(&a.0.account.id, draft, picture).await?;
    Ok(ok(IdAnswer { id }))
}

/// `GET /api/v1/tavern-pro/card/export?id=..&format=png|json` (token header
/// optional): the card file, as an attachment.
pub async fn export(req: HttpRequest, s: State, q: web::Query<ExportQuery>) -> ApiResult {
    let who = viewer(&req, &s).await?;
    let format = CardFormat::parse(q.format.as_deref())
        .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "format is png or json"))?;
    let file = s.characters.export(who.as_deref(), &q.id, format).await?;
    Ok(HttpResponse::Ok()
        .content_type(file.content_type)
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}\"", file.file_name),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .body(file.bytes))
}

pub async fn datacard_create(a: Authed, s: State, b: Body<DatacardCreate>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let id = s
        .characters
        .create_datacard(&a.0.account.id, &b.title, &b.content)
        .await?;
    Ok(ok(IdAnswer { id }))
}

pub async fn datacard_edit(a: Authed, s: State, b: Body<DatacardEdit>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    Ok(ok(s
        .characters
        .edit_datacard(&a.0.account.id, &b.id, &b.title, &b.content)
        .await?))
}

pub async fn datacard_delete(a: Authed, s: State, b: Body<IdRequest>) -> ApiResult {
    s.characters.delete_datacard(&a.0.account.id, &b.id).await?;
    Ok(ok(Empty {}))
}

pub async fn datacard_detail(a: Authed, s: State, b: Body<IdRequest>) -> ApiResult {
    Ok(ok(s.characters.datacard(&a.0.account.id, &b.id).await?))
}

pub async fn datacard_my(a: Authed, s: State) -> ApiResult {
    Ok(ok(Items {
        items: s.characters.my_datacards(&a.0.account.id).await?,
    }))
}
