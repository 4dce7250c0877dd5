//! Tests of the reference video: every kind makes an MP4 that ffprobe reads
//! at the requested size, rate and length, with a real poster; cancel stops
//! ffmpeg; HLS lists the right variants; bad input is refused.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::cell::Cell;
use std::io::Cursor;

use image::{ImageFormat, Rgba, RgbaImage};

use super::*;

fn png(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let img = RgbaImage::from_fn(w, h, |x, y| {
        let r = ((x * 255) / w.max(1)) as u8;
        let g = ((y * 255) / h.max(1)) as u8;
        let b = (((x / 8 + y / 8 + seed) % 2) * 200) as u8;
        Rgba([r, g.wrapping_add((seed * 60) as u8), b, 255])
    });
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
        .unwrap();
    out
}

fn spec(kind: VideoKind, w: u32, h: u32, fps: u32, frames: u32) -> VideoSpec {
    VideoSpec {
        width: w,
        height: h,
        fps,
        frames,
        seed: 42,
        prompt: "snowy mountains at sunset".into(),
        negative_prompt: String::new(),
        kind,
        camera: None,
    }
}

fn make(s: &VideoSpec) -> VideoOut {
    let mut last = 0;
    let mut reports = 0;
    let out = render(
        s,
        &mut |p| {
            assert!(p >= last && p <= 100, "progress {p} after {last}");
            last = p;
            reports += 1;
        },
        &|| false,
    )
    .unwrap_or_else(|e| panic!("{:?}: {e}", s.kind_name()));
    assert_eq!(last, 100);
    assert!(reports > 2);
    out
}

impl VideoSpec {
    fn kind_name(&self) -> &'static str {
        match self.kind {
            VideoKind::TextToVideo => "text",
            VideoKind::ImageToVideo { .. } => "image",
            VideoKind::FirstLast { .. } => "first-last",
            VideoKind::MultiImage { .. } => "multi",
            VideoKind::Effect { .. } => "effect",
            VideoKind::Live2d { .. } => "live2d",
            VideoKind::Upscale { .. } => "upscale",
            VideoKind::Extend { .. } => "extend",
            VideoKind::FrameInterpolation { .. } => "interpolation",
            VideoKind::Edit { .. } => "edit",
        }
    }
}

/// Checks the MP4 against what was asked (±1 frame) and the poster.
fn check(out: &VideoOut, w: u32, h: u32, fps: f64, frames: u64) {
    let info = probe(&out.mp4).unwrap();
    assert_eq!((info.width, info.height), (w, h));
    assert_eq!((out.width, out.height), (w, h));
    assert_eq!(info.codec, "h264");
    assert!(!info.has_audio);
    assert!((info.fps - fps).abs() < 1e-6, "fps {} vs {fps}", info.fps);
    assert!((out.fps - fps).abs() < 1e-6);
    assert!(
        info.frames.abs_diff(frames) <= 1,
        "{} frames, asked {frames}",
        info.frames
    );
    assert!(u64::from(out.frames).abs_diff(frames) <= 1);
    let frame_ms = 1000.0 / fps;
    let want_ms = frames as f64 * frame_ms;
    assert!(
        (info.duration_ms as f64 - want_ms).abs() <= frame_ms + 1.0,
        "{} ms, asked {want_ms}",
        info.duration_ms
    );
    assert!((out.duration_ms as f64 - want_ms).abs() <= frame_ms + 1.0);
    assert_eq!(out.label, LABEL);
    let poster = image::load_from_memory_with_format(&out.poster_png, ImageFormat::Png)
        .unwrap()
        .to_rgb8();
    assert_eq!(poster.dimensions(), (w, h));
    let lum: Vec<f64> = poster
        .pixels()
        .map(|p| f64::from(p.0[0]) * 0.3 + f64::from(p.0[1]) * 0.59 + f64::from(p.0[2]) * 0.11)
        .collect();
    let mean = lum.iter().sum::<f64>() / lum.len() as f64;
    let var = lum.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / lum.len() as f64;
    assert!(
        var.sqrt() > 4.0 && mean > 8.0,
        "blank poster: mean {mean} sd {}",
        var.sqrt()
    );
}

#[test]
fn video_text_to_video_paints_the_prompt_in_motion() {
    let s = spec(VideoKind::TextToVideo, 96, 64, 12, 12);
    let out = make(&s);
    check(&out, 96, 64, 12.0, 12);
    // The same spec gives the same frames and bytes with one ffmpeg.
    let again = make(&s);
    assert_eq!(out.poster_png, again.poster_png);
    assert_eq!(out.mp4, again.mp4);
    let other = make(&VideoSpec {
        seed: 43,
        ..s.clone()
    });
    assert_ne!(out.poster_png, other.poster_png);
}

#[test]
fn video_image_to_video_runs_every_camera_mode() {
    let image = png(120, 80, 0);
    for (mode, offset) in [
        (CameraMode::Movement, 5.0),
        (CameraMode::Horizontal, -10.0),
        (CameraMode::Vertical, 3.0),
        (CameraMode::Zoom, -6.0),
        (CameraMode::Pan, 8.0),
    ] {
        let mut s = spec(
            VideoKind::ImageToVideo {
                image: image.clone(),
            },
            64,
            48,
            10,
            10,
        );
        s.camera = Some(CameraMove { mode, offset });
        check(&make(&s), 64, 48, 10.0, 10);
    }
    let s = spec(VideoKind::ImageToVideo { image }, 64, 48, 8, 16);
    check(&make(&s), 64, 48, 8.0, 16);
}

#[test]
fn video_first_last_multi_effect_and_live2d() {
    let (a, b, c) = (png(80, 60, 0), png(80, 60, 1), png(60, 80, 2));
    let s = spec(
        VideoKind::FirstLast {
            first: a.clone(),
            last: b.clone(),
        },
        64,
        48,
        12,
        12,
    );
    check(&make(&s), 64, 48, 12.0, 12);
    let s = spec(
        VideoKind::MultiImage {
            images: vec![a.clone(), b.clone(), c.clone()],
        },
        64,
        48,
        12,
        30,
    );
    check(&make(&s), 64, 48, 12.0, 30);
    for template in EFFECTS {
        let s = spec(
            VideoKind::Effect {
                template: template.into(),
                images: vec![a.clone(), c.clone()],
            },
            48,
            64,
            10,
            14,
        );
        check(&make(&s), 48, 64, 10.0, 14);
    }
    let s = spec(VideoKind::Live2d { image: c }, 48, 64, 12, 24);
    check(&make(&s), 48, 64, 12.0, 24);
}

#[test]
fn video_upscale_extend_and_interpolate_a_source() {
    let source = make(&spec(
        VideoKind::ImageToVideo {
            image: png(100, 70, 3),
        },
        64,
        48,
        12,
        12,
    ));
    let up = make(&spec(
        VideoKind::Upscale {
            video: source.mp4.clone(),
            factor: 2.0,
        },
        0,
        0,
        0,
        0,
    ));
    check(&up, 128, 96, 12.0, 12);
    let ext = make(&spec(
        VideoKind::Extend {
            video: source.mp4.clone(),
            secs: 0.5,
        },
        0,
        0,
        0,
        0,
    ));
    check(&ext, 64, 48, 12.0, 18);
    let twice = make(&spec(
        VideoKind::FrameInterpolation {
            video: source.mp4.clone(),
        },
        0,
        0,
        0,
        0,
    ));
    check(&twice, 64, 48, 24.0, 24);
}

#[test]
fn video_odd_sizes_round_down_to_even() {
    let s = spec(
        VideoKind::ImageToVideo {
            image: png(50, 50, 1),
        },
        65,
        49,
        6,
        6,
    );
    check(&make(&s), 64, 48, 6.0, 6);
}

#[test]
fn video_bad_input_is_refused() {
    let image = png(40, 40, 0);
    let bad = |s: VideoSpec| match render(&s, &mut |_| {}, &|| false) {
        Err(EngineError::BadInput(m)) => m,
        other => panic!("{} accepted: {:?}", s.kind_name(), other.map(|o| o.frames)),
    };
    let img = |w, h, fps, frames| {
        spec(
            VideoKind::ImageToVideo {
                image: image.clone(),
            },
            w,
            h,
            fps,
            frames,
        )
    };
    assert!(bad(img(0, 48, 12, 12)).contains("empty"));
    assert!(bad(img(15, 48, 12, 12)).contains("outside"));
    assert!(bad(img(64, 48, 0, 12)).contains("frame rate"));
    assert!(bad(img(64, 48, 12, 0)).contains("frame"));
    assert!(bad(img(64, 48, 12, MAX_FRAMES + 1)).contains("limit"));
    assert!(bad(img(1920, 1080, 30, 301)).contains("work limit"));
    let mut s = img(64, 48, 12, 12);
    s.kind = VideoKind::ImageToVideo {
        image: b"not an image".to_vec(),
    };
    bad(s.clone());
    s.kind = VideoKind::Effect {
        template: "melt".into(),
        images: vec![image.clone()],
    };
    assert!(bad(s.clone()).contains("zoom_burst"));
    s.kind = VideoKind::MultiImage { images: vec![] };
    bad(s.clone());
    s.kind = VideoKind::Upscale {
        video: b"garbage".to_vec(),
        factor: 2.0,
    };
    bad(s.clone());
    s.kind = VideoKind::Upscale {
        video: vec![1],
        factor: 9.0,
    };
    assert!(bad(s.clone()).contains("factor"));
    s.kind = VideoKind::Extend {
        video: vec![1],
        secs: -1.0,
    };
    bad(s);
    // ffprobe's own complaint is quoted.
    match probe(b"hello") {
        Err(EngineError::BadInput(m)) => assert!(m.contains("Invalid data"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(probe(&[]), Err(EngineError::BadInput(_))));
}

#[test]
fn video_cancel_stops_ffmpeg_and_answers_cancelled() {
    // Cancel once three frames are out.
    let frames_out = Cell::new(0u32);
    let s = spec(
        VideoKind::ImageToVideo {
            image: png(60, 40, 0),
        },
        64,
        48,
        10,
        200,
    );
    let res = render(
        &s,
        &mut |p| {
            if p > 5 {
                frames_out.set(frames_out.get() + 1);
            }
        },
        &|| frames_out.get() >= 3,
    );
    assert!(
        matches!(res, Err(EngineError::Cancelled)),
        "{:?}",
        res.map(|o| o.frames)
    );

    // The encoder child is gone once the cancelled sink is dropped.
    let stop = Cell::new(false);
    let mut noop = |_| {};
    let cancel = || stop.get();
    let mut sink = Sink::new(32, 32, Rate::whole(10), 100, 0, &mut noop, &cancel).unwrap();
    let pid = sink.pid();
    sink.push(image::RgbImage::new(32, 32)).unwrap();
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    stop.set(true);
    assert!(matches!(
        sink.push(image::RgbImage::new(32, 32)),
        Err(EngineError::Cancelled)
    ));
    drop(sink);
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}/exe")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map_or(true, |s| !s.contains("(ffmpeg)"))
    );
}

#[test]
fn video_missing_ffmpeg_is_a_clear_error() {
    let err = super::ffmpeg::Proc::spawn(
        &"/nonexistent/ffmpeg".into(),
        &[],
        std::process::Stdio::null(),
        std::process::Stdio::null(),
        None,
    )
    .err()
    .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("not installed") && msg.contains("apt-get install ffmpeg"),
        "{msg}"
    );
}

#[test]
fn video_hls_and_renditions_follow_the_ladder() {
    let source = make(&spec(
        VideoKind::ImageToVideo {
            image: png(320, 180, 5),
        },
        960,
        540,
        12,
        30,
    ));
    let files = hls(&source.mp4, &[360, 540, 720], &|| false).unwrap();
    let (name, master) = &files[0];
    assert_eq!(name, "master.m3u8");
    let master = String::from_utf8(master.clone()).unwrap();
    assert!(master.starts_with("#EXTM3U"));
    assert_eq!(master.matches("#EXT-X-STREAM-INF").count(), 2, "{master}");
    assert!(master.contains("RESOLUTION=640x360") && master.contains("360p/index.m3u8"));
    assert!(master.contains("RESOLUTION=960x540") && master.contains("540p/index.m3u8"));
    assert!(!master.contains("720p"));
    assert!(master.contains("CODECS=\"avc1.64"), "{master}");
    for variant in ["360p", "540p"] {
        let playlist = files
            .iter()
            .find(|(n, _)| *n == format!("{variant}/index.m3u8"))
            .map(|(_, b)| String::from_utf8(b.clone()).unwrap())
            .unwrap();
        assert!(playlist.contains("#EXT-X-ENDLIST"));
        let segs: Vec<&str> = playlist.lines().filter(|l| l.ends_with(".ts")).collect();
        assert!(segs.len() >= 2, "{playlist}");
        for seg in segs {
            let (_, bytes) = files
                .iter()
                .find(|(n, _)| *n == format!("{variant}/{seg}"))
                .unwrap();
            assert_eq!(bytes.first(), Some(&0x47), "MPEG-TS sync byte");
        }
    }
    let cancelled = hls(&source.mp4, &[360], &|| true);
    assert!(matches!(cancelled, Err(EngineError::Cancelled)));

    let r = renditions(&source.mp4, &[360, 1080]).unwrap();
    assert_eq!(r.len(), 1);
    let info = probe(&r[0].1).unwrap();
    assert_eq!((r[0].0, info.width, info.height), (360, 640, 360));
    assert!(info.frames.abs_diff(30) <= 1);
    assert!(renditions(&source.mp4, &[480]).is_err());
}

#[test]
fn video_extend_continues_a_steady_pan() {
    // A source whose content moves right 2 px a frame.
    let pattern = |x: i64, y: i64| {
        let v = ((x.div_euclid(10) + y.div_euclid(10)).rem_euclid(2) * 150
            + (x.rem_euclid(53) + y.rem_euclid(29)) * 2) as u8;
        image::Rgb([v, v / 2 + 40, 255 - v])
    };
    let mut noop = |_| {};
    let never = || false;
    let mut sink = Sink::new(96, 64, Rate::whole(12), 12, 0, &mut noop, &never).unwrap();
    for k in 0..12i64 {
        sink.push(image::RgbImage::from_fn(96, 64, |x, y| {
            pattern(i64::from(x) - 2 * k, i64::from(y))
        }))
        .unwrap();
    }
    let source = sink.finish().unwrap();
    let ext = make(&spec(
        VideoKind::Extend {
            video: source.mp4,
            secs: 1.0,
        },
        0,
        0,
        0,
        0,
    ));
    check(&ext, 96, 64, 12.0, 24);
    let file = super::ffmpeg::temp_input(&ext.mp4).unwrap();
    let mut dec =
        super::ffmpeg::Decoder::start(file.path(), "null", 96, 64, Rate::whole(12), None).unwrap();
    let mut frames = Vec::new();
    while let Some(f) = dec.next_frame().unwrap() {
        frames.push(image::RgbImage::from_raw(96, 64, f).unwrap());
    }
    // The first extension frames keep moving right at about 2 px a frame.
    let m = super::source::estimate(&frames[12], &frames[14]);
    assert!(m.dx >= 3.0 && m.dx <= 5.0 && m.dy.abs() <= 1.0, "{m:?}");
    let m = super::source::estimate(&frames[11], &frames[12]);
    assert!(m.dx >= 1.0 && m.dx <= 3.0, "{m:?}");
}
