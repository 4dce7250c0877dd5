//! Hashes against `sha256sum` of the same bytes, streaming in odd chunk
//! sizes, AutoV3 against the tensor bytes, declared-hash checks, and the
//! writer's round trip through the `safetensors` crate.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::collections::BTreeMap;
use std::io::{Cursor, Write};
use std::process::Command;

use common::{file, read};
use easel_modelfile::{
    check_declared_hash, hash_reader, write_safetensors, DeclaredHash, Dtype, FileHasher,
    ModelFileError,
};

fn sha256sum(bytes: &[u8]) -> String {
    let mut tmp = tempfile::NamedTempFile::new().unwrap();
    tmp.write_all(bytes).unwrap();
    tmp.flush().unwrap();
    let out = Command::new("sha256sum").arg(tmp.path()).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

fn lora() -> Vec<u8> {
    file(
        &[
            (
                "lora_unet_a_attn2_to_k.lora_down.weight",
                Dtype::F16,
                &[8, 768],
            ),
            (
                "lora_unet_a_attn2_to_k.lora_up.weight",
                Dtype::F16,
                &[320, 8],
            ),
        ],
        &[("ss_network_dim", "8"), ("ss_output_name", "hash test")],
    )
}

#[test]
fn hashes_match_sha256sum() {
    let bytes = lora();
    let h = hash_reader(&mut Cursor::new(&bytes)).unwrap();
    let expected = sha256sum(&bytes);
    assert_eq!(h.sha256, expected);
    assert_eq!(h.autov2, expected[..10].to_ascii_uppercase());
    assert_eq!(h.len, bytes.len() as u64);
    assert_eq!(h.blake3, blake3::hash(&bytes).to_hex().to_string());
    // AutoV3: SHA-256 of the bytes after the header, by sha256sum.
    let header = read(&bytes).unwrap();
    let data = &bytes[header.data_start() as usize..];
    assert_eq!(h.autov3.as_deref(), Some(sha256sum(data).as_str()));
    assert_ne!(h.autov3.as_deref(), Some(h.sha256.as_str()));
}

#[test]
fn autov3_ignores_metadata_changes() {
    let a = file(&[("w", Dtype::F32, &[64])], &[("ss_output_name", "one")]);
    let b = file(
        &[("w", Dtype::F32, &[64])],
        &[("ss_output_name", "another name")],
    );
    let (ha, hb) = (
        hash_reader(&mut Cursor::new(&a)).unwrap(),
        hash_reader(&mut Cursor::new(&b)).unwrap(),
    );
    assert_ne!(ha.sha256, hb.sha256);
    assert_eq!(ha.autov3, hb.autov3);
}

#[test]
fn streaming_in_odd_chunk_sizes_gives_the_same_hashes() {
    let bytes = lora();
    let whole = {
        let mut h = FileHasher::new();
        h.update(&bytes);
        h.finish()
    };
    for size in [
        1usize,
        2,
        3,
        5,
        7,
        8,
        9,
        13,
        64,
        1000,
        4093,
        bytes.len() - 1,
        bytes.len() + 1,
    ] {
        let mut h = FileHasher::new();
        for chunk in bytes.chunks(size) {
            h.update(chunk);
        }
        assert_eq!(h.finish(), whole, "chunk size {size}");
    }
    // Uneven chunks, with empty ones, crossing the 8-byte length and the
    // header's end.
    let data_start = read(&bytes).unwrap().data_start() as usize;
    let cuts = [
        0,
        0,
        3,
        8,
        11,
        data_start - 1,
        data_start,
        data_start + 5,
        bytes.len(),
    ];
    let mut h = FileHasher::new();
    for w in cuts.windows(2) {
        h.update(&bytes[w[0]..w[1]]);
    }
    assert_eq!(h.finish(), whole);
}

#[test]
fn a_file_shorter_than_its_header_has_no_autov3() {
    let h = hash_reader(&mut Cursor::new(b"\x80\x02}q\x00.")).unwrap();
    assert_eq!(h.autov3, None);
    assert_eq!(h.sha256, sha256sum(b"\x80\x02}q\x00."));
    let empty = FileHasher::new().finish();
    assert_eq!(
        empty.sha256,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(empty.autov2, "E3B0C44298");
    assert_eq!(empty.autov3, None);
}

#[test]
fn declared_tensor_hash_is_checked() {
    let tensors: &[(&str, Dtype, &[usize])] = &[("w", Dtype::F32, &[64])];
    let plain = file(tensors, &[]);
    let h = hash_reader(&mut Cursor::new(&plain)).unwrap();
    assert_eq!(
        check_declared_hash(&read(&plain).unwrap(), &h),
        DeclaredHash::Absent
    );

    let v3 = h.autov3.unwrap();
    let declared = file(
        tensors,
        &[
            ("sshs_model_hash", &v3),
            ("modelspec.hash_sha256", &format!("0x{v3}")),
        ],
    );
    let hd = hash_reader(&mut Cursor::new(&declared)).unwrap();
    assert_eq!(
        check_declared_hash(&read(&declared).unwrap(), &hd),
        DeclaredHash::Matches
    );

    // One tensor byte changed after the trainer wrote the metadata.
    let mut tampered = declared.clone();
    *tampered.last_mut().unwrap() ^= 1;
    let ht = hash_reader(&mut Cursor::new(&tampered)).unwrap();
    assert_eq!(
        check_declared_hash(&read(&tampered).unwrap(), &ht),
        DeclaredHash::Differs { declared: v3 }
    );
}

#[test]
fn written_files_read_back_with_the_safetensors_crate() {
    let down: Vec<u8> = (0..8 * 4 * 2).map(|i| i as u8).collect();
    let alpha = 4.0f32.to_le_bytes();
    let meta: BTreeMap<String, String> = [("ss_network_dim".to_string(), "8".to_string())].into();
    let bytes = write_safetensors(
        &[
            ("x.lora_down.weight", Dtype::F16, &[8, 4], &down),
            ("x.alpha", Dtype::F32, &[], &alpha),
        ],
        &meta,
    )
    .unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    assert_eq!(
        st.tensor("x.lora_down.weight").unwrap().data(),
        down.as_slice()
    );
    assert_eq!(st.tensor("x.alpha").unwrap().data(), alpha.as_slice());
    let (_, m) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    assert_eq!(
        m.metadata()
            .as_ref()
            .unwrap()
            .get("ss_network_dim")
            .map(String::as_str),
        Some("8")
    );
    assert_eq!(read(&bytes).unwrap().metadata, meta);

    // Bytes that do not fit the shape, and a repeated name, are refused.
    let err = write_safetensors(&[("w", Dtype::F32, &[3], &[0; 8])], &BTreeMap::new()).unwrap_err();
    assert!(matches!(err, ModelFileError::HeaderInvalid(_)));
    let err = write_safetensors(
        &[("w", Dtype::U8, &[1], &[0]), ("w", Dtype::U8, &[1], &[0])],
        &BTreeMap::new(),
    )
    .unwrap_err();
    assert!(matches!(err, ModelFileError::HeaderInvalid(_)));
}
