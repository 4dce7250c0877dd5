#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The OpenAI-compatible video adapter against a fake Videos API: an
//! actix-web server that follows OpenAI's documented routes (`POST
//! /v1/videos` multipart, `GET /v1/videos/{id}` with `status` and
//! `progress`, `GET /v1/videos/{id}/content`, `DELETE /v1/videos/{id}`) and
//! error envelopes, records what the adapter sends, and answers with a real
//! H.264 MP4 of the documented size and length (ffmpeg's test pattern). A
//! fake that follows the documented API, not OpenAI.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use common::{check_videos, make_video, multipart, video_inputs, video_job, Form, Recorder};
use easel_engines::openai_video::OpenAiVideos;
use easel_engines::{Cancel, Engine, EngineConfig, EngineError, EngineResult, LoadedInput, Router};
use protocol::task::{Action, JobSpec};
use protocol::video::VideoImageRole;
use serde_json::{json, Value};

const KEY: &str = "sk-test-0123456789";

// ---------------------------------------------------------------- the fake

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    /// Queued, then in progress (progress grows each poll), then completed.
    Ok,
    /// In progress once, then failed with an error object.
    Fail,
    /// Creation refused with a 401 envelope that echoes the key.
    Unauthorized,
    /// Stays in progress forever.
    Slow,
    /// The status route answers something that is not JSON.
    Malformed,
    /// Completes, but the content is not a video.
    NotVideo,
}

struct Job {
    size: (u32, u32),
    seconds: u32,
    polls: u32,
}

struct Fake {
    mode: Mode,
    /// (field -> (file name, bytes)) of each creation.
    creates: Mutex<Vec<Form>>,
    auth: Mutex<Vec<Option<String>>>,
    jobs: Mutex<HashMap<String, Job>>,
    polls: Mutex<u32>,
    deleted: Mutex<Vec<String>>,
}

fn video_object(id: &str, job: &Job, status: &str, progress: u32) -> Value {
    json!({"id": id, "object": "video", "model": "sora-2", "status": status,
           "progress": progress, "created_at": 1_764_000_000,
           "size": format!("{}x{}", job.size.0, job.size.1), "seconds": job.seconds.to_string(),
           "quality": "standard"})
}

async fn create(req: HttpRequest, body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    let auth = req
        .headers()
        .get("authorization")
        .map(|v| v.to_str().unwrap().to_string());
    fake.auth.lock().unwrap().push(auth.clone());
    if fake.mode == Mode::Unauthorized {
        let key = auth
            .unwrap_or_default()
            .trim_start_matches("Bearer ")
            .to_string();
        return HttpResponse::Unauthorized().json(json!({"error": {
            "message": format!("Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys."),
            "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}));
    }
    let ct = req.headers().get("content-type").unwrap().to_str().unwrap();
    let parts = multipart(ct, &body);
    let field = |k: &str| String::from_utf8(parts[k].1.clone()).unwrap();
    let (w, h) = field("size")
        .split_once('x')
        .map(|(w, h)| (w.parse().unwrap(), h.parse().unwrap()))
        .unwrap();
    let job = Job {
        size: (w, h),
        seconds: field("seconds").parse().unwrap(),
        polls: 0,
    };
    fake.creates.lock().unwrap().push(parts);
    let id = format!("video_{}", fake.jobs.lock().unwrap().len() + 1);
    let answer = video_object(&id, &job, "queued", 0);
    fake.jobs.lock().unwrap().insert(id, job);
    HttpResponse::Ok().json(answer)
}

async fn status(path: web::Path<String>, fake: web::Data<Fake>) -> HttpResponse {
    *fake.polls.lock().unwrap() += 1;
    if fake.mode == Mode::Malformed {
        return HttpResponse::Ok()
            .content_type("application/json")
            .body("{\"id\": \"video_1\", \"status\": ");
    }
    let id = path.into_inner();
    let mut jobs = fake.jobs.lock().unwrap();
    let Some(job) = jobs.get_mut(&id) else {
        return HttpResponse::NotFound().json(
            json!({"error": {"message": "Video not found", "type": "invalid_request_error"}}),
        );
    };
    job.polls += 1;
    let answer = match (fake.mode, job.polls) {
        (Mode::Slow, _) => video_object(&id, job, "in_progress", 10),
        (Mode::Fail, 1) => video_object(&id, job, "in_progress", 30),
        (Mode::Fail, _) => {
            let mut v = video_object(&id, job, "failed", 30);
            v["error"] = json!({"code": "moderation_blocked",
                "message": "Your request was blocked by our moderation system."});
            v
        }
        (_, p) if p < 4 => video_object(&id, job, "in_progress", p * 30),
        _ => video_object(&id, job, "completed", 100),
    };
    HttpResponse::Ok().json(answer)
}

async fn content(path: web::Path<String>, fake: web::Data<Fake>) -> HttpResponse {
    let id = path.into_inner();
    let (size, seconds) = {
        let jobs = fake.jobs.lock().unwrap();
        let job = &jobs[&id];
        (job.size, job.seconds)
    };
    if fake.mode == Mode::NotVideo {
        return HttpResponse::Ok()
            .content_type("video/mp4")
            .body("<html><body>Service temporarily unavailable</body></html>");
    }
    // A low frame rate keeps the test's ffmpeg work small; the size and
    // length are what the job asked.
    let bytes = make_video(size.0, size.1, 8.0, seconds * 8, "mp4");
    HttpResponse::Ok().content_type("video/mp4").body(bytes)
}

async fn delete(path: web::Path<String>, fake: web::Data<Fake>) -> HttpResponse {
    let id = path.into_inner();
    fake.deleted.lock().unwrap().push(id.clone());
    HttpResponse::Ok().json(json!({"id": id, "object": "video.deleted", "deleted": true}))
}

fn start(mode: Mode) -> (String, web::Data<Fake>) {
    let fake = web::Data::new(Fake {
        mode,
        creates: Mutex::default(),
        auth: Mutex::default(),
        jobs: Mutex::default(),
        polls: Mutex::default(),
        deleted: Mutex::default(),
    });
    let shared = fake.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(shared.clone())
                    .app_data(web::PayloadConfig::new(64 << 20))
                    .route("/v1/videos", web::post().to(create))
                    .route("/v1/videos/{id}", web::get().to(status))
                    .route("/v1/videos/{id}", web::delete().to(delete))
                    .route("/v1/videos/{id}/content", web::get().to(content))
            })
            .workers(2)
            .bind(("127.0.0.1", 0))
            .unwrap();
            tx.send(server.addrs()[0].port()).unwrap();
            server.run().await.unwrap();
        });
    });
    let port = rx.recv().unwrap();
    (format!("http://127.0.0.1:{port}/v1"), fake)
}

// ---------------------------------------------------------------- helpers

fn engine(url: &str) -> OpenAiVideos {
    OpenAiVideos::new(url, Some(KEY.into()), None, Some(20))
        .unwrap()
        .with_timeout(Duration::from_secs(60))
}

async fn run(
    e: &OpenAiVideos,
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
) -> (Result<EngineResult, EngineError>, Arc<Recorder>) {
    let rec = Arc::new(Recorder::default());
    let r = e.run(job, inputs, rec.clone(), Cancel::new()).await;
    (r, rec)
}

fn text(parts: &Form, k: &str) -> String {
    String::from_utf8(parts[k].1.clone()).unwrap()
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn text_to_video_polls_to_completion_and_packages_the_mp4() {
    let (url, fake) = start(Mode::Ok);
    // 3 s asked: the API makes 4 s (its shortest length covering 3), the
    // MP4 is cut to 3 s and scaled from 1280x720 to the asked 160x90.
    let job = video_job(Action::TextToVideo, 160, 90, 3, &[]);
    let (result, rec) = run(&engine(&url), &job, vec![]).await;
    let result = result.unwrap();
    assert_eq!(result.engine.name, "openai_video");
    let info = &check_videos(&result, 1)[0];
    assert_eq!((info.width, info.height), (160, 90));
    assert!(
        (info.duration_ms as i64 - 3000).abs() <= 150,
        "{}",
        info.duration_ms
    );

    let creates = fake.creates.lock().unwrap();
    assert_eq!(creates.len(), 1);
    let c = &creates[0];
    assert_eq!(text(c, "model"), "sora-2");
    assert_eq!(text(c, "seconds"), "4");
    assert_eq!(text(c, "size"), "1280x720");
    assert_eq!(
        text(c, "prompt"),
        "a lighthouse in a storm\n\nAvoid: blurry"
    );
    assert!(!c.contains_key("input_reference"));
    assert_eq!(
        fake.auth.lock().unwrap()[0].as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );

    // The API's progress (30, 60, 90), then transcoding, then 100.
    let seen = rec.seen();
    assert!(seen.windows(2).all(|p| p[0] <= p[1]), "{seen:?}");
    assert!(
        seen.iter().filter(|p| **p > 0 && **p < 100).count() >= 3,
        "{seen:?}"
    );
    assert_eq!(seen.last(), Some(&100));
    assert!(fake.deleted.lock().unwrap().is_empty());
}

#[tokio::test]
async fn image_to_video_sends_the_first_frame_at_the_videos_size() {
    let (url, fake) = start(Mode::Ok);
    let job = video_job(Action::ImageToVideo, 90, 160, 4, &[VideoImageRole::First]);
    let inputs = video_inputs(&job, 300, 200);
    let (result, _) = run(&engine(&url), &job, inputs).await;
    let info = &check_videos(&result.unwrap(), 1)[0];
    assert_eq!((info.width, info.height), (90, 160));
    let creates = fake.creates.lock().unwrap();
    assert_eq!(text(&creates[0], "size"), "720x1280");
    let (file, bytes) = &creates[0]["input_reference"];
    assert!(file.is_some());
    let img = image::load_from_memory(bytes).unwrap();
    assert_eq!((img.width(), img.height()), (720, 1280));
}

#[tokio::test]
async fn a_failed_video_fails_the_job_with_the_apis_reason() {
    let (url, _fake) = start(Mode::Fail);
    let (result, _) = run(
        &engine(&url),
        &video_job(Action::TextToVideo, 160, 90, 4, &[]),
        vec![],
    )
    .await;
    let err = result.unwrap_err();
    assert!(!err.retryable());
    assert!(
        matches!(err, EngineError::Failed(ref m) if m.contains("blocked by our moderation") && m.contains("moderation_blocked")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_401_carries_the_servers_message_without_the_key() {
    let (url, _fake) = start(Mode::Unauthorized);
    let (result, _) = run(
        &engine(&url),
        &video_job(Action::TextToVideo, 160, 90, 4, &[]),
        vec![],
    )
    .await;
    let err = result.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EngineError::Failed(_)), "{err:?}");
    assert!(
        msg.contains("401") && msg.contains("Incorrect API key provided"),
        "{msg}"
    );
    assert!(!msg.contains(KEY), "{msg}");
    assert!(msg.contains("<redacted>"), "{msg}");
}

#[tokio::test]
async fn malformed_json_fails_the_job() {
    let (url, _fake) = start(Mode::Malformed);
    let (result, _) = run(
        &engine(&url),
        &video_job(Action::TextToVideo, 160, 90, 4, &[]),
        vec![],
    )
    .await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::Failed(ref m) if m.contains("unreadable JSON")),
        "{err:?}"
    );
}

#[tokio::test]
async fn content_that_is_not_a_video_fails_the_job() {
    let (url, _fake) = start(Mode::NotVideo);
    let (result, _) = run(
        &engine(&url),
        &video_job(Action::TextToVideo, 160, 90, 4, &[]),
        vec![],
    )
    .await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::Failed(ref m) if m.contains("not a video")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_slow_server_times_out_as_unavailable_and_the_video_is_deleted() {
    let (url, fake) = start(Mode::Slow);
    let e = engine(&url).with_timeout(Duration::from_millis(400));
    let (result, _) = run(&e, &video_job(Action::TextToVideo, 160, 90, 4, &[]), vec![]).await;
    let err = result.unwrap_err();
    assert!(matches!(err, EngineError::Unavailable(_)), "{err:?}");
    assert!(err.retryable());
    assert_eq!(*fake.deleted.lock().unwrap(), vec!["video_1".to_string()]);
}

#[tokio::test]
async fn cancelling_stops_polling_and_deletes_the_video() {
    let (url, fake) = start(Mode::Slow);
    let e = engine(&url);
    let job = video_job(Action::TextToVideo, 160, 90, 4, &[]);
    let cancel = Cancel::new();
    let rec = Arc::new(Recorder::default());
    let running = {
        let (cancel, rec) = (cancel.clone(), rec.clone());
        async move { e.run(&job, vec![], rec, cancel).await }
    };
    let watcher = async {
        while *fake.polls.lock().unwrap() < 2 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        cancel.cancel();
    };
    let (result, ()) = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(running, watcher)
    })
    .await
    .unwrap();
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    // The API's 10 %, as its share of the bar (generation is 0..79).
    assert!(rec.seen().contains(&7), "{:?}", rec.seen());
    assert_eq!(*fake.deleted.lock().unwrap(), vec!["video_1".to_string()]);
    // Polling stopped: no more status requests come after the cancel.
    let polls = *fake.polls.lock().unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(*fake.polls.lock().unwrap(), polls);
}

#[tokio::test]
async fn the_router_sends_video_jobs_to_the_configured_video_api() {
    let (url, fake) = start(Mode::Ok);
    let configs: Vec<EngineConfig> = serde_json::from_value(json!([
        {"kind": "openai_video", "url": url, "api_key": KEY, "model": "sora-2-pro", "poll_ms": 20}
    ]))
    .unwrap();
    let router = Router::from_config(&configs).unwrap();
    let engine = router.pick(Action::TextToVideo, "kling").unwrap();
    assert_eq!(engine.info().name, "openai_video");
    assert_eq!(
        router
            .pick(Action::VideoUpscale, "kling")
            .unwrap()
            .info()
            .name,
        "reference"
    );
    let job = video_job(Action::TextToVideo, 96, 54, 4, &[]);
    let result = engine
        .run(&job, vec![], Arc::new(Recorder::default()), Cancel::new())
        .await
        .unwrap();
    check_videos(&result, 1);
    assert_eq!(
        text(&fake.creates.lock().unwrap()[0], "model"),
        "sora-2-pro"
    );
}
