//! Rendering a [`Score`] with `rustysynth` from a General MIDI SoundFont
//! (Debian's FluidR3_GM by default; loaded once per path and shared):
//! events placed by sample position, reverb and chorus on, cut to exactly
//! the score's length with a fade-out, then peak-normalised.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustysynth::{SoundFont, Synthesizer, SynthesizerSettings};

use super::compose::{Score, DRUMS};
use crate::{AudioError, Pcm};

/// Debian's `fluid-soundfont-gm`.
pub const DEFAULT_SOUNDFONT: &str = "/usr/share/sounds/sf2/FluidR3_GM.sf2";
/// The rate music is rendered at.
pub const RATE: u32 = 44_100;
/// Seconds of the closing fade.
const FADE: f64 = 1.5;
/// The peak level after normalising (-1 dBFS).
const PEAK: f32 = 0.891;

static FONTS: OnceLock<Mutex<HashMap<PathBuf, Arc<SoundFont>>>> = OnceLock::new();

/// The SoundFont at `path` (or the default), parsed once per process.
pub fn soundfont(path: Option<&Path>) -> Result<Arc<SoundFont>, AudioError> {
    let path = path.map_or_else(|| PathBuf::from(DEFAULT_SOUNDFONT), Path::to_path_buf);
    let cache = FONTS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(f) = cache.lock().ok().and_then(|c| c.get(&path).cloned()) {
        return Ok(f);
    }
    let file = std::fs::File::open(&path).map_err(|e| {
        AudioError::Unavailable(format!(
            "no SoundFont at {} ({e}); install fluid-soundfont-gm or set EASEL_SOUNDFONT",
            path.display()
        ))
    })?;
    let mut reader = std::io::BufReader::new(file);
    let font = Arc::new(SoundFont::new(&mut reader).map_err(|e| {
        AudioError::Unavailable(format!("{} is not a SoundFont: {e:?}", path.display()))
    })?);
    if let Ok(mut c) = cache.lock() {
        c.insert(path, font.clone());
    }
    Ok(font)
}

/// A MIDI event at a sample position.
#[derive(Debug, Clone, Copy)]
struct Event {
    at: usize,
    on: bool,
    channel: u8,
    key: u8,
    velocity: u8,
}

/// Renders `score` to stereo PCM at [`RATE`], exactly
/// `round(score.seconds * RATE)` frames, faded and normalised. `cancel`
/// is checked between blocks.
pub fn render(
    score: &Score,
    font: &Arc<SoundFont>,
    cancel: &dyn Fn() -> bool,
) -> Result<Pcm, AudioError> {
    let settings = SynthesizerSettings::new(RATE as i32);
    let mut synth = Synthesizer::new(font, &settings)
        .map_err(|e| AudioError::Failed(format!("synthesiser: {e:?}")))?;
    // Drums up front: the beat carries the song.
    synth.process_midi_message(i32::from(DRUMS), 0xB0, 7, 127);
    for &(ch, program) in &score.programs {
        synth.process_midi_message(i32::from(ch), 0xC0, i32::from(program), 0);
        // Channel volume: the pad and chords sit under the melody and bass.
        let vol = match ch {
            0 => 110,
            2 => 105,
            3 => 62,
            _ => 85,
        };
        synth.process_midi_message(i32::from(ch), 0xB0, 7, vol);
    }
    let frames = (score.seconds * f64::from(RATE)).round() as usize;
    let pos = |t: f64| (t.max(0.0) * f64::from(RATE)).round() as usize;
    let mut events = Vec::with_capacity(score.notes.len() * 2);
    for n in &score.notes {
        let on = pos(n.at);
        if on >= frames {
            continue;
        }
        events.push(Event {
            at: on,
            on: true,
            channel: n.channel,
            key: n.key,
            velocity: n.velocity,
        });
        if n.channel != DRUMS {
            events.push(Event {
                at: pos(n.at + n.len).max(on + 1),
                on: false,
                channel: n.channel,
                key: n.key,
                velocity: 0,
            });
        }
    }
    // Offs before ons at the same sample, so repeated notes retrigger.
    events.sort_by_key(|e| (e.at, e.on));
    let mut left = vec![0f32; frames];
    let mut right = vec![0f32; frames];
    let mut done = 0usize;
    let mut next = 0usize;
    const BLOCK: usize = 4096;
    while done < frames {
        if cancel() {
            return Err(AudioError::Cancelled);
        }
        while let Some(e) = events.get(next).filter(|e| e.at <= done) {
            if e.on {
                synth.note_on(
                    i32::from(e.channel),
                    i32::from(e.key),
                    i32::from(e.velocity),
                );
            } else {
                synth.note_off(i32::from(e.channel), i32::from(e.key));
            }
            next += 1;
        }
        let until = events
            .get(next)
            .map_or(frames, |e| e.at)
            .min(done + BLOCK)
            .min(frames)
            .max(done + 1);
        let (Some(l), Some(r)) = (left.get_mut(done..until), right.get_mut(done..until)) else {
            break;
        };
        synth.render(l, r);
        done = until;
    }
    let mut samples = Vec::with_capacity(frames * 2);
    for (l, r) in left.iter().zip(&right) {
        samples.push(*l);
        samples.push(*r);
    }
    let mut pcm = Pcm {
        rate: RATE,
        channels: 2,
        samples,
    };
    fade_out(&mut pcm, FADE.min(score.seconds / 4.0));
    normalise(&mut pcm, PEAK);
    Ok(pcm)
}

/// A linear fade over the last `secs` (and 10 ms in, against clicks).
pub fn fade_out(pcm: &mut Pcm, secs: f64) {
    let c = usize::from(pcm.channels.max(1));
    let frames = pcm.frames();
    let n = ((secs * f64::from(pcm.rate)) as usize).min(frames);
    let fade_in = (pcm.rate as usize / 100).min(frames);
    for (i, frame) in pcm.samples.chunks_exact_mut(c).enumerate() {
        let mut g = 1.0f32;
        if i < fade_in {
            g *= i as f32 / fade_in as f32;
        }
        if n > 0 && i + n >= frames {
            g *= (frames - i) as f32 / n as f32;
        }
        if g < 1.0 {
            frame.iter_mut().for_each(|s| *s *= g);
        }
    }
}

/// Scales to `peak` (nothing for silence).
pub fn normalise(pcm: &mut Pcm, peak: f32) {
    let max = pcm.samples.iter().fold(0f32, |m, s| m.max(s.abs()));
    if max > 1e-6 {
        let g = peak / max;
        pcm.samples.iter_mut().for_each(|s| *s *= g);
    }
}
