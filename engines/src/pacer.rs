//! The pacer: a load-testing engine that does no picture work. For any
//! action it reports progress `steps` times, one step every `step`, and
//! returns a 1×1 PNG per requested output. It exists so the benchmark can
//! measure Easel's progress fan-out (worker → task → bus → sockets) without
//! the reference engine's image work in the server's CPU time, which the
//! bare baseline servers do not have. It is honest about what it is
//! (`neural: false`, "Pacer (load-test engine: no picture work)") and is
//! used only when configured explicitly (`EASEL_ENGINE=pacer`, or an
//! `[[engines]] kind = "pacer"` entry); never by default.
//!
//! Step `k` (1-based) is due at `start + k × step`, an absolute schedule
//! (`sleep_until`), not `k` sleeps of `step` one after another: timer
//! rounding then cannot accumulate, and a client can compare each progress
//! frame's arrival with its due time (see the harness's progress scenario).

use std::io::Cursor;
use std::sync::Arc;
use std::time::Duration;

use image::{codecs::png::PngEncoder, ExtendedColorType, ImageEncoder};
use protocol::task::{Action, EngineInfo, JobSpec};

use crate::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Produced, Progress};

/// Most steps: each step's percent must differ from the last (the task
/// machine drops a report that does not raise the percent), and percents
/// below 100 are 1..=99.
pub const MAX_STEPS: u32 = 99;
/// Default pause between steps.
pub const DEFAULT_STEP_MS: u64 = 100;
/// Default steps per job.
pub const DEFAULT_STEPS: u32 = 20;
/// Most outputs per job (the server allows 4).
const MAX_OUTPUTS: u32 = 16;

/// The pacer engine.
#[derive(Debug, Clone)]
pub struct PacerEngine {
    step: Duration,
    steps: u32,
    /// The 1×1 PNG every output carries, encoded once.
    png: Arc<Vec<u8>>,
}

/// The percent reported after step `k` of `steps` (1-based): strictly
/// rising, 1..=99, so each step becomes one progress frame; 100 is left to
/// the success.
pub fn step_percent(k: u32, steps: u32) -> u8 {
    let steps = steps.clamp(1, MAX_STEPS);
    let k = k.clamp(1, steps);
    // k * 99 / steps is strictly rising in k for steps <= 99.
    u8::try_from(u64::from(k) * 99 / u64::from(steps)).unwrap_or(99)
}

fn one_pixel_png() -> Result<Vec<u8>, EngineError> {
    let mut out = Cursor::new(Vec::new());
    PngEncoder::new(&mut out)
        .write_image(&[0x80, 0x80, 0x80, 0xff], 1, 1, ExtendedColorType::Rgba8)
        .map_err(|e| EngineError::Failed(format!("pacer png: {e}")))?;
    Ok(out.into_inner())
}

impl PacerEngine {
    /// `steps` is clamped to 1..=[`MAX_STEPS`].
    pub fn new(step: Duration, steps: u32) -> Result<PacerEngine, EngineError> {
        Ok(PacerEngine {
            step,
            steps: steps.clamp(1, MAX_STEPS),
            png: Arc::new(one_pixel_png()?),
        })
    }

    pub fn step(&self) -> Duration {
        self.step
    }

    pub fn steps(&self) -> u32 {
        self.steps
    }
}

#[async_trait::async_trait]
impl Engine for PacerEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "pacer".into(),
            neural: false,
            label: "Pacer (load-test engine: no picture work)".into(),
            notes: Vec::new(),
        }
    }

    fn supports(&self, _action: Action, _family: &str) -> bool {
        true
    }

    async fn run(
        &self,
        job: &JobSpec,
        _inputs: Vec<LoadedInput>,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<EngineResult, EngineError> {
        let start = tokio::time::Instant::now();
        progress.report(0);
        for k in 1..=self.steps {
            tokio::time::sleep_until(start + self.step * k).await;
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            progress.report(step_percent(k, self.steps));
        }
        let outputs = (0..job.n_iter.clamp(1, MAX_OUTPUTS))
            .map(|i| Produced {
                bytes: self.png.as_ref().clone(),
                mime: "image/png".into(),
                ext: "png".into(),
                width: 1,
                height: 1,
                seed: job.seed.wrapping_add(u64::from(i)),
                files: Vec::new(),
            })
            .collect();
        Ok(EngineResult {
            outputs,
            texts: Vec::new(),
            engine: self.info(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Instant;

    struct Recorder(Mutex<Vec<(u8, Instant)>>);
    impl Progress for Recorder {
        fn report(&self, percent: u8) {
            self.0.lock().unwrap().push((percent, Instant::now()));
        }
    }

    fn job(n_iter: u32) -> JobSpec {
        serde_json::from_value(serde_json::json!({
            "task_id": "t1", "attempt": 1, "action": 1, "family": "sdxl", "model": "m",
            "width": 512, "height": 512, "n_iter": n_iter, "steps": 4, "cfg_scale": 7.0,
            "seed": 7, "sampler": "euler", "denoising_strength": 0.0
        }))
        .unwrap()
    }

    #[test]
    fn step_percents_rise_strictly_below_100() {
        for steps in [1, 2, 7, 20, 99] {
            let p: Vec<u8> = (1..=steps).map(|k| step_percent(k, steps)).collect();
            assert!(p.windows(2).all(|w| w[0] < w[1]), "{steps}: {p:?}");
            assert!(p.iter().all(|&x| (1..=99).contains(&x)), "{steps}: {p:?}");
            assert_eq!(p.last(), Some(&99));
        }
        // Clamped: more than 99 steps behaves as 99.
        assert_eq!(step_percent(150, 150), 99);
    }

    #[tokio::test]
    async fn reports_each_step_on_schedule_and_returns_tiny_pngs() {
        let e = PacerEngine::new(Duration::from_millis(10), 5).unwrap();
        assert!(!e.info().neural);
        assert!(e.info().label.contains("no picture work"));
        let rec = Arc::new(Recorder(Mutex::new(Vec::new())));
        let t0 = Instant::now();
        let out = e
            .run(&job(2), Vec::new(), rec.clone(), Cancel::new())
            .await
            .unwrap();
        let elapsed = t0.elapsed();
        assert!(elapsed >= Duration::from_millis(50), "{elapsed:?}");
        let got = rec.0.lock().unwrap().clone();
        let percents: Vec<u8> = got.iter().map(|(p, _)| *p).collect();
        assert_eq!(percents, vec![0, 19, 39, 59, 79, 99]);
        // Step k is not before its due time.
        for (k, (_, at)) in got.iter().enumerate().skip(1) {
            assert!(at.duration_since(t0) >= Duration::from_millis(10 * k as u64));
        }
        assert_eq!(out.outputs.len(), 2);
        assert_eq!(out.engine.name, "pacer");
        for (i, o) in out.outputs.iter().enumerate() {
            let img = image::load_from_memory(&o.bytes).unwrap();
            assert_eq!((img.width(), img.height()), (1, 1));
            assert_eq!((o.width, o.height, o.mime.as_str()), (1, 1, "image/png"));
            assert_eq!(o.seed, 7 + i as u64);
        }
    }

    #[tokio::test]
    async fn stops_when_cancelled() {
        let e = PacerEngine::new(Duration::from_millis(5), 50).unwrap();
        let cancel = Cancel::new();
        cancel.cancel();
        let r = e
            .run(&job(1), Vec::new(), Arc::new(crate::NoProgress), cancel)
            .await;
        assert!(matches!(r, Err(EngineError::Cancelled)));
    }
}
