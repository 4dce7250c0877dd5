// Cover capture in the browser (spec 2 §4 "Cover capture", §5, §8, §9): a
// frame of the video drawn to a canvas and kept as a JPEG (quality 0.9) when
// it has non-blank pixels; a blank frame or a 0 size is retried up to 5
// times (waits of 300, 500, then 800 ms); a video that cannot play within
// 5 s is captured anyway; a loading error rejects; on total failure an
// empty poster with saturation 0. Also a video's metadata (size, seconds).

/** §9 cover constants. */
export const COVER_RETRIES = 5;
export const COVER_RETRY_WAITS_MS = [300, 500, 800] as const;
export const CANPLAY_WAIT_MS = 5_000;
export const LOAD_TIMEOUT_MS = 5_000;
export const COVER_JPEG_QUALITY = 0.9;
/** A channel at or under this counts as black. */
export const BLANK_LEVEL = 8;

export interface Cover {
  /** A `data:image/jpeg` URL, or empty for the empty poster. */
  url: string;
  width: number;
  height: number;
  /** 1 for a captured frame; 0 for the empty poster (shown without colour). */
  saturation: 0 | 1;
}

export const EMPTY_COVER: Cover = { url: '', width: 0, height: 0, saturation: 0 };

/** The wait before retry `n` (0-based): 300, 500, then 800 ms for the rest. */
export function coverRetryWait(n: number): number {
  const waits = COVER_RETRY_WAITS_MS;
  return waits[Math.min(Math.max(0, n), waits.length - 1)] ?? 800;
}

/** Every wait of a capture that never succeeds. */
export function coverRetrySchedule(retries = COVER_RETRIES): number[] {
  return Array.from({ length: retries }, (_, i) => coverRetryWait(i));
}

/** Pixels of a canvas read-back (ImageData's shape). */
export interface Pixels {
  data: ArrayLike<number>;
  width: number;
  height: number;
}

/**
 * §5: a frame is blank when no pixel has colour: all transparent (nothing
 * was drawn) or all black. Every pixel is read (a 1080p frame is 2 M pixels, read once).
 */
export function isBlankFrame(p: Pixels): boolean {
  const n = p.width * p.height * 4;
  if (p.width <= 0 || p.height <= 0 || p.data.length < n) return true;
  for (let i = 0; i < n; i += 4) {
    const a = p.data[i + 3] ?? 0;
    if (a === 0) continue;
    if ((p.data[i] ?? 0) > BLANK_LEVEL || (p.data[i + 1] ?? 0) > BLANK_LEVEL || (p.data[i + 2] ?? 0) > BLANK_LEVEL) return false;
  }
  return true;
}

/**
 * Tries `attempt` once, then after each wait of the retry schedule until it
 * answers a cover; else the empty poster.
 */
export async function retryCapture(attempt: () => Cover | null, sleep: (ms: number) => Promise<void>, retries = COVER_RETRIES): Promise<Cover> {
  for (let i = 0; ; i++) {
    const cover = attempt();
    if (cover) return cover;
    if (i >= retries) return EMPTY_COVER;
    await sleep(coverRetryWait(i));
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Resolves on `ok` (or after `ms` when `timeoutOk`), rejects on the
 * element's `error`; listeners are removed either way.
 */
function waitFor(video: HTMLVideoElement, ok: string, ms: number, timeoutOk: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      video.removeEventListener(ok, onOk);
      video.removeEventListener('error', onError);
      fn();
    };
    const onOk = () => done(resolve);
    const onError = () => done(() => reject(new Error('the video could not be loaded')));
    const timer = setTimeout(() => done(timeoutOk ? resolve : () => reject(new Error('the video did not load in time'))), ms);
    video.addEventListener(ok, onOk);
    video.addEventListener('error', onError);
  });
}

/** One frame of `video` as a cover, or null when the size is 0 or the frame is blank. */
export function frameCover(video: HTMLVideoElement, canvas: HTMLCanvasElement): Cover | null {
  const width = video.videoWidth;
  const height = video.videoHeight;
  if (width === 0 || height === 0) return null;
  canvas.width = width;
  canvas.height = height;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  if (!g) return null;
  g.clearRect(0, 0, width, height);
  g.drawImage(video, 0, 0, width, height);
  if (isBlankFrame(g.getImageData(0, 0, width, height))) return null;
  return { url: canvas.toDataURL('image/jpeg', COVER_JPEG_QUALITY), width, height, saturation: 1 };
}

/**
 * Captures a cover of the video at `src` (a blob: URL of a picked file, or
 * an uploaded video's URL). Rejects when the video cannot be loaded.
 */
export async function captureCover(src: string): Promise<Cover> {
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.preload = 'auto';
  video.crossOrigin = 'anonymous';
  const loaded = waitFor(video, 'loadeddata', LOAD_TIMEOUT_MS, false);
  video.src = src;
  video.load();
  try {
    await loaded;
    // §4: a video that cannot play within 5 s is captured anyway.
    if (video.readyState < HTMLMediaElement.HAVE_FUTURE_DATA) await waitFor(video, 'canplay', CANPLAY_WAIT_MS, true);
    // A frame a little into the video (the very first is often black).
    if (Number.isFinite(video.duration) && video.duration > 0.2) {
      const seeked = waitFor(video, 'seeked', LOAD_TIMEOUT_MS, true);
      video.currentTime = Math.min(0.1, video.duration / 2);
      await seeked;
    }
    const canvas = document.createElement('canvas');
    return await retryCapture(() => frameCover(video, canvas), sleep);
  } finally {
    video.removeAttribute('src');
    video.load();
  }
}

/** A video's size and seconds, read from its metadata. */
export interface VideoMeta {
  width: number;
  height: number;
  duration: number;
}

/** Reads a video's metadata (rejects when it cannot be loaded within the load timeout). */
export async function readVideoMeta(src: string): Promise<VideoMeta> {
  const video = document.createElement('video');
  video.muted = true;
  video.preload = 'metadata';
  const loaded = waitFor(video, 'loadedmetadata', LOAD_TIMEOUT_MS, false);
  video.src = src;
  video.load();
  try {
    await loaded;
    return { width: video.videoWidth, height: video.videoHeight, duration: Number.isFinite(video.duration) ? video.duration : 0 };
  } finally {
    video.removeAttribute('src');
    video.load();
  }
}
