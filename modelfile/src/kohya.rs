//! kohya-ss sd-scripts training metadata (`ss_*` keys of `__metadata__`) and
//! the trained words a file's metadata reveals: ModelSpec's
//! `modelspec.trigger_phrase` and the most frequent captions tags
//! (`ss_tag_frequency`, or the `tag_frequency` of each `ss_datasets` entry).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

/// How many tags [`KohyaMeta::top_tags`] keeps.
pub const TOP_TAGS: usize = 20;
/// At most this many tags become trained words.
pub const MAX_TRAINED_TAGS: usize = 5;

/// What kohya's sd-scripts recorded about a training run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KohyaMeta {
    /// `ss_base_model_version`, e.g. `sd_v1`, `sdxl_base_v1-0`, `flux1`.
    pub base_model_version: Option<String>,
    /// `ss_output_name`: the name the creator gave the run.
    pub output_name: Option<String>,
    /// `ss_sd_model_name`: the base checkpoint's file name.
    pub sd_model_name: Option<String>,
    /// `ss_network_module`, e.g. `networks.lora`, `lycoris.kohya`.
    pub network_module: Option<String>,
    pub network_dim: Option<u64>,
    pub network_alpha: Option<f64>,
    /// `ss_resolution` as written, e.g. `(512, 512)`.
    pub resolution: Option<String>,
    /// `ss_num_epochs` (planned), or the `ss_epoch` reached.
    pub epochs: Option<u64>,
    /// `ss_steps` (done), or `ss_max_train_steps`.
    pub steps: Option<u64>,
    pub num_train_images: Option<u64>,
    pub learning_rate: Option<f64>,
    pub optimizer: Option<String>,
    pub mixed_precision: Option<String>,
    pub clip_skip: Option<u64>,
    /// `ss_training_started_at`, seconds since the epoch.
    pub training_started_at: Option<f64>,
    /// The most frequent caption tags over all datasets, most frequent
    /// first (ties by name), at most [`TOP_TAGS`].
    pub top_tags: Vec<(String, u64)>,
}

impl KohyaMeta {
    /// The training metadata, when the map has any `ss_` key.
    pub fn from_metadata(meta: &BTreeMap<String, String>) -> Option<Self> {
        if !meta.keys().any(|k| k.starts_with("ss_")) {
            return None;
        }
        let text = |k: &str| {
            meta.get(k)
                .map(|v| v.trim())
                .filter(|v| !v.is_empty() && *v != "None")
                .map(str::to_string)
        };
        let int = |k: &str| {
            text(k)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| *v >= 0.0)
                .map(|v| v as u64)
        };
        let float = |k: &str| {
            text(k)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite())
        };
        Some(Self {
            base_model_version: text("ss_base_model_version"),
            output_name: text("ss_output_name"),
            sd_model_name: text("ss_sd_model_name"),
            network_module: text("ss_network_module"),
            network_dim: int("ss_network_dim"),
            network_alpha: float("ss_network_alpha"),
            resolution: text("ss_resolution"),
            epochs: int("ss_num_epochs").or_else(|| int("ss_epoch")),
            steps: int("ss_steps").or_else(|| int("ss_max_train_steps")),
            num_train_images: int("ss_num_train_images"),
            learning_rate: float("ss_learning_rate"),
            optimizer: text("ss_optimizer"),
            mixed_precision: text("ss_mixed_precision"),
            clip_skip: int("ss_clip_skip"),
            training_started_at: float("ss_training_started_at"),
            top_tags: top_tags(meta),
        })
    }
}

/// Tag counts summed over every dataset folder of `ss_tag_frequency`
/// (`{"10_name": {"tag": count}}`) or, when absent, of `ss_datasets`
/// (`[{"tag_frequency": {...}}]`). Malformed JSON counts nothing.
fn tag_counts(meta: &BTreeMap<String, String>) -> HashMap<String, u64> {
    type Freq = HashMap<String, HashMap<String, serde_json::Value>>;
    let mut folders: Vec<HashMap<String, serde_json::Value>> = Vec::new();
    if let Some(freq) = meta
        .get("ss_tag_frequency")
        .and_then(|v| serde_json::from_str::<Freq>(v).ok())
    {
        folders.extend(freq.into_values());
    } else if let Some(datasets) = meta
        .get("ss_datasets")
        .and_then(|v| serde_json::from_str::<Vec<serde_json::Value>>(v).ok())
    {
        for ds in datasets {
            if let Some(freq) = ds
                .get("tag_frequency")
                .and_then(|f| serde_json::from_value::<Freq>(f.clone()).ok())
            {
                folders.extend(freq.into_values());
            }
        }
    }
    let mut counts: HashMap<String, u64> = HashMap::new();
    for folder in folders {
        for (tag, n) in folder {
            let tag = tag.trim();
            let Some(n) = n.as_u64() else { continue };
            if tag.is_empty() || n == 0 {
                continue;
            }
            *counts.entry(tag.to_string()).or_default() += n;
        }
    }
    counts
}

fn top_tags(meta: &BTreeMap<String, String>) -> Vec<(String, u64)> {
    let mut tags: Vec<(String, u64)> = tag_counts(meta).into_iter().collect();
    tags.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    tags.truncate(TOP_TAGS);
    tags
}

/// The words that trigger the model: `modelspec.trigger_phrase` (comma
/// separated) first, then the most frequent training tags, those counted at
/// least half as often as the most frequent one (a trigger word is in every
/// caption), at most [`MAX_TRAINED_TAGS`]. No duplicates, order kept.
pub(crate) fn trained_words(
    meta: &BTreeMap<String, String>,
    kohya: Option<&KohyaMeta>,
) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut push = |w: &str| {
        let w = w.trim();
        if !w.is_empty() && !words.iter().any(|x| x.eq_ignore_ascii_case(w)) {
            words.push(w.to_string());
        }
    };
    if let Some(phrase) = meta.get("modelspec.trigger_phrase") {
        phrase.split(',').for_each(&mut push);
    }
    if let Some(k) = kohya {
        let max = k.top_tags.first().map_or(0, |(_, n)| *n);
        k.top_tags
            .iter()
            .filter(|(_, n)| n.saturating_mul(2) >= max)
            .take(MAX_TRAINED_TAGS)
            .for_each(|(t, _)| push(t));
    }
    words
}
