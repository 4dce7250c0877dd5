// Waveform maths for the audio player (pure): the peaks of decoded samples
// in `bars` buckets (max |sample| per bucket, over every channel, scaled so
// the loudest bar is 1), and the seek position of a click.

/** Peaks of `channels` (each a Float32Array of equal length) in `bars` buckets, 0..=1. */
export function peaks(channels: readonly Float32Array[], bars: number): number[] {
  const length = channels[0]?.length ?? 0;
  const n = Math.max(0, Math.floor(bars));
  if (length === 0 || n === 0) return new Array<number>(n).fill(0);
  const out = new Array<number>(n).fill(0);
  for (let b = 0; b < n; b++) {
    const from = Math.floor((b * length) / n);
    const to = Math.max(from + 1, Math.floor(((b + 1) * length) / n));
    let max = 0;
    for (const ch of channels) {
      for (let i = from; i < to && i < length; i++) {
        const v = Math.abs(ch[i] ?? 0);
        if (v > max) max = v;
      }
    }
    out[b] = max;
  }
  const top = Math.max(...out);
  return top > 0 ? out.map((v) => v / top) : out;
}

/** The time a click at `x` of a `width`-wide waveform seeks to. */
export function seekTime(x: number, width: number, duration: number): number {
  if (!(width > 0) || !(duration > 0)) return 0;
  return Math.min(duration, Math.max(0, (x / width) * duration));
}
