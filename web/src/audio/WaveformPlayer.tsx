// The audio result player: the file plays in an <audio> element; its
// waveform is drawn from Web Audio's decodeAudioData (canvas peaks); play or
// pause, seek by clicking the waveform, the time, a download through the
// audio event stream, and the engine label (non-neural engines say so).
import { useEffect, useRef, useState } from 'react';
import { tokenAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { downloadAudio, saveBlob } from './download';
import { clock } from './model';
import { peaks, seekTime } from './waveform';

const BARS = 120;

export interface EngineLabel {
  name: string;
  neural: boolean;
  label: string;
}

/** Decodes `src` and answers its peaks (null until decoded, [] when the browser cannot). */
function usePeaks(src: string): number[] | null {
  const [state, setState] = useState<{ src: string; bars: number[] } | null>(null);
  useEffect(() => {
    let live = true;
    const Ctx = (globalThis as { AudioContext?: typeof AudioContext }).AudioContext;
    if (!Ctx) return;
    void (async () => {
      try {
        const r = await fetch(src);
        const buf = await r.arrayBuffer();
        const ctx = new Ctx();
        try {
          const audio = await ctx.decodeAudioData(buf);
          const chans = Array.from({ length: audio.numberOfChannels }, (_, i) => audio.getChannelData(i));
          if (live) setState({ src, bars: peaks(chans, BARS) });
        } finally {
          void ctx.close();
        }
      } catch {
        if (live) setState({ src, bars: [] });
      }
    })();
    return () => {
      live = false;
    };
  }, [src]);
  return state?.src === src ? state.bars : null;
}

function draw(canvas: HTMLCanvasElement, bars: number[], played: number) {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const { width, height } = canvas;
  ctx.clearRect(0, 0, width, height);
  const w = width / Math.max(1, bars.length);
  const styles = getComputedStyle(canvas);
  const done = styles.getPropertyValue('--wave-played').trim() || '#6c5ce7';
  const rest = styles.getPropertyValue('--wave-rest').trim() || '#b8b8c8';
  bars.forEach((v, i) => {
    const h = Math.max(2, v * (height - 4));
    ctx.fillStyle = (i + 0.5) / bars.length <= played ? done : rest;
    ctx.fillRect(i * w + 0.5, (height - h) / 2, Math.max(1, w - 1.5), h);
  });
}

export function WaveformPlayer({ src, engine, name, testId = 'audio-player' }: { src: string; engine?: EngineLabel | null; name?: string; testId?: string }) {
  const t = useT();
  const token = useAtomValue(tokenAtom);
  const audioRef = useRef<HTMLAudioElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const bars = usePeaks(src);
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (canvasRef.current && bars && bars.length > 0) draw(canvasRef.current, bars, duration > 0 ? time / duration : 0);
  }, [bars, time, duration]);

  function toggle() {
    const a = audioRef.current;
    if (!a) return;
    if (a.paused) void a.play().catch(() => setProblem(t('audio.playFailed')));
    else a.pause();
  }

  async function download() {
    setBusy(true);
    setProblem(null);
    try {
      const blob = await downloadAudio(src, { token });
      const base = name ?? src.split('/').pop()?.split('?')[0] ?? 'audio.m4a';
      saveBlob(blob, base);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="wave-player" data-testid={testId} data-src={src}>
      <audio
        ref={audioRef}
        src={src}
        preload="metadata"
        onPlay={() => setPlaying(true)}
        onPause={() => setPlaying(false)}
        onEnded={() => setPlaying(false)}
        onTimeUpdate={(e) => setTime(e.currentTarget.currentTime)}
        onLoadedMetadata={(e) => setDuration(e.currentTarget.duration)}
        onDurationChange={(e) => setDuration(e.currentTarget.duration)}
      />
      <div className="wave-player__row">
        <button type="button" className="button wave-player__play" onClick={toggle} aria-pressed={playing} data-testid="audio-play">
          {playing ? t('audio.pause') : t('audio.play')}
        </button>
        {bars === null || bars.length === 0 ? (
          <progress
            className="wave-player__bar"
            max={duration || 1}
            value={time}
            aria-label={t('audio.position')}
            onClick={(e) => {
              const a = audioRef.current;
              const r = e.currentTarget.getBoundingClientRect();
              if (a) a.currentTime = seekTime(e.clientX - r.left, r.width, duration);
            }}
          />
        ) : (
          <canvas
            ref={canvasRef}
            className="wave-player__wave"
            width={480}
            height={56}
            role="slider"
            tabIndex={0}
            aria-label={t('audio.position')}
            aria-valuemin={0}
            aria-valuemax={Math.round(duration)}
            aria-valuenow={Math.round(time)}
            data-testid="audio-wave"
            onClick={(e) => {
              const a = audioRef.current;
              const r = e.currentTarget.getBoundingClientRect();
              if (a) a.currentTime = seekTime(e.clientX - r.left, r.width, duration);
            }}
            onKeyDown={(e) => {
              const a = audioRef.current;
              if (!a) return;
              if (e.key === 'ArrowRight') a.currentTime = Math.min(duration, a.currentTime + 5);
              if (e.key === 'ArrowLeft') a.currentTime = Math.max(0, a.currentTime - 5);
            }}
          />
        )}
        <span className="wave-player__time muted" data-testid="audio-time">
          {clock(time)} / {clock(duration)}
        </span>
        <button type="button" className="button" onClick={() => void download()} disabled={busy} data-testid="audio-download">
          {t('audio.download')}
        </button>
      </div>
      {engine && (
        <p className="muted gen-small wave-player__engine" data-testid="audio-engine" data-neural={engine.neural}>
          {engine.neural ? t('audio.engine', { label: engine.label }) : t('audio.engineReference', { label: engine.label })}
        </p>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
