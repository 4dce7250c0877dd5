// The report dialog and the owner's notice against a mocked server: the
// fixed reasons, the server's refusal shown by its key, the thanks; the
// owner sees the moderator's reason, the appeals left today and sends one.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { buttonByText, click, render, settle } from '../mall/testing';
import type { Rendered } from '../mall/testing';
import { appStore } from '../state/jotai';
import { OwnerNotice } from './OwnerNotice';
import { ReportDialog } from './ReportDialog';

let view: Rendered | null = null;
let calls: Array<{ path: string; body: unknown }> = [];
let answer: (path: string) => { code: number; key: string | null; data?: unknown };

function respond(path: string): Response {
  const a = answer(path);
  return new Response(JSON.stringify({ status: { code: a.code, key: a.key, msg: '' }, data: a.data ?? null }), { headers: { 'Content-Type': 'application/json' } });
}

async function type(el: HTMLTextAreaElement, value: string) {
  await act(async () => {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set;
    setter?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

beforeEach(() => {
  calls = [];
  appStore.set(tokenAtom, 'tok');
  answer = () => ({ code: 10000, key: null, data: {} });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = new URL(url, 'http://x').pathname.replace('/api/v1/', '');
      calls.push({ path, body: JSON.parse(String(init.body ?? 'null')) });
      return respond(path);
    }),
  );
});

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
  appStore.set(tokenAtom, null);
});

describe('the report dialog', () => {
  it('asks for a reason, shows "already reported" by key, then thanks', async () => {
    view = render(<ReportDialog obj={{ obj_id: 'c1', obj_type: 30 }} onClose={() => undefined} />);
    await settle();
    const dialog = document.querySelector<HTMLElement>('[data-testid="report-form"]');
    if (!dialog) throw new Error('no form');
    expect(document.body.textContent).toContain(en['moderation.report.title.30']);
    await click(buttonByText(dialog, en['moderation.report.send']));
    expect(dialog.querySelector('[role="alert"]')?.textContent).toBe(en['moderation.report.reasonNeeded']);
    expect(calls.filter((c) => c.path === 'report')).toEqual([]);

    const other = dialog.querySelector<HTMLInputElement>('input[value="other"]');
    await click(other as HTMLInputElement);
    await click(buttonByText(dialog, en['moderation.report.send']));
    expect(dialog.querySelector('[role="alert"]')?.textContent).toBe(en['moderation.report.textNeeded']);

    await type(dialog.querySelector('textarea') as HTMLTextAreaElement, ' a scam link ');
    answer = (p) => (p === 'report' ? { code: 40153, key: 'reportDuplicate' } : { code: 10000, key: null });
    await click(buttonByText(dialog, en['moderation.report.send']));
    expect(dialog.querySelector('[role="alert"]')?.textContent).toBe(en.reportDuplicate);
    expect(calls.filter((c) => c.path === 'report').map((c) => c.body)).toEqual([{ obj_id: 'c1', obj_type: 30, reason: 'other', text: 'a scam link' }]);

    answer = () => ({ code: 10000, key: null, data: { report_id: 'r1' } });
    await click(buttonByText(dialog, en['moderation.report.send']));
    expect(document.querySelector('[data-testid="report-done"]')?.textContent).toBe(en['moderation.report.sent']);
  });
});

describe('the owner’s notice', () => {
  it('shows the moderator’s reason and sends an appeal with the count left', async () => {
    answer = (p) =>
      p === 'resource/nsfw-appeal/rate-limit'
        ? { code: 10000, key: null, data: { limit: 3, remaining: 2, reset_at: 0 } }
        : { code: 10000, key: null, data: { appeal_id: 'ap1', remaining: 1 } };
    view = render(<OwnerNotice obj={{ obj_id: 'w1', obj_type: 4 }} work={{ nsfw: false, moderation: { state: 'hidden', reason: 'Shows a weapon', at: 1 } }} />);
    const notice = view.container.querySelector<HTMLElement>('[data-testid="owner-moderation"]');
    expect(notice?.dataset.state).toBe('hidden');
    expect(notice?.textContent).toContain(en['moderation.owner.hidden']);
    expect(notice?.querySelector('[data-testid="owner-moderation-reason"]')?.textContent).toBe('Reason: Shows a weapon');

    await click(buttonByText(notice as HTMLElement, en['moderation.owner.appeal']));
    const form = document.querySelector<HTMLElement>('[data-testid="appeal-form"]');
    expect(form?.querySelector('[data-testid="appeal-remaining"]')?.textContent).toBe('Appeals left today: 2 of 3');
    await click(buttonByText(form as HTMLElement, en['moderation.owner.appealSend']));
    expect(form?.querySelector('[role="alert"]')?.textContent).toBe(en['moderation.owner.textNeeded']);
    await type(form?.querySelector('textarea') as HTMLTextAreaElement, 'It is a toy');
    await click(buttonByText(form as HTMLElement, en['moderation.owner.appealSend']));
    expect(calls.find((c) => c.path === 'resource/nsfw-appeal/create')?.body).toEqual({ obj_id: 'w1', obj_type: 4, text: 'It is a toy' });
    expect(view.container.querySelector('[data-testid="appeal-status"]')?.textContent).toBe(en['moderation.owner.appealSent']);
    expect(view.container.querySelector('[data-testid="appeal-button"]')).toBeNull();
  });

  it('says nothing on an unflagged, unmoderated work, and shows a decided appeal', async () => {
    view = render(<OwnerNotice obj={{ obj_id: 'w1', obj_type: 4 }} work={{ nsfw: false }} />);
    expect(view.container.querySelector('[data-testid="owner-moderation"]')).toBeNull();
    view.unmount();
    view = render(<OwnerNotice obj={{ obj_id: 'w1', obj_type: 4 }} work={{ nsfw: true, appeal: { appeal_id: 'ap1', status: 'kept', reason: 'Still explicit.' } }} />);
    expect(view.container.querySelector('[data-testid="appeal-status"]')?.textContent).toBe('Your appeal was decided: the decision stays. Still explicit.');
  });
});
