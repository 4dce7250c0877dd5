// The chunked video upload (spec 2 §4 "Upload status", §7 "Chunked upload",
// §8 "Upload and cover", §9): the state machine (init, pending, complete,
// fail, error), the part slicing by the server's chunk size, the retry
// schedule of a part (3 retries, 3 s apart), and the runner: pre-sign/get
// (category 8), PUT each part, confirmPart, then confirm. A run that stops
// keeps the file_id and the confirmed parts, so a retry resumes from there
// (getPreSignAddr tells which parts the server already holds).
import { isApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { xhrPut } from '../generator/upload';
import type { PutPart } from '../generator/upload';

/** §9 upload constants. */
export const VIDEO_UPLOAD_CATEGORY = 8;
export const MAX_VIDEO_BYTES = 1_073_741_824;
export const DEFAULT_CHUNK_SIZE = 20_971_520;
export const PART_RETRIES = 3;
export const PART_RETRY_DELAY_MS = 3_000;

export const UPLOAD_PATHS = {
  preSign: '/api/v1/resource/pre-sign/get',
  confirmPart: '/api/v1/resource/pre-sign/confirmPart',
  confirm: '/api/v1/resource/pre-sign/confirm',
  preSignAddr: '/api/v1/resource/pre-sign/getPreSignAddr',
} as const;

/** §4 upload states. */
export type UploadStatus = 'init' | 'pending' | 'complete' | 'fail' | 'error';

/** §8 message keys of the upload. */
export type UploadMessage = 'CreativeCenterPopup12' | 'uploadError' | 'uploadVideoError';

export interface UploadState {
  status: UploadStatus;
  fileName: string;
  /** Bytes of the file. */
  total: number;
  /** Bytes sent so far (confirmed parts plus the running part's progress). */
  sent: number;
  /** The server's upload (kept for a resume), else null. */
  fileId: string | null;
  preSigns: string[];
  chunkSize: number;
  /** One flag per part: confirmed by confirmPart. */
  confirmed: boolean[];
  /** The joined file's URL once complete. */
  url: string | null;
  /** The message to show, else null. */
  message: UploadMessage | null;
  /** The server's text of a failure, for the detail line. */
  detail: string;
}

export const INITIAL_UPLOAD: UploadState = {
  status: 'init',
  fileName: '',
  total: 0,
  sent: 0,
  fileId: null,
  preSigns: [],
  chunkSize: DEFAULT_CHUNK_SIZE,
  confirmed: [],
  url: null,
  message: null,
  detail: '',
};

export type UploadEvent =
  | { type: 'tooLarge'; fileName: string; total: number }
  | { type: 'start'; fileName: string; total: number }
  | { type: 'resume' }
  | { type: 'signed'; fileId: string; preSigns: string[]; chunkSize: number; confirmed?: boolean[] }
  | { type: 'progress'; sent: number }
  | { type: 'partConfirmed'; index: number }
  | { type: 'partFailed'; detail: string }
  | { type: 'confirmFailed'; detail: string }
  | { type: 'badFinal'; detail: string }
  | { type: 'reset' }
  | { type: 'complete'; url: string }
  | { type: 'refresh' };

/** Bytes of the confirmed parts. */
export function confirmedBytes(s: Pick<UploadState, 'confirmed' | 'chunkSize' | 'total'>): number {
  return partRanges(s.total, s.chunkSize, s.confirmed.length).reduce((n, r) => n + (s.confirmed[r.index] ? r.end - r.start : 0), 0);
}

/** The state machine of §4. */
export function uploadReducer(s: UploadState, e: UploadEvent): UploadState {
  switch (e.type) {
    case 'tooLarge':
      // §5: rejected before any call; nothing starts.
      return { ...INITIAL_UPLOAD, fileName: e.fileName, total: e.total, message: 'CreativeCenterPopup12' };
    case 'start':
      return { ...INITIAL_UPLOAD, status: 'pending', fileName: e.fileName, total: e.total };
    case 'resume':
      return { ...s, status: 'pending', message: null, detail: '', sent: confirmedBytes(s) };
    case 'signed': {
      const confirmed = e.preSigns.map((_, i) => e.confirmed?.[i] ?? s.confirmed[i] ?? false);
      const next = { ...s, fileId: e.fileId, preSigns: e.preSigns, chunkSize: e.chunkSize > 0 ? e.chunkSize : DEFAULT_CHUNK_SIZE, confirmed };
      return { ...next, sent: confirmedBytes(next) };
    }
    case 'progress':
      return s.status === 'pending' ? { ...s, sent: Math.min(s.total, Math.max(0, e.sent)) } : s;
    case 'partConfirmed': {
      const confirmed = s.confirmed.map((c, i) => c || i === e.index);
      return { ...s, confirmed, sent: confirmedBytes({ ...s, confirmed }) };
    }
    case 'partFailed':
      // §8: retries exhausted → fail, uploadError; the upload is kept for a resume.
      return { ...s, status: 'fail', message: 'uploadError', detail: e.detail, sent: confirmedBytes(s) };
    case 'confirmFailed':
      return { ...s, status: 'error', message: 'uploadError', detail: e.detail };
    case 'badFinal':
      // §4: a final status that is not 0 gives fail and uploadVideoError (then a reset to init).
      return { ...s, status: 'fail', fileId: null, preSigns: [], confirmed: [], message: 'uploadVideoError', detail: e.detail };
    case 'reset':
      // Back to init; the message stays shown.
      return { ...INITIAL_UPLOAD, fileName: s.fileName, total: s.total, message: s.message, detail: s.detail };
    case 'complete':
      return { ...s, status: 'complete', url: e.url, sent: s.total, message: null, detail: '', confirmed: s.confirmed.map(() => true) };
    case 'refresh':
      // §4: a refresh while in error clears the upload.
      return s.status === 'error' ? INITIAL_UPLOAD : s;
  }
}

/** A part's byte range [start, end). */
export interface PartRange {
  index: number;
  start: number;
  end: number;
}

/** The parts of a file of `size` bytes cut at `chunkSize`, at most `count` of them (the pre-signed URLs). */
export function partRanges(size: number, chunkSize: number, count: number): PartRange[] {
  const chunk = chunkSize > 0 ? chunkSize : DEFAULT_CHUNK_SIZE;
  const n = Math.min(count, Math.max(1, Math.ceil(size / chunk)));
  return Array.from({ length: Math.max(0, n) }, (_, index) => ({ index, start: index * chunk, end: Math.min(size, (index + 1) * chunk) }));
}

/** §8 the waits before each retry of a failed part: 3 retries, 3 s apart. */
export function retryDelays(retries = PART_RETRIES, delayMs = PART_RETRY_DELAY_MS): number[] {
  return Array.from({ length: retries }, () => delayMs);
}

/** Runs `attempt`, retrying after each wait of {@link retryDelays}; the last error is thrown. */
export async function withRetries<T>(attempt: () => Promise<T>, sleep: (ms: number) => Promise<void>, delays = retryDelays()): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      const wait = delays[i];
      if (wait === undefined) throw e;
      await sleep(wait);
    }
  }
}

/** §7 confirm's data.status: 0 or "0" is success. */
export function finalStatusOk(status: unknown): boolean {
  return status === 0 || status === '0';
}

/** A PUT through fetch (no progress until the part is sent), for places without XMLHttpRequest. */
export function fetchPut(fetchFn: typeof fetch): PutPart {
  return async (url, body, onProgress) => {
    const res = await fetchFn(url, { method: 'PUT', body, headers: { 'Content-Type': 'application/octet-stream' } });
    if (!res.ok) throw new Error(`upload failed: ${res.status}`);
    onProgress(body.size);
  };
}

/** The content type announced for a video: the file's own, else by its extension. */
export function videoContentType(file: { type: string; name?: string }): string {
  if (file.type.startsWith('video/')) return file.type;
  const ext = /\.([a-z0-9]+)$/i.exec(file.name ?? '')?.[1]?.toLowerCase() ?? '';
  const byExt: Record<string, string> = { mp4: 'video/mp4', m4v: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', mkv: 'video/x-matroska' };
  return byExt[ext] ?? 'application/octet-stream';
}

interface PreSign {
  file_id: string;
  pre_signs: string[];
  chunk_size: number;
}

interface PreSignAddr extends PreSign {
  parts_done: boolean[];
  confirmed: boolean;
}

export interface UploadDeps {
  api: Pick<ApiClient, 'post'>;
  put?: PutPart;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function detailOf(e: unknown): string {
  if (isApiError(e)) return e.msg;
  return e instanceof Error ? e.message : String(e);
}

/**
 * One upload: answers states through `onState`; a second `start` while one
 * runs is ignored (§5); `retry` resumes a failed one from its confirmed parts.
 */
export class VideoUploader {
  private state: UploadState = INITIAL_UPLOAD;
  private file: File | Blob | null = null;
  private readonly put: PutPart;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly deps: UploadDeps,
    private readonly onState: (s: UploadState) => void = () => {},
  ) {
    this.put = deps.put ?? xhrPut;
    this.sleep = deps.sleep ?? realSleep;
  }

  get current(): UploadState {
    return this.state;
  }

  private emit(e: UploadEvent): void {
    this.state = uploadReducer(this.state, e);
    this.onState(this.state);
  }

  /** Starts uploading `file`; answers the URL, or null (ignored, rejected or failed). */
  async start(file: File | Blob, fileName = (file as File).name ?? 'video.mp4'): Promise<string | null> {
    if (this.state.status === 'pending') return null;
    if (file.size > MAX_VIDEO_BYTES) {
      this.emit({ type: 'tooLarge', fileName, total: file.size });
      return null;
    }
    this.file = file;
    this.emit({ type: 'start', fileName, total: file.size });
    try {
      const sign = await this.deps.api.post<PreSign>(UPLOAD_PATHS.preSign, {
        file_size: file.size,
        file_name: fileName,
        content_type: videoContentType({ type: file.type, name: fileName }),
        category: VIDEO_UPLOAD_CATEGORY,
      });
      if (sign.pre_signs.length === 0) throw new Error('failed to get upload config');
      this.emit({ type: 'signed', fileId: sign.file_id, preSigns: sign.pre_signs, chunkSize: sign.chunk_size });
    } catch (e) {
      // Nothing on the server to resume: a failed start.
      this.emit({ type: 'partFailed', detail: detailOf(e) });
      return null;
    }
    return this.run([]);
  }

  /** Resumes a failed upload from the last confirmed part (or starts over when the server lost it). */
  async retry(): Promise<string | null> {
    const s = this.state;
    if (s.status !== 'fail' || this.file === null) return null;
    if (s.fileId === null) return this.start(this.file, s.fileName);
    this.emit({ type: 'resume' });
    let done: boolean[];
    try {
      const addr = await this.deps.api.post<PreSignAddr>(UPLOAD_PATHS.preSignAddr, { file_id: s.fileId });
      if (addr.confirmed) return this.finish();
      this.emit({ type: 'signed', fileId: addr.file_id, preSigns: addr.pre_signs, chunkSize: addr.chunk_size });
      done = addr.parts_done;
    } catch {
      // The server does not know the upload any more: start over.
      this.state = { ...this.state, status: 'init' };
      return this.start(this.file, s.fileName);
    }
    return this.run(done);
  }

  /** §4: a refresh while in error clears the upload. */
  refresh(): void {
    this.emit({ type: 'refresh' });
    if (this.state.status === 'init') this.file = null;
  }

  /** Sends the parts not yet confirmed (`onServer`: parts the server holds already), then confirms the file. */
  private async run(onServer: readonly boolean[]): Promise<string | null> {
    const file = this.file;
    if (file === null) return null;
    const { preSigns, chunkSize, fileId } = this.state;
    for (const range of partRanges(file.size, chunkSize, preSigns.length)) {
      if (this.state.confirmed[range.index]) continue;
      const url = preSigns[range.index] ?? '';
      if (!onServer[range.index]) {
        const part = file.slice(range.start, range.end);
        const base = confirmedBytes(this.state);
        try {
          await withRetries(() => this.put(url, part, (sent) => this.emit({ type: 'progress', sent: base + sent })), this.sleep);
        } catch (e) {
          this.emit({ type: 'partFailed', detail: detailOf(e) });
          return null;
        }
      }
      try {
        await this.deps.api.post<unknown>(UPLOAD_PATHS.confirmPart, { file_id: fileId, pre_sign_url: url });
      } catch (e) {
        this.emit({ type: 'confirmFailed', detail: detailOf(e) });
        return null;
      }
      this.emit({ type: 'partConfirmed', index: range.index });
    }
    return this.finish();
  }

  /** §4: a bad final status: fail with uploadVideoError, then back to init. */
  private rejected(detail: string): void {
    this.emit({ type: 'badFinal', detail });
    this.emit({ type: 'reset' });
    this.file = null;
  }

  private async finish(): Promise<string | null> {
    try {
      const done = await this.deps.api.post<{ status?: number | string; url?: string }>(UPLOAD_PATHS.confirm, { file_id: this.state.fileId });
      if (!finalStatusOk(done.status) || !done.url) {
        this.rejected(`status ${String(done.status)}`);
        return null;
      }
      this.emit({ type: 'complete', url: done.url });
      return done.url;
    } catch (e) {
      if (isApiError(e) && e.key === 'uploadVideoError') {
        // The server read the joined file and it is no video (§8).
        this.rejected(e.msg);
        return null;
      }
      this.emit({ type: 'confirmFailed', detail: detailOf(e) });
      return null;
    }
  }
}
