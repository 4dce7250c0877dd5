//! Shared test helpers: a small generated dataset and a progress recorder.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Mutex;

use easel_trainer::{TrainImage, TrainJob, TrainProgress};
use protocol::models::train::{DatasetKind, TrainParamsInput};

/// `n` reddish pictures (a warm gradient with a darker band and noise).
pub fn reddish_dataset(dir: &Path, n: usize) -> Vec<TrainImage> {
    (0..n)
        .map(|i| {
            let img = image::RgbImage::from_fn(64, 48, |x, y| {
                let noise = ((x * 7 + y * 13 + i as u32 * 31) % 17) as u8;
                let band = if (y / 8 + i as u32).is_multiple_of(3) {
                    60
                } else {
                    0
                };
                image::Rgb([
                    (200 + noise).saturating_sub(band),
                    (40 + x as u8 / 4).saturating_sub(band / 3),
                    30 + noise,
                ])
            });
            let path = dir.join(format!("red{i}.png"));
            img.save(&path).unwrap();
            TrainImage {
                path,
                caption: format!("zx9, red picture number {i}, band"),
            }
        })
        .collect()
}

pub fn job(dir: &Path, images: Vec<TrainImage>, epochs: u32) -> TrainJob {
    let params = serde_json::from_value::<TrainParamsInput>(serde_json::json!({
        "epochs": epochs, "repeats": 2, "trigger_word": "zx9", "network_dim": 8
    }))
    .unwrap()
    .check(DatasetKind::Style, "sd", images.len(), "Red")
    .unwrap();
    TrainJob {
        images,
        params,
        family: "sd".into(),
        base_model: "sd15".into(),
        name: "Red style".into(),
        kind: DatasetKind::Style,
        work_dir: dir.to_path_buf(),
    }
}

#[derive(Default)]
pub struct Steps(pub Mutex<Vec<(u32, u32)>>);

impl TrainProgress for Steps {
    fn step(&self, done: u32, total: u32) {
        self.0.lock().unwrap().push((done, total));
    }
}
