//! Costs, discounts and estimates of prepared jobs; actions of paths; the
//! job's serde.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::{json, Value};

use super::*;
use crate::task::rules::Role;
use crate::video::codes::VideoAction::*;
use crate::video::prepare::*;

#[test]
fn costs_and_discounts() {
    // (body, action, caller, calculate_coins, before, rate, has_discount)
    let t2v = |model: &str, extra: Value| {
        let mut v = json!({"model_no": model, "meta": {"prompt": "a"}});
        if let (Some(m), Value::Object(x)) = (v["meta"].as_object_mut(), extra) {
            m.extend(x);
        }
        v
    };
    let cases = [
        (
            t2v(
                "kl_v1.6",
                json!({"generate_video": {"generate_video_duration": 5}}),
            ),
            TextToVideo,
            caller(Role::Free, 0, false, 20),
            16,
            20,
            20,
            true,
        ),
        (
            t2v("kl_v1.6", json!({})),
            TextToVideo,
            caller(Role::Free, 0, false, 0),
            40,
            40,
            0,
            false,
        ),
        (
            t2v("kl_v1.6", json!({"n_iter": 2})),
            TextToVideo,
            caller(Role::Free, 0, false, 150),
            0,
            80,
            100,
            true,
        ),
        (
            t2v(
                "pixVerse",
                json!({"n_iter": 2, "generate_video": {"generate_video_duration": 8, "quality_mode": "1080p"}}),
            ),
            TextToVideo,
            vip(),
            192,
            192,
            0,
            false,
        ),
        (
            t2v(
                "pixVerse",
                json!({"generate_video": {"quality_mode": "540p"}}),
            ),
            TextToVideo,
            caller(Role::Paid, 1, false, 10),
            21,
            23,
            10,
            true,
        ),
        (
            t2v("kl_v1.0", json!({})),
            TextToVideo,
            free(),
            20,
            20,
            0,
            false,
        ),
        (
            t2v("miniMax", json!({})),
            TextToVideo,
            free(),
            36,
            36,
            0,
            false,
        ),
        (
            json!({"template_id": "ken_burns_trio", "meta": {"generate_video": {"image_opts": opts(&[("image", A), ("image", B), ("image", C)])}}}),
            Effect,
            caller(Role::Free, 0, false, 30),
            20,
            20,
            0,
            false,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"width": 2560, "height": 1440, "generate_video": {"duration": 5.5}}}),
            Upscale,
            free(),
            48,
            48,
            0,
            false,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"generate_video": {"generate_video_duration": 10}}}),
            Extend,
            free(),
            20,
            20,
            0,
            false,
        ),
        (
            json!({"parent_task_id": "t1", "model_no": "kl_v1.6", "meta": {"generate_video": {"generate_video_duration": 5}}}),
            Extend,
            caller(Role::Free, 0, false, 50),
            5,
            10,
            50,
            true,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"generate_video": {"duration": 4}}}),
            FrameInterpolation,
            free(),
            4,
            4,
            0,
            false,
        ),
    ];
    for (i, (body, action, who, coins, before, rate, has)) in cases.into_iter().enumerate() {
        let p = ok(body.clone(), action, who);
        let e = &p.estimate;
        assert_eq!(
            (
                e.calculate_coins,
                e.calculate_coins_before_discount,
                e.discount_off_rate,
                e.has_discount
            ),
            (coins, before, rate, has),
            "case {i} {body}"
        );
        assert_eq!(p.cost, coins);
        assert!(p.estimate_secs > 0 && e.estimate_time == p.estimate_secs);
    }
    let v = serde_json::to_value(
        ok(
            t2v("kl_v1.6", json!({})),
            TextToVideo,
            caller(Role::Free, 0, false, 20),
        )
        .estimate,
    )
    .unwrap();
    for key in [
        "calculate_coins",
        "discount_off_rate",
        "calculate_coins_before_discount",
        "has_discount",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    // Longer and larger jobs are expected to take longer.
    let short = ok(
        t2v(
            "kl_v1.6",
            json!({"generate_video": {"generate_video_duration": 5}}),
        ),
        TextToVideo,
        free(),
    )
    .estimate_secs;
    let long = ok(
        t2v(
            "kl_v1.6",
            json!({"generate_video": {"generate_video_duration": 10}}),
        ),
        TextToVideo,
        free(),
    )
    .estimate_secs;
    assert!(long > short);
}

#[test]
fn actions_of_paths() {
    let fx = req(json!({"template_id": "shimmer"}));
    let live = req(i2v("miniMax", &[("live2d", A)]));
    let plain = req(i2v("kl_v1.6", &[("image", A)]));
    let cases = [
        ("text-to-video", &plain, Some(TextToVideo)),
        ("img-to-video", &plain, Some(ImageToVideo)),
        ("img-to-video", &fx, Some(Effect)),
        ("img-to-video", &live, Some(Live2d)),
        ("multi-img-to-video", &plain, Some(MultiImageToVideo)),
        ("upscale", &plain, Some(Upscale)),
        ("extend", &plain, Some(Extend)),
        ("frame-interpolation", &plain, Some(FrameInterpolation)),
        ("histories", &plain, None),
    ];
    for (path, r, want) in cases {
        assert_eq!(video_action_of(path, r), want, "{path}");
        if let Some(a) = want {
            assert_eq!(a.path(), path);
        }
    }
}

#[test]
fn job_round_trips() {
    let p = ok(
        i2v("kl_v1.6", &[("first_frame", A), ("last_frame", B)]),
        ImageToVideo,
        vip(),
    );
    let v = serde_json::to_value(&p.job).unwrap();
    assert_eq!(v["action"], json!(43));
    assert_eq!(v["images"][1]["role"], json!("last"));
    assert_eq!(serde_json::from_value::<VideoJob>(v).unwrap(), p.job);
}
