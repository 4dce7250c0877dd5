//! The reference engine's per-action rules through its public `Engine`
//! interface: masks, denoising strength, margins, matting, descriptions,
//! upscaling, conditions, variations, faces, animation and input limits.

// Helpers outside `#[test]` functions unwrap too; a failure is a test failure.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Cursor;

use common::reference_kit::*;
use easel_engines::{EngineError, LoadedInput};
use image::{AnimationDecoder, Rgba, RgbaImage};
use protocol::task::job::ControlSpec;
use protocol::task::{Action, InputRole};

#[tokio::test]
async fn masked_image_to_image_keeps_the_opaque_area_exactly() {
    let init = scene(64, 48);
    // Left half opaque (kept), right half transparent (painted: regenerated).
    let mask = RgbaImage::from_fn(64, 48, |x, _| {
        Rgba([255, 255, 255, if x < 32 { 255 } else { 0 }])
    });
    let mut j = job(Action::ImageToImage);
    j.denoising_strength = 0.8;
    let r = run(
        &j,
        vec![input(InputRole::Init, &init), input(InputRole::Mask, &mask)],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    for y in 0..48 {
        for x in 0..32 {
            assert_eq!(
                out.get_pixel(x, y),
                init.get_pixel(x, y),
                "kept pixel ({x},{y})"
            );
        }
    }
    let changed = (0..48)
        .flat_map(|y| (34..64).map(move |x| (x, y)))
        .filter(|&(x, y)| out.get_pixel(x, y) != init.get_pixel(x, y))
        .count();
    assert!(
        changed > 30 * 48 * 9 / 10,
        "painted area regenerated: {changed}"
    );

    // A mask of another size is resized to the output.
    let small = RgbaImage::from_fn(16, 12, |x, _| Rgba([0, 0, 0, if x < 8 { 255 } else { 0 }]));
    let r = run(
        &j,
        vec![
            input(InputRole::Init, &init),
            input(InputRole::Mask, &small),
        ],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.get_pixel(5, 20), init.get_pixel(5, 20));
    assert_ne!(out.get_pixel(60, 5), init.get_pixel(60, 5));
}

#[tokio::test]
async fn image_to_image_moves_with_denoising_strength() {
    let init = scene(64, 48);
    let diff = |d: f32| {
        let init = init.clone();
        async move {
            let mut j = job(Action::ImageToImage);
            j.denoising_strength = d;
            let r = run(&j, vec![input(InputRole::Init, &init)]).await.unwrap();
            let out = decode(&r.outputs[0].bytes).to_rgba8();
            out.pixels()
                .zip(init.pixels())
                .map(|(a, b)| {
                    (0..3)
                        .map(|c| (i32::from(a.0[c]) - i32::from(b.0[c])).unsigned_abs())
                        .sum::<u32>()
                })
                .sum::<u32>()
        }
    };
    let (none, some, most) = (diff(0.0).await, diff(0.3).await, diff(0.9).await);
    assert_eq!(none, 0);
    assert!(some > 0 && most > some * 2, "{none} {some} {most}");
}

#[tokio::test]
async fn expansion_keeps_the_original_at_its_margins() {
    let init = scene(40, 30);
    let mut j = job(Action::Expansion);
    (j.width, j.height) = (72, 50);
    (j.left_margin, j.up_margin) = (20, 9);
    let r = run(&j, vec![input(InputRole::Init, &init)]).await.unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.dimensions(), (72, 50));
    for y in 0..30 {
        for x in 0..40 {
            assert_eq!(out.get_pixel(x + 20, y + 9), init.get_pixel(x, y));
        }
    }
    // Near the source the fill continues its edge colours; far away it is generated.
    let near = out.get_pixel(19, 20);
    let edge = init.get_pixel(0, 11);
    let d: i32 = (0..3)
        .map(|c| (i32::from(near.0[c]) - i32::from(edge.0[c])).abs())
        .sum();
    assert!(d < 90, "fill continues the edge: {near:?} vs {edge:?}");

    // A source larger than the canvas is clipped, not refused.
    (j.width, j.height, j.left_margin, j.up_margin) = (30, 20, 5, 5);
    let r = run(&j, vec![input(InputRole::Init, &init)]).await.unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.get_pixel(29, 19), init.get_pixel(24, 14));
}

#[tokio::test]
async fn remove_background_cuts_out_the_subject() {
    let img = RgbaImage::from_fn(64, 64, |x, y| {
        let d = ((x as f32 - 32.0).powi(2) + (y as f32 - 34.0).powi(2)).sqrt();
        if d < 16.0 {
            Rgba([200, 50, 40, 255])
        } else {
            // A light, slightly graded studio backdrop.
            Rgba([235 - (y / 8) as u8, 238 - (y / 8) as u8, 240, 255])
        }
    });
    let r = run(
        &job(Action::RemoveBackground),
        vec![input(InputRole::Init, &img)],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes);
    assert!(out.color().has_alpha());
    let out = out.to_rgba8();
    assert_eq!(out.dimensions(), (64, 64));
    for i in 0..64 {
        for (x, y) in [(i, 0), (i, 63), (0, i), (63, i)] {
            assert_eq!(out.get_pixel(x, y).0[3], 0, "border ({x},{y})");
        }
    }
    assert_eq!(out.get_pixel(32, 34).0[3], 255);
    assert_eq!(out.get_pixel(24, 34).0[3], 255);
    assert_eq!(out.get_pixel(5, 5).0[3], 0);
}

#[tokio::test]
async fn descriptors_name_the_dominant_colour() {
    let red = RgbaImage::from_fn(120, 80, |x, y| {
        if x > 90 && y < 25 {
            Rgba([250, 250, 250, 255])
        } else {
            Rgba([210, 25, 20, 255])
        }
    });
    let blue = RgbaImage::from_pixel(50, 90, Rgba([15, 30, 140, 255]));
    let r = run(
        &job(Action::Descriptors),
        vec![input(InputRole::Init, &red), input(InputRole::Init, &blue)],
    )
    .await
    .unwrap();
    assert!(r.outputs.is_empty());
    assert_eq!(r.texts.len(), 2);
    assert!(r.texts[0].contains("mostly red"), "{}", r.texts[0]);
    assert!(r.texts[0].contains("landscape-format"), "{}", r.texts[0]);
    assert!(
        r.texts[0].contains("white area in the upper right"),
        "{}",
        r.texts[0]
    );
    assert!(r.texts[1].contains("blue"), "{}", r.texts[1]);
    assert!(r.texts[1].contains("portrait-format"), "{}", r.texts[1]);
    assert!(r.texts[1].contains("low contrast"), "{}", r.texts[1]);
}

#[tokio::test]
async fn upscale_gives_exactly_the_requested_size() {
    for (w, h) in [(100, 75), (81, 61), (40, 30), (20, 15)] {
        let mut j = job(Action::Upscale);
        (j.width, j.height) = (w, h);
        let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))])
            .await
            .unwrap();
        assert_eq!(decode(&r.outputs[0].bytes).to_rgba8().dimensions(), (w, h));
    }
    // Width and height left at 0: the ratio decides.
    let mut j = job(Action::ExtraUpscale);
    (j.width, j.height, j.upscale_ratio) = (0, 0, 1.5);
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))])
        .await
        .unwrap();
    assert_eq!((r.outputs[0].width, r.outputs[0].height), (60, 45));
}

#[tokio::test]
async fn condition_to_image_follows_the_condition_edges() {
    let square = RgbaImage::from_fn(64, 48, |x, y| {
        if (16..48).contains(&x) && (12..36).contains(&y) {
            Rgba([255, 255, 255, 255])
        } else {
            Rgba([0, 0, 0, 255])
        }
    });
    let mut c = job(Action::ConditionToImage);
    c.control = Some(ControlSpec {
        module: "canny".into(),
        weight: 1.0,
        guidance_end: 1.0,
    });
    let with = decode(
        &run(&c, vec![input(InputRole::Condition, &square)])
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_rgb8();
    let plain = decode(
        &run(&job(Action::TextToImage), Vec::new())
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_rgb8();
    let diff = |x: u32, y: u32| -> i32 {
        (0..3)
            .map(|k| {
                (i32::from(with.get_pixel(x, y).0[k]) - i32::from(plain.get_pixel(x, y).0[k])).abs()
            })
            .sum()
    };
    let on_edge: i32 = (18..46).map(|x| diff(x, 12) + diff(x, 35)).sum();
    let off_edge: i32 = (18..46).map(|x| diff(x, 24) + diff(x, 2)).sum();
    assert!(
        on_edge > off_edge * 2,
        "edges drawn: {on_edge} vs {off_edge}"
    );

    // The preview shows the edge map itself.
    let mut p = job(Action::Preview);
    p.control = c.control.clone();
    let map = decode(
        &run(&p, vec![input(InputRole::Condition, &square)])
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_luma8();
    assert_eq!(map.dimensions(), (64, 48));
    assert_eq!(map.get_pixel(32, 24).0[0], 0);
    assert!((10..20).any(|x| map.get_pixel(x, 24).0[0] == 255));
    p.control = Some(ControlSpec {
        module: "depth".into(),
        weight: 1.0,
        guidance_end: 1.0,
    });
    let depth = decode(
        &run(&p, vec![input(InputRole::Condition, &square)])
            .await
            .unwrap()
            .outputs[0]
            .bytes,
    )
    .to_luma8();
    assert!(depth.get_pixel(32, 24).0[0] > depth.get_pixel(2, 2).0[0]);
}

#[tokio::test]
async fn variations_stay_close_to_their_source() {
    let src = scene(64, 48);
    let mut j = job(Action::Variation);
    j.n_iter = 3;
    let r = run(&j, vec![input(InputRole::Init, &src)]).await.unwrap();
    let inverse = RgbaImage::from_fn(64, 48, |x, y| {
        let p = src.get_pixel(x, y).0;
        Rgba([255 - p[0], 255 - p[1], 255 - p[2], 255])
    });
    let distance = |a: &RgbaImage, b: &RgbaImage| -> u64 {
        a.pixels()
            .zip(b.pixels())
            .map(|(p, q)| {
                (0..3)
                    .map(|c| u64::from(p.0[c].abs_diff(q.0[c])))
                    .sum::<u64>()
            })
            .sum()
    };
    for o in &r.outputs {
        let v = decode(&o.bytes).to_rgba8();
        assert_ne!(v, src);
        assert!(distance(&v, &src) * 3 < distance(&v, &inverse));
    }
    // Width and height 0: the init's size.
    (j.width, j.height, j.n_iter) = (0, 0, 1);
    let r = run(&j, vec![input(InputRole::Init, &src)]).await.unwrap();
    assert_eq!((r.outputs[0].width, r.outputs[0].height), (64, 48));
}

#[tokio::test]
async fn face_swap_and_repair_work_on_the_face() {
    let source = face(80, 80, [235, 185, 150]);
    let target = face(64, 96, [150, 100, 70]);
    let mut j = job(Action::FaceSwap);
    j.face_strength = 1.0;
    let r = run(
        &j,
        vec![
            input(InputRole::FaceSource, &source),
            input(InputRole::FaceTarget, &target),
        ],
    )
    .await
    .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.dimensions(), (64, 96));
    // Outside the face nothing moves; inside the face it does.
    assert_eq!(out.get_pixel(1, 1), target.get_pixel(1, 1));
    assert_eq!(out.get_pixel(62, 94), target.get_pixel(62, 94));
    let inside = (26..38)
        .filter(|&x| out.get_pixel(x, 43) != target.get_pixel(x, 43))
        .count();
    assert!(inside > 6, "{inside}");

    let missing = run(&j, vec![input(InputRole::FaceTarget, &target)]).await;
    assert!(matches!(missing, Err(EngineError::BadInput(_))));

    let mut rep = job(Action::CharacterRepair);
    rep.face_strength = 0.9;
    let r = run(&rep, vec![input(InputRole::Init, &target)])
        .await
        .unwrap();
    let out = decode(&r.outputs[0].bytes).to_rgba8();
    assert_eq!(out.dimensions(), (64, 96));
    assert_ne!(out, target);
}

#[tokio::test]
async fn animation_is_a_looping_gif_with_the_requested_frames() {
    let mut j = job(Action::Animation);
    j.frames = 6;
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))])
        .await
        .unwrap();
    let gif = &r.outputs[0].bytes;
    assert!(gif.starts_with(b"GIF89a"));
    assert!(gif.windows(11).any(|w| w == b"NETSCAPE2.0"), "loops");
    let dec = image::codecs::gif::GifDecoder::new(Cursor::new(gif)).unwrap();
    let frames = dec.into_frames().collect_frames().unwrap();
    assert_eq!(frames.len(), 6);
    assert!(frames.iter().all(|f| f.buffer().dimensions() == (64, 48)));
    assert_ne!(frames[0].buffer(), frames[3].buffer(), "the camera moves");

    j.frames = 0;
    let r = run(&j, vec![input(InputRole::Init, &scene(20, 15))])
        .await
        .unwrap();
    let dec = image::codecs::gif::GifDecoder::new(Cursor::new(&r.outputs[0].bytes)).unwrap();
    assert_eq!(dec.into_frames().count(), 16, "default frame count");
}

#[tokio::test]
async fn bad_missing_and_oversized_inputs_are_refused() {
    let garbage = LoadedInput {
        role: InputRole::Init,
        bytes: b"definitely not an image".to_vec(),
    };
    for action in [
        Action::ImageToImage,
        Action::Upscale,
        Action::Descriptors,
        Action::RemoveBackground,
    ] {
        let r = run(&job(action), vec![garbage.clone()]).await;
        assert!(matches!(r, Err(EngineError::BadInput(_))), "{action:?}");
        let r = run(&job(action), Vec::new()).await;
        assert!(
            matches!(r, Err(EngineError::BadInput(_))),
            "{action:?} without input"
        );
    }
    // A truncated PNG.
    let mut cut = png(&scene(40, 30));
    cut.truncate(cut.len() / 2);
    let r = run(
        &job(Action::Variation),
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: cut,
        }],
    )
    .await;
    assert!(matches!(r, Err(EngineError::BadInput(_))));

    // An input over 4096 px a side.
    let wide = RgbaImage::from_pixel(4097, 1, Rgba([1, 2, 3, 255]));
    let r = run(&job(Action::Upscale), vec![input(InputRole::Init, &wide)]).await;
    assert!(matches!(r, Err(EngineError::BadInput(_))), "{r:?}");

    // Output sizes over the limit.
    for (w, h) in [(5000, 64), (64, 4097), (4096, 4096 + 1)] {
        let mut j = job(Action::TextToImage);
        (j.width, j.height) = (w, h);
        assert!(matches!(
            run(&j, Vec::new()).await,
            Err(EngineError::BadInput(_))
        ));
    }
    let mut j = job(Action::Upscale);
    (j.width, j.height) = (8192, 6144);
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))]).await;
    assert!(matches!(r, Err(EngineError::BadInput(_))));
    let mut j = job(Action::Animation);
    (j.width, j.height, j.frames) = (4096, 4096, 48);
    let r = run(&j, vec![input(InputRole::Init, &scene(40, 30))]).await;
    assert!(matches!(r, Err(EngineError::BadInput(_))));
}
