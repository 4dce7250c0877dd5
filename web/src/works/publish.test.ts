import { describe, expect, it } from 'vitest';
import { checkBody, checkPublish, checkPublishVideo, checkTitle, MAX_DESCRIPTION_CHARS, normaliseTags, splitTags } from './publish';
import type { PublishForm } from './publish';

const FORM: PublishForm = { title: ' A cat ', description: ' sea\nside ', tags: '#Cat, cat , sea  side', visibility: 'followers', nsfw: true, hideParams: true, images: ['/files/a.png'] };

describe('publish form checks (protocol/src/square/work.rs)', () => {
  it('titles: 100 characters, counted as the user sees them, no control characters', () => {
    expect(checkTitle('x'.repeat(100))).toBeNull();
    expect(checkTitle('x'.repeat(101))).toBe('WorkTitleTooLong');
    expect(checkTitle('猫'.repeat(100))).toBeNull();
    expect(checkTitle('😀'.repeat(100))).toBeNull();
    expect(checkTitle(`  ${'x'.repeat(100)}  `)).toBeNull();
    expect(checkTitle('two\nlines')).toBe('WorkTextInvalid');
    expect(checkTitle('')).toBeNull();
  });

  it('descriptions: 2000 characters, new lines and tabs allowed', () => {
    expect(checkBody('y'.repeat(MAX_DESCRIPTION_CHARS), MAX_DESCRIPTION_CHARS)).toBeNull();
    expect(checkBody('y'.repeat(MAX_DESCRIPTION_CHARS + 1), MAX_DESCRIPTION_CHARS)).toBe('WorkTextTooLong');
    expect(checkBody('a\nb\tc', 10)).toBeNull();
    expect(checkBody('a\u0000b', 10)).toBe('WorkTextInvalid');
  });

  it('tags: 10 of 1 to 30 letters, digits, spaces, _ or -', () => {
    expect(normaliseTags(splitTags('#Cat, cat , sea  side,,风景'))).toEqual({ tags: ['Cat', 'sea side', '风景'], problem: null });
    expect(normaliseTags(['a'.repeat(30)]).problem).toBeNull();
    expect(normaliseTags(['a'.repeat(31)]).problem).toBe('WorkTagInvalid');
    expect(normaliseTags(['<script>']).problem).toBe('WorkTagInvalid');
    expect(normaliseTags(Array.from({ length: 10 }, (_, i) => `t${i}`)).problem).toBeNull();
    expect(normaliseTags(Array.from({ length: 11 }, (_, i) => `t${i}`)).problem).toBe('WorkTooManyTags');
    expect(normaliseTags(Array.from({ length: 20 }, () => 'same'))).toEqual({ tags: ['same'], problem: null });
  });

  it('answers the request to send', () => {
    expect(checkPublish(FORM, ['t1'])).toEqual({
      ok: true,
      request: { task_ids: ['t1'], title: 'A cat', description: 'sea\nside', tags: ['Cat', 'sea side'], visibility: 'followers', nsfw: true, hide_params: true, images: ['/files/a.png'] },
    });
  });

  it('names every field that fails', () => {
    const bad = checkPublish({ ...FORM, title: 'x'.repeat(101), description: 'd'.repeat(2001), tags: 'ok, no<>', images: [] }, ['t1']);
    expect(bad).toEqual({ ok: false, problems: { title: 'WorkTitleTooLong', description: 'WorkTextTooLong', tags: 'WorkTagInvalid', images: 'square.publish.noImage' } });
  });

  it('a video post: the same texts for one task, no pictures, no hidden parameters', () => {
    expect(checkPublishVideo({ ...FORM, images: [] }, 'v1')).toEqual({
      ok: true,
      request: { task_id: 'v1', title: 'A cat', description: 'sea\nside', tags: ['Cat', 'sea side'], visibility: 'followers', nsfw: true },
    });
    expect(checkPublishVideo({ ...FORM, title: 'x'.repeat(101), tags: '<b>' }, 'v1')).toEqual({ ok: false, problems: { title: 'WorkTitleTooLong', tags: 'WorkTagInvalid' } });
  });
});
