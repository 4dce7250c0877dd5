// The audio upload helper (spec 2 §7-§9): category 59, pre-sign get, PUT
// the raw file as octet-stream, confirm with file_id and pre_sign_url ->
// data.url, the second confirmation -> data.status, and confirmPart for the
// further parts of a file larger than one server part; with the spec's three
// error messages. The server checks the upload by decoding it
// (uploadAudioError, audioTooLong). The constants are shared with download.ts.
import type { ApiClient } from '../api/client';

/** Upload category of audio (spec 2 §9). */
export const AUDIO_CATEGORY = 59;
/** Largest audio upload the server keeps (protocol/src/audio/transport.rs). */
export const MAX_AUDIO_BYTES = 50 * 1024 * 1024;
/** Longest audio upload, seconds. */
export const MAX_AUDIO_SECS = 600;
/** The joined download's type (spec 2 §7). */
export const AUDIO_BLOB_TYPE = 'audio/aac';

export const AUDIO_PATHS = {
  preSign: '/api/v1/resource/pre-sign/get',
  confirm: '/api/v1/resource/pre-sign/confirm',
  confirmPart: '/api/v1/resource/pre-sign/confirmPart',
  stream: '/api/stream/audio',
} as const;

/** The spec's error texts (spec 2 §8). */
export const AUDIO_ERRORS = {
  noConfig: 'failed to get upload config',
  putFailed: (status: number) => `upload failed: ${status}`,
  noConfirmation: 'upload confirmation returned nothing',
  download: 'Error fetching audio chunks for download',
} as const;

interface PreSign {
  file_id?: string;
  pre_signs?: string[];
  chunk_size?: number;
}

export interface UploadedAudio {
  fileId: string;
  url: string;
  /** The second confirmation's `status` (0 or "0" is done). */
  status: number | string | null;
}

export interface AudioUploadDeps {
  api: Pick<ApiClient, 'post'>;
  /** PUT for the pre-signed URLs (tests pass a mock). */
  fetch?: typeof fetch;
}

/**
 * Uploads an audio file (spec 2 §7's helper). Throws `Error` with the
 * spec's message for a missing pre-sign URL, a failed PUT or an empty
 * confirmation; the server's refusals (uploadAudioError, audioTooLong,
 * PayloadTooLarge) come as the client's `ApiError` with their key.
 */
export async function uploadAudio(file: Blob & { name?: string }, deps: AudioUploadDeps): Promise<UploadedAudio> {
  const put = deps.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const pre = await deps.api.post<PreSign | null>(AUDIO_PATHS.preSign, {
    file_size: file.size,
    file_name: file.name ?? 'audio',
    content_type: file.type || 'application/octet-stream',
    category: AUDIO_CATEGORY,
  });
  const urls = pre?.pre_signs ?? [];
  const first = urls[0];
  if (!pre?.file_id || !first) throw new Error(AUDIO_ERRORS.noConfig);
  const fileId = pre.file_id;
  // One part is the spec's flow; a file over the server's part size goes in its parts.
  const chunk = urls.length > 1 && pre.chunk_size ? pre.chunk_size : file.size;
  let url: string | undefined;
  for (let i = 0; i < urls.length; i++) {
    const partUrl = urls[i] ?? first;
    const body = urls.length === 1 ? file : file.slice(i * chunk, Math.min(file.size, (i + 1) * chunk));
    const r = await put(partUrl, { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body });
    if (!r.ok) throw new Error(AUDIO_ERRORS.putFailed(r.status));
    const confirmed = await deps.api.post<{ url?: string } | null>(i === 0 ? AUDIO_PATHS.confirm : AUDIO_PATHS.confirmPart, {
      file_id: fileId,
      pre_sign_url: partUrl,
    });
    if (!confirmed?.url) throw new Error(AUDIO_ERRORS.noConfirmation);
    url = confirmed.url;
  }
  const done = await deps.api.post<{ status?: number | string; url?: string } | null>(AUDIO_PATHS.confirm, { file_id: fileId });
  if (!done) throw new Error(AUDIO_ERRORS.noConfirmation);
  return { fileId, url: done.url ?? url ?? '', status: done.status ?? null };
}

