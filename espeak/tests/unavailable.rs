//! Without the library (here: `EASEL_ESPEAK_LIB` naming a file that does
//! not exist) every call answers `Unavailable`, naming the file, and none
//! crashes.

use easel_espeak::{available, synth, EspeakError, Request};

#[test]
fn a_missing_library_answers_unavailable() {
    std::env::set_var("EASEL_ESPEAK_LIB", "/nonexistent/libespeak-ng.so.1");
    let req = Request {
        text: "hello",
        voice: "en-us",
        rate: 175,
        pitch: 50,
        range: 50,
        volume: 100,
        ssml: false,
    };
    for _ in 0..2 {
        match synth(&req, || false) {
            Err(EspeakError::Unavailable(why)) => {
                assert!(why.contains("/nonexistent/libespeak-ng.so.1"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(available(), Err(EspeakError::Unavailable(_))));
}
