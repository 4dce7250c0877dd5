//! Arbitrary and mutated bytes: reading, inspecting and hashing never panic,
//! and whatever is accepted is self-consistent.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::io::Cursor;

use common::{file, read};
use easel_modelfile::{hash_reader, inspect, read_header, sniff, Dtype, Limits};
use proptest::prelude::*;

fn seed() -> Vec<u8> {
    file(
        &[
            (
                "lora_unet_a_attn2_to_k.lora_down.weight",
                Dtype::F16,
                &[4, 768],
            ),
            (
                "lora_unet_a_attn2_to_k.lora_up.weight",
                Dtype::F16,
                &[320, 4],
            ),
        ],
        &[("ss_tag_frequency", r#"{"1_a": {"x": 2}}"#)],
    )
}

proptest! {
    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600), claimed in any::<u64>()) {
        let _ = sniff(&bytes);
        let _ = read_header(&mut Cursor::new(&bytes), claimed, &Limits::default());
        if let Ok(h) = read(&bytes) {
            prop_assert_eq!(h.data_start() + h.data_len, bytes.len() as u64);
            let _ = inspect(&h);
        }
        let h = hash_reader(&mut Cursor::new(&bytes)).unwrap();
        prop_assert_eq!(h.len, bytes.len() as u64);
    }

    #[test]
    fn mutated_header_bytes(at in 0usize..300, value in any::<u8>()) {
        let mut bytes = seed();
        let at = at % bytes.len().min(300);
        bytes[at] = value;
        if let Ok(h) = read(&bytes) {
            prop_assert_eq!(h.data_start() + h.data_len, bytes.len() as u64);
            let i = inspect(&h);
            prop_assert!(i.tensor_count <= 2);
        }
    }
}
