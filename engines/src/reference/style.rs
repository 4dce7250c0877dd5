//! Easel style files (issue 19 item 4): what the reference trainer learns
//! from a dataset (a palette, texture statistics, a coarse composition
//! layout) stored as a real safetensors file (`protocol::models::train::
//! style_file`), read back here and applied to the reference engine's
//! pictures. Non-neural: the "LoRA" is a set of image statistics, and
//! applying it pulls colours towards the palette, moves contrast and
//! sharpness towards the dataset's, and shifts brightness towards its layout.
//!
//! The measurements ([`measure`]) are shared with the
//! trainer so learning and applying use the same definitions.

use image::RgbaImage;
use protocol::models::train::style_file as sf;
use safetensors::{Dtype, SafeTensors};

use super::raster::{luma, Rgb, Rgbf};

const GRID: usize = sf::GRID;

/// A learned style.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    /// Colours in `[0, 1]`, most used first.
    pub palette: Vec<Rgb>,
    /// Each colour's share (sums to 1).
    pub weights: Vec<f32>,
    /// Edge density, high-frequency energy, mean saturation, luma contrast.
    pub texture: [f32; 4],
    /// Mean luma per cell, `GRID * GRID`, row-major.
    pub layout: Vec<f32>,
    /// Mean saliency per cell, `GRID * GRID`.
    pub saliency: Vec<f32>,
}

fn f32s(st: &SafeTensors<'_>, name: &str, len: usize) -> Option<Vec<f32>> {
    let t = st.tensor(name).ok()?;
    if t.dtype() != Dtype::F32 || t.shape().iter().product::<usize>() != len {
        return None;
    }
    let v: Vec<f32> = t
        .data()
        .chunks_exact(4)
        .filter_map(|c| c.try_into().ok().map(f32::from_le_bytes))
        .collect();
    (v.len() == len && v.iter().all(|x| x.is_finite())).then_some(v)
}

impl Style {
    /// Reads an Easel style file; `None` for any other safetensors file (a
    /// neural LoRA) or a malformed one.
    pub fn from_safetensors(bytes: &[u8]) -> Option<Style> {
        let (_, meta) = SafeTensors::read_metadata(bytes).ok()?;
        let version = meta.metadata().as_ref()?.get(sf::VERSION_KEY)?.clone();
        if version != sf::VERSION {
            return None;
        }
        let st = SafeTensors::deserialize(bytes).ok()?;
        let shape = st.tensor(sf::PALETTE).ok()?.shape().to_vec();
        let k = match shape.as_slice() {
            [k, 3] if (1..=64).contains(k) => *k,
            _ => return None,
        };
        let flat = f32s(&st, sf::PALETTE, k * 3)?;
        let palette: Vec<Rgb> = flat
            .chunks_exact(3)
            .filter_map(|c| <[f32; 3]>::try_from(c).ok())
            .map(|c| c.map(|x| x.clamp(0.0, 1.0)))
            .collect();
        let weights = f32s(&st, sf::PALETTE_WEIGHTS, k)?;
        let texture: [f32; 4] = f32s(&st, sf::TEXTURE, 4)?.try_into().ok()?;
        let layout = f32s(&st, sf::LAYOUT, GRID * GRID)?;
        let saliency = f32s(&st, sf::SALIENCY, GRID * GRID)?;
        Some(Style {
            palette,
            weights,
            texture,
            layout,
            saliency,
        })
    }
}

fn saturation(c: Rgb) -> f32 {
    let mx = c[0].max(c[1]).max(c[2]);
    let mn = c[0].min(c[1]).min(c[2]);
    if mx <= 1e-6 {
        0.0
    } else {
        (mx - mn) / mx
    }
}

/// Texture statistics of a picture: edge density (share of pixels whose
/// Sobel magnitude on luma is above 0.25), high-frequency energy (mean
/// absolute 4-neighbour Laplacian of luma), mean saturation, luma standard
/// deviation.
pub(crate) fn texture_of(img: &Rgbf) -> [f32; 4] {
    let l = img.luminance();
    let n = (img.w as usize * img.h as usize).max(1) as f32;
    let (mut edges, mut hf) = (0usize, 0.0f32);
    for y in 0..i64::from(img.h) {
        for x in 0..i64::from(img.w) {
            let a = |dx: i64, dy: i64| l.at(x + dx, y + dy);
            let gx = a(1, -1) + 2.0 * a(1, 0) + a(1, 1) - a(-1, -1) - 2.0 * a(-1, 0) - a(-1, 1);
            let gy = a(-1, 1) + 2.0 * a(0, 1) + a(1, 1) - a(-1, -1) - 2.0 * a(0, -1) - a(1, -1);
            if (gx * gx + gy * gy).sqrt() > 0.25 {
                edges += 1;
            }
            hf += (4.0 * a(0, 0) - a(1, 0) - a(-1, 0) - a(0, 1) - a(0, -1)).abs();
        }
    }
    let mean_l = l.v.iter().sum::<f32>() / n;
    let var = l.v.iter().map(|v| (v - mean_l).powi(2)).sum::<f32>() / n;
    let sat = img.px.iter().map(|c| saturation(*c)).sum::<f32>() / n;
    [edges as f32 / n, hf / n, sat, var.sqrt()]
}

fn cell_of(x: u32, y: u32, w: u32, h: u32) -> usize {
    let cx = (x as usize * GRID / w.max(1) as usize).min(GRID - 1);
    let cy = (y as usize * GRID / h.max(1) as usize).min(GRID - 1);
    cy * GRID + cx
}

/// Mean luma and mean saliency (distance from the picture's mean colour) per
/// cell of a `GRID` x `GRID` grid, row-major.
pub(crate) fn grids_of(img: &Rgbf) -> (Vec<f32>, Vec<f32>) {
    let n = img.px.len().max(1) as f32;
    let mut mean = [0.0f32; 3];
    for c in &img.px {
        for (m, v) in mean.iter_mut().zip(c) {
            *m += v / n;
        }
    }
    let mut lum = vec![0.0f32; GRID * GRID];
    let mut sal = vec![0.0f32; GRID * GRID];
    let mut count = vec![0u32; GRID * GRID];
    for y in 0..img.h {
        for x in 0..img.w {
            let c = img.at(i64::from(x), i64::from(y));
            let i = cell_of(x, y, img.w, img.h);
            let d =
                ((c[0] - mean[0]).powi(2) + (c[1] - mean[1]).powi(2) + (c[2] - mean[2]).powi(2))
                    .sqrt();
            if let (Some(l), Some(s), Some(k)) = (lum.get_mut(i), sal.get_mut(i), count.get_mut(i))
            {
                *l += luma(c);
                *s += d;
                *k += 1;
            }
        }
    }
    for ((l, s), k) in lum.iter_mut().zip(sal.iter_mut()).zip(&count) {
        let k = (*k).max(1) as f32;
        *l /= k;
        *s /= k;
    }
    (lum, sal)
}

/// The grid value at pixel `(x, y)`, bilinear between cell centres.
fn grid_at(g: &[f32], x: u32, y: u32, w: u32, h: u32) -> f32 {
    let fx = ((x as f32 + 0.5) / w.max(1) as f32 * GRID as f32 - 0.5).clamp(0.0, (GRID - 1) as f32);
    let fy = ((y as f32 + 0.5) / h.max(1) as f32 * GRID as f32 - 0.5).clamp(0.0, (GRID - 1) as f32);
    let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
    let (x1, y1) = ((x0 + 1).min(GRID - 1), (y0 + 1).min(GRID - 1));
    let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
    let v = |cx: usize, cy: usize| g.get(cy * GRID + cx).copied().unwrap_or(0.0);
    let top = v(x0, y0) * (1.0 - tx) + v(x1, y0) * tx;
    let bottom = v(x0, y1) * (1.0 - tx) + v(x1, y1) * tx;
    top * (1.0 - ty) + bottom * ty
}

/// What the trainer measures on each picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// See [`Style::texture`].
    pub texture: [f32; 4],
    pub layout: Vec<f32>,
    pub saliency: Vec<f32>,
}

/// Texture and composition statistics of a picture (the same definitions
/// [`apply`] steers towards).
pub fn measure(img: &RgbaImage) -> Measure {
    let f = Rgbf::from_rgba(img);
    let (layout, saliency) = grids_of(&f);
    Measure {
        texture: texture_of(&f),
        layout,
        saliency,
    }
}

/// Applies `style` at `weight` (a LoRA weight: 0 does nothing, 1 is the
/// full style, up to 2 stronger) to an RGBA picture; alpha is kept.
pub fn apply(img: &mut RgbaImage, style: &Style, weight: f32) {
    let mut f = Rgbf::from_rgba(img);
    apply_rgbf(&mut f, style, weight);
    for (p, c) in img.pixels_mut().zip(&f.px) {
        let [r, g, b] = c.map(super::raster::to_byte);
        p.0 = [r, g, b, p.0[3]];
    }
}

/// [`apply`] on the engine's float raster.
pub(crate) fn apply_rgbf(img: &mut Rgbf, style: &Style, weight: f32) {
    let w = if weight.is_finite() {
        weight.clamp(0.0, 2.0)
    } else {
        0.0
    };
    if w == 0.0 || style.palette.is_empty() || img.px.is_empty() {
        return;
    }
    let pull = (0.55 * w).min(0.95);
    // 1. Layout: move each region's brightness towards the dataset's.
    let (lum, _) = grids_of(img);
    let delta: Vec<f32> = style
        .layout
        .iter()
        .zip(&lum)
        .map(|(target, now)| (target - now) * 0.5 * w.min(1.0))
        .collect();
    let (iw, ih) = (img.w, img.h);
    for y in 0..ih {
        for x in 0..iw {
            let d = grid_at(&delta, x, y, iw, ih);
            if let Some(c) = img.px.get_mut(y as usize * iw as usize + x as usize) {
                *c = c.map(|v| v + d);
            }
        }
    }
    // 2. Texture: contrast and sharpness towards the dataset's.
    let now = texture_of(img);
    let mean_l = img.px.iter().map(|c| luma(*c)).sum::<f32>() / img.px.len() as f32;
    let contrast = if now[3] > 1e-4 {
        (style.texture[3] / now[3]).clamp(0.5, 2.0)
    } else {
        1.0
    };
    let contrast = 1.0 + (contrast - 1.0) * w.min(1.0);
    let sharpen = if now[1] > 1e-5 {
        ((style.texture[1] / now[1]) - 1.0).clamp(-1.0, 1.5) * w.min(1.0)
    } else {
        0.0
    };
    let blurred = img.blur(1, 1);
    for (c, b) in img.px.iter_mut().zip(&blurred.px) {
        for (v, bv) in c.iter_mut().zip(b) {
            *v += sharpen * (*v - bv);
            *v = mean_l + (*v - mean_l) * contrast;
        }
    }
    // 3. Palette: pull each pixel towards its nearest palette colour, and
    // the whole picture's mean towards the palette's.
    let mut pmean = [0.0f32; 3];
    let wsum: f32 = style.weights.iter().sum::<f32>().max(1e-6);
    for (c, wt) in style.palette.iter().zip(&style.weights) {
        for (m, v) in pmean.iter_mut().zip(c) {
            *m += v * wt / wsum;
        }
    }
    let n = img.px.len() as f32;
    let mut imean = [0.0f32; 3];
    for c in &img.px {
        for (m, v) in imean.iter_mut().zip(c) {
            *m += v / n;
        }
    }
    for c in img.px.iter_mut() {
        let shifted: Rgb = [0, 1, 2].map(|i| {
            let (cv, pm, im) = (
                c.get(i).copied().unwrap_or(0.0),
                pmean.get(i).copied().unwrap_or(0.0),
                imean.get(i).copied().unwrap_or(0.0),
            );
            cv + (pm - im) * pull
        });
        let nearest = style
            .palette
            .iter()
            .min_by(|a, b| {
                let da = super::raster::dist3(**a, shifted);
                let db = super::raster::dist3(**b, shifted);
                da.total_cmp(&db)
            })
            .copied()
            .unwrap_or(shifted);
        *c = super::raster::clamp3(super::raster::lerp3(shifted, nearest, pull));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn measurements_tell_flat_from_busy() {
        let flat = Rgbf::from_fn(32, 32, |_, _| [0.5, 0.2, 0.2]);
        let busy = Rgbf::from_fn(32, 32, |x, y| {
            if (x / 2 + y / 2).is_multiple_of(2) {
                [1.0, 1.0, 1.0]
            } else {
                [0.0, 0.0, 0.0]
            }
        });
        let (tf, tb) = (texture_of(&flat), texture_of(&busy));
        assert!(tf[0].abs() < 1e-6 && tb[0] > 0.5, "flat {tf:?} busy {tb:?}");
        assert!(tb[1] > tf[1] && tb[3] > tf[3]);
        assert!(tf[2] > tb[2]);
        let half = Rgbf::from_fn(32, 32, |_, y| if y < 16 { [1.0; 3] } else { [0.0; 3] });
        let (lum, _) = grids_of(&half);
        assert!(lum[0] > 0.9 && lum[GRID * GRID - 1] < 0.1);
    }

    #[test]
    fn applying_pulls_towards_the_palette_and_zero_weight_does_nothing() {
        let style = Style {
            palette: vec![[0.8, 0.1, 0.1], [0.5, 0.05, 0.05]],
            weights: vec![0.6, 0.4],
            texture: [0.0, 0.01, 0.8, 0.1],
            layout: vec![0.3; GRID * GRID],
            saliency: vec![0.1; GRID * GRID],
        };
        let src = RgbaImage::from_fn(40, 30, |x, y| {
            image::Rgba([(x * 6) as u8, 120, (y * 8) as u8 + 10, 255])
        });
        let mut same = src.clone();
        apply(&mut same, &style, 0.0);
        assert_eq!(same, src);
        let mut styled = src.clone();
        apply(&mut styled, &style, 1.0);
        let dist = |img: &RgbaImage| {
            img.pixels()
                .map(|p| {
                    let c = [p.0[0], p.0[1], p.0[2]].map(super::super::raster::unit);
                    style
                        .palette
                        .iter()
                        .map(|q| super::super::raster::dist3(*q, c))
                        .fold(f32::MAX, f32::min)
                })
                .sum::<f32>()
        };
        assert!(dist(&styled) < dist(&src) * 0.6);
    }
}
