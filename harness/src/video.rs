//! The `video` scenario: one user makes reference-engine videos against a
//! running `easel serve`, `--in-flight` tasks at a time (default 2), for
//! `--duration-secs`; each lane creates a task (`--video-path`, default
//! text-to-video, on `--video-model` at `--video-width` x `--video-height`
//! for `--video-secs`), polls `batch-progress` until it ends, downloads
//! every MP4 of `video_uris` and reads its duration and size from the
//! header ([`crate::mp4`]). Lanes start no task after the window and
//! finish the one they run, so the measured span runs from the first
//! create to the last task's end. The server's CPU over that span counts
//! its own threads and the children it waited for (the engine's ffmpeg
//! encoders): the figure is seconds of video made per CPU second.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use protocol::client::RestClient;
use protocol::video::models::video_model;
use serde_json::{json, Value};

use crate::mp4::{self, Mp4Info};
use crate::procfs;
use crate::scenarios::{counts, Target, ANSWER_TIMEOUT};
use crate::stats::Latencies;
use crate::{HarnessArgs, HarnessError, Protocol, Report};

/// The longest a video task may take before it counts as timed out (and
/// the bound on the drain after the window).
pub const TASK_WAIT: Duration = Duration::from_secs(600);
/// How often a running task is polled.
const POLL: Duration = Duration::from_millis(250);
/// The prompt of every task.
const PROMPT: &str = "a lighthouse on a cliff at dusk, waves breaking, gulls, slow camera push";

/// How one task ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskEnd {
    /// Succeeded: create to final status, and each output's header (`None`
    /// for an MP4 that could not be read or downloaded).
    Made {
        wall: Duration,
        videos: Vec<Option<Mp4Info>>,
    },
    /// Ended without success, with the reason.
    Failed(String),
    /// The create was refused or failed.
    Refused(String),
    /// Not ended within [`TASK_WAIT`], or polling failed.
    TimedOut(String),
}

/// The tally of a run's tasks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VideoTally {
    pub created: u64,
    pub succeeded: u64,
    pub failed: u64,
    pub refused: u64,
    pub timed_out: u64,
    /// MP4s downloaded and read.
    pub videos: u64,
    /// MP4s that could not be downloaded or read.
    pub unreadable: u64,
    /// Readable MP4s not at the requested size.
    pub wrong_size: u64,
    /// Seconds of video in the readable MP4s.
    pub video_secs: f64,
    /// Seconds of video at the requested size.
    pub video_secs_at_size: f64,
    pub first_error: Option<String>,
}

impl VideoTally {
    /// Adds one task's end; `size` is the requested width and height.
    pub fn add(&mut self, end: &TaskEnd, size: (u32, u32)) {
        if !matches!(end, TaskEnd::Refused(_)) {
            self.created += 1;
        }
        let err = match end {
            TaskEnd::Made { videos, .. } => {
                self.succeeded += 1;
                for v in videos {
                    match v {
                        None => self.unreadable += 1,
                        Some(i) => {
                            self.videos += 1;
                            self.video_secs += i.duration_secs;
                            if (i.width, i.height) == size {
                                self.video_secs_at_size += i.duration_secs;
                            } else {
                                self.wrong_size += 1;
                            }
                        }
                    }
                }
                None
            }
            TaskEnd::Failed(r) => {
                self.failed += 1;
                Some(format!("failed: {r}"))
            }
            TaskEnd::Refused(r) => {
                self.refused += 1;
                Some(format!("refused: {r}"))
            }
            TaskEnd::TimedOut(r) => {
                self.timed_out += 1;
                Some(format!("timed out: {r}"))
            }
        };
        if self.first_error.is_none() {
            self.first_error = err;
        }
    }
}

/// Seconds of video per CPU second (`None` without a CPU figure).
pub fn per_cpu_sec(video_secs: f64, cpu_secs: Option<f64>) -> Option<f64> {
    cpu_secs.filter(|c| *c > 0.0).map(|c| video_secs / c)
}

/// The create body (DESIGN.md Contracts, Video): spec 2 §7's payload.
pub fn create_body(model: &str, width: u32, height: u32, secs: u32, prompt: &str) -> Value {
    let g = gcd(width, height).max(1);
    json!({"model_no": model, "model_ver_no": model,
           "meta": {"prompt": prompt, "width": width, "height": height,
                    "aspect_ratio": format!("{}:{}", width / g, height / g), "n_iter": 1,
                    "generate_video": {"generate_video_duration": secs}}})
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Creates one task, waits for it and reads its videos.
async fn one_task(user: &RestClient, path: &str, body: &Value) -> TaskEnd {
    let start = Instant::now();
    let id = match tokio::time::timeout(ANSWER_TIMEOUT, user.create_task(path, body)).await {
        Err(_) => return TaskEnd::Refused("no answer to the create".into()),
        Ok(Err(e)) => return TaskEnd::Refused(e.to_string()),
        Ok(Ok(id)) => id,
    };
    let task = loop {
        if start.elapsed() > TASK_WAIT {
            return TaskEnd::TimedOut(format!("task {id} not ended in {TASK_WAIT:?}"));
        }
        tokio::time::sleep(POLL).await;
        let answer = tokio::time::timeout(
            ANSWER_TIMEOUT,
            user.post::<_, Value>("/api/v1/task/batch-progress", &json!({ "task_ids": [id] })),
        )
        .await;
        let items = match answer {
            Err(_) => continue,
            Ok(Err(e)) => return TaskEnd::TimedOut(format!("polling {id}: {e}")),
            Ok(Ok(v)) => v,
        };
        let Some(t) = items
            .get("items")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .cloned()
        else {
            continue;
        };
        match t.get("status").and_then(Value::as_u64) {
            Some(3) | Some(4) => break t,
            _ => continue,
        }
    };
    let wall = start.elapsed();
    if task.get("status").and_then(Value::as_u64) != Some(3) {
        let why = task
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("no reason given");
        return TaskEnd::Failed(why.to_owned());
    }
    let mut videos = Vec::new();
    for uri in task
        .get("video_uris")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(uri) = uri.as_str() else {
            videos.push(None);
            continue;
        };
        let got = tokio::time::timeout(ANSWER_TIMEOUT * 3, user.get_bytes(uri)).await;
        videos.push(match got {
            Ok(Ok((200, _, bytes))) => mp4::parse(&bytes),
            _ => None,
        });
    }
    if videos.is_empty() {
        return TaskEnd::Failed("succeeded without video_uris".into());
    }
    TaskEnd::Made { wall, videos }
}

pub(crate) async fn video(args: &HarnessArgs) -> Result<Report, HarnessError> {
    if args.protocol != Protocol::Easel {
        return Err(HarnessError::Setup("video runs against Easel only".into()));
    }
    let model = video_model(&args.video_model)
        .ok_or_else(|| HarnessError::Setup(format!("no video model {}", args.video_model)))?;
    let size = (args.video_width, args.video_height);
    if !model.sizes.iter().any(|s| (s.width, s.height) == size) {
        return Err(HarnessError::Setup(format!(
            "{} offers no {}x{}",
            model.id, size.0, size.1
        )));
    }
    let target = Target::parse(&args.target, args.protocol)?;
    let pid = target.server_pid(args.server_pid);
    let user = target.sign_up("video").await?;
    let body = create_body(model.id, size.0, size.1, args.video_secs, PROMPT);
    let path = args.video_path.clone();
    let lanes = args.in_flight.max(1);
    let ends: Arc<Mutex<Vec<TaskEnd>>> = Arc::default();
    let walls = Arc::new(Mutex::new(Latencies::new()?));

    let cpu0 = pid.and_then(procfs::cpu_seconds_split);
    let start = Instant::now();
    let until = start + Duration::from_secs_f64(args.duration_secs);
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..lanes {
        let (user, body, path) = (user.clone(), body.clone(), path.clone());
        let (ends, walls) = (ends.clone(), walls.clone());
        set.spawn(async move {
            while Instant::now() < until {
                let end = one_task(&user, &path, &body).await;
                if let TaskEnd::Made { wall, .. } = &end {
                    if let Ok(mut w) = walls.lock() {
                        w.record(*wall);
                    }
                }
                let refused = matches!(end, TaskEnd::Refused(_));
                if let Ok(mut e) = ends.lock() {
                    e.push(end);
                }
                if refused {
                    // Not a busy loop of refusals: the next try a second later.
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        });
    }
    while set.join_next().await.is_some() {}
    let elapsed = start.elapsed();
    let cpu1 = pid.and_then(procfs::cpu_seconds_split);

    let ends = ends
        .lock()
        .map_err(|e| HarnessError::Stats(e.to_string()))?
        .clone();
    let mut tally = VideoTally::default();
    for e in &ends {
        tally.add(e, size);
    }
    let (own, children) = match (cpu0, cpu1) {
        (Some((o0, c0)), Some((o1, c1))) => (Some((o1 - o0).max(0.0)), Some((c1 - c0).max(0.0))),
        _ => (None, None),
    };
    let cpu = own.zip(children).map(|(o, c)| o + c);
    let latency = walls
        .lock()
        .map_err(|e| HarnessError::Stats(e.to_string()))?
        .summary();
    let mut extra = serde_json::Map::new();
    for (k, v) in [
        ("model", json!(model.id)),
        ("path", json!(path)),
        ("width", json!(size.0)),
        ("height", json!(size.1)),
        ("requested_video_secs", json!(args.video_secs)),
        ("fps", json!(model.fps)),
        ("in_flight", json!(lanes)),
        ("window_secs", json!(elapsed.as_secs_f64())),
        ("video_secs", json!(tally.video_secs)),
        ("video_secs_at_size", json!(tally.video_secs_at_size)),
        ("server_cpu_secs", json!(cpu)),
        ("server_cpu_own_secs", json!(own)),
        ("server_cpu_children_secs", json!(children)),
        (
            "video_secs_per_cpu_sec",
            json!(per_cpu_sec(tally.video_secs_at_size, cpu)),
        ),
        ("task_wall_ms", json!(latency)),
        ("server_pid", json!(pid)),
        ("first_error", json!(tally.first_error)),
    ] {
        extra.insert(k.to_owned(), v);
    }
    Ok(Report {
        scenario: args.scenario,
        target: args.target.clone(),
        sessions: 1,
        duration_secs: args.duration_secs,
        rate: lanes as f64,
        elapsed_secs: elapsed.as_secs_f64(),
        counts: counts(&[
            ("created", tally.created),
            ("succeeded", tally.succeeded),
            ("failed", tally.failed),
            ("refused", tally.refused),
            ("timed_out", tally.timed_out),
            ("videos", tally.videos),
            ("unreadable_videos", tally.unreadable),
            ("wrong_size", tally.wrong_size),
        ]),
        latency_ms: latency,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(secs: &[(f64, u32, u32)]) -> TaskEnd {
        TaskEnd::Made {
            wall: Duration::from_secs(3),
            videos: secs
                .iter()
                .map(|&(d, w, h)| {
                    Some(Mp4Info {
                        duration_secs: d,
                        width: w,
                        height: h,
                    })
                })
                .collect(),
        }
    }

    #[test]
    fn the_tally_counts_seconds_at_the_requested_size_only() {
        let mut t = VideoTally::default();
        t.add(&TaskEnd::Refused("429 rate limited".into()), (1280, 720));
        t.add(&made(&[(5.0, 1280, 720)]), (1280, 720));
        t.add(&made(&[(5.0, 640, 360), (4.9, 1280, 720)]), (1280, 720));
        t.add(
            &TaskEnd::Made {
                wall: Duration::from_secs(1),
                videos: vec![None],
            },
            (1280, 720),
        );
        t.add(&TaskEnd::Failed("engine".into()), (1280, 720));
        t.add(&TaskEnd::TimedOut("slow".into()), (1280, 720));
        assert_eq!(
            (t.created, t.succeeded, t.failed, t.refused, t.timed_out),
            (5, 3, 1, 1, 1)
        );
        assert_eq!((t.videos, t.unreadable, t.wrong_size), (3, 1, 1));
        assert!((t.video_secs - 14.9).abs() < 1e-9);
        assert!((t.video_secs_at_size - 9.9).abs() < 1e-9);
        assert_eq!(t.first_error.as_deref(), Some("refused: 429 rate limited"));
    }

    #[test]
    fn seconds_per_cpu_second_needs_a_cpu_figure() {
        assert_eq!(per_cpu_sec(10.0, Some(4.0)), Some(2.5));
        assert_eq!(per_cpu_sec(10.0, Some(0.0)), None);
        assert_eq!(per_cpu_sec(10.0, None), None);
    }

    #[test]
    fn the_body_is_spec_2s_payload_with_the_aspect_ratio() {
        let b = create_body("kl_v1.6", 1280, 720, 5, "p");
        assert_eq!(b["model_no"], "kl_v1.6");
        assert_eq!(b["model_ver_no"], "kl_v1.6");
        assert_eq!(b["meta"]["aspect_ratio"], "16:9");
        assert_eq!(
            (b["meta"]["width"].as_u64(), b["meta"]["height"].as_u64()),
            (Some(1280), Some(720))
        );
        assert_eq!(b["meta"]["generate_video"]["generate_video_duration"], 5);
        assert_eq!(
            create_body("m", 960, 960, 5, "p")["meta"]["aspect_ratio"],
            "1:1"
        );
    }
}
