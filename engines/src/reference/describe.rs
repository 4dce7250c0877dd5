//! Image-to-text without a model: an English description built from colour
//! and layout statistics — the dominant colours (named from HSV rules),
//! brightness, contrast, orientation, where the second colour, the bright
//! mass and the colourful mass sit, and whether the picture looks like sky
//! over ground.

use protocol::task::InputRole;

use super::raster::{luma, rgb_to_hsv, thumbnail, Rgb, Rgbf};
use super::{decode, Outcome, Ticker};
use crate::{EngineError, LoadedInput};

/// Names a colour. Greys by value when unsaturated; otherwise by hue, with
/// dark and light variants.
pub fn colour_name(c: Rgb) -> &'static str {
    let [h, s, v] = rgb_to_hsv(c);
    if v < 0.16 {
        return "black";
    }
    if s < 0.18 || (s < 0.3 && v < 0.3) {
        return match v {
            v if v > 0.86 => "white",
            v if v > 0.62 => "light grey",
            v if v > 0.35 => "grey",
            _ => "dark grey",
        };
    }
    let dark = v < 0.45;
    let pale = s < 0.4 && v > 0.75;
    match h {
        h if !(15.0..345.0).contains(&h) => {
            if pale {
                "pink"
            } else if dark {
                "dark red"
            } else {
                "red"
            }
        }
        h if h < 40.0 => {
            if dark || (v < 0.65 && s > 0.4) {
                "brown"
            } else if pale {
                "beige"
            } else {
                "orange"
            }
        }
        h if h < 68.0 => {
            if dark {
                "olive"
            } else if pale {
                "cream"
            } else {
                "yellow"
            }
        }
        h if h < 160.0 => {
            if dark {
                "dark green"
            } else if pale {
                "pale green"
            } else {
                "green"
            }
        }
        h if h < 195.0 => {
            if dark {
                "teal"
            } else {
                "cyan"
            }
        }
        h if h < 255.0 => {
            if dark {
                "deep blue"
            } else if pale || h < 210.0 {
                "sky blue"
            } else {
                "blue"
            }
        }
        h if h < 290.0 => {
            if pale {
                "lavender"
            } else {
                "purple"
            }
        }
        _ => {
            if pale || v > 0.8 && s < 0.6 {
                "pink"
            } else {
                "magenta"
            }
        }
    }
}

/// A 3x3 region name for a point in unit coordinates.
fn region(u: f32, v: f32) -> &'static str {
    let col = if u < 0.36 {
        0
    } else if u < 0.64 {
        1
    } else {
        2
    };
    let row = if v < 0.36 {
        0
    } else if v < 0.64 {
        1
    } else {
        2
    };
    match (row, col) {
        (0, 0) => "upper left",
        (0, 1) => "top",
        (0, 2) => "upper right",
        (1, 0) => "left",
        (1, 1) => "centre",
        (1, 2) => "right",
        (2, 0) => "lower left",
        (2, 1) => "bottom",
        _ => "lower right",
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Describes one image.
pub fn describe(img: &Rgbf, full_w: u32, full_h: u32) -> String {
    let (w, h) = (img.w.max(1), img.h.max(1));
    let n = img.px.len().max(1) as f32;
    let lum: Vec<f32> = img.px.iter().map(|c| luma(*c)).collect();
    let mean = lum.iter().sum::<f32>() / n;
    let sd = (lum.iter().map(|l| (l - mean).powi(2)).sum::<f32>() / n).sqrt();

    // Colour histogram over the named colours, in first-seen order so ties
    // break the same way every time.
    let mut names: Vec<(&'static str, usize, f32, f32)> = Vec::new();
    for (i, c) in img.px.iter().enumerate() {
        let name = colour_name(*c);
        let (x, y) = ((i % w as usize) as f32, (i / w as usize) as f32);
        match names.iter_mut().find(|e| e.0 == name) {
            Some(e) => {
                e.1 += 1;
                e.2 += x;
                e.3 += y;
            }
            None => names.push((name, 1, x, y)),
        }
    }
    names.sort_by_key(|e| std::cmp::Reverse(e.1));

    let brightness = match mean {
        m if m < 0.2 => "dark",
        m if m < 0.4 => "dim",
        m if m < 0.62 => "moderately lit",
        m if m < 0.8 => "bright",
        _ => "very bright",
    };
    let ratio = full_w as f32 / full_h.max(1) as f32;
    let orientation = if ratio > 1.1 {
        "landscape-format"
    } else if ratio < 0.9 {
        "portrait-format"
    } else {
        "square"
    };
    let contrast = match sd {
        s if s < 0.08 => "low contrast",
        s if s < 0.2 => "moderate contrast",
        _ => "high contrast",
    };

    let mut text = format!("{} {brightness} {orientation} picture", article(brightness));
    if let Some((first, count, _, _)) = names.first() {
        let share = *count as f32 / n;
        let lead = if share > 0.6 {
            "mostly"
        } else if share > 0.35 {
            "largely"
        } else {
            "partly"
        };
        text.push_str(&format!(", {lead} {first}"));
        if let Some((second, c2, sx, sy)) = names.get(1) {
            if *c2 as f32 / n > 0.05 {
                let (u, v) = (sx / *c2 as f32 / w as f32, sy / *c2 as f32 / h as f32);
                text.push_str(&format!(
                    " with {} {second} area in the {}",
                    article(second),
                    region(u, v)
                ));
            }
        }
    }
    text.push_str(&format!(", {contrast}"));

    // Where the light and the colour concentrate (weighted centroids).
    let centroid = |weight: &dyn Fn(usize, &Rgb) -> f32| -> Option<(f32, f32, f32)> {
        let mut sum = 0.0;
        let (mut sx, mut sy) = (0.0, 0.0);
        for (i, c) in img.px.iter().enumerate() {
            let wgt = weight(i, c);
            sum += wgt;
            sx += wgt * ((i % w as usize) as f32 + 0.5);
            sy += wgt * ((i / w as usize) as f32 + 0.5);
        }
        (sum > 1e-3).then(|| (sx / sum / w as f32, sy / sum / h as f32, sum / n))
    };
    let mut clauses: Vec<String> = Vec::new();
    let bright = centroid(&|i, _| {
        let l = lum.get(i).copied().unwrap_or(0.0);
        (l - mean - 0.5 * sd).max(0.0)
    });
    if sd > 0.08 {
        if let Some((u, v, _)) = bright {
            clauses.push(format!("the brightest part is in the {}", region(u, v)));
        }
    }
    // The most colourful area: the pixels in the top tenth by chroma.
    let chroma: Vec<f32> = img
        .px
        .iter()
        .map(|c| {
            let [_, s, v] = rgb_to_hsv(*c);
            s * v
        })
        .collect();
    let mut sorted = chroma.clone();
    sorted.sort_by(f32::total_cmp);
    let p90 = sorted
        .get(sorted.len() * 9 / 10)
        .copied()
        .unwrap_or(1.0)
        .max(0.25);
    // Strictly above the percentile when anything is (a large flat area at
    // the percentile is not "the most colourful").
    let strict = sorted.last().is_some_and(|m| *m > p90);
    let colourful = centroid(&|i, _| {
        let c = chroma.get(i).copied().unwrap_or(0.0);
        if c > p90 || (!strict && c >= p90) {
            1.0
        } else {
            0.0
        }
    });
    if let Some((u, v, share)) = colourful {
        if share < 0.5 {
            clauses.push(format!(
                "the most colourful area is in the {}",
                region(u, v)
            ));
        }
    }

    if !clauses.is_empty() {
        text.push_str("; ");
        text.push_str(&clauses.join(" and "));
    }

    // Sky over ground: the top third brighter and bluer than the bottom third.
    let band_mean = |y0: u32, y1: u32| -> Rgb {
        let mut acc = [0.0f32; 3];
        let mut k = 0.0;
        for y in y0..y1 {
            for x in 0..w {
                let c = img.at(i64::from(x), i64::from(y));
                for (a, b) in acc.iter_mut().zip(c) {
                    *a += b;
                }
                k += 1.0;
            }
        }
        acc.map(|a| a / f32::max(k, 1.0))
    };
    let top = band_mean(0, h / 3);
    let bottom = band_mean(h - h / 3, h);
    let blue_top = top[2] > top[0] && top[2] >= top[1] * 0.9;
    if h >= 6 && luma(top) > luma(bottom) + 0.08 && blue_top {
        text.push_str("; it looks like an outdoor scene with sky above ground");
    }
    text
}

/// Describes one encoded image (PNG, JPEG or GIF) in a sentence, for callers
/// outside the engine, such as the generation agent reading an attachment.
/// CPU-bound: call it from a blocking thread.
pub fn describe_image(bytes: &[u8]) -> Result<String, EngineError> {
    let decoded = decode(bytes, "image")?;
    let (w, h) = decoded.img.dimensions();
    let small = Rgbf::from_rgba(&thumbnail(&decoded.img, 128));
    Ok(describe(&small, w, h))
}

pub fn describe_inputs(inputs: &[LoadedInput], t: &mut Ticker) -> Result<Outcome, EngineError> {
    let inits: Vec<&LoadedInput> = inputs
        .iter()
        .filter(|i| i.role == InputRole::Init)
        .collect();
    if inits.is_empty() {
        return Err(EngineError::BadInput("the init image is missing".into()));
    }
    t.plan(2 * inits.len() as u64);
    let mut texts = Vec::with_capacity(inits.len());
    for input in inits {
        let decoded = decode(&input.bytes, "init")?;
        t.tick()?;
        let (w, h) = decoded.img.dimensions();
        let small = Rgbf::from_rgba(&thumbnail(&decoded.img, 128));
        texts.push(describe(&small, w, h));
        t.tick()?;
    }
    Ok(Outcome {
        outputs: Vec::new(),
        texts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_names() {
        assert_eq!(colour_name([1.0, 0.0, 0.0]), "red");
        assert_eq!(colour_name([0.0, 0.0, 0.3]), "deep blue");
        assert_eq!(colour_name([0.1, 0.3, 0.9]), "blue");
        assert_eq!(colour_name([1.0, 0.55, 0.0]), "orange");
        assert_eq!(colour_name([0.0, 0.7, 0.1]), "green");
        assert_eq!(colour_name([0.5, 0.5, 0.5]), "grey");
        assert_eq!(colour_name([0.02, 0.02, 0.02]), "black");
        assert_eq!(colour_name([0.98, 0.98, 0.98]), "white");
        assert_eq!(colour_name([0.95, 0.9, 0.1]), "yellow");
        assert_eq!(colour_name([0.5, 0.3, 0.1]), "brown");
    }

    #[test]
    fn a_sky_over_grass_with_a_sun() {
        let img = Rgbf::from_fn(90, 60, |x, y| {
            if ((x as f32 - 75.0).powi(2) + (y as f32 - 10.0).powi(2)).sqrt() < 6.0 {
                [1.0, 0.6, 0.1]
            } else if y < 35 {
                [0.3, 0.55, 0.95]
            } else {
                [0.1, 0.45, 0.1]
            }
        });
        let d = describe(&img, 90, 60);
        assert!(
            d.starts_with("a moderately lit landscape-format picture, largely blue"),
            "{d}"
        );
        assert!(d.contains("green area in the bottom"), "{d}");
        assert!(d.contains("sky above ground"), "{d}");
        assert!(
            d.contains("most colourful area is in the upper right"),
            "{d}"
        );
    }

    #[test]
    fn dark_portrait_with_low_contrast() {
        let img = Rgbf::from_fn(40, 80, |_, _| [0.05, 0.05, 0.06]);
        let d = describe(&img, 40, 80);
        assert!(
            d.starts_with("a dark portrait-format picture, mostly black"),
            "{d}"
        );
        assert!(d.contains("low contrast"), "{d}");
        assert!(!d.contains("sky"), "{d}");
    }
}
