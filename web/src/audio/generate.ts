// The audio page's generate press: ignored while busy; checked like the
// server would; speech (timbre/tts) answered at once and shown on the page;
// lyrics streamed into the lyrics box; every other tab a task handed to the
// task list (progress, cancel and results as for images and video). A
// server refusal shows its key (NeedLogin opens the login popup,
// CoinsNotEnough the recharge dialog).
import { loginDialogAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { rechargeOpenAtom } from '../mall/atoms';
import { COINS_NOT_ENOUGH } from '../mall/errors';
import type { AppStore } from '../state/jotai';
import { audioBusyAtom, audioFormsAtom, audioProblemAtom, lyricsAtom, speechMadeAtom } from './atoms';
import { streamLyrics, LyricsError } from './lyrics';
import { audioCall, checkAudio } from './model';
import type { AudioTab } from './model';
import type { EngineLabel } from './WaveformPlayer';

const NEED_LOGIN = 20000;

export interface AudioGenerateDeps {
  store: AppStore;
  api: Pick<ApiClient, 'post'>;
  tab: AudioTab;
  token: string | null;
  onTask: (id: string) => void;
  fetch?: typeof fetch;
}

function show(store: AppStore, key: string | null, text = ''): void {
  if (key === 'NeedLogin') store.set(loginDialogAtom, { open: true, step: 'login' });
  if (key === 'CoinsNotEnough') store.set(rechargeOpenAtom, true);
  store.set(audioProblemAtom, { key, text });
}

let made = 0;

/** Runs one press; answers what it made (`tts`, `lyrics`, a task id) or null. */
export async function generateAudio(deps: AudioGenerateDeps): Promise<string | null> {
  const { store, api, tab } = deps;
  if (store.get(audioBusyAtom)) return null;
  const forms = store.get(audioFormsAtom);
  const problem = checkAudio(tab, forms);
  if (problem) {
    show(store, problem);
    return null;
  }
  store.set(audioProblemAtom, null);
  store.set(audioBusyAtom, true);
  const call = audioCall(tab, forms);
  try {
    if (call.kind === 'tts') {
      const r = await api.post<{ url: string; duration: number; engine?: EngineLabel }>(call.path, call.body);
      made += 1;
      store.set(speechMadeAtom, (all) => [{ id: made, url: r.url, duration: r.duration, text: String(call.body.text ?? ''), engine: r.engine ?? null }, ...all].slice(0, 10));
      return 'tts';
    }
    if (call.kind === 'lyrics') {
      store.set(lyricsAtom, { status: 'streaming', title: '', text: '' });
      const r = await streamLyrics(
        call.path,
        call.body,
        { onDelta: (d) => store.set(lyricsAtom, (l) => ({ ...l, text: l.text + d })) },
        { token: deps.token, ...(deps.fetch ? { fetch: deps.fetch } : {}) },
      );
      store.set(lyricsAtom, { status: 'done', title: r.title, text: r.lyrics });
      return 'lyrics';
    }
    const { id } = await api.post<{ id: string }>(call.path, call.body);
    deps.onTask(id);
    return id;
  } catch (e) {
    if (e instanceof LyricsError) {
      store.set(lyricsAtom, (l) => ({ ...l, status: 'error' }));
      show(store, e.key, e.message);
    } else if (isApiError(e)) {
      const key = e.code === COINS_NOT_ENOUGH ? 'CoinsNotEnough' : e.code === NEED_LOGIN ? 'NeedLogin' : e.key;
      show(store, key, e.msg);
    } else {
      show(store, 'NetworkError');
    }
    return null;
  } finally {
    store.set(audioBusyAtom, false);
  }
}
