//! Encoding and decoding through Debian's `ffmpeg` (a child process, killed
//! on cancel; the runner is `engines`' video one): [`encode`] turns [`Pcm`]
//! into AAC in an M4A (the spec's `audio/aac`) or Opus, [`decode`] reads any
//! audio or video file ffmpeg knows into [`Pcm`] (so uploads are checked by
//! decoding, never by their extension).

use std::path::Path;

use engines::reference::video::ffmpeg::{run, temp_input, tempdir};
use engines::{Cancel, EngineError};

use crate::{AudioError, Pcm};

/// An encoded audio format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// AAC-LC in an MP4 (M4A) with `+faststart`.
    M4a,
    /// Opus in Ogg, 48 kHz.
    Opus,
}

impl Format {
    /// The content type stored with the file. M4A is `audio/aac` as spec 3
    /// §9 names the app's audio type; browsers sniff the MP4 container.
    pub const fn mime(self) -> &'static str {
        match self {
            Format::M4a => "audio/aac",
            Format::Opus => "audio/ogg",
        }
    }

    pub const fn ext(self) -> &'static str {
        match self {
            Format::M4a => "m4a",
            Format::Opus => "opus",
        }
    }
}

/// Writes `pcm` as a 16-bit WAV file.
pub fn write_wav(pcm: &Pcm, path: &Path) -> Result<(), AudioError> {
    let spec = hound::WavSpec {
        channels: pcm.channels.max(1),
        sample_rate: pcm.rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec)
        .map_err(|e| AudioError::Failed(format!("cannot write a wav file: {e}")))?;
    for s in &pcm.samples {
        let v = (s.clamp(-1.0, 1.0) * 32767.0).round() as i16;
        w.write_sample(v)
            .map_err(|e| AudioError::Failed(format!("cannot write a wav file: {e}")))?;
    }
    w.finalize()
        .map_err(|e| AudioError::Failed(format!("cannot write a wav file: {e}")))
}

/// The bytes of `pcm` as a 16-bit WAV file.
pub fn wav_bytes(pcm: &Pcm) -> Result<Vec<u8>, AudioError> {
    let dir = tempdir().map_err(AudioError::from)?;
    let path = dir.path().join("a.wav");
    write_wav(pcm, &path)?;
    Ok(std::fs::read(path)?)
}

/// Encodes `pcm` (any rate, mono or stereo).
pub fn encode(pcm: &Pcm, format: Format, cancel: &Cancel) -> Result<Vec<u8>, AudioError> {
    if pcm.samples.is_empty() || pcm.rate == 0 {
        return Err(AudioError::BadInput("no audio to encode".into()));
    }
    let dir = tempdir().map_err(AudioError::from)?;
    write_wav(pcm, &dir.path().join("in.wav"))?;
    let out = format!("out.{}", format.ext());
    let mut args: Vec<String> = ["-nostdin", "-v", "error", "-y", "-i", "in.wav"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let codec: &[&str] = match format {
        Format::M4a => &["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"],
        Format::Opus => &["-c:a", "libopus", "-b:a", "64k", "-ar", "48000"],
    };
    args.extend(codec.iter().map(|s| s.to_string()));
    args.push(out.clone());
    run(&args, dir.path(), &|| cancel.is_cancelled()).map_err(AudioError::from)?;
    Ok(std::fs::read(dir.path().join(out))?)
}

/// Decodes the first audio stream of a file (any container ffmpeg reads,
/// a video's sound too) to `rate` Hz and `channels` channels. A file with
/// no decodable audio is [`AudioError::BadInput`].
pub fn decode(bytes: &[u8], rate: u32, channels: u16, cancel: &Cancel) -> Result<Pcm, AudioError> {
    let input = temp_input(bytes).map_err(AudioError::from)?;
    decode_path(input.path(), rate, channels, cancel)
}

/// [`decode`] for a file on disk.
pub fn decode_path(
    path: &Path,
    rate: u32,
    channels: u16,
    cancel: &Cancel,
) -> Result<Pcm, AudioError> {
    let dir = tempdir().map_err(AudioError::from)?;
    let args: Vec<String> = vec![
        "-nostdin".into(),
        "-v".into(),
        "error".into(),
        "-y".into(),
        "-i".into(),
        path.display().to_string(),
        "-map".into(),
        "0:a:0".into(),
        "-f".into(),
        "f32le".into(),
        "-ac".into(),
        channels.max(1).to_string(),
        "-ar".into(),
        rate.to_string(),
        "out.raw".into(),
    ];
    run(&args, dir.path(), &|| cancel.is_cancelled()).map_err(|e| match e {
        EngineError::Cancelled => AudioError::Cancelled,
        EngineError::Failed(m) | EngineError::BadInput(m) | EngineError::Unavailable(m) => {
            AudioError::BadInput(format!("not readable audio: {m}"))
        }
    })?;
    let raw = std::fs::read(dir.path().join("out.raw"))?;
    let samples: Vec<f32> = raw
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
        .collect();
    if samples.is_empty() {
        return Err(AudioError::BadInput("the file has no audio".into()));
    }
    Ok(Pcm {
        rate,
        channels: channels.max(1),
        samples,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn tone(secs: f32) -> Pcm {
        let rate = 22_050;
        let n = (secs * rate as f32) as usize;
        Pcm::mono(
            rate,
            (0..n)
                .map(|i| 0.5 * (i as f32 * 330.0 * std::f32::consts::TAU / rate as f32).sin())
                .collect(),
        )
    }

    #[test]
    fn m4a_and_opus_round_trip_with_their_length_and_level() {
        let pcm = tone(1.5);
        for f in [Format::M4a, Format::Opus] {
            let bytes = encode(&pcm, f, &Cancel::new()).unwrap();
            let back = decode(&bytes, 22_050, 1, &Cancel::new()).unwrap();
            assert!(
                (back.duration() - 1.5).abs() < 0.1,
                "{f:?} {}",
                back.duration()
            );
            assert!((back.rms() - pcm.rms()).abs() < 0.05, "{f:?}");
        }
    }

    #[test]
    fn text_is_not_audio() {
        let e = decode(b"hello, I am not a sound", 16_000, 1, &Cancel::new()).unwrap_err();
        assert!(matches!(e, AudioError::BadInput(_)), "{e}");
        let e = encode(&Pcm::default(), Format::M4a, &Cancel::new()).unwrap_err();
        assert!(matches!(e, AudioError::BadInput(_)));
    }
}
