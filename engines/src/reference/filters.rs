//! Classical filters: Sobel gradients, the Canny edge detector (Gaussian
//! smoothing, non-maximum suppression, double threshold with hysteresis),
//! the control-net preprocessors built on them, a 3x3 median and the unsharp
//! mask.

use super::raster::{lerp3, Plane, Rgbf};

/// Which structure a preprocessor extracted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapKind {
    /// White edges on black (canny, edge, softedge, openpose, ...).
    Edges,
    /// Near is white, far is black.
    Depth,
    /// Black lines on white.
    Lineart,
}

/// A preprocessor's result, values in `[0, 1]`.
#[derive(Debug, Clone)]
pub struct ControlMap {
    pub kind: MapKind,
    pub map: Plane,
}

impl ControlMap {
    /// Where the structure is, as "1 = draw here" whatever the kind.
    pub fn strength(&self) -> Plane {
        match self.kind {
            MapKind::Lineart => Plane {
                w: self.map.w,
                h: self.map.h,
                v: self.map.v.iter().map(|x| 1.0 - x).collect(),
            },
            _ => self.map.clone(),
        }
    }
}

/// Runs the preprocessor named by a control module (`canny`, `depth`,
/// `lineart`, ...); unknown modules use edges.
pub fn preprocess(module: &str, img: &Rgbf) -> ControlMap {
    let m = module.to_ascii_lowercase();
    let lum = img.luminance();
    if m.contains("depth") || m.contains("normal") {
        // Blurred luminance: bright areas read as near, a classic monocular cue.
        let r = (img.w.max(img.h) / 48).max(1);
        ControlMap {
            kind: MapKind::Depth,
            map: lum.blur(r, 3).normalised(),
        }
    } else if m.contains("lineart") || m.contains("line_art") || m.contains("scribble") {
        let (mag, _, _) = sobel(&lum.blur(1, 1));
        let mag = mag.normalised();
        ControlMap {
            kind: MapKind::Lineart,
            map: Plane {
                w: mag.w,
                h: mag.h,
                v: mag.v.iter().map(|x| 1.0 - (x * 2.5).min(1.0)).collect(),
            },
        }
    } else {
        ControlMap {
            kind: MapKind::Edges,
            map: canny(&lum),
        }
    }
}

/// Sobel gradient magnitude, x and y derivatives.
pub fn sobel(p: &Plane) -> (Plane, Plane, Plane) {
    let (w, h) = (p.w, p.h);
    let mut mag = Plane::new(w, h);
    let mut gx = Plane::new(w, h);
    let mut gy = Plane::new(w, h);
    for y in 0..h {
        for x in 0..w {
            let (xi, yi) = (i64::from(x), i64::from(y));
            let a = |dx: i64, dy: i64| p.at(xi + dx, yi + dy);
            let dx = (a(1, -1) + 2.0 * a(1, 0) + a(1, 1)) - (a(-1, -1) + 2.0 * a(-1, 0) + a(-1, 1));
            let dy = (a(-1, 1) + 2.0 * a(0, 1) + a(1, 1)) - (a(-1, -1) + 2.0 * a(0, -1) + a(1, -1));
            gx.set(x, y, dx);
            gy.set(x, y, dy);
            mag.set(x, y, (dx * dx + dy * dy).sqrt());
        }
    }
    (mag, gx, gy)
}

/// Canny edges (1 on an edge, 0 elsewhere). Thresholds are relative to the
/// strongest gradient so the detector works at any exposure.
pub fn canny(lum: &Plane) -> Plane {
    let smooth = lum.blur(1, 2);
    let (mag, gx, gy) = sobel(&smooth);
    let (w, h) = (mag.w, mag.h);
    let max = mag.v.iter().copied().fold(0.0f32, f32::max);
    if max <= 1e-6 {
        return Plane::new(w, h);
    }
    // Non-maximum suppression along the quantised gradient direction.
    let mut thin = Plane::new(w, h);
    for y in 0..h {
        for x in 0..w {
            let (xi, yi) = (i64::from(x), i64::from(y));
            let m = mag.at(xi, yi);
            if m <= 0.0 {
                continue;
            }
            let angle = gy
                .at(xi, yi)
                .atan2(gx.at(xi, yi))
                .to_degrees()
                .rem_euclid(180.0);
            let (dx, dy) = if !(22.5..157.5).contains(&angle) {
                (1, 0)
            } else if angle < 67.5 {
                (1, 1)
            } else if angle < 112.5 {
                (0, 1)
            } else {
                (-1, 1)
            };
            if m >= mag.at(xi + dx, yi + dy) && m >= mag.at(xi - dx, yi - dy) {
                thin.set(x, y, m / max);
            }
        }
    }
    let (high, low) = (0.2, 0.08);
    let mut out = Plane::new(w, h);
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if thin.at(i64::from(x), i64::from(y)) >= high
                && out.at(i64::from(x), i64::from(y)) == 0.0
            {
                out.set(x, y, 1.0);
                stack.push((x, y));
                // Hysteresis: weak edges survive when connected to a strong one.
                while let Some((cx, cy)) = stack.pop() {
                    for (dx, dy) in NEIGHBOURS_8 {
                        let nx = i64::from(cx) + dx;
                        let ny = i64::from(cy) + dy;
                        if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
                            continue;
                        }
                        if out.at(nx, ny) == 0.0 && thin.at(nx, ny) >= low {
                            out.set(nx as u32, ny as u32, 1.0);
                            stack.push((nx as u32, ny as u32));
                        }
                    }
                }
            }
        }
    }
    out
}

const NEIGHBOURS_8: [(i64, i64); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// 3x3 median per channel (removes speckle noise, keeps edges).
pub fn median3(img: &Rgbf) -> Rgbf {
    Rgbf::from_fn(img.w, img.h, |x, y| {
        let (xi, yi) = (i64::from(x), i64::from(y));
        let mut out = [0.0; 3];
        for (c, o) in out.iter_mut().enumerate() {
            let mut v = [0.0f32; 9];
            for (k, slot) in v.iter_mut().enumerate() {
                let dx = (k % 3) as i64 - 1;
                let dy = (k / 3) as i64 - 1;
                *slot = img.at(xi + dx, yi + dy).get(c).copied().unwrap_or(0.0);
            }
            v.sort_by(f32::total_cmp);
            *o = v[4];
        }
        out
    })
}

/// Unsharp mask: `img + amount * (img - blur(img))`.
pub fn unsharp(img: &Rgbf, radius: u32, amount: f32) -> Rgbf {
    let blurred = img.blur(radius.max(1), 2);
    Rgbf {
        w: img.w,
        h: img.h,
        px: img
            .px
            .iter()
            .zip(&blurred.px)
            .map(|(a, b)| lerp3(*b, *a, 1.0 + amount).map(|x| x.clamp(0.0, 1.0)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Rgbf {
        Rgbf::from_fn(40, 40, |x, y| {
            if (10..30).contains(&x) && (10..30).contains(&y) {
                [1.0; 3]
            } else {
                [0.0; 3]
            }
        })
    }

    #[test]
    fn canny_finds_the_square_outline_only() {
        let e = canny(&square().luminance());
        assert_eq!(e.at(20, 20), 0.0);
        assert_eq!(e.at(2, 2), 0.0);
        let on_edge = (8..12).any(|x| e.at(x, 20) == 1.0);
        assert!(on_edge);
        let total: f32 = e.v.iter().sum();
        assert!(total > 40.0 && total < 400.0, "{total}");
    }

    #[test]
    fn preprocessors_by_module() {
        let img = square();
        assert_eq!(preprocess("canny", &img).kind, MapKind::Edges);
        assert_eq!(preprocess("openpose", &img).kind, MapKind::Edges);
        let d = preprocess("depth_midas", &img);
        assert_eq!(d.kind, MapKind::Depth);
        assert!(d.map.at(20, 20) > d.map.at(1, 1));
        let l = preprocess("lineart", &img);
        assert_eq!(l.kind, MapKind::Lineart);
        assert!(l.map.at(20, 20) > 0.9 && l.map.at(10, 20) < 0.5);
        assert!(l.strength().at(10, 20) > 0.5);
    }

    #[test]
    fn median_removes_a_speck_and_unsharp_raises_edge_contrast() {
        let mut img = Rgbf::from_fn(9, 9, |_, _| [0.5; 3]);
        img.set(4, 4, [1.0; 3]);
        assert_eq!(median3(&img).at(4, 4), [0.5; 3]);
        let s = square();
        let sharp = unsharp(&s.blur(1, 1), 2, 1.0);
        let soft = s.blur(1, 1);
        let grad = |i: &Rgbf| (i.at(10, 20)[0] - i.at(9, 20)[0]).abs();
        assert!(grad(&sharp) > grad(&soft));
    }
}
