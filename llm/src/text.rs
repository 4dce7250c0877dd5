//! Turning an engine's raw output into the text deltas of a [`crate::TokenStream`]:
//! [`Utf8Assembler`] joins token bytes into whole code points (a BPE token
//! can end in the middle of one), and [`StopFilter`] holds back text that
//! might be the start of a stop string so a stop string is never emitted,
//! not even in part.

/// Joins byte pieces into UTF-8 text, never returning half a code point.
///
/// Byte-level BPE vocabularies (SmolLM2's included) split multi-byte
/// characters such as emoji or CJK across tokens, so a token's bytes alone
/// are often not valid UTF-8; the incomplete tail waits here for the next
/// token. Bytes that can never become valid UTF-8 turn into U+FFFD.
#[derive(Debug, Default, Clone)]
pub struct Utf8Assembler {
    /// Bytes of a code point whose remaining bytes have not arrived yet (at most 3).
    pending: Vec<u8>,
}

impl Utf8Assembler {
    pub fn new() -> Utf8Assembler {
        Utf8Assembler::default()
    }

    /// Adds `bytes` and returns every complete character now available.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    out.push_str(valid);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (valid, tail) = rest.split_at(e.valid_up_to());
                    out.push_str(&String::from_utf8_lossy(valid));
                    match e.error_len() {
                        // Invalid bytes: replace them and go on after them.
                        Some(n) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = tail.get(n..).unwrap_or(&[]);
                        }
                        // An incomplete code point at the end: keep it for later.
                        None => {
                            rest = tail;
                            break;
                        }
                    }
                }
            }
        }
        self.pending = rest.to_vec();
        out
    }

    /// Bytes held back, waiting for the rest of their code point.
    pub fn pending(&self) -> &[u8] {
        &self.pending
    }
}

/// Cuts generated text before the first stop string.
///
/// Text that could still turn out to be the beginning of a stop string is
/// held back until the next piece decides it, so the consumer never sees a
/// stop string or a prefix of one that then completes it.
#[derive(Debug, Clone)]
pub struct StopFilter {
    stops: Vec<String>,
    held: String,
    stopped: bool,
}

/// What [`StopFilter::push`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filtered {
    /// Text that is safe to emit now (may be empty).
    pub text: String,
    /// A stop string was found: emit `text`, then end the reply.
    pub stopped: bool,
}

impl StopFilter {
    /// Empty stop strings are ignored (they would stop before anything).
    pub fn new(stops: &[String]) -> StopFilter {
        StopFilter {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            held: String::new(),
            stopped: false,
        }
    }

    pub fn push(&mut self, text: &str) -> Filtered {
        if self.stopped {
            return Filtered {
                text: String::new(),
                stopped: true,
            };
        }
        self.held.push_str(text);
        let first_stop = self
            .stops
            .iter()
            .filter_map(|s| self.held.find(s.as_str()))
            .min();
        if let Some(at) = first_stop {
            self.stopped = true;
            let mut emit = std::mem::take(&mut self.held);
            emit.truncate(at);
            return Filtered {
                text: emit,
                stopped: true,
            };
        }
        // Keep the longest tail of `held` that is a proper prefix of a stop string.
        let keep_from = self
            .held
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| {
                let tail = self.held.get(i..).unwrap_or("");
                self.stops.iter().any(|s| s.starts_with(tail))
            })
            .unwrap_or(self.held.len());
        let tail = self.held.split_off(keep_from);
        let emit = std::mem::replace(&mut self.held, tail);
        Filtered {
            text: emit,
            stopped: false,
        }
    }

    /// The reply ended without a stop string: whatever was held back is text.
    pub fn finish(&mut self) -> String {
        if self.stopped {
            return String::new();
        }
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_passes_through() {
        let mut a = Utf8Assembler::new();
        assert_eq!(a.push(b"Hello"), "Hello");
        assert_eq!(a.push(b", world"), ", world");
        assert!(a.pending().is_empty());
    }

    #[test]
    fn multibyte_characters_split_across_pieces_come_out_whole() {
        // "é" = C3 A9, "€" = E2 82 AC, "🦀" = F0 9F A6 80
        let text = "é€🦀 ok";
        let bytes = text.as_bytes();
        // Every way of cutting the bytes into two pieces gives whole characters.
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            let mut asm = Utf8Assembler::new();
            let first = asm.push(a);
            let second = asm.push(b);
            assert!(text.starts_with(&first), "cut {cut}: {first:?}");
            assert_eq!(format!("{first}{second}"), text, "cut {cut}");
        }
        // Byte by byte: nothing is emitted until a character is complete.
        let mut asm = Utf8Assembler::new();
        let mut out = Vec::new();
        for b in "🦀".as_bytes() {
            out.push(asm.push(&[*b]));
        }
        assert_eq!(out, vec!["", "", "", "🦀"]);
    }

    #[test]
    fn invalid_bytes_become_replacement_characters() {
        let mut a = Utf8Assembler::new();
        assert_eq!(a.push(&[b'a', 0xFF, b'b']), "a\u{FFFD}b");
        // A lone continuation byte is invalid too, and does not swallow what follows.
        assert_eq!(a.push(&[0x80, b'c']), "\u{FFFD}c");
        // A lead byte followed by a non-continuation byte is invalid at once.
        assert_eq!(a.push(&[0xE2]), "");
        assert_eq!(a.push(b"x"), "\u{FFFD}x");
    }

    #[test]
    fn stop_strings_are_cut_and_never_emitted_in_part() {
        let mut f = StopFilter::new(&["\nUser:".to_owned()]);
        assert_eq!(
            f.push("Hello"),
            Filtered {
                text: "Hello".into(),
                stopped: false
            }
        );
        // "\nUs" may be the start of the stop string: held back.
        assert_eq!(f.push(" there\nUs").text, " there");
        let last = f.push("er: hi");
        assert_eq!(
            last,
            Filtered {
                text: String::new(),
                stopped: true
            }
        );
        assert_eq!(f.finish(), "");
    }

    #[test]
    fn held_text_is_released_when_it_turns_out_not_to_be_a_stop() {
        let mut f = StopFilter::new(&["###".to_owned(), String::new()]);
        assert_eq!(f.push("a ##").text, "a ");
        assert_eq!(f.push(" b").text, "## b");
        assert_eq!(f.push("#").text, "");
        assert_eq!(f.finish(), "#");
    }

    #[test]
    fn the_earliest_stop_wins_and_multibyte_text_is_respected() {
        let mut f = StopFilter::new(&["END".to_owned(), "é!".to_owned()]);
        let r = f.push("ça é va é! puis END");
        assert_eq!(r.text, "ça é va ");
        assert!(r.stopped);
        assert!(f.push("more").stopped);
    }

    #[test]
    fn no_stops_means_everything_passes() {
        let mut f = StopFilter::new(&[]);
        assert_eq!(f.push("abc").text, "abc");
        assert_eq!(f.finish(), "");
    }
}
