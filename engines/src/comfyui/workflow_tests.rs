//! Tests of the ComfyUI workflow templates (`workflow.rs`).
use super::*;
use protocol::task::job::{ControlSpec, LoraSpec};

fn job(action: Action) -> JobSpec {
    JobSpec {
        task_id: "t/1".into(),
        attempt: 1,
        action,
        family: "sdxl".into(),
        model: "sdxl_base".into(),
        loras: vec![],
        prompt: "a red fox".into(),
        negative_prompt: "blurry".into(),
        width: 832,
        height: 1216,
        n_iter: 3,
        steps: 25,
        cfg_scale: 6.5,
        seed: 1234,
        sampler: "DPM++ 2M Karras".into(),
        denoising_strength: 0.35,
        inputs: vec![],
        upscale_ratio: 2.0,
        left_margin: 16,
        up_margin: 32,
        control: None,
        frames: 0,
        face_strength: 0.0,
        video: None,
        audio: None,
        model_file: None,
        embeddings: Vec::new(),
        train: None,
    }
}

fn all_inputs() -> Inputs {
    Inputs {
        checkpoint: Some("sdxl.safetensors".into()),
        init_image: Some("init.png".into()),
        init_size: Some((512, 768)),
        mask_image: Some("mask.png".into()),
        condition_image: Some("cond.png".into()),
        controlnet: Some("cn.safetensors".into()),
    }
}

fn node<'a>(w: &'a Value, class: &str) -> &'a Value {
    w.as_object()
        .unwrap()
        .values()
        .find(|n| n["class_type"] == class)
        .unwrap_or_else(|| panic!("no {class}"))
}

#[test]
fn every_template_parses_and_fills() {
    for t in [
        Template::TextToImage,
        Template::ImageToImage,
        Template::ImageToImageMasked,
        Template::Upscale,
        Template::Expansion,
        Template::Condition,
        Template::ConditionCanny,
    ] {
        let w = build(&job(Action::TextToImage), t, &all_inputs()).unwrap();
        let text = w.to_string();
        assert!(!text.contains("\"$"), "{t:?} left a placeholder: {text}");
        // Every link points at a node that exists.
        for n in w.as_object().unwrap().values() {
            for v in n["inputs"].as_object().unwrap().values() {
                if let Some([Value::String(src), Value::Number(_)]) =
                    v.as_array().map(Vec::as_slice)
                {
                    assert!(w.get(src).is_some(), "{t:?}: dangling link to {src}");
                }
            }
        }
    }
}

#[test]
fn text_to_image_carries_the_jobs_values() {
    let w = build(
        &job(Action::TextToImage),
        Template::TextToImage,
        &all_inputs(),
    )
    .unwrap();
    let k = &node(&w, "KSampler")["inputs"];
    assert_eq!(k["seed"], 1234);
    assert_eq!(k["steps"], 25);
    assert_eq!(k["cfg"], 6.5);
    assert_eq!(k["sampler_name"], "dpmpp_2m");
    assert_eq!(k["scheduler"], "karras");
    let l = &node(&w, "EmptyLatentImage")["inputs"];
    assert_eq!(
        (
            l["width"].clone(),
            l["height"].clone(),
            l["batch_size"].clone()
        ),
        (json!(832), json!(1216), json!(3))
    );
    assert_eq!(w["6"]["inputs"]["text"], "a red fox");
    assert_eq!(w["7"]["inputs"]["text"], "blurry");
    assert_eq!(
        node(&w, "SaveImage")["inputs"]["filename_prefix"],
        "easel_t1"
    );
}

#[test]
fn a_prompt_looking_like_a_placeholder_stays_text() {
    let mut j = job(Action::TextToImage);
    j.prompt = "$seed".into();
    let w = build(&j, Template::TextToImage, &all_inputs()).unwrap();
    assert_eq!(w["6"]["inputs"]["text"], "$seed");
}

#[test]
fn a_missing_value_is_refused() {
    let mut i = all_inputs();
    i.checkpoint = None;
    let e = build(&job(Action::TextToImage), Template::TextToImage, &i).unwrap_err();
    assert!(e.to_string().contains("$checkpoint"), "{e}");
}

#[test]
fn loras_chain_between_checkpoint_and_consumers() {
    let mut j = job(Action::TextToImage);
    j.loras = vec![
        LoraSpec {
            model: "ink.safetensors".into(),
            weight: 0.8,
            file: None,
        },
        LoraSpec {
            model: "film".into(),
            weight: 0.4,
            file: None,
        },
    ];
    let w = build(&j, Template::TextToImage, &all_inputs()).unwrap();
    let loras: Vec<(&String, &Value)> = w
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, n)| n["class_type"] == "LoraLoader")
        .collect();
    assert_eq!(loras.len(), 2);
    let (first_id, first) = loras
        .iter()
        .find(|(_, n)| n["inputs"]["model"][0] == "4")
        .unwrap();
    assert_eq!(first["inputs"]["lora_name"], "ink.safetensors");
    assert_eq!(first["inputs"]["strength_model"], 0.8);
    let (last_id, last) = loras
        .iter()
        .find(|(_, n)| n["inputs"]["model"][0] == **first_id)
        .unwrap();
    assert_eq!(last["inputs"]["lora_name"], "film.safetensors");
    assert_eq!(last["inputs"]["clip"], json!([first_id, 1]));
    let k = &node(&w, "KSampler")["inputs"];
    assert_eq!(k["model"], json!([last_id, 0]));
    assert_eq!(w["6"]["inputs"]["clip"], json!([last_id, 1]));
    assert_eq!(w["7"]["inputs"]["clip"], json!([last_id, 1]));
    // The VAE stays on the checkpoint.
    assert_eq!(node(&w, "VAEDecode")["inputs"]["vae"], json!(["4", 2]));
}

#[test]
fn expansion_pads_to_the_canvas() {
    let mut j = job(Action::Expansion);
    j.width = 1024;
    j.height = 1024;
    let w = build(&j, Template::Expansion, &all_inputs()).unwrap();
    let p = &node(&w, "ImagePadForOutpaint")["inputs"];
    // Source 512 x 768 at (16, 32) in 1024 x 1024.
    assert_eq!(
        (
            p["left"].clone(),
            p["top"].clone(),
            p["right"].clone(),
            p["bottom"].clone()
        ),
        (json!(16), json!(32), json!(496), json!(224))
    );
    assert_eq!(
        node(&w, "VAEEncodeForInpaint")["inputs"]["mask"],
        json!(["11", 1])
    );
}

#[test]
fn variation_uses_a_fixed_denoise_and_img2img_the_jobs() {
    let w = build(
        &job(Action::Variation),
        Template::ImageToImage,
        &all_inputs(),
    )
    .unwrap();
    assert_eq!(node(&w, "KSampler")["inputs"]["denoise"], 0.5);
    let w = build(
        &job(Action::ImageToImage),
        Template::ImageToImageMasked,
        &all_inputs(),
    )
    .unwrap();
    assert_eq!(node(&w, "KSampler")["inputs"]["denoise"], 0.35);
    assert_eq!(node(&w, "SetLatentNoiseMask")["inputs"]["mask"][1], 1);
}

#[test]
fn upscale_without_a_size_uses_the_ratio() {
    let mut j = job(Action::Upscale);
    j.width = 0;
    j.height = 0;
    let w = build(&j, Template::Upscale, &all_inputs()).unwrap();
    let s = &node(&w, "ImageScale")["inputs"];
    assert_eq!(
        (s["width"].clone(), s["height"].clone()),
        (json!(1024), json!(1536))
    );
    assert_eq!(s["upscale_method"], "lanczos");
}

#[test]
fn condition_uses_the_control_settings() {
    let mut j = job(Action::ConditionToImage);
    j.control = Some(ControlSpec {
        module: "Canny".into(),
        weight: 0.7,
        guidance_end: 0.6,
    });
    assert_eq!(Template::for_job(&j, false), Some(Template::ConditionCanny));
    let w = build(&j, Template::ConditionCanny, &all_inputs()).unwrap();
    let a = &node(&w, "ControlNetApplyAdvanced")["inputs"];
    assert_eq!(a["strength"], 0.7);
    assert_eq!(a["end_percent"], 0.6);
    assert_eq!(a["image"], json!(["13", 0]));
    assert_eq!(node(&w, "KSampler")["inputs"]["positive"], json!(["12", 0]));
}

#[test]
fn samplers_map_to_comfy_names() {
    for (easel, name, sched) in [
        ("DPM++ 2M Karras", "dpmpp_2m", "karras"),
        ("Euler a", "euler_ancestral", "normal"),
        ("Euler", "euler", "normal"),
        ("DPM++ SDE Karras", "dpmpp_sde", "karras"),
        ("DPM++ 2M SDE Exponential", "dpmpp_2m_sde", "exponential"),
        ("DDIM", "ddim", "ddim_uniform"),
        ("UniPC", "uni_pc", "normal"),
        ("dpmpp_3m_sde", "dpmpp_3m_sde", "normal"),
        ("no such sampler", "euler", "normal"),
    ] {
        assert_eq!(sampler(easel), (name.to_string(), sched), "{easel}");
    }
}

#[test]
fn checkpoint_comes_from_the_model_or_the_setting() {
    let mut j = job(Action::TextToImage);
    assert_eq!(
        checkpoint_for(&j, Some("base.safetensors")).unwrap(),
        "base.safetensors"
    );
    let e = checkpoint_for(&j, None).unwrap_err();
    assert!(
        matches!(e, EngineError::BadInput(ref m) if m.contains("`checkpoint`")),
        "{e}"
    );
    j.model = "juggernaut.safetensors".into();
    assert_eq!(
        checkpoint_for(&j, Some("base.safetensors")).unwrap(),
        "juggernaut.safetensors"
    );
}
