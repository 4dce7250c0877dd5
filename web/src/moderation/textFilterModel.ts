// The operators' filter page, pure: which entries a view shows (language,
// action, search), the draft an operator edits and its checks (the server's
// rules of protocol/src/textfilter/entry.rs, so most mistakes are told before
// sending), a fresh id for a new entry, and a tried text cut into plain and
// matched pieces for display.
import type { FilterAction, FilterEntry, FilterEntryView, FilterHit, FilterKind, Scene } from './textFilterApi';

export interface ListFilter {
  /** '' for every language. */
  lang: string;
  /** '' for every action. */
  action: FilterAction | '';
  search: string;
}

export const ALL: ListFilter = { lang: '', action: '', search: '' };

/** The languages of the list, sorted, `*` first. */
export function languages(list: readonly FilterEntryView[]): string[] {
  const set = new Set(list.map((e) => e.lang));
  return [...set].sort((a, b) => (a === '*' ? -1 : b === '*' ? 1 : a.localeCompare(b)));
}

/** The entries a view shows: operators' first (newest first), then the shipped ones by id. */
export function visible(list: readonly FilterEntryView[], f: ListFilter): FilterEntryView[] {
  const q = f.search.trim().toLowerCase();
  return list
    .filter((e) => (f.lang === '' || e.lang === f.lang) && (f.action === '' || e.action === f.action))
    .filter((e) => q === '' || e.term.toLowerCase().includes(q) || e.category.toLowerCase().includes(q) || e.id.includes(q))
    .sort((a, b) => {
      if (a.source !== b.source) return a.source === 'operator' ? -1 : 1;
      if (a.source === 'operator' && a.updated_at !== b.updated_at) return b.updated_at - a.updated_at;
      return a.id.localeCompare(b.id);
    });
}

/** What the entry form holds. */
export interface Draft {
  /** Null for a new entry. */
  id: string | null;
  term: string;
  kind: FilterKind;
  lang: string;
  category: string;
  action: FilterAction;
  scenes: Scene[];
  wholeWord: boolean;
}

export const EMPTY_DRAFT: Draft = { id: null, term: '', kind: 'word', lang: 'en', category: 'other', action: 'mask', scenes: [], wholeWord: true };

export function draftOf(e: FilterEntry): Draft {
  return { id: e.id, term: e.term, kind: e.kind, lang: e.lang, category: e.category, action: e.action, scenes: [...e.scenes], wholeWord: e.whole_word };
}

export type DraftProblem = 'moderation.filter.problem.term' | 'moderation.filter.problem.label' | 'moderation.filter.problem.pattern';

/** Why a draft cannot be sent (an i18n key), or null. */
export function draftProblem(d: Draft): DraftProblem | null {
  const term = d.term.trim();
  if (term === '' || [...term].length > 200) return 'moderation.filter.problem.term';
  const label = (s: string) => s.trim() !== '' && [...s.trim()].length <= 32;
  if (!label(d.lang) || !label(d.category)) return 'moderation.filter.problem.label';
  if (d.kind === 'pattern') {
    try {
      // JavaScript's syntax is close to Rust's `regex`; the server has the last word.
      new RegExp(term, 'iu');
    } catch {
      return 'moderation.filter.problem.pattern';
    }
  }
  return null;
}

/** `op.<lang>.<slug of the term>` (`[a-z0-9_.-]`, at most 64), made unique against `taken`. */
export function newId(d: Pick<Draft, 'lang' | 'term'>, taken: ReadonlySet<string>): string {
  const clean = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
  const lang = clean(d.lang) || 'any';
  const slug = clean(d.term).slice(0, 32) || 'entry';
  const base = `op.${lang}.${slug}`.slice(0, 56);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const id = `${base}-${n}`;
    if (!taken.has(id)) return id;
  }
}

/** The entry a draft sends (a new one gets an id not in `taken`). */
export function entryOf(d: Draft, taken: ReadonlySet<string>): FilterEntry {
  return {
    id: d.id ?? newId(d, taken),
    term: d.term.trim(),
    kind: d.kind,
    lang: d.lang.trim(),
    category: d.category.trim(),
    action: d.action,
    scenes: [...d.scenes],
    whole_word: d.wholeWord,
  };
}

export interface Piece {
  text: string;
  /** The hit's action when this piece matched. */
  action: FilterAction | null;
  category: string | null;
}

/** `text` cut at the hits' spans (in characters; overlapping hits merge, a refusal wins). */
export function pieces(text: string, hits: readonly FilterHit[]): Piece[] {
  const chars = [...text];
  const marks: Array<FilterHit | null> = chars.map(() => null);
  for (const h of hits) {
    for (let i = Math.max(0, h.start); i < Math.min(chars.length, h.end); i += 1) {
      const cur = marks[i];
      if (cur === null || cur === undefined || (cur.action !== 'refuse' && h.action === 'refuse')) marks[i] = h;
    }
  }
  const out: Piece[] = [];
  chars.forEach((c, i) => {
    const m = marks[i] ?? null;
    const last = out[out.length - 1];
    const action = m?.action ?? null;
    const category = m?.category ?? null;
    if (last && last.action === action && last.category === category) last.text += c;
    else out.push({ text: c, action, category });
  });
  return out;
}
