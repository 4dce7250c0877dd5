//! Effect templates and the Live2D-style breathing loop.
//!
//! Effects (template ids in [`EFFECTS`]): `zoom_burst` (rhythmic zoom
//! pulses with a radial zoom blur along each pulse), `shimmer` (a
//! colour-cycling hue wave travelling across the picture with sparkles on
//! its highlights), `ken_burns` (a slow push and drift under a breathing
//! vignette). With several images the video cycles through them, one equal
//! share of the frames each.
//!
//! Live2D: a mesh warp. A 9 × 9 grid of control points over the picture is
//! displaced by a breathing cycle (the body rises and widens a little from
//! the bottom up, the head sways and nods), each pixel takes the bilinear
//! blend of its cell's four displacements, and the source is sampled there.
//! The cycle is whole over the video, so it loops without a jump.

use super::super::raster::{hsv_to_rgb, lerp3, luma, rgb_to_hsv, smoothstep, Rgbf};
use super::super::rng::{hash2, image_seed};
use super::camera::{locate, work_image, Pose};
use super::{ease, load_image, time_of, Geometry, Rate, Sink, VideoOut, VideoSpec, MAX_IMAGES};
use crate::EngineError;

/// The effect template ids.
pub const EFFECTS: [&str; 3] = ["zoom_burst", "shimmer", "ken_burns"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    ZoomBurst,
    Shimmer,
    KenBurns,
}

fn effect_of(template: &str) -> Option<Effect> {
    match template
        .trim()
        .to_ascii_lowercase()
        .replace('-', "_")
        .as_str()
    {
        "zoom_burst" => Some(Effect::ZoomBurst),
        "shimmer" => Some(Effect::Shimmer),
        "ken_burns" => Some(Effect::KenBurns),
        _ => None,
    }
}

pub fn effect(
    spec: &VideoSpec,
    g: Geometry,
    template: &str,
    images: &[Vec<u8>],
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    let fx = effect_of(template).ok_or_else(|| {
        EngineError::BadInput(format!(
            "unknown effect template `{template}` (known: {})",
            EFFECTS.join(", ")
        ))
    })?;
    if images.is_empty() || images.len() > MAX_IMAGES {
        return Err(EngineError::BadInput(format!(
            "an effect takes 1 to {MAX_IMAGES} images, got {}",
            images.len()
        )));
    }
    let zmax = 1.3;
    let mut sink = Sink::new(
        g.w,
        g.h,
        Rate::whole(g.fps),
        u64::from(g.frames),
        5,
        progress,
        cancel,
    )?;
    let mut works = Vec::with_capacity(images.len());
    for (i, bytes) in images.iter().enumerate() {
        sink.cancelled()?;
        let img = load_image(bytes, &format!("effect image {}", i + 1))?;
        works.push(work_image(&img, g.w, g.h, zmax));
    }
    sink.prepared(5);
    let seed = image_seed(spec.seed, 0, &spec.prompt);
    let n = works.len() as u32;
    for k in 0..g.frames {
        let share = (u64::from(k) * u64::from(n) / u64::from(g.frames.max(1))) as usize;
        let Some(src) = works.get(share) else {
            break;
        };
        let t = time_of(k, g.frames);
        let secs = k as f32 / g.fps as f32;
        let img = match fx {
            Effect::ZoomBurst => zoom_burst(src, g, zmax, secs),
            Effect::Shimmer => shimmer(src, g, zmax, secs, seed),
            Effect::KenBurns => ken_burns(src, g, zmax, t, secs),
        };
        sink.push(img.to_rgb8())?;
    }
    sink.finish()
}

/// A pulse every 1.2 s: a quick zoom in with radial blur, then a slow release.
fn zoom_burst(src: &Rgbf, g: Geometry, zmax: f32, secs: f32) -> Rgbf {
    let phase = (secs / 1.2).fract();
    let pulse = if phase < 0.15 {
        ease(phase / 0.15)
    } else {
        1.0 - ease((phase - 0.15) / 0.85)
    };
    let zoom = 1.0 + 0.25 * pulse;
    let blur = 0.06 * pulse;
    let pose = Pose {
        zoom,
        pan: (0.0, 0.0),
        key: 0.0,
    };
    let (cx, cy) = (src.w as f32 * 0.5, src.h as f32 * 0.5);
    Rgbf::from_fn(g.w, g.h, |x, y| {
        let (sx, sy) = locate(src, g.w, g.h, zmax, pose, x, y);
        // Average along the ray to the centre: the zoom blur.
        let taps = 6;
        let mut acc = [0.0f32; 3];
        for i in 0..taps {
            let s = 1.0 - blur * i as f32 / taps as f32;
            let c = src.sample(cx + (sx - cx) * s, cy + (sy - cy) * s);
            acc = [acc[0] + c[0], acc[1] + c[1], acc[2] + c[2]];
        }
        let c = acc.map(|v| v / taps as f32);
        // A flash at the peak of the burst.
        c.map(|v| v + 0.12 * pulse * pulse)
    })
}

/// A hue wave sweeping diagonally, with sparkles on bright pixels.
fn shimmer(src: &Rgbf, g: Geometry, zmax: f32, secs: f32, seed: u64) -> Rgbf {
    let pose = Pose {
        zoom: 1.0 + 0.1 * (secs * 0.5).sin().abs(),
        pan: (0.0, 0.0),
        key: 0.0,
    };
    let (w, h) = (g.w as f32, g.h as f32);
    let frame = (secs * 8.0) as i64;
    Rgbf::from_fn(g.w, g.h, |x, y| {
        let (sx, sy) = locate(src, g.w, g.h, zmax, pose, x, y);
        let c = src.sample(sx, sy);
        let (u, v) = (x as f32 / w, y as f32 / h);
        let wave = ((u + v) * 6.0 - secs * 3.0).sin() * 0.5 + 0.5;
        let mut hsv = rgb_to_hsv(c);
        hsv[0] += 120.0 * wave + 60.0 * secs;
        hsv[1] = (hsv[1] * (1.0 + 0.4 * wave)).min(1.0);
        let cycled = hsv_to_rgb(hsv);
        let mut out = lerp3(c, cycled, 0.65);
        let bright = smoothstep(0.6, 0.9, luma(c));
        let cell = hash2(
            seed ^ 0x5a4c,
            i64::from(x / 3) + frame * 7919,
            i64::from(y / 3),
        );
        if cell > 0.985 {
            out = lerp3(out, [1.0, 1.0, 1.0], bright * 0.9);
        }
        out
    })
}

/// A slow push and drift with a breathing vignette.
fn ken_burns(src: &Rgbf, g: Geometry, zmax: f32, t: f32, secs: f32) -> Rgbf {
    let e = ease(t);
    let pose = Pose {
        zoom: 1.0 + 0.28 * e,
        pan: (0.6 * (2.0 * e - 1.0), -0.4 * (2.0 * e - 1.0)),
        key: 0.0,
    };
    let (w, h) = (g.w as f32, g.h as f32);
    let strength = 0.55 + 0.15 * (secs * 1.3).sin();
    Rgbf::from_fn(g.w, g.h, |x, y| {
        let (sx, sy) = locate(src, g.w, g.h, zmax, pose, x, y);
        let c = src.sample(sx, sy);
        let (u, v) = (x as f32 / w - 0.5, y as f32 / h - 0.5);
        let d = (u * u + v * v).sqrt() / std::f32::consts::FRAC_1_SQRT_2;
        let vig = 1.0 - strength * smoothstep(0.45, 1.0, d);
        // Warm grade as the push goes in.
        let warm = [1.0 + 0.06 * e, 1.0, 1.0 - 0.06 * e];
        [
            c[0] * vig * warm[0],
            c[1] * vig * warm[1],
            c[2] * vig * warm[2],
        ]
    })
}

/// Control points per side of the Live2D mesh.
const MESH: usize = 9;

pub fn live2d(
    g: Geometry,
    image: &[u8],
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    let img = load_image(image, "character")?;
    let zmax = 1.06;
    let mut sink = Sink::new(
        g.w,
        g.h,
        Rate::whole(g.fps),
        u64::from(g.frames),
        5,
        progress,
        cancel,
    )?;
    let src = work_image(&img, g.w, g.h, zmax);
    sink.prepared(5);
    let secs = g.frames as f32 / g.fps as f32;
    // Whole breaths (about 3 s each) over the video, so it loops.
    let breaths = (secs / 3.0).round().max(1.0);
    let pose = Pose {
        zoom: zmax,
        pan: (0.0, 0.0),
        key: 0.0,
    };
    for k in 0..g.frames {
        let phase = std::f32::consts::TAU * breaths * k as f32 / g.frames as f32;
        let mesh = breathing_mesh(phase);
        let img = Rgbf::from_fn(g.w, g.h, |x, y| {
            let (u, v) = ((x as f32 + 0.5) / g.w as f32, (y as f32 + 0.5) / g.h as f32);
            let (du, dv) = mesh_at(&mesh, u, v);
            let (sx, sy) = locate(&src, g.w, g.h, zmax, pose, x, y);
            // Displacements are in frame units; the work image's scale is
            // the frame's (zoom = zmax), so pixels map one to one.
            src.sample(sx - du * g.w as f32, sy - dv * g.h as f32)
        });
        sink.push(img.to_rgb8())?;
    }
    sink.finish()
}

/// Displacements (share of the frame) of the mesh's control points.
fn breathing_mesh(phase: f32) -> Vec<(f32, f32)> {
    let breath = 0.5 - 0.5 * phase.cos();
    let sway = phase.sin();
    let nod = (2.0 * phase).sin();
    let mut pts = Vec::with_capacity(MESH * MESH);
    for j in 0..MESH {
        for i in 0..MESH {
            let u = i as f32 / (MESH - 1) as f32;
            let v = j as f32 / (MESH - 1) as f32;
            // Weight of the figure: strongest at the centre column, none at
            // the frame's edges (the background stays).
            let body = (1.0 - ((u - 0.5) * 2.0).powi(2)).max(0.0);
            let edge = (u * (1.0 - u) * v * (1.0 - v) * 16.0).min(1.0).sqrt();
            // Chest rises (up) and widens; more higher up, none at the bottom.
            let rise = -0.018 * breath * (1.0 - v) * body;
            let widen = 0.008 * breath * (u - 0.5) * 2.0 * smoothstep(0.3, 0.8, v) * edge;
            // The head (top third) sways and nods.
            let head = smoothstep(0.5, 0.15, v) * body;
            let dx = 0.014 * sway * head + widen;
            let dy = rise + 0.004 * nod * head;
            pts.push((dx * edge, dy * edge));
        }
    }
    pts
}

/// The bilinear blend of the mesh displacements around `(u, v)`.
fn mesh_at(mesh: &[(f32, f32)], u: f32, v: f32) -> (f32, f32) {
    let n = (MESH - 1) as f32;
    let (gx, gy) = ((u * n).clamp(0.0, n), (v * n).clamp(0.0, n));
    let (i0, j0) = (
        (gx.floor() as usize).min(MESH - 2),
        (gy.floor() as usize).min(MESH - 2),
    );
    let (tx, ty) = (gx - i0 as f32, gy - j0 as f32);
    let at = |i: usize, j: usize| mesh.get(j * MESH + i).copied().unwrap_or((0.0, 0.0));
    let (a, b, c, d) = (
        at(i0, j0),
        at(i0 + 1, j0),
        at(i0, j0 + 1),
        at(i0 + 1, j0 + 1),
    );
    let top = (a.0 + (b.0 - a.0) * tx, a.1 + (b.1 - a.1) * tx);
    let bottom = (c.0 + (d.0 - c.0) * tx, c.1 + (d.1 - c.1) * tx);
    (
        top.0 + (bottom.0 - top.0) * ty,
        top.1 + (bottom.1 - top.1) * ty,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breathing_mesh_loops_and_keeps_the_border() {
        let a = breathing_mesh(0.0);
        let b = breathing_mesh(std::f32::consts::TAU);
        for (p, q) in a.iter().zip(&b) {
            assert!((p.0 - q.0).abs() < 1e-5 && (p.1 - q.1).abs() < 1e-5);
        }
        let mid = breathing_mesh(std::f32::consts::PI);
        assert!(mid.iter().any(|p| p.1.abs() > 0.003));
        assert_eq!(mesh_at(&mid, 0.0, 0.5), (0.0, 0.0));
        assert!(mesh_at(&mid, 0.5, 0.4).1 < 0.0, "the chest rises");
        assert!(effect_of("Zoom-Burst").is_some() && effect_of("nope").is_none());
    }
}
