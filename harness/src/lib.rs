//! `easel-harness SCENARIO --target URL`: the load harness. It drives a
//! server only through the reference client (`protocol::client`), on a
//! fixed timetable measured from intended send times, and reports one set
//! of figures as a human table and, with `--json`, one JSON object.
//!
//! Its own crate and binary (`src/main.rs`), which know nothing of the
//! server's code: the binary parses [`HarnessArgs`] and calls [`run`].

mod channel;
mod chat;
mod creates;
pub mod delivery;
pub mod feed;
pub mod mp4;
pub mod pacing;
pub mod procfs;
mod progress;
mod reader;
mod scenarios;
mod soak;
pub mod stats;
pub mod timetable;
pub mod tracker;
pub mod upload;
pub mod video;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

pub use stats::{Latencies, LatencySummary};

#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    #[error("client: {0}")]
    Client(#[from] protocol::client::ClientError),
    #[error("statistics: {0}")]
    Stats(String),
    #[error("setup: {0}")]
    Setup(String),
    #[error("the run passed its hard deadline of {0:?}")]
    Deadline(Duration),
}

/// The scenarios. A new one adds a variant here, its default rate in
/// [`HarnessArgs::rate`], its arm in [`run`], and its function in a module
/// of its own (as `channel.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scenario {
    /// N authenticated sessions held with heartbeats.
    Idle,
    /// Tasks created by a few users whose sockets count the progress frames.
    Progress,
    /// REST task creates at a fixed arrival rate.
    Create,
    /// K channels of M member sockets; messages posted over REST on a fixed
    /// timetable, delivery counted on every member socket.
    Channel,
    /// C chat sessions sending messages on a timetable to a server running
    /// the scripted model; tokens (frames 11) timed against their intended
    /// emission. Easel only.
    Chat,
    /// idle + progress + channel at once, with the server's memory sampled.
    Soak,
    /// Feed pages read on a timetable (--rate, default 1,000/s) while
    /// likes, comments and publishes go on (--write-rate, default 200/s),
    /// on a square filled beforehand (`easel seed-square`). Easel only.
    Feed,
    /// Reference-engine videos made `--in-flight` at a time (default 2)
    /// for the window, at `--video-width` x `--video-height` (default
    /// 1280x720 on `kl_v1.6`): seconds of video per server CPU second
    /// (ffmpeg children included), task wall time. Easel only.
    Video,
    /// One `--upload-bytes` file (default 1 GiB) through the chunked
    /// upload: MB/s end to end and the server's RSS before, at its peak
    /// and after. Easel only.
    Upload,
}

/// What the target speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Easel itself: accounts signed up over REST, channels created and
    /// joined over REST, tasks created with `/api/v1/task/create`.
    #[default]
    Easel,
    /// A benchmark baseline (bench/README.md): any non-empty token is
    /// accepted, a socket joins a channel with frame 16, and `POST /prompt`
    /// `{client_id, updates, rate}` pushes progress frames to the sockets
    /// that authenticated with that token. No sign-up.
    Bare,
}

#[derive(Debug, Clone, clap::Args)]
pub struct HarnessArgs {
    pub scenario: Scenario,
    /// The server, like http://127.0.0.1:8080.
    #[arg(long)]
    pub target: String,
    /// What the target speaks: Easel, or a bare benchmark baseline.
    #[arg(long, value_enum, default_value_t = Protocol::Easel)]
    pub protocol: Protocol,
    /// Sockets held open (idle).
    #[arg(long, default_value_t = 100)]
    pub sessions: u64,
    /// How long the load runs.
    #[arg(long, default_value_t = 10.0)]
    pub duration_secs: f64,
    /// Heartbeats per second per session (idle, default 1), creates per
    /// second (create, default 50; progress, default 10), messages per
    /// second (channel, default 100; soak's channel part, default 20),
    /// chat/starts per second over all sessions (chat, default chats / 5),
    /// page reads per second (feed, default 1000).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Signed-up users that create tasks (create, progress).
    #[arg(long, default_value_t = 4)]
    pub users: u64,
    /// Tasks created at most (progress): the sender stops at
    /// `--duration-secs` even if fewer went out, then the run drains until
    /// every accepted task has ended (bounded; see `progress.rs`).
    #[arg(long, default_value_t = 20)]
    pub tasks: u64,
    /// Progress frames per task (progress against a baseline; Easel's
    /// count follows the task's steps).
    #[arg(long, default_value_t = 20)]
    pub updates: u64,
    /// Progress frames per second per task (progress against a baseline).
    #[arg(long, default_value_t = 10.0)]
    pub update_rate: f64,
    /// Extra sockets per progress user, of the same account: each must
    /// receive every frame of that user's tasks (progress).
    #[arg(long, default_value_t = 0)]
    pub watchers: u64,
    /// The server runs the pacer engine with this step
    /// (`EASEL_PACER_STEP_MS`): progress then also reports each frame's
    /// fan-out delay against the pacer's schedule (progress against Easel).
    #[arg(long)]
    pub pacer_step_ms: Option<u64>,
    /// The pacer's steps per job (`EASEL_PACER_STEPS`).
    #[arg(long, default_value_t = engines::pacer::DEFAULT_STEPS)]
    pub pacer_steps: u32,
    /// Chat sessions (chat).
    #[arg(long, default_value_t = 20)]
    pub chats: u64,
    /// Words per chat message; the scripted reply has this many + 2 tokens (chat).
    #[arg(long, default_value_t = 30)]
    pub reply_words: u64,
    /// The server's scripted-model interval, `EASEL_LLM_SCRIPTED_INTERVAL_MS` (chat).
    #[arg(long, default_value_t = 20)]
    pub token_interval_ms: u64,
    /// Tasks created per second by the soak's progress part (soak).
    #[arg(long, default_value_t = 1.0)]
    pub task_rate: f64,
    /// Seconds between the server's memory samples (soak; default 5, or a
    /// tenth of a shorter run so growth always has samples to compare).
    #[arg(long)]
    pub sample_secs: Option<f64>,
    /// Samples before this are not used for memory growth (soak; default
    /// a fifth of the run, 2 to 60 s).
    #[arg(long)]
    pub warmup_secs: Option<f64>,
    /// Member sockets per channel (channel).
    #[arg(long, default_value_t = 100)]
    pub members: u64,
    /// Channels, each with its own members; messages rotate over them (channel).
    #[arg(long, default_value_t = 1)]
    pub channels: u64,
    /// Accounts posting the messages (channel; default: enough that none
    /// exceeds 8 messages/s per channel, under Easel's per-sender limit).
    #[arg(long)]
    pub senders: Option<u64>,
    /// Accounts behind each channel's member sockets (channel against
    /// Easel; default one per member, as in a real channel).
    #[arg(long)]
    pub member_accounts: Option<u64>,
    /// Writes per second: likes (or their undo), comments and publishes (feed).
    #[arg(long, default_value_t = 200.0)]
    pub write_rate: f64,
    /// The writes' mix as weights likes,comments,publishes (feed).
    #[arg(long, default_value_t = feed::WriteMix::default())]
    pub write_mix: feed::WriteMix,
    /// Accounts signed up for the run; reads and writes are spread over
    /// them, and so are the publish tasks (feed).
    #[arg(long, default_value_t = 100)]
    pub accounts: u64,
    /// Authors each account follows in set-up, so its "follows" feed has
    /// pages (feed).
    #[arg(long, default_value_t = 10)]
    pub follows: u64,
    /// Percentage of reads that read the next page of a page read before,
    /// from its next_cursor (feed).
    #[arg(long, default_value_t = 25.0)]
    pub next_page_pct: f64,
    /// The deepest page followed (feed; 1 = first pages only).
    #[arg(long, default_value_t = 5)]
    pub max_pages: u32,
    /// Cards per page asked for (feed).
    #[arg(long, default_value_t = 20)]
    pub page_size: u32,
    /// Finished tasks made in set-up for the publishes (feed; default: the
    /// mix's share of the window's writes plus a tenth).
    #[arg(long)]
    pub publish_tasks: Option<u64>,
    /// The feed calls read, in rotation (feed).
    #[arg(long, value_delimiter = ',', default_values_t = feed::DEFAULT_FEED_PATHS.map(String::from))]
    pub feed_paths: Vec<String>,
    /// The orders read, in rotation: recommend, follows, hot, new (feed).
    #[arg(long, value_delimiter = ',', default_values_t = feed::plan_orders())]
    pub orders: Vec<String>,
    /// Tasks running at once, each lane making one video after another (video).
    #[arg(long, default_value_t = 2)]
    pub in_flight: u64,
    /// The video model (`model_no`, protocol/src/video/models.rs) (video).
    #[arg(long, default_value = "kl_v1.6")]
    pub video_model: String,
    /// The create call (video): text-to-video, or another that takes the
    /// same body.
    #[arg(long, default_value = "/api/v1/task/v2/video/text-to-video")]
    pub video_path: String,
    /// Video width and height asked for; the model must offer the size (video).
    #[arg(long, default_value_t = 1280)]
    pub video_width: u32,
    #[arg(long, default_value_t = 720)]
    pub video_height: u32,
    /// Seconds of each video asked for (video).
    #[arg(long, default_value_t = 5)]
    pub video_secs: u32,
    /// Size of the uploaded file (upload; default 1 GiB).
    #[arg(long, default_value_t = 1 << 30)]
    pub upload_bytes: u64,
    /// The uploaded file's type (upload): a plain file, so the server does
    /// not ffprobe or decode generated bytes as it does a video or audio
    /// (category 59 is decoded and limited to 50 MiB).
    #[arg(long, default_value = "application/octet-stream")]
    pub upload_content_type: String,
    /// The upload category (upload; spec 2 §7: 8 video, 59 audio; 0 other).
    #[arg(long, default_value_t = 0)]
    pub upload_category: i64,
    /// The uploaded file's name (upload).
    #[arg(long, default_value = "bench-upload.bin")]
    pub upload_file_name: String,
    /// The server's pid, for its memory (found from the port when local).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Further server-side processes whose CPU counts with the server's
    /// (repeat it): a multi-node run's other node, store server, Redis and
    /// proxy, when `--target` is the proxy.
    #[arg(long)]
    pub also_pid: Vec<u32>,
    /// Print one JSON object of figures on stdout.
    #[arg(long)]
    pub json: bool,
}

impl HarnessArgs {
    fn rate(&self) -> f64 {
        self.rate.unwrap_or(match self.scenario {
            Scenario::Idle => 1.0,
            Scenario::Create => 50.0,
            Scenario::Progress => 10.0,
            Scenario::Channel => 100.0,
            // chat/starts per second over all sessions: one per 5 s per chat.
            Scenario::Chat => self.chats.max(1) as f64 / 5.0,
            // The channel part's messages per second.
            Scenario::Soak => 20.0,
            // Page reads per second.
            Scenario::Feed => 1000.0,
            // Closed loops, no timetable: tasks in flight; one file.
            Scenario::Video => self.in_flight as f64,
            Scenario::Upload => 0.0,
        })
    }
}

/// The figures of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub scenario: Scenario,
    pub target: String,
    pub sessions: u64,
    pub duration_secs: f64,
    pub rate: f64,
    pub elapsed_secs: f64,
    pub counts: BTreeMap<String, u64>,
    /// The scenario's main latency: heartbeat ack (idle), create answer
    /// (create), create to final frame (progress), send to receipt on each
    /// member socket (channel); all from intended times.
    pub latency_ms: LatencySummary,
    /// Scenario-specific figures, flattened into the object.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl Report {
    /// The human table.
    pub fn table(&self) -> String {
        let mut out = format!(
            "easel-harness {:?} -> {} ({} s, rate {}, {:.2} s elapsed)\n",
            self.scenario, self.target, self.duration_secs, self.rate, self.elapsed_secs
        );
        for (k, v) in &self.counts {
            out.push_str(&format!("  {k:<24} {v:>12}\n"));
        }
        let l = &self.latency_ms;
        out.push_str(&format!(
            "  {:<24} p50 {:.3}  p90 {:.3}  p99 {:.3}  max {:.3}  (n={})\n",
            "latency ms", l.p50, l.p90, l.p99, l.max, l.count
        ));
        for (k, v) in &self.extra {
            out.push_str(&format!("  {k:<24} {v}\n"));
        }
        out
    }
}

/// Runs one scenario under a hard deadline (the load window plus time to
/// set up and drain).
pub async fn run(args: &HarnessArgs) -> Result<Report, HarnessError> {
    if !(args.duration_secs.is_finite() && args.duration_secs > 0.0) {
        return Err(HarnessError::Setup(
            "--duration-secs must be positive".into(),
        ));
    }
    let mut hard = Duration::from_secs_f64(args.duration_secs) * 2 + Duration::from_secs(120);
    if args.scenario == Scenario::Feed {
        // Set-up waits for the publish tasks to finish.
        hard += feed::TASK_WAIT;
    }
    if matches!(args.scenario, Scenario::Video | Scenario::Upload) {
        // The last videos end after the window; a large file takes its time.
        hard += video::TASK_WAIT;
    }
    let fut = async {
        match args.scenario {
            Scenario::Idle => scenarios::idle(args, args.rate()).await,
            Scenario::Create => scenarios::create(args, args.rate()).await,
            Scenario::Progress => progress::progress(args, args.rate()).await,
            Scenario::Channel => channel::channel(args, args.rate()).await,
            Scenario::Chat => chat::chat(args, args.rate()).await,
            Scenario::Soak => soak::soak(args, args.rate()).await,
            Scenario::Feed => feed::feed(args, args.rate()).await,
            Scenario::Video => video::video(args).await,
            Scenario::Upload => upload::upload(args).await,
        }
    };
    tokio::time::timeout(hard, fut)
        .await
        .map_err(|_| HarnessError::Deadline(hard))?
}
