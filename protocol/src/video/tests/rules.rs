//! The single rules: n_iter caps, gen_mode, durations, sizes, quality,
//! camera, frame control, negative prompt.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::json;

use super::m;
use crate::error::ErrorCode;
use crate::task::rules::Role;
use crate::video::codes::VideoAction;
use crate::video::constants::*;
use crate::video::models::*;
use crate::video::request::*;
use crate::video::rules::*;

#[test]
fn n_iter_caps_per_family() {
    use VideoFamily::*;
    let cases = [
        (MiniMax, None, 1),
        (MiniMax, Some(3), 3),
        (MiniMax, Some(4), 3),
        (MiniMax, Some(9), 3),
        (Kling, Some(2), 2),
        (Kling, Some(3), 2),
        (Hunyuan, Some(4), 2),
        (PixVerse, Some(2), 2),
        (Stream, Some(5), 2),
        (Wan, Some(2), 1),
        (Wan, Some(1), 1),
        (Tongyi, Some(4), 1),
        (Flow, Some(2), 1),
        (Hailuo, Some(3), 1),
        (Kling, Some(0), 1),
        (Kling, Some(-3), 1),
        (Kling, None, 1),
    ];
    for (fam, req, want) in cases {
        assert_eq!(cap_n_iter(fam, req), want, "{fam:?} {req:?}");
    }
}

#[test]
fn gen_mode_rules() {
    use VideoAction::*;
    // (model, action, requested, last frame, infinite queue, level, want)
    let cases = [
        ("kl_v1.5", TextToVideo, Some(1), false, true, 3, 0),
        ("kl_v1.6", TextToVideo, None, false, true, 5, 0),
        ("kl_v1.5", ImageToVideo, Some(0), true, true, 0, 1),
        ("kl_v1.6", ImageToVideo, None, true, true, 1, 1),
        ("kl_v1.6", ImageToVideo, None, true, false, 5, 0),
        ("kl_v1.5", ImageToVideo, Some(0), false, true, 3, 0),
        ("kl_v1.5", ImageToVideo, None, false, true, 2, 1),
        ("kl_v1.0", TextToVideo, Some(1), false, true, 0, 1),
        ("kl_v1.0", TextToVideo, Some(1), false, false, 9, 0),
        ("kl_v1.0", TextToVideo, None, false, true, 1, 0),
        ("kl_v1.0", TextToVideo, None, false, true, 2, 1),
        // No gen_mode control: the asked value is ignored, the level decides.
        ("pixVerse", TextToVideo, Some(1), false, true, 1, 0),
        ("pixVerse", TextToVideo, Some(0), false, true, 2, 1),
        ("wan_video", ImageToVideo, None, true, false, 3, 0),
    ];
    for (id, action, req, last, q, level, want) in cases {
        assert_eq!(
            video_gen_mode(Some(m(id)), action, req, last, q, level),
            want,
            "{id} {action:?} {req:?} last={last} queue={q} level={level}"
        );
    }
    assert_eq!(
        video_gen_mode(None, VideoAction::Effect, Some(1), false, true, 3),
        1
    );
    assert_eq!(
        video_gen_mode(None, VideoAction::Effect, None, false, false, 3),
        0
    );
}

#[test]
fn durations_snap_to_the_nearest_allowed() {
    let cases: [(&[u32], u32, u32); 10] = [
        (&[5, 10], 5, 5),
        (&[5, 10], 10, 10),
        (&[5, 10], 7, 5),
        (&[5, 10], 8, 10),
        (&[5, 10], 7, 5),
        (&[5, 10], 0, 5),
        (&[5, 10], 60, 10),
        (&[5, 8], 6, 5),
        (&[6, 10], 8, 6),
        (&[], 7, 7),
    ];
    for (allowed, req, want) in cases {
        assert_eq!(snap_duration(allowed, req), want, "{allowed:?} {req}");
    }
}

#[test]
fn fixed_durations() {
    let cases = [
        ("kl_v1.0", true, 2, Some(5)),
        ("kl_v1.0", false, 2, Some(5)),
        ("kl_v1.0", true, 1, Some(5)),
        ("kl_v1.0", false, 1, None),
        ("kl_v1.5", true, 2, None),
        ("kl_v2.0", false, 0, Some(5)),
        ("easelStream", false, 1, Some(5)),
        ("pixVerse", true, 2, None),
    ];
    for (id, last, n, want) in cases {
        assert_eq!(fixed_duration(m(id), last, n), want, "{id} {last} {n}");
    }
}

#[test]
fn initial_and_resolved_durations() {
    // (model, vip, level, retrying, cached, want)
    let cases = [
        ("kl_v1.6", true, 3, false, None, 10),
        ("pixVerse", true, 3, false, None, 8),
        ("pixVerse", true, 2, false, None, 5),
        ("pixVerse", false, 5, false, None, 5),
        ("pixVerse", true, 5, true, None, 5),
        ("pixVerse", true, 5, false, Some(5), 5),
        ("pixVerse", true, 1, false, Some(7), 8),
        ("kl_v1.0", false, 0, false, None, 10),
        ("kl_v2.0", false, 0, false, None, 5),
        ("easelFlow", true, 4, false, None, 10),
        ("easelFlow", false, 0, false, None, 5),
    ];
    for (id, vip, level, retry, cached, want) in cases {
        assert_eq!(
            initial_duration(m(id), vip, level, retry, cached),
            want,
            "{id} vip={vip} level={level} retry={retry} cached={cached:?}"
        );
    }
    // (model, requested, vip, level, last, images, want)
    let cases = [
        ("kl_v1.6", Some(7), false, 0, false, 1, 5),
        ("kl_v1.6", None, true, 3, false, 1, 10),
        ("kl_v1.0", Some(10), true, 3, true, 2, 5),
        ("kl_v1.0", Some(10), false, 0, false, 1, 10),
        ("kl_v2.0", Some(10), true, 5, false, 0, 5),
        ("easelStream", Some(10), true, 5, false, 1, 5),
        ("hailuo_02", Some(9), false, 0, false, 1, 10),
        ("hailuo_02", None, false, 0, false, 1, 6),
        ("miniMax", Some(-4), false, 0, false, 0, 6),
    ];
    for (id, req, vip, level, last, n, want) in cases {
        assert_eq!(
            resolve_duration(m(id), req, vip, level, last, n),
            want,
            "{id} {req:?}"
        );
    }
}

#[test]
fn size_fallbacks() {
    let a = |l: &str| aspect_by_label_or_code(l);
    let kling = m("kl_v1.6").sizes;
    let cases = [
        (kling, Some(960), Some(960), None, (960, 960, "1:1")),
        (kling, Some(1280), Some(720), a("9:16"), (1280, 720, "16:9")),
        (kling, Some(1000), Some(1000), None, (720, 1280, "9:16")),
        (kling, None, None, a("16:9"), (1280, 720, "16:9")),
        (kling, None, None, a("12"), (1280, 720, "16:9")),
        (kling, None, None, a("4:3"), (720, 1280, "9:16")),
        (kling, Some(1024), None, a("1:1"), (960, 960, "1:1")),
        (
            m("wan_video").sizes,
            None,
            None,
            a("2:3"),
            (480, 720, "2:3"),
        ),
        (
            m("tongyi_pro").sizes,
            None,
            None,
            a("4:3"),
            (1088, 832, "4:3"),
        ),
        (
            m("tongyi_pro").sizes,
            None,
            None,
            a("7"),
            (832, 1088, "3:4"),
        ),
        (
            m("hunyuan_1.0").sizes,
            None,
            None,
            a("21:9"),
            (480, 848, "9:16"),
        ),
        (&[], Some(640), Some(640), None, (1280, 720, "16:9")),
        (&[], None, None, a("1:1"), (1280, 720, "16:9")),
    ];
    for (opts, w, h, asp, want) in cases {
        let (ww, wh, wl) = want;
        assert_eq!(
            resolve_size(opts, w, h, asp),
            (ww, wh, wl.to_string()),
            "{w:?}x{h:?} {asp:?}"
        );
    }
    let panel = [
        (kling, Some(960), Some(960), (960, 960, "1:1")),
        (kling, Some(1), Some(1), (720, 1280, "9:16")),
        (&[][..], Some(1280), Some(720), (640, 640, "1:1")),
        (&[][..], None, None, (640, 640, "1:1")),
    ];
    for (opts, w, h, (ww, wh, wl)) in panel {
        assert_eq!(panel_size(opts, w, h), (ww, wh, wl.to_string()));
    }
}

#[test]
fn quality_modes() {
    let pix = m("pixVerse");
    let cases = [
        (pix, None, Role::Free, Ok(Some(Quality::Q360p))),
        (pix, Some("360p"), Role::Free, Ok(Some(Quality::Q360p))),
        (
            pix,
            Some("540p"),
            Role::Free,
            Err(ErrorCode::VideoQualityMemberOnly),
        ),
        (
            pix,
            Some("720p"),
            Role::Free,
            Err(ErrorCode::VideoQualityMemberOnly),
        ),
        (
            pix,
            Some("1080P"),
            Role::Free,
            Err(ErrorCode::VideoQualityMemberOnly),
        ),
        (
            pix,
            Some("1080p"),
            Role::Visitor,
            Err(ErrorCode::VideoQualityMemberOnly),
        ),
        (pix, Some("540p"), Role::Paid, Ok(Some(Quality::Q540p))),
        (pix, Some("720"), Role::Paid, Ok(Some(Quality::Q720p))),
        (pix, Some("1080p"), Role::Paid, Ok(Some(Quality::Q1080p))),
        (pix, Some("4k"), Role::Paid, Err(ErrorCode::InvalidParams)),
        (pix, Some(" "), Role::Free, Ok(Some(Quality::Q360p))),
        (m("kl_v1.6"), Some("1080p"), Role::Free, Ok(None)),
        (m("wan_video"), Some("bogus"), Role::Free, Ok(None)),
    ];
    for (model, req, role, want) in cases {
        assert_eq!(
            resolve_quality(model, req, role),
            want,
            "{} {req:?} {role:?}",
            model.id
        );
    }
    let labels: Vec<_> = Quality::ALL
        .iter()
        .map(|q| (q.label(), q.member_only()))
        .collect();
    assert_eq!(
        labels,
        [
            ("360p", false),
            ("540p", true),
            ("720p", true),
            ("1080p", true)
        ]
    );
    assert_eq!(serde_json::to_value(Quality::Q720p).unwrap(), json!("720p"));
}

#[test]
fn camera_control() {
    let opt = |mode: &str, offset: Option<f64>| CameraControlOption {
        mode: Some(mode.into()),
        offset,
    };
    let cases = [
        (
            true,
            Some(opt("zoom", Some(3.0))),
            Ok(Some((CameraMode::Zoom, 3.0))),
        ),
        (
            true,
            Some(opt("Zoom", Some(-30.0))),
            Ok(Some((CameraMode::Zoom, -10.0))),
        ),
        (
            true,
            Some(opt("Camera Movement", None)),
            Ok(Some((CameraMode::CameraMovement, 0.0))),
        ),
        (
            true,
            Some(opt("camera_movement", Some(11.0))),
            Ok(Some((CameraMode::CameraMovement, 10.0))),
        ),
        (
            true,
            Some(opt("Horizontal", Some(-2.5))),
            Ok(Some((CameraMode::Horizontal, -2.5))),
        ),
        (
            true,
            Some(opt("vertical", Some(1.0))),
            Ok(Some((CameraMode::Vertical, 1.0))),
        ),
        (
            true,
            Some(opt("PAN", Some(4.0))),
            Ok(Some((CameraMode::Pan, 4.0))),
        ),
        (
            true,
            Some(opt("roll", Some(4.0))),
            Err(ErrorCode::InvalidParams),
        ),
        (
            false,
            Some(opt("roll", None)),
            Err(ErrorCode::InvalidParams),
        ),
        (false, Some(opt("zoom", Some(3.0))), Ok(None)),
        (true, Some(opt("", Some(3.0))), Ok(None)),
        (true, None, Ok(None)),
    ];
    for (cam, o, want) in cases {
        let got = resolve_camera(cam, o.as_ref()).map(|c| c.map(|c| (c.mode, c.offset)));
        assert_eq!(got, want, "{o:?}");
    }
    for mode in CameraMode::ALL {
        assert_eq!(CameraMode::parse(mode.label()), Some(mode));
        assert_eq!(CameraMode::parse(mode.wire()), Some(mode));
    }
}

#[test]
fn frame_control() {
    let cases = [
        (0, false, false, true),
        (0, true, false, false),
        (1, true, false, true),
        (1, true, true, false),
        (1, false, true, false),
        (2, true, true, true),
        (2, true, false, true),
    ];
    for (ctl, first, last, want) in cases {
        assert_eq!(
            frames_allowed(ctl, first, last),
            want,
            "{ctl} {first} {last}"
        );
    }
}

#[test]
fn negative_prompt_only_when_enabled() {
    use VideoAction::*;
    let cases = [
        (
            MultiImageToVideo,
            true,
            Some(true),
            Some("blur"),
            Some("blur"),
        ),
        (MultiImageToVideo, true, Some(false), Some("blur"), None),
        (MultiImageToVideo, true, None, Some("blur"), Some("blur")),
        (MultiImageToVideo, true, Some(true), Some("  "), None),
        (TextToVideo, true, Some(false), Some("blur"), Some("blur")),
        (TextToVideo, false, None, Some("blur"), None),
        (ImageToVideo, true, None, None, None),
        (ImageToVideo, true, None, Some(" x "), Some("x")),
    ];
    for (action, takes, enabled, text, want) in cases {
        assert_eq!(
            keep_negative_prompt(action, takes, enabled, text).as_deref(),
            want,
            "{action:?} {enabled:?}"
        );
    }
}

#[test]
fn every_model_resolves_to_an_allowed_duration_and_count() {
    for model in VIDEO_MODELS {
        for req in (-5..=70).map(Some).chain([None]) {
            for (vip, level) in [(false, 0), (true, 2), (true, 3), (true, 9)] {
                for (last, n) in [(false, 0), (false, 1), (true, 2), (false, 4)] {
                    let d = resolve_duration(model, req, vip, level, last, n);
                    assert!(
                        model.durations.contains(&d),
                        "{} {req:?} vip={vip} level={level} -> {d}",
                        model.id
                    );
                }
            }
            let n = cap_n_iter(model.family, req);
            assert!(
                (1..=model.family.n_iter_cap()).contains(&n),
                "{} {req:?}",
                model.id
            );
        }
        // The VIP default is the longest allowed duration, unless fixed.
        let d = resolve_duration(model, None, true, 3, false, 1);
        assert_eq!(
            d,
            fixed_duration(model, false, 1).unwrap_or(model.longest_duration())
        );
        // Every option of a model is kept as asked.
        for o in model.sizes {
            let (w, h, r) = resolve_size(model.sizes, Some(o.width), Some(o.height), None);
            assert_eq!(
                (w, h, r.as_str()),
                (o.width, o.height, o.aspect_ratio),
                "{}",
                model.id
            );
        }
    }
}
