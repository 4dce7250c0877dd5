//! Task requests as clients send them (spec 1 §3 task config, §7 task calls).
//!
//! Clients are lenient about types (a seed may arrive as `""`, a width as
//! `"1024"`), so numeric fields accept a number, a numeric string, an empty
//! string or null; anything else is a 40000 InvalidParams. Fields this server
//! does not act on are kept in `extra` so a task's config round-trips.

use serde::{Deserialize, Serialize};

use super::codes::{Action, Category, SpeedType};

/// `POST /api/v1/task/create` and, with `action` implied by the path, the
/// `/api/v1/task/v2/...` creation calls.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CreateTaskRequest {
    /// Implied by the path for the v2 calls; required for `create`.
    #[serde(default)]
    pub action: Option<Action>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub art_work_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub art_model_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub art_model_ver_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub parent_task_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub operate_number: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub channel_id: Option<String>,
    #[serde(default)]
    pub category: Option<Category>,
    #[serde(default)]
    pub speed_type: Option<SpeedType>,
    #[serde(default)]
    pub meta: TaskMeta,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub source: Option<String>,
    /// Source tag.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub ss: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub generate_type: Option<String>,
    /// Generation flow (1 old, 2 new); visitors always use 2 with `g_mode` 1.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub g_mode: Option<i64>,
}

/// A LoRA entry of `lora_models`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LoraModel {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub model_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub weight: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub model_ver_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub base_model: Option<String>,
}

/// A control-net unit (spec 1 §3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ControlNetUnit {
    #[serde(default, rename = "type", deserialize_with = "lenient::opt_string")]
    pub unit_type: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub processor_res: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub module: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub model: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub control_mode: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub threshold_a: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub weight: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub input_image: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub guidance: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub guidance_end: Option<f64>,
}

/// Face swap arguments.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ExchangeFace {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub target_uri: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub source_uri: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub face_distance: Option<f64>,
}

/// Per-mode size blocks (`sdxl`, `studio`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ModeSize {
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub width: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub height: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub style: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub prompt_magic: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub prompt_style: Option<String>,
}

/// An entry of `imgFiles`, `imageToImageList` and friends.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ImageRef {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub url: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub width: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub height: Option<i64>,
}

/// Animation arguments.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct AnimateDiff {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub lora: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub weight: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub category: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub frames: Option<i64>,
}

/// `meta.generate` (spec 2 §3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GenerateOptions {
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub gen_mode: Option<i64>,
}

/// The generation config of one tab (spec 1 §3), sent as `meta`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TaskMeta {
    /// Generation options (spec 2 §3 `generate`): `gen_mode` 1 asks for the
    /// unlimited queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<GenerateOptions>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub prompt: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub local_prompt: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub negative_prompt: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub negative_prompt_sdxl: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub art_work_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub art_model_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub art_model_ver_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub base_model_type: Option<String>,
    #[serde(default)]
    pub lora_models: Vec<LoraModel>,
    /// Embeddings (textual inversions) by `model_ver_no` or `model_id`
    /// (spec 3 §3 "Lora and embedding entries").
    #[serde(default)]
    pub embeddings: Vec<LoraModel>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub cfg_scale: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub steps: Option<i64>,
    /// Empty, 0 or -1 means random (spec 1 §5).
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub seed: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub seedsdxl: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub sampler_name: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub vae: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub clip_skip: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub denoising_strength: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub width: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub height: Option<i64>,
    /// 1=512, 2=768, 3=1024, 4=1536 (spec 1 §9).
    #[serde(default, rename = "imageMode", deserialize_with = "lenient::opt_i64")]
    pub image_mode: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub n_iter: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub scaling_ratio: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub up_scaler: Option<String>,
    /// Mask image URL (painted area transparent).
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub mask: Option<String>,
    #[serde(default, rename = "imageUrl", deserialize_with = "lenient::opt_string")]
    pub image_url: Option<String>,
    #[serde(default, rename = "imgFiles")]
    pub img_files: Vec<ImageRef>,
    #[serde(default)]
    pub controlnet_units: Vec<ControlNetUnit>,
    #[serde(default)]
    pub exchange_face: Option<ExchangeFace>,
    #[serde(default)]
    pub animatediff: Option<AnimateDiff>,
    #[serde(default)]
    pub sdxl: Option<ModeSize>,
    #[serde(default)]
    pub studio: Option<ModeSize>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub left_margin: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub up_margin: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub hr_scale: Option<f64>,
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub restore_faces: Option<bool>,
    /// Studio: ignore LoRA base-model compatibility (studio25).
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub lora_ignore: Option<bool>,
    /// Fields this server does not act on, kept so the config round-trips.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Deserializers that accept what browsers send for numbers and strings.
pub mod lenient {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    fn raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
        Ok(match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(v) => Some(v),
        })
    }

    pub fn opt_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        match raw(d)? {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                        .map(|f| f as i64)
                })
                .map(Some)
                .ok_or_else(|| D::Error::custom("expected an integer")),
            Some(Value::String(s)) => s
                .trim()
                .parse::<i64>()
                .map(Some)
                .map_err(|_| D::Error::custom("expected an integer")),
            Some(_) => Err(D::Error::custom("expected an integer")),
        }
    }

    pub fn opt_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        let v = match raw(d)? {
            None => return Ok(None),
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
            Some(_) => None,
        };
        match v {
            Some(f) if f.is_finite() => Ok(Some(f)),
            _ => Err(D::Error::custom("expected a number")),
        }
    }

    pub fn opt_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(D::Error::custom("expected a string")),
        }
    }

    pub fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        match raw(d)? {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(Value::Number(n)) => Ok(Some(n.as_f64().unwrap_or(0.0) != 0.0)),
            Some(Value::String(s)) => match s.trim() {
                "true" | "1" => Ok(Some(true)),
                "false" | "0" => Ok(Some(false)),
                _ => Err(D::Error::custom("expected a boolean")),
            },
            Some(_) => Err(D::Error::custom("expected a boolean")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_numbers_and_strings() {
        let r: CreateTaskRequest = serde_json::from_value(serde_json::json!({
            "action": 1, "category": 5, "art_model_ver_no": 123,
            "meta": {"prompt": "a cat", "seed": "", "width": "832", "height": 1216.0,
                     "cfg_scale": "6.5", "n_iter": null, "restore_faces": 1,
                     "lora_models": [{"model_id": 7, "weight": "0.8"}],
                     "isLockParams": true}
        }))
        .unwrap();
        assert_eq!(r.action, Some(Action::TextToImage));
        assert_eq!(r.art_model_ver_no.as_deref(), Some("123"));
        assert_eq!(r.meta.seed, None);
        assert_eq!(r.meta.width, Some(832));
        assert_eq!(r.meta.height, Some(1216));
        assert_eq!(r.meta.cfg_scale, Some(6.5));
        assert_eq!(r.meta.restore_faces, Some(true));
        assert_eq!(r.meta.lora_models[0].weight, Some(0.8));
        assert_eq!(
            r.meta.extra.get("isLockParams"),
            Some(&serde_json::json!(true))
        );
    }

    #[test]
    fn wrong_types_are_refused() {
        for bad in [
            serde_json::json!({"meta": {"width": "wide"}}),
            serde_json::json!({"meta": {"seed": [1]}}),
            serde_json::json!({"meta": {"cfg_scale": {}}}),
            serde_json::json!({"action": 4}),
            serde_json::json!({"meta": {"lora_models": "x"}}),
        ] {
            assert!(
                serde_json::from_value::<CreateTaskRequest>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
