//! Fuzz target: arbitrary bytes, decoded as UTF-8 (lossily), are parsed in
//! both prompt dialects, rendered and parsed again; the results must be equal
//! (see `protocol::prompt::fuzz_check`, which the stable test suite also runs
//! over the seed corpus and proptest input).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    protocol::prompt::fuzz_check(data);
});
