//! Videos made of several images: first → last frame, and a multi-image
//! sequence with transitions.
//!
//! First → last is a dissolve with optical drift, not ffmpeg's
//! `minterpolate`: the two images a user gives are usually different
//! pictures with no pixel correspondences, where block motion estimation
//! finds spurious vectors and smears blocks across the frame. Here both
//! images ride one continuous camera push (the first drifts towards the
//! centre as the last arrives along the same path), and each pixel changes
//! at its own moment along a seeded fBm field (an organic dissolve), so the
//! motion is smooth, artifact-free and deterministic; it starts exactly on
//! the first image and ends exactly on the last.
//!
//! Multi-image shows each image with a slow Ken Burns drift and joins
//! neighbours with xfade-style transitions (dissolve, soft wipe, slide,
//! circle open), computed here per frame so frames stream.

use super::super::raster::{lerp3, smoothstep, Rgbf};
use super::super::rng::{image_seed, Noise, Rng};
use super::camera::{locate, work_image, Pose, Shot};
use super::{
    ease, load_image, time_of, CameraMode, CameraMove, Geometry, Rate, Sink, VideoOut, VideoSpec,
    MAX_IMAGES,
};
use crate::EngineError;

pub fn first_last(
    spec: &VideoSpec,
    g: Geometry,
    first: &[u8],
    last: &[u8],
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    let a = load_image(first, "first frame")?;
    let b = load_image(last, "last frame")?;
    let seed = image_seed(spec.seed, 0, &spec.prompt);
    // A gentle push by default; the spec's camera when given.
    let shot = Shot::new(
        Some(spec.camera.unwrap_or(CameraMove {
            mode: CameraMode::Zoom,
            offset: 3.0,
        })),
        seed,
    );
    let zmax = shot.zmax();
    let mut sink = Sink::new(
        g.w,
        g.h,
        Rate::whole(g.fps),
        u64::from(g.frames),
        5,
        progress,
        cancel,
    )?;
    let wa = work_image(&a, g.w, g.h, zmax);
    let wb = work_image(&b, g.w, g.h, zmax);
    sink.prepared(5);
    let noise = Noise::new(seed);
    // Per-pixel timing offsets (fixed over the video).
    let timing: Vec<f32> = (0..g.h)
        .flat_map(|y| {
            (0..g.w).map(move |x| {
                let (u, v) = (x as f32 / g.w as f32, y as f32 / g.h as f32);
                noise.fbm(u * 3.0, v * 3.0, 4) - 0.5
            })
        })
        .collect();
    for k in 0..g.frames {
        let t = time_of(k, g.frames);
        let pose = shot.pose(t);
        let img = Rgbf::from_fn(g.w, g.h, |x, y| {
            let off = timing
                .get(y as usize * g.w as usize + x as usize)
                .copied()
                .unwrap_or(0.0);
            // Each pixel's dissolve runs over half the video, its centre
            // shifted by the field; exactly 0 at t=0 and 1 at t=1.
            let m = smoothstep(0.25, 0.75, t + off * 0.45 * (1.0 - (2.0 * t - 1.0).abs()));
            let m = if k == 0 {
                0.0
            } else if k + 1 == g.frames {
                1.0
            } else {
                m
            };
            // The first image drifts on past its pose while it fades; the
            // last arrives from behind along the same path.
            let drift_a = Pose {
                zoom: pose.zoom * (1.0 + 0.04 * m),
                ..pose
            };
            let drift_b = Pose {
                zoom: pose.zoom * (1.0 - 0.04 * (1.0 - m)),
                ..pose
            };
            let (ax, ay) = locate(&wa, g.w, g.h, zmax, drift_a, x, y);
            let (bx, by) = locate(&wb, g.w, g.h, zmax, drift_b, x, y);
            lerp3(wa.sample(ax, ay), wb.sample(bx, by), m)
        });
        sink.push(img.to_rgb8())?;
    }
    sink.finish()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transition {
    Dissolve,
    WipeLeft,
    SlideUp,
    CircleOpen,
}

const TRANSITIONS: [Transition; 4] = [
    Transition::Dissolve,
    Transition::WipeLeft,
    Transition::SlideUp,
    Transition::CircleOpen,
];

pub fn multi_image(
    spec: &VideoSpec,
    g: Geometry,
    images: &[Vec<u8>],
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    if images.is_empty() || images.len() > MAX_IMAGES {
        return Err(EngineError::BadInput(format!(
            "multi-image video takes 1 to {MAX_IMAGES} images, got {}",
            images.len()
        )));
    }
    let n = images.len() as u32;
    if g.frames < n * 2 {
        return Err(EngineError::BadInput(format!(
            "{} frames are too few for {n} images",
            g.frames
        )));
    }
    let seed = image_seed(spec.seed, 0, &spec.prompt);
    let mut rng = Rng::new(seed);
    let first_transition = rng.below(4) as usize;
    let mut sink = Sink::new(
        g.w,
        g.h,
        Rate::whole(g.fps),
        u64::from(g.frames),
        10,
        progress,
        cancel,
    )?;
    // Each image: a Ken Burns drift, alternately in and out.
    let mut shots = Vec::with_capacity(images.len());
    let mut works = Vec::with_capacity(images.len());
    for (i, bytes) in images.iter().enumerate() {
        sink.cancelled()?;
        let img = load_image(bytes, &format!("image {}", i + 1))?;
        let shot = Shot::new(
            Some(CameraMove {
                mode: if i % 2 == 0 {
                    CameraMode::Movement
                } else {
                    CameraMode::Zoom
                },
                offset: if i % 2 == 0 { 3.0 } else { -3.0 },
            }),
            seed.wrapping_add(i as u64),
        );
        works.push(work_image(&img, g.w, g.h, shot.zmax()));
        shots.push(shot);
        sink.prepared(10 * (i as u32 + 1) / n);
    }
    // Segment i spans [i*seg, (i+1)*seg) frames; transition i→i+1 is the
    // last `tr` frames of segment i.
    let seg = g.frames as f32 / n as f32;
    let tr = (g.fps as f32 * 0.6).min(seg / 3.0).max(1.0);
    let view = |i: usize, local: f32, x: u32, y: u32| -> [f32; 3] {
        match (works.get(i), shots.get(i)) {
            (Some(src), Some(shot)) => {
                let (sx, sy) = locate(src, g.w, g.h, shot.zmax(), shot.pose(local), x, y);
                src.sample(sx, sy)
            }
            _ => [0.0; 3],
        }
    };
    for k in 0..g.frames {
        let kf = k as f32;
        let i = ((kf / seg) as usize).min(images.len() - 1);
        let start = i as f32 * seg;
        // Local time runs over the segment plus the next transition.
        let local = ((kf - start) / (seg + tr)).clamp(0.0, 1.0);
        let into_tr = kf - (start + seg - tr);
        let mix = if i + 1 < images.len() && into_tr >= 0.0 {
            ease((into_tr + 1.0) / (tr + 1.0))
        } else {
            0.0
        };
        let kind = TRANSITIONS
            .get((first_transition + i) % TRANSITIONS.len())
            .copied()
            .unwrap_or(Transition::Dissolve);
        let next_local = (into_tr.max(0.0) / (seg + tr)).clamp(0.0, 1.0);
        let (w, h) = (g.w as f32, g.h as f32);
        let img = Rgbf::from_fn(g.w, g.h, |x, y| {
            if mix <= 0.0 {
                return view(i, local, x, y);
            }
            let (u, v) = ((x as f32 + 0.5) / w, (y as f32 + 0.5) / h);
            match kind {
                Transition::Dissolve => {
                    lerp3(view(i, local, x, y), view(i + 1, next_local, x, y), mix)
                }
                Transition::WipeLeft => {
                    // A soft edge sweeping from right to left.
                    let edge = 1.0 - mix * 1.1;
                    let m = smoothstep(edge, edge + 0.1, u);
                    lerp3(view(i, local, x, y), view(i + 1, next_local, x, y), m)
                }
                Transition::SlideUp => {
                    // The next image pushes the current one up.
                    let shift = (mix * h) as u32;
                    if y + shift < g.h {
                        view(i, local, x, y + shift)
                    } else {
                        view(i + 1, next_local, x, y + shift - g.h)
                    }
                }
                Transition::CircleOpen => {
                    let r = ((u - 0.5).powi(2) * (w / h).powi(2) + (v - 0.5).powi(2)).sqrt();
                    let reach = mix * 0.5 * (1.0 + (w / h).powi(2)).sqrt() * 1.05;
                    let m = smoothstep(reach, reach - 0.04, r);
                    lerp3(view(i, local, x, y), view(i + 1, next_local, x, y), m)
                }
            }
        });
        sink.push(img.to_rgb8())?;
    }
    sink.finish()
}
