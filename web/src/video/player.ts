// How a video output is played (spec 2 §9 "Video streaming buffers"): an HLS
// master playlist natively where the browser plays HLS itself, through
// hls.js where it has Media Source Extensions but no native HLS, else the
// MP4 directly. hls.js is configured with §9's buffer settings.
import type { Task } from '../tasks/types';

export const HLS_MIME = 'application/vnd.apple.mpegurl';

/** §9: rebuffering goal 0.5 s, buffering goal 10 s, buffer behind 30 s, lowest quality first, switch after 5 s buffered. */
export const STREAM_BUFFERS = {
  rebufferingGoalSecs: 0.5,
  bufferingGoalSecs: 10,
  bufferBehindSecs: 30,
  switchAfterBufferedSecs: 5,
} as const;

/** hls.js options of §9's buffers (`Partial<HlsConfig>`). */
export const HLS_CONFIG = {
  // Buffer goal ahead of the playhead.
  maxBufferLength: STREAM_BUFFERS.bufferingGoalSecs,
  maxMaxBufferLength: STREAM_BUFFERS.bufferingGoalSecs,
  // Kept behind the playhead.
  backBufferLength: STREAM_BUFFERS.bufferBehindSecs,
  // Stalls shorter than the rebuffering goal are bridged: playback resumes once this much is buffered.
  maxBufferHole: STREAM_BUFFERS.rebufferingGoalSecs,
  highBufferWatchdogPeriod: 1,
  // The lowest quality first; no automatic pick of the start level.
  startLevel: 0,
  testBandwidth: false,
  capLevelToPlayerSize: false,
  // The CSP has no blob: workers.
  enableWorker: false,
} as const;

export type Playback = { kind: 'native-hls'; src: string } | { kind: 'hls.js'; src: string } | { kind: 'mp4'; src: string };

/** What the browser offers. */
export interface PlayerSupport {
  /** `video.canPlayType(HLS_MIME)` answers "maybe" or "probably". */
  nativeHls: boolean;
  /** `Hls.isSupported()` (Media Source Extensions). */
  hlsJs: boolean;
}

/** Picks how output `i` plays: its HLS playlist when there is one and the browser can play it, else its MP4. */
export function choosePlayback(mp4: string, hls: string | undefined, support: PlayerSupport): Playback {
  if (hls !== undefined && hls !== '') {
    if (support.nativeHls) return { kind: 'native-hls', src: hls };
    if (support.hlsJs) return { kind: 'hls.js', src: hls };
  }
  return { kind: 'mp4', src: mp4 };
}

/** §9 definition switching: automatic level switches only once this much is buffered ahead. */
export function maySwitchLevel(bufferedAheadSecs: number): boolean {
  return bufferedAheadSecs >= STREAM_BUFFERS.switchAfterBufferedSecs;
}

/** Seconds buffered ahead of `time` in `ranges`. */
export function bufferedAhead(ranges: Pick<TimeRanges, 'length' | 'start' | 'end'>, time: number): number {
  for (let i = 0; i < ranges.length; i++) {
    if (ranges.start(i) <= time + 0.1 && ranges.end(i) >= time) return ranges.end(i) - time;
  }
  return 0;
}

/** One video output of a finished task. */
export interface VideoOutput {
  mp4: string;
  hls: string | undefined;
  poster: string | undefined;
  width: number;
  height: number;
}

/** The video outputs of a task (`video_uris`, `hls_uris`, posters in `img_uris`); empty for image tasks. */
export function videoOutputs(task: Pick<Task, 'video_uris' | 'hls_uris' | 'img_uris' | 'outputs' | 'width' | 'height'>): VideoOutput[] {
  const mp4s = task.video_uris ?? [];
  return mp4s.map((mp4, i) => {
    const out = task.outputs.find((o) => o.url === mp4);
    return {
      mp4,
      hls: task.hls_uris?.[i] || undefined,
      poster: task.img_uris[i],
      width: out?.width ?? task.width,
      height: out?.height ?? task.height,
    };
  });
}
