//! Tests of the task rules, continued: defaults per category and family,
//! sizes, expansion, animation, costs, validation order, gen_mode.
use super::*;

#[test]
fn defaults_per_category_and_family() {
    // (category, model, sampler, cfg, steps, width, height, negative contains)
    let table = [
        (
            None,
            Some("sd15-v1"),
            "DPM++ 2M Karras",
            7.0,
            20,
            624,
            936,
            "",
        ),
        (None, Some("flux-dev-1"), "Euler", 3.5, 20, 688, 1024, ""),
        (
            None,
            Some("sd35-large-1"),
            "DPM++ 2M Karras",
            7.0,
            20,
            832,
            1216,
            "",
        ),
        (
            Some(5),
            None,
            "DPM++ 2M Karras",
            7.0,
            30,
            832,
            1216,
            "worst quality",
        ),
        (Some(7), None, "DPM++ 2M Karras", 6.0, 30, 832, 1216, ""),
        (
            Some(7),
            Some("studio-il-1"),
            "DPM++ 2M Karras",
            6.0,
            30,
            832,
            1216,
            "",
        ),
        (
            None,
            Some("seadream-3"),
            "DPM++ 2M Karras",
            7.0,
            20,
            1208,
            1808,
            "",
        ),
    ];
    for (cat, model, sampler, cfg, steps, w, h, neg) in table {
        let r = req(json!({"category": cat, "meta": {"prompt": "a", "art_model_ver_no": model}}));
        let j = run(&r, Action::TextToImage, &PAID).unwrap().job;
        assert_eq!(j.sampler, sampler, "{cat:?} {model:?}");
        assert_eq!(
            (j.cfg_scale, j.steps, j.width, j.height),
            (cfg, steps, w, h),
            "{cat:?} {model:?}"
        );
        assert!(j.negative_prompt.contains(neg));
        assert_eq!(j.negative_prompt.is_empty(), neg.is_empty());
    }
    // A sent negative prompt wins; sdxl prefers negative_prompt_sdxl.
    let r = req(
        json!({"category": 5, "meta": {"prompt": "a", "negative_prompt": "blurry", "negative_prompt_sdxl": "ugly"}}),
    );
    assert_eq!(
        run(&r, Action::TextToImage, &PAID)
            .unwrap()
            .job
            .negative_prompt,
        "ugly"
    );
    let r = req(json!({"category": 5, "meta": {"prompt": "a", "negative_prompt": "blurry"}}));
    assert_eq!(
        run(&r, Action::TextToImage, &PAID)
            .unwrap()
            .job
            .negative_prompt,
        "blurry"
    );
    // Samplers by id or name; unknown refused.
    let j = run(
        &t2i(json!({"sampler_name": "euler_a"})),
        Action::TextToImage,
        &PAID,
    )
    .unwrap()
    .job;
    assert_eq!(j.sampler, "Euler a");
    assert_eq!(
        run(
            &t2i(json!({"sampler_name": "warp"})),
            Action::TextToImage,
            &PAID
        )
        .unwrap_err(),
        ErrorCode::InvalidParams
    );
    // Image-to-image keeps its denoising default; studio's is 0.5.
    let j = run(
        &full(Action::ImageToImage, json!({})),
        Action::ImageToImage,
        &PAID,
    )
    .unwrap()
    .job;
    assert_eq!((j.denoising_strength, j.width, j.height), (0.35, 512, 768));
}

#[test]
fn sizes() {
    // (category, model, meta sizes, expected)
    let table: Vec<(
        Option<u16>,
        &str,
        serde_json::Value,
        Result<(u32, u32), ErrorCode>,
    )> = vec![
        (
            None,
            "sd15-v1",
            json!({"width": 768, "height": 432}),
            Ok((768, 432)),
        ),
        (
            None,
            "sd15-v1",
            json!({"width": 1024, "height": 1024}),
            Ok((1024, 1024)),
        ),
        (
            None,
            "sd15-v1",
            json!({"width": 1536, "height": 1536}),
            Err(ErrorCode::ImageSizeTooLarge),
        ),
        (
            None,
            "sd15-v1",
            json!({"width": 256, "height": 256}),
            Err(ErrorCode::ImageSizeTooSmall),
        ),
        (
            None,
            "sd15-v1",
            json!({"width": 1024, "height": 400}),
            Err(ErrorCode::ImageRatioInvalid),
        ),
        (
            None,
            "sd15-v1",
            json!({"width": 0, "height": -5}),
            Ok((1024, 1024)),
        ),
        (
            None,
            "sd15-v1",
            json!({"width": "", "height": ""}),
            Ok((624, 936)),
        ),
        (
            None,
            "sd15-v1",
            json!({"width": 5_000_000_000_i64, "height": 1024}),
            Err(ErrorCode::ImageSizeTooLarge),
        ),
        (
            None,
            "flux-dev-1",
            json!({"width": 1536, "height": 1536}),
            Ok((1536, 1536)),
        ),
        (
            None,
            "flux-dev-1",
            json!({"width": 384, "height": 384}),
            Ok((384, 384)),
        ),
        (
            None,
            "flux-dev-1",
            json!({"width": 1024, "height": 2048}),
            Err(ErrorCode::ImageSizeTooLarge),
        ),
        (
            None,
            "sdxl-base-1.0",
            json!({"width": 1536, "height": 640}),
            Err(ErrorCode::ImageRatioInvalid),
        ),
        (
            None,
            "sdxl-base-1.0",
            json!({"width": 1440, "height": 810}),
            Ok((1440, 810)),
        ),
        (
            None,
            "seadream-3",
            json!({"width": 2048, "height": 880}),
            Ok((2048, 880)),
        ),
        (
            Some(5),
            "sdxl-base-1.0",
            json!({"sdxl": {"width": 1024, "height": 1024}, "width": 600, "height": 600}),
            Ok((1024, 1024)),
        ),
        (
            Some(7),
            "studio-enhance-xl-1",
            json!({"studio": {"width": 700, "height": 900}}),
            Err(ErrorCode::ImageSizeTooSmall),
        ),
        (
            Some(7),
            "studio-enhance-xl-1",
            json!({"studio": {"width": 1168, "height": 912}}),
            Ok((1168, 912)),
        ),
        (None, "sd15-v1", json!({"imageMode": 1}), Ok((352, 512))),
        (
            None,
            "sdxl-base-1.0",
            json!({"imageMode": 1}),
            Err(ErrorCode::ImageSizeTooSmall),
        ),
        (None, "sd15-v1", json!({"imageMode": 2}), Ok((512, 768))),
        (None, "sd15-v1", json!({"imageMode": 3}), Ok((688, 1024))),
        (None, "sd15-v1", json!({"imageMode": 4}), Ok((688, 1024))),
        (
            None,
            "sdxl-base-1.0",
            json!({"imageMode": 9}),
            Ok((832, 1216)),
        ),
    ];
    for (cat, model, sizes, want) in table {
        let mut meta = json!({"prompt": "a", "art_model_ver_no": model});
        if let (Some(m), Some(s)) = (meta.as_object_mut(), sizes.as_object()) {
            for (k, v) in s {
                m.insert(k.clone(), v.clone());
            }
        }
        let got = run(
            &req(json!({"category": cat, "meta": meta})),
            Action::TextToImage,
            &PAID,
        )
        .map(|p| (p.job.width, p.job.height));
        assert_eq!(got, want, "{cat:?} {model} {sizes}");
    }
    // Image-to-image: mode 4 is allowed (text-to-image stops at 3); a big
    // source without a size is fitted to the family.
    let r = full(
        Action::ImageToImage,
        json!({"art_model_ver_no": "sdxl-base-1.0", "imageMode": 4}),
    );
    assert_eq!(
        run(&r, Action::ImageToImage, &PAID).map(|p| (p.job.width, p.job.height)),
        Ok((1024, 1536))
    );
    let r = full(
        Action::ImageToImage,
        json!({"imgFiles": [{"url": IMG, "width": 3000, "height": 2000}]}),
    );
    assert_eq!(
        run(&r, Action::ImageToImage, &PAID).map(|p| (p.job.width, p.job.height)),
        Ok((1024, 680))
    );
    // Tools keep the source size, at most 4096.
    let r = full(
        Action::RemoveBackground,
        json!({"imgFiles": [{"url": IMG, "width": 3000, "height": 2000}]}),
    );
    assert_eq!(
        run(&r, Action::RemoveBackground, &PAID).map(|p| (p.job.width, p.job.height)),
        Ok((3000, 2000))
    );
    let r = full(
        Action::Descriptors,
        json!({"imgFiles": [{"url": IMG, "width": 5000, "height": 2000}]}),
    );
    assert_eq!(
        run(&r, Action::Descriptors, &PAID).unwrap_err(),
        ErrorCode::ImageSizeExceedsError
    );
}

#[test]
fn expansion_canvas_and_margins() {
    // source 512x768 (imgFiles); (meta, expected (w, h, left, up) or error)
    let table: Vec<(serde_json::Value, Result<(u32, u32, u32, u32), ErrorCode>)> = vec![
        (
            json!({"width": 1024, "height": 1024}),
            Ok((1024, 1024, 256, 128)),
        ),
        (
            json!({"width": 1024, "height": 1024, "left_margin": 0, "up_margin": 256}),
            Ok((1024, 1024, 0, 256)),
        ),
        (
            json!({"width": 1024, "height": 1024, "left_margin": 513, "up_margin": 0}),
            Err(ErrorCode::InvalidParams),
        ),
        (
            json!({"width": 1024, "height": 1024, "left_margin": 512, "up_margin": 257}),
            Err(ErrorCode::InvalidParams),
        ),
        (
            json!({"width": 1024, "height": 1024, "left_margin": -1}),
            Err(ErrorCode::InvalidParams),
        ),
        (
            json!({"width": 4097, "height": 1024}),
            Err(ErrorCode::ImageSizeExceedsError),
        ),
        (
            json!({"width": 256, "height": 1024}),
            Err(ErrorCode::ImageSizeTooSmall),
        ),
        (
            json!({"width": 4096, "height": 4096}),
            Ok((4096, 4096, 1792, 1664)),
        ),
        (json!({"width": 0, "height": 0}), Ok((1024, 1024, 256, 128))),
        (
            json!({"imgFiles": [{"url": IMG}], "width": 1024, "height": 1024, "left_margin": 1023}),
            Ok((1024, 1024, 1023, 0)),
        ),
        (
            json!({"imgFiles": [{"url": IMG}], "width": 1024, "height": 1024, "left_margin": 1024}),
            Err(ErrorCode::InvalidParams),
        ),
    ];
    for (extra, want) in table {
        let got = run(
            &full(Action::Expansion, extra.clone()),
            Action::Expansion,
            &PAID,
        )
        .map(|p| {
            (
                p.job.width,
                p.job.height,
                p.job.left_margin,
                p.job.up_margin,
            )
        });
        assert_eq!(got, want, "{extra}");
    }
}

#[test]
fn animation_frames_and_face_strength() {
    // (animatediff, frames)
    let table = [
        (json!(null), 16),
        (json!({}), 16),
        (json!({"frames": 24}), 24),
        (json!({"frames": 100}), 48),
        (json!({"frames": 0}), 16),
        (json!({"frames": -3}), 16),
    ];
    for (ad, want) in table {
        let p = run(
            &full(Action::Animation, json!({"animatediff": ad})),
            Action::Animation,
            &PAID,
        )
        .unwrap();
        assert_eq!(p.job.frames, want, "{ad}");
    }
    assert_eq!(
        run(
            &full(Action::TextToImage, json!({})),
            Action::TextToImage,
            &PAID
        )
        .unwrap()
        .job
        .frames,
        0
    );
    let fs = |a: Action, extra| run(&full(a, extra), a, &PAID).unwrap().job.face_strength;
    assert_eq!(fs(Action::FaceSwap, json!({})), 1.5);
    assert_eq!(
        fs(
            Action::FaceSwap,
            json!({"exchange_face": {"source_uri": IMG, "target_uri": IMG, "face_distance": 9}})
        ),
        3.0
    );
    assert_eq!(fs(Action::CharacterRepair, json!({})), 0.6);
    assert_eq!(fs(Action::TextToImage, json!({})), 0.0);
}

#[test]
fn cost_and_estimate() {
    // (caller, category, model, n_iter, expected cost)
    let table = [
        (FREE, None, "sd15-v1", None, 2),
        (PAID, None, "sd15-v1", None, 4),
        (PAID, Some(5), "sdxl-base-1.0", Some(4), 8),
        (VISITOR, None, "sd15-v1", None, 0),
    ];
    for (caller, cat, model, n, want) in table {
        let r = req(
            json!({"category": cat, "meta": {"prompt": "a", "art_model_ver_no": model, "n_iter": n}}),
        );
        let p = run(&r, Action::TextToImage, &caller).unwrap();
        assert_eq!(p.cost, want, "{:?} {model}", caller.role);
        assert_eq!(p.estimate_secs, estimate_secs(&p.job));
        if caller.role != Role::Visitor {
            assert_eq!(p.cost, cost(&p.job, p.speed));
        }
    }
}

#[test]
fn validation_order_follows_the_client() {
    use ErrorCode::*;
    // Each row fixes the previous row's first fault, so the next one shows.
    let rows: Vec<(Action, Caller, serde_json::Value, ErrorCode)> = vec![
        (
            Action::ImageToImage,
            VISITOR,
            json!({"category": 1, "meta": {}}),
            NeedLogin,
        ),
        (
            Action::ImageToImage,
            FREE,
            json!({"meta": {"lora_models": [{}, {}, {}, {}]}}),
            LoRALimit5TipWeb,
        ),
        (
            Action::ImageToImage,
            FREE,
            json!({"meta": {"mask": "bad"}}),
            PleaseUploadImage,
        ),
        (
            Action::ImageToImage,
            FREE,
            json!({"meta": {"imageUrl": IMG, "mask": "bad"}}),
            PromptNotEmpty,
        ),
        (
            Action::ImageToImage,
            FREE,
            json!({"meta": {"imageUrl": IMG, "mask": "bad", "prompt": "a"}}),
            PleaseSelectBaseName,
        ),
        (
            Action::ImageToImage,
            FREE,
            json!({"meta": {"imageUrl": IMG, "mask": "bad", "prompt": "a", "art_model_ver_no": "sd15-v1"}}),
            UploadError,
        ),
        (
            Action::Upscale,
            FREE,
            json!({"meta": {"imageUrl": "bad", "width": 4000, "height": 10}}),
            ImageSizeExceedsError,
        ),
        (
            Action::Upscale,
            FREE,
            json!({"meta": {"imageUrl": "bad", "width": 400, "height": 10}}),
            UploadError,
        ),
        (
            Action::TextToImage,
            FREE,
            json!({"category": 7, "meta": {"prompt": "a", "lora_models": [{"model_id": "detail-tweaker"}], "studio": {"width": 10, "height": 10}}}),
            Studio25,
        ),
        (
            Action::TextToImage,
            FREE,
            json!({"category": 7, "meta": {"prompt": "a", "lora_models": [{"model_id": "pixel-art-xl"}], "studio": {"width": 10, "height": 10}, "seed": -9}}),
            ImageSizeTooSmall,
        ),
        (
            Action::TextToImage,
            FREE,
            json!({"category": 7, "meta": {"prompt": "a", "seed": -9}}),
            InvalidParams,
        ),
    ];
    for (a, caller, body, want) in rows {
        assert_eq!(
            run(&req(body.clone()), a, &caller).unwrap_err(),
            want,
            "{body}"
        );
    }
}

#[test]
fn create_needs_an_action() {
    assert_eq!(
        action_of(&req(json!({"meta": {}}))),
        Err(ErrorCode::InvalidParams)
    );
    assert_eq!(
        action_of(&req(json!({"action": 9}))),
        Ok(Action::ImageToImage)
    );
}

#[test]
fn every_family_generates_its_presets() {
    // Every aspect size the catalogue offers for a checkpoint's family is
    // accepted by prepare for that checkpoint.
    let cat = catalogue();
    for k in cat.checkpoints.iter().filter(|k| !k.category.is_studio()) {
        for a in &cat.aspects {
            for s in a.sizes.iter().filter(|s| s.family == k.family) {
                for sz in [s.standard, s.quality] {
                    let r = req(
                        json!({"meta": {"prompt": "a", "art_model_ver_no": k.model_ver_no, "width": sz.width, "height": sz.height}}),
                    );
                    let p = run(&r, Action::TextToImage, &PAID)
                        .unwrap_or_else(|e| panic!("{} {} {sz:?}: {e}", k.name, a.label));
                    assert_eq!((p.job.width, p.job.height), (sz.width, sz.height));
                }
            }
        }
    }
    for preset in &cat.studio_presets {
        let r = req(
            json!({"category": 7, "meta": {"prompt": "a", "studio": {"width": preset.width, "height": preset.height}}}),
        );
        assert!(run(&r, Action::TextToImage, &PAID).is_ok(), "{preset:?}");
    }
}

#[test]
fn gen_mode_needs_the_unlimited_queue() {
    let cases = [
        (Some(1), false, 3, 0),
        (None, false, 3, 0),
        (Some(1), true, 1, 1),
        (Some(0), true, 3, 0),
        (None, true, 1, 0),
        (None, true, 2, 1),
        (Some(7), true, 0, 1),
    ];
    for (req, inf, level, want) in cases {
        assert_eq!(gen_mode(req, inf, level), want, "{req:?} {inf} {level}");
    }
}
