// A model file's upload (category 60, DESIGN.md Contracts): pre-sign get for
// the file's parts, PUT each part with byte progress (XMLHttpRequest reports
// upload progress; fetch does not), confirm each part, then the last
// confirmation, where the server reads the safetensors header and hashes the
// file: it answers what it found (type, family, rank, trigger words, hashes)
// or refuses the file with its key (modelFileInvalid, modelFilePickle,
// modelHeaderInvalid, modelFileTooLarge). Model files are private: the part
// confirmations answer no URL.
import type { ApiClient } from '../api/client';
import { MODEL_PATHS } from './api';
import type { ConfirmedModelFile } from './api';

/** Upload category of model files (protocol/src/models/rules.rs MODEL_FILE_CATEGORY). */
export const MODEL_CATEGORY = 60;

export const UPLOAD_ERRORS = {
  noConfig: 'failed to get upload config',
  putFailed: (status: number) => `upload failed: ${status}`,
  noConfirmation: 'upload confirmation returned nothing',
} as const;

/** PUTs one part, calling `onProgress(bytesSent)`; answers the HTTP status. */
export type PutPart = (url: string, body: Blob, onProgress: (sent: number) => void, signal?: AbortSignal) => Promise<number>;

/** The browser's PUT with upload progress events. */
export const xhrPut: PutPart = (url, body, onProgress, signal) =>
  new Promise<number>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => resolve(xhr.status);
    xhr.onerror = () => reject(new Error(UPLOAD_ERRORS.putFailed(0)));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });

/** Upload progress: bytes sent of the total, and the phase (`checking` while the server hashes). */
export interface UploadProgress {
  sent: number;
  total: number;
  phase: 'uploading' | 'checking';
}

export interface ModelUploadDeps {
  api: Pick<ApiClient, 'post'>;
  put?: PutPart;
  onProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
}

interface PreSign {
  file_id?: string;
  pre_signs?: string[];
  chunk_size?: number;
}

/** The byte range of part `i` of `size` bytes cut in `chunk`-byte parts. */
export function partRange(i: number, chunk: number, size: number): [number, number] {
  return [i * chunk, Math.min(size, (i + 1) * chunk)];
}

/** Whole percent of an upload (0 for an empty total). */
export function percent(p: Pick<UploadProgress, 'sent' | 'total'>): number {
  if (p.total <= 0) return 0;
  return Math.max(0, Math.min(100, Math.floor((p.sent / p.total) * 100)));
}

/** Uploads a model file and answers what the server read from it. */
export async function uploadModelFile(file: Blob & { name?: string }, deps: ModelUploadDeps): Promise<ConfirmedModelFile> {
  const put = deps.put ?? xhrPut;
  const report = deps.onProgress ?? (() => {});
  const pre = await deps.api.post<PreSign | null>(MODEL_PATHS.preSign, {
    file_size: file.size,
    file_name: file.name ?? 'model.safetensors',
    content_type: 'application/octet-stream',
    category: MODEL_CATEGORY,
  });
  const urls = pre?.pre_signs ?? [];
  if (!pre?.file_id || urls.length === 0) throw new Error(UPLOAD_ERRORS.noConfig);
  const fileId = pre.file_id;
  const chunk = urls.length > 1 && pre.chunk_size ? pre.chunk_size : file.size;
  let done = 0;
  report({ sent: 0, total: file.size, phase: 'uploading' });
  for (let i = 0; i < urls.length; i++) {
    const url = urls[i] ?? '';
    const [from, to] = partRange(i, chunk, file.size);
    const body = urls.length === 1 ? file : file.slice(from, to);
    const status = await put(url, body, (sent) => report({ sent: done + Math.min(sent, to - from), total: file.size, phase: 'uploading' }), deps.signal);
    if (status < 200 || status >= 300) throw new Error(UPLOAD_ERRORS.putFailed(status));
    await deps.api.post<unknown>(i === 0 ? MODEL_PATHS.confirm : MODEL_PATHS.confirmPart, { file_id: fileId, pre_sign_url: url });
    done += to - from;
    report({ sent: done, total: file.size, phase: 'uploading' });
  }
  report({ sent: file.size, total: file.size, phase: 'checking' });
  const confirmed = await deps.api.post<Partial<ConfirmedModelFile> | null>(MODEL_PATHS.confirm, { file_id: fileId });
  if (!confirmed || typeof confirmed.sha256 !== 'string') throw new Error(UPLOAD_ERRORS.noConfirmation);
  return {
    file_id: confirmed.file_id ?? fileId,
    size: confirmed.size ?? file.size,
    sha256: confirmed.sha256,
    autov2: confirmed.autov2 ?? '',
    autov3: confirmed.autov3,
    detected_type: confirmed.detected_type ?? null,
    detected_family: confirmed.detected_family ?? null,
    rank: confirmed.rank ?? null,
    alpha: confirmed.alpha ?? null,
    tensor_count: confirmed.tensor_count,
    trained_words: confirmed.trained_words ?? [],
  };
}
