//! Measures hashing throughput: writes a safetensors file of the given size
//! (default 200 MB) to a temp file, then times `read_header` and a full
//! `hash_reader` pass (SHA-256 + AutoV3 + BLAKE3) over it.
//! `cargo run -p easel-modelfile --example hash_speed [MB]`
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Write};
use std::time::Instant;

use easel_modelfile::{hash_reader, read_header, write_safetensors, Dtype, Limits};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let rows = mb * 1024 * 1024 / (4096 * 2);
    let data: Vec<u8> = (0..rows * 4096 * 2).map(|i| (i % 251) as u8).collect();
    let bytes = write_safetensors(&[("w", Dtype::F16, &[rows, 4096], &data)], &BTreeMap::new())?;
    drop(data);
    let mut tmp = tempfile::NamedTempFile::new()?;
    tmp.write_all(&bytes)?;
    tmp.flush()?;
    let len = bytes.len() as u64;
    drop(bytes);

    let t = Instant::now();
    let header = read_header(&mut File::open(tmp.path())?, len, &Limits::default())?;
    let header_time = t.elapsed();
    let t = Instant::now();
    let hashes = hash_reader(&mut BufReader::new(File::open(tmp.path())?))?;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "file {:.1} MB; read_header {:?} ({} tensors); hash_reader {:.2} s = {:.0} MB/s (sha256 {}, autov2 {})",
        len as f64 / 1e6,
        header_time,
        header.tensors.len(),
        secs,
        len as f64 / 1e6 / secs,
        hashes.sha256,
        hashes.autov2
    );
    Ok(())
}
