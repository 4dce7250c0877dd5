//! open_nsfw on real pictures: a landscape scores low, a skin-toned synthetic
//! figure higher; bad pictures and a missing model are clear errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod fixtures;

use std::io::Cursor;
use std::path::PathBuf;
use std::sync::OnceLock;

use easel_nsfw::{classify_bytes, decode_rgb, Classifier, DecodeLimits, NsfwError, OpenNsfw};
use image::{GrayImage, ImageFormat, RgbImage};

fn model_path() -> PathBuf {
    std::env::var("EASEL_NSFW_MODEL_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/open-nsfw.onnx")
        })
}

/// The model, loaded once for the file. Fails (never skips) when it is
/// missing: `scripts/test` fetches it first.
fn model() -> &'static OpenNsfw {
    static M: OnceLock<OpenNsfw> = OnceLock::new();
    M.get_or_init(|| OpenNsfw::load(&model_path()).expect("run ./scripts/fetch-model first"))
}

fn png(img: &image::DynamicImage) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png).unwrap();
    out.into_inner()
}

#[test]
fn a_landscape_scores_low_and_a_skin_figure_higher() {
    let safe = model().classify(&fixtures::landscape(640, 480)).unwrap();
    let figure = model().classify(&fixtures::skin_figure(480, 640)).unwrap();
    println!("landscape {safe:?}\nfigure {figure:?}");
    assert!(safe.score < 0.2, "landscape scored {}", safe.score);
    assert!(
        figure.score > safe.score * 5.0 && figure.score > 0.2,
        "figure {} vs landscape {}",
        figure.score,
        safe.score
    );
    for v in [&safe, &figure] {
        // Two labels, the most likely first, summing to one (softmax).
        assert_eq!(v.labels.len(), 2);
        assert!(v.labels[0].score >= v.labels[1].score);
        let sum: f32 = v.labels.iter().map(|l| l.score).sum();
        assert!((sum - 1.0).abs() < 1e-3, "{sum}");
        let nsfw = v.labels.iter().find(|l| l.name == "nsfw").unwrap();
        assert_eq!(nsfw.score, v.score);
    }
}

#[test]
fn the_same_picture_scores_the_same_every_time() {
    let img = fixtures::skin_figure(300, 300);
    let a = model().classify(&img).unwrap();
    let b = model().classify(&img).unwrap();
    assert_eq!(a, b);
}

#[test]
fn encoded_pictures_of_any_colour_type_are_scored() {
    let rgb = fixtures::landscape(200, 150);
    let direct = model().classify(&rgb).unwrap();
    let via_png = classify_bytes(
        model(),
        &png(&image::DynamicImage::ImageRgb8(rgb.clone())),
        DecodeLimits::default(),
    )
    .unwrap();
    assert_eq!(direct, via_png);
    // Grayscale and RGBA pictures become RGB.
    let gray = GrayImage::from_fn(64, 64, |x, y| image::Luma([((x + y) * 2) as u8]));
    let g = classify_bytes(
        model(),
        &png(&image::DynamicImage::ImageLuma8(gray)),
        DecodeLimits::default(),
    )
    .unwrap();
    assert!((0.0..=1.0).contains(&g.score));
    let rgba = image::DynamicImage::ImageRgb8(rgb).to_rgba8();
    let a = classify_bytes(
        model(),
        &png(&image::DynamicImage::ImageRgba8(rgba)),
        DecodeLimits::default(),
    )
    .unwrap();
    assert!((a.score - direct.score).abs() < 1e-6);
    // A 1×1 picture is still a picture.
    let tiny = model().classify(&RgbImage::from_pixel(1, 1, image::Rgb([9, 9, 9])));
    assert!(tiny.is_ok());
}

#[test]
fn bad_pictures_are_clear_errors() {
    let empty = model().classify(&RgbImage::new(0, 0)).unwrap_err();
    assert!(matches!(empty, NsfwError::BadImage(_)), "{empty}");
    let junk = classify_bytes(model(), b"not a picture", DecodeLimits::default()).unwrap_err();
    assert!(matches!(junk, NsfwError::BadImage(_)), "{junk}");
    // Larger than the limits: refused before the pixels are allocated.
    let big = png(&image::DynamicImage::ImageRgb8(RgbImage::new(300, 20)));
    let limits = DecodeLimits {
        max_side: 256,
        max_alloc: 1 << 30,
    };
    let e = decode_rgb(&big, limits).unwrap_err();
    assert!(e.to_string().contains("too large"), "{e}");
    let e = decode_rgb(
        &big,
        DecodeLimits {
            max_side: 8192,
            max_alloc: 1000,
        },
    )
    .unwrap_err();
    assert!(matches!(e, NsfwError::BadImage(_)), "{e}");
}

#[test]
fn a_missing_or_wrong_model_file_is_a_clear_error() {
    let dir = tempdir();
    let missing = dir.join("nope.onnx");
    let e = OpenNsfw::load(&missing).unwrap_err();
    assert!(matches!(e, NsfwError::ModelMissing(_)), "{e}");
    assert!(e.to_string().contains("fetch-model"), "{e}");
    let wrong = dir.join("wrong.onnx");
    std::fs::write(&wrong, b"not a model").unwrap();
    let e = OpenNsfw::load(&wrong).unwrap_err();
    assert!(e.to_string().contains("SHA-256"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("easel-nsfw-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
