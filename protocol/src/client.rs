//! filled below
