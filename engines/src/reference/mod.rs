//! The built-in reference engine (CPU, no weights, deterministic, non-neural).
//! Being written; see the issue.
