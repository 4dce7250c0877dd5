// A video post's page, its pure parts: the player's output from the work
// (`artwork/detail` / `ai-video/detail` answer `video_url`, `hls_url` for a
// task's video, and the poster in `images`), counting one play per page
// view (`ai-video/play`), and the report form's check (the server's rules of
// protocol/src/character_extras.rs `normalise_report`).
import { checkReport, REPORT_REASONS } from '../tavern/extras';
import type { ReportProblem } from '../tavern/extras';
import type { VideoReportReason, WorkDetail } from '../square/types';
import type { VideoOutput } from '../video/player';

export { REPORT_DETAIL_MAX } from '../tavern/extras';

/** The reasons a video post can be reported for, most urgent first (the server's set). */
export const VIDEO_REPORT_REASONS: readonly VideoReportReason[] = REPORT_REASONS;

/** The player's output of a video work (its poster the work's first picture); null for other works. */
export function workVideoOutput(work: Pick<WorkDetail, 'video_url' | 'hls_url' | 'images'>): VideoOutput | null {
  const mp4 = work.video_url ?? '';
  if (mp4 === '') return null;
  const poster = work.images[0];
  const hls = work.hls_url ? work.hls_url : undefined;
  return { mp4, hls, poster: poster?.url, width: poster?.width ?? 0, height: poster?.height ?? 0 };
}

/**
 * Counts a play once: the first call sends `count` and hands its answer to
 * `onCounted`; later calls do nothing, unless the count failed (then the
 * next start of playback tries again).
 */
export function oncePerView<T>(count: () => Promise<T>, onCounted: (answer: T) => void = () => {}): () => void {
  let state: 'idle' | 'sending' | 'done' = 'idle';
  return () => {
    if (state !== 'idle') return;
    state = 'sending';
    count().then(
      (answer) => {
        state = 'done';
        onCounted(answer);
      },
      () => {
        state = 'idle';
      },
    );
  };
}

export type VideoReportProblem = ReportProblem | 'reasonNeeded';

/** What is wrong with a report before it is sent (a reason chosen; a detail for "other"), or null. */
export function checkVideoReport(reason: VideoReportReason | '', detail: string): VideoReportProblem | null {
  if (reason === '') return 'reasonNeeded';
  return checkReport(reason, detail);
}
