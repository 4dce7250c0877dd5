#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The ComfyUI adapter against a fake ComfyUI (`common::comfyui_fake`): an
//! actix-web server that speaks ComfyUI's documented HTTP routes and
//! WebSocket messages, records what the adapter sends, and answers with
//! real PNGs. It is a fake that follows the documented API, not a real
//! ComfyUI. Users' model files are tested in `comfyui_models`.

mod common;

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::Arc;
use std::time::Duration;

use common::comfyui_fake::{class, engine, job, run, start, Script};
use common::{png, Recorder};
use easel_engines::comfyui::ComfyUi;
use easel_engines::{Cancel, Engine, EngineError, LoadedInput};
use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};
use protocol::task::job::LoraSpec;
use protocol::task::{Action, InputRole};
use serde_json::{json, Value};

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn text_to_image_sends_the_job_and_returns_the_servers_images() {
    let (url, fake) = start(Script::Succeed { steps: 5 });
    let mut j = job(Action::TextToImage);
    j.loras = vec![
        LoraSpec {
            model: "watercolor.safetensors".into(),
            weight: 0.7,
            file: None,
        },
        LoraSpec {
            model: "film_grain".into(),
            weight: 0.3,
            file: None,
        },
    ];
    let (result, progress) = run(&engine(&url), &j, vec![]).await;
    let result = result.unwrap();

    // What was sent.
    let rec = fake.rec.lock().unwrap();
    assert_eq!(rec.prompts.len(), 1);
    assert_eq!(
        rec.socket_open_at_queue,
        vec![true],
        "socket must be open before queueing"
    );
    let body = &rec.prompts[0];
    let w = &body["prompt"];
    assert!(!body["client_id"].as_str().unwrap().is_empty());
    let k = &class(w, "KSampler").unwrap()["inputs"];
    assert_eq!(k["seed"], 777);
    assert_eq!(k["steps"], 28);
    assert_eq!(k["cfg"], 6.5);
    assert_eq!(k["sampler_name"], "dpmpp_2m");
    assert_eq!(k["scheduler"], "karras");
    assert_eq!(k["denoise"], 1.0);
    let latent = &class(w, "EmptyLatentImage").unwrap()["inputs"];
    assert_eq!(
        (
            latent["width"].as_u64(),
            latent["height"].as_u64(),
            latent["batch_size"].as_u64()
        ),
        (Some(96), Some(64), Some(2))
    );
    let texts: Vec<&str> = w
        .as_object()
        .unwrap()
        .values()
        .filter(|n| n["class_type"] == "CLIPTextEncode")
        .map(|n| n["inputs"]["text"].as_str().unwrap())
        .collect();
    assert!(
        texts.contains(&"a lighthouse at dusk") && texts.contains(&"low quality"),
        "{texts:?}"
    );
    // The positive prompt feeds the sampler's positive input.
    let pos_id = k["positive"][0].as_str().unwrap();
    assert_eq!(w[pos_id]["inputs"]["text"], "a lighthouse at dusk");
    assert_eq!(
        class(w, "CheckpointLoaderSimple").unwrap()["inputs"]["ckpt_name"],
        "sd_xl_base_1.0.safetensors"
    );
    // Two chained LoRAs, the sampler's model coming from the last one.
    let loras: HashMap<&str, &Value> = w
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, n)| n["class_type"] == "LoraLoader")
        .map(|(id, n)| (id.as_str(), n))
        .collect();
    assert_eq!(loras.len(), 2);
    let last = loras[k["model"][0].as_str().unwrap()];
    assert_eq!(last["inputs"]["lora_name"], "film_grain.safetensors");
    assert_eq!(last["inputs"]["strength_model"], 0.3);
    let first = loras[last["inputs"]["model"][0].as_str().unwrap()];
    assert_eq!(first["inputs"]["lora_name"], "watercolor.safetensors");
    assert_eq!(first["inputs"]["strength_clip"], 0.7);
    assert_eq!(first["inputs"]["model"], json!(["4", 0]));

    // What came back: the fake's PNGs, byte for byte, at the workflow's size.
    assert_eq!(result.outputs.len(), 2);
    let files = fake.files.lock().unwrap();
    for (i, out) in result.outputs.iter().enumerate() {
        assert_eq!((out.width, out.height), (96, 64));
        assert_eq!((out.mime.as_str(), out.ext.as_str()), ("image/png", "png"));
        assert_eq!(out.seed, 777 + i as u64);
        assert_eq!(&out.bytes, &files[&format!("easel_{i:05}_.png")]);
    }
    assert_eq!(rec.views.len(), 2);
    assert_eq!(rec.views[0]["type"], "output");
    assert_eq!(result.engine.name, "comfyui");
    assert!(result.engine.neural);

    // Progress: monotone, moved through the sampler steps, ends at 100.
    let seen = progress.seen();
    assert!(seen.windows(2).all(|p| p[0] <= p[1]), "{seen:?}");
    assert_eq!(seen.first(), Some(&0));
    assert_eq!(seen.last(), Some(&100));
    assert!(
        seen.iter().filter(|p| (1..100).contains(*p)).count() >= 4,
        "{seen:?}"
    );
    assert!(seen.iter().filter(|p| **p == 100).count() == 1 && !seen.contains(&101));
}

#[tokio::test]
async fn image_to_image_uploads_the_inputs_and_wires_the_mask() {
    let (url, fake) = start(Script::Succeed { steps: 2 });
    let init = png(40, 30, 200);
    let mut mask_img = RgbaImage::from_pixel(40, 30, Rgba([0, 0, 0, 255]));
    mask_img.put_pixel(5, 5, Rgba([0, 0, 0, 0]));
    let mut mask = Cursor::new(Vec::new());
    DynamicImage::ImageRgba8(mask_img)
        .write_to(&mut mask, ImageFormat::Png)
        .unwrap();
    let mut j = job(Action::ImageToImage);
    j.n_iter = 3;
    let inputs = vec![
        LoadedInput {
            role: InputRole::Init,
            bytes: init.clone(),
        },
        LoadedInput {
            role: InputRole::Mask,
            bytes: mask.into_inner(),
        },
    ];
    let (result, _) = run(&engine(&url), &j, inputs).await;
    let result = result.unwrap();

    let rec = fake.rec.lock().unwrap();
    assert_eq!(rec.uploads.len(), 2);
    let (init_name, init_bytes, overwrite) = &rec.uploads[0];
    assert_eq!(init_bytes, &init, "the init image arrives unchanged");
    assert_eq!(overwrite, "true");
    let (mask_name, mask_bytes, _) = &rec.uploads[1];
    assert_ne!(init_name, mask_name);
    let decoded = image::load_from_memory(mask_bytes).unwrap().to_rgba8();
    assert_eq!(
        decoded.get_pixel(5, 5).0[3],
        0,
        "the mask keeps its transparency"
    );

    let w = &rec.prompts[0]["prompt"];
    let loads: Vec<&str> = w
        .as_object()
        .unwrap()
        .values()
        .filter(|n| n["class_type"] == "LoadImage")
        .map(|n| n["inputs"]["image"].as_str().unwrap())
        .collect();
    assert!(
        loads.contains(&format!("in/{init_name}").as_str()),
        "{loads:?}"
    );
    assert!(
        loads.contains(&format!("in/{mask_name}").as_str()),
        "{loads:?}"
    );
    let noise_mask = class(w, "SetLatentNoiseMask").unwrap();
    let mask_loader = &w[noise_mask["inputs"]["mask"][0].as_str().unwrap()];
    assert_eq!(mask_loader["inputs"]["image"], format!("in/{mask_name}"));
    assert_eq!(
        noise_mask["inputs"]["mask"][1], 1,
        "the mask output of LoadImage"
    );
    assert_eq!(class(w, "KSampler").unwrap()["inputs"]["denoise"], 0.35);
    assert_eq!(
        class(w, "RepeatLatentBatch").unwrap()["inputs"]["amount"],
        3
    );
    let scale = &class(w, "ImageScale").unwrap()["inputs"];
    assert_eq!(
        (scale["width"].as_u64(), scale["height"].as_u64()),
        (Some(96), Some(64))
    );

    assert_eq!(result.outputs.len(), 3);
    assert!(result
        .outputs
        .iter()
        .all(|o| (o.width, o.height) == (96, 64)));
}

#[tokio::test]
async fn upscale_needs_no_checkpoint_and_scales_with_lanczos() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let mut j = job(Action::ExtraUpscale);
    j.width = 80;
    j.height = 60;
    let e = ComfyUi::new(&url, None)
        .unwrap()
        .with_timeout(Duration::from_secs(20));
    let (result, _) = run(
        &e,
        &j,
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(40, 30, 9),
        }],
    )
    .await;
    let result = result.unwrap();
    let rec = fake.rec.lock().unwrap();
    let w = &rec.prompts[0]["prompt"];
    assert!(class(w, "CheckpointLoaderSimple").is_none());
    let s = &class(w, "ImageScale").unwrap()["inputs"];
    assert_eq!(
        (
            s["width"].as_u64(),
            s["height"].as_u64(),
            s["upscale_method"].as_str()
        ),
        (Some(80), Some(60), Some("lanczos"))
    );
    assert_eq!(result.outputs.len(), 1);
    assert_eq!(
        (result.outputs[0].width, result.outputs[0].height),
        (80, 60)
    );
}

#[tokio::test]
async fn expansion_pads_the_source_to_the_canvas() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let mut j = job(Action::Expansion);
    j.width = 128;
    j.height = 96;
    j.left_margin = 24;
    j.up_margin = 16;
    let (result, _) = run(
        &engine(&url),
        &j,
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(64, 48, 3),
        }],
    )
    .await;
    let result = result.unwrap();
    assert_eq!(result.outputs.len(), 2);
    assert!(result
        .outputs
        .iter()
        .all(|o| (o.width, o.height) == (128, 96)));
    let rec = fake.rec.lock().unwrap();
    let w = &rec.prompts[0]["prompt"];
    let pad = &class(w, "ImagePadForOutpaint").unwrap()["inputs"];
    assert_eq!(
        [&pad["left"], &pad["top"], &pad["right"], &pad["bottom"]].map(|v| v.as_u64().unwrap()),
        [24, 16, 128 - 24 - 64, 96 - 16 - 48]
    );
    let enc = &class(w, "VAEEncodeForInpaint").unwrap()["inputs"];
    assert_eq!(
        enc["mask"][1], 1,
        "the pad node's mask marks the new border"
    );
}

#[tokio::test]
async fn an_execution_error_fails_the_job_with_its_message() {
    let (url, _fake) = start(Script::Error);
    let (result, _) = run(&engine(&url), &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(matches!(err, EngineError::Failed(_)), "{err:?}");
    assert!(!err.retryable());
    let msg = err.to_string();
    assert!(
        msg.contains("CUDA out of memory") && msg.contains("KSampler"),
        "{msg}"
    );
}

#[tokio::test]
async fn a_rejected_workflow_fails_with_the_node_errors() {
    let (url, _fake) = start(Script::Reject);
    let (result, _) = run(&engine(&url), &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(matches!(err, EngineError::Failed(_)), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("Prompt outputs failed validation") && msg.contains("ckpt_name"),
        "{msg}"
    );
}

#[tokio::test]
async fn a_server_that_is_down_is_unavailable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = engine(&format!("http://127.0.0.1:{port}"));
    let (result, _) = run(&e, &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::Unavailable(_)) && err.retryable(),
        "{err:?}"
    );
    // The upload is the first call for image-to-image.
    let (result, _) = run(
        &e,
        &job(Action::ImageToImage),
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(8, 8, 0),
        }],
    )
    .await;
    assert!(result.unwrap_err().retryable());
}

#[tokio::test]
async fn a_dropped_socket_is_unavailable() {
    let (url, _fake) = start(Script::Drop);
    let (result, _) = run(&engine(&url), &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(err.retryable(), "{err:?}");
}

#[tokio::test]
async fn cancelling_interrupts_the_prompt() {
    let (url, fake) = start(Script::Hang);
    let e = engine(&url);
    let j = job(Action::TextToImage);
    let cancel = Cancel::new();
    let rec = Arc::new(Recorder::default());
    let running = {
        let cancel = cancel.clone();
        let rec = rec.clone();
        async move { e.run(&j, vec![], rec, cancel).await }
    };
    let watcher = async {
        // Cancel once the sampler has been seen working.
        while !rec.seen().iter().any(|p| *p > 0) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    };
    let (result, ()) = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(running, watcher)
    })
    .await
    .unwrap();
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    let r = fake.rec.lock().unwrap();
    assert_eq!(r.interrupts, vec![json!({"prompt_id": "prompt-1"})]);
    assert_eq!(r.queue_ops, vec![json!({"delete": ["prompt-1"]})]);
}

#[tokio::test]
async fn a_prompt_past_its_deadline_is_abandoned_as_unavailable() {
    let (url, fake) = start(Script::Hang);
    let e = engine(&url).with_timeout(Duration::from_millis(700));
    let (result, _) = run(&e, &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(matches!(err, EngineError::Unavailable(_)), "{err:?}");
    assert_eq!(fake.rec.lock().unwrap().interrupts.len(), 1);
}

#[tokio::test]
async fn a_job_without_a_checkpoint_is_refused_before_anything_is_sent() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let e = ComfyUi::new(&url, None)
        .unwrap()
        .with_timeout(Duration::from_secs(20));
    let (result, _) = run(&e, &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::BadInput(ref m) if m.contains("checkpoint")),
        "{err:?}"
    );
    assert!(fake.rec.lock().unwrap().prompts.is_empty());

    // A job whose model is a checkpoint file needs no setting.
    let mut j = job(Action::TextToImage);
    j.model = "juggernautXL_v9.safetensors".into();
    let (result, _) = run(&e, &j, vec![]).await;
    assert!(result.is_ok());
    let rec = fake.rec.lock().unwrap();
    assert_eq!(
        class(&rec.prompts[0]["prompt"], "CheckpointLoaderSimple").unwrap()["inputs"]["ckpt_name"],
        "juggernautXL_v9.safetensors"
    );
}

#[test]
fn configuration_is_checked_and_described() {
    assert!(ComfyUi::new("https://comfy.example", None).is_err());
    assert!(ComfyUi::new("ftp://comfy", None).is_err());
    assert!(ComfyUi::new("nonsense", None).is_err());
    let e = ComfyUi::new("http://10.1.2.3:8188", None).unwrap();
    assert_eq!(e.info().label, "ComfyUI at 10.1.2.3:8188");
    assert_eq!(e.info().name, "comfyui");
    for a in [
        Action::TextToImage,
        Action::ImageToImage,
        Action::Variation,
        Action::Upscale,
        Action::ExtraUpscale,
        Action::Expansion,
        Action::ConditionToImage,
    ] {
        assert!(e.supports(a, "flux"), "{a:?}");
    }
    for a in [
        Action::FaceSwap,
        Action::Animation,
        Action::Descriptors,
        Action::RemoveBackground,
    ] {
        assert!(!e.supports(a, "sdxl"), "{a:?}");
    }
}
