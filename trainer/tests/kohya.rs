//! The kohya adapter against a fake `train_network.py` that follows
//! sd-scripts' command line, dataset TOML and output shape
//! (`tests/fake_sd_scripts/`): success with parsed progress, a failing run,
//! a missing checkpoint, an unsupported family, and cancel.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use easel_trainer::kohya::{KohyaSettings, KohyaTrainer};
use easel_trainer::{TrainError, Trainer};
use engines::Cancel;

fn fake_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fake_sd_scripts")
}

fn trainer(ckpt: &std::path::Path) -> KohyaTrainer {
    let mut checkpoints = BTreeMap::new();
    checkpoints.insert("sd".to_string(), ckpt.to_path_buf());
    checkpoints.insert("sdxl".to_string(), ckpt.to_path_buf());
    KohyaTrainer::new(KohyaSettings {
        dir: Some(fake_dir()),
        python: "python3".into(),
        checkpoints,
        mixed_precision: "bf16".into(),
        ..KohyaSettings::default()
    })
    .unwrap()
}

fn ckpt(dir: &std::path::Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, b"not read by the fake").unwrap();
    p
}

#[tokio::test]
async fn a_run_reports_progress_and_hands_back_the_lora() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let images = common::reddish_dataset(data.path(), 4);
    let job = common::job(work.path(), images, 3);
    let steps = Arc::new(common::Steps::default());
    let out = trainer(&ckpt(data.path(), "base.safetensors"))
        .train(&job, steps.clone(), Cancel::new())
        .await
        .unwrap();
    // 4 pictures x 2 repeats x 3 epochs, read from the tqdm bar.
    let seen = steps.0.lock().unwrap().clone();
    assert_eq!(seen.last(), Some(&(24, 24)));
    assert!(seen.iter().any(|s| s.0 > 0 && s.0 < 24), "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0));
    // The dataset was laid out as sd-scripts expects.
    let sub = work.path().join("img/2_zx9");
    assert!(sub.join("0001.png").is_file());
    assert_eq!(
        std::fs::read_to_string(sub.join("0003.txt")).unwrap(),
        "zx9, red picture number 2, band"
    );
    let toml = std::fs::read_to_string(work.path().join("dataset.toml")).unwrap();
    assert!(toml.contains("num_repeats = 2") && toml.contains("resolution = 512"));
    // The file is the fake's LoRA, with its metadata.
    let h = modelfile::read_header(
        &mut std::io::Cursor::new(&out.safetensors),
        out.safetensors.len() as u64,
        &modelfile::Limits::default(),
    )
    .unwrap();
    assert_eq!(h.metadata["ss_network_dim"], "8");
    assert_eq!(h.metadata["ss_network_module"], "networks.lora");
    assert_eq!(h.metadata["ss_training_comment"], "trigger: zx9");
    assert_eq!(modelfile::inspect(&h).kind, modelfile::ModelKind::Lora);
    assert!(out.metrics["loss"] >= 0.0);
    assert!(out.log.iter().any(|l| l.contains("epoch 3/3")));
}

#[tokio::test]
async fn failures_are_reported_with_the_trainers_words() {
    let data = tempfile::tempdir().unwrap();
    let images = common::reddish_dataset(data.path(), 2);
    // The run fails mid-way.
    let work = tempfile::tempdir().unwrap();
    let job = common::job(work.path(), images.clone(), 2);
    let r = trainer(&ckpt(data.path(), "oom.safetensors"))
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await;
    match r {
        Err(TrainError::Failed(m)) => assert!(m.contains("CUDA out of memory"), "{m}"),
        other => panic!("{other:?}"),
    }
    // The checkpoint is missing on disk.
    let work = tempfile::tempdir().unwrap();
    let job = common::job(work.path(), images.clone(), 2);
    let r = trainer(&data.path().join("gone.safetensors"))
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await;
    assert!(matches!(r, Err(TrainError::Failed(m)) if m.contains("FileNotFoundError")));
    // No checkpoint for the family, or a family sd-scripts has no script for.
    let work = tempfile::tempdir().unwrap();
    let mut job = common::job(work.path(), images, 2);
    job.family = "il3".into();
    let r = trainer(&ckpt(data.path(), "b.safetensors"))
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await;
    assert!(matches!(r, Err(TrainError::Unavailable(_))), "{r:?}");
    job.family = "hidream".into();
    let r = trainer(&ckpt(data.path(), "b.safetensors"))
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await;
    assert!(matches!(r, Err(TrainError::Unavailable(_))), "{r:?}");
    // Not an sd-scripts folder.
    assert!(KohyaTrainer::new(KohyaSettings {
        dir: Some(data.path().to_path_buf()),
        ..KohyaSettings::default()
    })
    .is_err());
}

#[tokio::test]
async fn cancel_kills_the_run() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let images = common::reddish_dataset(data.path(), 4);
    // 4 x 2 x 20 = 160 steps of 50 ms: 8 s if not stopped.
    let job = common::job(work.path(), images, 20);
    let cancel = Cancel::new();
    let steps = Arc::new(common::Steps::default());
    let t = trainer(&ckpt(data.path(), "slow.safetensors"));
    let c2 = cancel.clone();
    let s2 = steps.clone();
    tokio::spawn(async move {
        // Cancel once the run has made progress.
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if s2.0.lock().unwrap().iter().any(|s| s.0 >= 3) {
                c2.cancel();
                return;
            }
        }
    });
    let r = t.train(&job, steps.clone(), cancel).await;
    assert_eq!(r.unwrap_err(), TrainError::Cancelled);
    let last = steps.0.lock().unwrap().last().copied().unwrap();
    assert!(last.0 < 160, "{last:?}");
    // No output was written: the process group was stopped.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!work.path().join("out/easel_lora.safetensors").exists());
}
