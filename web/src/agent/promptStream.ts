// The prompt-stream parser of the generation agent (spec 2 §3 "Prompt-stream
// part", §4 "Prompt stream parser"): splits an assistant's text — complete or
// still streaming — into normal text and proposed image prompts written
// between triple-quote markers. The Rust twin is protocol/src/prompt_stream.rs;
// both must give identical results on protocol/tests/vectors/prompt-stream/.
//
// Rules (the same words are in the Rust module docs):
// 1. The marker is three ASCII double quotes `"""`. Typographic quotes are
//    ordinary text.
// 2. Scanning left to right, the text before the next marker is a normal
//    segment; the marker opens a prompt block, which the FIRST following
//    marker closes (so `"""a""""` is the prompt `a` then the normal text `"`,
//    and four or more quotes at an opening make the extra quotes content).
//    Taking the first closer, not the last quote run, keeps a closed prompt
//    from changing when more quotes arrive.
// 3. Normal part: `text` is the raw segment; `displayText` collapses every run
//    of blank space to one space and trims. A segment whose displayText is
//    empty (empty or only blanks) is dropped.
// 4. Prompt part: `text` is the raw block including its markers (the closing
//    one only once it has arrived); `displayText` is the content between the
//    markers, collapsed and trimmed. While the block is open, one trailing `"`
//    or `""` of the content is left out of `displayText`: it may be the start
//    of the closing marker.
// 5. A prompt is complete when it is closed and its displayText is not empty.
//    A closed block of only blanks (`""" """`, `""""""`) is not a prompt and is
//    dropped. An open block stays incomplete, also at the end of the stream.
// 6. `isComplete` means "final": more text can never change this part. For a
//    normal part that is true when a prompt block follows it; the trailing
//    normal part may still grow, so it is false.
// 7. Blank space is Unicode White_Space (Rust's char::is_whitespace): the
//    explicit class below, not JavaScript's `\s` (which differs on U+0085 and
//    U+FEFF).
//
// Incremental use: parse the whole text so far on every delta. Every part
// except the last is complete, and a complete part stays identical at the
// same index as more text arrives (property-tested in both languages).

export type PromptPartType = 'normal' | 'prompt';

export type PromptPart = {
  type: PromptPartType;
  /** The raw segment; for prompts including the `"""` markers. */
  text: string;
  /** What to show: blank runs collapsed, trimmed, markers removed. */
  displayText: string;
  /** Final: later text cannot change this part (see rule 6). */
  isComplete: boolean;
};

export const PROMPT_MARKER = '"""';

const BLANK_RUN =
  /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;

/** Collapses every run of blank space to one space and trims (rule 3, 7). */
export function collapseBlank(text: string): string {
  return text.replace(BLANK_RUN, ' ').replace(/^ /, '').replace(/ $/, '');
}

/** Parses the text received so far into parts. Pure; never throws. */
export function parsePromptStream(text: string): PromptPart[] {
  const parts: PromptPart[] = [];
  let pos = 0;
  for (;;) {
    const open = text.indexOf(PROMPT_MARKER, pos);
    const normal = open === -1 ? text.slice(pos) : text.slice(pos, open);
    const normalDisplay = collapseBlank(normal);
    if (normalDisplay !== '') {
      parts.push({ type: 'normal', text: normal, displayText: normalDisplay, isComplete: open !== -1 });
    }
    if (open === -1) return parts;
    const contentStart = open + PROMPT_MARKER.length;
    const close = text.indexOf(PROMPT_MARKER, contentStart);
    if (close === -1) {
      let content = text.slice(contentStart);
      if (content.endsWith('""')) content = content.slice(0, -2);
      else if (content.endsWith('"')) content = content.slice(0, -1);
      parts.push({
        type: 'prompt',
        text: text.slice(open),
        displayText: collapseBlank(content),
        isComplete: false,
      });
      return parts;
    }
    const displayText = collapseBlank(text.slice(contentStart, close));
    pos = close + PROMPT_MARKER.length;
    if (displayText !== '') {
      parts.push({ type: 'prompt', text: text.slice(open, pos), displayText, isComplete: true });
    }
  }
}

/** The complete prompts of a text, in order (what "use this prompt" offers). */
export function completePrompts(text: string): string[] {
  return parsePromptStream(text)
    .filter((p) => p.type === 'prompt' && p.isComplete)
    .map((p) => p.displayText);
}
