//! Camera moves: image-to-video (the camera move with its offset over the
//! image) and text-to-video (a slow camera move over a reference painting of
//! the prompt bigger than the frame, plus a seeded drift of the sky's
//! elements). The source is Lanczos-resampled once to the largest scale the
//! move needs (as in `animate.rs`); each frame samples it bilinearly, so no
//! frame minifies by much.

use image::RgbaImage;

use super::super::prompt::interpret;
use super::super::raster::{resize_rgba, smoothstep, Rgbf};
use super::super::rng::{image_seed, Noise, Rng};
use super::super::synth::Plan;
use super::{
    ease, load_image, time_of, CameraMode, CameraMove, Geometry, Rate, Sink, VideoOut, VideoSpec,
};
use crate::EngineError;

/// One camera path over a work image that covers the frame at `zmax`.
#[derive(Debug, Clone, Copy)]
pub struct Shot {
    mode: CameraMode,
    /// Strength `0..=1` and direction (`±1`).
    strength: f32,
    dir: f32,
    /// Pan direction for `Movement` (unit vector).
    diag: (f32, f32),
}

/// The camera at one instant: zoom (1 = the frame just covered), pan as a
/// share of the free margin (`-1..=1` each way), keystone (yaw) amount.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    pub zoom: f32,
    pub pan: (f32, f32),
    pub key: f32,
}

impl Shot {
    /// The spec's move, or one picked from the seed (strength 0.5).
    pub fn new(camera: Option<CameraMove>, seed: u64) -> Shot {
        let mut rng = Rng::new(seed ^ 0x00ca_3e7a);
        let angle = (rng.below(8) as f32) * std::f32::consts::FRAC_PI_4 + 0.3;
        let diag = (angle.cos(), angle.sin());
        let (mode, offset) = match camera {
            Some(c) => (c.mode, c.offset),
            None => {
                let mode = match rng.below(4) {
                    0 => CameraMode::Zoom,
                    1 => CameraMode::Horizontal,
                    2 => CameraMode::Vertical,
                    _ => CameraMode::Movement,
                };
                let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
                (mode, 5.0 * sign)
            }
        };
        let offset = if offset.is_finite() {
            offset.clamp(-10.0, 10.0)
        } else {
            0.0
        };
        let offset = if offset.abs() < 0.5 { 5.0 } else { offset };
        Shot {
            mode,
            strength: offset.abs() / 10.0,
            dir: offset.signum(),
            diag,
        }
    }

    /// The largest zoom the path reaches: the work image is made for it.
    pub fn zmax(&self) -> f32 {
        match self.mode {
            CameraMode::Zoom => 1.0 + 0.5 * self.strength,
            CameraMode::Movement => 1.0 + 0.35 * self.strength,
            CameraMode::Horizontal | CameraMode::Vertical => 1.0 + 0.3 * self.strength,
            CameraMode::Pan => 1.0 + 0.4 * self.strength,
        }
    }

    /// The pose at time `t` in `[0, 1]` (eased).
    pub fn pose(&self, t: f32) -> Pose {
        let e = ease(t);
        let s = self.strength;
        let sweep = self.dir * (2.0 * e - 1.0) * 0.9;
        match self.mode {
            CameraMode::Zoom => {
                let z = if self.dir > 0.0 { e } else { 1.0 - e };
                Pose {
                    zoom: 1.0 + 0.5 * s * z,
                    pan: (0.0, 0.0),
                    key: 0.0,
                }
            }
            CameraMode::Horizontal => Pose {
                zoom: self.zmax(),
                pan: (sweep, 0.0),
                key: 0.0,
            },
            CameraMode::Vertical => Pose {
                zoom: self.zmax(),
                pan: (0.0, sweep),
                key: 0.0,
            },
            CameraMode::Pan => Pose {
                zoom: self.zmax(),
                pan: (sweep, 0.0),
                // The side the camera turns towards comes nearer.
                key: 0.12 * s * self.dir * (std::f32::consts::PI * e).sin(),
            },
            CameraMode::Movement => Pose {
                zoom: 1.0 + 0.35 * s * e,
                pan: (
                    self.diag.0 * self.dir * (2.0 * e - 1.0) * 0.8,
                    self.diag.1 * self.dir * (2.0 * e - 1.0) * 0.8,
                ),
                key: 0.0,
            },
        }
    }
}

/// A work image for a `w` x `h` frame: `img` scaled (Lanczos) to cover the
/// frame at zoom `zmax`.
pub fn work_image(img: &RgbaImage, w: u32, h: u32, zmax: f32) -> Rgbf {
    let (iw, ih) = img.dimensions();
    let cover = (w as f32 / iw.max(1) as f32).max(h as f32 / ih.max(1) as f32);
    let work = cover * zmax;
    let limit = 2 * super::MAX_SIDE;
    let sw = ((iw as f32 * work).ceil() as u32).clamp(1, limit);
    let sh = ((ih as f32 * work).ceil() as u32).clamp(1, limit);
    Rgbf::from_rgba(&resize_rgba(img, sw, sh))
}

/// Where output pixel `(x, y)` of a `w` x `h` frame looks in `src` (made
/// by [`work_image`] for `zmax`) at `pose`.
pub fn locate(src: &Rgbf, w: u32, h: u32, zmax: f32, pose: Pose, x: u32, y: u32) -> (f32, f32) {
    let (sw, sh) = (src.w as f32, src.h as f32);
    // Output pixels per work pixel.
    let f = pose.zoom / zmax;
    let (vw, vh) = (w as f32 / f, h as f32 / f);
    let (mx, my) = (((sw - vw) * 0.5).max(0.0), ((sh - vh) * 0.5).max(0.0));
    let (cx, cy) = (sw * 0.5 + pose.pan.0 * mx, sh * 0.5 + pose.pan.1 * my);
    let u = (x as f32 + 0.5) / w as f32 - 0.5;
    let ky = 1.0 + pose.key * 2.0 * u;
    // The keystone may enlarge a column: shrink it back to stay inside.
    let fit = 1.0 / (1.0 + pose.key.abs());
    let sx = cx + (x as f32 + 0.5 - w as f32 * 0.5) / f;
    let sy = cy + (y as f32 + 0.5 - h as f32 * 0.5) / f * ky * fit;
    (sx, sy)
}

/// One frame of `shot` over `src`.
pub fn frame(src: &Rgbf, g: Geometry, shot: &Shot, zmax: f32, t: f32) -> Rgbf {
    let pose = shot.pose(t);
    Rgbf::from_fn(g.w, g.h, |x, y| {
        let (sx, sy) = locate(src, g.w, g.h, zmax, pose, x, y);
        src.sample(sx, sy)
    })
}

pub fn image_to_video(
    spec: &VideoSpec,
    g: Geometry,
    image: &[u8],
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    let img = load_image(image, "video")?;
    let shot = Shot::new(spec.camera, spec.seed);
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
    let src = work_image(&img, g.w, g.h, zmax);
    sink.prepared(5);
    for k in 0..g.frames {
        let t = time_of(k, g.frames);
        sink.push(frame(&src, g, &shot, zmax, t).to_rgb8())?;
    }
    sink.finish()
}

/// How much larger than the frame the painting is (room for the move).
const PAINT_MARGIN: f32 = 1.25;

pub fn text_to_video(
    spec: &VideoSpec,
    g: Geometry,
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    let seed = image_seed(spec.seed, 0, &spec.prompt);
    let shot = Shot::new(spec.camera, seed);
    let zmax = shot.zmax().max(PAINT_MARGIN);
    let look = interpret(&spec.prompt, &spec.negative_prompt, 7.0);
    let pw = ((g.w as f32 * zmax).ceil() as u32).max(1);
    let ph = ((g.h as f32 * zmax).ceil() as u32).max(1);
    super::super::check_size(pw, ph, "painting")?;
    let mut sink = Sink::new(
        g.w,
        g.h,
        Rate::whole(g.fps),
        u64::from(g.frames),
        20,
        progress,
        cancel,
    )?;
    // The painting, band by band (cancel and progress between bands).
    let plan = Plan::new(&look, pw, ph, seed, 20);
    let mut src = Rgbf::new(pw, ph);
    let bands = 16u32.min(ph);
    for band in 0..bands {
        sink.cancelled()?;
        let y0 = ph * band / bands;
        let y1 = ph * (band + 1) / bands;
        for y in y0..y1 {
            for x in 0..pw {
                src.set(x, y, plan.shade(x, y));
            }
        }
        sink.prepared(20 * (band + 1) / bands);
    }
    let drift = Drift::new(seed, pw, ph);
    for k in 0..g.frames {
        let t = time_of(k, g.frames);
        let pose = shot.pose(t);
        let secs = k as f32 / g.fps as f32;
        let img = Rgbf::from_fn(g.w, g.h, |x, y| {
            let (sx, sy) = locate(&src, g.w, g.h, zmax, pose, x, y);
            let (dx, dy) = drift.at(sx, sy, secs);
            src.sample(sx - dx, sy - dy)
        });
        sink.push(img.to_rgb8())?;
    }
    sink.finish()
}

/// The seeded drift of the painting's elements: the sky (upper part) slides
/// sideways at a seeded speed (clouds, sun and stars travel together) and
/// everything ripples slightly along a slow fBm flow; the ground stays put.
pub struct Drift {
    noise: Noise,
    /// Work pixels per second.
    speed: f32,
    ripple: f32,
    w: f32,
    h: f32,
}

impl Drift {
    pub fn new(seed: u64, w: u32, h: u32) -> Drift {
        let mut rng = Rng::new(seed ^ 0x0d71_f700);
        let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        Drift {
            noise: Noise::new(seed ^ 0x0f10_0000),
            speed: sign * rng.range(0.008, 0.02) * w as f32,
            ripple: 0.004 * w.min(h) as f32,
            w: w as f32,
            h: h as f32,
        }
    }

    /// Displacement (work pixels) of the point `(x, y)` at `secs`.
    pub fn at(&self, x: f32, y: f32, secs: f32) -> (f32, f32) {
        let v = y / self.h.max(1.0);
        let sky = smoothstep(0.62, 0.2, v);
        let u = x / self.w.max(1.0);
        let n1 = self.noise.fbm(u * 3.0 + secs * 0.15, v * 3.0, 3) - 0.5;
        let n2 = self.noise.fbm(u * 3.0 + 7.3, v * 3.0 - secs * 0.15, 3) - 0.5;
        (
            sky * self.speed * secs + self.ripple * n1 * 2.0,
            self.ripple * n2 * 2.0 * sky,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poses_follow_the_mode_and_offset() {
        let zin = Shot::new(
            Some(CameraMove {
                mode: CameraMode::Zoom,
                offset: 10.0,
            }),
            1,
        );
        assert_eq!(zin.pose(0.0).zoom, 1.0);
        assert!((zin.pose(1.0).zoom - 1.5).abs() < 1e-6);
        let zout = Shot::new(
            Some(CameraMove {
                mode: CameraMode::Zoom,
                offset: -4.0,
            }),
            1,
        );
        assert!(zout.pose(0.0).zoom > zout.pose(1.0).zoom);
        let left = Shot::new(
            Some(CameraMove {
                mode: CameraMode::Horizontal,
                offset: -10.0,
            }),
            1,
        );
        assert!(left.pose(0.0).pan.0 > 0.0 && left.pose(1.0).pan.0 < 0.0);
        assert_eq!(left.pose(0.5).pan.1, 0.0);
        let up = Shot::new(
            Some(CameraMove {
                mode: CameraMode::Vertical,
                offset: 3.0,
            }),
            1,
        );
        assert!(up.pose(1.0).pan.1 > 0.0 && up.pose(1.0).pan.0 == 0.0);
        let pan = Shot::new(
            Some(CameraMove {
                mode: CameraMode::Pan,
                offset: 8.0,
            }),
            1,
        );
        assert!(pan.pose(0.5).key > 0.0 && pan.pose(0.0).key.abs() < 1e-6);
    }

    #[test]
    fn the_view_stays_inside_the_work_image() {
        let img = RgbaImage::from_fn(300, 200, |x, y| image::Rgba([x as u8, y as u8, 0, 255]));
        for mode in [
            CameraMode::Movement,
            CameraMode::Horizontal,
            CameraMode::Vertical,
            CameraMode::Zoom,
            CameraMode::Pan,
        ] {
            for offset in [-10.0, 10.0] {
                let shot = Shot::new(Some(CameraMove { mode, offset }), 3);
                let src = work_image(&img, 64, 48, shot.zmax());
                for t in [0.0, 0.3, 0.7, 1.0] {
                    let pose = shot.pose(t);
                    for (x, y) in [(0, 0), (63, 0), (0, 47), (63, 47)] {
                        let (sx, sy) = locate(&src, 64, 48, shot.zmax(), pose, x, y);
                        assert!(
                            sx >= -0.01
                                && sy >= -0.01
                                && sx <= src.w as f32 + 0.01
                                && sy <= src.h as f32 + 0.01,
                            "{mode:?} {offset} t={t} ({x},{y}) -> ({sx},{sy}) in {}x{}",
                            src.w,
                            src.h
                        );
                    }
                }
            }
        }
    }
}
