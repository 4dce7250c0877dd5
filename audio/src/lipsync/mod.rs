//! Lip-sync: the mouth region of a found face animated by the audio's loudness and phonemes, muxed into an MP4.
