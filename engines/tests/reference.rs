//! The reference engine through its public `Engine` interface: every action's
//! outputs (count, size, type), determinism, progress and cancellation. The
//! per-action rules are in `reference_actions`; the shared kit in
//! `common::reference_kit`.

// Helpers outside `#[test]` functions unwrap too; a failure is a test failure.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use common::reference_kit::*;
use easel_engines::reference::ReferenceEngine;
use easel_engines::{Cancel, Engine, EngineError, EngineResult, NoProgress};
use protocol::task::Action;

#[test]
fn info_and_support() {
    fn is_default<T: Default>() {}
    is_default::<ReferenceEngine>();
    let e = ReferenceEngine::new();
    let info = e.info();
    assert_eq!(info.name, "reference");
    assert!(!info.neural);
    assert_eq!(info.label, "Easel reference engine (non-neural)");
    // Every image and video action; audio runs in `easel-audio`'s engine, training in `easel-trainer`'s.
    for a in Action::ALL {
        assert_eq!(
            e.supports(*a, "sdxl"),
            !a.is_audio() && !a.is_training(),
            "{a:?}"
        );
        assert_eq!(
            e.supports(*a, "flux"),
            !a.is_audio() && !a.is_training(),
            "{a:?}"
        );
    }
}

#[tokio::test]
async fn every_action_produces_the_right_outputs() {
    // Video actions have their own tests (reference::video, the API's);
    // audio actions run in `easel-audio`.
    for &action in Action::ALL
        .iter()
        .filter(|a| !a.is_video() && !a.is_audio() && !a.is_training())
    {
        let mut j = job(action);
        j.n_iter = 2;
        j.frames = 5;
        j.upscale_ratio = 2.0;
        j.left_margin = 8;
        j.up_margin = 6;
        if matches!(action, Action::Upscale | Action::ExtraUpscale) {
            (j.width, j.height) = (80, 60);
        }
        let r = run(&j, inputs_for(action)).await.unwrap();
        assert_eq!(r.engine.name, "reference");
        let (count, w, h, mime) = match action {
            Action::TextToImage
            | Action::ImageToImage
            | Action::ConditionToImage
            | Action::Variation
            | Action::Expansion => (2, 64, 48, "image/png"),
            Action::Upscale | Action::ExtraUpscale => (1, 80, 60, "image/png"),
            Action::RemoveBackground | Action::CharacterRepair => (1, 40, 30, "image/png"),
            Action::Preview => (1, 64, 48, "image/png"),
            Action::FaceSwap => (1, 64, 96, "image/png"),
            Action::Animation => (1, 64, 48, "image/gif"),
            Action::Descriptors => (0, 0, 0, ""),
            _ => unreachable!("video actions are left out above"),
        };
        assert_eq!(r.outputs.len(), count, "{action:?}");
        for (i, o) in r.outputs.iter().enumerate() {
            assert_eq!(o.mime, mime, "{action:?}");
            assert_eq!(o.ext, if mime == "image/gif" { "gif" } else { "png" });
            assert_eq!((o.width, o.height), (w, h), "{action:?}");
            let img = decode(&o.bytes);
            assert_eq!((img.width(), img.height()), (w, h), "{action:?}");
            if count > 1 {
                assert_eq!(o.seed, 42 + i as u64, "{action:?}");
            }
        }
        if count > 1 {
            assert_ne!(
                r.outputs[0].bytes, r.outputs[1].bytes,
                "{action:?}: batch images differ"
            );
        }
        if action == Action::Descriptors {
            assert_eq!(r.texts.len(), 1);
        } else {
            assert!(r.texts.is_empty());
        }
    }
}

#[tokio::test]
async fn same_job_same_bytes_and_another_seed_other_bytes() {
    for &action in Action::ALL
        .iter()
        .filter(|a| !a.is_video() && !a.is_audio() && !a.is_training())
    {
        let mut a = job(action);
        a.frames = 4;
        let mut b = a.clone();
        b.task_id = "another-task".into();
        b.attempt = 3;
        let ra = run(&a, inputs_for(action)).await.unwrap();
        let rb = run(&b, inputs_for(action)).await.unwrap();
        assert_eq!(ra.texts, rb.texts, "{action:?}");
        assert_eq!(ra.outputs.len(), rb.outputs.len());
        for (x, y) in ra.outputs.iter().zip(&rb.outputs) {
            assert!(x.bytes == y.bytes, "{action:?} is not deterministic");
        }
        let seeded = matches!(
            action,
            Action::TextToImage
                | Action::ImageToImage
                | Action::ConditionToImage
                | Action::Variation
                | Action::Expansion
        );
        if seeded {
            let mut c = a.clone();
            c.seed = 43;
            let rc = run(&c, inputs_for(action)).await.unwrap();
            assert!(
                rc.outputs[0].bytes != ra.outputs[0].bytes,
                "{action:?} ignores the seed"
            );
        }
    }
}

#[tokio::test]
async fn the_prompt_changes_the_picture() {
    let mut night = job(Action::TextToImage);
    night.prompt = "a quiet landscape at night".into();
    let mut day = night.clone();
    day.prompt = "a quiet landscape on a summer day".into();
    let mean = |r: &EngineResult| {
        let img = decode(&r.outputs[0].bytes).to_rgb8();
        img.pixels()
            .map(|p| p.0.iter().map(|c| u32::from(*c)).sum::<u32>())
            .sum::<u32>() as f32
            / img.pixels().len() as f32
    };
    let n = run(&night, Vec::new()).await.unwrap();
    let d = run(&day, Vec::new()).await.unwrap();
    assert!(mean(&n) < mean(&d) * 0.6, "night should be darker");

    let mut red = job(Action::TextToImage);
    red.prompt = "red abstract".into();
    let out = decode(&run(&red, Vec::new()).await.unwrap().outputs[0].bytes).to_rgb8();
    let (r, b) = out.pixels().fold((0u64, 0u64), |(r, b), p| {
        (r + u64::from(p.0[0]), b + u64::from(p.0[2]))
    });
    assert!(r > b, "a red prompt gives a red picture");
    red.negative_prompt = "red".into();
    let out = decode(&run(&red, Vec::new()).await.unwrap().outputs[0].bytes).to_rgb8();
    let strongly_red = out
        .pixels()
        .filter(|p| i32::from(p.0[0]) - i32::from(p.0[1]).max(i32::from(p.0[2])) > 80)
        .count();
    assert!(
        strongly_red < out.pixels().len() / 50,
        "negative red removes red ({strongly_red})"
    );
}

#[tokio::test]
async fn progress_rises_to_100_one_report_per_step() {
    let rec = Arc::new(Recorder::default());
    let mut j = job(Action::TextToImage);
    j.steps = 12;
    j.n_iter = 2;
    run_with(&j, Vec::new(), rec.clone(), Cancel::new())
        .await
        .unwrap();
    let seen = rec.0.lock().unwrap().clone();
    assert_eq!(seen.first(), Some(&0));
    assert_eq!(seen.last(), Some(&100));
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(seen.len() >= 24, "one report per step: {seen:?}");

    for &action in Action::ALL
        .iter()
        .filter(|a| !a.is_video() && !a.is_audio() && !a.is_training())
    {
        let rec = Arc::new(Recorder::default());
        let mut j = job(action);
        j.frames = 3;
        run_with(&j, inputs_for(action), rec.clone(), Cancel::new())
            .await
            .unwrap();
        let seen = rec.0.lock().unwrap().clone();
        assert!(seen.len() >= 3, "{action:?}: {seen:?}");
        assert!(
            seen.windows(2).all(|w| w[0] <= w[1]),
            "{action:?}: {seen:?}"
        );
        assert_eq!(seen.last(), Some(&100), "{action:?}");
        assert_eq!(seen.iter().filter(|p| **p == 100).count(), 1, "{action:?}");
    }
}

#[tokio::test]
async fn cancel_before_or_during_a_run() {
    // Video jobs are cancelled mid-encode in reference::video's tests.
    for &action in Action::ALL
        .iter()
        .filter(|a| !a.is_video() && !a.is_audio() && !a.is_training())
    {
        let cancel = Cancel::new();
        cancel.cancel();
        let r = run_with(
            &job(action),
            inputs_for(action),
            Arc::new(NoProgress),
            cancel,
        )
        .await;
        assert!(matches!(r, Err(EngineError::Cancelled)), "{action:?}");

        let cancel = Cancel::new();
        let progress = Arc::new(CancelEarly(cancel.clone()));
        let mut j = job(action);
        j.frames = 4;
        let r = run_with(&j, inputs_for(action), progress, cancel).await;
        assert!(
            matches!(r, Err(EngineError::Cancelled)),
            "{action:?} ran on after cancel"
        );
    }
}
