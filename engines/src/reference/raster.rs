//! Floating-point rasters for the reference engine: an RGB image and a
//! single-channel plane in `[0, 1]`, clamped sampling, separable box blurs,
//! Lanczos resizing through `image`, and colour-space helpers.
//!
//! All access goes through bounds-checked accessors (the workspace denies
//! slice indexing); coordinates outside the raster are clamped to the edge,
//! which is also the border rule every filter here wants.

use image::{imageops, imageops::FilterType, RgbImage, RgbaImage};

pub type Rgb = [f32; 3];

/// An RGB raster, channels in `[0, 1]` (values may leave the range while a
/// filter works; conversion to bytes clamps).
#[derive(Debug, Clone, PartialEq)]
pub struct Rgbf {
    pub w: u32,
    pub h: u32,
    pub px: Vec<Rgb>,
}

/// A single-channel raster (luminance, masks, edge and depth maps).
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    pub w: u32,
    pub h: u32,
    pub v: Vec<f32>,
}

fn clamp_xy(w: u32, h: u32, x: i64, y: i64) -> usize {
    let cx = x.clamp(0, i64::from(w.max(1)) - 1) as usize;
    let cy = y.clamp(0, i64::from(h.max(1)) - 1) as usize;
    cy * w as usize + cx
}

impl Rgbf {
    pub fn new(w: u32, h: u32) -> Rgbf {
        Rgbf {
            w,
            h,
            px: vec![[0.0; 3]; w as usize * h as usize],
        }
    }

    pub fn from_fn(w: u32, h: u32, mut f: impl FnMut(u32, u32) -> Rgb) -> Rgbf {
        let mut px = Vec::with_capacity(w as usize * h as usize);
        for y in 0..h {
            for x in 0..w {
                px.push(f(x, y));
            }
        }
        Rgbf { w, h, px }
    }

    pub fn from_rgba(img: &RgbaImage) -> Rgbf {
        Rgbf {
            w: img.width(),
            h: img.height(),
            px: img
                .pixels()
                .map(|p| {
                    let [r, g, b, _] = p.0;
                    [unit(r), unit(g), unit(b)]
                })
                .collect(),
        }
    }

    pub fn to_rgb8(&self) -> RgbImage {
        let bytes: Vec<u8> = self.px.iter().flat_map(|c| c.map(to_byte)).collect();
        RgbImage::from_raw(self.w, self.h, bytes).unwrap_or_else(|| RgbImage::new(self.w, self.h))
    }

    /// The pixel at `(x, y)`, clamped to the edge.
    pub fn at(&self, x: i64, y: i64) -> Rgb {
        self.px
            .get(clamp_xy(self.w, self.h, x, y))
            .copied()
            .unwrap_or([0.0; 3])
    }

    pub fn set(&mut self, x: u32, y: u32, c: Rgb) {
        if x < self.w && y < self.h {
            if let Some(p) = self.px.get_mut(y as usize * self.w as usize + x as usize) {
                *p = c;
            }
        }
    }

    /// Bilinear sample at a continuous position (pixel centres at `i + 0.5`).
    pub fn sample(&self, fx: f32, fy: f32) -> Rgb {
        let x = fx - 0.5;
        let y = fy - 0.5;
        let x0 = x.floor();
        let y0 = y.floor();
        let tx = x - x0;
        let ty = y - y0;
        let (ix, iy) = (x0 as i64, y0 as i64);
        let top = lerp3(self.at(ix, iy), self.at(ix + 1, iy), tx);
        let bottom = lerp3(self.at(ix, iy + 1), self.at(ix + 1, iy + 1), tx);
        lerp3(top, bottom, ty)
    }

    pub fn luminance(&self) -> Plane {
        Plane {
            w: self.w,
            h: self.h,
            v: self.px.iter().map(|c| luma(*c)).collect(),
        }
    }

    pub fn channel(&self, i: usize) -> Plane {
        Plane {
            w: self.w,
            h: self.h,
            v: self
                .px
                .iter()
                .map(|c| c.get(i).copied().unwrap_or(0.0))
                .collect(),
        }
    }

    pub fn from_channels(r: &Plane, g: &Plane, b: &Plane) -> Rgbf {
        Rgbf {
            w: r.w,
            h: r.h,
            px: r
                .v
                .iter()
                .zip(&g.v)
                .zip(&b.v)
                .map(|((r, g), b)| [*r, *g, *b])
                .collect(),
        }
    }

    /// Box blur of radius `r` repeated `passes` times (three passes are
    /// close to a Gaussian).
    pub fn blur(&self, r: u32, passes: u32) -> Rgbf {
        if r == 0 || passes == 0 {
            return self.clone();
        }
        let ch: Vec<Plane> = (0..3).map(|i| self.channel(i).blur(r, passes)).collect();
        match ch.as_slice() {
            [r, g, b] => Rgbf::from_channels(r, g, b),
            _ => self.clone(),
        }
    }
}

impl Plane {
    pub fn new(w: u32, h: u32) -> Plane {
        Plane {
            w,
            h,
            v: vec![0.0; w as usize * h as usize],
        }
    }

    pub fn from_fn(w: u32, h: u32, mut f: impl FnMut(u32, u32) -> f32) -> Plane {
        let mut v = Vec::with_capacity(w as usize * h as usize);
        for y in 0..h {
            for x in 0..w {
                v.push(f(x, y));
            }
        }
        Plane { w, h, v }
    }

    pub fn at(&self, x: i64, y: i64) -> f32 {
        self.v
            .get(clamp_xy(self.w, self.h, x, y))
            .copied()
            .unwrap_or(0.0)
    }

    pub fn set(&mut self, x: u32, y: u32, value: f32) {
        if x < self.w && y < self.h {
            if let Some(p) = self.v.get_mut(y as usize * self.w as usize + x as usize) {
                *p = value;
            }
        }
    }

    /// Separable box blur with running sums: O(pixels) whatever the radius.
    pub fn blur(&self, r: u32, passes: u32) -> Plane {
        let mut cur = self.clone();
        for _ in 0..passes {
            cur = cur.box_pass(r, true).box_pass(r, false);
        }
        cur
    }

    fn box_pass(&self, r: u32, horizontal: bool) -> Plane {
        let (len, lines) = if horizontal {
            (self.w, self.h)
        } else {
            (self.h, self.w)
        };
        let mut out = Plane::new(self.w, self.h);
        let r = i64::from(r);
        let norm = 1.0 / (2 * r + 1) as f32;
        let get = |line: u32, i: i64| -> f32 {
            if horizontal {
                self.at(i, i64::from(line))
            } else {
                self.at(i64::from(line), i)
            }
        };
        for line in 0..lines {
            let mut sum: f32 = (-r..=r).map(|i| get(line, i)).sum();
            for i in 0..len {
                let (x, y) = if horizontal { (i, line) } else { (line, i) };
                out.set(x, y, sum * norm);
                let i = i64::from(i);
                sum += get(line, i + r + 1) - get(line, i - r);
            }
        }
        out
    }

    /// Stretches the values to `[0, 1]` (a constant plane becomes 0).
    pub fn normalised(&self) -> Plane {
        let lo = self.v.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = self.v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let span = hi - lo;
        Plane {
            w: self.w,
            h: self.h,
            v: self
                .v
                .iter()
                .map(|x| if span > 1e-6 { (x - lo) / span } else { 0.0 })
                .collect(),
        }
    }

    pub fn to_rgb8(&self) -> RgbImage {
        let bytes: Vec<u8> = self
            .v
            .iter()
            .flat_map(|x| {
                let b = to_byte(*x);
                [b, b, b]
            })
            .collect();
        RgbImage::from_raw(self.w, self.h, bytes).unwrap_or_else(|| RgbImage::new(self.w, self.h))
    }
}

/// Lanczos3 resize; the identity when the size does not change (so that
/// pixels a caller must keep are bit-exact).
pub fn resize_rgba(img: &RgbaImage, w: u32, h: u32) -> RgbaImage {
    if img.width() == w && img.height() == h {
        return img.clone();
    }
    imageops::resize(img, w, h, FilterType::Lanczos3)
}

/// A small copy for analysis (descriptions, face location): at most `max`
/// pixels a side, triangle filter.
pub fn thumbnail(img: &RgbaImage, max: u32) -> RgbaImage {
    let (w, h) = (img.width(), img.height());
    let long = w.max(h).max(1);
    if long <= max {
        return img.clone();
    }
    let nw = ((u64::from(w) * u64::from(max)) / u64::from(long)).max(1) as u32;
    let nh = ((u64::from(h) * u64::from(max)) / u64::from(long)).max(1) as u32;
    imageops::resize(img, nw, nh, FilterType::Triangle)
}

pub fn unit(b: u8) -> f32 {
    f32::from(b) / 255.0
}

pub fn to_byte(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

pub fn lerp3(a: Rgb, b: Rgb, t: f32) -> Rgb {
    [
        lerp(a[0], b[0], t),
        lerp(a[1], b[1], t),
        lerp(a[2], b[2], t),
    ]
}

pub fn scale3(a: Rgb, s: f32) -> Rgb {
    a.map(|x| x * s)
}

pub fn add3(a: Rgb, b: Rgb) -> Rgb {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn clamp3(a: Rgb) -> Rgb {
    a.map(|x| x.clamp(0.0, 1.0))
}

pub fn dist3(a: Rgb, b: Rgb) -> f32 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// Rec. 601 luma.
pub fn luma(c: Rgb) -> f32 {
    0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
}

pub fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// RGB to (hue degrees `[0, 360)`, saturation, value).
pub fn rgb_to_hsv(c: Rgb) -> [f32; 3] {
    let [r, g, b] = c;
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let d = max - min;
    let h = if d <= 1e-6 {
        0.0
    } else if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    let s = if max <= 1e-6 { 0.0 } else { d / max };
    [h.rem_euclid(360.0), s, max]
}

pub fn hsv_to_rgb(hsv: [f32; 3]) -> Rgb {
    let [h, s, v] = hsv;
    let h = h.rem_euclid(360.0) / 60.0;
    let c = v * s;
    let x = c * (1.0 - ((h % 2.0) - 1.0).abs());
    let m = v - c;
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    [r + m, g + m, b + m]
}

/// Hue distance in degrees, `[0, 180]`.
pub fn hue_distance(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

/// Contrast around mid-grey and saturation around the pixel's luma.
pub fn grade(c: Rgb, contrast: f32, saturation: f32) -> Rgb {
    let c = c.map(|x| (x - 0.5) * contrast + 0.5);
    let y = luma(c);
    c.map(|x| y + (x - y) * saturation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsv_round_trips() {
        for c in [
            [1.0, 0.0, 0.0],
            [0.2, 0.5, 0.9],
            [0.3, 0.3, 0.3],
            [0.9, 0.8, 0.1],
        ] {
            let back = hsv_to_rgb(rgb_to_hsv(c));
            assert!(dist3(c, back) < 1e-4, "{c:?} -> {back:?}");
        }
        assert_eq!(rgb_to_hsv([0.0, 0.0, 1.0])[0], 240.0);
        assert_eq!(hue_distance(350.0, 10.0), 20.0);
    }

    #[test]
    fn blur_preserves_a_constant_and_the_mean() {
        let p = Plane::from_fn(20, 10, |x, _| if x < 10 { 0.0 } else { 1.0 });
        let b = p.blur(3, 3);
        assert!((b.at(0, 0)).abs() < 1e-6 && (b.at(19, 9) - 1.0).abs() < 1e-6);
        assert!(b.at(9, 5) > 0.0 && b.at(10, 5) < 1.0);
        let c = Plane::from_fn(7, 7, |_, _| 0.25).blur(5, 2);
        assert!(c.v.iter().all(|v| (v - 0.25).abs() < 1e-5));
    }

    #[test]
    fn same_size_resize_is_the_identity() {
        let img = RgbaImage::from_fn(9, 7, |x, y| {
            image::Rgba([x as u8 * 20, y as u8 * 30, 7, 255])
        });
        assert_eq!(resize_rgba(&img, 9, 7), img);
        let big = resize_rgba(&img, 18, 3);
        assert_eq!(big.dimensions(), (18, 3));
        assert_eq!(thumbnail(&big, 6).dimensions(), (6, 1));
    }
}
