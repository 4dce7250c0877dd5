// The comment section: emoji shortcodes shown as emoji, a reply sent under
// its top-level comment (a reply to a reply too: one level), more replies
// read on demand, and a deleted comment gone.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountAtom, tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { squareApi } from '../square/actions';
import type { CommentView, CreateCommentRequest } from '../square/types';
import { appStore, Provider } from '../state/jotai';
import { Comments } from './Comments';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let created: CreateCommentRequest[];
let deleted: string[];

function c(id: string, content: string, extra: Partial<CommentView> = {}): CommentView {
  return { id, obj_id: 'w1', obj_type: 4, content, author: { id: 'u2', name: 'Bea' }, like_count: 0, liked: false, parent_id: null, reply_count: 0, replies: [], can_delete: false, create_at: 1, ...extra };
}

const OBJ = { obj_id: 'w1', obj_type: 4 };

async function flush() {
  await act(async () => {
    for (let i = 0; i < 6; i++) await Promise.resolve();
  });
}

function texts(): string[] {
  return [...container.querySelectorAll('[data-testid="comment-text"]')].map((p) => p.textContent ?? '');
}

function buttonIn(el: Element | null | undefined, text: string): HTMLButtonElement {
  const b = [...(el?.querySelectorAll('button') ?? [])].find((x) => x.textContent === text);
  if (!b) throw new Error(`no button ${text}`);
  return b;
}

beforeEach(async () => {
  created = [];
  deleted = [];
  appStore.set(tokenAtom, 'tok');
  vi.spyOn(squareApi, 'emoji').mockResolvedValue([{ shortcode: 'smile', emoji: '😄' }]);
  vi.spyOn(squareApi, 'comments').mockResolvedValue({
    items: [c('c1', 'Lovely :smile:', { reply_count: 2, replies: [c('r1', 'First reply', { parent_id: 'c1', create_at: 2 })], can_delete: true })],
    next_cursor: null,
    total: 3,
  });
  vi.spyOn(squareApi, 'replies').mockResolvedValue({ items: [c('r2', 'Second reply', { parent_id: 'c1', create_at: 3 })], next_cursor: null, total: 0 });
  vi.spyOn(squareApi, 'createComment').mockImplementation(async (req) => {
    created.push(req);
    return { id: 'new' };
  });
  vi.spyOn(squareApi, 'deleteComment').mockImplementation(async (id) => {
    deleted.push(id);
  });
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => {
    root.render(
      <Provider store={appStore}>
        <Comments obj={OBJ} workAuthor="u1" count={3} />
      </Provider>,
    );
  });
  await flush();
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  appStore.set(tokenAtom, null);
});

describe('Comments', () => {
  it('shows shortcodes as emoji and reads more replies on demand', async () => {
    expect(texts()).toEqual(['Lovely 😄', 'First reply']);
    act(() => buttonIn(container, en['works.comments.moreReplies'].replace('{count}', '1')).click());
    await flush();
    expect(texts()).toEqual(['Lovely 😄', 'First reply', 'Second reply']);
  });

  it('sends a reply to a reply under the top-level comment', async () => {
    const reply = container.querySelector('[data-testid="comment"][data-id="r1"]');
    act(() => buttonIn(reply, en['works.comments.reply']).click());
    const form = container.querySelector<HTMLFormElement>('[data-testid="reply-form"]');
    expect(form?.querySelector('textarea')?.value).toBe('@Bea ');
    act(() => {
      const area = form?.querySelector('textarea');
      if (!area) return;
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(area, '@Bea thanks :smile:');
      area.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => form?.requestSubmit());
    await flush();
    expect(created).toEqual([{ ...OBJ, content: '@Bea thanks :smile:', parent_id: 'c1', source: 'web' }]);
  });

  it('deletes a comment after a confirmation', async () => {
    const top = container.querySelector('[data-testid="comment"][data-id="c1"]');
    act(() => buttonIn(top, en['works.comments.delete']).click());
    const dialog = container.querySelector('[role="dialog"]');
    await act(async () => buttonIn(dialog, en['works.comments.delete']).click());
    await flush();
    expect(deleted).toEqual(['c1']);
    expect(texts()).toEqual([]);
  });

  it('offers "Report" on someone else’s comment only, opening the report dialog', async () => {
    expect(container.querySelector('[data-testid="comment-report"]')).toBeNull();
    act(() => appStore.set(accountAtom, { id: 'u1', name: 'Ada', email: 'a@example.com', create_at: 0, status: 1 }));
    const top = container.querySelector('[data-testid="comment"][data-id="c1"]');
    const report = top?.querySelector<HTMLButtonElement>('[data-testid="comment-report"]');
    expect(report?.getAttribute('aria-label')).toBe(en['moderation.report.openFor.30'].replace('{name}', 'Bea'));
    await act(async () => report?.click());
    expect(document.querySelector('[role="dialog"]')?.textContent).toContain(en['moderation.report.title.30']);
    act(() => appStore.set(accountAtom, { id: 'u2', name: 'Bea', email: 'b@example.com', create_at: 0, status: 1 }));
    expect(container.querySelector('[data-testid="comment-report"]')).toBeNull();
    act(() => appStore.set(accountAtom, null));
  });
});
