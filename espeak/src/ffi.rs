//! The raw C interface of `libespeak-ng.so.1` this crate uses (eSpeak NG's
//! `speak_lib.h`, API revision 12, as in 1.51): the constants, the
//! `espeak_EVENT` layout, and the six functions, resolved at run time with
//! `libloading` so nothing links against the library at build time.

use std::ffi::{c_char, c_int, c_short, c_uint, c_void};

use libloading::Library;

/// `AUDIO_OUTPUT_SYNCHRONOUS`: `espeak_Synth` returns when the text is
/// spoken, having handed every buffer to the callback on the calling thread.
pub const AUDIO_OUTPUT_SYNCHRONOUS: c_int = 2;
/// `espeakINITIALIZE_PHONEME_EVENTS`.
pub const INITIALIZE_PHONEME_EVENTS: c_int = 0x0001;
/// `espeakINITIALIZE_PHONEME_IPA`: phoneme events name IPA, not mnemonics.
pub const INITIALIZE_PHONEME_IPA: c_int = 0x0002;
/// `espeakINITIALIZE_DONT_EXIT`: without it a missing data directory makes
/// the library call `exit(1)`.
pub const INITIALIZE_DONT_EXIT: c_int = 0x8000;

/// `espeakCHARS_UTF8`.
pub const CHARS_UTF8: c_uint = 1;
/// `espeakSSML`.
pub const SSML: c_uint = 0x10;
/// `espeakENDPAUSE`: the sentence pause at the end, as the program makes.
pub const ENDPAUSE: c_uint = 0x1000;
/// `POS_CHARACTER`.
pub const POS_CHARACTER: c_int = 1;

/// `espeakEVENT_LIST_TERMINATED`.
pub const EVENT_LIST_TERMINATED: c_int = 0;
/// `espeakEVENT_WORD`.
pub const EVENT_WORD: c_int = 1;
/// `espeakEVENT_PHONEME`.
pub const EVENT_PHONEME: c_int = 7;

/// `espeakRATE`, words per minute (80-450).
pub const PARAM_RATE: c_int = 1;
/// `espeakVOLUME`, 0-200.
pub const PARAM_VOLUME: c_int = 2;
/// `espeakPITCH`, 0-100.
pub const PARAM_PITCH: c_int = 3;
/// `espeakRANGE`, 0-100.
pub const PARAM_RANGE: c_int = 4;

/// `EE_OK`.
pub const EE_OK: c_int = 0;

/// `espeak_EVENT`. The `id` union (`int number`, `const char *name`,
/// `char string[8]`) is read only as its `string` bytes, for phonemes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Event {
    pub kind: c_int,
    pub unique_identifier: c_uint,
    /// 1-based character position in the text.
    pub text_position: c_int,
    /// Word length in characters (word events).
    pub length: c_int,
    /// Milliseconds from the start of the message's audio.
    pub audio_position: c_int,
    /// Sample index from the start of the message's audio.
    pub sample: c_int,
    pub user_data: *mut c_void,
    /// `id.string`: the phoneme's UTF-8 name, NUL-terminated unless it
    /// takes all 8 bytes. The union is pointer-aligned; it sits after a
    /// pointer, so a byte array lays out the same.
    pub id: [u8; 8],
}

// The C struct is 40 bytes on 64-bit targets: six 4-byte fields, a
// pointer, the 8-byte union.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Event>() == 40);

/// `t_espeak_callback`.
pub type SynthCallback = unsafe extern "C" fn(*mut c_short, c_int, *mut Event) -> c_int;

type Initialize = unsafe extern "C" fn(c_int, c_int, *const c_char, c_int) -> c_int;
type SetSynthCallback = unsafe extern "C" fn(Option<SynthCallback>);
type SetVoiceByName = unsafe extern "C" fn(*const c_char) -> c_int;
type SetParameter = unsafe extern "C" fn(c_int, c_int, c_int) -> c_int;
type Synth = unsafe extern "C" fn(
    *const c_void,
    usize,
    c_uint,
    c_int,
    c_uint,
    c_uint,
    *mut c_uint,
    *mut c_void,
) -> c_int;

/// The loaded library and its functions. The function pointers are valid
/// for as long as `_lib` is loaded, which is as long as this value lives.
pub struct Api {
    pub initialize: Initialize,
    pub set_synth_callback: SetSynthCallback,
    pub set_voice_by_name: SetVoiceByName,
    pub set_parameter: SetParameter,
    pub synth: Synth,
    _lib: Library,
}

impl Api {
    /// Loads the library at `path` (a file name searched like `dlopen`
    /// does, or a path) and resolves the functions.
    pub fn load(path: &std::ffi::OsStr) -> Result<Api, String> {
        // SAFETY: loading runs the library's initialisers; libespeak-ng's
        // are C static initialisers with no preconditions on the caller.
        let lib = unsafe { Library::new(path) }.map_err(|e| e.to_string())?;
        Ok(Api {
            initialize: symbol(&lib, b"espeak_Initialize\0")?,
            set_synth_callback: symbol(&lib, b"espeak_SetSynthCallback\0")?,
            set_voice_by_name: symbol(&lib, b"espeak_SetVoiceByName\0")?,
            set_parameter: symbol(&lib, b"espeak_SetParameter\0")?,
            synth: symbol(&lib, b"espeak_Synth\0")?,
            _lib: lib,
        })
    }
}

/// A function of `lib`, copied out of its symbol; the caller keeps `lib`
/// loaded while it uses the pointer (see [`Api`]).
fn symbol<T: Copy>(lib: &Library, name: &[u8]) -> Result<T, String> {
    // SAFETY: every `T` this is called with is the exact C signature of the
    // symbol named, as declared in speak_lib.h (API revision 12).
    let sym = unsafe { lib.get::<T>(name) };
    sym.map(|s| *s).map_err(|e| e.to_string())
}
