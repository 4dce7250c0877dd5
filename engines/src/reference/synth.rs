//! The procedural painter behind text-to-image (and the generated part of
//! image-to-image, condition-to-image and outpainting): a sky gradient with
//! sun or moon, stars and fBm clouds, then a composition (hills, ridged
//! mountains, a city skyline, a sea with reflections, a forest, a portrait
//! figure or an abstract domain-warped field), then grading by `cfg_scale`
//! and the negative prompt's hue suppression.
//!
//! Every pixel is a pure function of the [`Plan`] and its coordinates, so a
//! picture can be painted band by band (one band per step, for progress and
//! cancellation) with the same bytes whatever the band count.

use super::prompt::{Layout, Light, Look};
use super::raster::{
    add3, clamp3, grade, hsv_to_rgb, hue_distance, lerp3, rgb_to_hsv, scale3, smoothstep, Rgb, Rgbf,
};
use super::rng::{hash2, mix, Noise, Rng};
use super::Ticker;
use crate::EngineError;

#[derive(Debug, Clone)]
struct Tree {
    x: f32,
    base: f32,
    height: f32,
    width: f32,
    tone: f32,
}

#[derive(Debug, Clone)]
struct Building {
    x0: f32,
    x1: f32,
    top: f32,
    tone: f32,
    id: u32,
}

#[derive(Debug, Clone)]
struct Figure {
    cx: f32,
    hy: f32,
    rx: f32,
    ry: f32,
    skin: Rgb,
    hair: Rgb,
    cloth: Rgb,
}

/// Everything drawn in one picture, laid out from the seed.
#[derive(Debug, Clone)]
pub struct Plan {
    look: Look,
    w: u32,
    h: u32,
    aspect: f32,
    seed: u64,
    octaves: u32,
    noise: Noise,
    noise2: Noise,
    horizon: f32,
    sun: (f32, f32, f32),
    /// Per-layer, per-column heights of hill or mountain lines (they depend
    /// on x only, so they are computed once, not once per pixel).
    lines: Vec<Vec<f32>>,
    trees: Vec<Tree>,
    buildings: Vec<Building>,
    /// Per column: index of the back and the front building covering it.
    skyline: Vec<[Option<usize>; 2]>,
    figure: Option<Figure>,
}

impl Plan {
    /// `steps` sets the detail: more steps, more noise octaves.
    pub fn new(look: &Look, w: u32, h: u32, seed: u64, steps: u32) -> Plan {
        let mut rng = Rng::new(seed);
        let aspect = w.max(1) as f32 / h.max(1) as f32;
        let octaves = (2 + steps / 5).clamp(2, 8);
        let noise = Noise::new(seed);
        let noise2 = Noise::new(seed ^ 0x00c1_0d5e);
        let horizon = match look.layout {
            Layout::Landscape => rng.range(0.5, 0.64),
            Layout::Mountains => rng.range(0.6, 0.7),
            Layout::City => rng.range(0.64, 0.74),
            Layout::Seascape => rng.range(0.45, 0.58),
            Layout::Forest => rng.range(0.52, 0.62),
            Layout::Portrait => 0.75,
            Layout::Abstract => 0.5,
        };
        let sx = rng.range(0.15, 0.85) * aspect;
        let (sy, sr) = match look.light {
            Light::Day => (rng.range(0.1, 0.28), rng.range(0.05, 0.075)),
            Light::Sunset => (horizon - rng.range(0.02, 0.1), rng.range(0.07, 0.1)),
            Light::Night => (rng.range(0.1, 0.25), rng.range(0.04, 0.06)),
        };
        let mut plan = Plan {
            look: look.clone(),
            w,
            h,
            aspect,
            seed,
            octaves,
            noise,
            noise2,
            horizon,
            sun: (sx, sy, sr),
            lines: Vec::new(),
            trees: Vec::new(),
            buildings: Vec::new(),
            skyline: Vec::new(),
            figure: None,
        };
        plan.lay_out(&mut rng);
        plan
    }

    fn col_x(&self, x: u32) -> f32 {
        (x as f32 + 0.5) / self.w.max(1) as f32 * self.aspect
    }

    fn line(&self, k: usize, x: u32) -> f32 {
        self.lines
            .get(k)
            .and_then(|l| l.get(x as usize))
            .copied()
            .unwrap_or(self.horizon)
    }

    fn lay_out(&mut self, rng: &mut Rng) {
        let oct = self.octaves;
        let hz = self.horizon;
        let cols: Vec<f32> = (0..self.w).map(|x| self.col_x(x)).collect();
        match self.look.layout {
            Layout::Landscape | Layout::Forest | Layout::Portrait | Layout::Abstract => {
                let far: Vec<f32> = cols
                    .iter()
                    .map(|&x| hz - 0.05 - 0.12 * self.noise.fbm(x * 2.0, 3.3, oct))
                    .collect();
                let near: Vec<f32> = cols
                    .iter()
                    .map(|&x| hz + 0.06 - 0.12 * self.noise.fbm(x * 1.3 + 11.0, 7.7, oct))
                    .collect();
                self.lines = vec![far, near];
            }
            Layout::Mountains => {
                self.lines = (0..3u32)
                    .map(|k| {
                        let kf = k as f32;
                        let amp = [0.5, 0.32, 0.16].get(k as usize).copied().unwrap_or(0.1);
                        cols.iter()
                            .map(|&x| {
                                let r = self.noise.ridged(
                                    x * (0.9 + kf * 0.8) + kf * 5.0,
                                    2.0 + kf * 9.0,
                                    oct,
                                );
                                hz + kf * 0.07 - 0.02 - amp * (r * 1.5 - 0.25).max(0.0)
                            })
                            .collect()
                    })
                    .collect();
            }
            Layout::Seascape => {
                // A distant island line; only its parts above the sea show.
                let island: Vec<f32> = cols
                    .iter()
                    .map(|&x| {
                        hz + 0.02 - 0.09 * smoothstep(0.55, 0.8, self.noise.fbm(x * 1.5, 4.4, oct))
                    })
                    .collect();
                self.lines = vec![island];
            }
            Layout::City => {}
        }

        if self.look.trees {
            let count = (self.aspect * 36.0) as u32 + rng.below(12);
            for _ in 0..count {
                let x = rng.range(0.0, self.aspect);
                let layer = rng.below(2) as usize;
                let col = ((x / self.aspect) * self.w as f32) as u32;
                let ground = self.line(layer, col.min(self.w.saturating_sub(1)));
                let scale = if layer == 0 { 0.55 } else { 1.0 };
                self.trees.push(Tree {
                    x,
                    base: ground + rng.range(0.005, 0.05) * scale,
                    height: rng.range(0.08, 0.2) * scale,
                    width: rng.range(0.28, 0.4),
                    tone: rng.range(0.75, 1.1),
                });
            }
            self.trees.sort_by(|a, b| a.base.total_cmp(&b.base));
        }

        if self.look.layout == Layout::City {
            let mut id = 0u32;
            for row in 0..2usize {
                let mut x = -rng.range(0.0, 0.05);
                while x < self.aspect {
                    let width = rng.range(0.04, 0.12);
                    let height = if row == 0 {
                        rng.range(0.2, 0.5)
                    } else {
                        rng.range(0.08, 0.32)
                    };
                    self.buildings.push(Building {
                        x0: x,
                        x1: x + width,
                        top: hz - height,
                        tone: rng.range(0.7, 1.15),
                        id,
                    });
                    id += 1;
                    x += width + rng.range(0.0, 0.015);
                }
            }
            let split = self
                .buildings
                .iter()
                .position(|b| b.x1 >= self.aspect)
                .map(|p| p + 1)
                .unwrap_or(self.buildings.len());
            self.skyline = cols
                .iter()
                .map(|&x| {
                    let find = |range: std::ops::Range<usize>| {
                        range
                            .into_iter()
                            .find(|&i| self.buildings.get(i).is_some_and(|b| b.x0 <= x && x < b.x1))
                    };
                    [find(0..split), find(split..self.buildings.len())]
                })
                .collect();
        }

        if self.look.layout == Layout::Portrait {
            let skins: [Rgb; 4] = [
                [0.93, 0.76, 0.64],
                [0.82, 0.62, 0.48],
                [0.62, 0.44, 0.32],
                [0.42, 0.29, 0.21],
            ];
            let hairs: [Rgb; 4] = [
                [0.12, 0.08, 0.06],
                [0.35, 0.22, 0.12],
                [0.78, 0.62, 0.35],
                [0.45, 0.15, 0.08],
            ];
            let skin = skins
                .get(rng.below(4) as usize)
                .copied()
                .unwrap_or([0.8, 0.6, 0.5]);
            let hair = hairs
                .get(rng.below(4) as usize)
                .copied()
                .unwrap_or([0.2, 0.1, 0.1]);
            let cloth = lerp3(self.look.accent, self.look.ground_near, rng.range(0.2, 0.6));
            self.figure = Some(Figure {
                cx: self.aspect * 0.5 + rng.range(-0.05, 0.05),
                hy: rng.range(0.38, 0.44),
                rx: rng.range(0.13, 0.16),
                ry: rng.range(0.18, 0.21),
                skin,
                hair,
                cloth,
            });
        }
    }

    /// The colour of pixel `(x, y)`.
    pub fn shade(&self, x: u32, y: u32) -> Rgb {
        let u = (x as f32 + 0.5) / self.w.max(1) as f32;
        let v = (y as f32 + 0.5) / self.h.max(1) as f32;
        let px = u * self.aspect;
        let mut c = match self.look.layout {
            Layout::Abstract => self.abstract_field(px, v),
            _ => self.sky(px, v),
        };
        match self.look.layout {
            Layout::Landscape | Layout::Forest => c = self.hills(c, x, px, v),
            Layout::Mountains => c = self.mountains(c, x, px, v),
            Layout::City => c = self.city(c, x, px, v),
            Layout::Seascape => c = self.sea(c, x, px, v),
            Layout::Portrait => c = self.portrait(c, px, v),
            Layout::Abstract => {}
        }
        if self.look.layout != Layout::Seascape && self.look.water && v > self.horizon + 0.1 {
            c = self.lake(c, px, v);
        }
        c = self.trees(c, px, v);
        self.finish(c, x, y, u, v)
    }

    fn sky(&self, px: f32, v: f32) -> Rgb {
        let look = &self.look;
        let t = (v / self.horizon).clamp(0.0, 1.0);
        let mut c = lerp3(look.sky_top, look.sky_horizon, t.powf(0.8));
        if look.stars {
            let cells = 90.0;
            let (cx, cy) = ((px * cells).floor(), (v * cells).floor());
            let star_seed = self.seed ^ 0x5747_a125;
            if hash2(star_seed, cx as i64, cy as i64) < 0.05 {
                let ox = hash2(star_seed ^ 1, cx as i64, cy as i64);
                let oy = hash2(star_seed ^ 2, cx as i64, cy as i64);
                let dx = px * cells - cx - ox;
                let dy = v * cells - cy - oy;
                let d = (dx * dx + dy * dy).sqrt();
                let b = smoothstep(0.3, 0.0, d) * (0.5 + 0.5 * ox) * (1.0 - t * 0.7);
                c = add3(c, [b, b, b * 0.9]);
            }
        }
        let (sx, sy, sr) = self.sun;
        if look.luminary {
            let d = ((px - sx).powi(2) + (v - sy).powi(2)).sqrt();
            let glow_amount = match look.light {
                Light::Day => 0.35,
                Light::Sunset => 0.8,
                Light::Night => 0.25,
            };
            let glow = (-d / (sr * 2.5)).exp() * glow_amount;
            c = add3(c, scale3(look.accent, glow));
            let disc = smoothstep(sr, sr * 0.92, d);
            if disc > 0.0 {
                let body = if look.light == Light::Night {
                    scale3(
                        look.accent,
                        0.82 + 0.18 * self.noise2.fbm(px * 60.0, v * 60.0, 3),
                    )
                } else {
                    lerp3(look.accent, [1.0, 1.0, 0.95], 0.5)
                };
                c = lerp3(c, body, disc);
            }
        }
        if look.clouds {
            let n = self.noise2.fbm(px * 2.2 + 10.0, v * 5.5, self.octaves);
            let cov = smoothstep(0.5, 0.72, n) * (1.0 - t * 0.5);
            let detail = self.noise2.fbm(px * 9.0, v * 14.0, self.octaves);
            let cloud = match look.light {
                Light::Day => lerp3([1.0, 1.0, 1.0], look.sky_horizon, 0.25),
                Light::Sunset => lerp3(look.accent, [0.95, 0.55, 0.6], 0.45),
                Light::Night => [0.13, 0.15, 0.24],
            };
            c = lerp3(c, scale3(cloud, 0.82 + 0.25 * detail), cov * 0.85);
        }
        c
    }

    fn ground_texture(&self, base: Rgb, px: f32, v: f32, depth: f32) -> Rgb {
        let n = self.noise.fbm(px * 14.0, v * 22.0, self.octaves);
        let dark = lerp3(base, scale3(base, 0.6), depth.clamp(0.0, 1.0));
        scale3(dark, 0.8 + 0.4 * n)
    }

    fn hills(&self, mut c: Rgb, x: u32, px: f32, v: f32) -> Rgb {
        let look = &self.look;
        let far = self.line(0, x);
        let near = self.line(1, x);
        if v > far {
            let base = lerp3(look.ground_far, look.sky_horizon, 0.35);
            let col = self.ground_texture(base, px, v, 0.0);
            c = lerp3(c, col, smoothstep(far, far + 0.004, v));
        }
        if v > near {
            let depth = (v - near) / (1.0 - near).max(0.05);
            let col = self.ground_texture(look.ground_near, px, v, depth);
            c = lerp3(c, col, smoothstep(near, near + 0.004, v));
        }
        c
    }

    fn mountains(&self, mut c: Rgb, x: u32, px: f32, v: f32) -> Rgb {
        let look = &self.look;
        let light_from_left = self.sun.0 < self.aspect * 0.5;
        for k in 0..3usize {
            let top = self.line(k, x);
            if v <= top {
                continue;
            }
            // Slope over a few columns (a one-pixel slope of a rough ridge
            // line would paint vertical streaks), in height per width.
            let span = (self.w / 48).max(2);
            let rise = self.line(k, x.saturating_add(span)) - self.line(k, x.saturating_sub(span));
            let slope = rise / (2.0 * span as f32 / self.w.max(1) as f32 * self.aspect);
            let lit = if light_from_left { -slope } else { slope } * 0.35;
            let haze = [0.55, 0.3, 0.1].get(k).copied().unwrap_or(0.0);
            let rock = lerp3(
                lerp3(look.ground_far, [0.45, 0.45, 0.5], 0.5),
                look.sky_horizon,
                haze,
            );
            let below = v - top;
            // Slanted strata (gullies) in 2-D, and the ridge's light fading
            // down the slope, so no column reads as a streak.
            let lean = if light_from_left { 1.0 } else { -1.0 };
            let strata =
                self.noise2
                    .ridged(px * 7.0 + below * 9.0 * lean, v * 3.0 + kf(k), self.octaves);
            let light = 1.0 + lit.clamp(-0.3, 0.3) * (-below / 0.12).exp();
            let mut col = scale3(rock, light * (0.7 + 0.45 * strata));
            let cap = 0.03 + 0.05 * self.noise.fbm(px * 6.0, 1.7, self.octaves);
            if look.snow || (k == 0 && look.light != Light::Night) {
                let snow = smoothstep(cap, cap * 0.6, below);
                col = lerp3(
                    col,
                    lerp3([0.95, 0.96, 1.0], look.sky_horizon, haze),
                    snow * 0.9,
                );
            }
            c = lerp3(c, col, smoothstep(top, top + 0.003, v));
        }
        let ground = self.horizon + 0.16;
        if v > ground {
            let depth = (v - ground) / (1.0 - ground).max(0.05);
            c = self.ground_texture(look.ground_near, px, v, depth);
        }
        c
    }

    fn city(&self, mut c: Rgb, x: u32, px: f32, v: f32) -> Rgb {
        let look = &self.look;
        let cols = self
            .skyline
            .get(x as usize)
            .copied()
            .unwrap_or([None, None]);
        let base_col = match look.light {
            Light::Day => lerp3([0.55, 0.58, 0.66], look.ground_far, 0.25),
            Light::Sunset => [0.22, 0.13, 0.24],
            Light::Night => [0.05, 0.06, 0.1],
        };
        for (row, idx) in cols.iter().enumerate() {
            let Some(b) = idx.and_then(|i| self.buildings.get(i)) else {
                continue;
            };
            if v < b.top || v > self.horizon {
                continue;
            }
            let haze = if row == 0 { 0.35 } else { 0.0 };
            let mut col = lerp3(scale3(base_col, b.tone), look.sky_horizon, haze);
            let wx = (px - b.x0) / 0.014;
            let wy = (v - b.top) / 0.02;
            let in_window = wx.fract() > 0.3
                && wx.fract() < 0.72
                && wy.fract() > 0.35
                && wy.fract() < 0.75
                && wy > 1.0;
            if in_window {
                let on = hash2(
                    self.seed ^ 0x3177,
                    i64::from(b.id) * 4096 + wx as i64,
                    wy as i64,
                );
                let lit_share = match look.light {
                    Light::Day => 0.0,
                    Light::Sunset => 0.35,
                    Light::Night => 0.55,
                };
                col = if on < lit_share {
                    lerp3(look.accent, [1.0, 0.85, 0.5], 0.4)
                } else if look.light == Light::Day {
                    lerp3(col, look.sky_horizon, 0.6)
                } else {
                    scale3(col, 0.7)
                };
            }
            c = col;
        }
        if v > self.horizon {
            let depth = (v - self.horizon) / (1.0 - self.horizon).max(0.05);
            let street = lerp3(scale3(base_col, 0.6), look.ground_near, 0.3);
            c = self.ground_texture(street, px, v, depth * 0.5);
            if look.light != Light::Day {
                let glow = (1.0 - depth) * 0.25 * self.noise.fbm(px * 20.0, v * 3.0, 3);
                c = add3(c, scale3(look.accent, glow));
            }
        }
        c
    }

    fn water(&self, px: f32, v: f32, top: f32) -> Rgb {
        let look = &self.look;
        let depth = ((v - top) / (1.0 - top).max(0.05)).clamp(0.0, 1.0);
        let shallow = scale3(lerp3(look.sky_horizon, look.sky_top, 0.35), 0.85);
        let deep = add3(scale3(look.sky_top, 0.55), [0.0, 0.04, 0.08]);
        let mut col = lerp3(shallow, deep, depth.powf(0.6));
        let wave = ((v - top).max(0.0).sqrt() * 140.0
            + self.noise.fbm(px * 5.0, v * 30.0, self.octaves) * 8.0)
            .sin();
        col = add3(
            col,
            scale3(look.sky_horizon, smoothstep(0.75, 1.0, wave) * 0.18),
        );
        if look.luminary {
            let (sx, _, sr) = self.sun;
            let spread = sr * (1.0 + depth * 4.0);
            let jitter = self.noise2.value(px * 40.0, v * 200.0);
            let beam = smoothstep(spread, spread * 0.3, (px - sx).abs()) * (0.5 + 0.5 * jitter);
            col = add3(col, scale3(look.accent, beam * (1.0 - depth) * 0.7));
        }
        col
    }

    fn sea(&self, mut c: Rgb, x: u32, px: f32, v: f32) -> Rgb {
        let island = self.line(0, x);
        if v > island && v <= self.horizon {
            c = lerp3(
                lerp3(self.look.ground_far, self.look.sky_horizon, 0.5),
                c,
                0.2,
            );
        }
        if v > self.horizon {
            c = self.water(px, v, self.horizon);
        }
        c
    }

    fn lake(&self, c: Rgb, px: f32, v: f32) -> Rgb {
        // A ragged ellipse in the foreground.
        let top = self.horizon + 0.1;
        let cy = (top + 1.0) * 0.5 + 0.08;
        let rx = 0.32 * self.aspect;
        let ry = (1.0 - top) * 0.5 + 0.08;
        let (dx, dy) = ((px - self.aspect * 0.5) / rx, (v - cy) / ry);
        let ragged = 1.0 + 0.3 * (self.noise.fbm(px * 3.0 + 40.0, v * 3.0, self.octaves) - 0.5);
        if (dx * dx + dy * dy).sqrt() < ragged {
            self.water(px, v, top)
        } else {
            c
        }
    }

    fn trees(&self, mut c: Rgb, px: f32, v: f32) -> Rgb {
        if self.trees.is_empty() {
            return c;
        }
        let tree_col = match self.look.light {
            Light::Day => [0.07, 0.26, 0.1],
            Light::Sunset => [0.08, 0.06, 0.08],
            Light::Night => [0.02, 0.03, 0.04],
        };
        let tree_col = lerp3(tree_col, self.look.ground_near, 0.3);
        for t in &self.trees {
            let top = t.base - t.height;
            if v < top || v > t.base + 0.01 {
                continue;
            }
            let dx = px - t.x;
            if v > t.base {
                if dx.abs() < t.height * 0.04 {
                    c = [0.18, 0.11, 0.07];
                }
                continue;
            }
            let half = t.height * t.width * (v - top) / t.height;
            // Three stacked tiers give the pine its saw-tooth outline.
            let tier = ((v - top) / t.height * 3.0).fract();
            let half = half * (0.75 + 0.25 * tier);
            if dx.abs() < half {
                let side = if dx < 0.0 { 0.85 } else { 1.1 };
                c = scale3(tree_col, t.tone * side);
            }
        }
        c
    }

    fn portrait(&self, c: Rgb, px: f32, v: f32) -> Rgb {
        let Some(f) = &self.figure else {
            return c;
        };
        let look = &self.look;
        // A soft studio backdrop with out-of-focus blobs.
        let blob = self.noise.fbm(px * 3.0, v * 3.0, 3);
        let mut col = lerp3(
            lerp3(look.sky_top, look.sky_horizon, v),
            look.ground_far,
            smoothstep(0.55, 0.8, blob) * 0.5,
        );
        let light_x = if self.sun.0 < self.aspect * 0.5 {
            -0.6
        } else {
            0.6
        };
        // Shoulders and clothing.
        let sx = (px - f.cx) / (f.rx * 2.6);
        let sy = (v - (f.hy + f.ry * 3.2)) / (f.ry * 2.0);
        if sx * sx + sy * sy < 1.0 {
            let fold = self.noise.fbm(px * 12.0, v * 4.0, self.octaves);
            col = scale3(f.cloth, 0.7 + 0.4 * fold + 0.15 * light_x * sx.signum());
        }
        // Neck.
        if (px - f.cx).abs() < f.rx * 0.38 && v > f.hy && v < f.hy + f.ry * 1.9 {
            col = scale3(f.skin, 0.72);
        }
        // Hair behind the head.
        let hx = (px - f.cx) / (f.rx * 1.18);
        let hy = (v - (f.hy - f.ry * 0.05)) / (f.ry * 1.12);
        let strands = self.noise2.fbm(px * 40.0, v * 6.0, self.octaves);
        let hair = scale3(f.hair, 0.75 + 0.5 * strands);
        if hx * hx + hy * hy < 1.0 && v < f.hy + f.ry * 0.7 {
            col = hair;
        }
        // Head with Lambert shading from the light's side.
        let nx = (px - f.cx) / f.rx;
        let ny = (v - f.hy) / f.ry;
        let r2 = nx * nx + ny * ny;
        if r2 < 1.0 {
            let nz = (1.0 - r2).sqrt();
            let lambert = (nx * light_x + ny * -0.4 + nz * 0.7).max(0.0);
            let mut skin = scale3(f.skin, 0.5 + 0.55 * lambert);
            let eye = |ex: f32| {
                ((px - ex) / (f.rx * 0.16)).powi(2)
                    + ((v - (f.hy - f.ry * 0.08)) / (f.ry * 0.07)).powi(2)
                    < 1.0
            };
            if eye(f.cx - f.rx * 0.38) || eye(f.cx + f.rx * 0.38) {
                skin = [0.12, 0.1, 0.1];
            }
            let mouth = ((px - f.cx) / (f.rx * 0.3)).powi(2)
                + ((v - (f.hy + f.ry * 0.45)) / (f.ry * 0.05)).powi(2);
            if mouth < 1.0 {
                skin = lerp3(skin, [0.6, 0.2, 0.2], 0.7);
            }
            let cheek = ((nx.abs() - 0.5).powi(2) + (ny - 0.2).powi(2)).sqrt();
            skin = lerp3(skin, [0.9, 0.45, 0.45], smoothstep(0.25, 0.0, cheek) * 0.2);
            // Fringe over the forehead.
            let fringe = -0.55 + 0.1 * (nx * 9.0).sin();
            col = if ny < fringe { hair } else { skin };
        }
        col
    }

    fn abstract_field(&self, px: f32, v: f32) -> Rgb {
        let look = &self.look;
        let q = self.noise.fbm(px * 2.0, v * 2.0, self.octaves);
        let r = self
            .noise2
            .fbm(px * 2.0 + 4.0 * q, v * 2.0 + 4.0 * q, self.octaves);
        let a = lerp3(look.sky_top, look.sky_horizon, smoothstep(0.2, 0.6, r));
        let b = lerp3(a, look.accent, smoothstep(0.55, 0.8, r));
        lerp3(b, look.ground_near, smoothstep(0.3, 0.0, q) * 0.7)
    }

    fn finish(&self, c: Rgb, x: u32, y: u32, u: f32, v: f32) -> Rgb {
        let d2 = (u - 0.5).powi(2) + (v - 0.5).powi(2);
        let c = scale3(c, 1.0 - 0.35 * d2);
        let c = grade(c, self.look.contrast, self.look.saturation);
        let g = (hash2(mix(self.seed ^ 0x6a41), i64::from(x), i64::from(y)) - 0.5) * 0.025;
        let c = suppress_hues(add3(c, [g, g, g]), &self.look.suppressed_hues);
        clamp3(c)
    }
}

fn kf(k: usize) -> f32 {
    k as f32 * 13.7
}

/// Desaturates and turns away colours near hues named in the negative prompt.
pub fn suppress_hues(c: Rgb, hues: &[f32]) -> Rgb {
    if hues.is_empty() {
        return c;
    }
    let mut hsv = rgb_to_hsv(clamp3(c));
    for &h in hues {
        let d = hue_distance(hsv[0], h);
        if d < 55.0 {
            let k = 1.0 - d / 55.0;
            hsv[1] *= 1.0 - 0.9 * k;
            let away = if (hsv[0] - h).rem_euclid(360.0) < 180.0 {
                1.0
            } else {
                -1.0
            };
            hsv[0] += away * 45.0 * k;
        }
    }
    hsv_to_rgb(hsv)
}

/// Paints the plan in `bands` horizontal bands, one ticker step per band.
pub fn render(plan: &Plan, ticker: &mut Ticker, bands: u32) -> Result<Rgbf, EngineError> {
    let (w, h) = (plan.w, plan.h);
    let mut img = Rgbf::new(w, h);
    let bands = bands.clamp(1, h.max(1));
    for band in 0..bands {
        let y0 = (u64::from(h) * u64::from(band) / u64::from(bands)) as u32;
        let y1 = (u64::from(h) * u64::from(band + 1) / u64::from(bands)) as u32;
        for y in y0..y1 {
            for x in 0..w {
                img.set(x, y, plan.shade(x, y));
            }
        }
        ticker.tick()?;
    }
    Ok(img)
}

#[cfg(test)]
mod tests {
    use super::super::prompt::interpret;
    use super::*;

    fn paint(prompt: &str, neg: &str, seed: u64) -> Rgbf {
        let look = interpret(prompt, neg, 7.0);
        let plan = Plan::new(&look, 96, 64, seed, 20);
        Rgbf::from_fn(96, 64, |x, y| plan.shade(x, y))
    }

    fn mean(img: &Rgbf) -> Rgb {
        let n = img.px.len() as f32;
        img.px
            .iter()
            .fold([0.0; 3], |a, c| add3(a, scale3(*c, 1.0 / n)))
    }

    #[test]
    fn every_layout_paints_in_range_and_differs() {
        let prompts = [
            "landscape",
            "mountains",
            "city at night",
            "portrait",
            "ocean sunset",
            "forest",
            "abstract",
        ];
        let imgs: Vec<Rgbf> = prompts.iter().map(|p| paint(p, "", 1)).collect();
        for (i, a) in imgs.iter().enumerate() {
            assert!(a
                .px
                .iter()
                .all(|c| c.iter().all(|v| (0.0..=1.0).contains(v))));
            for b in imgs.iter().skip(i + 1) {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn night_is_darker_than_day_and_red_is_redder() {
        let day = mean(&paint("landscape", "", 3));
        let night = mean(&paint("landscape at night", "", 3));
        assert!(night.iter().sum::<f32>() < day.iter().sum::<f32>() * 0.6);
        let red = mean(&paint("red abstract", "", 3));
        assert!(red[0] > red[2], "{red:?}");
    }

    #[test]
    fn negative_colour_is_removed() {
        let blue = mean(&paint("blue abstract", "", 4));
        let no_blue = mean(&paint("blue abstract", "blue", 4));
        assert!(blue[2] - blue[0] > no_blue[2] - no_blue[0]);
    }
}
