import { useEffect, useRef, useState } from 'react';
import { useT } from '../i18n/useT';
import { bufferedAhead, choosePlayback, HLS_CONFIG, HLS_MIME, maySwitchLevel } from './player';
import type { Playback, VideoOutput } from './player';
import './video.css';

/** How often the buffer is read to allow definition switching (§9: poll 500 ms). */
const SWITCH_POLL_MS = 500;

function browserSupport(video: HTMLVideoElement | null, hlsJs: boolean) {
  const native = video !== null && video.canPlayType(HLS_MIME) !== '';
  return { nativeHls: native, hlsJs };
}

/**
 * One video output: `<video controls poster>` playing the HLS playlist (natively,
 * or through hls.js loaded on demand) or the MP4, and a download link for the MP4.
 * `onPlaying` hears each time playback starts (or resumes).
 */
export function VideoPlayer({ output, label, onPlaying }: { output: VideoOutput; label: string; onPlaying?: (() => void) | undefined }) {
  const t = useT();
  const ref = useRef<HTMLVideoElement>(null);
  const [playback, setPlayback] = useState<Playback | null>(null);

  useEffect(() => {
    const video = ref.current;
    if (video === null) return;
    let live = true;
    let destroy = () => {};
    const direct = () => {
      video.src = output.mp4;
      setPlayback({ kind: 'mp4', src: output.mp4 });
    };
    if (output.hls === undefined || video.canPlayType(HLS_MIME) !== '') {
      const p = choosePlayback(output.mp4, output.hls, browserSupport(video, false));
      video.src = p.src;
      setPlayback(p);
      return;
    }
    void import('hls.js')
      .then(({ default: Hls }) => {
        if (!live) return;
        const p = choosePlayback(output.mp4, output.hls, browserSupport(video, Hls.isSupported()));
        if (p.kind !== 'hls.js') {
          direct();
          return;
        }
        const hls = new Hls({ ...HLS_CONFIG });
        // §9: definition switching only once 5 s are buffered; until then the lowest level is held.
        hls.autoLevelCapping = 0;
        const timer = window.setInterval(() => {
          if (maySwitchLevel(bufferedAhead(video.buffered, video.currentTime))) {
            hls.autoLevelCapping = -1;
            window.clearInterval(timer);
          }
        }, SWITCH_POLL_MS);
        hls.on(Hls.Events.ERROR, (_e, data) => {
          if (!data.fatal) return;
          // A stream that cannot be played falls back to the MP4.
          window.clearInterval(timer);
          hls.destroy();
          if (live) direct();
        });
        hls.loadSource(p.src);
        hls.attachMedia(video);
        setPlayback(p);
        destroy = () => {
          window.clearInterval(timer);
          hls.destroy();
        };
      })
      .catch(() => live && direct());
    return () => {
      live = false;
      destroy();
    };
  }, [output.mp4, output.hls]);

  return (
    <figure className="video-result">
      <video
        ref={ref}
        className="video-result__player"
        controls
        playsInline
        preload="metadata"
        poster={output.poster}
        width={output.width}
        height={output.height}
        aria-label={label}
        data-testid="task-video"
        data-playback={playback?.kind ?? ''}
        onPlaying={onPlaying}
      />
      <figcaption className="video-result__bar">
        <span className="muted">{output.width > 0 && output.height > 0 ? t('tasks.size', { width: output.width, height: output.height }) : null}</span>
        <a className="button" href={output.mp4} download data-testid="video-download">
          {t('video.download')}
        </a>
      </figcaption>
    </figure>
  );
}
