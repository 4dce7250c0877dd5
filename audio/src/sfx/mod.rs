//! Sound effects synthesised from a description by signal graphs (non-neural, labelled).

use std::sync::Arc;

use engines::{Cancel, EngineError, EngineResult, LoadedInput, Progress};
use protocol::task::JobSpec;

use crate::engine::AudioContext;

/// Runs one sound-effect job for the audio engine.
pub async fn run_task(
    _ctx: Arc<AudioContext>,
    job: &JobSpec,
    _inputs: Vec<LoadedInput>,
    _progress: Arc<dyn Progress>,
    _cancel: Cancel,
) -> Result<EngineResult, EngineError> {
    Err(EngineError::Failed(format!(
        "{} is not built yet",
        job.action.name()
    )))
}
