// The operators' text filter page against a mocked server: the list by
// language, a new entry checked then sent with its action and scenes, the
// server's refusal shown by key, and the "try a text" box showing the
// matches and the masked result.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { buttonByText, click, render, settle } from '../mall/testing';
import type { Rendered } from '../mall/testing';
import { appStore } from '../state/jotai';
import { FilterView } from './FilterView';

let view: Rendered | null = null;
let calls: Array<{ path: string; body: unknown }> = [];
let answer: (path: string, body: unknown) => { code: number; key: string | null; data?: unknown };

const LIST = {
  list: [
    { id: 'default.en.shit', term: 'shit', kind: 'word', lang: 'en', category: 'profanity', action: 'mask', scenes: ['comment'], whole_word: false, source: 'default', updated_at: 0 },
    { id: 'default.zh.shabi', term: '傻逼', kind: 'word', lang: 'zh', category: 'profanity', action: 'mask', scenes: [], whole_word: true, source: 'default', updated_at: 0 },
  ],
  deleted_defaults: ['default.en.fuck'],
};

async function input(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string) {
  await act(async () => {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}

function field<T extends HTMLElement>(root: ParentNode, label: string): T {
  const l = [...root.querySelectorAll('label')].find((x) => x.textContent?.trim() === label);
  const id = l?.getAttribute('for');
  const el = id ? document.getElementById(id) : null;
  if (!el) throw new Error(`no field "${label}"`);
  return el as T;
}

const ids = () => [...document.querySelectorAll<HTMLElement>('[data-testid="filter-entry"]')].map((e) => e.dataset.id);

beforeEach(() => {
  calls = [];
  appStore.set(tokenAtom, 'tok');
  answer = (p) => (p === 'admin/text-filter/list' ? { code: 10000, key: null, data: LIST } : { code: 10000, key: null, data: {} });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = new URL(url, 'http://x').pathname.replace('/api/v1/', '');
      const body: unknown = JSON.parse(String(init.body ?? 'null'));
      calls.push({ path, body });
      const a = answer(path, body);
      return new Response(JSON.stringify({ status: { code: a.code, key: a.key, msg: '' }, data: a.data ?? null }), { headers: { 'Content-Type': 'application/json' } });
    }),
  );
});

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
  appStore.set(tokenAtom, null);
});

describe('the filter page', () => {
  it('lists entries by language and shows removed shipped ones', async () => {
    view = render(<FilterView />);
    await settle();
    expect(ids()).toEqual(['default.en.shit', 'default.zh.shabi']);
    const lists = view.container.querySelector('[data-testid="mod-filter"]') as HTMLElement;
    await input(field<HTMLSelectElement>(lists, en['moderation.filter.lang']), 'zh');
    expect(ids()).toEqual(['default.zh.shabi']);
    expect(document.querySelector('[data-testid="filter-deleted"]')?.getAttribute('data-id')).toBe('default.en.fuck');
  });

  it('checks a new entry, sends it with its action and scenes, and shows a refusal by key', async () => {
    view = render(<FilterView />);
    await settle();
    await click(buttonByText(view.container, en['moderation.filter.add']));
    const form = document.querySelector('[data-testid="filter-form"]') as HTMLElement;
    await click(buttonByText(form, en['moderation.filter.save']));
    expect(form.querySelector('[role="alert"]')?.textContent).toBe(en['moderation.filter.problem.term']);
    expect(calls.filter((c) => c.path === 'admin/text-filter/upsert')).toEqual([]);

    await input(field<HTMLInputElement>(form, en['moderation.filter.term']), 'Grape');
    await input(field<HTMLSelectElement>(form, en['moderation.filter.action']), 'refuse');
    const comments = [...form.querySelectorAll('label')].find((l) => l.textContent?.trim() === en['moderation.filter.scene.comment'])?.querySelector('input');
    await click(comments as HTMLInputElement);
    answer = (p) => (p === 'admin/text-filter/upsert' ? { code: 40172, key: 'textFilterEntryInvalid' } : { code: 10000, key: null, data: LIST });
    await click(buttonByText(form, en['moderation.filter.save']));
    expect(form.querySelector('[role="alert"]')?.textContent).toBe(en.textFilterEntryInvalid);
    expect(calls.filter((c) => c.path === 'admin/text-filter/upsert').map((c) => c.body)).toEqual([
      { id: 'op.en.grape', term: 'Grape', kind: 'word', lang: 'en', category: 'other', action: 'refuse', scenes: ['comment'], whole_word: true },
    ]);

    answer = (p, body) => (p === 'admin/text-filter/upsert' ? { code: 10000, key: null, data: { ...(body as object), source: 'operator', updated_at: 1 } } : { code: 10000, key: null, data: LIST });
    const before = calls.filter((c) => c.path === 'admin/text-filter/list').length;
    await click(buttonByText(form, en['moderation.filter.save']));
    expect(document.querySelector('[data-testid="filter-form"]')).toBeNull();
    expect(calls.filter((c) => c.path === 'admin/text-filter/list').length).toBe(before + 1);
  });

  it('removes an entry and edits one in place', async () => {
    view = render(<FilterView />);
    await settle();
    const row = document.querySelector('[data-testid="filter-entry"][data-id="default.en.shit"]') as HTMLElement;
    await click(buttonByText(row, en['moderation.filter.remove']));
    expect(calls.find((c) => c.path === 'admin/text-filter/delete')?.body).toEqual({ id: 'default.en.shit' });
    await click(buttonByText(row, en['moderation.filter.edit']));
    const form = document.querySelector('[data-testid="filter-form"]') as HTMLElement;
    expect(field<HTMLInputElement>(form, en['moderation.filter.term']).value).toBe('shit');
    await input(field<HTMLSelectElement>(form, en['moderation.filter.action']), 'refuse');
    await click(buttonByText(form, en['moderation.filter.save']));
    const sent = calls.find((c) => c.path === 'admin/text-filter/upsert')?.body as { id: string; action: string; scenes: string[] };
    expect([sent.id, sent.action, sent.scenes]).toEqual(['default.en.shit', 'refuse', ['comment']]);
  });

  it('tries a text and shows the matches and what is stored', async () => {
    answer = (p) =>
      p === 'tool/text/detection'
        ? {
            code: 10000,
            key: null,
            data: { scene: 'comment', refused: false, hit: true, hits: [{ start: 2, end: 11, text: 'g-r-a-p-e', category: 'fruit', action: 'mask' }], masked: 'a ********* pie' },
          }
        : { code: 10000, key: null, data: LIST };
    view = render(<FilterView />);
    await settle();
    const box = document.querySelector('[data-testid="filter-try"]') as HTMLElement;
    await input(field<HTMLTextAreaElement>(box, en['moderation.filter.tryText']), 'a g-r-a-p-e pie');
    await click(buttonByText(box, en['moderation.filter.check']));
    expect(calls.find((c) => c.path === 'tool/text/detection')?.body).toEqual({ text: 'a g-r-a-p-e pie', scene: 'comment' });
    expect(box.querySelector('[data-testid="filter-masked"]')?.textContent).toBe('a ********* pie');
    expect(box.querySelector('mark')?.textContent).toBe('g-r-a-p-e');
    expect(box.querySelector('[data-testid="filter-hit"]')?.textContent).toBe('“g-r-a-p-e”: fruit (Mask)');
    expect(box.textContent).toContain(en['moderation.filter.verdict.masked']);
  });
});
