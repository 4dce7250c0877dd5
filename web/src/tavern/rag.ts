// Documents that become datacards (langflow/parse-rag-file and
// langflow/progress): the job as the server reports it, decoded tolerantly,
// and the polling rule (spec 3 §9: give up after 600 s).

type Json = Record<string, unknown>;

export type RagState = 'queued' | 'parsing' | 'chunking' | 'saving' | 'done' | 'failed';

const STATES: readonly RagState[] = ['queued', 'parsing', 'chunking', 'saving', 'done', 'failed'];

export interface RagJob {
  id: string;
  state: RagState;
  percent: number;
  cards_made: number;
  cards_total: number;
  card_ids: string[];
  cards_refused: number;
  file_name: string;
  truncated: boolean;
  /** The failure's message key and text, when failed. */
  error: { code: number; key: string; msg: string } | null;
}

/** How often the job is polled. */
export const RAG_POLL_MS = 1000;
/** When polling stops (spec 3 §9: langflow progress timeout 600 s). */
export const RAG_TIMEOUT_MS = 600_000;
/** Files offered by the picker (the server sniffs the bytes anyway). */
export const RAG_ACCEPT = '.txt,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf';
/** File types and name endings the upload form takes (as the server's check; it sniffs the bytes too). */
const RAG_TYPES = ['', 'text/plain', 'text/markdown', 'text/x-markdown', 'text/html', 'application/xhtml+xml', 'application/pdf', 'application/octet-stream'];
const RAG_ENDINGS = ['txt', 'text', 'md', 'markdown', 'mdown', 'mkd', 'html', 'htm', 'xhtml', 'pdf'];

/** Whether a picked file may be a document: its type (if the browser gives one) and its name's ending (if any). */
export function ragFileOk(file: { name: string; type: string }): boolean {
  if (!RAG_TYPES.includes(file.type.toLowerCase())) return false;
  const dot = file.name.lastIndexOf('.');
  if (dot <= 0) return true;
  return RAG_ENDINGS.includes(file.name.slice(dot + 1).toLowerCase());
}

/** Largest document, as the server's default (10 MiB). */
export const RAG_MAX_BYTES = 10 * 1024 * 1024;

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : 0;
}

export function parseRagJob(v: unknown): RagJob | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Json;
  const id = typeof o.id === 'string' ? o.id : '';
  const state = STATES.find((s) => s === o.state);
  if (id === '' || state === undefined) return null;
  const e = typeof o.error === 'object' && o.error !== null ? (o.error as Json) : null;
  return {
    id,
    state,
    percent: Math.max(0, Math.min(100, Math.round(num(o.percent)))),
    cards_made: num(o.cards_made),
    cards_total: num(o.cards_total),
    card_ids: Array.isArray(o.card_ids) ? o.card_ids.filter((x): x is string => typeof x === 'string') : [],
    cards_refused: num(o.cards_refused),
    file_name: typeof o.file_name === 'string' ? o.file_name : '',
    truncated: o.truncated === true,
    error: e === null ? null : { code: num(e.code), key: typeof e.key === 'string' ? e.key : '', msg: typeof e.msg === 'string' ? e.msg : '' },
  };
}

export function isFinal(job: RagJob): boolean {
  return job.state === 'done' || job.state === 'failed';
}

export interface PollDeps {
  fetch: (id: string) => Promise<RagJob | null>;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

/** What polling ended with: the final job, or a timeout with the last job seen. */
export type PollEnd = { kind: 'final'; job: RagJob } | { kind: 'timeout'; job: RagJob | null } | { kind: 'cancelled' };

/**
 * Polls the job every `RAG_POLL_MS` until it is done or failed, handing each
 * answer to `onJob`; stops after `RAG_TIMEOUT_MS` from the start, or when
 * `cancelled()` says so. A failed poll (network) is retried at the next tick.
 */
export async function pollRagJob(id: string, deps: PollDeps, onJob: (job: RagJob) => void, cancelled: () => boolean): Promise<PollEnd> {
  const start = deps.now();
  let last: RagJob | null = null;
  for (;;) {
    if (cancelled()) return { kind: 'cancelled' };
    try {
      const job = await deps.fetch(id);
      if (cancelled()) return { kind: 'cancelled' };
      if (job !== null) {
        last = job;
        onJob(job);
        if (isFinal(job)) return { kind: 'final', job };
      }
    } catch (e) {
      // A job the server no longer knows (or another account's) ends polling.
      if (typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 40400) throw e;
    }
    if (deps.now() - start >= RAG_TIMEOUT_MS) return { kind: 'timeout', job: last };
    await deps.sleep(RAG_POLL_MS);
  }
}
