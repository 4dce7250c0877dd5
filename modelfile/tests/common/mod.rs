//! Model files made by the tests: real safetensors bytes written with the
//! `safetensors` crate (through `write_safetensors`), and raw files whose
//! header is written by hand to lie.
#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

use easel_modelfile::{read_header, Dtype, Header, Limits, ModelFileError};

/// A safetensors file with the given tensors (patterned bytes) and metadata.
pub fn file(tensors: &[(&str, Dtype, &[usize])], meta: &[(&str, &str)]) -> Vec<u8> {
    let data: Vec<Vec<u8>> = tensors
        .iter()
        .enumerate()
        .map(|(i, (_, dtype, shape))| {
            let len = shape.iter().product::<usize>() * dtype.bitsize() / 8;
            (0..len).map(|j| ((i * 31 + j * 7) % 251) as u8).collect()
        })
        .collect();
    let views: Vec<(&str, Dtype, &[usize], &[u8])> = tensors
        .iter()
        .zip(&data)
        .map(|((n, d, s), b)| (*n, *d, *s, b.as_slice()))
        .collect();
    let meta: BTreeMap<String, String> = meta
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    easel_modelfile::write_safetensors(&views, &meta).unwrap()
}

/// A file whose header is `json` as written, followed by `data_len` bytes.
pub fn raw(json: &str, data_len: usize) -> Vec<u8> {
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    out.extend(std::iter::repeat_n(0u8, data_len));
    out
}

pub fn read(bytes: &[u8]) -> Result<Header, ModelFileError> {
    read_with(bytes, &Limits::default())
}

pub fn read_with(bytes: &[u8], limits: &Limits) -> Result<Header, ModelFileError> {
    read_header(&mut Cursor::new(bytes), bytes.len() as u64, limits)
}

/// A reader that counts what it hands out.
pub struct Counting<R> {
    pub inner: R,
    pub read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}
