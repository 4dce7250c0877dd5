//! Tests of the task rules (`rules.rs`): every rule of spec 1 §5, §6, §9.
// The tables spell out their row types where they are read.
#![allow(clippy::type_complexity)]
use super::*;
use crate::task::job::ControlSpec;
use serde_json::json;

const FREE: Caller = Caller {
    role: Role::Free,
    stored_speed: None,
};
const PAID: Caller = Caller {
    role: Role::Paid,
    stored_speed: None,
};
const VISITOR: Caller = Caller {
    role: Role::Visitor,
    stored_speed: None,
};
const IMG: &str = "https://cdn.example.com/in.png";

fn req(v: serde_json::Value) -> CreateTaskRequest {
    serde_json::from_value(v).unwrap()
}

/// A valid text-to-image request on the sd family.
fn t2i(meta: serde_json::Value) -> CreateTaskRequest {
    let mut base = json!({"prompt": "a cat", "art_model_ver_no": "sd15-v1"});
    if let (Some(b), Some(m)) = (base.as_object_mut(), meta.as_object()) {
        for (k, v) in m {
            b.insert(k.clone(), v.clone());
        }
    }
    req(json!({ "meta": base }))
}

fn run(r: &CreateTaskRequest, a: Action, c: &Caller) -> Result<Prepared, ErrorCode> {
    prepare(r, a, c, 777)
}

/// A request that satisfies every action's input needs.
fn full(action: Action, extra: serde_json::Value) -> CreateTaskRequest {
    let mut meta = json!({
        "prompt": "a cat", "art_model_ver_no": "sd15-v1", "imageUrl": IMG,
        "imgFiles": [{"url": IMG, "width": 512, "height": 768}],
        "exchange_face": {"source_uri": "/files/face.png", "target_uri": "/files/body.png"},
    });
    if let (Some(b), Some(m)) = (meta.as_object_mut(), extra.as_object()) {
        for (k, v) in m {
            b.insert(k.clone(), v.clone());
        }
    }
    let _ = action;
    req(json!({ "meta": meta }))
}

#[test]
fn visitors_have_only_the_starter_flow() {
    for a in Action::ALL {
        let r = run(&full(*a, json!({})), *a, &VISITOR);
        if *a == Action::TextToImage {
            let p = r.unwrap();
            assert_eq!((p.job.n_iter, p.cost, p.speed), (1, 0, SpeedType::Normal));
        } else {
            assert_eq!(r.unwrap_err(), ErrorCode::NeedLogin, "{a:?}");
        }
    }
    let with_lora = t2i(json!({"lora_models": [{"model_id": "detail-tweaker"}]}));
    assert_eq!(
        run(&with_lora, Action::TextToImage, &VISITOR).unwrap_err(),
        ErrorCode::NeedLogin
    );
    // n_iter 4 asked: still 1; size over 1024 scaled down keeping the ratio.
    let big = req(
        json!({"category": 5, "meta": {"prompt": "x", "n_iter": 4, "sdxl": {"width": 1536, "height": 1536}}}),
    );
    let p = run(&big, Action::TextToImage, &VISITOR).unwrap();
    assert_eq!((p.job.width, p.job.height, p.job.n_iter), (1024, 1024, 1));
    let tall = req(json!({"category": 5, "meta": {"prompt": "x", "width": 832, "height": 1216}}));
    let p = run(&tall, Action::TextToImage, &VISITOR).unwrap();
    assert_eq!((p.job.width, p.job.height), (704, 1024));
}

#[test]
fn lora_limit_by_role() {
    let loras = |n: usize| -> serde_json::Value {
        let ids = [
            "detail-tweaker",
            "lineart-sd",
            "watercolor-sd",
            "detail-tweaker-1",
            "lineart-sd-1",
        ];
        json!({"lora_models": ids.iter().take(n).map(|id| json!({"model_id": id})).collect::<Vec<_>>()})
    };
    // (role, count, expected)
    let table = [
        (FREE, 0, Ok(0)),
        (FREE, 3, Ok(3)),
        (FREE, 4, Err(ErrorCode::LoRALimit5TipWeb)),
        (FREE, 5, Err(ErrorCode::LoRALimit5TipWeb)),
        (PAID, 4, Ok(4)),
        (PAID, 5, Ok(5)),
        (VISITOR, 1, Err(ErrorCode::NeedLogin)),
    ];
    for (caller, n, want) in table {
        let got = run(&t2i(loras(n)), Action::TextToImage, &caller).map(|p| p.job.loras.len());
        assert_eq!(got, want, "{:?} {n}", caller.role);
    }
    // The limit comes before any other check (spec 1 §5 order).
    let r = req(json!({"meta": {"lora_models": [{}, {}, {}, {}]}}));
    assert_eq!(
        run(&r, Action::TextToImage, &FREE).unwrap_err(),
        ErrorCode::LoRALimit5TipWeb
    );
}

#[test]
fn lora_entries_resolve_and_clamp() {
    let r = t2i(json!({"lora_models": [
        {"model_ver_no": "detail-tweaker-1", "weight": 0.6},
        {"model_id": "lineart-sd"},
        {"model_id": "watercolor-sd", "weight": 9}
    ]}));
    let p = run(&r, Action::TextToImage, &PAID).unwrap();
    let got: Vec<(&str, f32)> = p
        .job
        .loras
        .iter()
        .map(|l| (l.model.as_str(), l.weight))
        .collect();
    assert_eq!(
        got,
        [
            ("detail-tweaker-1", 0.6),
            ("lineart-sd-1", 1.0),
            ("watercolor-sd-1", 2.0)
        ]
    );
    for bad in [json!({"model_id": "nope"}), json!({"weight": 1})] {
        let r = t2i(json!({ "lora_models": [bad] }));
        assert_eq!(
            run(&r, Action::TextToImage, &PAID).unwrap_err(),
            ErrorCode::InvalidParams
        );
    }
    // LoRAs do not travel with actions that run no checkpoint.
    let r = full(
        Action::Descriptors,
        json!({"lora_models": [{"model_id": "detail-tweaker"}]}),
    );
    assert!(run(&r, Action::Descriptors, &PAID)
        .unwrap()
        .job
        .loras
        .is_empty());
}

#[test]
fn speed_by_role() {
    // (role, requested, stored, expected)
    let table = [
        (Role::Free, None, None, SpeedType::Normal),
        (Role::Free, Some(2), None, SpeedType::Normal),
        (
            Role::Free,
            Some(2),
            Some(SpeedType::Fast),
            SpeedType::Normal,
        ),
        (Role::Paid, None, None, SpeedType::Fast),
        (Role::Paid, None, Some(SpeedType::Normal), SpeedType::Normal),
        (
            Role::Paid,
            Some(1),
            Some(SpeedType::Fast),
            SpeedType::Normal,
        ),
        (
            Role::Paid,
            Some(2),
            Some(SpeedType::Normal),
            SpeedType::Fast,
        ),
        (Role::Visitor, Some(2), None, SpeedType::Normal),
    ];
    for (role, requested, stored, want) in table {
        let r = req(
            json!({"speed_type": requested, "meta": {"prompt": "a", "art_model_ver_no": "sd15-v1"}}),
        );
        let caller = Caller {
            role,
            stored_speed: stored,
        };
        assert_eq!(
            run(&r, Action::TextToImage, &caller).unwrap().speed,
            want,
            "{role:?} {requested:?} {stored:?}"
        );
    }
}

#[test]
fn n_iter_defaults_and_clamps() {
    // (role, model, n_iter sent, expected)
    let table = [
        (FREE, "sd15-v1", None, 2),
        (PAID, "sd15-v1", None, 4),
        (FREE, "sd35-large-1", None, 4),
        (PAID, "sd35-large-1", None, 4),
        (FREE, "sd15-v1", Some(3), 3),
        (FREE, "sd15-v1", Some(9), 4),
        (PAID, "sd15-v1", Some(0), 1),
        (PAID, "sd15-v1", Some(-3), 1),
        (VISITOR, "sd15-v1", Some(4), 1),
    ];
    for (caller, model, n, want) in table {
        let r = req(json!({"meta": {"prompt": "a", "art_model_ver_no": model, "n_iter": n}}));
        assert_eq!(
            run(&r, Action::TextToImage, &caller).unwrap().job.n_iter,
            want,
            "{:?} {model} {n:?}",
            caller.role
        );
    }
    // Single-output actions make one.
    for a in [
        Action::Upscale,
        Action::Descriptors,
        Action::FaceSwap,
        Action::Animation,
        Action::CharacterRepair,
    ] {
        assert_eq!(
            run(&full(a, json!({"n_iter": 4})), a, &PAID)
                .unwrap()
                .job
                .n_iter,
            1,
            "{a:?}"
        );
    }
    assert_eq!(
        run(
            &full(Action::ImageToImage, json!({"n_iter": 3})),
            Action::ImageToImage,
            &PAID
        )
        .unwrap()
        .job
        .n_iter,
        3
    );
}

#[test]
fn image_tabs_need_their_images() {
    use Action::*;
    let missing = |a: Action| {
        if a == Animation {
            ErrorCode::PleaseSelectImage
        } else {
            ErrorCode::PleaseUploadImage
        }
    };
    for a in [
        Upscale,
        ExtraUpscale,
        ImageToImage,
        ConditionToImage,
        Descriptors,
        Preview,
        Expansion,
        FaceSwap,
        Animation,
        CharacterRepair,
        Variation,
        RemoveBackground,
    ] {
        let r = t2i(json!({}));
        assert_eq!(run(&r, a, &PAID).unwrap_err(), missing(a), "{a:?}");
        let empty = t2i(json!({"imageUrl": "", "imgFiles": [{"url": " "}]}));
        assert_eq!(
            run(&empty, a, &PAID).unwrap_err(),
            missing(a),
            "{a:?} empty"
        );
    }
    // Face swap needs both faces.
    let one = t2i(json!({"exchange_face": {"source_uri": IMG}}));
    assert_eq!(
        run(&one, FaceSwap, &PAID).unwrap_err(),
        ErrorCode::PleaseUploadImage
    );
    // Image checks come before the prompt check.
    let r = req(json!({"meta": {}}));
    assert_eq!(
        run(&r, ImageToImage, &PAID).unwrap_err(),
        ErrorCode::PleaseUploadImage
    );
}

#[test]
fn input_roles_per_action() {
    use Action::*;
    use InputRole::*;
    // (action, extra meta, expected roles and URLs)
    let table: Vec<(Action, serde_json::Value, Vec<(InputRole, &str)>)> = vec![
        (TextToImage, json!({}), vec![]),
        (ImageToImage, json!({}), vec![(Init, IMG)]),
        (
            ImageToImage,
            json!({"mask": "/files/mask.png"}),
            vec![(Init, IMG), (Mask, "/files/mask.png")],
        ),
        (
            ImageToImage,
            json!({"imageUrl": null, "imgFiles": [{"url": "/files/a.png"}]}),
            vec![(Init, "/files/a.png")],
        ),
        (Upscale, json!({}), vec![(Init, IMG)]),
        (ExtraUpscale, json!({}), vec![(Init, IMG)]),
        (Variation, json!({}), vec![(Init, IMG)]),
        (RemoveBackground, json!({}), vec![(Init, IMG)]),
        (Descriptors, json!({}), vec![(Init, IMG)]),
        (Preview, json!({}), vec![(Init, IMG)]),
        (
            Preview,
            json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "canny"}]}),
            vec![(Condition, "/files/c.png")],
        ),
        (ConditionToImage, json!({}), vec![(Condition, IMG)]),
        (
            ConditionToImage,
            json!({"controlnet_units": [{"input_image": ""}, {"input_image": "/files/c.png"}]}),
            vec![(Condition, "/files/c.png")],
        ),
        (
            Expansion,
            json!({"width": 1024, "height": 1024}),
            vec![(Init, IMG)],
        ),
        (
            FaceSwap,
            json!({}),
            vec![
                (FaceSource, "/files/face.png"),
                (FaceTarget, "/files/body.png"),
            ],
        ),
        (Animation, json!({}), vec![(Init, IMG)]),
        (CharacterRepair, json!({}), vec![(Init, IMG)]),
    ];
    for (a, extra, want) in table {
        let p = run(&full(a, extra), a, &PAID).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        let got: Vec<(InputRole, &str)> =
            p.input_urls.iter().map(|(r, u)| (*r, u.as_str())).collect();
        assert_eq!(got, want, "{a:?}");
        assert!(p.job.inputs.is_empty() && p.job.task_id.is_empty() && p.job.attempt == 0);
    }
}

#[test]
fn control_guidance() {
    let r = full(
        Action::ConditionToImage,
        json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "Depth", "weight": 5, "guidance_end": 0.4}]}),
    );
    let c = run(&r, Action::ConditionToImage, &PAID)
        .unwrap()
        .job
        .control
        .unwrap();
    assert_eq!(
        (c.module.as_str(), c.weight, c.guidance_end),
        ("depth", 2.0, 0.4)
    );
    let bare = run(
        &full(Action::ConditionToImage, json!({})),
        Action::ConditionToImage,
        &PAID,
    )
    .unwrap();
    assert_eq!(
        bare.job.control,
        Some(ControlSpec {
            module: "none".into(),
            weight: 1.0,
            guidance_end: 1.0
        })
    );
    let bad = full(
        Action::ConditionToImage,
        json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "telepathy"}]}),
    );
    assert_eq!(
        run(&bad, Action::ConditionToImage, &PAID).unwrap_err(),
        ErrorCode::InvalidParams
    );
    // Text-to-image with a control-net unit carries its condition.
    let t =
        t2i(json!({"controlnet_units": [{"input_image": "/files/c.png", "module": "openpose"}]}));
    let p = run(&t, Action::TextToImage, &PAID).unwrap();
    assert_eq!(p.job.control.unwrap().module, "openpose");
    assert_eq!(
        p.input_urls,
        vec![(InputRole::Condition, "/files/c.png".to_string())]
    );
    assert!(run(&t2i(json!({})), Action::TextToImage, &PAID)
        .unwrap()
        .job
        .control
        .is_none());
}

#[test]
fn text_tabs_need_a_prompt() {
    use Action::*;
    for a in [TextToImage, ImageToImage, ConditionToImage, Expansion] {
        for p in [json!(null), json!(""), json!("   "), json!("--auto --s2")] {
            let r = full(a, json!({"prompt": p, "width": 1024, "height": 1024}));
            assert_eq!(
                run(&r, a, &PAID).unwrap_err(),
                ErrorCode::PromptNotEmpty,
                "{a:?} {p}"
            );
        }
    }
    for a in [
        Upscale,
        Descriptors,
        Preview,
        FaceSwap,
        Animation,
        CharacterRepair,
        Variation,
        RemoveBackground,
    ] {
        assert!(
            run(&full(a, json!({"prompt": ""})), a, &PAID).is_ok(),
            "{a:?}"
        );
    }
    // local_prompt stands in for prompt.
    let r = t2i(json!({"prompt": "", "local_prompt": "un chat"}));
    assert_eq!(run(&r, TextToImage, &PAID).unwrap().prompt, "un chat");
    // Studio with a condition image is exempt; without one it is not; normal never.
    let studio_cond = req(
        json!({"category": 7, "meta": {"lab_base": {"conds": [{"image": "/files/c.png", "mode": "PyraCanny", "stop_at": 0.5, "weight": 0.8}]}}}),
    );
    let p = run(&studio_cond, TextToImage, &PAID).unwrap();
    assert_eq!(p.category, Category::Studio);
    let c = p.job.control.unwrap();
    assert_eq!(
        (c.module.as_str(), c.weight, c.guidance_end),
        ("pyracanny", 0.8, 0.5)
    );
    let studio_unit = req(
        json!({"category": 11, "meta": {"controlnet_units": [{"input_image": "/files/c.png"}]}}),
    );
    assert!(run(&studio_unit, TextToImage, &PAID).is_ok());
    let studio_plain = req(json!({"category": 7, "meta": {}}));
    assert_eq!(
        run(&studio_plain, TextToImage, &PAID).unwrap_err(),
        ErrorCode::PromptNotEmpty
    );
    let normal_cond = req(
        json!({"meta": {"art_model_ver_no": "sd15-v1", "controlnet_units": [{"input_image": "/files/c.png"}]}}),
    );
    assert_eq!(
        run(&normal_cond, TextToImage, &PAID).unwrap_err(),
        ErrorCode::PromptNotEmpty
    );
    // Length limit.
    let long = t2i(json!({"prompt": "a".repeat(PROMPT_MAX_CHARS + 1)}));
    assert_eq!(
        run(&long, TextToImage, &PAID).unwrap_err(),
        ErrorCode::InvalidParams
    );
    let max = t2i(json!({"prompt": "é".repeat(PROMPT_MAX_CHARS)}));
    assert!(run(&max, TextToImage, &PAID).is_ok());
    let neg = t2i(json!({"negative_prompt": "a".repeat(PROMPT_MAX_CHARS + 1)}));
    assert_eq!(
        run(&neg, TextToImage, &PAID).unwrap_err(),
        ErrorCode::InvalidParams
    );
}

#[path = "rules_tests_fields.rs"]
mod fields;
#[path = "rules_tests_limits.rs"]
mod limits;
#[path = "rules_tests_models.rs"]
mod models;
#[path = "rules_tests_sizes.rs"]
mod sizes;
