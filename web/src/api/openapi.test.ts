// The web app's calls are checked against the server's OpenAPI description:
// `openapi.json` beside this file is the server's `GET /api/openapi.json`
// (a backend test fails when it is stale). Every absolute API path the app's
// sources name (after resolving their path constants) must be a documented
// call, with the method the app uses when the call site says it.
import { describe, expect, it } from 'vitest';
import specText from './openapi.json?raw';

type Paths = Record<string, Record<string, { summary?: string }>>;
const spec = JSON.parse(specText) as { openapi: string; paths: Paths };
const paths = spec.paths;

/** The app's sources (not tests), without their whole-line and block comments. */
const sources = Object.fromEntries(
  Object.entries(
    import.meta.glob(['../**/*.ts', '../**/*.tsx', '!../**/*.test.ts', '!../**/*.test.tsx'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }) as Record<string, string>,
  ).map(([file, text]) => [file, text.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/^\s*\/\/.*$/gm, '')]),
);

const API_PREFIXES = ['/api/', '/files/', '/s/', '/searchapi/', '/log/'];
const isApiPath = (s: string) => API_PREFIXES.some((p) => s.startsWith(p));

/** `{name}` segments of a documented path match any value (`/files/{key}`: the rest). */
function matcher(path: string): RegExp {
  const body = path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (part === '{key}') return '.+';
      if (part.startsWith('{')) return '[^/]+';
      return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${body}$`);
}

const documented = Object.entries(paths).map(([path, ops]) => ({
  path,
  re: matcher(path),
  methods: Object.keys(ops),
}));

/** `const NAME = '...'` (or a template without interpolation) in one source. */
function constantsOf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /\bconst\s+([A-Z][A-Z0-9_]*)\s*=\s*(['"`])([^'"`$]*)\2/g;
  for (const m of text.matchAll(re)) out.set(m[1] ?? '', m[3] ?? '');
  return out;
}

/** Every source's constants: a file's own win over another file's (exported) ones. */
function constants(): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of Object.values(sources)) {
    for (const [k, v] of constantsOf(text)) out.set(k, v);
  }
  return out;
}

interface Use {
  file: string;
  path: string;
  method: 'post' | 'get' | null;
}

function uses(): Use[] {
  const consts = constants();
  // A constant used with a suffix (`${BASE}/x`, `${V1}path`) is a prefix, not a call.
  const prefixes = new Set<string>();
  for (const text of Object.values(sources)) {
    for (const m of text.matchAll(/\$\{([A-Z][A-Z0-9_]*)\}[^`]/g)) prefixes.add(m[1] ?? '');
  }
  const out: Use[] = [];
  const literal = /(['"`])((?:\/|\$\{)[^'"`\n]*)\1/g;
  for (const [file, text] of Object.entries(sources)) {
    const own = constantsOf(text);
    for (const m of text.matchAll(literal)) {
      let value = m[2] ?? '';
      const declared = /const\s+([A-Z][A-Z0-9_]*)\s*=\s*$/.exec(text.slice(Math.max(0, m.index - 60), m.index));
      if (declared && prefixes.has(declared[1] ?? '')) continue;
      value = value.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (all, name: string) => own.get(name) ?? consts.get(name) ?? all);
      if (!isApiPath(value)) continue;
      value = value.split('?')[0] ?? '';
      // Dynamic tails (`${V1}${path}`) are the wrappers' own calls: their
      // callers' relative paths are not absolute literals.
      if (/\$\{[^}]*\}$/.test(value) || value.endsWith('/')) continue;
      value = value.replace(/\$\{[^}]*\}/g, 'x1');
      const before = text.slice(Math.max(0, m.index - 40), m.index);
      const method = /\.(post|postRaw)\s*(<[^()]*>)?\(\s*$/.test(before)
        ? 'post'
        : /\.get\s*(<[^()]*>)?\(\s*$/.test(before)
          ? 'get'
          : null;
      out.push({ file: file.replace(/^\.\.\//, 'src/'), path: value, method });
    }
  }
  return out;
}

describe('the web app against the OpenAPI description', () => {
  it('is the OpenAPI 3.1 description of the server', () => {
    expect(spec.openapi).toBe('3.1.0');
    expect(documented.length).toBeGreaterThan(400);
  });

  it('calls only documented paths, with their methods', () => {
    const found = uses();
    // The scan sees the app's calls (a broken scan would check nothing).
    expect(found.length).toBeGreaterThan(200);
    const problems: string[] = [];
    for (const u of found) {
      const doc = documented.find((d) => d.re.test(u.path));
      if (!doc) {
        problems.push(`${u.file}: ${u.path} is not a documented call`);
      } else if (u.method && !doc.methods.includes(u.method)) {
        problems.push(`${u.file}: ${u.method.toUpperCase()} ${u.path} (documented: ${doc.methods.join(', ')})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('knows a path the server does not have', () => {
    expect(documented.some((d) => d.re.test('/api/v1/no/such/call'))).toBe(false);
    expect(documented.some((d) => d.re.test('/files/u/1/a.png'))).toBe(true);
  });
});
