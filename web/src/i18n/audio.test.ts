// Every audio, voice and chat-voice string has a Chinese text with the same
// placeholders, and every audio error key of protocol/src/error.rs is translated.
import { describe, expect, it } from 'vitest';
import { en } from './en';
import type { MessageKey } from './en';
import { en_audio } from './en.audio';
import { zh } from './zh';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('audio strings', () => {
  it('are all in Chinese too', () => {
    for (const key of Object.keys(en_audio) as MessageKey[]) {
      expect(zh[key], key).not.toBe(en[key]);
      expect(placeholders(zh[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it('cover the audio error keys of the server', () => {
    const keys = [
      'uploadAudioError',
      'audioTextEmpty',
      'audioTextTooLong',
      'audioTooLong',
      'audioDurationInvalid',
      'audioPromptEmpty',
      'timbreNotReady',
      'timbreSamplesInvalid',
      'noFaceFound',
      'pleaseUploadAudio',
      'speechTimeout',
      'speechUnavailable',
      'audioPromptTooLong',
      'lyricsTooLong',
      'lyricsEmpty',
    ];
    for (const key of keys) expect(Object.keys(en), key).toContain(key);
  });
});
