// Reporting a video post: a reason chosen (and a detail for "other") before
// anything is sent, then ai-video/report with {id, reason, detail}; the
// thanks on success, the envelope's own message when the server refuses.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { buttonByText, render, settle } from '../mall/testing';
import type { Rendered } from '../mall/testing';
import { appStore } from '../state/jotai';
import { ReportVideoDialog } from './ReportVideoDialog';

let calls: Array<{ path: string; body: unknown }>;
let answer: { status: { code: number; key: string | null; msg: string }; data: unknown };
let view: Rendered;
let closed: number;

function form(): HTMLFormElement {
  const f = document.querySelector('[data-testid="report-form"]');
  if (!(f instanceof HTMLFormElement)) throw new Error('no report form');
  return f;
}

function field<T extends HTMLElement>(label: string): T {
  const l = [...document.querySelectorAll('label')].find((x) => x.textContent === label);
  const el = l && document.getElementById(l.htmlFor);
  if (!el) throw new Error(`no field ${label}`);
  return el as T;
}

function choose(reason: string) {
  const select = field<HTMLSelectElement>(en['works.report.reason']);
  act(() => {
    select.value = reason;
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

function describeIt(text: string) {
  const area = field<HTMLTextAreaElement>(en['works.report.detail']);
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(area, text);
    area.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function send() {
  await act(async () => form().requestSubmit());
  await settle();
}

const alertText = () => document.querySelector('[role="alert"]')?.textContent ?? null;

beforeEach(() => {
  calls = [];
  closed = 0;
  answer = { status: { code: 10000, key: null, msg: 'ok' }, data: { updated: false } };
  appStore.set(tokenAtom, 'tok');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ path: new URL(url, 'http://x').pathname, body: JSON.parse(String(init.body ?? 'null')) });
      return new Response(JSON.stringify(answer), { status: answer.status.code === 10000 ? 200 : 429, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  view = render(<ReportVideoDialog workId="w7" onClose={() => (closed += 1)} />);
});

afterEach(() => {
  view.unmount();
  vi.unstubAllGlobals();
  appStore.set(tokenAtom, null);
});

describe('ReportVideoDialog', () => {
  it('offers the server’s reasons and checks the form before sending', async () => {
    const options = [...field<HTMLSelectElement>(en['works.report.reason']).options].map((o) => o.value);
    expect(options).toEqual(['', 'sexual_minors', 'hate', 'violence', 'spam', 'impersonation', 'other']);
    await send();
    expect(alertText()).toBe(en['works.report.reasonNeeded']);
    choose('other');
    await send();
    expect(alertText()).toBe(en['works.report.detailNeeded']);
    describeIt('x'.repeat(501));
    await send();
    expect(alertText()).toBe(en['works.report.detailTooLong'].replace('{max}', '500'));
    expect(calls).toEqual([]);
  });

  it('sends ai-video/report and thanks the reporter', async () => {
    choose('other');
    describeIt('  a clip taken from my channel  ');
    await send();
    expect(calls).toEqual([{ path: '/api/v1/ai-video/report', body: { id: 'w7', reason: 'other', detail: 'a clip taken from my channel' } }]);
    expect(document.querySelector('[data-testid="report-done"]')?.textContent).toBe(en['works.report.sent']);
    act(() => buttonByText(document.body, en['tavern.dialog.close']).click());
    expect(closed).toBe(1);
  });

  it('says a second report replaced the first', async () => {
    answer = { status: { code: 10000, key: null, msg: 'ok' }, data: { updated: true } };
    choose('spam');
    await send();
    expect(calls).toEqual([{ path: '/api/v1/ai-video/report', body: { id: 'w7', reason: 'spam', detail: '' } }]);
    expect(document.querySelector('[data-testid="report-done"]')?.textContent).toBe(en['works.report.updated']);
  });

  it('shows the envelope’s message when the server refuses, and keeps the form', async () => {
    answer = { status: { code: 42900, key: 'TooManyRequests', msg: 'too many reports: try again later' }, data: null };
    choose('hate');
    await send();
    expect(calls).toHaveLength(1);
    expect(alertText()).toBe('too many reports: try again later');
    expect(document.querySelector('[data-testid="report-done"]')).toBeNull();
    expect(buttonByText(document.body, en['works.report.send']).disabled).toBe(false);
  });
});
