// Pure formatting of what model pages show: file sizes (binary units, as
// Civitai shows them), hashes (SHA-256 grouped, AutoV2 checked), credits,
// and a model's status as a message key.
import type { MessageKey } from '../i18n/messages';
import { PublishStatus, VersionStatus } from './api';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** `1536` -> `1.5 KB`, `2147483648` -> `2.00 GB`: three significant digits from KB up. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${bytes} B`;
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${v.toFixed(digits)} ${UNITS[u]}`;
}

/** Whether `s` is a SHA-256 in hex (64 digits). */
export function isSha256(s: string): boolean {
  return /^[0-9a-f]{64}$/i.test(s);
}

/** Civitai's AutoV2: the first 10 hex digits of the SHA-256, upper case. */
export function autoV2(sha256: string): string {
  return sha256.slice(0, 10).toUpperCase();
}

/** A SHA-256 cut for a narrow line: `abcdef12…89abcdef` (the whole value when short). */
export function shortHash(hash: string, head = 8, tail = 8): string {
  return hash.length <= head + tail + 1 ? hash : `${hash.slice(0, head)}…${hash.slice(-tail)}`;
}

/** A SHA-256 in groups of 8 for reading aloud or comparing by eye. */
export function groupHash(hash: string, size = 8): string {
  const out: string[] = [];
  for (let i = 0; i < hash.length; i += size) out.push(hash.slice(i, i + size));
  return out.join(' ');
}

/** The key of a model's publish status. */
export function publishKey(status: number): MessageKey {
  if (status === PublishStatus.Published) return 'models.status.published';
  if (status === PublishStatus.Delisted) return 'models.status.delisted';
  return 'models.status.draft';
}

/** The key of a version's readiness. */
export function versionKey(status: number): MessageKey {
  if (status === VersionStatus.Ready) return 'models.ver.ready';
  if (status === VersionStatus.Failed) return 'models.ver.failed';
  return 'models.ver.pending';
}

/** Trigger words as one prompt fragment (comma separated, as kohya writes them). */
export function triggerText(words: readonly string[]): string {
  return words.map((w) => w.trim()).filter((w) => w !== '').join(', ');
}

/** Splits a comma- or newline-separated list, trimmed, empty and repeated entries dropped. */
export function splitList(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of text.split(/[,\n]/)) {
    const w = part.trim();
    if (w === '' || seen.has(w.toLowerCase())) continue;
    seen.add(w.toLowerCase());
    out.push(w);
  }
  return out;
}
