//! Kinds that start from a video: upscale (ffmpeg's Lanczos `scale` per
//! frame), frame interpolation (`minterpolate` motion-compensated, to twice
//! the frame rate) and extension (the video, then its last motion
//! continued: translation and zoom estimated between its last two frames by
//! a coarse-to-fine search, extrapolated at constant velocity that eases
//! out before the view would leave the last frame).
//!
//! Also [`transcode`]: a video made elsewhere (a remote engine's WebM or
//! MP4) re-encoded as this module's H.264 MP4, at a given size and length.
//!
//! The source is decoded by one ffmpeg child and re-encoded by another;
//! frames pass through one at a time.

use image::RgbImage;

use super::super::raster::{luma, unit, Rgbf};
use super::ffmpeg::{temp_input, Decoder};
use super::{check_work, even_size, probe, Rate, Sink, VideoOut, MAX_EXTEND_SECS, MAX_UPSCALE};
use crate::EngineError;

pub fn upscale(
    video: &[u8],
    factor: f32,
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    if !factor.is_finite() || factor <= 1.0 || factor > MAX_UPSCALE {
        return Err(EngineError::BadInput(format!(
            "upscale factor {factor} is outside (1, {MAX_UPSCALE}]"
        )));
    }
    let info = probe(video)?;
    let (w, h) = even_size(
        (info.width as f32 * factor).round() as u32,
        (info.height as f32 * factor).round() as u32,
    )?;
    let filter = format!("scale={w}:{h}:flags=lanczos");
    pass(
        video,
        &filter,
        w,
        h,
        info.rate,
        info.frames,
        None,
        progress,
        cancel,
    )
}

pub fn interpolate(
    video: &[u8],
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    let info = probe(video)?;
    let (w, h) = even_size(info.width, info.height)?;
    let rate = info.rate.doubled();
    if rate.as_f64() > 120.0 {
        return Err(EngineError::BadInput(format!(
            "the video is already {} fps",
            info.fps
        )));
    }
    // minterpolate stops a frame or two before the source's last frame:
    // two clones of the last frame at the end give it the room, and the
    // output is cut at exactly twice the source's frames (same duration).
    let frames = info.frames * 2;
    let filter = format!(
        "tpad=stop_mode=clone:stop=2,\
         minterpolate=fps={rate}:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1,\
         scale={w}:{h}:flags=lanczos"
    );
    pass(
        video,
        &filter,
        w,
        h,
        rate,
        frames,
        Some(frames),
        progress,
        cancel,
    )
}

/// Re-encodes a video made elsewhere as this module's MP4 (H.264,
/// `yuv420p`, `+faststart`, no audio) at its own frame rate, with the
/// poster `Sink` keeps. `size` (rounded down to even) scales the video to
/// cover that size and crops the overflow, so the aspect is never
/// distorted; `None` keeps the source's size. `max_secs` cuts it to that
/// length. Bytes that are not a video answer [`EngineError::BadInput`].
pub fn transcode(
    video: &[u8],
    size: Option<(u32, u32)>,
    max_secs: Option<f32>,
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    let info = probe(video)?;
    let (w, h) = match size {
        Some((w, h)) => even_size(w, h)?,
        None => even_size(info.width, info.height)?,
    };
    let filter = if (w, h) == (info.width, info.height) {
        "setsar=1".to_string()
    } else {
        format!(
            "scale={w}:{h}:force_original_aspect_ratio=increase:flags=lanczos,crop={w}:{h},setsar=1"
        )
    };
    let limit = max_secs
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| (f64::from(s) * info.rate.as_f64()).round().max(1.0) as u64);
    let planned = limit.map_or(info.frames, |l| l.min(info.frames.max(1)));
    pass(
        video, &filter, w, h, info.rate, planned, limit, progress, cancel,
    )
}

/// Decodes `video` through `filter` and encodes every frame.
#[allow(clippy::too_many_arguments)]
fn pass(
    video: &[u8],
    filter: &str,
    w: u32,
    h: u32,
    rate: Rate,
    planned: u64,
    limit: Option<u64>,
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    check_work(w, h, planned.max(1))?;
    let input = temp_input(video)?;
    let mut sink = Sink::new(w, h, rate, planned, 0, progress, cancel)?;
    let mut dec = Decoder::start(input.path(), filter, w, h, rate, limit)?;
    let mut count = 0u64;
    while let Some(frame) = dec.next_frame()? {
        count += 1;
        check_work(w, h, count)?;
        let img = RgbImage::from_raw(w, h, frame)
            .ok_or_else(|| EngineError::Failed("short frame from the decoder".into()))?;
        sink.push(img)?;
    }
    sink.finish()
}

pub fn extend(
    video: &[u8],
    secs: f32,
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    if !secs.is_finite() || secs <= 0.0 || secs > MAX_EXTEND_SECS {
        return Err(EngineError::BadInput(format!(
            "extension of {secs} s is outside (0, {MAX_EXTEND_SECS}]"
        )));
    }
    let info = probe(video)?;
    let (w, h) = even_size(info.width, info.height)?;
    let rate = info.rate;
    let extra = (f64::from(secs) * rate.as_f64()).round().max(1.0) as u64;
    check_work(w, h, info.frames + extra)?;
    let input = temp_input(video)?;
    let mut sink = Sink::new(w, h, rate, info.frames + extra, 0, progress, cancel)?;
    let filter = format!("scale={w}:{h}:flags=lanczos");
    let mut dec = Decoder::start(input.path(), &filter, w, h, rate, None)?;
    let mut prev: Option<RgbImage> = None;
    let mut last: Option<RgbImage> = None;
    let mut count = 0u64;
    while let Some(frame) = dec.next_frame()? {
        count += 1;
        check_work(w, h, count + extra)?;
        let img = RgbImage::from_raw(w, h, frame)
            .ok_or_else(|| EngineError::Failed("short frame from the decoder".into()))?;
        sink.push(img.clone())?;
        prev = last.take();
        last = Some(img);
    }
    let last = last.ok_or_else(|| EngineError::BadInput("the video has no frames".into()))?;
    let motion = match &prev {
        Some(p) => estimate(p, &last),
        None => Motion::default(),
    };
    let src = rgbf(&last);
    for j in 1..=extra {
        let m = motion.at(j as f32, w as f32, h as f32);
        let (cx, cy) = (w as f32 * 0.5, h as f32 * 0.5);
        let img = Rgbf::from_fn(w, h, |x, y| {
            // Inverse map: output pixel → last frame.
            let sx = cx + m.dx + (x as f32 + 0.5 - cx) / m.zoom;
            let sy = cy + m.dy + (y as f32 + 0.5 - cy) / m.zoom;
            src.sample(sx, sy)
        });
        sink.push(img.to_rgb8())?;
    }
    sink.finish()
}

fn rgbf(img: &RgbImage) -> Rgbf {
    Rgbf {
        w: img.width(),
        h: img.height(),
        px: img.pixels().map(|p| p.0.map(unit)).collect(),
    }
}

/// Motion between consecutive frames: the content moves by `(dx, dy)`
/// pixels and scales by `zoom` about the centre, per frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    pub dx: f32,
    pub dy: f32,
    pub zoom: f32,
}

impl Default for Motion {
    fn default() -> Motion {
        Motion {
            dx: 0.0,
            dy: 0.0,
            zoom: 1.0,
        }
    }
}

/// The camera of the `j`th extension frame relative to the last frame:
/// the view centre moved by `(dx, dy)` and the view zoom. Constant velocity
/// at first, easing out (tanh) before the pan could reach a quarter of the
/// frame or the zoom 1.5×; a zoom-out (which would reveal pixels the last
/// frame does not have) is held at 1, and the zoom always covers the pan.
impl Motion {
    fn at(&self, j: f32, w: f32, h: f32) -> Motion {
        let soft = |v: f32, cap: f32| cap * (v / cap).tanh();
        // The camera follows the content's motion backwards: content moving
        // right means the view moving left.
        let dx = soft(-self.dx * j, w * 0.25);
        let dy = soft(-self.dy * j, h * 0.25);
        let log_zoom = soft(self.zoom.max(1e-3).ln() * j, 1.5f32.ln());
        let zoom = log_zoom.exp().max(1.0);
        // The view (w/zoom wide, centred dx off) must stay inside the frame.
        let need_x = w / (w - 2.0 * dx.abs()).max(1.0);
        let need_y = h / (h - 2.0 * dy.abs()).max(1.0);
        Motion {
            dx,
            dy,
            zoom: zoom.max(need_x).max(need_y),
        }
    }
}

/// Luma of an image reduced to about `target` pixels wide (box average).
fn small_luma(img: &RgbImage, target: u32) -> (Vec<f32>, u32, u32, f32) {
    let step = (img.width() / target.max(1)).max(1);
    let (sw, sh) = (img.width() / step, img.height() / step);
    let mut v = Vec::with_capacity(sw as usize * sh as usize);
    for y in 0..sh {
        for x in 0..sw {
            let mut acc = 0.0;
            for yy in 0..step {
                for xx in 0..step {
                    let p = img.get_pixel(x * step + xx, y * step + yy).0;
                    acc += luma(p.map(unit));
                }
            }
            v.push(acc / (step * step) as f32);
        }
    }
    (v, sw, sh, step as f32)
}

/// Estimates the global motion from `a` to `b`: the translation and zoom
/// that best map `a` onto `b` (mean absolute luma difference over the
/// inner part of the frame), searched on a reduced copy.
pub fn estimate(a: &RgbImage, b: &RgbImage) -> Motion {
    let (la, w, h, step) = small_luma(a, 96);
    let (lb, _, _, _) = small_luma(b, 96);
    let at = |l: &[f32], x: f32, y: f32| -> f32 {
        let xi = (x.round() as i64).clamp(0, i64::from(w) - 1) as usize;
        let yi = (y.round() as i64).clamp(0, i64::from(h) - 1) as usize;
        l.get(yi * w as usize + xi).copied().unwrap_or(0.0)
    };
    let (cx, cy) = (w as f32 * 0.5, h as f32 * 0.5);
    let cost = |dx: f32, dy: f32, z: f32| -> f32 {
        let mut sum = 0.0;
        let mut n = 0u32;
        let (x0, x1) = (w / 6, w - w / 6);
        let (y0, y1) = (h / 6, h - h / 6);
        for y in y0..y1 {
            for x in x0..x1 {
                // b(p) ≈ a(c + (p - c) / z - d)
                let (px, py) = (x as f32, y as f32);
                let ax = cx + (px - cx) / z - dx;
                let ay = cy + (py - cy) / z - dy;
                sum += (at(&lb, px, py) - at(&la, ax, ay)).abs();
                n += 1;
            }
        }
        sum / n.max(1) as f32
    };
    let mut best = (0.0f32, 0.0f32, 1.0f32);
    let mut best_cost = cost(0.0, 0.0, 1.0);
    for zi in -6..=6 {
        let z = 1.0 + zi as f32 * 0.005;
        for dy in -6..=6 {
            for dx in -6..=6 {
                let c = cost(dx as f32, dy as f32, z);
                // Prefer no motion on ties (still videos stay still).
                if c < best_cost - 1e-4 {
                    best_cost = c;
                    best = (dx as f32, dy as f32, z);
                }
            }
        }
    }
    Motion {
        dx: best.0 * step,
        dy: best.1 * step,
        zoom: best.2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_finds_a_shift_and_a_still() {
        let base = |ox: u32| {
            RgbImage::from_fn(192, 108, move |x, y| {
                let v = (((x + ox) / 12 + y / 12) % 2) as u8 * 180 + ((x + ox) % 37) as u8;
                image::Rgb([v, v, v])
            })
        };
        let a = base(0);
        let still = estimate(&a, &a);
        assert_eq!(still, Motion::default());
        // Content moved left by 6 px (b(x) = a(x + 6)).
        let b = base(6);
        let m = estimate(&a, &b);
        assert!((m.dx + 6.0).abs() <= 2.0 && m.dy.abs() <= 2.0, "{m:?}");
        let later = m.at(100.0, 192.0, 108.0);
        assert!(later.dx > 0.0 && later.dx <= 48.0 && later.zoom >= 1.0);
    }
}
