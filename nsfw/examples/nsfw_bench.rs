//! Time per image of the open_nsfw classifier on one core:
//! `cargo run --release -p easel-nsfw --example nsfw_bench -- [MODEL] [N]`.
//! Prints the load time, then the median and mean of N classifications of a
//! 1024×1024 picture (decoding excluded; resize, JPEG round trip and
//! inference included). Run it with `taskset -c 0` to pin one core.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

use easel_nsfw::{Classifier, OpenNsfw, RgbImage};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let model = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("models/open-nsfw.onnx"));
    let n: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(20);
    let t = Instant::now();
    let c = OpenNsfw::load(&model)?;
    println!("load: {:.0} ms", t.elapsed().as_secs_f64() * 1000.0);
    let img = RgbImage::from_fn(1024, 1024, |x, y| {
        image::Rgb([(x / 4) as u8, (y / 4) as u8, ((x + y) / 8) as u8])
    });
    c.classify(&img)?; // warm-up
    let mut ms = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let v = c.classify(&img)?;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box(v);
    }
    ms.sort_by(f64::total_cmp);
    let median = ms.get(ms.len() / 2).copied().unwrap_or(0.0);
    let mean = ms.iter().sum::<f64>() / ms.len().max(1) as f64;
    println!("open_nsfw: {n} images, median {median:.1} ms, mean {mean:.1} ms per image");
    Ok(())
}
