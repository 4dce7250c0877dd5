//! Refusals: headers that lie, limits, pickles and PyTorch zips, other
//! formats; and that only the header is ever read.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::io::{Cursor, Write};

use common::{file, raw, read, read_with, Counting};
use easel_modelfile::{read_header, sniff, Dtype, FileKind, Limits, ModelFileError};

const ONE: &str = r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;

#[test]
fn a_good_raw_file_reads() {
    let h = read(&raw(ONE, 16)).unwrap();
    assert_eq!(h.header_len, ONE.len() as u64);
    assert_eq!(h.data_len, 16);
    assert_eq!(h.tensors[0].shape, vec![4]);
    assert_eq!(h.data_start(), 8 + ONE.len() as u64);
}

#[test]
fn offsets_beyond_the_file() {
    let bytes = raw(ONE, 8);
    let err = read(&bytes).unwrap_err();
    assert_eq!(
        err,
        ModelFileError::SizeMismatch {
            declared: bytes.len() as u64 + 8,
            actual: bytes.len() as u64
        }
    );
    assert_eq!(err.key(), "modelFileSizeMismatch");
}

#[test]
fn trailing_bytes_after_the_tensors() {
    let err = read(&raw(ONE, 20)).unwrap_err();
    assert!(
        matches!(err, ModelFileError::SizeMismatch { .. }),
        "{err:?}"
    );
}

#[test]
fn overlapping_offsets() {
    let json = r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}"#;
    let err = read(&raw(json, 24)).unwrap_err();
    assert!(
        matches!(&err, ModelFileError::HeaderInvalid(r) if r.contains("`b`")),
        "{err:?}"
    );
    assert_eq!(err.key(), "modelFileHeaderInvalid");
}

#[test]
fn a_gap_between_tensors() {
    let json = r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[20,36]}}"#;
    let err = read(&raw(json, 36)).unwrap_err();
    assert!(matches!(err, ModelFileError::HeaderInvalid(_)), "{err:?}");
}

#[test]
fn dtype_times_shape_is_not_the_byte_length() {
    let json = r#"{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,16]}}"#;
    let err = read(&raw(json, 16)).unwrap_err();
    assert!(
        matches!(&err, ModelFileError::HeaderInvalid(r) if r.contains("byte length")),
        "{err:?}"
    );
}

#[test]
fn a_header_length_beyond_the_file() {
    let mut bytes = 1000u64.to_le_bytes().to_vec();
    bytes.extend_from_slice(br#"{"a":1}"#);
    let err = read(&bytes).unwrap_err();
    assert_eq!(
        err,
        ModelFileError::SizeMismatch {
            declared: 1008,
            actual: bytes.len() as u64
        }
    );
}

#[test]
fn a_reader_shorter_than_the_stated_length() {
    let bytes = raw(ONE, 16);
    let cut = &bytes[..20];
    let err = read_header(
        &mut Cursor::new(cut),
        bytes.len() as u64,
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        ModelFileError::SizeMismatch {
            declared: 8 + ONE.len() as u64,
            actual: 20
        }
    );
}

#[test]
fn header_too_large() {
    let limits = Limits {
        max_header_bytes: 32,
        ..Limits::default()
    };
    let err = read_with(&raw(ONE, 16), &limits).unwrap_err();
    assert_eq!(
        err,
        ModelFileError::HeaderTooLarge {
            declared: ONE.len() as u64,
            limit: 32
        }
    );
    assert_eq!(err.key(), "modelFileHeaderTooLarge");
    // The default limit: a 200 MB header is refused before anything is
    // allocated or read, whatever the file length claims.
    let mut head = (200u64 << 20).to_le_bytes().to_vec();
    head.push(b'{');
    let err = read_header(&mut Cursor::new(&head), 1 << 40, &Limits::default()).unwrap_err();
    assert!(
        matches!(err, ModelFileError::HeaderTooLarge { .. }),
        "{err:?}"
    );
}

#[test]
fn oversize_metadata() {
    let big = "x".repeat(1024 * 1024 + 1);
    let bytes = file(&[("a", Dtype::F32, &[4])], &[("ss_note", &big)]);
    let err = read(&bytes).unwrap_err();
    assert_eq!(
        err,
        ModelFileError::MetadataTooLarge {
            bytes: 1024 * 1024 + 1 + "ss_note".len() as u64,
            limit: 1024 * 1024
        }
    );
    assert_eq!(err.key(), "modelFileMetadataTooLarge");
    let limits = Limits {
        max_metadata_bytes: 10,
        ..Limits::default()
    };
    let small = file(&[("a", Dtype::F32, &[4])], &[("k", "0123456789")]);
    assert!(matches!(
        read_with(&small, &limits),
        Err(ModelFileError::MetadataTooLarge { bytes: 11, .. })
    ));
    assert!(read(&small).is_ok());
}

#[test]
fn too_many_tensors() {
    let bytes = file(
        &[
            ("a", Dtype::F32, &[1]),
            ("b", Dtype::F32, &[1]),
            ("c", Dtype::F32, &[1]),
        ],
        &[],
    );
    let limits = Limits {
        max_tensors: 2,
        ..Limits::default()
    };
    assert_eq!(
        read_with(&bytes, &limits).unwrap_err(),
        ModelFileError::TooManyTensors { count: 3, limit: 2 }
    );
}

#[test]
fn bad_json_bad_dtype_bad_utf8() {
    for json in [
        r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]"#,
        r#"{"a":{"dtype":"F17","shape":[4],"data_offsets":[0,16]}}"#,
        r#"{"a":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}}"#,
        r#"{"__metadata__":{"k":1},"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#,
    ] {
        let err = read(&raw(json, 16)).unwrap_err();
        assert!(
            matches!(err, ModelFileError::HeaderInvalid(_)),
            "{json}: {err:?}"
        );
    }
    let mut bytes = 3u64.to_le_bytes().to_vec();
    bytes.extend_from_slice(b"{\xff}");
    assert!(matches!(
        read(&bytes),
        Err(ModelFileError::HeaderInvalid(_))
    ));
}

#[test]
fn a_pickle_is_refused() {
    let pickle = b"\x80\x02}q\x00.";
    assert_eq!(sniff(pickle), FileKind::Pickle);
    assert!(sniff(pickle).runs_code());
    let err = read(pickle).unwrap_err();
    assert_eq!(err, ModelFileError::Pickle);
    assert_eq!(err.key(), "modelFilePickle");
}

fn zip_with(names: &[&str]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for name in names {
        zip.start_file(*name, options).unwrap();
        zip.write_all(b"\x80\x02}q\x00.").unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn a_torch_zip_is_refused_and_a_plain_zip_is_not_safetensors() {
    let torch = zip_with(&[
        "archive/data.pkl",
        "archive/byteorder",
        "archive/data/0",
        "archive/version",
    ]);
    assert_eq!(sniff(&torch), FileKind::TorchZip);
    assert!(sniff(&torch).runs_code());
    assert_eq!(read(&torch).unwrap_err(), ModelFileError::Pickle);

    let plain = zip_with(&["readme.txt"]);
    assert_eq!(sniff(&plain), FileKind::Unknown);
    assert_eq!(read(&plain).unwrap_err(), ModelFileError::NotSafetensors);
}

#[test]
fn other_formats_are_not_safetensors() {
    let mut gguf = b"GGUF".to_vec();
    gguf.extend_from_slice(&3u32.to_le_bytes());
    gguf.extend_from_slice(&[0; 16]);
    assert_eq!(sniff(&gguf), FileKind::Gguf);
    for bytes in [
        gguf.as_slice(),
        b"hello, this is not a model file",
        b"",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    ] {
        let err = read(bytes).unwrap_err();
        assert_eq!(err, ModelFileError::NotSafetensors, "{bytes:?}");
        assert_eq!(err.key(), "modelFileNotSafetensors");
        assert!(!sniff(bytes).runs_code());
    }
}

#[test]
fn only_the_header_is_read() {
    let bytes = file(
        &[("big", Dtype::F32, &[256, 1024])],
        &[("ss_network_dim", "4")],
    );
    let mut reader = Counting {
        inner: Cursor::new(&bytes),
        read: 0,
    };
    let h = read_header(&mut reader, bytes.len() as u64, &Limits::default()).unwrap();
    assert_eq!(reader.read, h.data_start());
    assert_eq!(h.data_len, 256 * 1024 * 4);
    assert_eq!(bytes.len() as u64, h.data_start() + h.data_len);
}

#[test]
fn error_keys_are_stable() {
    let keys: Vec<&str> = [
        ModelFileError::NotSafetensors,
        ModelFileError::HeaderTooLarge {
            declared: 0,
            limit: 0,
        },
        ModelFileError::HeaderInvalid(String::new()),
        ModelFileError::SizeMismatch {
            declared: 0,
            actual: 0,
        },
        ModelFileError::MetadataTooLarge { bytes: 0, limit: 0 },
        ModelFileError::TooManyTensors { count: 0, limit: 0 },
        ModelFileError::Pickle,
        ModelFileError::Io(String::new()),
    ]
    .iter()
    .map(ModelFileError::key)
    .collect();
    assert_eq!(
        keys,
        [
            "modelFileNotSafetensors",
            "modelFileHeaderTooLarge",
            "modelFileHeaderInvalid",
            "modelFileSizeMismatch",
            "modelFileMetadataTooLarge",
            "modelFileTooManyTensors",
            "modelFilePickle",
            "modelFileIo"
        ]
    );
}
