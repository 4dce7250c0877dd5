//! Easel style files (the reference trainer's output) in the reference
//! engine's picture modes: text to image, image to image, from a control
//! map and variations move their output's colours towards the style's
//! palette (same seed, same inputs, with and without the style); modes that
//! keep their input's look (upscale) leave the picture alone and say in the
//! task's notes that the file was not applied.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use common::reference_kit::*;
use easel_engines::reference::{ModelFiles, ReferenceEngine};
use easel_engines::{Cancel, Engine, NoProgress};
use protocol::models::train::style_file as sf;
use protocol::task::job::LoraSpec;
use protocol::task::{Action, ModelFileRef};
use safetensors::tensor::TensorView;
use safetensors::Dtype;

/// A deep red palette, flat texture, even layout.
const PALETTE: [[f32; 3]; 2] = [[0.80, 0.10, 0.08], [0.55, 0.06, 0.05]];

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A real Easel style file (the tensors and metadata the trainer writes).
fn style_file() -> Vec<u8> {
    let g = sf::GRID;
    let palette: Vec<f32> = PALETTE.iter().flatten().copied().collect();
    let tensors: Vec<(&str, Vec<usize>, Vec<u8>)> = vec![
        (sf::PALETTE, vec![2, 3], f32_bytes(&palette)),
        (sf::PALETTE_WEIGHTS, vec![2], f32_bytes(&[0.6, 0.4])),
        (sf::TEXTURE, vec![4], f32_bytes(&[0.05, 0.02, 0.8, 0.12])),
        (sf::LAYOUT, vec![g, g], f32_bytes(&vec![0.3; g * g])),
        (sf::SALIENCY, vec![g, g], f32_bytes(&vec![0.1; g * g])),
    ];
    let views: Vec<(&str, TensorView<'_>)> = tensors
        .iter()
        .map(|(n, shape, b)| (*n, TensorView::new(Dtype::F32, shape.clone(), b).unwrap()))
        .collect();
    let meta = HashMap::from([(sf::VERSION_KEY.to_string(), sf::VERSION.to_string())]);
    safetensors::serialize(views, Some(meta)).unwrap()
}

/// The worker's cache, as the engine sees it: the style file by name.
struct OneFile(Vec<u8>);
impl ModelFiles for OneFile {
    fn read(&self, _file: &ModelFileRef) -> Option<Vec<u8>> {
        Some(self.0.clone())
    }
}

fn styled(action: Action) -> protocol::task::JobSpec {
    let mut j = job(action);
    j.prompt = "a green forest under a blue sky".into();
    j.loras = vec![LoraSpec {
        model: "mv-style".into(),
        weight: 1.0,
        file: Some(ModelFileRef {
            key: "m/mv-style/red.safetensors".into(),
            sha256: "0".repeat(64),
            size: 1,
            name: "easel-red-style.safetensors".into(),
            local_path: None,
        }),
    }];
    j
}

/// Mean distance of each pixel to its nearest palette colour (0..=sqrt 3).
fn palette_distance(png: &[u8]) -> f32 {
    let img = decode(png).to_rgb8();
    let mut sum = 0.0;
    for p in img.pixels() {
        let c = p.0.map(|v| f32::from(v) / 255.0);
        sum += PALETTE
            .iter()
            .map(|q| {
                c.iter()
                    .zip(q)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f32>()
                    .sqrt()
            })
            .fold(f32::INFINITY, f32::min);
    }
    sum / (img.width() * img.height()) as f32
}

async fn outputs(engine: &ReferenceEngine, j: &protocol::task::JobSpec) -> (Vec<u8>, Vec<String>) {
    let r = engine
        .run(j, inputs_for(j.action), Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap();
    (r.outputs[0].bytes.clone(), r.engine.notes)
}

#[tokio::test]
async fn styles_pull_every_painting_mode_towards_the_palette() {
    let engine = ReferenceEngine::with_model_files(Arc::new(OneFile(style_file())));
    for action in [
        Action::TextToImage,
        Action::ImageToImage,
        Action::ConditionToImage,
        Action::Variation,
    ] {
        let with = styled(action);
        let mut without = with.clone();
        without.loras.clear();
        let (plain, _) = outputs(&engine, &without).await;
        let (red, notes) = outputs(&engine, &with).await;
        let (d0, d1) = (palette_distance(&plain), palette_distance(&red));
        assert!(
            d1 < d0 * 0.75,
            "{}: palette distance {d0:.3} -> {d1:.3}",
            action.name()
        );
        assert!(
            notes
                .iter()
                .any(|n| n.contains("style files applied") && n.contains("easel-red-style")),
            "{}: {notes:?}",
            action.name()
        );
        // The weight matters: half the weight, a smaller pull.
        let mut half = with.clone();
        half.loras[0].weight = 0.4;
        let (weaker, _) = outputs(&engine, &half).await;
        let dh = palette_distance(&weaker);
        assert!(
            d1 < dh && dh < d0,
            "{}: {d0:.3} {dh:.3} {d1:.3}",
            action.name()
        );
    }
}

#[tokio::test]
async fn image_to_image_styles_only_what_it_repaints() {
    let engine = ReferenceEngine::with_model_files(Arc::new(OneFile(style_file())));
    // At strength 0 the input is kept as it is, style or not.
    let mut keep = styled(Action::ImageToImage);
    keep.denoising_strength = 0.0;
    let mut keep_plain = keep.clone();
    keep_plain.loras.clear();
    let (a, _) = outputs(&engine, &keep).await;
    let (b, _) = outputs(&engine, &keep_plain).await;
    assert_eq!(decode(&a).to_rgb8(), decode(&b).to_rgb8());
    // More strength, more of the style.
    let mut low = styled(Action::ImageToImage);
    low.denoising_strength = 0.3;
    let high = styled(Action::ImageToImage);
    let (l, _) = outputs(&engine, &low).await;
    let (h, _) = outputs(&engine, &high).await;
    assert!(palette_distance(&h) < palette_distance(&l));
}

#[tokio::test]
async fn upscale_keeps_its_input_and_says_the_style_was_not_applied() {
    let engine = ReferenceEngine::with_model_files(Arc::new(OneFile(style_file())));
    let with = styled(Action::Upscale);
    let mut without = with.clone();
    without.loras.clear();
    let (a, notes) = outputs(&engine, &with).await;
    let (b, _) = outputs(&engine, &without).await;
    assert_eq!(decode(&a).to_rgb8(), decode(&b).to_rgb8());
    assert!(
        notes
            .iter()
            .any(|n| n.contains("not applied") && n.contains("easel-red-style")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("style files applied")));
}
