//! Tests of the task rules, continued: upscale sizes and limits, input
//! URLs and uploads, the studio LoRA family check, seeds, numbers.
use super::*;
use crate::task::defaults::RANDOM_SEED_MAX;

#[test]
fn upscale_output_and_limit() {
    // (source via, ratio, expected output or error)
    let table: Vec<(
        serde_json::Value,
        serde_json::Value,
        Result<(u32, u32, f32), ErrorCode>,
    )> = vec![
        (
            json!({"width": 1024, "height": 1536}),
            json!(null),
            Ok((2048, 3072, 2.0)),
        ),
        (
            json!({"width": 1024, "height": 1536}),
            json!(2.5),
            Ok((2560, 3840, 2.5)),
        ),
        (
            json!({"width": 2048, "height": 2048}),
            json!(2),
            Ok((4096, 4096, 2.0)),
        ),
        (
            json!({"width": 2048, "height": 2049}),
            json!(2),
            Err(ErrorCode::ImageSizeExceedsError),
        ),
        (
            json!({"width": 1500, "height": 1000}),
            json!(3),
            Err(ErrorCode::ImageSizeExceedsError),
        ),
        (
            json!({"width": 512, "height": 512}),
            json!(9),
            Ok((2048, 2048, 4.0)),
        ),
        (
            json!({"width": 512, "height": 512}),
            json!(0.5),
            Ok((512, 512, 1.0)),
        ),
        (
            json!({"width": 512, "height": 512}),
            json!(0),
            Ok((1024, 1024, 2.0)),
        ),
        (
            json!({"imgFiles": [{"url": IMG, "width": 600, "height": 400}]}),
            json!(2),
            Ok((1200, 800, 2.0)),
        ),
        (
            json!({"imgFiles": [{"url": IMG}]}),
            json!(2),
            Err(ErrorCode::InvalidParams),
        ),
    ];
    for (src, ratio, want) in table {
        let mut meta = json!({"imageUrl": IMG, "scaling_ratio": ratio});
        if let (Some(m), Some(s)) = (meta.as_object_mut(), src.as_object()) {
            for (k, v) in s {
                m.insert(k.clone(), v.clone());
            }
        }
        for a in [Action::Upscale, Action::ExtraUpscale] {
            let got = run(&req(json!({ "meta": meta })), a, &PAID)
                .map(|p| (p.job.width, p.job.height, p.job.upscale_ratio));
            assert_eq!(got, want, "{src} {ratio}");
        }
    }
    let p = run(&req(json!({"meta": {"imageUrl": IMG, "width": 512, "height": 512, "up_scaler": "r-esrgan 4x+"}})), Action::Upscale, &PAID).unwrap();
    assert_eq!(
        (p.job.model.as_str(), p.job.family.as_str()),
        ("R-ESRGAN 4x+", "upscaler")
    );
    let p = run(
        &req(json!({"meta": {"imageUrl": IMG, "width": 512, "height": 512}})),
        Action::Upscale,
        &PAID,
    )
    .unwrap();
    assert_eq!(p.job.model, "4x-UltraSharp");
    let bad =
        req(json!({"meta": {"imageUrl": IMG, "width": 512, "height": 512, "up_scaler": "magic"}}));
    assert_eq!(
        run(&bad, Action::Upscale, &PAID).unwrap_err(),
        ErrorCode::InvalidParams
    );
}

#[test]
fn image_urls() {
    let table = [
        ("https://cdn.example.com/a.png", true),
        ("http://localhost:8080/files/a.png", true),
        ("HTTPS://CDN.EXAMPLE.COM/A.PNG", true),
        ("/files/ab/cd.png", true),
        ("/files/", false),
        ("/files/../etc/passwd", false),
        ("/files/a//b.png", false),
        ("/other/a.png", false),
        ("data:image/png;base64,AAAA", false),
        ("blob:https://x/y", false),
        ("file:///etc/passwd", false),
        ("ftp://x/y.png", false),
        ("https://", false),
        ("https:///a.png", false),
        ("https://user@host/a.png", false),
        ("https://x/a b.png", false),
        (" https://x/a.png", false),
        ("https://x/a\\b.png", false),
        ("", false),
    ];
    for (url, want) in table {
        assert_eq!(is_valid_image_url(url), want, "{url}");
    }
    assert!(!is_valid_image_url(&format!(
        "https://x/{}",
        "a".repeat(2100)
    )));
}

#[test]
fn mask_and_inputs_must_be_uploaded() {
    let r = full(
        Action::ImageToImage,
        json!({"mask": "data:image/png;base64,AAAA"}),
    );
    assert_eq!(
        run(&r, Action::ImageToImage, &PAID).unwrap_err(),
        ErrorCode::UploadError
    );
    let r = full(
        Action::ImageToImage,
        json!({"mask": "https://cdn.example.com/mask.png"}),
    );
    assert!(run(&r, Action::ImageToImage, &PAID).is_ok());
    for a in [
        Action::ImageToImage,
        Action::Upscale,
        Action::Descriptors,
        Action::Animation,
    ] {
        let r = full(a, json!({"imageUrl": "C:\\pics\\cat.png"}));
        assert_eq!(
            run(&r, a, &PAID).unwrap_err(),
            ErrorCode::UploadError,
            "{a:?}"
        );
    }
    let r = full(
        Action::FaceSwap,
        json!({"exchange_face": {"source_uri": "/files/a.png", "target_uri": "x.png"}}),
    );
    assert_eq!(
        run(&r, Action::FaceSwap, &PAID).unwrap_err(),
        ErrorCode::UploadError
    );
    // The mask's source image is at most 4096 a side.
    let r = full(
        Action::ImageToImage,
        json!({"mask": "/files/m.png", "width": 1024, "height": 1024, "imgFiles": [{"url": IMG, "width": 5000, "height": 3000}]}),
    );
    assert_eq!(
        run(&r, Action::ImageToImage, &PAID).unwrap_err(),
        ErrorCode::ImageSizeExceedsError
    );
}

#[test]
fn studio_lora_family_check() {
    // (category, checkpoint, lora, lora_ignore, expected)
    let table = [
        (7, "studio-enhance-xl-1", "pixel-art-xl", None, Ok(())),
        (
            7,
            "studio-enhance-xl-1",
            "detail-tweaker",
            None,
            Err(ErrorCode::Studio25),
        ),
        (
            7,
            "studio-enhance-xl-1",
            "detail-tweaker",
            Some(false),
            Err(ErrorCode::Studio25),
        ),
        (
            7,
            "studio-enhance-xl-1",
            "detail-tweaker",
            Some(true),
            Ok(()),
        ),
        (
            11,
            "studio-il-1",
            "pixel-art-xl",
            None,
            Err(ErrorCode::Studio25),
        ),
        (11, "studio-il-1", "il-sketch", None, Ok(())),
        (1, "sd15-v1", "pixel-art-xl", None, Ok(())),
    ];
    for (cat, ckpt, lora, ignore, want) in table {
        let r = req(
            json!({"category": cat, "meta": {"prompt": "a", "art_model_ver_no": ckpt, "lora_ignore": ignore, "lora_models": [{"model_id": lora}]}}),
        );
        assert_eq!(
            run(&r, Action::TextToImage, &PAID).map(|_| ()),
            want,
            "{cat} {ckpt} {lora} {ignore:?}"
        );
    }
}

#[test]
fn seeds() {
    // (seed sent, expected)
    let table = [
        (json!(null), Ok(777)),
        (json!(""), Ok(777)),
        (json!(0), Ok(777)),
        (json!(-1), Ok(777)),
        (json!("-1"), Ok(777)),
        (json!(42), Ok(42)),
        (json!("4294967294"), Ok(4_294_967_294)),
        (json!(4_294_967_295_i64), Err(ErrorCode::InvalidParams)),
        (json!(-2), Err(ErrorCode::InvalidParams)),
    ];
    for (seed, want) in table {
        let got =
            run(&t2i(json!({ "seed": seed })), Action::TextToImage, &PAID).map(|p| p.job.seed);
        assert_eq!(got, want, "{seed}");
    }
    assert_eq!(resolve_seed(None, u64::MAX), Ok(RANDOM_SEED_MAX));
    // sdxl reads seedsdxl first.
    let r = req(json!({"category": 5, "meta": {"prompt": "a", "seed": 5, "seedsdxl": 9}}));
    assert_eq!(run(&r, Action::TextToImage, &PAID).unwrap().job.seed, 9);
    let r = req(json!({"category": 5, "meta": {"prompt": "a", "seed": 5}}));
    assert_eq!(run(&r, Action::TextToImage, &PAID).unwrap().job.seed, 5);
}

#[test]
fn numeric_normalisations() {
    // (category, meta, steps, cfg, denoising)
    let table = [
        (1, json!({}), 20, 7.0, 0.35),
        (
            1,
            json!({"steps": 500, "cfg_scale": 99, "denoising_strength": 3}),
            150,
            30.0,
            1.0,
        ),
        (
            1,
            json!({"steps": 0, "cfg_scale": 0.1, "denoising_strength": -1}),
            20,
            1.0,
            0.0,
        ),
        (1, json!({"steps": -4}), 20, 7.0, 0.35),
        (1, json!({"steps": 10}), 10, 7.0, 0.35),
        (7, json!({"steps": 10}), 30, 6.0, 0.5),
        (7, json!({"steps": 24}), 30, 6.0, 0.5),
        (7, json!({"steps": 25}), 25, 6.0, 0.5),
        (11, json!({"steps": 1}), 30, 6.0, 0.5),
        (5, json!({}), 30, 7.0, 0.35),
        (5, json!({"cfg_scale": "4.5", "steps": "12"}), 12, 4.5, 0.35),
    ];
    for (cat, extra, steps, cfg, den) in table {
        let mut meta = json!({"prompt": "a"});
        if cat == 1 {
            meta["art_model_ver_no"] = json!("sd15-v1");
        }
        if let (Some(m), Some(e)) = (meta.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                m.insert(k.clone(), v.clone());
            }
        }
        let j = run(
            &req(json!({"category": cat, "meta": meta})),
            Action::TextToImage,
            &PAID,
        )
        .unwrap()
        .job;
        assert_eq!(
            (j.steps, j.cfg_scale, j.denoising_strength),
            (steps, cfg, den),
            "{cat} {extra}"
        );
    }
}
