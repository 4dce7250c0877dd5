//! Sound effects synthesised from a description by signal graphs (non-neural, labelled).
