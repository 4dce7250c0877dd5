//! The jobs prepare_video makes: durations, sizes, counts, gen_mode,
//! images, options.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::{json, Value};

use super::*;
use crate::task::rules::Role;
use crate::video::codes::VideoAction::*;
use crate::video::models::{CameraMode, Quality};
use crate::video::prepare::*;

#[test]
fn durations_sizes_and_counts_of_jobs() {
    // (body, action, caller, (w, h, ratio), duration, fps, n_iter)
    let cases: Vec<JobCase> = vec![
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "n_iter": 9}}),
            TextToVideo,
            vip(),
            (720, 1280, "9:16"),
            10,
            30,
            2,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "generate_video": {"generate_video_duration": "7"}}}),
            TextToVideo,
            vip(),
            (720, 1280, "9:16"),
            5,
            30,
            1,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "aspect_ratio": "12"}}),
            TextToVideo,
            free(),
            (1280, 720, "16:9"),
            10,
            30,
            1,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "width": 960, "height": "960"}}),
            TextToVideo,
            free(),
            (960, 960, "1:1"),
            10,
            30,
            1,
        ),
        (
            json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "width": 1000, "height": 1000}}),
            TextToVideo,
            free(),
            (720, 1280, "9:16"),
            10,
            30,
            1,
        ),
        (
            json!({"model_no": "pixVerse", "meta": {"prompt": "a"}}),
            TextToVideo,
            vip(),
            (1280, 720, "16:9"),
            8,
            24,
            1,
        ),
        (
            json!({"model_no": "pixVerse", "meta": {"prompt": "a"}}),
            TextToVideo,
            caller(Role::Paid, 2, true, 0),
            (1280, 720, "16:9"),
            5,
            24,
            1,
        ),
        (
            json!({"model_no": "pixVerse", "meta": {"prompt": "a"}}),
            TextToVideo,
            caller(Role::Free, 9, true, 0),
            (1280, 720, "16:9"),
            5,
            24,
            1,
        ),
        (
            json!({"model_no": "kl_v2.0", "meta": {"prompt": "a", "generate_video": {"generate_video_duration": 10}}}),
            TextToVideo,
            vip(),
            (720, 1280, "9:16"),
            5,
            30,
            1,
        ),
        (
            i2v("kl_v1.0", &[("first_frame", A), ("last_frame", B)]),
            ImageToVideo,
            vip(),
            (720, 1280, "9:16"),
            5,
            30,
            1,
        ),
        (
            i2v("kl_v1.0", &[("image", A)]),
            ImageToVideo,
            vip(),
            (720, 1280, "9:16"),
            10,
            30,
            1,
        ),
        (
            i2v("easelStream", &[("image", A)]),
            ImageToVideo,
            vip(),
            (1280, 720, "16:9"),
            5,
            24,
            1,
        ),
        (
            json!({"model_no": "miniMax", "meta": {"n_iter": 5, "generate_video": {"image_opts": opts(&[("live2d", A)])}}}),
            Live2d,
            free(),
            (1280, 720, "16:9"),
            6,
            25,
            3,
        ),
        (
            json!({"model_no": "wan_video", "meta": {"n_iter": 2, "width": 480, "height": 832, "generate_video": {"image_opts": opts(&[("image", A)])}}}),
            ImageToVideo,
            free(),
            (480, 832, "9:16"),
            5,
            16,
            1,
        ),
        (
            json!({"model_no": "hunyuan_1.0", "meta": {"prompt": "a", "n_iter": "4"}}),
            TextToVideo,
            free(),
            (480, 848, "9:16"),
            5,
            24,
            2,
        ),
        (
            i2v("", &[("image", A), ("image", ""), ("image", B)]),
            MultiImageToVideo,
            vip(),
            (720, 1280, "9:16"),
            5,
            30,
            1,
        ),
        (
            json!({"model_no": "easelFlow2", "meta": {"n_iter": 3, "generate_video": {"image_opts": opts(&[("image", A)])}}}),
            MultiImageToVideo,
            vip(),
            (720, 1280, "9:16"),
            5,
            24,
            1,
        ),
        (
            json!({"template_id": "zoom_burst", "meta": {"aspect_ratio": "9:16", "n_iter": 4, "generate_video": {"image_opts": opts(&[("image", A), ("image", B), ("image", C)])}}}),
            Effect,
            vip(),
            (720, 1280, "9:16"),
            5,
            24,
            1,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"width": 2560, "height": 1440, "generate_video": {"duration": 5.5}}}),
            Upscale,
            free(),
            (2560, 1440, "16:9"),
            6,
            0,
            1,
        ),
        (
            json!({"meta": {"generate_video": {"video_url": A, "generate_video_duration": 7}}}),
            Extend,
            free(),
            (0, 0, ""),
            5,
            0,
            1,
        ),
        (
            json!({"meta": {"generate_video": {"video_url": A, "generate_video_duration": 9}}}),
            Extend,
            free(),
            (0, 0, ""),
            10,
            0,
            1,
        ),
        (
            json!({"parent_task_id": "t1", "meta": {"generate_video": {"duration": "4"}}}),
            FrameInterpolation,
            free(),
            (0, 0, ""),
            4,
            0,
            1,
        ),
    ];
    for (i, (body, action, who, (w, h, r), dur, fps, n)) in cases.into_iter().enumerate() {
        let p = ok(body.clone(), action, who);
        let j = &p.job;
        assert_eq!(
            (j.width, j.height, j.aspect_ratio.as_str()),
            (w, h, r),
            "case {i} {body}"
        );
        assert_eq!(
            (j.duration_secs, j.fps, j.n_iter),
            (dur, fps, n),
            "case {i} {body}"
        );
        assert_eq!(j.frames, dur * fps, "case {i}");
        assert_eq!(p.task_domain_type, action.task_domain_type());
    }
}

#[test]
fn gen_mode_images_and_roles() {
    let last = i2v("kl_v1.6", &[("first_frame", A), ("last_frame", B)]);
    // (body, action, caller, gen_mode)
    let cases = [
        (
            last.clone(),
            ImageToVideo,
            caller(Role::Paid, 0, true, 0),
            1,
        ),
        (
            last.clone(),
            ImageToVideo,
            caller(Role::Paid, 5, false, 0),
            0,
        ),
        (
            i2v("kl_v1.6", &[("image", A)]),
            ImageToVideo,
            caller(Role::Paid, 2, true, 0),
            1,
        ),
        (
            i2v("kl_v1.6", &[("image", A)]),
            ImageToVideo,
            caller(Role::Paid, 1, true, 0),
            0,
        ),
        (
            json!({"model_no": "kl_v1.5", "meta": {"prompt": "a", "generate": {"gen_mode": 1}}}),
            TextToVideo,
            vip(),
            0,
        ),
        (
            json!({"model_no": "kl_v1.0", "meta": {"prompt": "a", "generate": {"gen_mode": 1}}}),
            TextToVideo,
            vip(),
            1,
        ),
        (
            json!({"model_no": "kl_v1.0", "meta": {"prompt": "a", "generate": {"gen_mode": 1}}}),
            TextToVideo,
            free(),
            0,
        ),
    ];
    for (body, action, who, want) in cases {
        assert_eq!(
            ok(body.clone(), action, who).job.gen_mode,
            want,
            "{body} {who:?}"
        );
    }
    let j = ok(last, ImageToVideo, vip()).job;
    let roles: Vec<_> = j.images.iter().map(|i| (i.role, i.url.as_str())).collect();
    assert_eq!(
        roles,
        [(VideoImageRole::First, A), (VideoImageRole::Last, B)]
    );
    let j = ok(i2v("miniMax", &[("live2d", C)]), Live2d, free()).job;
    assert_eq!(j.images[0].role, VideoImageRole::Live2d);
    let p = ok(
        i2v(
            "kl_v1.6",
            &[("image", A), ("image", ""), ("image", B), ("image", C)],
        ),
        MultiImageToVideo,
        free(),
    );
    let seq: Vec<_> = p
        .job
        .images
        .iter()
        .map(|i| (i.role, i.index, i.url.as_str()))
        .collect();
    assert_eq!(
        seq,
        [
            (VideoImageRole::Sequence, 0, A),
            (VideoImageRole::Sequence, 1, B),
            (VideoImageRole::Sequence, 2, C)
        ]
    );
    assert_eq!((p.task_domain_type, p.ss.as_deref()), (25, Some("52")));
    let fx = ok(
        json!({"template_id": "ken_burns_duo", "model_no": "kl_v1.6", "meta": {"generate_video": {"image_opts": opts(&[("image", A), ("image", B), ("image", C)])}}}),
        Effect,
        free(),
    );
    assert_eq!(fx.job.images.len(), 2);
    assert_eq!(fx.job.model_no, "");
    assert_eq!(fx.job.template_id.as_deref(), Some("ken_burns_duo"));
    assert_eq!(fx.task_domain_type, 15);
    // Text-to-video drops a stale image list.
    let t = ok(
        json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "generate_video": {"image_opts": opts(&[("image", A)])}}}),
        TextToVideo,
        free(),
    );
    assert!(t.job.images.is_empty());
}

#[test]
fn options_of_jobs() {
    let body = json!({"model_no": "kl_v1.6", "ss": 7, "meta": {
        "prompt": " a cat ", "negative_prompt": "blur", "seed": "42",
        "generate_video": {"relevance": 3, "camera_control_option": {"mode": "Zoom", "offset": -12},
                           "motion_mode": "fast", "style": "anime", "audio_effect": true}}});
    let j = ok(body, TextToVideo, vip()).job;
    assert_eq!(j.prompt, "a cat");
    assert_eq!(j.negative_prompt.as_deref(), Some("blur"));
    assert_eq!(j.seed, Some(42));
    assert_eq!(j.relevance, 1.0);
    assert_eq!(
        j.camera.map(|c| (c.mode, c.offset)),
        Some((CameraMode::Zoom, -10.0))
    );
    assert_eq!(
        (j.motion_mode.as_str(), j.style.as_deref(), j.audio_effect),
        ("fast", Some("anime"), true)
    );
    let j = ok(
        json!({"model_no": "pixVerse", "meta": {"prompt": "a", "seed": 0,
        "generate_video": {"camera_control_option": {"mode": "pan", "offset": 2}}}}),
        TextToVideo,
        free(),
    )
    .job;
    assert_eq!(
        (j.seed, j.camera, j.quality),
        (None, None, Some(Quality::Q360p))
    );
    assert_eq!(
        (j.relevance, j.motion_mode.as_str(), j.scheduler.as_str()),
        (0.5, "normal", "normal")
    );
    let j = ok(json!({"model_no": "hunyuan_1.0", "meta": {"prompt": "a", "sampler_name": "dpm", "scheduler": "karras"}}), TextToVideo, free()).job;
    assert_eq!(
        (j.sampler.as_deref(), j.scheduler.as_str()),
        (Some("euler"), "normal")
    );
    let j = ok(json!({"model_no": "kl_v1.6", "meta": {"prompt": "a", "sampler": "ddim", "scheduler": "karras"}}), TextToVideo, free()).job;
    assert_eq!(
        (j.sampler.as_deref(), j.scheduler.as_str()),
        (Some("ddim"), "karras")
    );
    // Negative prompt: multi-image only when enabled; models without one never.
    let multi = |flag: Value| {
        json!({"meta": {"negative_prompt": "blur", "enableNegativePrompts": flag,
        "generate_video": {"image_opts": opts(&[("image", A)])}}})
    };
    assert_eq!(
        ok(multi(json!(false)), MultiImageToVideo, free())
            .job
            .negative_prompt,
        None
    );
    assert_eq!(
        ok(multi(json!(true)), MultiImageToVideo, free())
            .job
            .negative_prompt
            .as_deref(),
        Some("blur")
    );
    let mm = json!({"model_no": "miniMax", "meta": {"prompt": "a", "negative_prompt": "blur"}});
    assert_eq!(ok(mm, TextToVideo, free()).job.negative_prompt, None);
    // The tools.
    let fi = ok(
        json!({"parent_task_id": "t9", "meta": {"generate_video": {"duration": 3}}}),
        FrameInterpolation,
        free(),
    )
    .job;
    assert_eq!(
        (fi.interpolation_factor, fi.parent_task_id.as_deref()),
        (2, Some("t9"))
    );
    let up = ok(json!({"meta": {"width": 1920, "height": 1080, "generate_video": {"video_url": C, "duration": 5}}}), Upscale, free()).job;
    assert_eq!(
        (up.source_video_url.as_deref(), up.interpolation_factor),
        (Some(C), 1)
    );
}
