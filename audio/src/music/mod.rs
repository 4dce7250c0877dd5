//! Music: composition from a prompt's mood and a song's lyrics, rendered by a SoundFont synthesiser (non-neural, labelled).

use std::sync::Arc;

use engines::{Cancel, EngineError, EngineResult, LoadedInput, Progress};
use protocol::task::JobSpec;

use crate::engine::AudioContext;

/// Runs one music job for the audio engine.
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
