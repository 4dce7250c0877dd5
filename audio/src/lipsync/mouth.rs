//! The mouth on the picture: its place from a face box (anthropometric
//! proportions), tracked from frame to frame, and the warp that draws a
//! pose on a frame: the jaw and lower lip pulled down by a smooth
//! displacement field, the opening darkened (a hint of upper teeth when it
//! is wide), the lips spread or rounded, every edge feathered.

use super::drive::MouthPose;
use crate::face::FaceBox;

/// Where the mouth is, in the frame's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mouth {
    /// Centre of the lips' meeting line.
    pub cx: f32,
    pub cy: f32,
    /// Mouth width and height at rest.
    pub w: f32,
    pub h: f32,
    /// The chin's bottom.
    pub chin: f32,
}

impl Mouth {
    /// The mouth of a face box: centre at 0.74 of the box's height, width
    /// 0.42 of its width, height 0.14 of its height (a frontal face's
    /// proportions as the SeetaFace box frames it).
    pub fn of_face(f: &FaceBox) -> Mouth {
        let (x, y, w, h) = (f.x as f32, f.y as f32, f.width as f32, f.height as f32);
        Mouth {
            cx: x + 0.5 * w,
            cy: y + 0.74 * h,
            w: 0.42 * w,
            h: 0.14 * h,
            chin: y + 1.04 * h,
        }
    }

    /// The mean colour of the cheeks beside and above the mouth.
    pub fn skin(&self, src: &[u8], fw: usize, fh: usize) -> [f32; 3] {
        let (mut sum, mut n) = ([0.0f32; 3], 0usize);
        let half = (0.22 * self.w).max(1.0);
        for side in [-1.0f32, 1.0] {
            let (px, py) = (self.cx + side * 0.6 * self.w, self.cy - 1.0 * self.h);
            let x0 = (px - half).max(0.0) as usize;
            let x1 = ((px + half).max(0.0) as usize).min(fw);
            let y0 = (py - half).max(0.0) as usize;
            let y1 = ((py + half).max(0.0) as usize).min(fh);
            for y in y0..y1 {
                for x in x0..x1 {
                    for (c, acc) in sum.iter_mut().enumerate() {
                        *acc += f32::from(src.get((y * fw + x) * 3 + c).copied().unwrap_or(0));
                    }
                    n += 1;
                }
            }
        }
        if n == 0 {
            return [150.0, 110.0, 100.0];
        }
        sum.map(|v| v / n as f32)
    }

    /// The rectangle the warp may touch (x0, y0, x1, y1), inclusive-exclusive.
    pub fn region(&self, fw: u32, fh: u32) -> (usize, usize, usize, usize) {
        let x0 = (self.cx - 0.9 * self.w).floor().max(0.0) as usize;
        let x1 = ((self.cx + 0.9 * self.w).ceil().max(0.0) as usize).min(fw as usize);
        let y0 = (self.cy - 1.4 * self.h).floor().max(0.0) as usize;
        let y1 = ((self.chin + 0.6 * self.h).ceil().max(0.0) as usize).min(fh as usize);
        (x0, y0, x1.max(x0), y1.max(y0))
    }
}

/// Follows one face across frames: new detections near the tracked face
/// move it smoothly; others (another face) and misses leave it in place.
#[derive(Debug, Clone)]
pub struct Tracker {
    face: FaceBox,
}

impl Tracker {
    pub fn new(face: FaceBox) -> Tracker {
        Tracker { face }
    }

    pub fn face(&self) -> FaceBox {
        self.face
    }

    /// Takes the faces detected in a frame.
    pub fn update(&mut self, found: &[FaceBox]) {
        let best = found
            .iter()
            .map(|f| (f.iou(&self.face), f))
            .filter(|(iou, _)| *iou > 0.2)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, f)) = best {
            let k = 0.5;
            let mix = |a: f32, b: f32| a + (b - a) * k;
            self.face = FaceBox {
                x: mix(self.face.x as f32, f.x as f32).round() as i32,
                y: mix(self.face.y as f32, f.y as f32).round() as i32,
                width: mix(self.face.width as f32, f.width as f32).round() as u32,
                height: mix(self.face.height as f32, f.height as f32).round() as u32,
                score: f.score,
            };
        }
    }
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A raised-cosine bump: 1 at 0, 0 from |u| >= 1.
fn bump(u: f32) -> f32 {
    if u.abs() >= 1.0 {
        0.0
    } else {
        0.5 * (1.0 + (std::f32::consts::PI * u).cos())
    }
}

/// Bilinear sample of an RGB frame at (x, y), clamped to the frame.
fn sample(src: &[u8], w: usize, h: usize, x: f32, y: f32) -> [f32; 3] {
    let x = x.clamp(0.0, (w - 1) as f32);
    let y = y.clamp(0.0, (h - 1) as f32);
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let px = |xx: usize, yy: usize, c: usize| -> f32 {
        f32::from(src.get((yy * w + xx) * 3 + c).copied().unwrap_or(0))
    };
    let mut out = [0.0; 3];
    for (c, o) in out.iter_mut().enumerate() {
        let top = px(x0, y0, c) * (1.0 - fx) + px(x1, y0, c) * fx;
        let bot = px(x0, y1, c) * (1.0 - fx) + px(x1, y1, c) * fx;
        *o = top * (1.0 - fy) + bot * fy;
    }
    out
}

/// Draws `pose` on `src` into `dst` (both `w * h * 3` RGB; `dst` must
/// start as a copy of `src`: only the mouth's region is rewritten).
pub fn warp(src: &[u8], dst: &mut [u8], w: u32, h: u32, m: &Mouth, pose: MouthPose) {
    let (fw, fh) = (w as usize, h as usize);
    if fw < 2 || fh < 2 || src.len() != fw * fh * 3 || dst.len() != src.len() {
        return;
    }
    let open = pose.open.clamp(0.0, 1.0);
    let width = pose.width.clamp(0.6, 1.4);
    if open < 0.005 && (width - 1.0).abs() < 0.005 {
        return;
    }
    // How far the jaw drops, and the opening between the lips.
    let drop = open * 1.0 * m.h;
    let lower = (m.chin - m.cy).max(m.h);
    let (x0, y0, x1, y1) = m.region(w, h);
    // Inner mouth: an ellipse in the opening.
    let rx = 0.5 * m.w * width * 0.82;
    let ry = 0.5 * drop;
    let icy = m.cy + 0.5 * drop;
    // The inner mouth is a darkened skin colour (reddish on a colour
    // picture, grey on a black-and-white one); teeth a light tint of it.
    let skin = m.skin(src, fw, fh);
    let luma = 0.299 * skin[0] + 0.587 * skin[1] + 0.114 * skin[2];
    let light = (luma * 1.3 + 50.0).min(235.0);
    let tooth = [
        0.25 * skin[0] + 0.75 * light,
        0.25 * skin[1] + 0.75 * light,
        0.25 * skin[2] + 0.72 * light,
    ];
    for y in y0..y1 {
        let yf = y as f32;
        // Vertical profile of the jaw's displacement: opens from the lip
        // line, full down to past the lower lip, eased out over the chin.
        let dy_profile = if yf < m.cy {
            // The upper lip lifts a little.
            -0.12 * drop * bump((yf - m.cy) / (0.9 * m.h))
        } else {
            let ramp = smoothstep(m.cy - 0.5, m.cy + drop.max(1.0), yf);
            let fade = 1.0 - smoothstep(m.cy + 0.55 * lower, m.chin + 0.6 * m.h, yf);
            drop * ramp.min(fade)
        };
        let vy = bump((yf - m.cy) / (1.3 * m.h + drop));
        for x in x0..x1 {
            let xf = x as f32;
            let jaw_h = bump((xf - m.cx) / (0.9 * m.w));
            let dy = dy_profile * jaw_h;
            // Spread or round: scale about the centre, near the lips only.
            let lips_h = bump((xf - m.cx) / (0.85 * m.w));
            let k = lips_h * vy;
            let sx = m.cx + (xf - m.cx) / (1.0 + (width - 1.0) * k);
            let sy = yf - dy;
            let mut px = sample(src, fw, fh, sx, sy);
            if ry > 0.5 {
                let ex = (xf - m.cx) / rx.max(1.0);
                let ey = (yf - icy) / ry;
                let d = (ex * ex + ey * ey).sqrt();
                // Feathered edge: full inside 0.75, none past 1.
                let a = 1.0 - smoothstep(0.75, 1.0, d);
                if a > 0.0 {
                    // Darker towards the middle of the opening.
                    let depth = (open * 1.6).min(0.95);
                    let shade = 0.14 + 0.22 * d;
                    // Upper teeth: a lighter band at the top of a wide opening.
                    let teeth = if open > 0.35 && ey < -0.45 && ex.abs() < 0.7 {
                        0.5 * smoothstep(0.35, 0.7, open)
                    } else {
                        0.0
                    };
                    for c in 0..3 {
                        let sk = skin.get(c).copied().unwrap_or(0.0);
                        let col = sk * shade * (1.0 - teeth)
                            + tooth.get(c).copied().unwrap_or(0.0) * teeth;
                        if let Some(p) = px.get_mut(c) {
                            *p += (col - *p) * a * depth;
                        }
                    }
                }
            }
            let at = (y * fw + x) * 3;
            if let Some(out) = dst.get_mut(at..at + 3) {
                for (o, v) in out.iter_mut().zip(px) {
                    *o = v.round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    fn face() -> FaceBox {
        FaceBox {
            x: 40,
            y: 30,
            width: 100,
            height: 100,
            score: 5.0,
        }
    }

    fn textured(w: usize, h: usize) -> Vec<u8> {
        (0..w * h * 3)
            .map(|i| ((i / 3 % w) * 7 + (i / 3 / w) * 13) as u8)
            .collect()
    }

    fn diff(a: &[u8], b: &[u8], w: usize, r: (usize, usize, usize, usize), inside: bool) -> f64 {
        let (mut sum, mut n) = (0.0, 0usize);
        for y in 0..a.len() / 3 / w {
            for x in 0..w {
                let inr = x >= r.0 && x < r.2 && y >= r.1 && y < r.3;
                if inr == inside {
                    for c in 0..3 {
                        let i = (y * w + x) * 3 + c;
                        sum += (f64::from(a[i]) - f64::from(b[i])).abs();
                        n += 1;
                    }
                }
            }
        }
        sum / n.max(1) as f64
    }

    #[test]
    fn an_open_mouth_changes_only_its_region_and_rest_changes_nothing() {
        let (w, h) = (200usize, 180usize);
        let src = textured(w, h);
        let m = Mouth::of_face(&face());
        let r = m.region(w as u32, h as u32);
        let mut open = src.clone();
        warp(
            &src,
            &mut open,
            w as u32,
            h as u32,
            &m,
            MouthPose {
                open: 1.0,
                width: 1.0,
            },
        );
        assert!(diff(&src, &open, w, r, true) > 10.0);
        assert_eq!(diff(&src, &open, w, r, false), 0.0);
        let mut rest = src.clone();
        warp(
            &src,
            &mut rest,
            w as u32,
            h as u32,
            &m,
            MouthPose {
                open: 0.0,
                width: 1.0,
            },
        );
        assert_eq!(rest, src);
        let mut round = src.clone();
        warp(
            &src,
            &mut round,
            w as u32,
            h as u32,
            &m,
            MouthPose {
                open: 0.0,
                width: 0.8,
            },
        );
        assert!(diff(&src, &round, w, r, true) > 0.5);
    }

    #[test]
    fn the_tracker_follows_its_face_and_ignores_others() {
        let mut t = Tracker::new(face());
        let moved = FaceBox { x: 50, ..face() };
        let other = FaceBox { x: 400, ..face() };
        t.update(&[other]);
        assert_eq!(t.face().x, 40);
        t.update(&[other, moved]);
        assert_eq!(t.face().x, 45);
        t.update(&[]);
        assert_eq!(t.face().x, 45);
    }
}
