import { describe, expect, it } from 'vitest';
import { peaks, seekTime } from './waveform';
import { audioCall, checkAudio, clock, defaultForms, DEFAULT_AUDIO_TAB } from './model';

describe('peaks', () => {
  it('takes the loudest sample of each bucket over all channels, scaled to the loudest', () => {
    const l = new Float32Array([0.1, -0.2, 0, 0, 0.5, 0.25, 0, -0.1]);
    const r = new Float32Array([0, 0, -0.4, 0, 0, 0, 0, 0]);
    const got = peaks([l, r], 4);
    [0.4, 0.8, 1, 0.2].forEach((want, i) => expect(got[i]).toBeCloseTo(want, 5));
    expect(peaks([new Float32Array(0)], 3)).toEqual([0, 0, 0]);
    expect(peaks([new Float32Array(4)], 2)).toEqual([0, 0]);
    // More bars than samples: each bar still reads a sample.
    expect(peaks([new Float32Array([1, -0.5])], 4)).toEqual([1, 1, 0.5, 0.5]);
  });

  it('seeks within the duration', () => {
    expect(seekTime(50, 200, 8)).toBe(2);
    expect(seekTime(-5, 200, 8)).toBe(0);
    expect(seekTime(500, 200, 8)).toBe(8);
    expect(seekTime(5, 0, 8)).toBe(0);
  });
});

describe('audio page model', () => {
  it('has the defaults of spec 2 §3', () => {
    const f = defaultForms();
    expect(DEFAULT_AUDIO_TAB).toBe('aiVoice');
    expect(f.aiVoice.generateMode).toBe('vocalSongs');
    expect(f.addMusic.paramsForm.duration).toBe(5);
    expect(f.effect.duration).toBe(5);
    expect(f.music.duration).toBe(30);
    expect(f.lipSync.lipSyncTab).toBe('lipSyncText');
    expect(f.lipSync.audioParams).toMatchObject({ speed: 1, emotion: 'neutral' });
  });

  it('checks like the server, with its keys', () => {
    const f = defaultForms();
    expect(checkAudio('aiVoice', f)).toBe('audioTextEmpty');
    f.aiVoice.text = 'x'.repeat(1001);
    expect(checkAudio('aiVoice', f)).toBe('audioTextTooLong');
    f.aiVoice.text = 'Hello';
    expect(checkAudio('aiVoice', f)).toBeNull();
    f.aiVoice.kind = 'song';
    expect(checkAudio('aiVoice', f)).toBe('audioPromptEmpty');
    f.aiVoice.prompt = 'calm folk';
    expect(checkAudio('aiVoice', f)).toBe('lyricsEmpty');
    f.aiVoice.generateMode = 'instrumental';
    expect(checkAudio('aiVoice', f)).toBeNull();
    f.music.prompt = 'x'.repeat(1001);
    expect(checkAudio('music', f)).toBe('audioPromptTooLong');
    f.music.prompt = 'jazz';
    f.music.generateMode = 'vocalSongs';
    f.music.lyrics = '... !';
    expect(checkAudio('music', f)).toBe('lyricsEmpty');
    f.music.lyrics = 'x'.repeat(3001);
    expect(checkAudio('music', f)).toBe('lyricsTooLong');
    expect(checkAudio('effect', f)).toBe('audioPromptEmpty');
    f.effect.prompt = 'rain';
    f.effect.duration = 31;
    expect(checkAudio('effect', f)).toBe('audioDurationInvalid');
    expect(checkAudio('addMusic', f)).toBe('audio.needVideo');
    f.addMusic.videoInfo = { url: '', parentTaskId: 't1' };
    expect(checkAudio('addMusic', f)).toBe('audioPromptEmpty');
    f.lipSync.imageUrl = '/files/u/1/a.png';
    f.lipSync.lipSyncTab = 'lipSyncAudio';
    expect(checkAudio('lipSync', f)).toBe('pleaseUploadAudio');
  });

  it('builds each call as COMMON18 says', () => {
    const f = defaultForms();
    f.aiVoice.text = 'Hello';
    expect(audioCall('aiVoice', f)).toEqual({ kind: 'tts', path: '/api/v1/timbre/tts', body: { text: 'Hello', speed: 1, emotion: 'neutral' } });
    f.aiVoice.timbreId = 'v1';
    f.aiVoice.kind = 'song';
    f.aiVoice.prompt = 'happy pop';
    f.aiVoice.lyrics = '[Verse]\nla la';
    expect(audioCall('aiVoice', f)).toEqual({
      kind: 'task',
      path: '/api/v1/task/v2/audio/music/text-to-music',
      body: { meta: { prompt: 'happy pop', duration: 30, generate_mode: 'vocalSongs', lyrics: '[Verse]\nla la', timbre_id: 'v1' } },
    });
    f.addMusic.videoInfo = { url: 'http://h/files/u/1/v.mp4', parentTaskId: '' };
    f.addMusic.paramsForm.prompt = 'calm piano';
    expect(audioCall('addMusic', f).body).toEqual({ meta: { video_url: 'http://h/files/u/1/v.mp4', prompt: 'calm piano', duration: 5 } });
    f.lipSync.imageUrl = '/files/u/1/a.png';
    f.lipSync.audioParams.prompt = 'Hi there';
    expect(audioCall('lipSync', f).body).toEqual({
      meta: { image_url: '/files/u/1/a.png', lip_sync_tab: 'lipSyncText', text: 'Hi there', speed: 1, emotion: 'neutral' },
    });
    f.lipSync.lipSyncTab = 'lipSyncAudio';
    f.lipSync.audioParams.localAudio = '/files/u/2/a.mp3';
    expect(audioCall('lipSync', f).body).toEqual({ meta: { image_url: '/files/u/1/a.png', lip_sync_tab: 'lipSyncAudio', audio_url: '/files/u/2/a.mp3' } });
    f.lyrics.prompt = 'summer love';
    expect(audioCall('lyrics', f)).toEqual({ kind: 'lyrics', path: '/api/stream/audio/lyrics', body: { prompt: 'summer love' } });
  });

  it('formats the clock', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(65.9)).toBe('1:05');
    expect(clock(NaN)).toBe('0:00');
  });
});
