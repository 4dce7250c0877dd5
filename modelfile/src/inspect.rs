//! What a checked header says the model is: checkpoint, LoRA or embedding;
//! its base family (the catalogue's family ids) from tensor names and shapes,
//! then from its training metadata; LoRA rank and alpha; kohya training
//! metadata; trained words; size facts. Only the header is used: no tensor
//! value is read.

use std::collections::{BTreeMap, HashMap};

use safetensors::Dtype;
use serde::Serialize;

use crate::header::{Header, TensorEntry};
use crate::kohya::{trained_words, KohyaMeta};

/// The catalogue's family ids, equal to `protocol::task::catalogue::family_ids`
/// (this pure crate does not depend on `protocol`; the backend's tests can
/// compare them).
mod family {
    pub const SD: &str = "sd";
    pub const SDXL: &str = "sdxl";
    pub const FLUX: &str = "flux";
    pub const SD35: &str = "sd3.5";
    pub const HIDREAM: &str = "hidream";
    pub const IL: &str = "il";
}

/// What kind of model a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// A full diffusion model (UNet/DiT, usually with text encoders and VAE).
    Checkpoint,
    /// Low-rank adapter weights (LoRA, LyCORIS LoHa/LoKr).
    Lora,
    /// A textual-inversion embedding.
    Embedding,
    Unknown,
}

/// Facts derived from a header.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inspection {
    pub kind: ModelKind,
    /// The catalogue family id (`sd` for SD 1.x/2.x, `sdxl`, `il` for
    /// Illustrious/NoobAI SDXL models, `flux`, `sd3.5`, `hidream`), when
    /// the file is one of them.
    pub family: Option<&'static str>,
    /// The architecture told from the tensors (`sd1`, `sd2`, `sdxl`, `flux`,
    /// `sd3`, `sd3.5`, `hidream`) or, failing that, the metadata's
    /// `modelspec.architecture`; set even when `family` is `None`.
    pub architecture: Option<String>,
    /// LoRA rank: the most common inner dimension of the down matrices
    /// (`lora_down`/`lora_A`), else `ss_network_dim`.
    pub rank: Option<u64>,
    /// LoRA alpha from `ss_network_alpha` (the `.alpha` tensors' values are
    /// data, which is not read).
    pub alpha: Option<f64>,
    /// `ss_network_module` (e.g. `networks.lora`, `lycoris.kohya`).
    pub network_module: Option<String>,
    /// Key layout of a LoRA: `kohya` (`lora_unet_*`/`lora_te*`), `peft`
    /// (diffusers/PEFT `lora_A`/`lora_B`), `diffusers` (`lora.down`),
    /// `loha`, `lokr`.
    pub lora_format: Option<&'static str>,
    pub kohya: Option<KohyaMeta>,
    pub trained_words: Vec<String>,
    /// Vectors per token of an embedding.
    pub embedding_vectors: Option<u64>,
    pub tensor_count: u64,
    /// Total elements over all tensors.
    pub parameters: u64,
    /// The dtype holding the most parameters.
    pub dtype: Option<Dtype>,
    /// The `__metadata__` map (already size-limited by `read_header`).
    pub metadata: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arch {
    Sd1,
    Sd2,
    Sdxl,
    Flux,
    Sd3,
    Sd35,
    HiDream,
}

impl Arch {
    const fn name(self) -> &'static str {
        match self {
            Self::Sd1 => "sd1",
            Self::Sd2 => "sd2",
            Self::Sdxl => "sdxl",
            Self::Flux => "flux",
            Self::Sd3 => "sd3",
            Self::Sd35 => "sd3.5",
            Self::HiDream => "hidream",
        }
    }

    /// SD3 (medium, not 3.5) has no family in the catalogue.
    const fn family(self) -> Option<&'static str> {
        match self {
            Self::Sd1 | Self::Sd2 => Some(family::SD),
            Self::Sdxl => Some(family::SDXL),
            Self::Flux => Some(family::FLUX),
            Self::Sd3 => None,
            Self::Sd35 => Some(family::SD35),
            Self::HiDream => Some(family::HIDREAM),
        }
    }
}

/// Derives what the file is from its checked header.
pub fn inspect(header: &Header) -> Inspection {
    let names: Vec<(String, &TensorEntry)> = header
        .tensors
        .iter()
        .map(|t| (t.name.to_ascii_lowercase(), t))
        .collect();
    let meta = &header.metadata;
    let lora_format = lora_format(&names);
    let embedding = lora_format.is_none() && is_embedding(&names);
    let arch = if embedding {
        embedding_arch(&names)
    } else {
        tensor_arch(&names)
    }
    .or_else(|| metadata_arch(meta));
    let kind = if lora_format.is_some() {
        ModelKind::Lora
    } else if embedding {
        ModelKind::Embedding
    } else if is_checkpoint(&names) {
        ModelKind::Checkpoint
    } else {
        ModelKind::Unknown
    };
    let family = match arch {
        Some(Arch::Sdxl) if illustrious_hint(meta) => Some(family::IL),
        Some(a) => a.family(),
        None => None,
    };
    let architecture = arch
        .map(|a| a.name().to_string())
        .or_else(|| meta.get("modelspec.architecture").cloned());
    let kohya = KohyaMeta::from_metadata(meta);
    let rank = if kind == ModelKind::Lora {
        down_rank(&names).or_else(|| kohya.as_ref().and_then(|k| k.network_dim))
    } else {
        None
    };
    let alpha = kohya.as_ref().and_then(|k| k.network_alpha);
    let network_module = kohya.as_ref().and_then(|k| k.network_module.clone());
    let trained_words = trained_words(meta, kohya.as_ref());
    let embedding_vectors = if embedding {
        header
            .tensors
            .first()
            .filter(|t| t.shape.len() == 2)
            .and_then(|t| t.shape.first().copied())
    } else {
        None
    };
    let mut by_dtype: BTreeMap<Dtype, u64> = BTreeMap::new();
    for t in &header.tensors {
        *by_dtype.entry(t.dtype).or_default() += t.elements();
    }
    let dtype = by_dtype
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(d, _)| *d);
    Inspection {
        kind,
        family,
        architecture,
        rank,
        alpha,
        network_module,
        lora_format,
        kohya,
        trained_words,
        embedding_vectors,
        tensor_count: header.tensors.len() as u64,
        parameters: header
            .tensors
            .iter()
            .fold(0u64, |acc, t| acc.saturating_add(t.elements())),
        dtype,
        metadata: meta.clone(),
    }
}

fn any(names: &[(String, &TensorEntry)], pat: &str) -> bool {
    names.iter().any(|(n, _)| n.contains(pat))
}

fn lora_format(names: &[(String, &TensorEntry)]) -> Option<&'static str> {
    if any(names, "hada_w1") {
        Some("loha")
    } else if any(names, "lokr_w1") {
        Some("lokr")
    } else if any(names, "lora_down") || any(names, "lora_up") {
        Some("kohya")
    } else if any(names, ".lora_a.") || any(names, ".lora_b.") {
        Some("peft")
    } else if any(names, ".lora.down.") || any(names, ".lora.up.") {
        Some("diffusers")
    } else {
        None
    }
}

/// Textual-inversion layouts: A1111's `emb_params`, the older
/// `string_to_param.*`, SDXL's `clip_l` + `clip_g` pair.
fn is_embedding(names: &[(String, &TensorEntry)]) -> bool {
    !names.is_empty()
        && names.len() <= 4
        && names.iter().all(|(n, t)| {
            (n == "emb_params"
                || n == "clip_l"
                || n == "clip_g"
                || n.starts_with("string_to_param"))
                && t.shape.len() <= 2
        })
}

fn embedding_arch(names: &[(String, &TensorEntry)]) -> Option<Arch> {
    let has = |k: &str| names.iter().any(|(n, _)| n == k);
    if has("clip_g") {
        return Some(Arch::Sdxl);
    }
    let width = names.first().and_then(|(_, t)| t.shape.last().copied());
    match width {
        Some(768) => Some(Arch::Sd1),
        Some(1024) => Some(Arch::Sd2),
        _ => None,
    }
}

fn is_checkpoint(names: &[(String, &TensorEntry)]) -> bool {
    [
        "model.diffusion_model.",
        "double_blocks.",
        "single_blocks.",
        "joint_blocks.",
        "double_stream_blocks.",
    ]
    .iter()
    .any(|p| {
        names
            .iter()
            .any(|(n, _)| n.starts_with(p) || n.contains(&format!(".{p}")))
    })
}

/// The architecture from tensor names and shapes.
fn tensor_arch(names: &[(String, &TensorEntry)]) -> Option<Arch> {
    if any(names, "double_stream_blocks") || any(names, "single_stream_blocks") {
        return Some(Arch::HiDream);
    }
    if any(names, "double_blocks")
        || any(names, "single_blocks")
        || any(names, "single_transformer_blocks")
    {
        return Some(Arch::Flux);
    }
    if any(names, "joint_blocks") {
        // SD3.5 medium adds a second attention to x blocks (MMDiT-X);
        // SD3.5 large is 2432 wide; SD3 medium is neither.
        let x_attn2 = any(names, "x_block.attn2") || any(names, "x_block_attn2");
        let wide = names
            .iter()
            .any(|(n, t)| n.contains("joint_blocks") && t.shape.contains(&2432));
        return Some(if x_attn2 || wide {
            Arch::Sd35
        } else {
            Arch::Sd3
        });
    }
    if any(names, "transformer.transformer_blocks.") {
        // Diffusers/PEFT DiT LoRAs: Flux is 3072 wide, SD3.x 1536 or 2432.
        let widths = |w: u64| {
            names
                .iter()
                .any(|(n, t)| n.contains("transformer_blocks") && t.shape.contains(&w))
        };
        if widths(3072) {
            return Some(Arch::Flux);
        }
        if widths(2432) {
            return Some(Arch::Sd35);
        }
    }
    if any(names, "conditioner.embedders.1")
        || any(names, "lora_te2_")
        || any(names, "text_encoder_2")
        || any(names, "add_embedding.linear_1")
    {
        return Some(Arch::Sdxl);
    }
    // Cross-attention context width: 768 SD1, 1024 SD2, 2048 SDXL.
    match cross_attention_width(names) {
        Some(768) => return Some(Arch::Sd1),
        Some(1024) => return Some(Arch::Sd2),
        Some(2048) => return Some(Arch::Sdxl),
        _ => {}
    }
    if any(names, "cond_stage_model.transformer.") {
        return Some(Arch::Sd1);
    }
    if any(names, "cond_stage_model.model.") {
        return Some(Arch::Sd2);
    }
    // kohya text-encoder LoRA only: the CLIP width tells SD1 from SD2.
    names
        .iter()
        .filter(|(n, _)| n.starts_with("lora_te_") && n.contains("lora_down"))
        .find_map(|(_, t)| match t.shape.get(1) {
            Some(768) => Some(Arch::Sd1),
            Some(1024) => Some(Arch::Sd2),
            _ => None,
        })
}

/// The input width of a cross-attention key projection (`attn2.to_k`), from
/// the full weight `[out, ctx]` or a LoRA down matrix `[rank, ctx]`.
fn cross_attention_width(names: &[(String, &TensorEntry)]) -> Option<u64> {
    names.iter().find_map(|(n, t)| {
        let key = n.contains("attn2") && n.contains("to_k");
        let down_or_full = n.contains("lora_down")
            || n.contains("lora_a.")
            || n.contains("lora.down")
            || n.ends_with("to_k.weight");
        if key && down_or_full && t.shape.len() == 2 {
            t.shape.get(1).copied()
        } else {
            None
        }
    })
}

/// The architecture kohya's `ss_base_model_version` or ModelSpec's
/// `modelspec.architecture` names.
fn metadata_arch(meta: &BTreeMap<String, String>) -> Option<Arch> {
    let v = meta
        .get("ss_base_model_version")
        .or_else(|| meta.get("modelspec.architecture"))?
        .to_ascii_lowercase();
    let arch = v.split('/').next().unwrap_or_default();
    if arch.starts_with("sdxl") || arch.starts_with("stable-diffusion-xl") {
        Some(Arch::Sdxl)
    } else if arch.starts_with("sd_v1") || arch.starts_with("stable-diffusion-v1") {
        Some(Arch::Sd1)
    } else if arch.starts_with("sd_v2") || arch.starts_with("stable-diffusion-v2") {
        Some(Arch::Sd2)
    } else if arch.starts_with("stable-diffusion-v3.5") || arch.starts_with("sd3.5") {
        Some(Arch::Sd35)
    } else if arch.starts_with("sd3") || arch.starts_with("stable-diffusion-v3") {
        Some(Arch::Sd3)
    } else if arch.starts_with("flux") {
        Some(Arch::Flux)
    } else if arch.starts_with("hidream") {
        Some(Arch::HiDream)
    } else {
        None
    }
}

/// Illustrious (and NoobAI, built on it) share SDXL's architecture: only
/// the metadata's names tell them.
fn illustrious_hint(meta: &BTreeMap<String, String>) -> bool {
    [
        "ss_base_model_version",
        "modelspec.architecture",
        "ss_sd_model_name",
        "ss_output_name",
        "modelspec.title",
    ]
    .iter()
    .filter_map(|k| meta.get(*k))
    .map(|v| v.to_ascii_lowercase())
    .any(|v| v.contains("illustrious") || v.contains("noobai") || v.contains("noob_ai"))
}

/// The most common inner dimension of the LoRA down matrices (ties: the
/// larger).
fn down_rank(names: &[(String, &TensorEntry)]) -> Option<u64> {
    let mut counts: HashMap<u64, usize> = HashMap::new();
    for (n, t) in names {
        let down = n.contains("lora_down.weight")
            || n.contains("lora_a.weight")
            || n.contains("lora.down.weight");
        if down && t.shape.len() >= 2 {
            if let Some(r) = t.shape.first() {
                *counts.entry(*r).or_default() += 1;
            }
        }
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(r, _)| r)
}
