//! What the reference engine's tests share: the job every action starts
//! from, generated input pictures (a scene, a face), the inputs each action
//! needs, runs with and without progress, PNG encoding and decoding, and
//! progress recorders (one that records, one that cancels early).

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use easel_engines::reference::ReferenceEngine;
use easel_engines::{Cancel, Engine, EngineError, EngineResult, LoadedInput, NoProgress, Progress};
use image::{DynamicImage, Rgba, RgbaImage};
use protocol::task::{Action, InputRole, JobSpec};

pub fn job(action: Action) -> JobSpec {
    JobSpec {
        task_id: "task-1".into(),
        attempt: 1,
        action,
        family: "sdxl".into(),
        model: "base".into(),
        loras: Vec::new(),
        prompt: "a red sunset over the mountains".into(),
        negative_prompt: String::new(),
        width: 64,
        height: 48,
        n_iter: 1,
        steps: 8,
        cfg_scale: 7.0,
        seed: 42,
        sampler: "euler".into(),
        denoising_strength: 0.75,
        inputs: Vec::new(),
        upscale_ratio: 0.0,
        left_margin: 0,
        up_margin: 0,
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

pub fn png(img: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

pub fn input(role: InputRole, img: &RgbaImage) -> LoadedInput {
    LoadedInput {
        role,
        bytes: png(img),
    }
}

/// Sky over grass with a red disc: a generic input picture.
pub fn scene(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let d = ((x as f32 - w as f32 * 0.6).powi(2) + (y as f32 - h as f32 * 0.4).powi(2)).sqrt();
        if d < h as f32 * 0.2 {
            Rgba([220, 40, 30, 255])
        } else if y < h / 2 {
            Rgba([90, 150, 230, 255])
        } else {
            Rgba([40, 120 + (x % 7) as u8, 40, 255])
        }
    })
}

/// A skin-coloured face on a blue backdrop.
pub fn face(w: u32, h: u32, skin: [u8; 3]) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let dx = (x as f32 - w as f32 * 0.5) / (w as f32 * 0.18);
        let dy = (y as f32 - h as f32 * 0.45) / (h as f32 * 0.25);
        if dx * dx + dy * dy < 1.0 {
            let shade = (x * 7 % 13) as u8;
            Rgba([skin[0].saturating_sub(shade), skin[1], skin[2], 255])
        } else {
            Rgba([30, 60, 170, 255])
        }
    })
}

/// The inputs each action needs.
pub fn inputs_for(action: Action) -> Vec<LoadedInput> {
    match action {
        Action::TextToImage => Vec::new(),
        Action::ConditionToImage | Action::Preview => {
            vec![input(InputRole::Condition, &scene(64, 48))]
        }
        Action::FaceSwap => vec![
            input(InputRole::FaceSource, &face(80, 80, [230, 180, 150])),
            input(InputRole::FaceTarget, &face(64, 96, [160, 110, 80])),
        ],
        _ => vec![input(InputRole::Init, &scene(40, 30))],
    }
}

pub async fn run_with(
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
    progress: Arc<dyn Progress>,
    cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    ReferenceEngine::new()
        .run(job, inputs, progress, cancel)
        .await
}

pub async fn run(job: &JobSpec, inputs: Vec<LoadedInput>) -> Result<EngineResult, EngineError> {
    run_with(job, inputs, Arc::new(NoProgress), Cancel::new()).await
}

pub fn decode(bytes: &[u8]) -> DynamicImage {
    image::load_from_memory(bytes).unwrap()
}

#[derive(Default)]
pub struct Recorder(pub Mutex<Vec<u8>>);
impl Progress for Recorder {
    fn report(&self, percent: u8) {
        self.0.lock().unwrap().push(percent);
    }
}

/// Cancels the job at its first report above zero.
pub struct CancelEarly(pub Cancel);
impl Progress for CancelEarly {
    fn report(&self, percent: u8) {
        if percent > 0 {
            self.0.cancel();
        }
    }
}
