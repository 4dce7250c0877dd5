//! eSpeak NG through its C library, loaded at run time: [`synth`] speaks a
//! text (plain or SSML) in a voice with a rate, pitch, range and volume, and
//! answers the 16-bit PCM with the phoneme (IPA) and word events the
//! library reported, at their sample positions. The library keeps global
//! state and is not thread-safe: it is loaded and initialised once
//! (synchronous output, phoneme events in IPA), and every call holds one
//! process-wide lock. `EASEL_ESPEAK_LIB` names another library file
//! (default `libespeak-ng.so.1`); when it cannot be loaded every call
//! answers [`EspeakError::Unavailable`] and the caller falls back.

mod ffi;

use std::cell::RefCell;
use std::ffi::{c_int, c_short, c_uint, CString, OsString};
use std::sync::{Mutex, OnceLock};

/// The library file loaded when `EASEL_ESPEAK_LIB` is not set.
pub const DEFAULT_LIBRARY: &str = "libespeak-ng.so.1";

/// What to speak, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request<'a> {
    /// Plain text, or an SSML document when `ssml` is set.
    pub text: &'a str,
    /// An eSpeak voice name, with a variant if any (`en-us`, `en-us+f3`).
    pub voice: &'a str,
    /// Words per minute, 80-450.
    pub rate: u32,
    /// Base pitch, 0-100 (50 normal).
    pub pitch: u32,
    /// Pitch range, 0-100 (50 normal, 0 monotone).
    pub range: u32,
    /// Volume, 0-200 (100 normal).
    pub volume: u32,
    /// Whether `text` is SSML (`<speak>`, `<break time="1s"/>`, ...).
    pub ssml: bool,
}

/// One phoneme the library spoke. Pauses have an empty `ipa`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhonemeEvent {
    /// Milliseconds from the start of the audio.
    pub at_ms: u32,
    /// Sample index from the start of the audio.
    pub sample: u64,
    /// The phoneme in IPA, without stress marks (`h`, `oʊ`, `ɜː`).
    pub ipa: String,
}

/// One word the library spoke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordEvent {
    /// Milliseconds from the start of the audio.
    pub at_ms: u32,
    /// Sample index from the start of the audio.
    pub sample: u64,
    /// Where the word starts in the text, in characters (Unicode scalar
    /// values) from 0; in SSML the markup counts too.
    pub text_pos: usize,
    /// The word's length in characters.
    pub len: usize,
}

/// What the library made.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Synthesis {
    /// Mono 16-bit samples.
    pub samples: Vec<i16>,
    pub sample_rate: u32,
    /// In the order spoken; `at_ms` never decreases.
    pub phonemes: Vec<PhonemeEvent>,
    pub words: Vec<WordEvent>,
}

impl Synthesis {
    /// The samples as `f32` in -1..1.
    pub fn samples_f32(&self) -> Vec<f32> {
        self.samples
            .iter()
            .map(|s| f32::from(*s) / 32768.0)
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EspeakError {
    /// The library cannot be loaded or initialised here.
    #[error("the eSpeak NG library is unavailable: {0}")]
    Unavailable(String),
    /// The library does not know the voice.
    #[error("eSpeak NG has no voice `{0}`")]
    UnknownVoice(String),
    /// The text or voice cannot be handed to C (a NUL byte).
    #[error("{0}")]
    BadInput(String),
    /// `stop` answered true during synthesis.
    #[error("speech synthesis was stopped")]
    Stopped,
    #[error("eSpeak NG failed: {0}")]
    Failed(String),
}

/// The loaded, initialised library and its output sample rate.
struct Engine {
    api: ffi::Api,
    sample_rate: u32,
}

static ENGINE: OnceLock<Result<Mutex<Engine>, String>> = OnceLock::new();

/// The library file to load: `$EASEL_ESPEAK_LIB` or [`DEFAULT_LIBRARY`].
pub fn library_path() -> OsString {
    std::env::var_os("EASEL_ESPEAK_LIB").unwrap_or_else(|| DEFAULT_LIBRARY.into())
}

fn engine() -> Result<&'static Mutex<Engine>, EspeakError> {
    ENGINE
        .get_or_init(|| {
            let path = library_path();
            let r = init(&path).map_err(|e| format!("{}: {e}", path.to_string_lossy()));
            match &r {
                Ok(e) => tracing::info!(
                    "eSpeak NG library {} loaded ({} Hz)",
                    path.to_string_lossy(),
                    e.sample_rate
                ),
                Err(e) => tracing::warn!("eSpeak NG library unavailable: {e}"),
            }
            r.map(Mutex::new)
        })
        .as_ref()
        .map_err(|e| EspeakError::Unavailable(e.clone()))
}

fn init(path: &std::ffi::OsStr) -> Result<Engine, String> {
    let api = ffi::Api::load(path)?;
    let options =
        ffi::INITIALIZE_PHONEME_EVENTS | ffi::INITIALIZE_PHONEME_IPA | ffi::INITIALIZE_DONT_EXIT;
    // SAFETY: called once per process (inside the `OnceLock`), before any
    // other call; a null path means the library's default data directory.
    let rate =
        unsafe { (api.initialize)(ffi::AUDIO_OUTPUT_SYNCHRONOUS, 0, std::ptr::null(), options) };
    let sample_rate = u32::try_from(rate)
        .ok()
        .filter(|r| *r > 0)
        .ok_or_else(|| format!("espeak_Initialize failed ({rate})"))?;
    // SAFETY: `on_synth` has the callback's C signature and never unwinds.
    unsafe { (api.set_synth_callback)(Some(on_synth)) };
    Ok(Engine { api, sample_rate })
}

/// Whether the library is loaded (loading it on first use), and its
/// sample rate.
pub fn available() -> Result<u32, EspeakError> {
    let e = engine()?;
    Ok(lock(e).sample_rate)
}

fn lock(m: &Mutex<Engine>) -> std::sync::MutexGuard<'_, Engine> {
    // A panic while holding the lock leaves nothing half-done on our side:
    // every call sets the voice and parameters afresh.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the callback gathers during one `espeak_Synth` call; it lives in a
/// thread-local because synchronous output calls back on the calling
/// thread, which holds the engine lock meanwhile.
struct Gather {
    out: Synthesis,
    stop: Box<dyn Fn() -> bool>,
    stopped: bool,
}

thread_local! {
    static GATHER: RefCell<Option<Gather>> = const { RefCell::new(None) };
}

/// At most this many events are read from one callback's list (a guard
/// against a list that is never terminated).
const MAX_EVENTS: usize = 1 << 16;

unsafe extern "C" fn on_synth(wav: *mut c_short, n: c_int, events: *mut ffi::Event) -> c_int {
    let samples: &[i16] = match usize::try_from(n) {
        Ok(len) if len > 0 && !wav.is_null() => {
            // SAFETY: the library hands `n` valid samples at `wav` for the
            // duration of this call.
            unsafe { std::slice::from_raw_parts(wav, len) }
        }
        _ => &[],
    };
    let mut list = Vec::new();
    if !events.is_null() {
        for i in 0..MAX_EVENTS {
            let at = events.wrapping_add(i);
            // SAFETY: the event array is terminated by an event of type 0,
            // and this stops at it, so `at` stays inside the array.
            let e = unsafe { at.read() };
            if e.kind == ffi::EVENT_LIST_TERMINATED {
                break;
            }
            list.push(e);
        }
    }
    GATHER.with(|g| {
        let Ok(mut g) = g.try_borrow_mut() else {
            return 1;
        };
        let Some(g) = g.as_mut() else {
            // A call this crate did not make: stop it.
            return 1;
        };
        g.out.samples.extend_from_slice(samples);
        for e in &list {
            record(&mut g.out, e);
        }
        // A panic must not unwind into C: a panicking `stop` stops.
        let stop = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (g.stop)()));
        if stop.unwrap_or(true) {
            g.stopped = true;
            return 1;
        }
        0
    })
}

fn record(out: &mut Synthesis, e: &ffi::Event) {
    let at_ms = u32::try_from(e.audio_position).unwrap_or(0);
    let sample = u64::try_from(e.sample).unwrap_or(0);
    match e.kind {
        ffi::EVENT_PHONEME => out.phonemes.push(PhonemeEvent {
            at_ms,
            sample,
            ipa: phoneme_name(&e.id),
        }),
        // The library sometimes reports a word at a clause boundary with no
        // position and no length: that is no word.
        ffi::EVENT_WORD if e.text_position > 0 && e.length > 0 => out.words.push(WordEvent {
            at_ms,
            sample,
            text_pos: usize::try_from(e.text_position - 1).unwrap_or(0),
            len: usize::try_from(e.length).unwrap_or(0),
        }),
        _ => {}
    }
}

/// The phoneme name of an event: UTF-8 up to the first NUL, cut at the last
/// whole character when all 8 bytes are used; stress marks dropped.
fn phoneme_name(id: &[u8; 8]) -> String {
    let end = id.iter().position(|b| *b == 0).unwrap_or(id.len());
    let bytes = id.get(..end).unwrap_or_default();
    let s = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => bytes
            .get(..e.valid_up_to())
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or_default(),
    };
    s.chars().filter(|c| !matches!(c, 'ˈ' | 'ˌ')).collect()
}

/// Clears the thread's gatherer even when the synthesis call unwinds.
struct Reset;

impl Drop for Reset {
    fn drop(&mut self) {
        GATHER.with(|g| {
            if let Ok(mut g) = g.try_borrow_mut() {
                *g = None;
            }
        });
    }
}

/// Speaks `req`, blocking until done; `stop` is asked after each buffer
/// (about every 60 ms of audio) and ends synthesis with
/// [`EspeakError::Stopped`] when it answers true (or panics). Calls from
/// several threads take turns.
pub fn synth(
    req: &Request<'_>,
    stop: impl Fn() -> bool + 'static,
) -> Result<Synthesis, EspeakError> {
    let voice = CString::new(req.voice)
        .map_err(|_| EspeakError::BadInput("a voice name cannot contain NUL".into()))?;
    let text = CString::new(req.text)
        .map_err(|_| EspeakError::BadInput("the text cannot contain NUL".into()))?;
    let engine = lock(engine()?);
    let api = &engine.api;
    // SAFETY: `voice` is a NUL-terminated string that outlives the call;
    // the engine lock is held.
    let r = unsafe { (api.set_voice_by_name)(voice.as_ptr()) };
    if r != ffi::EE_OK {
        return Err(EspeakError::UnknownVoice(req.voice.to_string()));
    }
    let params = [
        (ffi::PARAM_RATE, req.rate.clamp(80, 450)),
        (ffi::PARAM_PITCH, req.pitch.min(100)),
        (ffi::PARAM_RANGE, req.range.min(100)),
        (ffi::PARAM_VOLUME, req.volume.min(200)),
    ];
    for (p, v) in params {
        let v = c_int::try_from(v).unwrap_or(0);
        // SAFETY: plain integers; the engine lock is held.
        let r = unsafe { (api.set_parameter)(p, v, 0) };
        if r != ffi::EE_OK {
            return Err(EspeakError::Failed(format!(
                "espeak_SetParameter({p}, {v}) answered {r}"
            )));
        }
    }
    GATHER.with(|g| {
        if let Ok(mut g) = g.try_borrow_mut() {
            *g = Some(Gather {
                out: Synthesis {
                    sample_rate: engine.sample_rate,
                    ..Synthesis::default()
                },
                stop: Box::new(stop),
                stopped: false,
            });
        }
    });
    let _reset = Reset;
    let mut flags = ffi::CHARS_UTF8 | ffi::ENDPAUSE;
    if req.ssml {
        flags |= ffi::SSML;
    }
    let bytes = text.as_bytes_with_nul();
    let mut id: c_uint = 0;
    // SAFETY: `text` is NUL-terminated UTF-8 that outlives this synchronous
    // call; `id` is a valid out-pointer; user data is unused; the engine
    // lock is held and the callback was set at initialisation.
    let r = unsafe {
        (api.synth)(
            bytes.as_ptr().cast(),
            bytes.len(),
            0,
            ffi::POS_CHARACTER,
            0,
            flags,
            &mut id,
            std::ptr::null_mut(),
        )
    };
    let gathered = GATHER.with(|g| g.try_borrow_mut().ok().and_then(|mut g| g.take()));
    drop(engine);
    let g = gathered.ok_or_else(|| EspeakError::Failed("the synthesis state was lost".into()))?;
    if g.stopped {
        return Err(EspeakError::Stopped);
    }
    if r != ffi::EE_OK {
        return Err(EspeakError::Failed(format!("espeak_Synth answered {r}")));
    }
    let mut out = g.out;
    // Events come in speaking order; make the promise hold regardless.
    out.phonemes.sort_by_key(|p| p.sample);
    out.words.sort_by_key(|w| w.sample);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phoneme_names_stop_at_nul_and_whole_characters() {
        let mut id = [0u8; 8];
        id.get_mut(..3)
            .unwrap_or_default()
            .copy_from_slice("oʊ".as_bytes());
        assert_eq!(phoneme_name(&id), "oʊ");
        // Eight bytes with a two-byte character cut after its first byte.
        let full: [u8; 8] = [b'a', b'b', b'c', b'd', b'e', b'f', b'g', 0xC9];
        assert_eq!(phoneme_name(&full), "abcdefg");
        let stressed = {
            let mut id = [0u8; 8];
            let s = "ˈa".as_bytes();
            id.get_mut(..s.len()).unwrap_or_default().copy_from_slice(s);
            id
        };
        assert_eq!(phoneme_name(&stressed), "a");
        assert_eq!(phoneme_name(&[0; 8]), "");
    }
}
