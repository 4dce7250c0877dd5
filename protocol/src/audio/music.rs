//! Music, sound effects and lyrics (spec 2 §1, §3 aiVoice and videoAddMusic, §7): wire types and rules.
