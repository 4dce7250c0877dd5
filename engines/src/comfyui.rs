//! ComfyUI adapter. Being written.
