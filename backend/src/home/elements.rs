//! A module's elements as one viewer may see them: elements chosen by id
//! (works and models as the square's cards, characters as character cards,
//! theme activities as the activities list's summaries;
//! whatever the viewer may not see, or is gone, is left out, like a missing
//! one), or a live query run through the square's and the models' feeds
//! (`hot works this week`, `new characters`...) or the activities open now,
//! one page at a time.

use std::sync::Arc;

use protocol::activity::ListRequest;
use protocol::home::compose::{LiveOrder, LiveQuery, LiveSource, LiveWindow};
use protocol::home::view::{ElementView, ModuleContent};
use protocol::home::{ElementKind, ElementRef, Module};
use protocol::square::feed::{FeedKind, FeedPage, FeedRequest, OrderBy, TimeType};
use protocol::ErrorCode;

use crate::error::ApiError;
use crate::models::ModelService;
use crate::state::AppState;

/// One page of `m`'s elements for `viewer`, from `cursor`.
pub async fn content(
    state: &AppState,
    viewer: Option<&str>,
    m: &Module,
    cursor: Option<&str>,
    page_size: Option<u32>,
) -> Result<ModuleContent, ApiError> {
    let (elements, next_cursor) = match &m.live {
        Some(q) => live(state, viewer, q, cursor, page_size).await?,
        None => by_ids(state, viewer, &m.elements, cursor, page_size).await?,
    };
    Ok(ModuleContent {
        module_id: m.id.clone(),
        elements,
        next_cursor,
    })
}

fn is_missing(e: &ApiError) -> bool {
    matches!(e.code, ErrorCode::NotFound | ErrorCode::ActivityNotFound)
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(v).map_err(|_| ErrorCode::Internal.into())
}

/// Elements chosen by id, paged by offset (`o{n}` cursors).
async fn by_ids(
    state: &AppState,
    viewer: Option<&str>,
    refs: &[ElementRef],
    cursor: Option<&str>,
    page_size: Option<u32>,
) -> Result<(Vec<ElementView>, Option<String>), ApiError> {
    let from: usize = match cursor.filter(|c| !c.is_empty()) {
        None => 0,
        Some(c) => c
            .strip_prefix('o')
            .and_then(|n| n.parse().ok())
            .ok_or(ErrorCode::InvalidParams)?,
    };
    let size = page_size.unwrap_or(24).clamp(1, 60) as usize;
    let page: Vec<&ElementRef> = refs.iter().skip(from).take(size).collect();
    let next = (from + page.len() < refs.len()).then(|| format!("o{}", from + page.len()));
    // Works in one batch from the square's index (public works only).
    let work_ids: Vec<Arc<str>> = page
        .iter()
        .filter(|r| r.kind == ElementKind::Work)
        .map(|r| Arc::from(r.id.as_str()))
        .collect();
    let works = state.square.cards(&work_ids, viewer).await?;
    let models = ModelService::new(state.store.clone());
    let mut out = Vec::with_capacity(page.len());
    for r in page {
        let card = match r.kind {
            ElementKind::Work => works.iter().find(|c| c.id == r.id).map(to_value),
            ElementKind::Model => match models.model_for(&r.id, viewer).await {
                Ok(row) => state
                    .ranks
                    .cards(std::slice::from_ref(&row), viewer)
                    .await?
                    .first()
                    .map(to_value),
                Err(e) if is_missing(&e) => None,
                Err(e) => return Err(e),
            },
            ElementKind::Character => match state.characters.visible(viewer, &r.id).await {
                Ok(row) => state
                    .characters
                    .cards(std::slice::from_ref(&row))
                    .await?
                    .first()
                    .map(to_value),
                Err(e) if is_missing(&e) => None,
                Err(e) => return Err(e),
            },
            ElementKind::Activity => match state.activities.activity(&r.id).await {
                Ok(row) => Some(to_value(&state.activities.summary_of(&row).await?)),
                Err(e) if is_missing(&e) => None,
                Err(e) => return Err(e),
            },
        };
        if let Some(card) = card {
            out.push(ElementView {
                kind: kind_name(r.kind).into(),
                id: r.id.clone(),
                card: card?,
            });
        }
    }
    Ok((out, next))
}

fn kind_name(k: ElementKind) -> &'static str {
    match k {
        ElementKind::Work => "work",
        ElementKind::Model => "model",
        ElementKind::Character => "character",
        ElementKind::Activity => "activity",
    }
}

/// A live query's page through the feeds.
async fn live(
    state: &AppState,
    viewer: Option<&str>,
    q: &LiveQuery,
    cursor: Option<&str>,
    page_size: Option<u32>,
) -> Result<(Vec<ElementView>, Option<String>), ApiError> {
    if q.source == LiveSource::Activities {
        return open_activities(state, q, cursor, page_size).await;
    }
    let req = FeedRequest {
        order_by: Some(match q.order {
            LiveOrder::Hot => OrderBy::Hot,
            LiveOrder::New => OrderBy::New,
        }),
        time_type: Some(match q.window {
            LiveWindow::Day => TimeType::Day,
            LiveWindow::Week => TimeType::Week,
            LiveWindow::Month => TimeType::Month,
            LiveWindow::All => TimeType::All,
        }),
        page_size: Some(page_size.unwrap_or(q.size).clamp(1, q.size)),
        cursor: cursor.filter(|c| !c.is_empty()).map(str::to_owned),
        ..FeedRequest::default()
    };
    let (page, kind): (FeedPage, &str) = match q.source {
        LiveSource::Models => {
            let now = state.home.now();
            (
                state.ranks.model_feed(&req, viewer, false, now).await?,
                "model",
            )
        }
        LiveSource::Works => (
            state.square.feed(FeedKind::Mix, viewer, &req).await?,
            "work",
        ),
        LiveSource::Posts => (
            state.square.feed(FeedKind::Post, viewer, &req).await?,
            "work",
        ),
        LiveSource::Videos => (
            state.square.feed(FeedKind::Video, viewer, &req).await?,
            "work",
        ),
        LiveSource::Characters => (
            state.square.feed(FeedKind::Character, viewer, &req).await?,
            "character",
        ),
        // Answered by `open_activities` above.
        LiveSource::Activities => return Err(ErrorCode::Internal.into()),
    };
    let elements = page
        .items
        .iter()
        .map(|c| {
            Ok(ElementView {
                kind: kind.into(),
                id: c.id.clone(),
                card: to_value(c)?,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok((elements, page.next_cursor))
}

/// The activities open now (`theme-activity/list` with `status: live`).
async fn open_activities(
    state: &AppState,
    q: &LiveQuery,
    cursor: Option<&str>,
    page_size: Option<u32>,
) -> Result<(Vec<ElementView>, Option<String>), ApiError> {
    let page = state
        .activities
        .list(&ListRequest {
            status: Some("live".into()),
            page_size: Some(page_size.unwrap_or(q.size).clamp(1, q.size)),
            cursor: cursor.filter(|c| !c.is_empty()).map(str::to_owned),
        })
        .await?;
    let elements = page
        .items
        .iter()
        .map(|a| {
            Ok(ElementView {
                kind: "activity".into(),
                id: a.id.clone(),
                card: to_value(a)?,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok((elements, page.next_cursor))
}
