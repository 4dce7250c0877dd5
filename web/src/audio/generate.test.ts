import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { loginDialogAtom } from '../account/atoms';
import { createAppStore } from '../state/jotai';
import { audioFormsAtom, audioProblemAtom, speechMadeAtom } from './atoms';
import { generateAudio } from './generate';

function deps(post: (path: string, body: unknown) => Promise<unknown>) {
  const store = createAppStore();
  const onTask = vi.fn();
  return { store, onTask, run: (tab: Parameters<typeof generateAudio>[0]['tab']) => generateAudio({ store, api: { post: post as never }, tab, token: 't', onTask }) };
}

describe('generateAudio', () => {
  it('speaks on the aiVoice tab and keeps the result on the page', async () => {
    const post = vi.fn(async () => ({ url: '/files/s/a/1.m4a', duration: 2.1, engine: { name: 'espeak', neural: false, label: 'eSpeak NG' } }));
    const d = deps(post);
    d.store.set(audioFormsAtom, (f) => ({ ...f, aiVoice: { ...f.aiVoice, text: 'Hi there', timbreId: 'v1' } }));
    expect(await d.run('aiVoice')).toBe('tts');
    expect(post).toHaveBeenCalledWith('/api/v1/timbre/tts', { text: 'Hi there', speed: 1, emotion: 'neutral', timbre_id: 'v1' });
    expect(d.store.get(speechMadeAtom)[0]).toMatchObject({ url: '/files/s/a/1.m4a', duration: 2.1, text: 'Hi there' });
  });

  it('hands a created task to the list', async () => {
    const post = vi.fn(async () => ({ id: 'task-1' }));
    const d = deps(post);
    d.store.set(audioFormsAtom, (f) => ({ ...f, effect: { prompt: 'rain', duration: 5 } }));
    expect(await d.run('effect')).toBe('task-1');
    expect(d.onTask).toHaveBeenCalledWith('task-1');
    expect(post).toHaveBeenCalledWith('/api/v1/task/v2/audio/text-to-audio-effect', { meta: { prompt: 'rain', duration: 5 } });
  });

  it('stops at a failed check without calling, and shows server refusals by key', async () => {
    const post = vi.fn(async () => {
      throw new ApiError({ code: 20000, key: 'NeedLogin', msg: '' }, 401);
    });
    const d = deps(post);
    expect(await d.run('effect')).toBeNull();
    expect(post).not.toHaveBeenCalled();
    expect(d.store.get(audioProblemAtom)?.key).toBe('audioPromptEmpty');
    d.store.set(audioFormsAtom, (f) => ({ ...f, effect: { prompt: 'rain', duration: 5 } }));
    expect(await d.run('effect')).toBeNull();
    expect(d.store.get(audioProblemAtom)?.key).toBe('NeedLogin');
    expect(d.store.get(loginDialogAtom)).toMatchObject({ open: true });
  });
});
