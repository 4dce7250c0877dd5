import { describe, expect, it } from 'vitest';
import { emojiTable, renderEmoji, shortcodeText } from './emoji';

const table = emojiTable([
  { shortcode: 'smile', emoji: '😄' },
  { shortcode: ':heart:', emoji: '❤️' },
  { shortcode: 'thumbs_up', emoji: '👍' },
]);

describe('emoji shortcodes', () => {
  it('renders known shortcodes as emoji', () => {
    expect(renderEmoji('so :smile: and :heart::thumbs_up:', table)).toBe('so 😄 and ❤️👍');
    expect(renderEmoji(':SMILE:', table)).toBe('😄');
  });

  it('leaves unknown codes and lone colons as typed', () => {
    expect(renderEmoji('time 10:30: ok :nope: :smile', table)).toBe('time 10:30: ok :nope: :smile');
    expect(renderEmoji(':smile:', emojiTable([]))).toBe(':smile:');
  });

  it('never makes markup', () => {
    expect(renderEmoji('<b>:smile:</b>', table)).toBe('<b>😄</b>');
  });

  it('inserts a picked emoji as its shortcode', () => {
    expect(shortcodeText({ shortcode: 'smile', emoji: '😄' })).toBe(':smile:');
    expect(shortcodeText({ shortcode: ':heart:', emoji: '❤️' })).toBe(':heart:');
  });
});
