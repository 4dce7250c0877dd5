//! The pure rules of shared models: the lenient readers of `model_type` and
//! `base_model` (what clients send: names, spec 3 §9 codes, Civitai's
//! words), and the limits of every text a creator writes. Table-tested.

use crate::square::work::{normalise_tags, TextProblem};
use crate::task::catalogue::catalogue;
use crate::ErrorCode;

use super::ModelType;

/// Upload category of model files (DESIGN.md Contracts).
pub const MODEL_FILE_CATEGORY: i64 = 60;
/// Longest model name, characters.
pub const MAX_NAME_CHARS: usize = 80;
pub const MAX_VERSION_NAME_CHARS: usize = 40;
pub const MAX_DESCRIPTION_CHARS: usize = 5000;
/// Trigger words per version, and the length of each.
pub const MAX_TRAINED_WORDS: usize = 32;
pub const MAX_TRAINED_WORD_CHARS: usize = 100;
/// Example pictures per version.
pub const MAX_IMAGES: usize = 20;
/// Versions per model.
pub const MAX_VERSIONS: usize = 50;
/// The weight a LoRA starts from (spec 3 §3: weight default 1).
pub const DEFAULT_WEIGHT: f32 = 1.0;

/// Reads `model_type` as clients send it: our names, Civitai's and the
/// spec's contribution types (`model_Checkpoint`, `model_LORA`), or a number
/// (1 checkpoint, 2 LoRA, 3 embedding).
pub fn parse_model_type(v: &serde_json::Value) -> Option<ModelType> {
    match v {
        serde_json::Value::Number(n) => match n.as_i64()? {
            1 => Some(ModelType::Checkpoint),
            2 => Some(ModelType::Lora),
            3 => Some(ModelType::Embedding),
            _ => None,
        },
        serde_json::Value::String(s) => {
            let k: String = s
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect();
            let k = k
                .strip_prefix("model")
                .filter(|r| !r.is_empty())
                .unwrap_or(&k);
            match k {
                "checkpoint" | "ckpt" | "1" => Some(ModelType::Checkpoint),
                "lora" | "locon" | "lycoris" | "loha" | "dora" | "2" => Some(ModelType::Lora),
                "embedding" | "textualinversion" | "ti" | "3" => Some(ModelType::Embedding),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Reads `base_model` as a catalogue family: its id (`sdxl`), its name or a
/// variant (`SDXL 1.0`, `Pony`, `SD 1.5`, `Flux.1 D`, case and spaces
/// ignored), or a spec 3 §9 base model code (1 sd, 5 sdxl). Answers the
/// family id and the variant users know.
pub fn parse_base_model(v: &serde_json::Value) -> Option<(String, String)> {
    let cat = catalogue();
    let squash = |s: &str| -> String {
        s.to_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect()
    };
    match v {
        serde_json::Value::Number(n) => {
            let code = n.as_i64()?;
            let id = match code {
                1 => "sd",
                5 => "sdxl",
                _ => return None,
            };
            let f = cat.family(id)?;
            Some((
                f.id.clone(),
                f.variants.first().cloned().unwrap_or_default(),
            ))
        }
        serde_json::Value::String(s) => {
            let k = squash(s);
            if k.is_empty() {
                return None;
            }
            for f in &cat.families {
                if squash(&f.id) == k || squash(&f.name) == k {
                    return Some((
                        f.id.clone(),
                        f.variants.first().cloned().unwrap_or_default(),
                    ));
                }
                if let Some(var) = f.variants.iter().find(|x| squash(x) == k) {
                    return Some((f.id.clone(), var.clone()));
                }
            }
            None
        }
        _ => None,
    }
}

fn printable(s: &str) -> bool {
    !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// A model or version name: trimmed, 1..=max characters, no control characters.
pub fn check_name(name: &str, max: usize) -> Result<String, ErrorCode> {
    let t = name.trim();
    if t.is_empty() || t.chars().count() > max || t.contains('\n') || !printable(t) {
        return Err(ErrorCode::ModelFieldInvalid);
    }
    Ok(t.to_string())
}

pub fn check_description(text: &str) -> Result<String, ErrorCode> {
    let t = text.trim();
    if t.chars().count() > MAX_DESCRIPTION_CHARS || !printable(t) {
        return Err(ErrorCode::ModelFieldInvalid);
    }
    Ok(t.to_string())
}

/// Tags as the square normalises them.
pub fn check_tags(tags: &[String]) -> Result<Vec<String>, ErrorCode> {
    normalise_tags(tags).map_err(|_: TextProblem| ErrorCode::ModelFieldInvalid)
}

/// Trigger words: trimmed, empty ones dropped, duplicates (ignoring case)
/// dropped, each 1..=100 characters, at most 32.
pub fn check_trained_words(words: &[String]) -> Result<Vec<String>, ErrorCode> {
    let mut out: Vec<String> = Vec::new();
    for w in words {
        let t = w.trim();
        if t.is_empty() {
            continue;
        }
        if t.chars().count() > MAX_TRAINED_WORD_CHARS || !printable(t) || t.contains('\n') {
            return Err(ErrorCode::ModelFieldInvalid);
        }
        if !out.iter().any(|o| o.eq_ignore_ascii_case(t)) {
            out.push(t.to_string());
        }
    }
    if out.len() > MAX_TRAINED_WORDS {
        return Err(ErrorCode::ModelFieldInvalid);
    }
    Ok(out)
}

/// The agency fee (spec 1 §3 is_agency_fee, agency_fee): whole credits,
/// 0..=`max` (the operator's limit); off when `is_agency_fee` is false.
pub fn check_agency_fee(is_agency_fee: bool, fee: i64, max: i64) -> Result<i64, ErrorCode> {
    if !is_agency_fee {
        return Ok(0);
    }
    if fee < 1 || fee > max {
        return Err(ErrorCode::AgencyFeeInvalid);
    }
    Ok(fee)
}

/// Whether a LoRA or embedding of family `extra` may run on a checkpoint of
/// family `checkpoint`: the same family, or the SDXL architecture's
/// families together (sdxl, il, il3: Pony and Illustrious LoRAs load on
/// SDXL checkpoints, with the quality the user chose).
pub fn fits(checkpoint: &str, extra: &str) -> bool {
    let sdxl = |f: &str| matches!(f, "sdxl" | "il" | "il3");
    checkpoint == extra || (sdxl(checkpoint) && sdxl(extra))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn model_types() {
        for (v, want) in [
            (json!("checkpoint"), Some(ModelType::Checkpoint)),
            (json!("Checkpoint"), Some(ModelType::Checkpoint)),
            (json!("model_Checkpoint"), Some(ModelType::Checkpoint)),
            (json!("LORA"), Some(ModelType::Lora)),
            (json!("model_LORA"), Some(ModelType::Lora)),
            (json!("LoCon"), Some(ModelType::Lora)),
            (json!("TextualInversion"), Some(ModelType::Embedding)),
            (json!("embedding"), Some(ModelType::Embedding)),
            (json!(1), Some(ModelType::Checkpoint)),
            (json!(2), Some(ModelType::Lora)),
            (json!(3), Some(ModelType::Embedding)),
            (json!(4), None),
            (json!("vae"), None),
            (json!("model"), None),
            (json!(""), None),
            (json!(null), None),
            (json!([1]), None),
        ] {
            assert_eq!(parse_model_type(&v), want, "{v}");
        }
    }

    #[test]
    fn base_models() {
        let fam = |v: serde_json::Value| parse_base_model(&v).map(|(f, _)| f);
        for (v, want) in [
            (json!("sdxl"), Some("sdxl")),
            (json!("SDXL 1.0"), Some("sdxl")),
            (json!("Pony"), Some("sdxl")),
            (json!("sd 1.5"), Some("sd")),
            (json!("SD1.5"), Some("sd")),
            (json!("Flux.1 D"), Some("flux")),
            (json!("flux"), Some("flux")),
            (json!(5), Some("sdxl")),
            (json!(1), Some("sd")),
            (json!(9), None),
            (json!("dalle"), None),
            (json!(""), None),
            (json!(null), None),
        ] {
            assert_eq!(fam(v.clone()).as_deref(), want, "{v}");
        }
        assert_eq!(
            parse_base_model(&json!("pony")).unwrap(),
            ("sdxl".to_string(), "Pony".to_string())
        );
    }

    #[test]
    fn names_and_words() {
        assert_eq!(check_name("  My LoRA ", MAX_NAME_CHARS).unwrap(), "My LoRA");
        assert!(check_name("", MAX_NAME_CHARS).is_err());
        assert!(check_name("a\nb", MAX_NAME_CHARS).is_err());
        assert!(check_name(&"x".repeat(81), MAX_NAME_CHARS).is_err());
        assert!(check_name(&"x".repeat(80), MAX_NAME_CHARS).is_ok());
        assert!(check_description(&"d".repeat(5001)).is_err());
        assert_eq!(
            check_trained_words(&["  cat ".into(), "Cat".into(), "".into(), "dog".into()]).unwrap(),
            vec!["cat".to_string(), "dog".to_string()]
        );
        let many: Vec<String> = (0..33).map(|i| format!("w{i}")).collect();
        assert!(check_trained_words(&many).is_err());
        assert!(check_trained_words(&["x".repeat(101)]).is_err());
    }

    #[test]
    fn fees_and_fit() {
        assert_eq!(check_agency_fee(false, 50, 100), Ok(0));
        assert_eq!(check_agency_fee(true, 5, 100), Ok(5));
        assert_eq!(
            check_agency_fee(true, 0, 100),
            Err(ErrorCode::AgencyFeeInvalid)
        );
        assert_eq!(
            check_agency_fee(true, 101, 100),
            Err(ErrorCode::AgencyFeeInvalid)
        );
        assert_eq!(
            check_agency_fee(true, -1, 100),
            Err(ErrorCode::AgencyFeeInvalid)
        );
        assert!(fits("sdxl", "sdxl"));
        assert!(fits("sdxl", "il"));
        assert!(fits("il3", "sdxl"));
        assert!(!fits("sd", "sdxl"));
        assert!(!fits("flux", "sd"));
    }
}
