import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, settle } from '../mall/testing';
import { appStore } from '../state/jotai';
import { tasksAtom } from '../tasks/atoms';
import { EMPTY_LIST } from '../tasks/model';
import { TaskCard } from '../tasks/TaskCard';
import { makeTask } from '../tasks/testTask';
import { bufferedAhead, choosePlayback, HLS_CONFIG, maySwitchLevel, videoOutputs } from './player';
import type { VideoOutput } from './player';
import { VideoPlayer } from './VideoPlayer';

// A stand-in for hls.js that records what the player asks of it.
const hlsState = vi.hoisted(() => ({
  supported: true,
  instances: [] as { config: unknown; source: string | null; media: unknown; capping: number; destroyed: boolean }[],
}));
vi.mock('hls.js', () => {
  class FakeHls {
    static isSupported = () => hlsState.supported;
    static Events = { ERROR: 'hlsError' };
    rec: (typeof hlsState.instances)[number];
    constructor(config: unknown) {
      this.rec = { config, source: null, media: null, capping: -1, destroyed: false };
      hlsState.instances.push(this.rec);
    }
    set autoLevelCapping(v: number) {
      this.rec.capping = v;
    }
    get autoLevelCapping() {
      return this.rec.capping;
    }
    on() {}
    loadSource(src: string) {
      this.rec.source = src;
    }
    attachMedia(media: unknown) {
      this.rec.media = media;
    }
    destroy() {
      this.rec.destroyed = true;
    }
  }
  return { default: FakeHls };
});

const MP4 = 'http://127.0.0.1:8080/files/u/t/out0.mp4';
const HLS = 'http://127.0.0.1:8080/files/u/t/out0/master.m3u8';
const POSTER = 'http://127.0.0.1:8080/files/u/t/out0.jpg';
const output = (hls: string | undefined): VideoOutput => ({ mp4: MP4, hls, poster: POSTER, width: 1280, height: 720 });

describe('choosing the playback', () => {
  it('plays HLS natively, else through hls.js, else the MP4', () => {
    expect(choosePlayback(MP4, HLS, { nativeHls: true, hlsJs: true })).toEqual({ kind: 'native-hls', src: HLS });
    expect(choosePlayback(MP4, HLS, { nativeHls: false, hlsJs: true })).toEqual({ kind: 'hls.js', src: HLS });
    expect(choosePlayback(MP4, HLS, { nativeHls: false, hlsJs: false })).toEqual({ kind: 'mp4', src: MP4 });
    expect(choosePlayback(MP4, undefined, { nativeHls: true, hlsJs: true })).toEqual({ kind: 'mp4', src: MP4 });
    expect(choosePlayback(MP4, '', { nativeHls: false, hlsJs: true })).toEqual({ kind: 'mp4', src: MP4 });
  });

  it("configures hls.js with spec 2 §9's buffers", () => {
    expect(HLS_CONFIG).toMatchObject({ maxBufferLength: 10, backBufferLength: 30, startLevel: 0, maxBufferHole: 0.5 });
    expect(maySwitchLevel(4.9)).toBe(false);
    expect(maySwitchLevel(5)).toBe(true);
  });

  it('measures the buffer ahead of the playhead', () => {
    const ranges = (r: [number, number][]) => ({ length: r.length, start: (i: number) => r[i]?.[0] ?? 0, end: (i: number) => r[i]?.[1] ?? 0 });
    expect(bufferedAhead(ranges([[0, 6]]), 2)).toBe(4);
    expect(bufferedAhead(ranges([[0, 1], [3, 9]]), 3)).toBe(6);
    expect(bufferedAhead(ranges([[0, 1]]), 2)).toBe(0);
  });

  it('pairs video_uris with hls_uris and the posters in img_uris', () => {
    const task = makeTask({ id: 't', video_uris: [MP4, 'b.mp4'], hls_uris: [HLS], img_uris: [POSTER, 'b.jpg'], width: 640, height: 360 });
    expect(videoOutputs(task)).toEqual([
      { mp4: MP4, hls: HLS, poster: POSTER, width: 640, height: 360 },
      { mp4: 'b.mp4', hls: undefined, poster: 'b.jpg', width: 640, height: 360 },
    ]);
    expect(videoOutputs(makeTask({ id: 'i', img_uris: ['a.png'] }))).toEqual([]);
  });
});

describe('VideoPlayer', () => {
  let canPlay: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    hlsState.instances.length = 0;
    hlsState.supported = true;
    canPlay = vi.spyOn(HTMLMediaElement.prototype, 'canPlayType').mockReturnValue('');
  });
  afterEach(() => {
    document.body.innerHTML = '';
  });

  const videoOf = (c: HTMLElement) => {
    const v = c.querySelector('video');
    if (!v) throw new Error('no video');
    return v;
  };

  it('uses hls.js where the browser has no native HLS', async () => {
    const r = render(<VideoPlayer output={output(HLS)} label="Video 1 of 1" />);
    await settle(20);
    const video = videoOf(r.container);
    expect(video.dataset.playback).toBe('hls.js');
    expect(hlsState.instances).toHaveLength(1);
    expect(hlsState.instances[0]).toMatchObject({ config: HLS_CONFIG, source: HLS, media: video, capping: 0 });
    expect(video.getAttribute('poster')).toBe(POSTER);
    expect(video.controls).toBe(true);
    expect(r.container.querySelector('a[download]')?.getAttribute('href')).toBe(MP4);
    r.unmount();
    expect(hlsState.instances[0]?.destroyed).toBe(true);
  });

  it('plays HLS natively when the browser can', async () => {
    canPlay.mockReturnValue('maybe');
    const r = render(<VideoPlayer output={output(HLS)} label="v" />);
    await settle(20);
    const video = videoOf(r.container);
    expect(video.dataset.playback).toBe('native-hls');
    expect(video.getAttribute('src')).toBe(HLS);
    expect(hlsState.instances).toHaveLength(0);
    r.unmount();
  });

  it('plays the MP4 without a playlist, or when hls.js is unsupported', async () => {
    const a = render(<VideoPlayer output={output(undefined)} label="v" />);
    await settle(20);
    expect(videoOf(a.container).getAttribute('src')).toBe(MP4);
    expect(videoOf(a.container).dataset.playback).toBe('mp4');
    a.unmount();
    hlsState.supported = false;
    const b = render(<VideoPlayer output={output(HLS)} label="v" />);
    await settle(20);
    expect(videoOf(b.container).getAttribute('src')).toBe(MP4);
    expect(hlsState.instances).toHaveLength(0);
    b.unmount();
  });

  it('a finished video task shows players in the task list', async () => {
    appStore.set(tasksAtom, {
      ...EMPTY_LIST,
      byId: { v1: makeTask({ id: 'v1', status: 3, type: 43, video_uris: [MP4], img_uris: [POSTER], hls_uris: [] }) },
      order: ['v1'],
    });
    const r = render(<TaskCard id="v1" />);
    await settle(20);
    expect(r.container.querySelectorAll('[data-testid="task-video"]')).toHaveLength(1);
    expect(r.container.querySelectorAll('[data-testid="task-image"]')).toHaveLength(0);
    expect(videoOf(r.container).getAttribute('src')).toBe(MP4);
    r.unmount();
  });
});
