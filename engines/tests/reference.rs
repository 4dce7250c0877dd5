//! The reference engine through its public `Engine` interface: every action's
//! outputs (count, size, type), determinism, progress, cancellation, and
//! the per-action rules (masks, margins, matting, descriptions, limits).

// Helpers outside `#[test]` functions unwrap too; a failure is a test failure.
#![allow(clippy::unwrap_used)]

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use easel_engines::reference::ReferenceEngine;
use easel_engines::{Cancel, Engine, EngineError, EngineResult, LoadedInput, NoProgress, Progress};
use image::{AnimationDecoder, DynamicImage, Rgba, RgbaImage};
use protocol::task::job::ControlSpec;
use protocol::task::{Action, InputRole, JobSpec};

fn job(action: Action) -> JobSpec {
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

fn png(img: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

fn input(role: InputRole, img: &RgbaImage) -> LoadedInput {
    LoadedInput {
        role,
        bytes: png(img),
    }
}

/// Sky over grass with a red disc: a generic input picture.
fn scene(w: u32, h: u32) -> RgbaImage {
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
fn face(w: u32, h: u32, skin: [u8; 3]) -> RgbaImage {
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
fn inputs_for(action: Action) -> Vec<LoadedInput> {
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

async fn run_with(
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
    progress: Arc<dyn Progress>,
    cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    ReferenceEngine::new()
        .run(job, inputs, progress, cancel)
        .await
}

async fn run(job: &JobSpec, inputs: Vec<LoadedInput>) -> Result<EngineResult, EngineError> {
    run_with(job, inputs, Arc::new(NoProgress), Cancel::new()).await
}

fn decode(bytes: &[u8]) -> DynamicImage {
    image::load_from_memory(bytes).unwrap()
}

#[derive(Default)]
struct Recorder(Mutex<Vec<u8>>);
impl Progress for Recorder {
    fn report(&self, percent: u8) {
        self.0.lock().unwrap().push(percent);
    }
}

/// Cancels the job at its first report above zero.
struct CancelEarly(Cancel);
impl Progress for CancelEarly {
    fn report(&self, percent: u8) {
        if percent > 0 {
            self.0.cancel();
        }
    }
}

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

#[tokio::test]
async fn masked_image_to_image_keeps_the_opaque_area_exactly() {
    let init = scene(64, 48);
    // Left half opaque (kept), right half transparent (painted: regenerated).
    let mask = RgbaImage::from_fn(64, 48, |x, _| {
        Rgba([255, 255, 255, if x < 32 { 255 } else { 0 }])
    });
    let mut j = job(Action::ImageToImage);
    j.denoising_strength = 0.8;
    let r = run(
        &j,
        vec![input(InputRole::Init, &init), input(InputRole::Mask, &mask)],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    for y in 0..48 {
        for x in 0..32 {
            assert_eq!(
                out.get_pixel(x, y),
                init.get_pixel(x, y),
                "kept pixel ({x},{y})"
            );
        }
    }
    let changed = (0..48)
        .flat_map(|y| (34..64).map(move |x| (x, y)))
        .filter(|&(x, y)| out.get_pixel(x, y) != init.get_pixel(x, y))
        .count();
    assert!(
        changed > 30 * 48 * 9 / 10,
        "painted area regenerated: {changed}"
    );

    // A mask of another size is resized to the output.
    let small = RgbaImage::from_fn(16, 12, |x, _| Rgba([0, 0, 0, if x < 8 { 255 } else { 0 }]));
    let r = run(
        &j,
        vec![
            input(InputRole::Init, &init),
            input(InputRole::Mask, &small),
        ],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.get_pixel(5, 20), init.get_pixel(5, 20));
    assert_ne!(out.get_pixel(60, 5), init.get_pixel(60, 5));
}

#[tokio::test]
async fn image_to_image_moves_with_denoising_strength() {
    let init = scene(64, 48);
    let diff = |d: f32| {
        let init = init.clone();
        async move {
            let mut j = job(Action::ImageToImage);
            j.denoising_strength = d;
            let r = run(&j, vec![input(InputRole::Init, &init)]).await.unwrap();
            let out = decode(&r.outputs[0].bytes).to_rgba8();
            out.pixels()
                .zip(init.pixels())
                .map(|(a, b)| {
                    (0..3)
                        .map(|c| (i32::from(a.0[c]) - i32::from(b.0[c])).unsigned_abs())
                        .sum::<u32>()
                })
                .sum::<u32>()
        }
    };
    let (none, some, most) = (diff(0.0).await, diff(0.3).await, diff(0.9).await);
    assert_eq!(none, 0);
    assert!(some > 0 && most > some * 2, "{none} {some} {most}");
}

#[tokio::test]
async fn expansion_keeps_the_original_at_its_margins() {
    let init = scene(40, 30);
    let mut j = job(Action::Expansion);
    (j.width, j.height) = (72, 50);
    (j.left_margin, j.up_margin) = (20, 9);
    let r = run(&j, vec![input(InputRole::Init, &init)]).await.unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.dimensions(), (72, 50));
    for y in 0..30 {
        for x in 0..40 {
            assert_eq!(out.get_pixel(x + 20, y + 9), init.get_pixel(x, y));
        }
    }
    // Near the source the fill continues its edge colours; far away it is generated.
    let near = out.get_pixel(19, 20);
    let edge = init.get_pixel(0, 11);
    let d: i32 = (0..3)
        .map(|c| (i32::from(near.0[c]) - i32::from(edge.0[c])).abs())
        .sum();
    assert!(d < 90, "fill continues the edge: {near:?} vs {edge:?}");

    // A source larger than the canvas is clipped, not refused.
    (j.width, j.height, j.left_margin, j.up_margin) = (30, 20, 5, 5);
    let r = run(&j, vec![input(InputRole::Init, &init)]).await.unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.get_pixel(29, 19), init.get_pixel(24, 14));
}

#[tokio::test]
async fn remove_background_cuts_out_the_subject() {
    let img = RgbaImage::from_fn(64, 64, |x, y| {
        let d = ((x as f32 - 32.0).powi(2) + (y as f32 - 34.0).powi(2)).sqrt();
        if d < 16.0 {
            Rgba([200, 50, 40, 255])
        } else {
            // A light, slightly graded studio backdrop.
            Rgba([235 - (y / 8) as u8, 238 - (y / 8) as u8, 240, 255])
        }
    });
    let r = run(
        &job(Action::RemoveBackground),
        vec![input(InputRole::Init, &img)],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes);
    assert!(out.color().has_alpha());
    let out = out.to_rgba8();
    assert_eq!(out.dimensions(), (64, 64));
    for i in 0..64 {
        for (x, y) in [(i, 0), (i, 63), (0, i), (63, i)] {
            assert_eq!(out.get_pixel(x, y).0[3], 0, "border ({x},{y})");
        }
    }
    assert_eq!(out.get_pixel(32, 34).0[3], 255);
    assert_eq!(out.get_pixel(24, 34).0[3], 255);
    assert_eq!(out.get_pixel(5, 5).0[3], 0);
}

#[tokio::test]
async fn descriptors_name_the_dominant_colour() {
    let red = RgbaImage::from_fn(120, 80, |x, y| {
        if x > 90 && y < 25 {
            Rgba([250, 250, 250, 255])
        } else {
            Rgba([210, 25, 20, 255])
        }
    });
    let blue = RgbaImage::from_pixel(50, 90, Rgba([15, 30, 140, 255]));
    let r = run(
        &job(Action::Descriptors),
        vec![input(InputRole::Init, &red), input(InputRole::Init, &blue)],
    )
    .await
    .unwrap();
    assert!(r.outputs.is_empty());
    assert_eq!(r.texts.len(), 2);
    assert!(r.texts[0].contains("mostly red"), "{}", r.texts[0]);
    assert!(r.texts[0].contains("landscape-format"), "{}", r.texts[0]);
    assert!(
        r.texts[0].contains("white area in the upper right"),
        "{}",
        r.texts[0]
    );
    assert!(r.texts[1].contains("blue"), "{}", r.texts[1]);
    assert!(r.texts[1].contains("portrait-format"), "{}", r.texts[1]);
    assert!(r.texts[1].contains("low contrast"), "{}", r.texts[1]);
}

#[tokio::test]
async fn upscale_gives_exactly_the_requested_size() {
    for (w, h) in [(100, 75), (81, 61), (40, 30), (20, 15)] {
        let mut j = job(Action::Upscale);
        (j.width, j.height) = (w, h);
        let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))])
            .await
            .unwrap();
        assert_eq!(decode(&r.outputs[0].bytes).to_rgba8().dimensions(), (w, h));
    }
    // Width and height left at 0: the ratio decides.
    let mut j = job(Action::ExtraUpscale);
    (j.width, j.height, j.upscale_ratio) = (0, 0, 1.5);
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))])
        .await
        .unwrap();
    assert_eq!((r.outputs[0].width, r.outputs[0].height), (60, 45));
}

#[tokio::test]
async fn condition_to_image_follows_the_condition_edges() {
    let square = RgbaImage::from_fn(64, 48, |x, y| {
        if (16..48).contains(&x) && (12..36).contains(&y) {
            Rgba([255, 255, 255, 255])
        } else {
            Rgba([0, 0, 0, 255])
        }
    });
    let mut c = job(Action::ConditionToImage);
    c.control = Some(ControlSpec {
        module: "canny".into(),
        weight: 1.0,
        guidance_end: 1.0,
    });
    let with = decode(
        &run(&c, vec![input(InputRole::Condition, &square)])
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_rgb8();
    let plain = decode(
        &run(&job(Action::TextToImage), Vec::new())
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_rgb8();
    let diff = |x: u32, y: u32| -> i32 {
        (0..3)
            .map(|k| {
                (i32::from(with.get_pixel(x, y).0[k]) - i32::from(plain.get_pixel(x, y).0[k])).abs()
            })
            .sum()
    };
    let on_edge: i32 = (18..46).map(|x| diff(x, 12) + diff(x, 35)).sum();
    let off_edge: i32 = (18..46).map(|x| diff(x, 24) + diff(x, 2)).sum();
    assert!(
        on_edge > off_edge * 2,
        "edges drawn: {on_edge} vs {off_edge}"
    );

    // The preview shows the edge map itself.
    let mut p = job(Action::Preview);
    p.control = c.control.clone();
    let map = decode(
        &run(&p, vec![input(InputRole::Condition, &square)])
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_luma8();
    assert_eq!(map.dimensions(), (64, 48));
    assert_eq!(map.get_pixel(32, 24).0[0], 0);
    assert!((10..20).any(|x| map.get_pixel(x, 24).0[0] == 255));
    p.control = Some(ControlSpec {
        module: "depth".into(),
        weight: 1.0,
        guidance_end: 1.0,
    });
    let depth = decode(
        &run(&p, vec![input(InputRole::Condition, &square)])
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_luma8();
    assert!(depth.get_pixel(32, 24).0[0] > depth.get_pixel(2, 2).0[0]);
}

#[tokio::test]
async fn variations_stay_close_to_their_source() {
    let src = scene(64, 48);
    let mut j = job(Action::Variation);
    j.n_iter = 3;
    let r = run(&j, vec![input(InputRole::Init, &src)]).await.unwrap();
    let inverse = RgbaImage::from_fn(64, 48, |x, y| {
        let p = src.get_pixel(x, y).0;
        Rgba([255 - p[0], 255 - p[1], 255 - p[2], 255])
    });
    let distance = |a: &RgbaImage, b: &RgbaImage| -> u64 {
        a.pixels()
            .zip(b.pixels())
            .map(|(p, q)| {
                (0..3)
                    .map(|c| u64::from(p.0[c].abs_diff(q.0[c])))
                    .sum::<u64>()
            })
            .sum()
    };
    for o in &r.outputs {
        let v = decode(&o.bytes).to_rgba8();
        assert_ne!(v, src);
        assert!(distance(&v, &src) * 3 < distance(&v, &inverse));
    }
    // Width and height 0: the init's size.
    (j.width, j.height, j.n_iter) = (0, 0, 1);
    let r = run(&j, vec![input(InputRole::Init, &src)]).await.unwrap();
    assert_eq!((r.outputs[0].width, r.outputs[0].height), (64, 48));
}

#[tokio::test]
async fn face_swap_and_repair_work_on_the_face() {
    let source = face(80, 80, [235, 185, 150]);
    let target = face(64, 96, [150, 100, 70]);
    let mut j = job(Action::FaceSwap);
    j.face_strength = 1.0;
    let r = run(
        &j,
        vec![
            input(InputRole::FaceSource, &source),
            input(InputRole::FaceTarget, &target),
        ],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.dimensions(), (64, 96));
    // Outside the face nothing moves; inside the face it does.
    assert_eq!(out.get_pixel(1, 1), target.get_pixel(1, 1));
    assert_eq!(out.get_pixel(62, 94), target.get_pixel(62, 94));
    let inside = (26..38)
        .filter(|&x| out.get_pixel(x, 43) != target.get_pixel(x, 43))
        .count();
    assert!(inside > 6, "{inside}");

    let missing = run(&j, vec![input(InputRole::FaceTarget, &target)]).await;
    assert!(matches!(missing, Err(EngineError::BadInput(_))));

    let mut rep = job(Action::CharacterRepair);
    rep.face_strength = 0.9;
    let r = run(&rep, vec![input(InputRole::Init, &target)])
        .await
        .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.dimensions(), (64, 96));
    assert_ne!(out, target);
}

#[tokio::test]
async fn animation_is_a_looping_gif_with_the_requested_frames() {
    let mut j = job(Action::Animation);
    j.frames = 6;
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))])
        .await
        .unwrap();
    let gif = &r.outputs[0].bytes;
    assert!(gif.starts_with(b"GIF89a"));
    assert!(gif.windows(11).any(|w| w == b"NETSCAPE2.0"), "loops");
    let dec = image::codecs::gif::GifDecoder::new(Cursor::new(gif)).unwrap();
    let frames = dec.into_frames().collect_frames().unwrap();
    assert_eq!(frames.len(), 6);
    assert!(frames.iter().all(|f| f.buffer().dimensions() == (64, 48)));
    assert_ne!(frames[0].buffer(), frames[3].buffer(), "the camera moves");

    j.frames = 0;
    let r = run(&j, vec![input(InputRole::Init, &scene(20, 15))])
        .await
        .unwrap();
    let dec = image::codecs::gif::GifDecoder::new(Cursor::new(&r.outputs[0].bytes)).unwrap();
    assert_eq!(dec.into_frames().count(), 16, "default frame count");
}

#[tokio::test]
async fn bad_missing_and_oversized_inputs_are_refused() {
    let garbage = LoadedInput {
        role: InputRole::Init,
        bytes: b"definitely not an image".to_vec(),
    };
    for action in [
        Action::ImageToImage,
        Action::Upscale,
        Action::Descriptors,
        Action::RemoveBackground,
    ] {
        let r = run(&job(action), vec![garbage.clone()]).await;
        assert!(matches!(r, Err(EngineError::BadInput(_))), "{action:?}");
        let r = run(&job(action), Vec::new()).await;
        assert!(
            matches!(r, Err(EngineError::BadInput(_))),
            "{action:?} without input"
        );
    }
    // A truncated PNG.
    let mut cut = png(&scene(40, 30));
    cut.truncate(cut.len() / 2);
    let r = run(
        &job(Action::Variation),
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: cut,
        }],
    )
    .await;
    assert!(matches!(r, Err(EngineError::BadInput(_))));

    // An input over 4096 px a side.
    let wide = RgbaImage::from_pixel(4097, 1, Rgba([1, 2, 3, 255]));
    let r = run(&job(Action::Upscale), vec![input(InputRole::Init, &wide)]).await;
    assert!(matches!(r, Err(EngineError::BadInput(_))), "{r:?}");

    // Output sizes over the limit.
    for (w, h) in [(5000, 64), (64, 4097), (4096, 4096 + 1)] {
        let mut j = job(Action::TextToImage);
        (j.width, j.height) = (w, h);
        assert!(matches!(
            run(&j, Vec::new()).await,
            Err(EngineError::BadInput(_))
        ));
    }
    let mut j = job(Action::Upscale);
    (j.width, j.height) = (8192, 6144);
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))]).await;
    assert!(matches!(r, Err(EngineError::BadInput(_))));
    let mut j = job(Action::Animation);
    (j.width, j.height, j.frames) = (4096, 4096, 48);
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))]).await;
    assert!(matches!(r, Err(EngineError::BadInput(_))));
}
