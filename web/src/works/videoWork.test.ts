import { describe, expect, it } from 'vitest';
import { checkVideoReport, oncePerView, VIDEO_REPORT_REASONS, workVideoOutput } from './videoWork';

describe('a video post page (pure parts)', () => {
  it('plays the work’s MP4 with its first picture as the poster; other works have no player', () => {
    expect(workVideoOutput({ video_url: '/files/v/out0.mp4', images: [{ url: '/files/v/out0.jpg', width: 1280, height: 720 }] })).toEqual({
      mp4: '/files/v/out0.mp4',
      hls: undefined,
      poster: '/files/v/out0.jpg',
      width: 1280,
      height: 720,
    });
    expect(workVideoOutput({ video_url: '/files/u/clip.mp4', images: [] })).toEqual({ mp4: '/files/u/clip.mp4', hls: undefined, poster: undefined, width: 0, height: 0 });
    expect(workVideoOutput({ video_url: null, images: [{ url: '/files/a.png', width: 1, height: 1 }] })).toBeNull();
    expect(workVideoOutput({ images: [] })).toBeNull();
    // A task's video streams adaptively.
    expect(workVideoOutput({ video_url: '/files/v/out0.mp4', hls_url: '/files/v/hls/master.m3u8', images: [] })?.hls).toBe('/files/v/hls/master.m3u8');
  });

  it('counts one play per page view, and again only after a failed count', async () => {
    const answers: Array<() => Promise<number>> = [() => Promise.reject(new Error('offline')), () => Promise.resolve(7)];
    let sent = 0;
    const counted: number[] = [];
    const play = oncePerView(() => {
      const next = answers[sent] ?? (() => Promise.resolve(-1));
      sent += 1;
      return next();
    }, (n) => counted.push(n));
    play();
    play();
    expect(sent).toBe(1);
    await Promise.resolve();
    await Promise.resolve();
    play();
    expect(sent).toBe(2);
    await Promise.resolve();
    await Promise.resolve();
    play();
    play();
    expect(sent).toBe(2);
    expect(counted).toEqual([7]);
  });

  it('checks a report as the server does: a reason, a detail for “other”, at most 500 characters', () => {
    expect(VIDEO_REPORT_REASONS).toEqual(['sexual_minors', 'hate', 'violence', 'spam', 'impersonation', 'other']);
    expect(checkVideoReport('', 'x')).toBe('reasonNeeded');
    expect(checkVideoReport('spam', '')).toBeNull();
    expect(checkVideoReport('other', '   ')).toBe('detailNeeded');
    expect(checkVideoReport('other', 'a stolen clip')).toBeNull();
    expect(checkVideoReport('hate', 'x'.repeat(501))).toBe('detailTooLong');
    expect(checkVideoReport('hate', '猫'.repeat(500))).toBeNull();
    expect(checkVideoReport('hate', 'a\u0007b')).toBe('detailInvalid');
  });
});
