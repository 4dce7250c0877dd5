// The video page's state: the model-parameter config, the active tab, one
// form per tab, the generating flag, the shown problem and the estimate.
// The caller's role and payment info are the generator's (roleAtom,
// paymentInfoAtom), read from web/src/generator/atoms.
import type { VideoEstimate, VideoParams } from '../api/video';
import type { ErrorMessage } from '../i18n/messages';
import { atom } from '../state/jotai';
import type { VideoConfig, VideoTab } from './model';

export type VideoParamsState = { state: 'loading' } | { state: 'ready'; params: VideoParams } | { state: 'error'; message: ErrorMessage };

export const videoParamsAtom = atom<VideoParamsState>({ state: 'loading' });

export const videoTabAtom = atom<VideoTab>('img2video');

/** Per-tab forms; a tab without one starts from its defaults. */
export const videoConfigsAtom = atom<Partial<Record<VideoTab, VideoConfig>>>({});

/** Set while a generate press is being answered (a second press is ignored). */
export const videoGeneratingAtom = atom(false);

/** The problem under the form: a check's key, or the server's key and text. */
export interface VideoShownProblem {
  key: string | null;
  text: string;
}

export const videoProblemAtom = atom<VideoShownProblem | null>(null);

/** The last estimate of the shown form. */
export const videoEstimateAtom = atom<VideoEstimate | null>(null);

/** The page's part: the generation tabs, or the tools on an existing video. */
export type VideoPagePart = 'generate' | 'tools';
export const videoPartAtom = atom<VideoPagePart>('generate');
