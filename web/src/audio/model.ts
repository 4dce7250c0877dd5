// The audio page's model (spec 2 §1, §3, §7; COMMON18's wire API): its tabs,
// the spec's defaults (currentAudioTab aiVoice; videoAddMusic paramsForm
// with duration 5; lipSyncParams lipSyncTab lipSyncText, speed 1, emotion
// neutral; aiVoice generateMode vocalSongs), the checks the server would
// make (with its message keys), and each tab's call and body. Pure.

export const AUDIO_TABS = ['aiVoice', 'effect', 'lyrics', 'music', 'videoToAudio', 'lipSync', 'addMusic'] as const;
export type AudioTab = (typeof AUDIO_TABS)[number];
/** Spec 2 §3 currentAudioTab. */
export const DEFAULT_AUDIO_TAB: AudioTab = 'aiVoice';

export const GENERATE_MODES = ['vocalSongs', 'instrumental'] as const;
export type GenerateMode = (typeof GENERATE_MODES)[number];
export const EMOTIONS = ['neutral', 'happy', 'sad', 'angry', 'calm', 'excited'] as const;
export type Emotion = (typeof EMOTIONS)[number];
export const LIP_SYNC_TABS = ['lipSyncText', 'lipSyncAudio'] as const;
export type LipSyncTab = (typeof LIP_SYNC_TABS)[number];

/** Limits the server applies (COMMON18). */
export const LIMITS = {
  textMax: 1000,
  promptMax: 1000,
  lyricsMax: 3000,
  speedMin: 0.5,
  speedMax: 2,
  effect: { min: 1, max: 30, dft: 5 },
  music: { min: 5, max: 240, dft: 30 },
  addMusic: { min: 1, max: 30, dft: 5 },
} as const;

/** Where a tool's source video comes from: an uploaded file or an own task. */
export interface VideoInfo {
  url: string;
  parentTaskId: string;
}

export const NO_VIDEO: VideoInfo = { url: '', parentTaskId: '' };

export interface AiVoiceForm {
  /** Speech (timbre/tts) or a song (text-to-music with vocals). */
  kind: 'speech' | 'song';
  text: string;
  timbreId: string;
  speed: number;
  emotion: Emotion;
  generateMode: GenerateMode;
  lyrics: string;
  prompt: string;
}

export interface AudioForms {
  aiVoice: AiVoiceForm;
  effect: { prompt: string; duration: number };
  lyrics: { prompt: string; title: string; language: string };
  music: { prompt: string; duration: number; lyrics: string; generateMode: GenerateMode; timbreId: string; negativePrompt: string };
  videoToAudio: { videoInfo: VideoInfo; prompt: string; negativePrompt: string };
  lipSync: {
    videoInfo: VideoInfo;
    /** A still picture instead of a video. */
    imageUrl: string;
    lipSyncTab: LipSyncTab;
    audioParams: { timbre: string; speed: number; emotion: Emotion; prompt: string; localAudio: string };
  };
  addMusic: { videoInfo: VideoInfo; paramsForm: { prompt: string; duration: number; negativePrompt: string } };
}

/** Spec 2 §3's audio defaults. */
export function defaultForms(): AudioForms {
  return {
    aiVoice: { kind: 'speech', text: '', timbreId: '', speed: 1, emotion: 'neutral', generateMode: 'vocalSongs', lyrics: '', prompt: '' },
    effect: { prompt: '', duration: LIMITS.effect.dft },
    lyrics: { prompt: '', title: '', language: '' },
    music: { prompt: '', duration: LIMITS.music.dft, lyrics: '', generateMode: 'instrumental', timbreId: '', negativePrompt: '' },
    videoToAudio: { videoInfo: NO_VIDEO, prompt: '', negativePrompt: '' },
    lipSync: {
      videoInfo: NO_VIDEO,
      imageUrl: '',
      lipSyncTab: 'lipSyncText',
      audioParams: { timbre: '', speed: 1, emotion: 'neutral', prompt: '', localAudio: '' },
    },
    addMusic: { videoInfo: NO_VIDEO, paramsForm: { prompt: '', duration: LIMITS.addMusic.dft, negativePrompt: '' } },
  };
}

export const AUDIO_BASE = '/api/v1/task/v2/audio';
export const AUDIO_CALLS = {
  tts: '/api/v1/timbre/tts',
  effect: `${AUDIO_BASE}/text-to-audio-effect`,
  lyrics: `${AUDIO_BASE}/music/generate-lyrics`,
  lyricsStream: '/api/stream/audio/lyrics',
  music: `${AUDIO_BASE}/music/text-to-music`,
  videoToAudio: `${AUDIO_BASE}/video-to-audio`,
  lipSync: `${AUDIO_BASE}/audio-to-lip-video`,
  addMusic: `${AUDIO_BASE}/video-add-music`,
  detectFace: '/api/v1/resource/video/detectFace',
} as const;

/** The first problem of a tab's form, as the server's message key; null when it may go. */
export function checkAudio(tab: AudioTab, forms: AudioForms): string | null {
  const blank = (s: string) => s.trim() === '';
  const inRange = (n: number, r: { min: number; max: number }) => Number.isFinite(n) && n >= r.min && n <= r.max;
  switch (tab) {
    case 'aiVoice': {
      const f = forms.aiVoice;
      if (f.kind === 'speech') {
        if (blank(f.text)) return 'audioTextEmpty';
        if ([...f.text].length > LIMITS.textMax) return 'audioTextTooLong';
        if (!(f.speed >= LIMITS.speedMin && f.speed <= LIMITS.speedMax)) return 'InvalidParams';
        return null;
      }
      return checkSong(f.prompt, f.lyrics, f.generateMode, '');
    }
    case 'effect':
      if (blank(forms.effect.prompt)) return 'audioPromptEmpty';
      return inRange(forms.effect.duration, LIMITS.effect) ? null : 'audioDurationInvalid';
    case 'lyrics':
      return blank(forms.lyrics.prompt) ? 'audioPromptEmpty' : null;
    case 'music':
      return (
        checkSong(forms.music.prompt, forms.music.lyrics, forms.music.generateMode, forms.music.negativePrompt) ??
        (inRange(forms.music.duration, LIMITS.music) ? null : 'audioDurationInvalid')
      );
    case 'videoToAudio':
      return hasVideo(forms.videoToAudio.videoInfo) ? null : 'audio.needVideo';
    case 'lipSync': {
      const f = forms.lipSync;
      if (!hasVideo(f.videoInfo) && blank(f.imageUrl)) return 'audio.needVideo';
      if (f.lipSyncTab === 'lipSyncAudio') return blank(f.audioParams.localAudio) ? 'pleaseUploadAudio' : null;
      if (blank(f.audioParams.prompt)) return 'audioTextEmpty';
      return [...f.audioParams.prompt].length > LIMITS.textMax ? 'audioTextTooLong' : null;
    }
    case 'addMusic':
      if (!hasVideo(forms.addMusic.videoInfo)) return 'audio.needVideo';
      if (blank(forms.addMusic.paramsForm.prompt)) return 'audioPromptEmpty';
      return inRange(forms.addMusic.paramsForm.duration, LIMITS.addMusic) ? null : 'audioDurationInvalid';
  }
}

/** A song's rules (protocol/src/audio/music.rs): a description or lyrics; lyrics to sing when vocal. */
function checkSong(prompt: string, lyrics: string, mode: GenerateMode, negative: string): string | null {
  if (prompt.trim() === '' && lyrics.trim() === '') return 'audioPromptEmpty';
  if ([...prompt.trim()].length > LIMITS.promptMax || [...negative.trim()].length > LIMITS.promptMax) return 'audioPromptTooLong';
  if ([...lyrics.trim()].length > LIMITS.lyricsMax) return 'lyricsTooLong';
  if (mode === 'vocalSongs' && !/[\p{L}\p{N}]/u.test(lyrics)) return 'lyricsEmpty';
  return null;
}

export function hasVideo(v: VideoInfo): boolean {
  return v.url.trim() !== '' || v.parentTaskId.trim() !== '';
}

function videoMeta(v: VideoInfo): Record<string, string> {
  return v.parentTaskId.trim() !== '' ? { parent_task_id: v.parentTaskId.trim() } : { video_url: v.url.trim() };
}

function optional(key: string, value: string): Record<string, string> {
  return value.trim() === '' ? {} : { [key]: value.trim() };
}

/** What pressing "generate" on a tab sends: speech (answered at once), lyrics, or a task. */
export type AudioCall =
  | { kind: 'tts'; path: string; body: Record<string, unknown> }
  | { kind: 'lyrics'; path: string; body: Record<string, unknown> }
  | { kind: 'task'; path: string; body: { meta: Record<string, unknown> } };

/** The call and body of a tab (after `checkAudio` passed). */
export function audioCall(tab: AudioTab, forms: AudioForms): AudioCall {
  switch (tab) {
    case 'aiVoice': {
      const f = forms.aiVoice;
      if (f.kind === 'speech') {
        return {
          kind: 'tts',
          path: AUDIO_CALLS.tts,
          body: { text: f.text, speed: f.speed, emotion: f.emotion, ...optional('timbre_id', f.timbreId) },
        };
      }
      return {
        kind: 'task',
        path: AUDIO_CALLS.music,
        body: {
          meta: {
            prompt: f.prompt.trim(),
            duration: LIMITS.music.dft,
            generate_mode: f.generateMode,
            ...optional('lyrics', f.lyrics),
            ...optional('timbre_id', f.timbreId),
          },
        },
      };
    }
    case 'effect':
      return { kind: 'task', path: AUDIO_CALLS.effect, body: { meta: { prompt: forms.effect.prompt.trim(), duration: forms.effect.duration } } };
    case 'lyrics':
      return {
        kind: 'lyrics',
        path: AUDIO_CALLS.lyricsStream,
        body: { prompt: forms.lyrics.prompt.trim(), ...optional('title', forms.lyrics.title), ...optional('language', forms.lyrics.language) },
      };
    case 'music': {
      const f = forms.music;
      return {
        kind: 'task',
        path: AUDIO_CALLS.music,
        body: {
          meta: {
            prompt: f.prompt.trim(),
            duration: f.duration,
            generate_mode: f.generateMode,
            ...optional('lyrics', f.lyrics),
            ...(f.generateMode === 'vocalSongs' ? optional('timbre_id', f.timbreId) : {}),
            ...optional('negative_prompt', f.negativePrompt),
          },
        },
      };
    }
    case 'videoToAudio': {
      const f = forms.videoToAudio;
      return {
        kind: 'task',
        path: AUDIO_CALLS.videoToAudio,
        body: { meta: { ...videoMeta(f.videoInfo), ...optional('prompt', f.prompt), ...optional('negative_prompt', f.negativePrompt) } },
      };
    }
    case 'lipSync': {
      const f = forms.lipSync;
      const source = hasVideo(f.videoInfo) ? videoMeta(f.videoInfo) : { image_url: f.imageUrl.trim() };
      const speech =
        f.lipSyncTab === 'lipSyncText'
          ? { text: f.audioParams.prompt, speed: f.audioParams.speed, emotion: f.audioParams.emotion, ...optional('timbre_id', f.audioParams.timbre) }
          : { audio_url: f.audioParams.localAudio };
      return { kind: 'task', path: AUDIO_CALLS.lipSync, body: { meta: { ...source, lip_sync_tab: f.lipSyncTab, ...speech } } };
    }
    case 'addMusic': {
      const f = forms.addMusic;
      return {
        kind: 'task',
        path: AUDIO_CALLS.addMusic,
        body: {
          meta: {
            ...videoMeta(f.videoInfo),
            prompt: f.paramsForm.prompt.trim(),
            duration: f.paramsForm.duration,
            ...optional('negative_prompt', f.paramsForm.negativePrompt),
          },
        },
      };
    }
  }
}

/** `m:ss` of seconds (the player's clock). */
export function clock(seconds: number): string {
  const s = Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
