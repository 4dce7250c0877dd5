// Cover capture's pure parts: blank detection, the retry schedule, the
// retry loop under fake timers, and one frame read from a stub canvas.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COVER_JPEG_QUALITY, COVER_RETRIES, EMPTY_COVER, coverRetrySchedule, coverRetryWait, frameCover, isBlankFrame, retryCapture } from './cover';
import type { Cover } from './cover';

function pixels(width: number, height: number, fill: [number, number, number, number]) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(fill, i);
  return { data, width, height };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('isBlankFrame', () => {
  it('a transparent canvas (nothing drawn) is blank', () => {
    expect(isBlankFrame(pixels(4, 3, [0, 0, 0, 0]))).toBe(true);
  });

  it('an all-black frame is blank, a near-black one too', () => {
    expect(isBlankFrame(pixels(4, 3, [0, 0, 0, 255]))).toBe(true);
    expect(isBlankFrame(pixels(4, 3, [8, 8, 8, 255]))).toBe(true);
  });

  it('one coloured pixel makes a frame', () => {
    const p = pixels(4, 3, [0, 0, 0, 255]);
    p.data.set([200, 10, 10, 255], 4 * 7);
    expect(isBlankFrame(p)).toBe(false);
  });

  it('a coloured but fully transparent pixel does not count', () => {
    const p = pixels(2, 2, [0, 0, 0, 0]);
    p.data.set([255, 255, 255, 0], 0);
    expect(isBlankFrame(p)).toBe(true);
  });

  it('a 0 size or short data is blank', () => {
    expect(isBlankFrame({ data: [], width: 0, height: 0 })).toBe(true);
    expect(isBlankFrame({ data: [255, 255, 255, 255], width: 2, height: 2 })).toBe(true);
  });
});

describe('retry schedule', () => {
  it('waits 300, 500, then 800 ms, 5 retries', () => {
    expect(COVER_RETRIES).toBe(5);
    expect(coverRetrySchedule()).toEqual([300, 500, 800, 800, 800]);
    expect(coverRetryWait(0)).toBe(300);
    expect(coverRetryWait(99)).toBe(800);
  });

  it('retryCapture answers the first cover after the right waits (fake timers)', async () => {
    vi.useFakeTimers();
    const cover: Cover = { url: 'data:image/jpeg;base64,xx', width: 4, height: 3, saturation: 1 };
    let calls = 0;
    const attempt = vi.fn(() => (++calls === 3 ? cover : null));
    const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    const p = retryCapture(attempt, sleep);
    expect(attempt).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(299);
    expect(attempt).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempt).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(500);
    await expect(p).resolves.toBe(cover);
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('after 5 retries: the empty poster with saturation 0', async () => {
    const waits: number[] = [];
    const attempt = vi.fn(() => null);
    const got = await retryCapture(attempt, async (ms) => {
      waits.push(ms);
    });
    expect(got).toEqual(EMPTY_COVER);
    expect(got.saturation).toBe(0);
    expect(attempt).toHaveBeenCalledTimes(6);
    expect(waits).toEqual([300, 500, 800, 800, 800]);
  });
});

describe('frameCover', () => {
  function stubCanvas(frame: ReturnType<typeof pixels>) {
    const ctx = { clearRect: vi.fn(), drawImage: vi.fn(), getImageData: vi.fn(() => frame) };
    const toDataURL = vi.fn(() => 'data:image/jpeg;base64,AAAA');
    const canvas = { width: 0, height: 0, getContext: vi.fn(() => ctx), toDataURL } as unknown as HTMLCanvasElement;
    return { canvas, ctx, toDataURL };
  }

  it('a video of size 0 is not ready', () => {
    const { canvas, ctx } = stubCanvas(pixels(1, 1, [255, 0, 0, 255]));
    expect(frameCover({ videoWidth: 0, videoHeight: 0 } as HTMLVideoElement, canvas)).toBeNull();
    expect(ctx.drawImage).not.toHaveBeenCalled();
  });

  it('draws the frame at the video size and keeps a JPEG at quality 0.9', () => {
    const { canvas, ctx, toDataURL } = stubCanvas(pixels(320, 240, [30, 120, 200, 255]));
    const video = { videoWidth: 320, videoHeight: 240 } as HTMLVideoElement;
    expect(frameCover(video, canvas)).toEqual({ url: 'data:image/jpeg;base64,AAAA', width: 320, height: 240, saturation: 1 });
    expect(ctx.drawImage).toHaveBeenCalledWith(video, 0, 0, 320, 240);
    expect(toDataURL).toHaveBeenCalledWith('image/jpeg', COVER_JPEG_QUALITY);
    expect([canvas.width, canvas.height]).toEqual([320, 240]);
  });

  it('a blank frame is retried (null)', () => {
    const { canvas } = stubCanvas(pixels(320, 240, [0, 0, 0, 255]));
    expect(frameCover({ videoWidth: 320, videoHeight: 240 } as HTMLVideoElement, canvas)).toBeNull();
  });
});
