// Uploads by the pre-signed flow (spec 2 §7, README "The API in brief"):
// pre-sign/get → PUT each part to its pre-signed URL (progress from XHR) →
// confirm each part → confirm the file, which answers the file's URL.
import type { ApiClient } from '../api/client';

/** Upload category of input images. */
export const IMAGE_UPLOAD_CATEGORY = 1;
/** A part is retried this many times, this far apart (spec 2 §9). */
export const PART_RETRIES = 3;
export const PART_RETRY_DELAY_MS = 3_000;

interface PreSign {
  file_id: string;
  pre_signs: string[];
  chunk_size: number;
}

interface Confirmed {
  status?: number | string;
  url: string;
}

/** Sends one part; `onProgress(bytesSent)`. */
export type PutPart = (url: string, body: Blob, onProgress: (sent: number) => void) => Promise<void>;

/** PUT with XMLHttpRequest, which reports upload progress (fetch does not). */
export const xhrPut: PutPart = (url, body, onProgress) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`upload failed: ${xhr.status}`)));
    xhr.onerror = () => reject(new Error('upload failed: network'));
    xhr.send(body);
  });

export interface UploadOptions {
  api: Pick<ApiClient, 'post'>;
  file: Blob;
  fileName: string;
  category: number;
  /** Fraction done, 0..1. */
  onProgress?: (fraction: number) => void;
  put?: PutPart;
  /** Waits between retries (tests pass a fast one). */
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Uploads `file` and answers its URL. */
export async function uploadFile(options: UploadOptions): Promise<string> {
  return (await uploadFileWithId(options)).url;
}

/** An uploaded file: its id (for calls that take `file_id`) and its URL. */
export interface UploadedFile {
  file_id: string;
  url: string;
}

/** Uploads `file` and answers its id and URL. */
export async function uploadFileWithId(options: UploadOptions): Promise<UploadedFile> {
  const { api, file, fileName, category } = options;
  const put = options.put ?? xhrPut;
  const sleep = options.sleep ?? defaultSleep;
  const progress = options.onProgress ?? (() => {});
  const sign = await api.post<PreSign>('/api/v1/resource/pre-sign/get', {
    file_size: file.size,
    file_name: fileName,
    content_type: file.type || 'application/octet-stream',
    category,
  });
  if (sign.pre_signs.length === 0) throw new Error('failed to get upload config');
  const chunk = sign.chunk_size > 0 ? sign.chunk_size : file.size;
  let done = 0;
  progress(0);
  for (const [i, url] of sign.pre_signs.entries()) {
    const part = file.slice(i * chunk, Math.min(file.size, (i + 1) * chunk));
    for (let attempt = 0; ; attempt++) {
      try {
        await put(url, part, (sent) => progress(file.size === 0 ? 1 : (done + sent) / file.size));
        break;
      } catch (e) {
        if (attempt >= PART_RETRIES) throw e;
        await sleep(PART_RETRY_DELAY_MS);
      }
    }
    done += part.size;
    progress(file.size === 0 ? 1 : done / file.size);
    await api.post<unknown>('/api/v1/resource/pre-sign/confirm', { file_id: sign.file_id, pre_sign_url: url });
  }
  const confirmed = await api.post<Confirmed>('/api/v1/resource/pre-sign/confirm', { file_id: sign.file_id });
  if (confirmed.status !== undefined && Number(confirmed.status) !== 0) throw new Error('upload not confirmed');
  return { file_id: sign.file_id, url: confirmed.url };
}

/** Natural size of an image file, read in the browser. */
export async function imageSize(file: Blob): Promise<{ width: number; height: number }> {
  const url = URL.createObjectURL(file);
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    return { width: img.naturalWidth, height: img.naturalHeight };
  } finally {
    URL.revokeObjectURL(url);
  }
}
