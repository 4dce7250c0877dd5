//! The reference trainer: built in, CPU only, **non-neural**. From the
//! dataset's pictures it learns a palette (k-means in RGB over sampled
//! pixels, one Lloyd iteration per epoch, seeded k-means++ start), texture
//! statistics (edge density, high-frequency energy, saturation, contrast)
//! and composition (mean brightness and saliency on a coarse grid), and
//! writes them as an Easel style file: a real safetensors file with
//! kohya-style metadata that the reference engine applies. It trains no
//! weights and says so in its log and in the file.

use std::collections::BTreeMap;
use std::sync::Arc;

use engines::reference::style::{measure, Measure};
use engines::Cancel;
use modelfile::Dtype;
use protocol::models::train::style_file as sf;

use crate::{TrainError, TrainJob, TrainOutput, TrainProgress, Trainer};

/// Pictures are measured at most this large (longest side).
const WORK_SIDE: u32 = 128;
/// Pixels sampled per picture for the palette.
const SAMPLES_PER_IMAGE: usize = 1500;

pub const LABEL: &str = "Easel reference trainer (non-neural: learns a palette, texture and \
composition statistics, no network weights)";

#[derive(Debug, Clone, Copy, Default)]
pub struct ReferenceTrainer;

type Rgb = [f32; 3];

fn d2(a: Rgb, b: Rgb) -> f32 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// A small deterministic generator (SplitMix64) for the k-means++ start.
struct Mix(u64);
impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn nearest(centres: &[Rgb], p: Rgb) -> (usize, f32) {
    centres
        .iter()
        .enumerate()
        .map(|(i, c)| (i, d2(*c, p)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0, 0.0))
}

fn kmeans_pp(samples: &[Rgb], k: usize, seed: u64) -> Vec<Rgb> {
    let mut rng = Mix(seed);
    let mut centres = Vec::with_capacity(k);
    let first = (rng.next() % samples.len().max(1) as u64) as usize;
    if let Some(p) = samples.get(first) {
        centres.push(*p);
    }
    while centres.len() < k {
        let dists: Vec<f32> = samples.iter().map(|p| nearest(&centres, *p).1).collect();
        let total: f32 = dists.iter().sum();
        if total <= 0.0 {
            break;
        }
        let mut r = rng.unit() * total;
        let mut pick = samples.len().saturating_sub(1);
        for (i, d) in dists.iter().enumerate() {
            r -= d;
            if r <= 0.0 {
                pick = i;
                break;
            }
        }
        match samples.get(pick) {
            Some(p) => centres.push(*p),
            None => break,
        }
    }
    centres
}

/// One Lloyd iteration: answers the new centres, their shares and the mean
/// squared quantisation error.
fn lloyd(samples: &[Rgb], centres: &[Rgb]) -> (Vec<Rgb>, Vec<f32>, f32) {
    let k = centres.len();
    let mut sum = vec![[0.0f64; 3]; k];
    let mut count = vec![0usize; k];
    let mut err = 0.0f64;
    for p in samples {
        let (i, d) = nearest(centres, *p);
        err += f64::from(d);
        if let (Some(s), Some(c)) = (sum.get_mut(i), count.get_mut(i)) {
            for (a, v) in s.iter_mut().zip(p) {
                *a += f64::from(*v);
            }
            *c += 1;
        }
    }
    let n = samples.len().max(1) as f32;
    let next = centres
        .iter()
        .zip(sum.iter().zip(&count))
        .map(|(old, (s, c))| {
            if *c == 0 {
                *old
            } else {
                s.map(|v| (v / *c as f64) as f32)
            }
        })
        .collect();
    let shares = count.iter().map(|c| *c as f32 / n).collect();
    (next, shares, (err / f64::from(n)) as f32)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl ReferenceTrainer {
    fn load(job: &TrainJob, cancel: &Cancel) -> Result<(Vec<Rgb>, Vec<Measure>), TrainError> {
        let mut samples = Vec::new();
        let mut measures = Vec::new();
        for img in &job.images {
            if cancel.is_cancelled() {
                return Err(TrainError::Cancelled);
            }
            let pic = image::open(&img.path)
                .map_err(|e| {
                    TrainError::BadInput(format!("{} is not a picture: {e}", img.path.display()))
                })?
                .thumbnail(WORK_SIDE, WORK_SIDE)
                .to_rgba8();
            let px: Vec<Rgb> = pic
                .pixels()
                .map(|p| [p.0[0], p.0[1], p.0[2]].map(|b| f32::from(b) / 255.0))
                .collect();
            let stride = (px.len() / SAMPLES_PER_IMAGE).max(1);
            samples.extend(px.iter().step_by(stride).take(SAMPLES_PER_IMAGE));
            measures.push(measure(&pic));
        }
        if samples.is_empty() {
            return Err(TrainError::BadInput("the dataset has no pictures".into()));
        }
        Ok((samples, measures))
    }

    /// Trains synchronously (the async port runs this on a blocking thread).
    pub fn train_blocking(
        job: &TrainJob,
        progress: &dyn TrainProgress,
        cancel: &Cancel,
    ) -> Result<TrainOutput, TrainError> {
        let p = &job.params;
        let total = job.steps().max(1);
        let epochs = p.epochs.max(1);
        let per_epoch = total.div_ceil(epochs);
        let mut log = vec![
            LABEL.to_string(),
            format!(
                "dataset: {} pictures, {} repeats, {} epochs, batch {}: {} steps (as kohya counts them)",
                job.images.len(),
                p.repeats,
                epochs,
                p.batch_size,
                total
            ),
            format!(
                "learning_rate {} and optimizer {} are recorded; a closed-form estimate needs neither",
                p.learning_rate, p.optimizer
            ),
        ];
        progress.step(0, total);
        let (samples, measures) = Self::load(job, cancel)?;
        let k = (p.network_dim as usize / 2).clamp(4, 16).min(samples.len());
        log.push(format!(
            "measured {} pictures, {} pixel samples; palette of {k} colours",
            measures.len(),
            samples.len()
        ));
        let mut centres = kmeans_pp(&samples, k, p.seed);
        let mut shares = vec![1.0 / k.max(1) as f32; centres.len()];
        let mut loss = f32::NAN;
        for e in 1..=epochs {
            if cancel.is_cancelled() {
                return Err(TrainError::Cancelled);
            }
            let (next, s, l) = lloyd(&samples, &centres);
            centres = next;
            shares = s;
            loss = l;
            let done = (e * per_epoch).min(total);
            log.push(format!(
                "epoch {e}/{epochs}, steps {done}/{total}, avr_loss={loss:.6}"
            ));
            progress.step(done, total);
        }
        // Most used first.
        let mut order: Vec<(Rgb, f32)> = centres.into_iter().zip(shares).collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        let n = measures.len().max(1) as f32;
        let mut texture = [0.0f32; 4];
        let cells = sf::GRID * sf::GRID;
        let (mut layout, mut saliency) = (vec![0.0f32; cells], vec![0.0f32; cells]);
        for m in &measures {
            for (t, v) in texture.iter_mut().zip(m.texture) {
                *t += v / n;
            }
            for (a, v) in layout.iter_mut().zip(&m.layout) {
                *a += v / n;
            }
            for (a, v) in saliency.iter_mut().zip(&m.saliency) {
                *a += v / n;
            }
        }
        let palette: Vec<f32> = order.iter().flat_map(|(c, _)| *c).collect();
        let weights: Vec<f32> = order.iter().map(|(_, w)| *w).collect();
        let (pb, wb, tb, lb, sb) = (
            f32_bytes(&palette),
            f32_bytes(&weights),
            f32_bytes(&texture),
            f32_bytes(&layout),
            f32_bytes(&saliency),
        );
        let kk = order.len();
        let (palette_shape, weights_shape, grid) = ([kk, 3], [kk], [sf::GRID, sf::GRID]);
        let tensors: Vec<(&str, Dtype, &[usize], &[u8])> = vec![
            (sf::PALETTE, Dtype::F32, &palette_shape[..], &pb[..]),
            (sf::PALETTE_WEIGHTS, Dtype::F32, &weights_shape[..], &wb[..]),
            (sf::TEXTURE, Dtype::F32, &[4][..], &tb[..]),
            (sf::LAYOUT, Dtype::F32, &grid[..], &lb[..]),
            (sf::SALIENCY, Dtype::F32, &grid[..], &sb[..]),
        ];
        let meta = metadata(job, total, loss);
        let bytes = modelfile::write_safetensors(&tensors, &meta)
            .map_err(|e| TrainError::Failed(format!("writing the style file: {e}")))?;
        log.push(format!(
            "wrote an Easel style file: {} bytes, {} tensors",
            bytes.len(),
            tensors.len()
        ));
        let mut metrics = BTreeMap::new();
        metrics.insert("steps".into(), f64::from(total));
        metrics.insert("loss".into(), f64::from(loss));
        metrics.insert("palette".into(), kk as f64);
        metrics.insert("images".into(), job.images.len() as f64);
        Ok(TrainOutput {
            safetensors: bytes,
            log,
            metrics,
        })
    }
}

fn metadata(job: &TrainJob, steps: u32, loss: f32) -> BTreeMap<String, String> {
    let p = &job.params;
    let mut m = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        m.insert(k.to_string(), v);
    };
    put(sf::VERSION_KEY, sf::VERSION.into());
    put(
        "ss_base_model_version",
        crate::base_model_version(&job.family).into(),
    );
    put("ss_sd_model_name", job.base_model.clone());
    put("ss_tag_frequency", crate::tag_frequency(job));
    put("ss_network_module", "easel.style".into());
    put("ss_network_dim", p.network_dim.to_string());
    put("ss_network_alpha", p.network_alpha.to_string());
    put("ss_learning_rate", p.learning_rate.to_string());
    put(
        "ss_num_train_images",
        (job.images.len() as u64 * u64::from(p.repeats)).to_string(),
    );
    put("ss_num_epochs", p.epochs.to_string());
    put("ss_max_train_steps", steps.to_string());
    put("ss_resolution", format!("({0}, {0})", p.resolution));
    put("ss_seed", p.seed.to_string());
    put("ss_output_name", job.name.clone());
    put(
        "ss_training_comment",
        format!("trigger: {}; {LABEL}", p.trigger_word),
    );
    put("easel_trigger_word", p.trigger_word.clone());
    put("easel_dataset_kind", job.kind.as_str().into());
    put("easel_final_loss", format!("{loss:.6}"));
    put("modelspec.title", job.name.clone());
    put("modelspec.trigger_phrase", p.trigger_word.clone());
    m
}

#[async_trait::async_trait]
impl Trainer for ReferenceTrainer {
    fn name(&self) -> &'static str {
        "reference"
    }
    fn neural(&self) -> bool {
        false
    }
    fn label(&self) -> String {
        LABEL.into()
    }
    async fn train(
        &self,
        job: &TrainJob,
        progress: Arc<dyn TrainProgress>,
        cancel: Cancel,
    ) -> Result<TrainOutput, TrainError> {
        let job = job.clone();
        tokio::task::spawn_blocking(move || Self::train_blocking(&job, progress.as_ref(), &cancel))
            .await
            .map_err(|e| TrainError::Failed(format!("the reference trainer stopped: {e}")))?
    }
}
