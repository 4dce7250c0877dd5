#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! Users' model files on ComfyUI, against the fake ComfyUI of
//! `common::comfyui_fake`: files from a worker's model cache are placed in
//! the shared models folder and named in the workflow, and without a shared
//! folder the job fails before anything is sent.

mod common;

use common::comfyui_fake::{class, engine, job, run, start, Script};
use easel_engines::EngineError;
use protocol::task::job::LoraSpec;
use protocol::task::{Action, ModelFileRef};

/// A verified file in a worker's model cache, as the worker hands it over.
fn cached(dir: &std::path::Path, name: &str, bytes: &[u8]) -> ModelFileRef {
    let path = dir.join(format!("{name}.cached"));
    std::fs::write(&path, bytes).unwrap();
    ModelFileRef {
        key: format!("m/u/{name}"),
        sha256: "0".repeat(64),
        size: bytes.len() as u64,
        name: name.into(),
        local_path: Some(path),
    }
}

#[tokio::test]
async fn users_models_are_placed_in_the_shared_models_folder_and_named() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let tmp = tempfile::tempdir().unwrap();
    let models = tmp.path().join("models");
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(models.join("loras")).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    // An operator's LoRA, already there.
    std::fs::write(models.join("loras/film_grain.safetensors"), b"operator").unwrap();
    *fake.models_dir.lock().unwrap() = Some(models.clone());

    let mut j = job(Action::TextToImage);
    j.model = "v-checkpoint".into();
    j.model_file = Some(cached(
        &cache,
        "easel-aaaa-mine.safetensors",
        b"checkpoint weights",
    ));
    j.loras = vec![
        LoraSpec {
            model: "v-ink".into(),
            weight: 0.6,
            file: Some(cached(
                &cache,
                "easel-bbbb-ink.safetensors",
                b"lora weights",
            )),
        },
        LoraSpec {
            model: "film_grain".into(),
            weight: 0.3,
            file: None,
        },
    ];
    j.embeddings = vec![cached(&cache, "easel-cccc-neg.safetensors", b"embedding")];
    let e = engine(&url).with_models_dir(&models);
    let (result, _) = run(&e, &j, vec![]).await;
    result.unwrap();

    for (sub, name, bytes) in [
        (
            "checkpoints",
            "easel-aaaa-mine.safetensors",
            &b"checkpoint weights"[..],
        ),
        ("loras", "easel-bbbb-ink.safetensors", &b"lora weights"[..]),
        (
            "embeddings",
            "easel-cccc-neg.safetensors",
            &b"embedding"[..],
        ),
    ] {
        assert_eq!(
            std::fs::read(models.join(sub).join(name)).unwrap(),
            bytes,
            "{sub}/{name}"
        );
    }
    {
        let rec = fake.rec.lock().unwrap();
        let w = &rec.prompts[0]["prompt"];
        assert_eq!(
            class(w, "CheckpointLoaderSimple").unwrap()["inputs"]["ckpt_name"],
            "easel-aaaa-mine.safetensors"
        );
        let names: Vec<&str> = w
            .as_object()
            .unwrap()
            .values()
            .filter(|n| n["class_type"] == "LoraLoader")
            .map(|n| n["inputs"]["lora_name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 2);
        assert!(names.contains(&"easel-bbbb-ink.safetensors"), "{names:?}");
        assert!(names.contains(&"film_grain.safetensors"), "{names:?}");
        let k = &class(w, "KSampler").unwrap()["inputs"];
        let pos = k["positive"][0].as_str().unwrap();
        assert_eq!(
            w[pos]["inputs"]["text"],
            "a lighthouse at dusk, embedding:easel-cccc-neg.safetensors"
        );
    }
    // A second job reuses the placed files and leaves no partial files.
    let (again, _) = run(&e, &j, vec![]).await;
    again.unwrap();
    let leftovers: Vec<String> = ["checkpoints", "loras", "embeddings"]
        .iter()
        .flat_map(|s| std::fs::read_dir(models.join(s)).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".part-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A LoRA that is not in the folder is refused by the server, as ComfyUI does.
    let mut gone = j.clone();
    gone.loras[1].model = "not_there".into();
    let (r, _) = run(&e, &gone, vec![]).await;
    assert!(
        matches!(r, Err(EngineError::Failed(ref m)) if m.contains("not_there")),
        "{r:?}"
    );
}

#[tokio::test]
async fn users_models_without_a_shared_folder_fail_before_anything_is_sent() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let tmp = tempfile::tempdir().unwrap();
    let mut j = job(Action::TextToImage);
    j.loras = vec![LoraSpec {
        model: "v-ink".into(),
        weight: 0.6,
        file: Some(cached(tmp.path(), "easel-bbbb-ink.safetensors", b"lora")),
    }];
    let (r, _) = run(&engine(&url), &j, vec![]).await;
    match r {
        Err(EngineError::BadInput(m)) => assert!(m.contains("EASEL_COMFYUI_MODELS_DIR"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(fake.rec.lock().unwrap().prompts.is_empty());
}
