//! Pictures the tests make: a safe landscape and a skin-toned synthetic figure.
#![allow(dead_code)]

use image::{Rgb, RgbImage};

/// A landscape: a blue sky gradient, a sun, green hills, a lake.
pub fn landscape(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
        let hill = 0.55 + 0.08 * (fx * 9.0).sin() + 0.04 * (fx * 23.0).cos();
        let sun = ((fx - 0.75).powi(2) + (fy - 0.2).powi(2)).sqrt() < 0.07;
        if sun {
            Rgb([255, 236, 140])
        } else if fy < hill {
            let t = fy / hill;
            Rgb([
                (90.0 + 80.0 * t) as u8,
                (150.0 + 60.0 * t) as u8,
                (235.0 - 20.0 * t) as u8,
            ])
        } else if fy > 0.8 && fx > 0.2 && fx < 0.7 {
            Rgb([40, 90, (160.0 + 40.0 * (fx * 40.0).sin()) as u8])
        } else {
            let n = ((fx * 97.0).sin() * (fy * 61.0).cos() * 20.0) as i32;
            Rgb([
                (40 + n).clamp(0, 255) as u8,
                (120 + n).clamp(0, 255) as u8,
                (45 + n / 2).clamp(0, 255) as u8,
            ])
        }
    })
}

fn inside_ellipse(x: f32, y: f32, cx: f32, cy: f32, rx: f32, ry: f32) -> Option<f32> {
    let d = ((x - cx) / rx).powi(2) + ((y - cy) / ry).powi(2);
    (d <= 1.0).then_some(d)
}

/// A nude-looking synthetic figure: skin-toned head, torso, hips and limbs,
/// shaded, with darker nipples, filling most of a warm-toned frame.
pub fn skin_figure(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
        let parts = [
            (0.5, 0.12, 0.09, 0.11),  // head
            (0.5, 0.25, 0.05, 0.06),  // neck
            (0.5, 0.45, 0.2, 0.22),   // torso
            (0.5, 0.7, 0.22, 0.14),   // hips
            (0.26, 0.45, 0.06, 0.2),  // left arm
            (0.74, 0.45, 0.06, 0.2),  // right arm
            (0.41, 0.88, 0.08, 0.16), // left leg
            (0.59, 0.88, 0.08, 0.16), // right leg
            (0.42, 0.4, 0.09, 0.08),  // left breast
            (0.58, 0.4, 0.09, 0.08),  // right breast
        ];
        let nipple = [(0.42, 0.42), (0.58, 0.42)]
            .iter()
            .any(|&(cx, cy)| inside_ellipse(fx, fy, cx, cy, 0.015, 0.012).is_some());
        if nipple {
            return Rgb([150, 80, 70]);
        }
        let best = parts
            .iter()
            .filter_map(|&(cx, cy, rx, ry)| inside_ellipse(fx, fy, cx, cy, rx, ry))
            .fold(None, |acc: Option<f32>, d| {
                Some(acc.map_or(d, |a| a.min(d)))
            });
        match best {
            Some(d) => {
                let shade = 1.0 - 0.25 * d;
                Rgb([
                    (232.0 * shade) as u8,
                    (180.0 * shade) as u8,
                    (150.0 * shade) as u8,
                ])
            }
            None => Rgb([200, 170, 150]),
        }
    })
}
