//! Face location, face swap and character repair. A face is located as the
//! bounding box of the largest skin-coloured blob (the classic YCbCr skin
//! range of Chai and Ngan), with the centre ellipse as the fallback. The swap
//! resizes the source face to the target's box, matches its colour mean and
//! deviation to the target (Reinhard-style transfer) and blends it with a
//! feathered ellipse; the repair denoises (3x3 median) and sharpens (unsharp
//! mask) the face region.

use image::RgbaImage;
use protocol::task::{InputRole, JobSpec};

use super::filters::{median3, unsharp};
use super::raster::{clamp3, lerp3, resize_rgba, smoothstep, thumbnail, Plane, Rgb, Rgbf};
use super::{produce_rgb, require, Outcome, Ticker};
use crate::{EngineError, LoadedInput};

/// A face region in pixel coordinates (`x1`, `y1` exclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceBox {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    /// False when no skin blob was found and the centre ellipse is used.
    pub detected: bool,
}

impl FaceBox {
    fn centre_fallback(w: u32, h: u32) -> FaceBox {
        let (w, h) = (w as f32, h as f32);
        let s = w.min(h);
        FaceBox {
            x0: w * 0.5 - s * 0.22,
            x1: w * 0.5 + s * 0.22,
            y0: h * 0.45 - s * 0.28,
            y1: h * 0.45 + s * 0.28,
            detected: false,
        }
    }

    fn width(&self) -> f32 {
        self.x1 - self.x0
    }

    fn height(&self) -> f32 {
        self.y1 - self.y0
    }

    /// Feathered ellipse inscribed in the box, 1 inside, 0 outside, ramp in
    /// the outer `feather` fraction of the radius.
    fn ellipse(&self, w: u32, h: u32, feather: f32) -> Plane {
        let cx = (self.x0 + self.x1) * 0.5;
        let cy = (self.y0 + self.y1) * 0.5;
        let rx = (self.width() * 0.5).max(1.0);
        let ry = (self.height() * 0.5).max(1.0);
        Plane::from_fn(w, h, |x, y| {
            let dx = (x as f32 + 0.5 - cx) / rx;
            let dy = (y as f32 + 0.5 - cy) / ry;
            smoothstep(1.0, 1.0 - feather, (dx * dx + dy * dy).sqrt())
        })
    }
}

/// Whether an 8-bit colour falls in the YCbCr skin range.
pub fn is_skin(r: u8, g: u8, b: u8) -> bool {
    let (r, g, b) = (f32::from(r), f32::from(g), f32::from(b));
    let y = 0.299 * r + 0.587 * g + 0.114 * b;
    let cb = 128.0 - 0.168_736 * r - 0.331_264 * g + 0.5 * b;
    let cr = 128.0 + 0.5 * r - 0.418_688 * g - 0.081_312 * b;
    y > 40.0 && (77.0..=127.0).contains(&cb) && (133.0..=173.0).contains(&cr)
}

/// Locates the face in an image (on a small copy, mapped back).
pub fn locate(img: &RgbaImage) -> FaceBox {
    let (w, h) = img.dimensions();
    let small = thumbnail(img, 160);
    let (sw, sh) = small.dimensions();
    let skin: Vec<bool> = small
        .pixels()
        .map(|p| is_skin(p.0[0], p.0[1], p.0[2]))
        .collect();
    let mut label = vec![0u32; skin.len()];
    let mut best: Option<(usize, [u32; 4])> = None;
    let mut next = 0u32;
    let at = |x: u32, y: u32| y as usize * sw as usize + x as usize;
    for start in 0..skin.len() {
        if !skin.get(start).copied().unwrap_or(false) || label.get(start).copied().unwrap_or(1) != 0
        {
            continue;
        }
        next += 1;
        let (sx, sy) = ((start % sw as usize) as u32, (start / sw as usize) as u32);
        let mut stack = vec![(sx, sy)];
        if let Some(l) = label.get_mut(start) {
            *l = next;
        }
        let mut area = 0usize;
        let mut bb = [sx, sy, sx, sy];
        while let Some((x, y)) = stack.pop() {
            area += 1;
            bb = [bb[0].min(x), bb[1].min(y), bb[2].max(x), bb[3].max(y)];
            let around = [
                (x.wrapping_sub(1), y),
                (x + 1, y),
                (x, y.wrapping_sub(1)),
                (x, y + 1),
            ];
            for (nx, ny) in around {
                if nx >= sw || ny >= sh {
                    continue;
                }
                let i = at(nx, ny);
                if skin.get(i).copied().unwrap_or(false) {
                    if let Some(l) = label.get_mut(i) {
                        if *l == 0 {
                            *l = next;
                            stack.push((nx, ny));
                        }
                    }
                }
            }
        }
        if best.is_none_or(|(a, _)| area > a) {
            best = Some((area, bb));
        }
    }
    let total = (sw as usize * sh as usize).max(1);
    match best {
        // A blob too small is noise; one covering nearly all is not a face.
        Some((area, [x0, y0, x1, y1])) if area * 200 >= total && area * 10 <= total * 9 => {
            let kx = w as f32 / sw as f32;
            let ky = h as f32 / sh as f32;
            let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
            // A skin blob taller than a face (neck, arms) is cut to face proportions.
            let bh = bh.min(bw * 1.35);
            FaceBox {
                x0: x0 as f32 * kx,
                y0: y0 as f32 * ky,
                x1: (x0 as f32 + bw) * kx,
                y1: (y0 as f32 + bh) * ky,
                detected: true,
            }
        }
        _ => FaceBox::centre_fallback(w, h),
    }
}

fn face_strength(job: &JobSpec, default: f32) -> f32 {
    // 0 is the field's serde default: the request did not set it.
    if job.face_strength.is_finite() && job.face_strength > 0.0 {
        job.face_strength.clamp(0.0, 1.0)
    } else {
        default
    }
}

/// Weighted per-channel mean and standard deviation.
fn stats(img: &Rgbf, weight: &Plane) -> (Rgb, Rgb) {
    let mut sum = [0.0f64; 3];
    let mut sq = [0.0f64; 3];
    let mut n = 0.0f64;
    for (c, wgt) in img.px.iter().zip(&weight.v) {
        let wgt = f64::from(*wgt);
        if wgt <= 0.0 {
            continue;
        }
        n += wgt;
        for ((s, q), x) in sum.iter_mut().zip(sq.iter_mut()).zip(c) {
            *s += wgt * f64::from(*x);
            *q += wgt * f64::from(*x) * f64::from(*x);
        }
    }
    if n <= 0.0 {
        return ([0.5; 3], [0.2; 3]);
    }
    let mean = sum.map(|s| s / n);
    let mut sd = [0.0f32; 3];
    for ((d, q), m) in sd.iter_mut().zip(sq).zip(mean) {
        *d = ((q / n - m * m).max(0.0).sqrt() as f32).max(1e-3);
    }
    (mean.map(|m| m as f32), sd)
}

pub fn face_swap(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let source = require(inputs, InputRole::FaceSource)?;
    let target = require(inputs, InputRole::FaceTarget)?;
    t.plan(4);
    let sbox = locate(&source.img);
    let tbox = locate(&target.img);
    t.tick()?;
    let (tw, th) = target.img.dimensions();
    let (sw, sh) = source.img.dimensions();
    let crop = |b: &FaceBox, w: u32, h: u32| -> (u32, u32, u32, u32) {
        let x0 = (b.x0.floor().max(0.0) as u32).min(w - 1);
        let y0 = (b.y0.floor().max(0.0) as u32).min(h - 1);
        let x1 = (b.x1.ceil() as u32).clamp(x0 + 1, w);
        let y1 = (b.y1.ceil() as u32).clamp(y0 + 1, h);
        (x0, y0, x1 - x0, y1 - y0)
    };
    let (sx, sy, scw, sch) = crop(&sbox, sw, sh);
    let (tx, ty, tcw, tch) = crop(&tbox, tw, th);
    let face = image::imageops::crop_imm(&source.img, sx, sy, scw, sch).to_image();
    let face = Rgbf::from_rgba(&resize_rgba(&face, tcw, tch));
    let tgt = Rgbf::from_rgba(&target.img);
    let region = FaceBox {
        x0: tx as f32,
        y0: ty as f32,
        x1: (tx + tcw) as f32,
        y1: (ty + tch) as f32,
        detected: tbox.detected,
    };
    let mask = region.ellipse(tw, th, 0.35);
    t.tick()?;
    // Colour statistics over the ellipse, in target coordinates for both.
    let placed = Rgbf::from_fn(tw, th, |x, y| {
        face.at(i64::from(x) - i64::from(tx), i64::from(y) - i64::from(ty))
    });
    let (mp, sp) = stats(&placed, &mask);
    let (mt, st) = stats(&tgt, &mask);
    t.tick()?;
    let k = face_strength(job, 1.0);
    let px = tgt
        .px
        .iter()
        .zip(&placed.px)
        .zip(&mask.v)
        .map(|((tc, pc), m)| {
            if *m <= 0.0 {
                return *tc;
            }
            let mut c = [0.0; 3];
            for (((o, p), (a, b)), (cm, cs)) in c
                .iter_mut()
                .zip(pc)
                .zip(mp.iter().zip(&sp))
                .zip(mt.iter().zip(&st))
            {
                *o = (p - a) / b * cs + cm;
            }
            lerp3(*tc, clamp3(c), m * k)
        })
        .collect();
    let out = Rgbf { w: tw, h: th, px };
    t.tick()?;
    Ok(Outcome {
        outputs: vec![produce_rgb(&out, job.seed)?],
        texts: Vec::new(),
    })
}

pub fn repair(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let init = require(inputs, InputRole::Init)?;
    t.plan(4);
    let (w, h) = init.img.dimensions();
    let fbox = locate(&init.img);
    // A slightly larger ellipse takes in the hairline and the chin.
    let (cx, cy) = ((fbox.x0 + fbox.x1) * 0.5, (fbox.y0 + fbox.y1) * 0.5);
    let grown = FaceBox {
        x0: cx - fbox.width() * 0.6,
        x1: cx + fbox.width() * 0.6,
        y0: cy - fbox.height() * 0.6,
        y1: cy + fbox.height() * 0.6,
        detected: fbox.detected,
    };
    let mask = grown.ellipse(w, h, 0.3);
    let img = Rgbf::from_rgba(&init.img);
    t.tick()?;
    let k = face_strength(job, 0.8);
    let radius = (w.min(h) / 256).max(1);
    let face = unsharp(&median3(&img), radius, 0.5 + 0.9 * k);
    t.tick()?;
    let global = unsharp(&img, radius, 0.3 * k);
    t.tick()?;
    let px = global
        .px
        .iter()
        .zip(&face.px)
        .zip(&mask.v)
        .map(|((g, f), m)| lerp3(*g, *f, m * k))
        .collect();
    let out = Rgbf { w, h, px };
    t.tick()?;
    Ok(Outcome {
        outputs: vec![produce_rgb(&out, job.seed)?],
        texts: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    #[test]
    fn skin_range() {
        assert!(is_skin(224, 172, 140));
        assert!(!is_skin(30, 80, 200));
        assert!(!is_skin(20, 200, 40));
    }

    #[test]
    fn the_skin_blob_is_found_and_blue_images_fall_back() {
        let img = RgbaImage::from_fn(120, 100, |x, y| {
            let d = ((x as f32 - 80.0) / 15.0).powi(2) + ((y as f32 - 30.0) / 20.0).powi(2);
            if d < 1.0 {
                Rgba([224, 172, 140, 255])
            } else {
                Rgba([30, 80, 200, 255])
            }
        });
        let b = locate(&img);
        assert!(b.detected);
        assert!(
            (b.x0 - 65.0).abs() < 3.0 && (b.x1 - 95.0).abs() < 3.0,
            "{b:?}"
        );
        assert!((b.y0 - 10.0).abs() < 3.0, "{b:?}");
        let blue = RgbaImage::from_pixel(50, 50, Rgba([30, 80, 200, 255]));
        assert!(!locate(&blue).detected);
    }
}
