//! Table tests of the single video rules, the catalogue, the codes and the
//! payload's serde (spec 2 §3-§6, §9).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::json;

use super::codes::{restore_tab, VideoAction, VideoSubTab, VideoTab};
use super::constants::*;
use super::models::*;
use super::request::*;
use super::rules::*;
use crate::error::ErrorCode;
use crate::task::rules::Role;

fn m(id: &str) -> &'static VideoModel {
    video_model(id).unwrap()
}

#[test]
fn display_names_are_the_specs() {
    let table = [
        ("kl_v1.0", "Lite"),
        ("kl_v1.5", "Depth"),
        ("kl_v1.6", "Ultra"),
        ("kl_v2.0", "Ultra2"),
        ("miniMax", "Sparkle"),
        ("tongyi_pro", "Plus"),
        ("tongyi_fast", "Turbo"),
        ("pixVerse", "Magic"),
        ("easelStream", "Dance"),
    ];
    for (id, name) in table {
        assert_eq!(m(id).display_name, name, "{id}");
    }
    for id in [
        "hunyuan_1.0",
        "wan_video",
        "easelFlow",
        "easelFlow2",
        "easelFilmVideo",
        "easelUltraPro",
        "easelUltra2Pro",
        "easelFilmVideoPro",
        "hailuo_02",
        "easelJump",
    ] {
        assert!(!m(id).display_name.is_empty(), "{id}");
    }
    let mut ids: Vec<_> = VIDEO_MODELS.iter().map(|m| m.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), VIDEO_MODELS.len());
    assert!(video_model("kl_v9").is_none());
    assert_eq!(video_model(" kl_v1.6 ").unwrap().id, "kl_v1.6");
}

#[test]
fn catalogue_is_consistent() {
    for model in VIDEO_MODELS {
        assert!(!model.sizes.is_empty(), "{}", model.id);
        assert!(
            model.durations.windows(2).all(|w| w[0] < w[1]),
            "{}",
            model.id
        );
        assert!(
            model.durations.contains(&model.default_duration),
            "{}",
            model.id
        );
        assert!(model.frame_ctl <= 2 && model.fps > 0 && model.credits_per_5s > 0);
        for s in model.sizes {
            let a = aspect_by_label_or_code(s.aspect_ratio).unwrap();
            let got = f64::from(s.width) / f64::from(s.height);
            let want = f64::from(a.ratio_w) / f64::from(a.ratio_h);
            assert!((got / want - 1.0).abs() < 0.03, "{} {:?}", model.id, s);
        }
    }
    for t in EFFECT_TEMPLATES {
        assert!((1..=4).contains(&t.inputs) && t.credits > 0);
        assert_eq!(effect_template(t.id), Some(t));
    }
}

#[test]
fn per_model_sizes_of_section_9() {
    let sizes = |id: &str| -> Vec<(&str, u32, u32)> {
        m(id)
            .sizes
            .iter()
            .map(|s| (s.aspect_ratio, s.width, s.height))
            .collect()
    };
    let kling = vec![("9:16", 720, 1280), ("1:1", 960, 960), ("16:9", 1280, 720)];
    let std = vec![
        ("16:9", 1280, 720),
        ("9:16", 720, 1280),
        ("1:1", 960, 960),
        ("4:3", 1088, 832),
        ("3:4", 832, 1088),
    ];
    for id in ["kl_v1.0", "kl_v1.5", "kl_v1.6", "kl_v2.0"] {
        assert_eq!(sizes(id), kling, "{id}");
    }
    for id in ["tongyi_pro", "tongyi_fast", "pixVerse"] {
        assert_eq!(sizes(id), std, "{id}");
    }
    let wan: Vec<(u32, u32)> = m("wan_video")
        .sizes
        .iter()
        .map(|s| (s.width, s.height))
        .collect();
    assert_eq!(
        wan,
        [(640, 640), (480, 832), (832, 480), (720, 480), (480, 720)]
    );
    let hy: Vec<(u32, u32)> = m("hunyuan_1.0")
        .sizes
        .iter()
        .map(|s| (s.width, s.height))
        .collect();
    assert_eq!(hy, [(480, 848), (480, 480), (848, 480)]);
    // §9 defaults: kling 720x1280, hunyuan 480x848, others 1280x720.
    assert_eq!(
        resolve_size(m("kl_v1.6").sizes, None, None, None).0,
        KLING_DEFAULT_SIZE.0
    );
    assert_eq!(
        resolve_size(m("hunyuan_1.0").sizes, None, None, None),
        (480, 848, "9:16".into())
    );
    assert_eq!(
        resolve_size(m("tongyi_pro").sizes, None, None, None),
        (1280, 720, "16:9".into())
    );
}

#[test]
fn aspect_codes_match_the_table() {
    let table = [
        ("1:1", 2),
        ("2:3", 1),
        ("9:16", 3),
        ("4:3", 4),
        ("1:2", 6),
        ("3:4", 7),
        ("4:5", 8),
        ("5:4", 9),
        ("2:1", 13),
        ("3:2", 11),
        ("16:9", 12),
        ("21:9", 14),
    ];
    assert_eq!(ASPECTS.len(), table.len());
    for (label, code) in table {
        assert_eq!(aspect_by_label_or_code(label).unwrap().code, code);
        assert_eq!(aspect_by_code(code).unwrap().label, label);
        assert_eq!(
            aspect_by_label_or_code(&code.to_string()).unwrap().label,
            label
        );
    }
    assert!(aspect_by_label_or_code("7:3").is_none());
    assert!(aspect_by_code(5).is_none());
    assert!(aspect_by_label_or_code("").is_none());
}

#[test]
fn aspect_matching_uses_the_tolerance_of_5() {
    let a = |l: &str| aspect_by_label_or_code(l).unwrap();
    let cases = [
        (1280, 720, "16:9", true),
        (1284, 720, "16:9", true),  // 80.25 - 80 < 5
        (1360, 720, "16:9", false), // 85 - 80 = 5, not under 5
        (1370, 720, "16:9", false), // 85.6 - 80 = 5.6
        (720, 1280, "9:16", true),
        (960, 960, "1:1", true),
        (964, 960, "1:1", true),
        (965, 960, "1:1", false),
        // §9's own 4:3 size is 272 - 277.3 = 5.3 off, so the §5 match misses
        // it: resolve_size matches an option's label before this rule.
        (1088, 832, "4:3", false),
        (832, 1088, "3:4", false),
        (480, 848, "9:16", true),
        (1280, 720, "9:16", false),
    ];
    for (w, h, l, want) in cases {
        assert_eq!(aspect_matches(w, h, a(l)), want, "{w}x{h} {l}");
    }
    assert_eq!(aspect_of_size(1280, 720).unwrap().label, "16:9");
    assert_eq!(aspect_of_size(640, 640).unwrap().label, "1:1");
    assert_eq!(aspect_of_size(720, 480).unwrap().label, "3:2");
    assert!(aspect_of_size(1000, 100).is_none());
}

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
fn actions_tabs_and_restore() {
    for a in VideoAction::ALL {
        assert_eq!(VideoAction::from_code(i64::from(a.code())), Some(a));
        let v = serde_json::to_value(a).unwrap();
        assert_eq!(serde_json::from_value::<VideoAction>(v).unwrap(), a);
        // No clash with the image actions.
        assert!(crate::task::Action::from_code(i64::from(a.code())).is_none());
    }
    assert!(serde_json::from_value::<VideoAction>(json!(1)).is_err());
    let domains = [
        (VideoAction::TextToVideo, 11),
        (VideoAction::ImageToVideo, 12),
        (VideoAction::Live2d, 12),
        (VideoAction::Effect, 15),
        (VideoAction::MultiImageToVideo, 25),
    ];
    for (a, d) in domains {
        assert_eq!(a.task_domain_type(), d);
    }
    let tabs = [
        (VideoTab::Img2video, "img2video", VideoSubTab::VideoModel),
        (VideoTab::Txt2video, "txt2video", VideoSubTab::VideoModel),
        (VideoTab::Img2Live2d, "img2Live2d", VideoSubTab::VideoModel),
        (
            VideoTab::MultiImg2video,
            "multiImg2video",
            VideoSubTab::MultiImage,
        ),
        (VideoTab::Effect, "effect", VideoSubTab::Effect),
    ];
    for (tab, name, sub) in tabs {
        assert_eq!(serde_json::to_value(tab).unwrap(), json!(name));
        assert_eq!(tab.sub_tab(), sub);
        assert_eq!(tab.action().task_domain_type(), {
            match tab {
                VideoTab::Txt2video => 11,
                VideoTab::Img2video | VideoTab::Img2Live2d => 12,
                VideoTab::Effect => 15,
                VideoTab::MultiImg2video => 25,
            }
        });
    }
    assert_eq!(
        serde_json::to_value(VideoSubTab::MultiImage).unwrap(),
        json!("multiImage")
    );
    let cases = [
        (Some(11), None, "kl_v1.6", true, Some(VideoTab::Txt2video)),
        (Some(12), None, "kl_v1.6", true, Some(VideoTab::Img2video)),
        (Some(12), None, "miniMax", true, Some(VideoTab::Img2Live2d)),
        (Some(15), None, "", true, Some(VideoTab::Effect)),
        (
            Some(25),
            None,
            "kl_v1.6",
            true,
            Some(VideoTab::MultiImg2video),
        ),
        (None, Some(42), "kl_v1.6", false, Some(VideoTab::Txt2video)),
        (None, Some(42), "kl_v1.6", true, Some(VideoTab::Img2video)),
        (
            Some(99),
            Some(42),
            "kl_v1.6",
            false,
            Some(VideoTab::Txt2video),
        ),
        (None, Some(1), "kl_v1.6", false, None),
        (None, None, "kl_v1.6", false, None),
    ];
    for (d, t, model, imgs, want) in cases {
        assert_eq!(restore_tab(d, t, model, imgs), want, "{d:?} {t:?} {model}");
    }
}

#[test]
fn image_items_convert_between_forms() {
    let single = ImageToVideoItem {
        mode: Some("image".into()),
        url: Some("https://x/a.png".into()),
        first_frame: None,
        last_frame: None,
    };
    let frames = convert_image_items(std::slice::from_ref(&single), true);
    assert_eq!(frames[0].mode.as_deref(), Some("first_frame"));
    assert_eq!(frames[0].first_frame.as_deref(), Some("https://x/a.png"));
    assert_eq!(frames[0].url, None);
    let mut with_last = frames[0].clone();
    with_last.last_frame = Some("https://x/b.png".into());
    let opts = image_opts_of(std::slice::from_ref(&with_last));
    assert_eq!(
        opts,
        [
            ImageOpt::new("first_frame", "https://x/a.png"),
            ImageOpt::new("last_frame", "https://x/b.png")
        ]
    );
    let back = convert_image_items(&[with_last], false);
    assert_eq!(back, [single.clone()]);
    assert_eq!(
        image_opts_of(&back),
        [ImageOpt::new("image", "https://x/a.png")]
    );
    let live = ImageToVideoItem {
        mode: Some("live2d".into()),
        url: Some("https://x/c.png".into()),
        ..Default::default()
    };
    assert_eq!(
        convert_image_items(std::slice::from_ref(&live), false),
        [live.clone()]
    );
    assert_eq!(
        image_opts_of(&[live]),
        [ImageOpt::new("live2d", "https://x/c.png")]
    );
    assert!(image_opts_of(&[ImageToVideoItem::default()]).is_empty());
    // The page's field names.
    let v = serde_json::to_value(&frames[0]).unwrap();
    assert_eq!(v["firstFrame"], json!("https://x/a.png"));
}

#[test]
fn payload_round_trips_with_the_specs_names() {
    let wire = json!({
        "model_no": "kl_v1.6", "model_ver_no": 3, "template_id": "",
        "ss": 52, "task_domain_type": "25",
        "meta": {
            "prompt": "a cat", "negative_prompt": "blur", "enableNegativePrompts": "true",
            "width": "720", "height": 1280.0, "aspect_ratio": "9:16",
            "n_iter": "2", "n_video_iter": 1, "seed": "",
            "generate": {"gen_mode": "1"},
            "generate_video": {
                "relevance": "0.5", "generate_video_duration": "10",
                "camera_control_option": {"mode": "zoom", "offset": "3"},
                "image_opts": [{"mode": "first_frame", "url": "https://x/a.png", "width": "720"}],
                "quality_mode": "360p", "motion_mode": "normal", "audio_effect": 0,
                "unknown_knob": [1, 2]
            },
            "lora_models": [{"model_id": 7, "weight": "0.8"}],
            "sampler": "euler", "scheduler": "normal", "task_from": "web",
            "isNeedSmartPrompt": true
        },
        "client_extra": {"a": 1}
    });
    let r: VideoCreateRequest = serde_json::from_value(wire).unwrap();
    assert_eq!(r.model_ver_no.as_deref(), Some("3"));
    assert_eq!(r.ss.as_deref(), Some("52"));
    assert_eq!(r.task_domain_type, Some(25));
    assert_eq!(r.meta.width, Some(720));
    assert_eq!(r.meta.height, Some(1280));
    assert_eq!(r.meta.n_iter, Some(2));
    assert_eq!(r.meta.seed, None);
    assert_eq!(r.meta.enable_negative_prompts, Some(true));
    assert_eq!(r.meta.generate.as_ref().unwrap().gen_mode, Some(1));
    let gv = &r.meta.generate_video;
    assert_eq!(gv.generate_video_duration, Some(10));
    assert_eq!(gv.relevance, Some(0.5));
    assert_eq!(gv.audio_effect, Some(false));
    let cam = gv.camera_control_option.as_ref().unwrap();
    assert_eq!((cam.mode.as_deref(), cam.offset), (Some("zoom"), Some(3.0)));
    assert_eq!(gv.image_opts[0].width, Some(720));
    assert_eq!(gv.extra["unknown_knob"], json!([1, 2]));
    assert_eq!(r.meta.extra["isNeedSmartPrompt"], json!(true));
    assert_eq!(r.extra["client_extra"], json!({"a": 1}));
    let out = serde_json::to_value(&r).unwrap();
    for key in [
        "model_no",
        "model_ver_no",
        "template_id",
        "meta",
        "ss",
        "task_domain_type",
    ] {
        assert!(out.get(key).is_some(), "{key}");
    }
    for key in [
        "prompt",
        "negative_prompt",
        "width",
        "height",
        "aspect_ratio",
        "n_iter",
        "n_video_iter",
        "seed",
        "generate",
        "generate_video",
        "lora_models",
        "task_from",
    ] {
        assert!(out["meta"].get(key).is_some(), "meta.{key}");
    }
    for key in [
        "generate_video_duration",
        "camera_control_option",
        "image_opts",
        "quality_mode",
        "relevance",
        "motion_mode",
        "audio_effect",
    ] {
        assert!(out["meta"]["generate_video"].get(key).is_some(), "{key}");
    }
    assert_eq!(
        out["meta"]["generate_video"]["image_opts"][0]["mode"],
        json!("first_frame")
    );
    let again: VideoCreateRequest = serde_json::from_value(out).unwrap();
    assert_eq!(again, r);
}

#[test]
fn wrong_payload_types_are_refused() {
    for bad in [
        json!({"meta": {"width": "wide"}}),
        json!({"meta": {"generate_video": {"generate_video_duration": "long"}}}),
        json!({"meta": {"generate_video": {"image_opts": "x"}}}),
        json!({"meta": {"generate_video": {"camera_control_option": {"offset": "left"}}}}),
        json!({"task_domain_type": [25]}),
        json!({"meta": {"n_iter": {}}}),
    ] {
        assert!(
            serde_json::from_value::<VideoCreateRequest>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn model_param_config_round_trips() {
    let c = model_param_config(m("pixVerse"));
    assert_eq!(c.resolution_param.options.len(), 5);
    assert_eq!(
        c.resolution_param.dft_resolution.as_ref().unwrap().width,
        1280
    );
    assert_eq!(c.frame_ctl, 2);
    assert_eq!(c.duration_ctl.options, [5, 8]);
    assert_eq!(c.n_iter_max, 2);
    assert_eq!(c.quality_modes.len(), 4);
    let v = serde_json::to_value(&c).unwrap();
    for key in [
        "resolution_param",
        "frame_ctl",
        "duration_ctl",
        "enable_gen_mode_ctl",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(
        v["resolution_param"]["options"][0]["aspect_ratio"],
        json!("16:9")
    );
    assert_eq!(serde_json::from_value::<ModelParamConfig>(v).unwrap(), c);
    assert!(model_param_config(m("kl_v1.6")).enable_gen_mode_ctl);
    assert_eq!(model_param_config(m("miniMax")).n_iter_max, 3);
}

#[test]
fn section_9_constants() {
    assert_eq!(DEFAULT_DURATION, 5);
    assert_eq!(KLING_LEGACY_DEFAULT_DURATION, 10);
    for id in ["kl_v1.0", "kl_v1.5", "kl_v1.6"] {
        assert_eq!(m(id).default_duration, KLING_LEGACY_DEFAULT_DURATION);
    }
    assert_eq!(m("kl_v2.0").default_duration, KLING_V2_DEFAULT_DURATION);
    assert_eq!(DEFAULT_RELEVANCE, 0.5);
    assert_eq!(
        (DEFAULT_QUALITY, DEFAULT_MOTION_MODE, DEFAULT_SCHEDULER),
        ("360p", "normal", "normal")
    );
    assert_eq!(Quality::parse(DEFAULT_QUALITY), Some(Quality::Q360p));
    assert_eq!(DEFAULT_N_VIDEO_ITER, 1);
    assert_eq!(DEFAULT_SIZE, (1280, 720));
    assert_eq!(HUNYUAN_DEFAULT_SIZE, (480, 848));
    assert_eq!(HUNYUAN_SAMPLER, "euler");
    assert_eq!(
        (
            MULTI_IMAGE_SLOTS,
            MULTI_IMAGE_SS,
            MULTI_IMAGE_TASK_DOMAIN_TYPE
        ),
        (4, 52, 25)
    );
    assert_eq!(
        (MULTI_IMAGE_DEFAULT_RATIO, MULTI_IMAGE_DEFAULT_SIZE),
        ("9:16", (720, 1280))
    );
    assert_eq!(UPLOAD_CHUNK_SIZE, 20 * 1024 * 1024);
    assert_eq!(UPLOAD_MAX_FILE, 1024 * 1024 * 1024);
    assert_eq!((UPLOAD_CATEGORY_VIDEO, UPLOAD_CATEGORY_AUDIO), (8, 59));
    assert_eq!(COVER_RETRY_WAITS_MS, [300, 500, 800]);
    assert_eq!(STREAM_BUFFERS, (0.5, 10.0, 30.0));
    assert_eq!(STYLE_REFERENCE_LEVELS[0], (1, "Max"));
    assert_eq!(STYLE_REFERENCE_LEVELS[4], (5, "Low"));
    assert!(m("kl_v1.6").multi_image);
    assert!(m(MULTI_IMAGE_DEFAULT_MODEL).multi_image);
}
