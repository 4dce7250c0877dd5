//! The operator's NSFW settings (`EASEL_NSFW_*`) and the rating a score is shown as.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The word shown for a score: `safe` below the suggestive bound,
/// `suggestive` below the NSFW threshold, `nsfw` from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    Safe,
    Suggestive,
    Nsfw,
}

impl Rating {
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Safe => "safe",
            Rating::Suggestive => "suggestive",
            Rating::Nsfw => "nsfw",
        }
    }
}

/// What the operator chose.
#[derive(Debug, Clone, PartialEq)]
pub struct NsfwSettings {
    /// `EASEL_NSFW` (default on): `0`/`off`/`false` turns scoring off.
    pub enabled: bool,
    /// `EASEL_NSFW_MODEL_PATH`, default `models/open-nsfw.onnx`.
    pub model_path: PathBuf,
    /// `EASEL_NSFW_THRESHOLD`, default 0.5 (the wrapper's own default): a
    /// score at or above it makes the object NSFW.
    pub threshold: f32,
    /// `EASEL_NSFW_SUGGESTIVE`, default 0.2 (open_nsfw's authors: below 0.2
    /// is safe with high probability): from it a score is rated suggestive.
    pub suggestive: f32,
    /// `EASEL_NSFW_VIDEO_FRAMES`, default 3 (1..=16): frames of a video
    /// scored (evenly spaced); the video's score is the highest.
    pub video_frames: u32,
    /// `EASEL_NSFW_UPLOAD_QUEUE`, default 256: uploads waiting to be scored;
    /// past it new uploads are left unscored (logged), never blocking a request.
    pub upload_queue: usize,
}

impl Default for NsfwSettings {
    fn default() -> Self {
        NsfwSettings {
            enabled: true,
            model_path: PathBuf::from("models/open-nsfw.onnx"),
            threshold: 0.5,
            suggestive: 0.2,
            video_frames: 3,
            upload_queue: 256,
        }
    }
}

impl NsfwSettings {
    /// From the process's environment.
    pub fn from_env() -> Result<NsfwSettings, String> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// From any variable source (tests).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<NsfwSettings, String> {
        let mut s = NsfwSettings::default();
        let var = |k: &str| {
            get(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        if let Some(v) = var("EASEL_NSFW") {
            s.enabled = match v.to_ascii_lowercase().as_str() {
                "1" | "on" | "true" | "yes" => true,
                "0" | "off" | "false" | "no" => false,
                _ => return Err(format!("EASEL_NSFW is on or off, not `{v}`")),
            };
        }
        if let Some(v) = var("EASEL_NSFW_MODEL_PATH") {
            s.model_path = PathBuf::from(v);
        }
        let unit = |k: &str, d: f32| -> Result<f32, String> {
            match var(k) {
                None => Ok(d),
                Some(v) => match v.parse::<f32>() {
                    Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
                    _ => Err(format!("{k} is a number from 0 to 1, not `{v}`")),
                },
            }
        };
        s.threshold = unit("EASEL_NSFW_THRESHOLD", s.threshold)?;
        s.suggestive = unit("EASEL_NSFW_SUGGESTIVE", s.suggestive)?.min(s.threshold);
        if let Some(v) = var("EASEL_NSFW_VIDEO_FRAMES") {
            s.video_frames = match v.parse::<u32>() {
                Ok(n) if (1..=16).contains(&n) => n,
                _ => return Err(format!("EASEL_NSFW_VIDEO_FRAMES is 1 to 16, not `{v}`")),
            };
        }
        if let Some(v) = var("EASEL_NSFW_UPLOAD_QUEUE") {
            s.upload_queue = match v.parse::<usize>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(format!(
                        "EASEL_NSFW_UPLOAD_QUEUE is a count from 1, not `{v}`"
                    ))
                }
            };
        }
        Ok(s)
    }

    /// Whether `score` makes an object NSFW.
    pub fn is_nsfw(&self, score: f32) -> bool {
        score >= self.threshold
    }

    /// The rating `score` is shown as.
    pub fn rating(&self, score: f32) -> Rating {
        if score >= self.threshold {
            Rating::Nsfw
        } else if score >= self.suggestive {
            Rating::Suggestive
        } else {
            Rating::Safe
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn from(pairs: &[(&str, &str)]) -> Result<NsfwSettings, String> {
        NsfwSettings::from_vars(|k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn defaults_and_overrides() {
        let d = from(&[]).unwrap();
        assert_eq!(d, NsfwSettings::default());
        assert_eq!(d.rating(0.1), Rating::Safe);
        assert_eq!(d.rating(0.3), Rating::Suggestive);
        assert_eq!(d.rating(0.5), Rating::Nsfw);
        let s = from(&[
            ("EASEL_NSFW", "off"),
            ("EASEL_NSFW_THRESHOLD", "0.9"),
            ("EASEL_NSFW_SUGGESTIVE", "0.95"),
            ("EASEL_NSFW_VIDEO_FRAMES", "5"),
            ("EASEL_NSFW_MODEL_PATH", "/m/x.onnx"),
        ])
        .unwrap();
        assert!(!s.enabled);
        assert_eq!(s.threshold, 0.9);
        // The suggestive bound never exceeds the threshold.
        assert_eq!(s.suggestive, 0.9);
        assert_eq!(s.video_frames, 5);
        assert_eq!(s.model_path, PathBuf::from("/m/x.onnx"));
        assert!(!s.is_nsfw(0.89) && s.is_nsfw(0.9));
    }

    #[test]
    fn bad_values_are_refused_with_the_variable_named() {
        for (k, v) in [
            ("EASEL_NSFW", "maybe"),
            ("EASEL_NSFW_THRESHOLD", "1.5"),
            ("EASEL_NSFW_THRESHOLD", "high"),
            ("EASEL_NSFW_VIDEO_FRAMES", "0"),
            ("EASEL_NSFW_UPLOAD_QUEUE", "-1"),
        ] {
            let e = from(&[(k, v)]).unwrap_err();
            assert!(e.contains(k), "{e}");
        }
    }
}
