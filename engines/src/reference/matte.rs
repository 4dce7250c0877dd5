//! Background removal: the background colours are estimated from the border
//! pixels (k-means), the background is the region flood-filled from the
//! border through pixels close to one of those colours, and the matte's
//! edge is softened with a colour-distance ramp and a small blur.

use image::{Rgba, RgbaImage};
use protocol::task::{InputRole, JobSpec};

use super::raster::{dist3, smoothstep, Plane, Rgb, Rgbf};
use super::{produce_rgba, require, Outcome, Ticker};
use crate::{EngineError, LoadedInput};

/// Number of background colour clusters.
const K: usize = 4;

/// Border pixels in perimeter order (top, right, bottom, left).
fn border(img: &Rgbf) -> Vec<Rgb> {
    let (w, h) = (i64::from(img.w), i64::from(img.h));
    let mut out = Vec::new();
    out.extend((0..w).map(|x| img.at(x, 0)));
    out.extend((1..h).map(|y| img.at(w - 1, y)));
    out.extend((0..w - 1).rev().map(|x| img.at(x, h - 1)));
    out.extend((1..h - 1).rev().map(|y| img.at(0, y)));
    out
}

fn nearest(c: Rgb, centres: &[Rgb]) -> (usize, f32) {
    centres
        .iter()
        .enumerate()
        .map(|(i, k)| (i, dist3(c, *k)))
        .fold(
            (0, f32::INFINITY),
            |best, x| if x.1 < best.1 { x } else { best },
        )
}

/// K-means on the border samples, seeded at evenly spaced perimeter points so
/// that it is deterministic.
pub fn background_colours(samples: &[Rgb]) -> (Vec<Rgb>, f32) {
    if samples.is_empty() {
        return (vec![[1.0; 3]], 0.1);
    }
    let mut centres: Vec<Rgb> = (0..K)
        .filter_map(|i| samples.get(i * samples.len() / K).copied())
        .collect();
    for _ in 0..10 {
        let mut sums = vec![([0.0f32; 3], 0u32); centres.len()];
        for s in samples {
            let (i, _) = nearest(*s, &centres);
            if let Some((sum, n)) = sums.get_mut(i) {
                for (a, b) in sum.iter_mut().zip(s) {
                    *a += b;
                }
                *n += 1;
            }
        }
        for (c, (sum, n)) in centres.iter_mut().zip(&sums) {
            if *n > 0 {
                *c = sum.map(|x| x / *n as f32);
            }
        }
    }
    // Clusters holding almost no border pixels are subject touching the border.
    let counts: Vec<usize> = centres
        .iter()
        .enumerate()
        .map(|(i, _)| {
            samples
                .iter()
                .filter(|s| nearest(**s, &centres).0 == i)
                .count()
        })
        .collect();
    let keep: Vec<Rgb> = centres
        .iter()
        .zip(&counts)
        .filter(|(_, n)| **n * 10 >= samples.len())
        .map(|(c, _)| *c)
        .collect();
    let centres = if keep.is_empty() { centres } else { keep };
    let spread = samples
        .iter()
        .map(|s| nearest(*s, &centres).1.powi(2))
        .sum::<f32>()
        / samples.len() as f32;
    (centres, spread.sqrt())
}

/// The alpha matte: 0 on the background, 1 on the subject.
pub fn matte(img: &Rgbf) -> Plane {
    let (w, h) = (img.w, img.h);
    let (bg, spread) = background_colours(&border(img));
    let threshold = (2.5 * spread).clamp(0.1, 0.35);
    let dist = Plane {
        w,
        h,
        v: img.px.iter().map(|c| nearest(*c, &bg).1).collect(),
    };
    // Flood fill from the border through background-coloured pixels.
    let mut is_bg = vec![false; w as usize * h as usize];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    let visit = |x: u32, y: u32, is_bg: &mut Vec<bool>, stack: &mut Vec<(u32, u32)>| {
        let i = y as usize * w as usize + x as usize;
        if dist.at(i64::from(x), i64::from(y)) < threshold {
            if let Some(flag) = is_bg.get_mut(i) {
                if !*flag {
                    *flag = true;
                    stack.push((x, y));
                }
            }
        }
    };
    for x in 0..w {
        visit(x, 0, &mut is_bg, &mut stack);
        visit(x, h - 1, &mut is_bg, &mut stack);
    }
    for y in 0..h {
        visit(0, y, &mut is_bg, &mut stack);
        visit(w - 1, y, &mut is_bg, &mut stack);
    }
    while let Some((x, y)) = stack.pop() {
        if x > 0 {
            visit(x - 1, y, &mut is_bg, &mut stack);
        }
        if x + 1 < w {
            visit(x + 1, y, &mut is_bg, &mut stack);
        }
        if y > 0 {
            visit(x, y - 1, &mut is_bg, &mut stack);
        }
        if y + 1 < h {
            visit(x, y + 1, &mut is_bg, &mut stack);
        }
    }
    // Subject pixels touching the background and close to its colour get
    // partial alpha (anti-aliased edges); enclosed pixels stay opaque
    // whatever their colour. Then a small blur softens the cut.
    let bg_at = |x: i64, y: i64| -> bool {
        x >= 0
            && y >= 0
            && x < i64::from(w)
            && y < i64::from(h)
            && is_bg
                .get(y as usize * w as usize + x as usize)
                .copied()
                .unwrap_or(false)
    };
    let alpha = Plane::from_fn(w, h, |x, y| {
        let (xi, yi) = (i64::from(x), i64::from(y));
        if bg_at(xi, yi) {
            0.0
        } else if bg_at(xi - 1, yi) || bg_at(xi + 1, yi) || bg_at(xi, yi - 1) || bg_at(xi, yi + 1) {
            smoothstep(threshold * 0.5, threshold * 1.6, dist.at(xi, yi)).max(0.3)
        } else {
            1.0
        }
    });
    alpha.blur(1, 1)
}

pub fn remove_background(
    job: &JobSpec,
    inputs: &[LoadedInput],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    let init = require(inputs, InputRole::Init)?;
    t.plan(3);
    let img = Rgbf::from_rgba(&init.img);
    t.tick()?;
    let alpha = matte(&img);
    t.tick()?;
    let (w, h) = init.img.dimensions();
    let out = RgbaImage::from_fn(w, h, |x, y| {
        let [r, g, b, a] = init.img.get_pixel_checked(x, y).map_or([0; 4], |p| p.0);
        let m = alpha.at(i64::from(x), i64::from(y));
        // An input that was already transparent stays so.
        let a = (f32::from(a) * m).round().clamp(0.0, 255.0) as u8;
        Rgba([r, g, b, a])
    });
    t.tick()?;
    Ok(Outcome {
        outputs: vec![produce_rgba(&out, true, job.seed)?],
        texts: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disc_on_a_gradient_is_cut_out() {
        let img = Rgbf::from_fn(60, 40, |x, y| {
            let d = ((x as f32 - 30.0).powi(2) + (y as f32 - 20.0).powi(2)).sqrt();
            if d < 12.0 {
                [0.9, 0.2, 0.1]
            } else {
                [0.2, 0.4 + y as f32 * 0.005, 0.8]
            }
        });
        let a = matte(&img);
        assert_eq!(a.at(0, 0), 0.0);
        assert_eq!(a.at(59, 39), 0.0);
        assert_eq!(a.at(5, 20), 0.0);
        assert!(a.at(30, 20) > 0.99);
        assert!(a.at(25, 20) > 0.99);
    }

    #[test]
    fn border_clusters_find_two_backgrounds() {
        let mut s = vec![[0.0, 0.0, 1.0]; 50];
        s.extend(vec![[1.0, 1.0, 1.0]; 50]);
        let (c, spread) = background_colours(&s);
        assert!(c.iter().any(|k| dist3(*k, [0.0, 0.0, 1.0]) < 0.01));
        assert!(c.iter().any(|k| dist3(*k, [1.0, 1.0, 1.0]) < 0.01));
        assert!(spread < 0.01);
    }
}
