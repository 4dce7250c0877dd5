//! Table tests of the video rules (spec 2 §3-§6, §9) and their helpers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod catalogue;
mod editor;
mod prepare_costs;
mod prepare_errors;
mod prepare_jobs;
mod rules;

use serde_json::{json, Value};

use super::codes::VideoAction;
use super::models::{video_model, VideoModel};
use super::prepare::{prepare_video, PreparedVideo, VideoCaller};
use super::request::VideoCreateRequest;
use crate::task::rules::Role;

fn m(id: &str) -> &'static VideoModel {
    video_model(id).unwrap()
}

const A: &str = "https://cdn.example.com/a.png";
const B: &str = "https://cdn.example.com/b.png";
const C: &str = "/files/u/c.png";

fn req(v: Value) -> VideoCreateRequest {
    serde_json::from_value(v).unwrap()
}

fn caller(role: Role, level: u8, queue: bool, rate: u8) -> VideoCaller {
    VideoCaller {
        role,
        product_level: level,
        infinite_queue: queue,
        discount_off_rate: rate,
    }
}

fn free() -> VideoCaller {
    caller(Role::Free, 0, false, 0)
}

fn vip() -> VideoCaller {
    caller(Role::Paid, 3, true, 0)
}

fn opts(list: &[(&str, &str)]) -> Value {
    Value::Array(
        list.iter()
            .map(|(m, u)| json!({"mode": m, "url": u}))
            .collect(),
    )
}

fn i2v(model: &str, images: &[(&str, &str)]) -> Value {
    json!({"model_no": model, "meta": {"generate_video": {"image_opts": opts(images)}}})
}

/// (body, action, caller, (width, height, ratio), duration, fps, n_iter)
type JobCase = (
    Value,
    VideoAction,
    VideoCaller,
    (u32, u32, &'static str),
    u32,
    u32,
    u32,
);

fn ok(body: Value, action: VideoAction, who: VideoCaller) -> PreparedVideo {
    prepare_video(&req(body.clone()), action, &who).unwrap_or_else(|e| panic!("{e} {body}"))
}
