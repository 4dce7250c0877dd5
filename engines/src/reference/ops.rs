//! The generating and resampling actions: text-to-image, image-to-image
//! (with inpainting masks), condition-to-image, preprocessor preview,
//! upscale, variation and expansion (outpainting).

use image::{imageops, imageops::FilterType, Rgba, RgbaImage};
use protocol::task::{InputRole, JobSpec};

use super::filters::{preprocess, MapKind};
use super::prompt::{interpret, Look};
use super::raster::{
    add3, clamp3, hsv_to_rgb, lerp3, luma, rgb_to_hsv, scale3, smoothstep, to_byte, unit, Plane,
    Rgbf,
};
use super::rng::{image_seed, Noise, Rng};
use super::synth::{render, suppress_hues, Plan};
use super::{
    bands, batch, check_size, out_size, output_seed, produce_rgb, produce_rgba, require,
    require_any, Decoded, Outcome, Ticker,
};
use crate::{EngineError, LoadedInput};

fn look_of(job: &JobSpec) -> Look {
    interpret(&job.prompt, &job.negative_prompt, job.cfg_scale)
}

/// Paints picture `i` of the batch for the job's prompt at `w` x `h`.
fn paint(
    job: &JobSpec,
    look: &Look,
    w: u32,
    h: u32,
    i: u32,
    t: &mut Ticker,
) -> Result<Rgbf, EngineError> {
    let plan = Plan::new(look, w, h, image_seed(job.seed, i, &job.prompt), job.steps);
    render(&plan, t, bands(job))
}

/// Text to image; `styles` (Easel style files among the job's LoRAs, with
/// their weights) are applied to each picture in order.
pub fn text_to_image(
    job: &JobSpec,
    styles: &[(super::style::Style, f32)],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let (w, h) = out_size(job, (512, 512))?;
    let n = batch(job)?;
    t.plan(u64::from(n) * u64::from(bands(job)));
    let look = look_of(job);
    let mut out = Outcome::default();
    for i in 0..n {
        let mut img = paint(job, &look, w, h, i, t)?;
        for (style, weight) in styles {
            super::style::apply_rgbf(&mut img, style, *weight);
        }
        out.outputs.push(produce_rgb(&img, output_seed(job, i))?);
    }
    Ok(out)
}

fn strength(job: &JobSpec) -> f32 {
    if job.denoising_strength.is_finite() {
        job.denoising_strength.clamp(0.0, 1.0)
    } else {
        0.75
    }
}

/// The regeneration weight of a mask at `w` x `h`: 0 exactly where the mask
/// is opaque (kept), up to 1 inside its transparent (painted) area, with a
/// feathered ramp on the painted side of the edge only.
fn mask_weight(mask: &Decoded, w: u32, h: u32) -> Plane {
    let m = if mask.img.dimensions() == (w, h) {
        mask.img.clone()
    } else {
        // Bilinear, not Lanczos: no ringing that would dent the opaque area.
        imageops::resize(&mask.img, w, h, FilterType::Triangle)
    };
    let raw = Plane {
        w,
        h,
        v: m.pixels()
            .map(|p| {
                let [r, g, b, a] = p.0;
                if mask.has_alpha {
                    1.0 - unit(a)
                } else {
                    // A mask without alpha: white marks the painted area.
                    luma([unit(r), unit(g), unit(b)])
                }
            })
            .collect(),
    };
    let feather = raw.blur((w.min(h) / 96).max(1), 2);
    Plane {
        w,
        h,
        v: raw
            .v
            .iter()
            .zip(&feather.v)
            .map(|(r, f)| {
                if *r <= 0.0 {
                    0.0
                } else {
                    f.max(*r * 0.5).min(1.0)
                }
            })
            .collect(),
    }
}

/// Image to image; Easel style files are applied to the newly painted
/// picture, so they show where (mask) and as much as (denoising strength)
/// the picture is repainted.
pub fn image_to_image(
    job: &JobSpec,
    inputs: &[LoadedInput],
    styles: &[(super::style::Style, f32)],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let init = require(inputs, InputRole::Init)?;
    let (w, h) = out_size(job, init.img.dimensions())?;
    let n = batch(job)?;
    let mask = match LoadedInput::find(inputs, InputRole::Mask) {
        Some(m) => Some(super::decode(&m.bytes, "mask")?),
        None => None,
    };
    t.plan(1 + u64::from(n) * u64::from(bands(job)));
    let base = Rgbf::from_rgba(&super::raster::resize_rgba(&init.img, w, h));
    let weight = mask.map(|m| mask_weight(&m, w, h));
    t.tick()?;
    let d = strength(job);
    let look = look_of(job);
    let mut out = Outcome::default();
    for i in 0..n {
        let mut gen = paint(job, &look, w, h, i, t)?;
        for (style, weight) in styles {
            super::style::apply_rgbf(&mut gen, style, *weight);
        }
        let px = base
            .px
            .iter()
            .zip(&gen.px)
            .enumerate()
            .map(|(k, (b, g))| {
                let wgt = weight
                    .as_ref()
                    .map_or(1.0, |p| p.v.get(k).copied().unwrap_or(0.0));
                if wgt <= 0.0 || d <= 0.0 {
                    return *b;
                }
                // Keep some of the init's light structure at low strengths.
                let (lb, lg) = (luma(*b), luma(*g));
                let relit = scale3(*g, (lb + 0.05) / (lg + 0.05));
                let g2 = clamp3(lerp3(*g, relit, 0.5 * (1.0 - d)));
                lerp3(*b, g2, d * wgt)
            })
            .collect();
        let img = Rgbf { w, h, px };
        out.outputs.push(produce_rgb(&img, output_seed(job, i))?);
    }
    Ok(out)
}

/// Picture from a control map; Easel style files are applied to the result.
pub fn condition_to_image(
    job: &JobSpec,
    inputs: &[LoadedInput],
    styles: &[(super::style::Style, f32)],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let cond = require_any(inputs, &[InputRole::Condition, InputRole::Init])?;
    let (w, h) = out_size(job, cond.img.dimensions())?;
    let n = batch(job)?;
    t.plan(2 + u64::from(n) * u64::from(bands(job)));
    let cimg = Rgbf::from_rgba(&super::raster::resize_rgba(&cond.img, w, h));
    let (module, weight, end) = job.control.as_ref().map_or(("canny", 1.0, 1.0), |c| {
        (c.module.as_str(), c.weight, c.guidance_end)
    });
    let weight = if weight.is_finite() {
        weight.clamp(0.0, 2.0)
    } else {
        1.0
    };
    let end = if end.is_finite() {
        end.clamp(0.0, 1.0)
    } else {
        1.0
    };
    // Guidance over a shorter part of the steps leaves a weaker imprint.
    let eff = (weight * (0.4 + 0.6 * end)).min(1.0);
    let cmap = preprocess(module, &cimg);
    t.tick()?;
    let structure = cmap.strength();
    let soft = structure.blur(1, 1);
    let cond_lum = cimg.luminance();
    t.tick()?;
    let look = look_of(job);
    let ink = scale3(look.ground_near, 0.25);
    let glow = lerp3(look.accent, [1.0; 3], 0.3);
    let mut out = Outcome::default();
    for i in 0..n {
        let gen = paint(job, &look, w, h, i, t)?;
        let px = gen
            .px
            .iter()
            .enumerate()
            .map(|(k, g)| {
                let s = structure.v.get(k).copied().unwrap_or(0.0);
                let sb = soft.v.get(k).copied().unwrap_or(0.0);
                let l = cond_lum.v.get(k).copied().unwrap_or(0.0);
                let c = match cmap.kind {
                    MapKind::Depth => {
                        let far = scale3(*g, 0.45);
                        let near = lerp3(*g, look.accent, 0.25);
                        lerp3(*g, lerp3(far, near, s), 0.85 * eff)
                    }
                    MapKind::Edges | MapKind::Lineart => {
                        let shaded = lerp3(*g, scale3(*g, 0.6 + 0.8 * l), 0.35 * eff);
                        let line = if luma(*g) > 0.5 { ink } else { glow };
                        let a = (s.max(sb * 1.5)).min(1.0) * eff;
                        lerp3(shaded, line, a)
                    }
                };
                clamp3(suppress_hues(c, &look.suppressed_hues))
            })
            .collect();
        let mut img = Rgbf { w, h, px };
        for (style, weight) in styles {
            super::style::apply_rgbf(&mut img, style, *weight);
        }
        out.outputs.push(produce_rgb(&img, output_seed(job, i))?);
    }
    Ok(out)
}

pub fn preview(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let src = require_any(inputs, &[InputRole::Condition, InputRole::Init])?;
    t.plan(2);
    let module = job.control.as_ref().map_or("canny", |c| c.module.as_str());
    let img = Rgbf::from_rgba(&src.img);
    t.tick()?;
    let map = preprocess(module, &img).map;
    t.tick()?;
    let rgb = map.to_rgb8();
    let bytes = super::encode_png(rgb.as_raw(), map.w, map.h, image::ExtendedColorType::Rgb8)?;
    Ok(Outcome {
        outputs: vec![crate::Produced {
            bytes,
            mime: "image/png".into(),
            ext: "png".into(),
            width: map.w,
            height: map.h,
            seed: job.seed,
            files: Vec::new(),
        }],
        texts: Vec::new(),
    })
}

pub fn upscale(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let init = require(inputs, InputRole::Init)?;
    let (iw, ih) = init.img.dimensions();
    let ratio = if job.upscale_ratio.is_finite() && job.upscale_ratio > 0.0 {
        job.upscale_ratio
    } else {
        2.0
    };
    let scaled = |x: u32| (x as f32 * ratio).round().clamp(1.0, 1.0e9) as u32;
    let (w, h) = out_size(job, (scaled(iw), scaled(ih)))?;
    t.plan(2);
    t.tick()?;
    let img = super::raster::resize_rgba(&init.img, w, h);
    t.tick()?;
    Ok(Outcome {
        outputs: vec![produce_rgba(&img, init.has_alpha, job.seed)?],
        texts: Vec::new(),
    })
}

/// Variations of a picture; Easel style files are applied to each.
pub fn variation(
    job: &JobSpec,
    inputs: &[LoadedInput],
    styles: &[(super::style::Style, f32)],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let init = require(inputs, InputRole::Init)?;
    let (w, h) = out_size(job, init.img.dimensions())?;
    let n = batch(job)?;
    let bands = bands(job);
    t.plan(1 + u64::from(n) * u64::from(bands));
    let base = Rgbf::from_rgba(&super::raster::resize_rgba(&init.img, w, h));
    t.tick()?;
    let octaves = (2 + job.steps / 6).clamp(2, 7);
    // Denoising strength, when given, says how far a variation may wander.
    let amount = if job.denoising_strength > 0.0 {
        0.5 + strength(job)
    } else {
        1.0
    };
    let look = look_of(job);
    let mut out = Outcome::default();
    for i in 0..n {
        let seed = image_seed(job.seed, i, &job.prompt);
        let mut rng = Rng::new(seed);
        let sign = if rng.below(2) == 0 { -1.0 } else { 1.0 };
        let hue = sign * rng.range(8.0, 30.0) * amount;
        let sat = 1.0 + rng.range(-0.15, 0.2) * amount;
        let bright = rng.range(-0.05, 0.05) * amount;
        let warp = w.min(h) as f32 * rng.range(0.008, 0.02) * amount;
        let freq = rng.range(2.0, 4.0);
        let nx = Noise::new(seed ^ 0x11);
        let ny = Noise::new(seed ^ 0x22);
        let grain = Noise::new(seed ^ 0x33);
        let mut img = Rgbf::new(w, h);
        for band in 0..bands {
            let y0 = (u64::from(h) * u64::from(band) / u64::from(bands)) as u32;
            let y1 = (u64::from(h) * u64::from(band + 1) / u64::from(bands)) as u32;
            for y in y0..y1 {
                for x in 0..w {
                    let u = x as f32 / w as f32;
                    let v = y as f32 / h as f32;
                    let dx = (nx.fbm(u * freq, v * freq, 3) - 0.5) * 2.0 * warp;
                    let dy = (ny.fbm(u * freq, v * freq, 3) - 0.5) * 2.0 * warp;
                    let c = base.sample(x as f32 + 0.5 + dx, y as f32 + 0.5 + dy);
                    let mut hsv = rgb_to_hsv(clamp3(c));
                    let local = grain.fbm(u * 24.0, v * 24.0, octaves) - 0.5;
                    hsv[0] += hue + local * 20.0 * amount;
                    hsv[1] = (hsv[1] * sat).clamp(0.0, 1.0);
                    let c = add3(hsv_to_rgb(hsv), [bright + local * 0.08 * amount; 3]);
                    img.set(x, y, clamp3(suppress_hues(c, &look.suppressed_hues)));
                }
            }
            t.tick()?;
        }
        for (style, weight) in styles {
            super::style::apply_rgbf(&mut img, style, *weight);
        }
        out.outputs.push(produce_rgb(&img, output_seed(job, i))?);
    }
    Ok(out)
}

/// Blur radii, as fractions of the source's longer side, of the levels the
/// outpaint fill reads from as it moves away from the source.
const FILL_LEVELS: [f32; 5] = [0.0, 0.01, 0.035, 0.09, 0.22];

pub fn expansion(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let init = require(inputs, InputRole::Init)?;
    let (iw, ih) = init.img.dimensions();
    let fallback = (
        iw.saturating_add(job.left_margin.saturating_mul(2)),
        ih.saturating_add(job.up_margin.saturating_mul(2)),
    );
    let (w, h) = out_size(job, fallback)?;
    check_size(w, h, "canvas")?;
    let n = batch(job)?;
    let bands = bands(job);
    t.plan(1 + u64::from(n) * u64::from(bands) * 2);
    let src = Rgbf::from_rgba(&init.img);
    let long = iw.max(ih) as f32;
    let levels: Vec<Rgbf> = FILL_LEVELS
        .iter()
        .map(|f| src.blur((long * f).round() as u32, 2))
        .collect();
    t.tick()?;
    let (ox, oy) = (i64::from(job.left_margin), i64::from(job.up_margin));
    let (rx1, ry1) = (ox + i64::from(iw), oy + i64::from(ih));
    let reach = 0.35 * w.max(h) as f32;
    let look = look_of(job);
    let mut out = Outcome::default();
    for i in 0..n {
        let gen = paint(job, &look, w, h, i, t)?;
        let seed = image_seed(job.seed, i, &job.prompt);
        let jitter = Noise::new(seed ^ 0x77);
        let grain = Noise::new(seed ^ 0x78);
        let octaves = (2 + job.steps / 6).clamp(2, 7);
        let mut canvas = RgbaImage::new(w, h);
        for band in 0..bands {
            let y0 = (u64::from(h) * u64::from(band) / u64::from(bands)) as u32;
            let y1 = (u64::from(h) * u64::from(band + 1) / u64::from(bands)) as u32;
            for y in y0..y1 {
                for x in 0..w {
                    let (xi, yi) = (i64::from(x), i64::from(y));
                    if xi >= ox && xi < rx1 && yi >= oy && yi < ry1 {
                        // Inside the source: its pixels, untouched.
                        let p = init
                            .img
                            .get_pixel_checked((xi - ox) as u32, (yi - oy) as u32)
                            .copied()
                            .unwrap_or(Rgba([0, 0, 0, 255]));
                        canvas.put_pixel(x, y, p);
                        continue;
                    }
                    let qx = xi.clamp(ox, rx1 - 1);
                    let qy = yi.clamp(oy, ry1 - 1);
                    let (ddx, ddy) = ((xi - qx) as f32, (yi - qy) as f32);
                    let d = (ddx * ddx + ddy * ddy).sqrt();
                    let s = (d / reach).clamp(0.0, 1.0);
                    // Slide along the edge with noise so the extension is not
                    // a set of straight streaks.
                    let (fx, fy) = (x as f32 / 48.0, y as f32 / 48.0);
                    let slide = (jitter.fbm(fx, fy, 3) - 0.5) * d * 0.8;
                    let (sx, sy) = if ddx.abs() >= ddy.abs() {
                        (qx as f32, qy as f32 + slide)
                    } else {
                        (qx as f32 + slide, qy as f32)
                    };
                    let level = s * (FILL_LEVELS.len() - 1) as f32;
                    let lo = level.floor() as usize;
                    let frac = level - lo as f32;
                    let at = |k: usize| {
                        levels
                            .get(k.min(FILL_LEVELS.len() - 1))
                            .map_or([0.0; 3], |l| {
                                l.sample(sx - ox as f32 + 0.5, sy - oy as f32 + 0.5)
                            })
                    };
                    let extended = lerp3(at(lo), at(lo + 1), frac);
                    let noise = (grain.fbm(fx * 2.0, fy * 2.0, octaves) - 0.5) * 0.3 * s;
                    let extended = add3(extended, [noise; 3]);
                    let g = gen.at(xi, yi);
                    let c = clamp3(lerp3(extended, g, smoothstep(0.0, 1.0, s) * 0.85));
                    canvas.put_pixel(
                        x,
                        y,
                        Rgba([to_byte(c[0]), to_byte(c[1]), to_byte(c[2]), 255]),
                    );
                }
            }
            t.tick()?;
        }
        out.outputs
            .push(produce_rgba(&canvas, init.has_alpha, output_seed(job, i))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_weight_is_zero_exactly_on_opaque_pixels() {
        let m = RgbaImage::from_fn(32, 16, |x, _| Rgba([0, 0, 0, if x < 16 { 255 } else { 0 }]));
        let d = Decoded {
            img: m,
            has_alpha: true,
        };
        let p = mask_weight(&d, 32, 16);
        for y in 0..16 {
            for x in 0..16 {
                assert_eq!(p.at(x, y), 0.0);
            }
            assert!(p.at(16, y) > 0.0 && p.at(16, y) < 1.0, "feathered edge");
            assert!((p.at(31, y) - 1.0).abs() < 1e-6);
        }
        let bw = RgbaImage::from_fn(8, 8, |x, _| {
            if x < 4 {
                Rgba([0, 0, 0, 255])
            } else {
                Rgba([255; 4])
            }
        });
        let p = mask_weight(
            &Decoded {
                img: bw,
                has_alpha: false,
            },
            8,
            8,
        );
        assert_eq!(p.at(0, 0), 0.0);
        assert!(p.at(7, 7) > 0.9);
    }
}
