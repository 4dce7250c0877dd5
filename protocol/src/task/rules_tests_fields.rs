//! Tests of the per-field rules (`rules_fields.rs`) through `prepare`:
//! prompt flags stripped and the base-model choice (spec 1 §5).
// The tables spell out their row types where they are read.
#![allow(clippy::type_complexity)]
use super::*;

#[test]
fn flags_are_stripped() {
    let table = [
        ("a cat --auto", "a cat"),
        ("--s2 a cat", "a cat"),
        ("a --AUTO cat --s2", "a cat"),
        ("a  --auto  b", "a   b"),
        ("a cat, --autopilot", "a cat, --autopilot"),
        ("line one --auto\nline two", "line one\nline two"),
        ("(a:1.2), [b] --s2", "(a:1.2), [b]"),
        ("--auto", ""),
    ];
    for (input, want) in table {
        assert_eq!(strip_flags(input), want, "{input}");
    }
    let p = run(
        &t2i(json!({"prompt": "a red fox --auto"})),
        Action::TextToImage,
        &PAID,
    )
    .unwrap();
    assert_eq!(
        (p.prompt.as_str(), p.job.prompt.as_str()),
        ("a red fox", "a red fox")
    );
}

#[test]
fn base_model_rules() {
    use Action::*;
    // (category, model fields, action, expected checkpoint or error)
    let table: Vec<(
        Option<u16>,
        serde_json::Value,
        Action,
        Result<&str, ErrorCode>,
    )> = vec![
        (
            None,
            json!({}),
            TextToImage,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (
            Some(1),
            json!({}),
            TextToImage,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (
            Some(2),
            json!({}),
            ImageToImage,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (
            Some(1),
            json!({}),
            ConditionToImage,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (
            Some(1),
            json!({}),
            Expansion,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (Some(5), json!({}), TextToImage, Ok("sdxl-base-1.0")),
        (Some(7), json!({}), TextToImage, Ok("studio-enhance-xl-1")),
        (Some(11), json!({}), TextToImage, Ok("studio-enhance-xl-1")),
        (Some(3), json!({}), TextToImage, Ok("sd15-v1")),
        (Some(1), json!({}), Variation, Ok("sd15-v1")),
        (Some(1), json!({}), Descriptors, Ok("sd15-v1")),
        (
            None,
            json!({"art_model_ver_no": "flux-dev-1"}),
            TextToImage,
            Ok("flux-dev-1"),
        ),
        (
            None,
            json!({"art_model_no": "juggernaut-xl"}),
            TextToImage,
            Ok("juggernaut-xl-9"),
        ),
        (
            None,
            json!({"art_work_no": "starter-anime"}),
            TextToImage,
            Ok("illustrious-xl-1.0"),
        ),
        (
            None,
            json!({"art_model_ver_no": "nope"}),
            TextToImage,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (
            Some(5),
            json!({"art_model_no": "nope"}),
            TextToImage,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (
            None,
            json!({"art_work_no": "nope"}),
            Descriptors,
            Err(ErrorCode::PleaseSelectBaseName),
        ),
        (
            Some(1),
            json!({"art_model_ver_no": "nope"}),
            Upscale,
            Ok("4x-UltraSharp"),
        ),
    ];
    for (cat, fields, a, want) in table {
        let mut meta = json!({"prompt": "a cat", "imageUrl": IMG, "imgFiles": [{"url": IMG, "width": 512, "height": 768}], "width": 1024, "height": 1024});
        if let (Some(m), Some(f)) = (meta.as_object_mut(), fields.as_object()) {
            for (k, v) in f {
                m.insert(k.clone(), v.clone());
            }
        }
        if a == Expansion || a == Upscale {
            meta["width"] = json!(null);
            meta["height"] = json!(null);
        }
        let r = req(json!({"category": cat, "meta": meta}));
        let got = run(&r, a, &PAID).map(|p| p.job.model);
        assert_eq!(
            got.as_deref().map_err(|e| *e),
            want,
            "{cat:?} {fields} {a:?}"
        );
    }
    // Request-level ids win over meta's; the category follows the checkpoint.
    let r = req(
        json!({"art_model_ver_no": "sdxl-base-1.0", "meta": {"prompt": "a", "art_model_ver_no": "sd15-v1"}}),
    );
    let p = run(&r, TextToImage, &PAID).unwrap();
    assert_eq!(
        (p.job.model.as_str(), p.job.family.as_str(), p.category),
        ("sdxl-base-1.0", "sdxl", Category::Sdxl)
    );
    let r = req(json!({"category": 2, "meta": {"prompt": "a", "art_model_ver_no": "sd15-v1"}}));
    assert_eq!(
        run(&r, TextToImage, &PAID).unwrap().category,
        Category::Normal
    );
}
