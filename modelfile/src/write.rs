//! Writing safetensors files (for the trainer and the tests) with the
//! `safetensors` crate's own serializer.

use std::collections::{BTreeMap, HashMap};

use safetensors::tensor::TensorView;
use safetensors::Dtype;

use crate::error::ModelFileError;

/// Serialises tensors `(name, dtype, shape, little-endian bytes)` and a
/// `__metadata__` map (omitted when empty) into a safetensors file. A tensor
/// whose bytes do not match its dtype and shape, or a repeated name, is
/// refused with [`ModelFileError::HeaderInvalid`].
pub fn write_safetensors(
    tensors: &[(&str, Dtype, &[usize], &[u8])],
    metadata: &BTreeMap<String, String>,
) -> Result<Vec<u8>, ModelFileError> {
    let mut views = Vec::with_capacity(tensors.len());
    for (name, dtype, shape, bytes) in tensors {
        if views.iter().any(|(n, _)| n == name) {
            return Err(ModelFileError::HeaderInvalid(format!(
                "tensor `{name}` is named twice"
            )));
        }
        if shape
            .iter()
            .try_fold(1usize, |a, d| a.checked_mul(*d))
            .is_none()
        {
            return Err(ModelFileError::HeaderInvalid(format!(
                "tensor `{name}`: the shape overflows"
            )));
        }
        let view = TensorView::new(*dtype, shape.to_vec(), bytes)
            .map_err(|e| ModelFileError::HeaderInvalid(format!("tensor `{name}`: {e}")))?;
        views.push((*name, view));
    }
    let info: Option<HashMap<String, String>> = if metadata.is_empty() {
        None
    } else {
        Some(
            metadata
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    };
    safetensors::serialize(views, info).map_err(|e| ModelFileError::HeaderInvalid(e.to_string()))
}
