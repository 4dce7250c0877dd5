//! OpenAI-compatible image API adapter. Being written.
