//! prepare_video's errors and the order they come in.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::{json, Value};

use super::*;
use crate::error::ErrorCode;
use crate::task::rules::Role;
use crate::video::codes::VideoAction::{self, *};
use crate::video::prepare::*;

#[test]
fn errors_and_their_order() {
    let long = "x".repeat(2501);
    let cases: Vec<(Value, VideoAction, VideoCaller, ErrorCode)> = vec![
        // 1. visitors
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a"}}),
            TextToVideo,
            caller(Role::Visitor, 0, false, 0),
            ErrorCode::NeedLogin,
        ),
        (
            json!({"template_id": "shimmer"}),
            Effect,
            caller(Role::Visitor, 0, false, 0),
            ErrorCode::NeedLogin,
        ),
        // 2. effect
        (json!({}), Effect, free(), ErrorCode::PleaseSelectEffect),
        (
            json!({"template_id": " "}),
            Effect,
            free(),
            ErrorCode::PleaseSelectEffect,
        ),
        (
            json!({"template_id": "nope"}),
            Effect,
            free(),
            ErrorCode::PleaseSelectEffect,
        ),
        (
            json!({"template_id": "shimmer"}),
            Effect,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            json!({"template_id": "ken_burns_duo", "meta": {"generate_video": {"image_opts": opts(&[("image", A)])}}}),
            Effect,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            json!({"template_id": "ken_burns_duo", "meta": {"generate_video": {"image_opts": opts(&[("image", A), ("image", "")])}}}),
            Effect,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            json!({"template_id": "ken_burns_duo", "meta": {"generate_video": {"image_opts": opts(&[("image", A), ("image", "data:x")])}}}),
            Effect,
            free(),
            ErrorCode::UploadError,
        ),
        // 3. model
        (
            json!({"meta": {"prompt": "a"}}),
            TextToVideo,
            free(),
            ErrorCode::PleaseSelectBaseName,
        ),
        (
            json!({"model_no": "sora", "meta": {"prompt": "a"}}),
            TextToVideo,
            free(),
            ErrorCode::PleaseSelectBaseName,
        ),
        (
            json!({"model_no": ""}),
            TextToVideo,
            free(),
            ErrorCode::PleaseSelectBaseName,
        ),
        (
            json!({"model_no": "easelStream", "meta": {"prompt": "a"}}),
            TextToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v("kl_v1.6", &[("live2d", A)]),
            Live2d,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v("pixVerse", &[("image", A)]),
            MultiImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v("sora", &[("image", A)]),
            MultiImageToVideo,
            free(),
            ErrorCode::PleaseSelectBaseName,
        ),
        (
            json!({"model_no": "sora", "meta": {"generate_video": {"video_url": A, "duration": 5}}}),
            Extend,
            free(),
            ErrorCode::PleaseSelectBaseName,
        ),
        // 4. images
        (
            i2v("kl_v1.6", &[]),
            ImageToVideo,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            i2v("kl_v1.6", &[("first_frame", "")]),
            ImageToVideo,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            i2v("kl_v1.6", &[("last_frame", B)]),
            ImageToVideo,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            i2v("miniMax", &[]),
            Live2d,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            i2v("kl_v2.0", &[("first_frame", A), ("last_frame", B)]),
            ImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v("miniMax", &[("first_frame", A), ("last_frame", B)]),
            ImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v("kl_v1.6", &[("first_frame", A), ("image", B)]),
            ImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v(
                "kl_v1.6",
                &[("first_frame", A), ("last_frame", B), ("last_frame", C)],
            ),
            ImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v("kl_v1.6", &[("depth", A)]),
            ImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            i2v("kl_v1.6", &[("image", "file:///etc/passwd")]),
            ImageToVideo,
            free(),
            ErrorCode::UploadError,
        ),
        (
            i2v("kl_v1.6", &[("image", A), ("last_frame", "/files/../x")]),
            ImageToVideo,
            free(),
            ErrorCode::UploadError,
        ),
        (
            i2v("kl_v1.6", &[]),
            MultiImageToVideo,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            i2v("kl_v1.6", &[("image", ""), ("image", " ")]),
            MultiImageToVideo,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            i2v(
                "kl_v1.6",
                &[
                    ("image", A),
                    ("image", A),
                    ("image", A),
                    ("image", A),
                    ("image", B),
                ],
            ),
            MultiImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        // 5. prompts
        (
            json!({"model_no": "kl_v1.6"}),
            TextToVideo,
            free(),
            ErrorCode::PromptNotEmpty,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "  "}}),
            TextToVideo,
            free(),
            ErrorCode::PromptNotEmpty,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": long}}),
            TextToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": long, "generate_video": {"image_opts": opts(&[("image", A)])}}}),
            ImageToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "negative_prompt": long}}),
            TextToVideo,
            free(),
            ErrorCode::InvalidParams,
        ),
        // 6. quality
        (
            json!({"model_no": "pixVerse", "meta": {"prompt": "a", "generate_video": {"quality_mode": "720p"}}}),
            TextToVideo,
            free(),
            ErrorCode::VideoQualityMemberOnly,
        ),
        (
            json!({"model_no": "pixVerse", "meta": {"prompt": "a", "generate_video": {"quality_mode": "540p"}}}),
            TextToVideo,
            caller(Role::Free, 5, true, 0),
            ErrorCode::VideoQualityMemberOnly,
        ),
        (
            json!({"model_no": "pixVerse", "meta": {"prompt": "a", "generate_video": {"quality_mode": "8k"}}}),
            TextToVideo,
            vip(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "generate_video": {"camera_control_option": {"mode": "dolly"}}}}),
            TextToVideo,
            vip(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "seed": -5}}),
            TextToVideo,
            vip(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "seed": 5_000_000_000i64}}),
            TextToVideo,
            vip(),
            ErrorCode::InvalidParams,
        ),
        // 7. tools
        (
            json!({"meta": {"width": 1920, "height": 1080, "generate_video": {"duration": 5}}}),
            Upscale,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"width": 4096, "height": 2160, "generate_video": {"duration": 5}}}),
            Upscale,
            free(),
            ErrorCode::ImageSizeExceedsError,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"width": 1920, "generate_video": {"duration": 5}}}),
            Upscale,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"width": 1920, "height": 1080}}),
            Upscale,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"width": 1920, "height": 1080, "generate_video": {"duration": 61}}}),
            Upscale,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"meta": {"generate_video": {"video_url": "ftp://x/v.mp4", "duration": 5}}}),
            FrameInterpolation,
            free(),
            ErrorCode::UploadError,
        ),
        (
            json!({"parent_task_id": "t1"}),
            FrameInterpolation,
            free(),
            ErrorCode::InvalidParams,
        ),
        (
            json!({"meta": {}}),
            Extend,
            free(),
            ErrorCode::InvalidParams,
        ),
        // Order: the first fault the page would show.
        (
            json!({"model_no": "nope"}),
            TextToVideo,
            free(),
            ErrorCode::PleaseSelectBaseName,
        ),
        (
            json!({"model_no": "pixVerse", "meta": {"generate_video": {"quality_mode": "1080p"}}}),
            ImageToVideo,
            free(),
            ErrorCode::PleaseSelectImage,
        ),
        (
            json!({"model_no": "pixVerse", "meta": {"generate_video": {"quality_mode": "1080p"}}}),
            TextToVideo,
            free(),
            ErrorCode::PromptNotEmpty,
        ),
        (
            json!({"template_id": "", "model_no": "nope"}),
            Effect,
            free(),
            ErrorCode::PleaseSelectEffect,
        ),
    ];
    for (i, (body, action, who, want)) in cases.into_iter().enumerate() {
        let got = prepare_video(&req(body.clone()), action, &who);
        assert_eq!(got.err(), Some(want), "case {i}: {action:?} {body}");
    }
}

#[test]
fn estimate_skips_only_the_multi_image_check() {
    let empty = req(i2v("kl_v1.6", &[]));
    let p = prepare_video_estimate(&empty, MultiImageToVideo, &free()).unwrap();
    assert!(p.job.images.is_empty());
    assert!(p.estimate.calculate_coins > 0);
    assert_eq!(
        prepare_video_estimate(&empty, ImageToVideo, &free()).err(),
        Some(ErrorCode::PleaseSelectImage)
    );
    assert_eq!(
        prepare_video_estimate(
            &req(json!({"template_id": "ken_burns_duo"})),
            Effect,
            &free()
        )
        .err(),
        Some(ErrorCode::PleaseSelectImage)
    );
}
