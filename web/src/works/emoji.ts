// Emoji shortcodes in comments (`comment2/emoji/list`): `:smile:` is shown
// as its emoji when the server knows the shortcode; anything else stays as
// typed. The result is plain text (React escapes it), never HTML.
import type { EmojiItem } from '../square/types';

/** A shortcode between colons: letters, digits, `_`, `+` and `-`. */
const SHORTCODE = /:([A-Za-z0-9_+-]{1,40}):/g;

export type EmojiTable = ReadonlyMap<string, string>;

export function emojiTable(items: readonly EmojiItem[]): EmojiTable {
  return new Map(items.map((e) => [e.shortcode.replace(/^:|:$/g, '').toLowerCase(), e.emoji]));
}

/** `text` with every known `:shortcode:` replaced by its emoji. */
export function renderEmoji(text: string, table: EmojiTable): string {
  if (table.size === 0) return text;
  return text.replace(SHORTCODE, (whole, code: string) => table.get(code.toLowerCase()) ?? whole);
}

/** The `:shortcode:` to insert for an emoji picked from the list. */
export function shortcodeText(item: EmojiItem): string {
  return `:${item.shortcode.replace(/^:|:$/g, '')}:`;
}
