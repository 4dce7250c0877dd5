//! Voices (spec 3 §7 Timbre): `timbre/{detail, tts, train, train/progress,
//! train/log, edit, delete, voice/delete, voice/get}` and
//! `square/timbre/{comprehensive-rec, my, voice/list}`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::activity::Page;
use protocol::audio::timbre::TimbreView;
use protocol::audio::timbre::{self as rules, TimbreFilter, TimbreOrder, TRAINING_NOTE};
use protocol::audio::{AudioJob, SpeechSpec, VoiceSpec};
use protocol::task::{Action, InputRole, TaskStatus};
use protocol::textfilter::Scene;
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use crate::auth::{optional_caller, Authed};
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;
use crate::tasks::Requester;
use crate::timbre::{view, TimbreService};

type State = web::Data<AppState>;

fn service(s: &AppState) -> TimbreService {
    TimbreService::new(s.store.clone(), s.objects.clone())
}

fn invalid(e: impl std::fmt::Display) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, e.to_string())
}

#[derive(utoipa::ToSchema, Deserialize)]
struct IdBody {
    #[serde(default)]
    id: String,
}

#[derive(utoipa::ToSchema, Deserialize)]
struct TtsBody {
    #[serde(default)]
    text: String,
    #[serde(default)]
    timbre_id: Option<String>,
    #[serde(default)]
    speed: Option<f32>,
    #[serde(default)]
    emotion: Option<String>,
}

async fn tts(a: Authed, s: State, b: web::Json<TtsBody>) -> ApiResult {
    let text = rules::check_tts_text(&b.text)?;
    let speed = rules::check_speed(b.speed).map_err(invalid)?;
    let emotion = b.emotion.clone().unwrap_or_default();
    if emotion.chars().count() > 40 {
        return Err(invalid("emotion has at most 40 characters"));
    }
    let answer = service(&s)
        .tts(
            s.speaker.as_ref(),
            &a.0.account.id,
            &text,
            b.timbre_id.as_deref(),
            speed,
            &emotion,
        )
        .await?;
    Ok(ok(answer))
}

async fn detail(req: HttpRequest, s: State, b: web::Json<IdBody>) -> ApiResult {
    let caller = optional_caller(&req, &s).await?;
    let viewer = caller.as_ref().map(|c| c.account.id.as_str());
    let svc = service(&s);
    let r = svc.visible(viewer, &b.id).await?;
    let r = refresh_training(&svc, r).await?;
    let r = svc.with_preview(s.speaker.as_ref(), r).await;
    Ok(ok(view(&r, viewer)))
}

#[derive(utoipa::ToSchema, Deserialize)]
struct EditBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    gender: String,
    #[serde(default)]
    age: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    intonation: String,
    #[serde(default)]
    is_public: bool,
    #[serde(default)]
    base: Option<String>,
}

async fn edit(a: Authed, s: State, b: web::Json<EditBody>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.apply(Scene::Name, &mut b.name)?;
    s.text_filter
        .apply(Scene::Description, &mut b.description)?;
    let f = rules::normalise_fields(
        &b.name,
        &b.description,
        &b.gender,
        &b.age,
        &b.language,
        &b.intonation,
    )
    .map_err(invalid)?;
    let me = &a.0.account;
    let svc = service(&s);
    let r = match b.id.as_deref().map(str::trim).filter(|i| !i.is_empty()) {
        Some(id) => svc.edit(&me.id, id, f, b.is_public).await?,
        None => {
            svc.create(&me.id, &me.name, f, b.is_public, b.base.as_deref())
                .await?
        }
    };
    Ok(ok(view(&r, Some(&me.id))))
}

async fn delete(a: Authed, s: State, b: web::Json<IdBody>) -> ApiResult {
    service(&s).delete(&a.0.account.id, &b.id).await?;
    Ok(ok(protocol::Empty {}))
}

#[derive(utoipa::ToSchema, Deserialize)]
#[schema(as = TimbreTrainBody)]
struct TrainBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    gender: Option<String>,
    #[serde(default)]
    age: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    intonation: Option<String>,
    #[serde(default)]
    samples: Vec<String>,
}

async fn train(a: Authed, s: State, b: web::Json<TrainBody>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.apply_opt(Scene::Name, &mut b.name)?;
    let me = &a.0.account;
    if !(rules::MIN_SAMPLES..=rules::MAX_SAMPLES).contains(&b.samples.len()) {
        return Err(ErrorCode::TimbreSamplesInvalid.into());
    }
    let svc = service(&s);
    let mut keys = Vec::new();
    let mut secs = Vec::new();
    for url in &b.samples {
        let (key, d) = svc.check_sample(&me.id, url).await?;
        keys.push((InputRole::Audio, key));
        secs.push(d);
    }
    let row = match b.id.as_deref().map(str::trim).filter(|i| !i.is_empty()) {
        Some(id) => svc.visible(Some(&me.id), id).await?,
        None => {
            let f = rules::normalise_fields(
                b.name.as_deref().unwrap_or("My voice"),
                "",
                b.gender.as_deref().unwrap_or("other"),
                b.age.as_deref().unwrap_or("adult"),
                b.language.as_deref().unwrap_or("en"),
                b.intonation.as_deref().unwrap_or("other"),
            )
            .map_err(invalid)?;
            svc.create(&me.id, &me.name, f, false, None).await?
        }
    };
    if row.owner != me.id {
        return Err(ErrorCode::NotFound.into());
    }
    let job = AudioJob {
        timbre_id: Some(row.id.clone()),
        speech: Some(SpeechSpec {
            text: String::new(),
            voice: VoiceSpec {
                language: row.language.clone(),
                ..row.voice.clone()
            },
            speed: 1.0,
            emotion: String::new(),
        }),
        ..AudioJob::default()
    };
    let task_id = s
        .tasks
        .create_audio(
            &Requester::Account(Box::new(me.clone())),
            Action::TimbreTrain,
            job,
            keys,
            json!({"timbre_id": row.id, "samples": b.samples}),
        )
        .await?;
    svc.start_training(&row.id, &task_id, &b.samples, &secs)
        .await?;
    Ok(ok(
        json!({"id": row.id, "task_id": task_id, "note": TRAINING_NOTE}),
    ))
}

/// Applies a finished training to its voice (idempotent).
async fn refresh_training(
    svc: &TimbreService,
    r: crate::timbre::TimbreRow,
) -> Result<crate::timbre::TimbreRow, ApiError> {
    let Some(task_id) = r.train_task_id.clone().filter(|_| r.status == "training") else {
        return Ok(r);
    };
    let Some(task) = svc.task(&task_id).await? else {
        return Ok(r);
    };
    if !task.status.is_final() {
        return Ok(r);
    }
    let result: Option<audio::speech::training::TrainResult> = (task.status == TaskStatus::Success)
        .then(|| {
            task.texts
                .first()
                .and_then(|t| serde_json::from_str(t).ok())
        })
        .flatten();
    let preview_secs = result.as_ref().map_or(0.0, |t| t.preview_secs);
    let preview = task
        .outputs
        .first()
        .map(|o| (crate::tasks::row::file_url(&o.key), preview_secs));
    svc.apply_training(&r.id, result.map(|t| t.voice), preview)
        .await?;
    svc.visible(Some(&r.owner), &r.id).await
}

async fn train_progress(a: Authed, s: State, b: web::Json<IdBody>) -> ApiResult {
    let svc = service(&s);
    let r = svc.visible(Some(&a.0.account.id), &b.id).await?;
    if r.owner != a.0.account.id {
        return Err(ErrorCode::NotFound.into());
    }
    let task = match &r.train_task_id {
        Some(t) => svc.task(t).await?,
        None => None,
    };
    let r = refresh_training(&svc, r).await?;
    let percent = match (&r.status[..], &task) {
        ("ready", _) => 100,
        (_, Some(t)) => t.process,
        _ => 0,
    };
    Ok(ok(
        json!({"status": r.status, "percent": percent, "task_id": r.train_task_id}),
    ))
}

async fn train_log(a: Authed, s: State, b: web::Json<IdBody>) -> ApiResult {
    let svc = service(&s);
    let r = svc.visible(Some(&a.0.account.id), &b.id).await?;
    if r.owner != a.0.account.id {
        return Err(ErrorCode::NotFound.into());
    }
    let mut lines = vec![TRAINING_NOTE.to_string()];
    if let Some(t) = &r.train_task_id {
        if let Some(task) = svc.task(t).await? {
            lines.push(format!(
                "task {}: {} ({} %)",
                task.id,
                task.status.name(),
                task.process
            ));
            if let Some(res) = task
                .texts
                .first()
                .and_then(|t| serde_json::from_str::<audio::speech::training::TrainResult>(t).ok())
            {
                lines.extend(res.log);
            }
            if let Some(why) = &task.reason {
                lines.push(format!("failed: {why}"));
            }
        }
    }
    Ok(ok(json!({"lines": lines})))
}

async fn voice_get(a: Authed, s: State, b: web::Json<IdBody>) -> ApiResult {
    let r = service(&s).visible(Some(&a.0.account.id), &b.id).await?;
    if r.owner != a.0.account.id {
        return Err(ErrorCode::NotFound.into());
    }
    let samples: Vec<_> = r
        .samples
        .iter()
        .enumerate()
        .map(|(i, url)| json!({"id": i.to_string(), "url": url, "duration": r.sample_secs.get(i)}))
        .collect();
    Ok(ok(json!({"samples": samples})))
}

#[derive(utoipa::ToSchema, Deserialize)]
struct SampleRef {
    #[serde(default)]
    id: String,
    #[serde(default)]
    sample_id: String,
}

async fn voice_delete(a: Authed, s: State, b: web::Json<SampleRef>) -> ApiResult {
    service(&s)
        .delete_sample(&a.0.account.id, &b.id, &b.sample_id)
        .await?;
    Ok(ok(protocol::Empty {}))
}

#[derive(utoipa::ToSchema, Deserialize)]
struct ListBody {
    #[serde(default)]
    cursor: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    /// `recommend` (the default: uses blended with freshness), `hot` (most
    /// used first) or `new` (newest first).
    #[serde(default)]
    order_by: Option<String>,
    #[serde(flatten)]
    filter: TimbreFilter,
}

fn check_order(o: &Option<String>) -> Result<TimbreOrder, ApiError> {
    TimbreOrder::parse(o.as_deref()).ok_or_else(|| invalid("order_by is recommend, hot or new"))
}

fn cursor(c: &Option<String>) -> Result<usize, ApiError> {
    match c.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        None => Ok(0),
        Some(c) => c.parse().map_err(|_| invalid("bad cursor")),
    }
}

async fn public_list(req: HttpRequest, s: State, b: web::Json<ListBody>) -> ApiResult {
    let caller = optional_caller(&req, &s).await?;
    let viewer = caller.as_ref().map(|c| c.account.id.as_str());
    let order = check_order(&b.order_by)?;
    let filter = b.filter.normalised().map_err(invalid)?;
    let (items, next) = service(&s)
        .public_list(
            viewer,
            &filter,
            order,
            cursor(&b.cursor)?,
            b.limit.unwrap_or(20),
        )
        .await?;
    Ok(ok(Page {
        items,
        next_cursor: next.map(|n| n.to_string()),
    }))
}

async fn my_list(a: Authed, s: State, b: web::Json<ListBody>) -> ApiResult {
    check_order(&b.order_by)?;
    let filter = b.filter.normalised().map_err(invalid)?;
    let (items, next) = service(&s)
        .mine(
            &a.0.account.id,
            &filter,
            cursor(&b.cursor)?,
            b.limit.unwrap_or(20),
        )
        .await?;
    Ok(ok(Page {
        items,
        next_cursor: next.map(|n| n.to_string()),
    }))
}

pub fn routes(api: &mut Api) {
    api.post(
        "/timbre/tts",
        tts,
        doc("Speak a text with a voice").body::<TtsBody>(),
    )
    .post(
        "/timbre/detail",
        detail,
        doc("One voice").body::<IdBody>().reply::<TimbreView>(),
    )
    .post(
        "/timbre/edit",
        edit,
        doc("Edit a voice").body::<EditBody>().reply::<TimbreView>(),
    )
    .post(
        "/timbre/delete",
        delete,
        doc("Delete a voice")
            .body::<IdBody>()
            .reply::<protocol::Empty>(),
    )
    .post(
        "/timbre/train",
        train,
        doc("Train a voice from a recording").body::<TrainBody>(),
    )
    .post(
        "/timbre/train/progress",
        train_progress,
        doc("A voice training's progress").body::<IdBody>(),
    )
    .post(
        "/timbre/train/log",
        train_log,
        doc("A voice training's log").body::<IdBody>(),
    )
    .post(
        "/timbre/voice/get",
        voice_get,
        doc("The caller's voices").body::<IdBody>(),
    )
    .post(
        "/timbre/voice/delete",
        voice_delete,
        doc("Delete one of the caller's voices")
            .body::<SampleRef>()
            .reply::<protocol::Empty>(),
    )
    .post(
        "/square/timbre/voice/list",
        public_list,
        doc("The public voices")
            .body::<ListBody>()
            .reply::<Page<TimbreView>>(),
    )
    .post(
        "/square/timbre/comprehensive-rec",
        public_list,
        doc("Recommended public voices")
            .body::<ListBody>()
            .reply::<Page<TimbreView>>(),
    )
    .post(
        "/square/timbre/my",
        my_list,
        doc("The caller's voices as cards")
            .body::<ListBody>()
            .reply::<Page<TimbreView>>(),
    );
}
