//! Generation tasks: the spec's codes (spec 1 §4), requests (§3, §7), the
//! polled task, the job that travels to workers, and the server's rules (§5,
//! §6, §9) as pure functions.

pub mod codes;
pub mod job;
pub mod request;
pub mod task;

pub use codes::{Action, Category, SpeedType, TaskStatus};
pub use job::{EngineInfo, InputRole, JobInput, JobOutput, JobSpec, WorkerEvent};
pub use request::{CreateTaskRequest, TaskMeta};
pub use task::TaskView;
