//! Music: composition from a prompt's mood and a song's lyrics, rendered by a SoundFont synthesiser (non-neural, labelled).
