//! The reference trainer on a generated dataset: a real safetensors style
//! file that reads back, progress that only increases, cancel, and the
//! style pulling the reference engine's pictures towards the dataset.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::print_stdout)]

mod common;

use std::sync::Arc;

use easel_trainer::reference::ReferenceTrainer;
use easel_trainer::{TrainEngine, Trainer};
use engines::reference::style::{apply, Style};
use engines::{Cancel, Engine, LoadedInput, NoProgress};
use protocol::models::train::style_file as sf;
use protocol::task::{Action, InputRole};

#[tokio::test]
async fn eight_reddish_pictures_make_a_style_file_that_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let images = common::reddish_dataset(dir.path(), 8);
    let job = common::job(dir.path(), images, 6);
    let steps = Arc::new(common::Steps::default());
    let started = std::time::Instant::now();
    let out = ReferenceTrainer
        .train(&job, steps.clone(), Cancel::new())
        .await
        .unwrap();
    println!(
        "reference training: 8 pictures, {} steps, {:?}",
        job.steps(),
        started.elapsed()
    );
    // Progress: from 0, never down, ends at the total (kohya's count).
    let seen = steps.0.lock().unwrap().clone();
    assert_eq!(seen.first(), Some(&(0, 96)));
    assert_eq!(seen.last(), Some(&(96, 96)));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    assert_eq!(seen.len(), 7);
    // A real safetensors file: the modelfile crate reads and inspects it.
    let header = modelfile::read_header(
        &mut std::io::Cursor::new(&out.safetensors),
        out.safetensors.len() as u64,
        &modelfile::Limits::default(),
    )
    .unwrap();
    assert_eq!(header.metadata[sf::VERSION_KEY], sf::VERSION);
    assert_eq!(header.metadata["ss_base_model_version"], "sd_v1");
    assert_eq!(header.metadata["ss_network_dim"], "8");
    let freq: serde_json::Value =
        serde_json::from_str(&header.metadata["ss_tag_frequency"]).unwrap();
    assert_eq!(freq["2_zx9"]["zx9"], 8);
    assert_eq!(freq["2_zx9"]["band"], 8);
    let facts = modelfile::inspect(&header);
    assert!(facts.trained_words.iter().any(|w| w == "zx9"), "{facts:?}");
    // The style: a reddish palette, most used colour first.
    let style = Style::from_safetensors(&out.safetensors).unwrap();
    assert_eq!(style.palette.len(), 4);
    let top = style.palette[0];
    assert!(top[0] > 0.6 && top[1] < 0.45 && top[2] < 0.3, "{top:?}");
    assert!((style.weights.iter().sum::<f32>() - 1.0).abs() < 1e-3);
    assert!(style.weights.windows(2).all(|w| w[0] >= w[1]));
    assert!(out.metrics["loss"] > 0.0);
    assert!(out.log.iter().any(|l| l.contains("non-neural")));
    // Deterministic: the same job gives the same style and metadata (the
    // `safetensors` serializer writes the metadata map in hash-map order,
    // so the bytes of the header may differ).
    let again = ReferenceTrainer
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await
        .unwrap();
    assert_eq!(
        Style::from_safetensors(&again.safetensors),
        Some(style.clone())
    );
    let h2 = modelfile::read_header(
        &mut std::io::Cursor::new(&again.safetensors),
        again.safetensors.len() as u64,
        &modelfile::Limits::default(),
    )
    .unwrap();
    assert_eq!(h2.metadata, header.metadata);
}

#[tokio::test]
async fn a_cancelled_training_stops() {
    let dir = tempfile::tempdir().unwrap();
    let images = common::reddish_dataset(dir.path(), 8);
    let job = common::job(dir.path(), images, 6);
    let cancel = Cancel::new();
    cancel.cancel();
    let r = ReferenceTrainer
        .train(&job, Arc::new(common::Steps::default()), cancel)
        .await;
    assert_eq!(r.unwrap_err(), easel_trainer::TrainError::Cancelled);
}

#[tokio::test]
async fn the_style_pulls_pictures_towards_the_dataset_palette() {
    let dir = tempfile::tempdir().unwrap();
    let images = common::reddish_dataset(dir.path(), 8);
    let job = common::job(dir.path(), images, 4);
    let out = ReferenceTrainer
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await
        .unwrap();
    let style = Style::from_safetensors(&out.safetensors).unwrap();
    // A bluish-green picture.
    let src = image::RgbaImage::from_fn(64, 64, |x, y| {
        image::Rgba([20 + (x as u8), 120 + (y as u8), 160, 255])
    });
    let mean_dist = |img: &image::RgbaImage| {
        let n = img.pixels().len() as f32;
        img.pixels()
            .map(|p| {
                let c = [p.0[0], p.0[1], p.0[2]].map(|b| f32::from(b) / 255.0);
                style
                    .palette
                    .iter()
                    .map(|q| {
                        ((q[0] - c[0]).powi(2) + (q[1] - c[1]).powi(2) + (q[2] - c[2]).powi(2))
                            .sqrt()
                    })
                    .fold(f32::MAX, f32::min)
            })
            .sum::<f32>()
            / n
    };
    let mut half = src.clone();
    apply(&mut half, &style, 0.5);
    let mut full = src.clone();
    apply(&mut full, &style, 1.0);
    let (d0, d5, d1) = (mean_dist(&src), mean_dist(&half), mean_dist(&full));
    println!("mean distance to the palette: none {d0:.3}, weight 0.5 {d5:.3}, weight 1 {d1:.3}");
    assert!(d5 < d0 && d1 < d5, "{d0} {d5} {d1}");
    assert!(d1 < d0 * 0.5);
}

#[tokio::test]
async fn the_engine_runs_training_jobs_and_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let images = common::reddish_dataset(dir.path(), 3);
    let t = common::job(dir.path(), images.clone(), 2);
    let engine = TrainEngine::new(Arc::new(ReferenceTrainer));
    assert!(engine.supports(Action::LoraTrain, "sd"));
    assert!(!engine.supports(Action::TextToImage, "sd"));
    assert!(!engine.info().neural);
    let mut job: protocol::task::JobSpec = serde_json::from_value(serde_json::json!({
        "task_id": "t1", "attempt": 1, "action": 57, "family": "sd", "model": "sd15",
        "width": 512, "height": 512, "n_iter": 1, "steps": 0, "cfg_scale": 0.0, "seed": 1,
        "sampler": "", "denoising_strength": 0.0
    }))
    .unwrap();
    let inputs: Vec<LoadedInput> = images
        .iter()
        .map(|i| LoadedInput {
            role: InputRole::Init,
            bytes: std::fs::read(&i.path).unwrap(),
        })
        .collect();
    // Without its spec, or with captions that do not match, it refuses.
    let r = engine
        .run(&job, inputs.clone(), Arc::new(NoProgress), Cancel::new())
        .await;
    assert!(matches!(r, Err(engines::EngineError::BadInput(_))));
    job.train = Some(protocol::models::train::TrainSpec {
        family: "sd".into(),
        base_model: "sd15".into(),
        kind: t.kind,
        name: t.name.clone(),
        params: t.params.clone(),
        captions: images.iter().map(|i| i.caption.clone()).collect(),
    });
    let r = engine
        .run(&job, inputs, Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap();
    assert_eq!(r.outputs.len(), 1);
    assert_eq!(r.outputs[0].ext, "safetensors");
    assert!(Style::from_safetensors(&r.outputs[0].bytes).is_some());
    let report: easel_trainer::TrainReport = serde_json::from_str(&r.texts[0]).unwrap();
    assert_eq!(report.trainer, "reference");
    assert!(!report.neural);
}
