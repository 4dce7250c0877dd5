//! Datasets (spec 3 §7 Training; issue 19 item 4), plain under `/api/v1`
//! (paths ours): `dataset/{list, detail, create, delete, edit,
//! template-list}`, `dataset/image/{add, delete, caption}` and
//! `dataset/caption/auto`. Every dataset is its owner's: anyone else's
//! answers NotFound. Training on them is `routes/train.rs`.

use super::api::{doc, Api};
use actix_web::web;
use protocol::character::Items;
use protocol::models::train::{CaptionSource, DatasetKind, MAX_DATASET_IMAGES};
use protocol::models::train::{DatasetTemplate, DatasetView};
use protocol::ErrorCode;
use serde::Deserialize;

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::models::new_id;
use crate::state::AppState;
use crate::training::{check_caption, check_tags, draft_caption, DatasetImage, DatasetService};

type State = web::Data<AppState>;

pub(super) fn datasets(s: &AppState) -> DatasetService {
    DatasetService::new(s.store.clone(), s.objects.clone())
}

pub(super) fn invalid(m: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, m)
}

fn kind_of(v: &Option<String>) -> Result<Option<DatasetKind>, ApiError> {
    match v.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        None => Ok(None),
        Some(k) => DatasetKind::parse(k)
            .map(Some)
            .ok_or_else(|| invalid("kind is character, style, concept or object")),
    }
}

#[derive(utoipa::ToSchema, Deserialize, Default)]
struct DatasetBody {
    #[serde(default)]
    dataset_id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    limit: Option<usize>,
}

async fn template_list() -> ApiResult {
    let items: Vec<_> = DatasetKind::ALL.iter().map(|k| k.template()).collect();
    Ok(ok(Items { items }))
}

async fn list(a: Authed, s: State, b: Option<web::Json<DatasetBody>>) -> ApiResult {
    let limit = b.as_ref().and_then(|b| b.limit).unwrap_or(50);
    let rows = datasets(&s).list(&a.0.account.id, limit).await?;
    let items: Vec<_> = rows.iter().map(|r| r.view(false)).collect();
    Ok(ok(Items { items }))
}

async fn detail(a: Authed, s: State, b: web::Json<DatasetBody>) -> ApiResult {
    let r = datasets(&s).own(&a.0.account.id, &b.dataset_id).await?;
    Ok(ok(r.view(true)))
}

/// A dataset's name (scene `name`) and tags (scene `title`), masked or
/// refused by the text filter before anything is stored.
fn filtered(s: &AppState, mut b: DatasetBody) -> Result<DatasetBody, ApiError> {
    use protocol::textfilter::Scene;
    s.text_filter.apply_opt(Scene::Name, &mut b.name)?;
    if let Some(tags) = &mut b.tags {
        s.text_filter.apply_all(Scene::Title, tags)?;
    }
    Ok(b)
}

async fn create(a: Authed, s: State, b: web::Json<DatasetBody>) -> ApiResult {
    let b = filtered(&s, b.into_inner())?;
    let kind = kind_of(&b.kind)?.unwrap_or_default();
    let r = datasets(&s)
        .create(
            &a.0.account.id,
            b.name.as_deref().unwrap_or(""),
            kind,
            b.tags.as_deref().unwrap_or(&[]),
        )
        .await?;
    Ok(ok(r.view(true)))
}

async fn edit(a: Authed, s: State, b: web::Json<DatasetBody>) -> ApiResult {
    let b = filtered(&s, b.into_inner())?;
    let name = b
        .name
        .as_deref()
        .map(crate::training::check_name)
        .transpose()?;
    let kind = kind_of(&b.kind)?;
    let tags = b.tags.as_deref().map(check_tags).transpose()?;
    let r = datasets(&s)
        .update(&a.0.account.id, &b.dataset_id, move |d| {
            if let Some(n) = &name {
                d.name = n.clone();
            }
            if let Some(k) = kind {
                d.kind = k;
            }
            if let Some(t) = &tags {
                d.tags = t.clone();
            }
            Ok(())
        })
        .await?;
    Ok(ok(r.view(true)))
}

async fn delete(a: Authed, s: State, b: web::Json<DatasetBody>) -> ApiResult {
    datasets(&s).delete(&a.0.account.id, &b.dataset_id).await?;
    Ok(ok(protocol::Empty {}))
}

#[derive(utoipa::ToSchema, Deserialize)]
struct ImagesBody {
    #[serde(default)]
    dataset_id: String,
    #[serde(default)]
    urls: Vec<String>,
    #[serde(default)]
    image_ids: Vec<String>,
    /// Draft captions with the reference descriptor (default true).
    #[serde(default)]
    auto_caption: Option<bool>,
    /// `caption/auto`: replace captions the owner wrote too.
    #[serde(default)]
    overwrite: Option<bool>,
}

async fn image_add(a: Authed, s: State, b: web::Json<ImagesBody>) -> ApiResult {
    let me = &a.0.account.id;
    let svc = datasets(&s);
    let d = svc.own(me, &b.dataset_id).await?;
    if b.urls.is_empty() {
        return Err(invalid("urls names the pictures to add"));
    }
    if d.images.len() + b.urls.len() > MAX_DATASET_IMAGES {
        return Err(ErrorCode::DatasetTooLarge.into());
    }
    let auto = b.auto_caption.unwrap_or(true);
    let mut added = Vec::new();
    for url in &b.urls {
        let (key, width, height, bytes) = svc.check_image(me, url).await?;
        let drafted = if auto {
            draft_caption(bytes).await
        } else {
            None
        };
        added.push(DatasetImage {
            id: new_id("img"),
            key,
            width,
            height,
            caption_source: if drafted.is_some() {
                CaptionSource::Descriptor
            } else {
                CaptionSource::None
            },
            caption: drafted.unwrap_or_default(),
        });
    }
    let r = svc
        .update(me, &d.id, move |d| {
            let fresh: Vec<DatasetImage> = added
                .iter()
                .filter(|n| !d.images.iter().any(|i| i.key == n.key))
                .cloned()
                .collect();
            if d.images.len() + fresh.len() > MAX_DATASET_IMAGES {
                return Err(ErrorCode::DatasetTooLarge.into());
            }
            d.images.extend(fresh);
            Ok(())
        })
        .await?;
    Ok(ok(r.view(true)))
}

async fn image_delete(a: Authed, s: State, b: web::Json<ImagesBody>) -> ApiResult {
    let ids = b.image_ids.clone();
    let r = datasets(&s)
        .update(&a.0.account.id, &b.dataset_id, move |d| {
            d.images.retain(|i| !ids.contains(&i.id));
            Ok(())
        })
        .await?;
    Ok(ok(r.view(true)))
}

#[derive(utoipa::ToSchema, Deserialize)]
struct CaptionBody {
    #[serde(default)]
    dataset_id: String,
    #[serde(default)]
    image_id: String,
    #[serde(default)]
    caption: String,
}

async fn image_caption(a: Authed, s: State, b: web::Json<CaptionBody>) -> ApiResult {
    let caption = check_caption(&b.caption)?;
    let id = b.image_id.clone();
    let r = datasets(&s)
        .update(&a.0.account.id, &b.dataset_id, move |d| {
            let img = d
                .images
                .iter_mut()
                .find(|i| i.id == id)
                .ok_or(ErrorCode::NotFound)?;
            img.caption = caption.clone();
            img.caption_source = CaptionSource::User;
            Ok(())
        })
        .await?;
    Ok(ok(r.view(true)))
}

/// Drafts captions with the reference descriptor (non-neural: it names
/// colours, brightness and layout; the language model here reads no
/// pictures), for the named pictures or all; the owner's own captions are
/// kept unless `overwrite`.
async fn caption_auto(a: Authed, s: State, b: web::Json<ImagesBody>) -> ApiResult {
    let me = &a.0.account.id;
    let svc = datasets(&s);
    let d = svc.own(me, &b.dataset_id).await?;
    let overwrite = b.overwrite.unwrap_or(false);
    let mut drafts: Vec<(String, String)> = Vec::new();
    for img in &d.images {
        let named = b.image_ids.is_empty() || b.image_ids.contains(&img.id);
        if !named || (img.caption_source == CaptionSource::User && !overwrite) {
            continue;
        }
        if let Some(c) = draft_caption(svc.image_bytes(&img.key).await?).await {
            drafts.push((img.id.clone(), c));
        }
    }
    let r = svc
        .update(me, &d.id, move |d| {
            for (id, c) in &drafts {
                if let Some(img) = d.images.iter_mut().find(|i| &i.id == id) {
                    img.caption = c.clone();
                    img.caption_source = CaptionSource::Descriptor;
                }
            }
            Ok(())
        })
        .await?;
    Ok(ok(r.view(true)))
}

/// Registered plain under `/api/v1` (before the scopes), next to training.
pub fn routes(api: &mut Api) {
    api.post(
        "/dataset/template-list",
        template_list,
        doc("Dataset templates").reply::<Items<DatasetTemplate>>(),
    )
    .get(
        "/dataset/template-list",
        template_list,
        doc("Dataset templates").reply::<Items<DatasetTemplate>>(),
    )
    .post(
        "/dataset/list",
        list,
        doc("The caller's training datasets")
            .body::<DatasetBody>()
            .reply::<Items<DatasetView>>(),
    )
    .post(
        "/dataset/detail",
        detail,
        doc("One training dataset")
            .body::<DatasetBody>()
            .reply::<DatasetView>(),
    )
    .post(
        "/dataset/create",
        create,
        doc("Create a training dataset")
            .body::<DatasetBody>()
            .reply::<DatasetView>(),
    )
    .post(
        "/dataset/edit",
        edit,
        doc("Edit a training dataset")
            .body::<DatasetBody>()
            .reply::<DatasetView>(),
    )
    .post(
        "/dataset/delete",
        delete,
        doc("Delete a training dataset")
            .body::<DatasetBody>()
            .reply::<protocol::Empty>(),
    )
    .post(
        "/dataset/image/add",
        image_add,
        doc("Add pictures to a dataset")
            .body::<ImagesBody>()
            .reply::<DatasetView>(),
    )
    .post(
        "/dataset/image/delete",
        image_delete,
        doc("Remove pictures from a dataset")
            .body::<ImagesBody>()
            .reply::<DatasetView>(),
    )
    .post(
        "/dataset/image/caption",
        image_caption,
        doc("Set a dataset picture's caption")
            .body::<CaptionBody>()
            .reply::<DatasetView>(),
    )
    .post(
        "/dataset/caption/auto",
        caption_auto,
        doc("Draft captions for a dataset's pictures")
            .body::<ImagesBody>()
            .reply::<DatasetView>(),
    );
}
