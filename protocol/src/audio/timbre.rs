//! Voices (timbre, spec 3 §3, §7): value sets, wire types and rules.
