//! Image-to-animation: a seeded camera move (zoom in, zoom out, pan, or
//! both) over the init image, as a looping animated GIF. The move eases
//! out and back so the loop has no jump. Frames share one palette made by
//! median cut and are ordered-dithered through a 15-bit lookup table, so the
//! GIF encoder gets at most 256 colours and never runs its own (slower)
//! quantiser.

use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, Rgba, RgbaImage};
use protocol::task::{InputRole, JobSpec};

use super::raster::{resize_rgba, to_byte, Rgbf};
use super::rng::{image_seed, Rng};
use super::{out_size, require, Outcome, Ticker};
use crate::{EngineError, LoadedInput, Produced};

/// Frames when the job does not say.
const DEFAULT_FRAMES: u32 = 16;
const MAX_FRAMES: u32 = 48;
/// Frame duration (12.5 frames per second).
const FRAME_MS: u32 = 80;
/// Bound on the pixels of all frames together (memory and encode time).
const MAX_ANIMATION_PIXELS: u64 = 48 * 1024 * 1024;

/// Ordered-dither thresholds (4x4 Bayer matrix).
const BAYER: [f32; 16] = [
    0.0, 8.0, 2.0, 10.0, 12.0, 4.0, 14.0, 6.0, 3.0, 11.0, 1.0, 9.0, 15.0, 7.0, 13.0, 5.0,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    ZoomIn,
    ZoomOut,
    Pan,
    ZoomPan,
}

pub fn animate(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let init = require(inputs, InputRole::Init)?;
    let (w, h) = out_size(job, init.img.dimensions())?;
    let frames = if job.frames == 0 {
        DEFAULT_FRAMES
    } else {
        job.frames.min(MAX_FRAMES)
    };
    if u64::from(w) * u64::from(h) * u64::from(frames) > MAX_ANIMATION_PIXELS {
        return Err(EngineError::BadInput(format!(
            "{frames} frames of {w}x{h} exceed the animation size limit"
        )));
    }
    t.plan(u64::from(frames) + 3);

    let mut rng = Rng::new(image_seed(job.seed, 0, &job.prompt));
    let motion = match rng.below(4) {
        0 => Move::ZoomIn,
        1 => Move::ZoomOut,
        2 => Move::Pan,
        _ => Move::ZoomPan,
    };
    let zoom = rng.range(0.12, 0.3);
    let angle = (rng.below(8) as f32) * std::f32::consts::FRAC_PI_4;
    let (dir_x, dir_y) = (angle.cos(), angle.sin());

    // Resample once with Lanczos to the largest scale the move needs, so the
    // per-frame bilinear sampling never minifies by much.
    let (iw, ih) = init.img.dimensions();
    let cover = (w as f32 / iw as f32).max(h as f32 / ih as f32);
    let work = cover * (1.0 + zoom);
    let sw = ((iw as f32 * work).ceil() as u32).clamp(1, 2 * super::MAX_SIDE);
    let sh = ((ih as f32 * work).ceil() as u32).clamp(1, 2 * super::MAX_SIDE);
    let src = Rgbf::from_rgba(&resize_rgba(&init.img, sw, sh));
    t.tick()?;

    let mut rendered: Vec<Rgbf> = Vec::with_capacity(frames as usize);
    for k in 0..frames {
        let phase = k as f32 / frames as f32;
        let e = (1.0 - (std::f32::consts::TAU * phase).cos()) * 0.5;
        let z = match motion {
            Move::ZoomIn => 1.0 + zoom * e,
            Move::ZoomOut => 1.0 + zoom * (1.0 - e),
            Move::Pan => 1.0 + zoom,
            Move::ZoomPan => 1.0 + zoom * (0.5 + 0.5 * e),
        };
        // Output pixels per work pixel at this zoom.
        let f = cover * z / work;
        let (vw, vh) = (w as f32 / f, h as f32 / f);
        let pan = matches!(motion, Move::Pan | Move::ZoomPan);
        let (mx, my) = (
            ((sw as f32 - vw) * 0.5).max(0.0),
            ((sh as f32 - vh) * 0.5).max(0.0),
        );
        let (ox, oy) = if pan {
            let s = (e - 0.5) * 2.0 * 0.9;
            (dir_x * s * mx, dir_y * s * my)
        } else {
            (0.0, 0.0)
        };
        let (cx, cy) = (sw as f32 * 0.5 + ox, sh as f32 * 0.5 + oy);
        rendered.push(Rgbf::from_fn(w, h, |x, y| {
            let sx = cx + (x as f32 + 0.5 - w as f32 * 0.5) / f;
            let sy = cy + (y as f32 + 0.5 - h as f32 * 0.5) / f;
            src.sample(sx, sy)
        }));
        t.tick()?;
    }

    let palette = median_cut(&rendered, 256);
    let lut = Lut::new(&palette);
    t.tick()?;
    let mut bytes = Vec::new();
    {
        let mut enc = GifEncoder::new_with_speed(&mut bytes, 10);
        enc.set_repeat(Repeat::Infinite)
            .map_err(|e| EngineError::Failed(format!("gif encoding failed: {e}")))?;
        for frame in &rendered {
            let img = RgbaImage::from_fn(w, h, |x, y| {
                let c = frame.at(i64::from(x), i64::from(y));
                let d = BAYER
                    .get(((y % 4) * 4 + x % 4) as usize)
                    .copied()
                    .unwrap_or(0.0);
                let d = (d / 16.0 - 0.47) * 10.0;
                let [r, g, b] = c.map(|v| (v * 255.0 + d).clamp(0.0, 255.0) as u8);
                let [r, g, b] = lut.map(r, g, b);
                Rgba([r, g, b, 255])
            });
            let delay = Delay::from_numer_denom_ms(FRAME_MS, 1);
            enc.encode_frame(Frame::from_parts(img, 0, 0, delay))
                .map_err(|e| EngineError::Failed(format!("gif encoding failed: {e}")))?;
        }
    }
    t.tick()?;
    Ok(Outcome {
        outputs: vec![Produced {
            bytes,
            mime: "image/gif".into(),
            ext: "gif".into(),
            width: w,
            height: h,
            seed: job.seed,
            files: Vec::new(),
        }],
        texts: Vec::new(),
    })
}

/// Median-cut palette of at most `max` colours from a sample of the frames.
fn median_cut(frames: &[Rgbf], max: usize) -> Vec<[u8; 3]> {
    let total: usize = frames.iter().map(|f| f.px.len()).sum();
    let stride = (total / 65_536).max(1);
    let samples: Vec<[u8; 3]> = frames
        .iter()
        .flat_map(|f| f.px.iter())
        .step_by(stride)
        .map(|c| c.map(to_byte))
        .collect();
    let mut boxes: Vec<Vec<[u8; 3]>> = vec![samples];
    while boxes.len() < max {
        // Split the box with the widest channel range.
        let pick = boxes
            .iter()
            .enumerate()
            .filter(|(_, b)| b.len() > 1)
            .map(|(i, b)| {
                let (ch, range) = widest(b);
                (i, ch, range)
            })
            .filter(|(_, _, range)| *range > 0)
            .max_by(|a, b| a.2.cmp(&b.2).then(b.0.cmp(&a.0)));
        let Some((i, ch, _)) = pick else { break };
        let mut b = boxes.swap_remove(i);
        b.sort_by_key(|c| c.get(ch).copied().unwrap_or(0));
        let upper = b.split_off(b.len() / 2);
        boxes.push(b);
        boxes.push(upper);
    }
    boxes
        .iter()
        .filter(|b| !b.is_empty())
        .map(|b| {
            let n = b.len() as u64;
            let mut sum = [0u64; 3];
            for c in b {
                for (s, v) in sum.iter_mut().zip(c) {
                    *s += u64::from(*v);
                }
            }
            sum.map(|s| ((s + n / 2) / n) as u8)
        })
        .collect()
}

fn widest(b: &[[u8; 3]]) -> (usize, u8) {
    let mut lo = [255u8; 3];
    let mut hi = [0u8; 3];
    for c in b {
        for ((l, h), v) in lo.iter_mut().zip(hi.iter_mut()).zip(c) {
            *l = (*l).min(*v);
            *h = (*h).max(*v);
        }
    }
    (0..3)
        .map(|i| {
            let r = hi
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(lo.get(i).copied().unwrap_or(0));
            (i, r)
        })
        .fold((0, 0), |best, x| if x.1 > best.1 { x } else { best })
}

/// Nearest palette colour for every 15-bit RGB value.
struct Lut {
    palette: Vec<[u8; 3]>,
    index: Vec<u8>,
}

impl Lut {
    fn new(palette: &[[u8; 3]]) -> Lut {
        let index = (0..32_768u32)
            .map(|i| {
                let centre = [(i >> 10) & 31, (i >> 5) & 31, i & 31].map(|v| (v * 8 + 4) as i32);
                palette
                    .iter()
                    .enumerate()
                    .map(|(k, p)| {
                        let d: i32 = p
                            .iter()
                            .zip(centre)
                            .map(|(a, b)| (i32::from(*a) - b).pow(2))
                            .sum();
                        (k, d)
                    })
                    .fold(
                        (0usize, i32::MAX),
                        |best, x| if x.1 < best.1 { x } else { best },
                    )
                    .0 as u8
            })
            .collect();
        Lut {
            palette: palette.to_vec(),
            index,
        }
    }

    fn map(&self, r: u8, g: u8, b: u8) -> [u8; 3] {
        let i = (usize::from(r >> 3) << 10) | (usize::from(g >> 3) << 5) | usize::from(b >> 3);
        let k = self.index.get(i).copied().unwrap_or(0);
        self.palette
            .get(usize::from(k))
            .copied()
            .unwrap_or([r, g, b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_cut_keeps_distinct_colours_and_bounds_the_palette() {
        let two = Rgbf::from_fn(10, 10, |x, _| {
            if x < 5 {
                [1.0, 0.0, 0.0]
            } else {
                [0.0, 0.0, 1.0]
            }
        });
        let p = median_cut(&[two], 256);
        assert!(p.contains(&[255, 0, 0]) && p.contains(&[0, 0, 255]));
        let ramp = Rgbf::from_fn(256, 64, |x, y| [x as f32 / 255.0, y as f32 / 63.0, 0.5]);
        let p = median_cut(&[ramp], 256);
        assert!(p.len() <= 256 && p.len() > 100);
        let lut = Lut::new(&p);
        let [r, g, _] = lut.map(200, 40, 128);
        assert!((i32::from(r) - 200).abs() < 24 && (i32::from(g) - 40).abs() < 24);
    }
}
