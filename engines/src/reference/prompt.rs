//! Reads a prompt and negative prompt into a [`Look`]: the palette, the
//! composition and the scene features the procedural painter draws. Words of
//! the negative prompt are taken out of the prompt before it is read, and
//! their colours and features are suppressed in the picture.

use super::raster::{hsv_to_rgb, lerp3, Rgb};

/// The composition of the procedural picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Landscape,
    Mountains,
    City,
    Portrait,
    Seascape,
    Forest,
    Abstract,
}

/// Time of day: decides sun, moon, stars and the base palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Light {
    Day,
    Sunset,
    Night,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    pub layout: Layout,
    pub light: Light,
    pub sky_top: Rgb,
    pub sky_horizon: Rgb,
    pub ground_far: Rgb,
    pub ground_near: Rgb,
    /// Sun or moon light and the picture's highlight colour (windows, edges).
    pub accent: Rgb,
    pub clouds: bool,
    /// Sun by day and at sunset, moon at night.
    pub luminary: bool,
    pub stars: bool,
    pub water: bool,
    pub trees: bool,
    pub snow: bool,
    /// Hues (degrees) named in the negative prompt: pixels near them are
    /// desaturated and turned away in the final pass.
    pub suppressed_hues: Vec<f32>,
    /// From `cfg_scale`: how hard the prompt is followed shows as contrast
    /// and saturation (7 is neutral).
    pub contrast: f32,
    pub saturation: f32,
}

/// Colour words: (word, hue, saturation, value).
const COLOURS: &[(&str, f32, f32, f32)] = &[
    ("red", 0.0, 0.85, 0.85),
    ("crimson", 350.0, 0.85, 0.7),
    ("scarlet", 5.0, 0.9, 0.9),
    ("orange", 28.0, 0.9, 0.95),
    ("amber", 40.0, 0.9, 0.9),
    ("gold", 45.0, 0.8, 0.9),
    ("golden", 45.0, 0.8, 0.9),
    ("yellow", 55.0, 0.85, 0.95),
    ("lime", 90.0, 0.8, 0.85),
    ("green", 120.0, 0.7, 0.65),
    ("emerald", 140.0, 0.75, 0.6),
    ("teal", 175.0, 0.7, 0.55),
    ("turquoise", 175.0, 0.65, 0.8),
    ("cyan", 185.0, 0.75, 0.9),
    ("blue", 220.0, 0.8, 0.85),
    ("azure", 210.0, 0.7, 0.95),
    ("navy", 230.0, 0.8, 0.4),
    ("indigo", 255.0, 0.75, 0.5),
    ("purple", 275.0, 0.7, 0.65),
    ("violet", 280.0, 0.6, 0.8),
    ("magenta", 310.0, 0.8, 0.85),
    ("pink", 335.0, 0.45, 0.95),
    ("rose", 345.0, 0.5, 0.9),
    ("brown", 28.0, 0.65, 0.42),
];

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = w.to_lowercase();
            // Plurals read as the singular ("mountains", "trees", "clouds").
            match w.strip_suffix('s') {
                Some(stem) if stem.len() > 2 && !w.ends_with("ss") => stem.to_string(),
                _ => w,
            }
        })
        .collect()
}

fn colour(word: &str) -> Option<(f32, Rgb)> {
    COLOURS
        .iter()
        .find(|(w, ..)| *w == word)
        .map(|(_, h, s, v)| (*h, hsv_to_rgb([*h, *s, *v])))
}

/// Reads a prompt (and what to avoid) into a look.
pub fn interpret(prompt: &str, negative: &str, cfg_scale: f32) -> Look {
    let neg = words(negative);
    let pos: Vec<String> = words(prompt)
        .into_iter()
        .filter(|w| !neg.contains(w))
        .collect();
    let has = |list: &[&str]| pos.iter().any(|w| list.contains(&w.as_str()));
    let avoid = |list: &[&str]| neg.iter().any(|w| list.contains(&w.as_str()));

    let light = if has(&[
        "night",
        "midnight",
        "moon",
        "star",
        "starry",
        "moonlight",
        "dark",
    ]) {
        Light::Night
    } else if has(&["sunset", "sunrise", "dusk", "dawn", "evening", "twilight"]) {
        Light::Sunset
    } else {
        Light::Day
    };
    let layout = if has(&[
        "portrait",
        "face",
        "person",
        "woman",
        "man",
        "girl",
        "boy",
        "character",
        "selfie",
        "people",
    ]) {
        Layout::Portrait
    } else if has(&[
        "city",
        "town",
        "street",
        "skyline",
        "building",
        "urban",
        "cityscape",
    ]) {
        Layout::City
    } else if has(&["mountain", "peak", "alp", "summit", "volcano", "cliff"]) {
        Layout::Mountains
    } else if has(&[
        "ocean", "sea", "beach", "seascape", "coast", "wave", "shore",
    ]) {
        Layout::Seascape
    } else if has(&["forest", "wood", "jungle", "tree", "pine"]) {
        Layout::Forest
    } else if has(&["abstract", "pattern", "texture", "fractal"]) {
        Layout::Abstract
    } else {
        Layout::Landscape
    };

    let (mut sky_top, mut sky_horizon, mut ground_far, mut ground_near, mut accent) = match light {
        Light::Day => (
            [0.20, 0.42, 0.82],
            [0.70, 0.82, 0.95],
            [0.38, 0.56, 0.40],
            [0.22, 0.43, 0.18],
            [1.0, 0.96, 0.82],
        ),
        Light::Sunset => (
            [0.24, 0.16, 0.42],
            [1.0, 0.56, 0.26],
            [0.36, 0.22, 0.30],
            [0.17, 0.10, 0.12],
            [1.0, 0.78, 0.38],
        ),
        Light::Night => (
            [0.02, 0.03, 0.10],
            [0.09, 0.13, 0.30],
            [0.07, 0.09, 0.16],
            [0.03, 0.04, 0.08],
            [0.96, 0.95, 0.86],
        ),
    };
    let dim = |c: Rgb| -> Rgb {
        match light {
            Light::Day => c,
            Light::Sunset => lerp3(c, [0.3, 0.15, 0.2], 0.45),
            Light::Night => lerp3(c, [0.02, 0.03, 0.08], 0.75),
        }
    };
    if has(&["forest", "jungle", "wood", "meadow", "grass", "spring"]) {
        ground_far = dim([0.18, 0.42, 0.22]);
        ground_near = dim([0.08, 0.30, 0.10]);
    }
    if has(&["desert", "sand", "dune", "sahara"]) {
        ground_far = dim([0.86, 0.70, 0.45]);
        ground_near = dim([0.76, 0.56, 0.32]);
        sky_horizon = lerp3(sky_horizon, [0.95, 0.88, 0.75], 0.4);
    }
    let snow = has(&["snow", "winter", "ice", "frozen", "snowy", "glacier"]) && !avoid(&["snow"]);
    if snow {
        ground_far = dim([0.86, 0.90, 0.96]);
        ground_near = dim([0.78, 0.84, 0.92]);
    }
    if has(&["autumn", "fall"]) {
        ground_far = dim([0.72, 0.40, 0.16]);
        ground_near = dim([0.55, 0.25, 0.10]);
    }
    if has(&["ocean", "sea", "beach", "lake", "river", "water"]) && light == Light::Day {
        sky_horizon = lerp3(sky_horizon, [0.75, 0.90, 0.98], 0.5);
    }

    // Colour words tint the palette; the first one is the accent.
    let tints: Vec<Rgb> = pos
        .iter()
        .filter_map(|w| colour(w).map(|(_, c)| c))
        .collect();
    if let Some(first) = tints.first() {
        let last = tints.last().copied().unwrap_or(*first);
        sky_top = lerp3(sky_top, dim(lerp3(*first, [0.0; 3], 0.35)), 0.55);
        sky_horizon = lerp3(sky_horizon, dim(lerp3(*first, [1.0; 3], 0.25)), 0.55);
        ground_far = lerp3(ground_far, dim(last), 0.35);
        ground_near = lerp3(ground_near, dim(lerp3(last, [0.0; 3], 0.3)), 0.35);
        accent = lerp3(accent, *first, 0.6);
    }
    if has(&["white", "bright", "pastel"]) {
        sky_top = lerp3(sky_top, [1.0; 3], 0.3);
        sky_horizon = lerp3(sky_horizon, [1.0; 3], 0.3);
    }
    if has(&["black", "gloomy", "shadow"]) {
        ground_near = lerp3(ground_near, [0.0; 3], 0.5);
        sky_top = lerp3(sky_top, [0.0; 3], 0.4);
    }

    let suppressed_hues: Vec<f32> = neg
        .iter()
        .filter_map(|w| colour(w).map(|(h, _)| h))
        .collect();
    let clouds = !avoid(&["cloud", "cloudy", "sky"]) && !has(&["clear", "cloudless"]);
    let luminary = !avoid(&["sun", "moon", "light"]);
    let stars = light == Light::Night && !avoid(&["star", "starry"]);
    let water = (layout == Layout::Seascape
        || has(&["lake", "river", "water", "pond", "reflection"]))
        && !avoid(&["water", "ocean", "sea", "lake"]);
    let trees =
        (layout == Layout::Forest || has(&["tree", "pine", "wood"])) && !avoid(&["tree", "forest"]);

    let cfg = if cfg_scale.is_finite() && cfg_scale > 0.0 {
        cfg_scale
    } else {
        7.0
    };
    let contrast = (0.8 + cfg / 35.0).clamp(0.8, 1.5);
    let saturation = (0.7 + cfg * 0.043).clamp(0.7, 1.7);

    Look {
        layout,
        light,
        sky_top,
        sky_horizon,
        ground_far,
        ground_near,
        accent,
        clouds,
        luminary,
        stars,
        water,
        trees,
        snow,
        suppressed_hues,
        contrast,
        saturation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_pick_palette_and_composition() {
        let l = interpret("A city at night, neon blue", "", 7.0);
        assert_eq!(l.layout, Layout::City);
        assert_eq!(l.light, Light::Night);
        assert!(l.stars);
        let m = interpret("snowy mountains at sunset", "", 7.0);
        assert_eq!(m.layout, Layout::Mountains);
        assert_eq!(m.light, Light::Sunset);
        assert!(m.snow);
        assert_eq!(
            interpret("portrait of a woman", "", 7.0).layout,
            Layout::Portrait
        );
        assert_eq!(interpret("", "", 7.0).layout, Layout::Landscape);
        let red = interpret("red", "", 7.0);
        assert!(red.accent[0] > red.accent[2]);
    }

    #[test]
    fn negative_words_remove_their_features_and_colours() {
        let l = interpret(
            "a forest at night with trees and clouds",
            "trees, clouds, night, blue",
            7.0,
        );
        assert_eq!(l.light, Light::Day);
        assert!(!l.trees && !l.clouds);
        assert_eq!(l.suppressed_hues, vec![220.0]);
        let s = interpret("sunset", "sun", 7.0);
        assert!(!s.luminary);
    }

    #[test]
    fn cfg_raises_contrast_and_saturation() {
        let lo = interpret("x", "", 2.0);
        let hi = interpret("x", "", 15.0);
        assert!(hi.contrast > lo.contrast && hi.saturation > lo.saturation);
    }
}
