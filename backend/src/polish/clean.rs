//! Turns a language model's raw output into a clean one-line image prompt
//! *while it streams*, so the fragments sent to the client add up exactly to
//! the final prompt.
//!
//! Small models decorate their answer ("Prompt: \"a cat...\"", a second line
//! of explanation), so the cleaner keeps only the first non-blank line, drops
//! a leading label such as `Prompt:` and leading quotes, collapses blank runs
//! to one space, and drops trailing blanks, quotes and `,;.`. Every step is
//! *prefix-stable*: the cleaned text of a prefix of the output is a prefix of
//! the cleaned text of the whole output, because anything that may still be
//! removed (a possible label, a trailing quote) is held back until more text
//! decides it. `tests` checks that on every chunking of sample outputs.

/// Labels small models put before the prompt (compared lower-cased).
const LABELS: &[&str] = &[
    "prompt:",
    "image prompt:",
    "polished prompt:",
    "rewritten prompt:",
    "improved prompt:",
    "enhanced prompt:",
    "final prompt:",
];

/// Longest prompt kept, in characters (a polished prompt is one line).
pub const MAX_PROMPT_CHARS: usize = 800;

fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '`' | '“' | '”' | '‘' | '’')
}

/// Held back at the end until more text shows they are inside the prompt.
fn is_trailing_junk(c: char) -> bool {
    c.is_whitespace() || is_quote(c) || matches!(c, ',' | ';' | '.')
}

/// The cleaned prompt of `raw`. `done` says no more text will come (then
/// trailing junk is dropped rather than held back, and a lone label counts).
pub fn clean(raw: &str, done: bool) -> String {
    clean_inner(raw, done).0
}

/// [`clean`], and whether the text went past [`MAX_PROMPT_CHARS`].
fn clean_inner(raw: &str, done: bool) -> (String, bool) {
    let text = raw.trim_start();
    let (line, line_closed) = match text.find(['\n', '\r']) {
        Some(at) => (text.get(..at).unwrap_or_default(), true),
        None => (text, false),
    };
    let done = done || line_closed;
    let lower = line.to_lowercase();
    let mut body = line;
    for label in LABELS {
        if lower.starts_with(label) {
            // Labels are ASCII, so the byte length is the same in `line`.
            body = line.get(label.len()..).unwrap_or_default();
            break;
        }
        if !done && label.starts_with(lower.as_str()) {
            // Maybe a label still arriving: hold everything back.
            return (String::new(), false);
        }
    }
    let body = body.trim_start_matches(|c: char| c.is_whitespace() || is_quote(c));
    let mut out = String::with_capacity(body.len());
    let mut blank = false;
    for c in body.chars() {
        if c.is_whitespace() {
            blank = true;
        } else {
            if blank && !out.is_empty() {
                out.push(' ');
            }
            blank = false;
            out.push(c);
        }
    }
    let kept = out.trim_end_matches(is_trailing_junk).len();
    out.truncate(kept);
    let over = out.chars().count() > MAX_PROMPT_CHARS;
    if over {
        out = out.chars().take(MAX_PROMPT_CHARS).collect();
        let kept = out.trim_end_matches(is_trailing_junk).len();
        out.truncate(kept);
    }
    (out, over)
}

/// Feeds deltas in and gives back the fragments that are safe to send.
#[derive(Debug, Default)]
pub struct Cleaner {
    raw: String,
    /// What has been handed out so far (always a prefix of the final prompt).
    sent: String,
    /// The output went past the longest prompt kept: the rest is dropped.
    over: bool,
}

impl Cleaner {
    pub fn new() -> Cleaner {
        Cleaner::default()
    }

    /// Adds a delta; returns the new fragment to send, if any.
    pub fn push(&mut self, delta: &str) -> Option<String> {
        self.raw.push_str(delta);
        let (now, over) = clean_inner(&self.raw, false);
        self.over = over;
        self.advance(now)
    }

    /// Whether the prompt is over (its line ended or it is at full length):
    /// the caller may stop the model.
    pub fn is_finished(&self) -> bool {
        let text = self.raw.trim_start();
        text.contains(['\n', '\r']) || self.over
    }

    /// The last fragment (what was held back and turned out to belong) and
    /// the whole prompt, equal to every fragment joined.
    pub fn finish(&mut self) -> (Option<String>, String) {
        let last = clean(&self.raw, true);
        let fragment = self.advance(last);
        (fragment, self.sent.clone())
    }

    /// The text handed out so far.
    pub fn sent(&self) -> &str {
        &self.sent
    }

    fn advance(&mut self, now: String) -> Option<String> {
        if now.len() <= self.sent.len() {
            return None;
        }
        match now.strip_prefix(self.sent.as_str()) {
            Some(rest) => {
                let rest = rest.to_owned();
                self.sent = now;
                Some(rest)
            }
            None => {
                // Cannot happen (clean is prefix-stable); never send text
                // that would contradict what the client already has.
                tracing::warn!("polish cleaner lost prefix stability; fragment withheld");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLES: &[&str] = &[
        "  Prompt: \"a red fox in the snow, soft light, highly detailed\"\nThis prompt...",
        "Image prompt:   a castle,\n\nfog",
        "\"\"a cat  astronaut, 8k.\" ",
        "prompts are fun, neon city",
        "Prompt",
        "“portrait of an old fisherman”, rim lighting, masterpiece,,, ",
        "a \"sign\" that says hi, neon",
        "Prompt: 'a knight's shield', dramatic",
        "   \n\n  a lighthouse at dusk \r\n second line",
        "",
        "猫, 水彩画, soft light…",
    ];

    /// Splits `s` into chunks at char boundaries by a seeded step pattern.
    fn chunks(s: &str, seed: usize) -> Vec<String> {
        let chars: Vec<char> = s.chars().collect();
        let mut out = Vec::new();
        let mut i = 0;
        let mut n = seed;
        while i < chars.len() {
            n = n.wrapping_mul(1103515245).wrapping_add(12345);
            let len = 1 + (n >> 16) % 5;
            let end = (i + len).min(chars.len());
            out.push(chars[i..end].iter().collect());
            i = end;
        }
        out
    }

    #[test]
    fn fragments_add_up_to_the_final_prompt_on_every_chunking() {
        for sample in SAMPLES {
            for seed in 0..40 {
                let mut c = Cleaner::new();
                let mut joined = String::new();
                for chunk in chunks(sample, seed) {
                    if let Some(f) = c.push(&chunk) {
                        joined.push_str(&f);
                    }
                }
                let (last, whole) = c.finish();
                joined.push_str(&last.unwrap_or_default());
                assert_eq!(joined, whole, "sample {sample:?} seed {seed}");
                assert_eq!(whole, clean(sample, true));
            }
        }
    }

    #[test]
    fn prefixes_clean_to_prefixes() {
        for sample in SAMPLES {
            let whole = clean(sample, true);
            for (i, _) in sample.char_indices() {
                let part = clean(&sample[..i], false);
                assert!(
                    whole.starts_with(&part),
                    "{sample:?} at {i}: {part:?} vs {whole:?}"
                );
            }
        }
    }

    #[test]
    fn cleans_labels_quotes_and_lines() {
        assert_eq!(
            clean(SAMPLES[0], true),
            "a red fox in the snow, soft light, highly detailed"
        );
        assert_eq!(clean(SAMPLES[1], true), "a castle");
        assert_eq!(clean(SAMPLES[2], true), "a cat astronaut, 8k");
        assert_eq!(clean(SAMPLES[3], true), "prompts are fun, neon city");
        assert_eq!(clean(SAMPLES[4], true), "Prompt");
        assert_eq!(clean(SAMPLES[4], false), "");
        assert_eq!(clean(SAMPLES[6], true), "a \"sign\" that says hi, neon");
        assert_eq!(clean(SAMPLES[8], true), "a lighthouse at dusk");
    }

    #[test]
    fn long_output_is_capped() {
        let raw = "word ".repeat(400);
        let out = clean(&raw, true);
        assert!(out.chars().count() <= MAX_PROMPT_CHARS);
        let mut c = Cleaner::new();
        c.push(&raw);
        assert!(c.is_finished());
    }
}
