// The audio page's state: the active tab, one form per tab (spec 2 §3
// defaults), the busy flag, the shown problem, the speech made on this
// page (timbre/tts answers at once, not as a task) and the streamed lyrics.
import { atom } from '../state/jotai';
import { DEFAULT_AUDIO_TAB, defaultForms } from './model';
import type { AudioForms, AudioTab } from './model';
import type { EngineLabel } from './WaveformPlayer';

export const audioTabAtom = atom<AudioTab>(DEFAULT_AUDIO_TAB);
export const audioFormsAtom = atom<AudioForms>(defaultForms());
export const audioBusyAtom = atom(false);

/** A check's key, or the server's key and text. */
export interface AudioProblem {
  key: string | null;
  text: string;
}
export const audioProblemAtom = atom<AudioProblem | null>(null);

export interface SpeechMade {
  id: number;
  url: string;
  duration: number;
  text: string;
  engine: EngineLabel | null;
}
/** Newest first. */
export const speechMadeAtom = atom<SpeechMade[]>([]);

export interface LyricsState {
  status: 'idle' | 'streaming' | 'done' | 'error';
  title: string;
  text: string;
}
export const lyricsAtom = atom<LyricsState>({ status: 'idle', title: '', text: '' });
