//! Which trainer a worker uses, from its environment:
//!
//! | variable | meaning |
//! |---|---|
//! | `EASEL_TRAINER` | `reference` (default), `kohya` or `remote` |
//! | `EASEL_KOHYA_DIR` | the sd-scripts checkout (holds `train_network.py`) |
//! | `EASEL_KOHYA_PYTHON` | its Python (default `python3`) |
//! | `EASEL_KOHYA_CKPT_<FAMILY>` | base checkpoint per family (`SD`, `SDXL`, `IL`, `FLUX`, ...) |
//! | `EASEL_KOHYA_FLUX_CLIP_L`, `_T5XXL`, `_AE` | Flux's text encoders and autoencoder |
//! | `EASEL_KOHYA_MIXED_PRECISION` | `bf16` (default), `fp16` or `no` |
//! | `EASEL_REMOTE_TRAINER_URL` | the trainings API (`https://api.replicate.com` or any `http(s)://` base) |
//! | `EASEL_REMOTE_TRAINER_TOKEN` | its bearer token |
//! | `EASEL_REMOTE_TRAINER_MODEL` | `owner/name:version` of the trainer model |
//! | `EASEL_REMOTE_TRAINER_DESTINATION` | `owner/name` the trained version is pushed to |
//! | `EASEL_REMOTE_TRAINER_POLL_MS`, `_TIMEOUT_SECS` | polling interval (2000), give-up time (7200) |
//! | `EASEL_REMOTE_TRAINER_CA_FILE` | PEM roots trusted for https besides the platform's (a private CA) |

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::kohya::{KohyaSettings, KohyaTrainer};
use crate::reference::ReferenceTrainer;
use crate::remote::{RemoteSettings, RemoteTrainer};
use crate::Trainer;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrainerKind {
    #[default]
    Reference,
    Kohya,
    Remote,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrainerSettings {
    pub kind: TrainerKind,
    pub kohya: KohyaSettings,
    pub remote: RemoteSettings,
}

impl TrainerSettings {
    /// From `EASEL_*` variables (see the module doc).
    pub fn from_env() -> Result<TrainerSettings, String> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// From any variable source (tests).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<TrainerSettings, String> {
        let kind = match get("EASEL_TRAINER").as_deref().map(str::trim) {
            None | Some("") | Some("reference") => TrainerKind::Reference,
            Some("kohya") => TrainerKind::Kohya,
            Some("remote") => TrainerKind::Remote,
            Some(other) => {
                return Err(format!(
                    "EASEL_TRAINER is reference, kohya or remote, not `{other}`"
                ))
            }
        };
        let mut checkpoints = BTreeMap::new();
        for fam in ["sd", "sdxl", "il", "il3", "flux", "sd3.5", "hidream"] {
            let var = format!(
                "EASEL_KOHYA_CKPT_{}",
                fam.replace('.', "").to_ascii_uppercase()
            );
            if let Some(p) = get(&var).filter(|p| !p.trim().is_empty()) {
                checkpoints.insert(fam.to_string(), PathBuf::from(p));
            }
        }
        let kohya = KohyaSettings {
            dir: get("EASEL_KOHYA_DIR").map(PathBuf::from),
            python: get("EASEL_KOHYA_PYTHON").unwrap_or_else(|| "python3".into()),
            checkpoints,
            flux_clip_l: get("EASEL_KOHYA_FLUX_CLIP_L").map(PathBuf::from),
            flux_t5xxl: get("EASEL_KOHYA_FLUX_T5XXL").map(PathBuf::from),
            flux_ae: get("EASEL_KOHYA_FLUX_AE").map(PathBuf::from),
            mixed_precision: get("EASEL_KOHYA_MIXED_PRECISION").unwrap_or_else(|| "bf16".into()),
        };
        let num = |k: &str, d: u64| -> Result<u64, String> {
            match get(k) {
                None => Ok(d),
                Some(v) => v.trim().parse().map_err(|_| format!("{k} is not a number")),
            }
        };
        let remote = RemoteSettings {
            url: get("EASEL_REMOTE_TRAINER_URL").unwrap_or_default(),
            token: get("EASEL_REMOTE_TRAINER_TOKEN").unwrap_or_default(),
            model: get("EASEL_REMOTE_TRAINER_MODEL").unwrap_or_default(),
            destination: get("EASEL_REMOTE_TRAINER_DESTINATION").unwrap_or_default(),
            poll_ms: num("EASEL_REMOTE_TRAINER_POLL_MS", 2000)?,
            timeout_secs: num("EASEL_REMOTE_TRAINER_TIMEOUT_SECS", 7200)?,
            ca_file: get("EASEL_REMOTE_TRAINER_CA_FILE").unwrap_or_default(),
        };
        Ok(TrainerSettings {
            kind,
            kohya,
            remote,
        })
    }
}

/// The configured trainer; a configuration error names what is missing.
pub fn build_trainer(s: &TrainerSettings) -> Result<Arc<dyn Trainer>, String> {
    Ok(match s.kind {
        TrainerKind::Reference => Arc::new(ReferenceTrainer),
        TrainerKind::Kohya => Arc::new(KohyaTrainer::new(s.kohya.clone())?),
        TrainerKind::Remote => Arc::new(RemoteTrainer::new(s.remote.clone())?),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_default_is_the_reference_trainer() {
        let s = TrainerSettings::from_vars(|_| None).unwrap();
        assert_eq!(s.kind, TrainerKind::Reference);
        assert_eq!(build_trainer(&s).unwrap().name(), "reference");
        assert!(
            TrainerSettings::from_vars(|k| (k == "EASEL_TRAINER").then(|| "gpu".into())).is_err()
        );
        // Kohya without its folder and remote without a URL are refused.
        let k =
            TrainerSettings::from_vars(|k| (k == "EASEL_TRAINER").then(|| "kohya".into())).unwrap();
        assert!(build_trainer(&k).is_err());
        let r = TrainerSettings::from_vars(|k| (k == "EASEL_TRAINER").then(|| "remote".into()))
            .unwrap();
        assert!(build_trainer(&r).is_err());
        let ck = TrainerSettings::from_vars(|k| {
            (k == "EASEL_KOHYA_CKPT_SD35").then(|| "/m/sd35.safetensors".into())
        })
        .unwrap();
        assert!(ck.kohya.checkpoints.contains_key("sd3.5"));
    }
}
