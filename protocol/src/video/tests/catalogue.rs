//! The catalogue, aspect codes, actions and tabs, the payload's serde and
//! §9's constants.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::json;

use super::m;
use crate::video::codes::{restore_tab, VideoAction, VideoSubTab, VideoTab};
use crate::video::constants::*;
use crate::video::models::*;
use crate::video::request::*;
use crate::video::rules::resolve_size;

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
fn actions_tabs_and_restore() {
    for a in VideoAction::ALL {
        assert_eq!(VideoAction::from_code(i64::from(a.code())), Some(a));
        let v = serde_json::to_value(a).unwrap();
        assert_eq!(serde_json::from_value::<VideoAction>(v).unwrap(), a);
        // No clash with the image actions: a task action of the same code is
        // this video action's own.
        if let Some(t) = crate::task::Action::from_code(i64::from(a.code())) {
            assert_eq!(crate::task::Action::of_video(a), Some(t));
        }
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
    assert_eq!(back, std::slice::from_ref(&single));
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
        std::slice::from_ref(&live)
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
