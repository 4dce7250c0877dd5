// The document upload of `langflow/parse-rag-file` as multipart/form-data:
// the form's fields, no hand-written Content-Type (the browser's carries the
// boundary), the token; a refusal keeps its rag code; the picker's check.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { ragForm, TavernApi } from './api';
import { ragFileOk } from './rag';

function server(answer: unknown, status = 200) {
  const seen: { path: string; init: RequestInit }[] = [];
  const fetchFn = (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ path: String(input), init: init ?? {} });
    return Promise.resolve(new Response(JSON.stringify(answer), { status, headers: { 'Content-Type': 'application/json' } }));
  };
  return { seen, tavern: new TavernApi({ post: () => Promise.reject(new Error('unused')) } as never, () => 'tok-1', fetchFn as typeof fetch) };
}

describe('importDocument', () => {
  it('sends the file and the character as a form', async () => {
    const { seen, tavern } = server({ status: { code: 10000, msg: '', key: null }, data: { id: 'job-1' } });
    const file = new File(['# Oru\n\nA realm.'], 'oru.md', { type: 'text/markdown' });
    expect(await tavern.importDocument(file, 'char-1')).toBe('job-1');
    expect(seen).toHaveLength(1);
    const { path, init } = seen[0]!;
    expect(path).toBe('/api/v1/langflow/parse-rag-file');
    expect(init.method).toBe('POST');
    const headers = init.headers as Record<string, string>;
    expect(headers['Content-Type']).toBeUndefined();
    expect(headers.token).toBe('tok-1');
    expect(init.body).toBeInstanceOf(FormData);
    const form = init.body as FormData;
    const sent = form.get('file');
    expect(sent).toBeInstanceOf(File);
    expect((sent as File).name).toBe('oru.md');
    expect((sent as File).size).toBe('# Oru\n\nA realm.'.length);
    expect(form.get('character_id')).toBe('char-1');
  });

  it('leaves the character out when there is none, and keeps the refusal code', async () => {
    const form = ragForm(new File(['x'], 'a.txt'), null);
    expect(form.has('character_id')).toBe(false);
    const { tavern } = server({ status: { code: 40701, msg: 'the file is image/png', key: 'ragFileType' }, data: null }, 400);
    const err = await tavern.importDocument(new File(['x'], 'a.txt'), null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).key).toBe('ragFileType');
  });
});

describe('ragFileOk', () => {
  it('takes documents and refuses what plainly is not one', () => {
    expect(ragFileOk({ name: 'lore.md', type: '' })).toBe(true);
    expect(ragFileOk({ name: 'lore.MD', type: 'application/octet-stream' })).toBe(true);
    expect(ragFileOk({ name: 'book.pdf', type: 'application/pdf' })).toBe(true);
    expect(ragFileOk({ name: 'README', type: '' })).toBe(true);
    expect(ragFileOk({ name: 'cat.png', type: 'image/png' })).toBe(false);
    expect(ragFileOk({ name: 'setup.exe', type: 'application/octet-stream' })).toBe(false);
    expect(ragFileOk({ name: 'notes.txt', type: 'application/zip' })).toBe(false);
  });
});
