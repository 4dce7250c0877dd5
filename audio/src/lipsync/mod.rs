//! Lip-sync: the mouth region of a found face animated by the audio's loudness and phonemes, muxed into an MP4.

use std::sync::Arc;

use engines::{Cancel, EngineError, EngineResult, LoadedInput, Progress};
use protocol::task::JobSpec;

use crate::engine::AudioContext;

/// Runs one lip-sync job for the audio engine.
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
