// The bodies the web app sends are checked against the server's OpenAPI
// description (`openapi.json` beside this file, kept current by a backend
// test): where a call site writes its body as an object literal and the
// description types that call's body, every key the app sends is a field of
// that schema (the server's names, so a misspelt key is caught), and every
// field the schema requires is sent.
import { describe, expect, it } from 'vitest';
import specText from './openapi.json?raw';

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  additionalProperties?: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
const spec = JSON.parse(specText) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

/** The app's sources (not tests). */
const sources = import.meta.glob(['../**/*.ts', '../**/*.tsx', '!../**/*.test.ts', '!../**/*.test.tsx'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

function matcher(path: string): RegExp {
  const body = path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}
const documented = Object.entries(spec.paths).map(([path, ops]) => ({ path, re: matcher(path), ops }));

function resolve(s: Schema | undefined): Schema | undefined {
  let out = s;
  for (let i = 0; out?.$ref && i < 16; i++) out = spec.components.schemas[out.$ref.replace('#/components/schemas/', '')];
  return out;
}

/** A schema's fields and required fields, or null when it is not a plain object. */
function fieldsOf(s: Schema | undefined): { fields: Set<string>; required: string[] } | null {
  const r = resolve(s);
  if (!r || r.oneOf || r.anyOf || r.additionalProperties) return null;
  const fields = new Set(Object.keys(r.properties ?? {}));
  const required = [...(r.required ?? [])];
  for (const part of r.allOf ?? []) {
    const inner = fieldsOf(part);
    if (!inner) return null;
    inner.fields.forEach((f) => fields.add(f));
    required.push(...inner.required);
  }
  return fields.size > 0 ? { fields, required } : null;
}

/** The text of the balanced `{...}` starting at `at`, or null. */
function literalAt(text: string, at: number): string | null {
  if (text[at] !== '{') return null;
  let depth = 0;
  let quote: string | null = null;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('{[('.includes(c ?? '')) depth++;
    else if ('}])'.includes(c ?? '')) {
      depth--;
      if (depth === 0) return text.slice(at + 1, i);
    }
  }
  return null;
}

/** The top-level keys of an object literal's inside; null when it spreads or computes a key. */
function keysOf(inside: string): string[] | null {
  const keys: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  const entries: string[] = [];
  for (let i = 0; i <= inside.length; i++) {
    const c = inside[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('{[('.includes(c ?? '_')) depth++;
    else if ('}])'.includes(c ?? '_')) depth--;
    else if ((c === ',' && depth === 0) || i === inside.length) {
      entries.push(inside.slice(start, i).trim());
      start = i + 1;
    }
  }
  for (const e of entries.filter((x) => x.length > 0)) {
    const m = /^(?:(['"])([^'"]+)\1|([A-Za-z_$][\w$]*))\s*(?::|$|\()/.exec(e);
    if (!m || e.startsWith('...')) return null;
    keys.push(m[2] ?? m[3] ?? '');
  }
  return keys;
}

interface Sent {
  file: string;
  path: string;
  keys: string[];
}

/** `.post<...>('/api/...', { ... })` call sites with a literal body. */
function sent(): Sent[] {
  const out: Sent[] = [];
  const call = /\.post\s*(?:<[^()]*?>)?\(\s*(['"`])(\/api\/[^'"`$]*)\1\s*,\s*/g;
  for (const [file, text] of Object.entries(sources)) {
    for (const m of text.matchAll(call)) {
      const inside = literalAt(text, m.index + m[0].length);
      if (inside === null) continue;
      const keys = keysOf(inside);
      if (keys === null) continue;
      out.push({ file: file.replace(/^\.\.\//, 'src/'), path: m[2] ?? '', keys });
    }
  }
  return out;
}

describe('the bodies the web app sends against the OpenAPI description', () => {
  it('sends the fields of the typed bodies, by their names, with the required ones', () => {
    let checked = 0;
    const problems: string[] = [];
    for (const s of sent()) {
      const doc = documented.find((d) => d.re.test(s.path));
      const schema = doc?.ops.post?.requestBody?.content?.['application/json']?.schema;
      const f = fieldsOf(schema);
      if (!f) continue;
      checked++;
      for (const k of s.keys) {
        if (!f.fields.has(k)) problems.push(`${s.file}: ${s.path} sends ${k}, not a field of ${schema?.$ref}`);
      }
      for (const r of f.required) {
        if (!s.keys.includes(r)) problems.push(`${s.file}: ${s.path} omits the required ${r}`);
      }
    }
    expect(problems).toEqual([]);
    // The scan sees typed calls (a broken scan would check nothing).
    expect(checked).toBeGreaterThan(50);
  });

  it('reads a literal body', () => {
    expect(keysOf(" id, operate: 'cancel', 'a-b': f(x, y), nested: { z: 1 } ")).toEqual([
      'id',
      'operate',
      'a-b',
      'nested',
    ]);
    expect(keysOf('...rest, id')).toBeNull();
    expect(literalAt("{ a: '}', b: [1, 2] }", 0)).toBe(" a: '}', b: [1, 2] ");
  });
});
