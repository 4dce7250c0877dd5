//! Lip-sync (spec 2 §7): `task/v2/audio/audio-to-lip-video {meta}` →
//! `{id}`. The meta goes through `protocol::audio::lipsync::plan` (tab,
//! source, drive, limits); the source (the caller's uploaded video or
//! picture, or an earlier task's video or picture) and the audio clip must
//! be the caller's own files (`face::owned_media`); a picture with no face
//! answers `noFaceFound` before anything is queued. The task
//! (`Action::AudioToLipVideo`) outputs the audio, the MP4 and its poster.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::audio::lipsync::{check_audio_secs, plan, LipDrive, LipSource, LipSyncMeta};
use protocol::audio::{AudioJob, SpeechSpec, VoiceSpec};
use protocol::task::{Action, InputRole};
use protocol::ErrorCode;
use serde::Deserialize;
use serde_json::json;

use super::face::{object_to_temp, owned_media, scan_owned, MediaKind, OwnedMedia};
use super::task::requester;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;
use crate::tasks::Requester;

pub fn routes(api: &mut Api) {
    api.post(
        "/audio-to-lip-video",
        audio_to_lip_video,
        doc("Create a lip-sync video task").body::<LipSyncRequest>(),
    );
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct LipSyncRequest {
    #[serde(default)]
    meta: LipSyncMeta,
}

/// Characters a voice speaks per second at speed 1, to price text before
/// it is spoken (English averages about 14).
const CHARS_PER_SEC: f32 = 14.0;

/// The voice that speaks for `timbre_id` (none = the default voice): a
/// voice the caller may use and that is ready.
async fn voice_of(
    state: &AppState,
    who: &Requester,
    timbre_id: Option<&str>,
) -> Result<VoiceSpec, ApiError> {
    let viewer = match who {
        Requester::Account(a) => Some(a.id.as_str()),
        Requester::Visitor { .. } => None,
    };
    crate::timbre::TimbreService::new(state.store.clone(), state.objects.clone())
        .voice_for(viewer, timbre_id)
        .await
}

fn rule(e: ErrorCode) -> ApiError {
    match e {
        ErrorCode::PleaseSelectVideo => ApiError::with_msg(
            e,
            "please select a video or a picture with one face to lip-sync",
        ),
        ErrorCode::InvalidParams => ApiError::with_msg(
            e,
            "give one of video_url, image_url or parent_task_id, lip_sync_tab \
             lipSyncText or lipSyncAudio, and a speed of 0.5 to 2",
        ),
        other => other.into(),
    }
}

/// The picture or video of an earlier task of the caller's: its video,
/// else its first picture.
async fn task_source(
    state: &AppState,
    who: &Requester,
    task_id: &str,
) -> Result<OwnedMedia, ApiError> {
    let row = state.tasks.owned(who, task_id).await?;
    let out = row
        .outputs
        .iter()
        .find(|o| o.mime.starts_with("video/"))
        .or_else(|| row.outputs.iter().find(|o| o.mime.starts_with("image/")))
        .ok_or_else(|| {
            ApiError::with_msg(
                ErrorCode::PleaseSelectVideo,
                "that task has no video or picture",
            )
        })?;
    owned_media(state, who, &crate::tasks::row::file_url(&out.key)).await
}

/// The length in seconds of a caller's audio clip (ffprobe reads it).
async fn clip_secs(state: &AppState, clip: &OwnedMedia) -> Result<f64, ApiError> {
    let tmp = object_to_temp(state, &clip.key, clip.size).await?;
    let info = tokio::task::spawn_blocking(move || {
        engines::reference::video::probe_media_path(tmp.path())
    })
    .await
    .map_err(ApiError::internal)?;
    match info {
        Ok(i) if i.has_audio => Ok(i.duration_ms as f64 / 1000.0),
        _ => Err(ErrorCode::UploadAudioError.into()),
    }
}

async fn audio_to_lip_video(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<LipSyncRequest>,
) -> ApiResult {
    let who = requester(&req, &state).await?;
    if !matches!(who, Requester::Account(_)) {
        return Err(ErrorCode::NeedLogin.into());
    }
    let p = plan(&body.meta).map_err(rule)?;
    let source = match &p.source {
        LipSource::Video(url) | LipSource::Image(url) => owned_media(&state, &who, url).await?,
        LipSource::Task(id) => task_source(&state, &who, id).await?,
    };
    let source_role = match source.kind {
        MediaKind::Video => InputRole::VideoSource,
        MediaKind::Image => {
            // A picture is checked now: no face, no task.
            let faces = scan_owned(&state, &source).await?;
            if !faces.has_face {
                return Err(ErrorCode::NoFaceFound.into());
            }
            InputRole::Init
        }
        MediaKind::Audio | MediaKind::Other => {
            return Err(ApiError::with_msg(
                ErrorCode::UploadVideoError,
                "lip-sync needs a video or a picture with a face",
            ))
        }
    };
    let mut inputs = vec![(source_role, source.key.clone())];
    let job = match p.drive {
        LipDrive::Speech {
            text,
            timbre_id,
            speed,
            emotion,
        } => {
            let voice = voice_of(&state, &who, timbre_id.as_deref()).await?;
            let secs = text.chars().count() as f32 / CHARS_PER_SEC / speed;
            AudioJob {
                duration: secs.clamp(1.0, 60.0),
                speech: Some(SpeechSpec {
                    text,
                    voice,
                    speed,
                    emotion,
                }),
                ..AudioJob::default()
            }
        }
        LipDrive::Audio(url) => {
            let clip = owned_media(&state, &who, &url).await?;
            if clip.kind != MediaKind::Audio {
                return Err(ErrorCode::UploadAudioError.into());
            }
            let secs = clip_secs(&state, &clip).await?;
            check_audio_secs(secs).map_err(ApiError::from)?;
            inputs.push((InputRole::Audio, clip.key));
            AudioJob {
                duration: secs as f32,
                ..AudioJob::default()
            }
        }
    };
    let request = json!({ "meta": body.meta });
    let id = state
        .tasks
        .create_audio(&who, Action::AudioToLipVideo, job, inputs, request)
        .await?;
    state.awards.on_task(&who).await;
    Ok(ok(json!({ "id": id })))
}
