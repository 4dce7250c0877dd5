//! Models (spec 3 §7 Models, Model ranking, Training; spec 3 §3 "Lora and
//! embedding entries"; spec 1 §3 the task config's model fields): shared
//! checkpoints, LoRAs and embeddings, their versions and files, and the pure
//! rules around them. `model.rs` holds the wire types, `rules.rs` the limits
//! and the lenient readers of `model_type` and `base_model`; `train.rs`
//! datasets and training; `rank.rs` the ranking formula and boards,
//! `survey.rs` the ranking survey, `template.rs` creativity templates.

pub mod model;
pub mod rank;
pub mod rules;
pub mod survey;
pub mod template;
pub mod train;

pub use model::*;
