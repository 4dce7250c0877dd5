//! Generation tasks: the spec's codes (spec 1 §4), requests (§3, §7), the
//! polled task, the job that travels to workers, and the server's rules (§5,
//! §6, §9) as pure functions.

pub mod catalogue;
pub mod codes;
pub mod cost;
pub mod defaults;
mod inputs;
pub mod job;
pub mod request;
pub mod rules;
mod rules_fields;
pub mod user_models;
pub mod view;

pub use catalogue::{aspect_match, catalogue, check_size, Catalogue};
pub use codes::{Action, Category, SpeedType, TaskStatus};
pub use cost::{cost, estimate_secs};
pub use job::{
    EngineInfo, InputRole, JobInput, JobOutput, JobSpec, LoraSpec, ModelFileRef, NsfwLabel,
    NsfwScore, WorkerEvent,
};
pub use request::{CreateTaskRequest, TaskMeta};
pub use rules::{prepare, prepare_with, Caller, Prepared, Role};
pub use user_models::{ModelUse, UserModel, UserModels};
pub use view::TaskView;
