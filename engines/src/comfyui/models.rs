//! Users' model files on ComfyUI (issue 19). ComfyUI loads models only from
//! its own `models/` folder, so with a folder shared between the worker and
//! the ComfyUI server (`EASEL_COMFYUI_MODELS_DIR`, the `models_dir`
//! setting) the adapter places each verified file the worker fetched
//! (`ModelFileRef::local_path`) as `checkpoints/{name}`, `loras/{name}` or
//! `embeddings/{name}`: a hard link when both sit on one file system, else a
//! copy, written under a temporary name and renamed, so ComfyUI never sees
//! a part of a file. Names carry the file's AutoV2 hash, so a name already
//! there with the right size is the same file and is reused.
//!
//! The workflow then names the files: `CheckpointLoaderSimple.ckpt_name`,
//! `LoraLoader.lora_name`, and `embedding:{name}` in the positive prompt
//! (ComfyUI's prompt syntax for textual inversions). Without the setting a
//! job with a user model fails with a clear reason: ComfyUI cannot load a
//! file it cannot see.

use std::path::{Path, PathBuf};

use protocol::task::{JobSpec, ModelFileRef};

use crate::EngineError;

/// Whether a job names users' model files.
pub(crate) fn has_user_models(job: &JobSpec) -> bool {
    job.model_file.is_some()
        || job.loras.iter().any(|l| l.file.is_some())
        || !job.embeddings.is_empty()
}

/// A ComfyUI models folder name must be a plain file name.
fn plain_name(name: &str) -> Result<&str, EngineError> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
        && name.len() <= 200;
    if ok {
        Ok(name)
    } else {
        Err(EngineError::BadInput(format!(
            "bad model file name {name:?}"
        )))
    }
}

/// Places one file as `{models_dir}/{sub}/{name}`; answers the name.
fn place(models_dir: &Path, sub: &str, f: &ModelFileRef) -> Result<String, EngineError> {
    let name = plain_name(&f.name)?;
    let src = f.local_path.as_ref().ok_or_else(|| {
        EngineError::Failed(format!("model file {name} was not fetched by the worker"))
    })?;
    let dir = models_dir.join(sub);
    std::fs::create_dir_all(&dir)
        .map_err(|e| EngineError::Failed(format!("creating {}: {e}", dir.display())))?;
    let target = dir.join(name);
    if std::fs::metadata(&target).is_ok_and(|m| m.len() == f.size) {
        return Ok(name.to_owned());
    }
    let tmp: PathBuf = dir.join(format!(".{name}.part-{}", uuid::Uuid::now_v7().simple()));
    let linked = std::fs::hard_link(src, &tmp).or_else(|_| std::fs::copy(src, &tmp).map(|_| ()));
    let placed = linked.and_then(|()| std::fs::rename(&tmp, &target));
    if let Err(e) = placed {
        let _ = std::fs::remove_file(&tmp);
        return Err(EngineError::Failed(format!(
            "placing {name} in {}: {e}",
            dir.display()
        )));
    }
    Ok(name.to_owned())
}

/// The job as ComfyUI should run it: users' files placed in the shared
/// models folder and named where the workflow reads them (the checkpoint's
/// file as `model`, each user LoRA's file as its `model`, embeddings in the
/// prompt). Jobs without user models pass unchanged.
pub(crate) fn with_placed_models(
    job: &JobSpec,
    models_dir: Option<&Path>,
) -> Result<JobSpec, EngineError> {
    if !has_user_models(job) {
        return Ok(job.clone());
    }
    let dir = models_dir.ok_or_else(|| {
        EngineError::BadInput(
            "this ComfyUI engine cannot load users' models: it has no shared models folder \
             (set EASEL_COMFYUI_MODELS_DIR, or models_dir, to the ComfyUI server's models/ \
             folder as the worker sees it)"
                .into(),
        )
    })?;
    let mut out = job.clone();
    if let Some(f) = &job.model_file {
        out.model = place(dir, "checkpoints", f)?;
    }
    for (l, o) in job.loras.iter().zip(out.loras.iter_mut()) {
        if let Some(f) = &l.file {
            o.model = place(dir, "loras", f)?;
        }
    }
    for f in &job.embeddings {
        let name = place(dir, "embeddings", f)?;
        out.prompt = if out.prompt.is_empty() {
            format!("embedding:{name}")
        } else {
            format!("{}, embedding:{name}", out.prompt)
        };
    }
    Ok(out)
}
