//! Audio generation calls (spec 2 §7), under `/api/v1/task/v2/audio`:
//! text-to-audio-effect, music/generate-lyrics, music/text-to-music,
//! video-to-audio, video-add-music, and (in `lipsync.rs`)
//! audio-to-lip-video. Tasks answer `data: {id}`; finished ones carry
//! `audio_uris`. The lyrics stream (`POST /api/stream/audio/lyrics`) is
//! [`stream_routes`]. The rules are `protocol::audio::music`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use llm::{ChatMessage, ChatRequest, LlmError};
use protocol::audio::music::{
    clean_lyrics, lyrics_instruction, prepare_lyrics, prepare_music, LyricsBrief, LyricsRequest,
    MusicCall, MusicRequest, VideoRef,
};
use protocol::task::{Action, InputRole};
use protocol::ErrorCode;
use serde_json::json;

use super::task::requester;
use crate::error::{ok, ApiError, ApiResult};
use crate::polish::sse;
use crate::state::AppState;
use crate::tasks::{object_key_of_url, Requester};

pub fn routes(api: &mut Api) {
    api.scope("/audio", |api| {
        api.post(
            "/text-to-audio-effect",
            text_to_audio_effect,
            doc("Create a sound effect task from text").reply::<protocol::character::IdAnswer>(),
        )
        .post(
            "/music/text-to-music",
            text_to_music,
            doc("Create a music task from a prompt").reply::<protocol::character::IdAnswer>(),
        )
        .post(
            "/music/generate-lyrics",
            generate_lyrics,
            doc("Write song lyrics from a prompt"),
        )
        .post(
            "/video-to-audio",
            video_to_audio,
            doc("Create a task that adds generated sound to a video")
                .reply::<protocol::character::IdAnswer>(),
        )
        .post(
            "/video-add-music",
            video_add_music,
            doc("Create a task that adds music under a video")
                .reply::<protocol::character::IdAnswer>(),
        );
        super::lipsync::routes(api);
    });
}

/// Inside `/api/stream`: `POST audio/lyrics`.
pub fn stream_routes(api: &mut Api) {
    api.post(
        "/audio/lyrics",
        lyrics_stream,
        doc("Stream song lyrics as the model writes them (server-sent events)").raw(super::SSE),
    );
}

async fn text_to_audio_effect(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<serde_json::Value>,
) -> ApiResult {
    create(req, s, b.into_inner(), MusicCall::Effect).await
}

async fn text_to_music(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<serde_json::Value>,
) -> ApiResult {
    create(req, s, b.into_inner(), MusicCall::Song).await
}

async fn video_to_audio(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<serde_json::Value>,
) -> ApiResult {
    create(req, s, b.into_inner(), MusicCall::VideoToAudio).await
}

async fn video_add_music(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<serde_json::Value>,
) -> ApiResult {
    create(req, s, b.into_inner(), MusicCall::AddMusic).await
}

/// The body as a [`MusicRequest`] (a wrong type answers InvalidParams).
fn music_request(body: &serde_json::Value) -> Result<MusicRequest, ApiError> {
    serde_json::from_value(body.clone())
        .map_err(|e| ApiError::with_msg(ErrorCode::InvalidParams, e.to_string()))
}

async fn create(
    req: HttpRequest,
    s: web::Data<AppState>,
    body: serde_json::Value,
    call: MusicCall,
) -> ApiResult {
    let who = requester(&req, &s).await?;
    if !matches!(who, Requester::Account(_)) {
        return Err(ErrorCode::NeedLogin.into());
    }
    let mut p = prepare_music(call, &music_request(&body)?)?;
    // A song sung in a chosen voice: one the caller may use and is ready.
    if let (MusicCall::Song, Some(id), Requester::Account(a)) = (call, &p.timbre_id, &who) {
        let voice = crate::timbre::TimbreService::new(s.store.clone(), s.objects.clone())
            .voice_for(Some(a.id.as_str()), Some(id))
            .await?;
        p.job.speech = Some(protocol::audio::SpeechSpec {
            text: String::new(),
            voice,
            speed: 1.0,
            emotion: String::new(),
        });
    }
    let action = match call {
        MusicCall::Effect => Action::TextToAudioEffect,
        MusicCall::Song => Action::TextToMusic,
        MusicCall::VideoToAudio => Action::VideoToAudio,
        MusicCall::AddMusic => Action::VideoAddMusic,
    };
    let mut inputs = Vec::new();
    if let Some(v) = &p.video {
        inputs.push((InputRole::VideoSource, source_video(&s, &who, v).await?));
    }
    let id = s
        .tasks
        .create_audio(&who, action, p.job, inputs, body)
        .await?;
    s.awards.on_task(&who).await;
    Ok(ok(protocol::character::IdAnswer { id }))
}

/// The object key of a soundtrack's video: the first video of the caller's
/// own task, or an uploaded video of theirs; another account's answers
/// like a missing one.
async fn source_video(s: &AppState, who: &Requester, v: &VideoRef) -> Result<String, ApiError> {
    let missing = || ApiError::with_msg(ErrorCode::NotFound, "no such source video");
    let key = match v {
        VideoRef::Task(id) => {
            let row = s.tasks.owned(who, id).await?;
            row.outputs
                .iter()
                .find(|o| o.mime.starts_with("video/"))
                .map(|o| o.key.clone())
                .ok_or_else(missing)?
        }
        VideoRef::Url(url) => {
            let key = object_key_of_url(url).ok_or_else(missing)?;
            if !crate::access::may_read(s, who, &key).await? {
                return Err(missing());
            }
            key
        }
    };
    let meta = s
        .objects
        .head(&crate::error::object_key(&key)?)
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(missing)?;
    if !meta.content_type.starts_with("video/") {
        return Err(ApiError::with_msg(
            ErrorCode::UploadVideoError,
            "the source is not a video",
        ));
    }
    Ok(key)
}

/// The language model request that writes lyrics.
fn lyrics_chat(brief: &LyricsBrief) -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system(
                "You are a songwriter. You write short, singable song lyrics with labelled sections.",
            ),
            ChatMessage::user(lyrics_instruction(brief)),
        ],
        max_tokens: 400,
        temperature: 0.8,
        top_p: 0.95,
        seed: protocol::audio::music::MAX_LYRICS_CHARS as u64 ^ brief.prompt.len() as u64,
        stop: Vec::new(),
        prefill: None,
    }
}

fn llm_error(e: &LlmError) -> ApiError {
    tracing::warn!(error = %e, "lyrics: model failed");
    match e {
        LlmError::Unavailable(_) => ErrorCode::LanguageModelUnavailable.into(),
        _ => ApiError::with_msg(
            ErrorCode::LanguageModelUnavailable,
            "the language model failed; try again",
        ),
    }
}

/// A logged-in caller and a checked lyrics request.
async fn lyrics_caller(
    req: &HttpRequest,
    s: &AppState,
    body: serde_json::Value,
) -> Result<LyricsBrief, ApiError> {
    let who = requester(req, s).await?;
    if !matches!(who, Requester::Account(_)) {
        return Err(ErrorCode::NeedLogin.into());
    }
    let r: LyricsRequest = serde_json::from_value(body)
        .map_err(|e| ApiError::with_msg(ErrorCode::InvalidParams, e.to_string()))?;
    Ok(prepare_lyrics(&r)?)
}

/// `music/generate-lyrics {prompt, title?, language?}` → `{title, lyrics}`.
async fn generate_lyrics(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<serde_json::Value>,
) -> ApiResult {
    let brief = lyrics_caller(&req, &s, b.into_inner()).await?;
    let raw = llm::complete(s.llm.as_ref(), lyrics_chat(&brief))
        .await
        .map_err(|e| llm_error(&e))?;
    let (title, lyrics) = clean_lyrics(&raw, &brief);
    if lyrics.is_empty() {
        return Err(ApiError::with_msg(
            ErrorCode::LanguageModelUnavailable,
            "the language model wrote no lyrics; try again",
        ));
    }
    Ok(ok(
        json!({ "title": title, "lyrics": lyrics, "model": s.llm.info() }),
    ))
}

/// One named server-sent event.
fn named(event: &str, data: &serde_json::Value) -> web::Bytes {
    web::Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

fn error_event(e: &ApiError) -> web::Bytes {
    named(
        "error",
        &json!({
            "key": e.code.key(),
            "code": e.code.code(),
            "msg": e.msg.clone().unwrap_or_else(|| e.code.default_msg().to_owned()),
        }),
    )
}

/// `POST /api/stream/audio/lyrics`: `event: delta` `{text}` as the model
/// writes, then `event: done` `{title, lyrics}` (cleaned), or `event:
/// error` `{key, msg}`. The model stops when the client goes away.
async fn lyrics_stream(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: web::Json<serde_json::Value>,
) -> HttpResponse {
    let brief = match lyrics_caller(&req, &s, b.into_inner()).await {
        Ok(b) => b,
        Err(e) => return sse::single(error_event(&e)),
    };
    let model = s.llm.clone();
    let (tx, rx) = sse::channel();
    tokio::spawn(async move {
        let mut stream = match model.stream(lyrics_chat(&brief)).await {
            Ok(st) => st,
            Err(e) => {
                let _ = tx.send(error_event(&llm_error(&e))).await;
                return;
            }
        };
        let mut raw = String::new();
        loop {
            tokio::select! {
                _ = tx.closed() => return,
                next = stream.next() => match next {
                    Some(Ok(delta)) => {
                        raw.push_str(&delta);
                        if tx.send(named("delta", &json!({ "text": delta }))).await.is_err() {
                            return;
                        }
                    }
                    Some(Err(e)) => {
                        let _ = tx.send(error_event(&llm_error(&e))).await;
                        return;
                    }
                    None => break,
                }
            }
        }
        let (title, lyrics) = clean_lyrics(&raw, &brief);
        let last = if lyrics.is_empty() {
            error_event(&ApiError::with_msg(
                ErrorCode::LanguageModelUnavailable,
                "the language model wrote no lyrics; try again",
            ))
        } else {
            named("done", &json!({ "title": title, "lyrics": lyrics }))
        };
        let _ = tx.send(last).await;
    });
    sse::streaming(rx)
}
