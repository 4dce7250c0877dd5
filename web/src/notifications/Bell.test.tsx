// The bell: the unread count of the first page, a frame-13 push adding to
// it, opening the list marking everything read, and an item going to its work.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { squareApi } from '../square/actions';
import type { Notification } from '../square/types';
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import { appStore, Provider } from '../state/jotai';
import { notificationsAtom } from './atoms';
import { Bell, notificationPath } from './Bell';
import { EMPTY_NOTIFICATIONS } from './model';
import { notificationPushHook } from './pushHook';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let reads: number;

function n(id: string, extra: Partial<Notification> = {}): Notification {
  return { id, kind: 'like', actor: { id: 'b', name: 'Bea' }, obj_id: 'w1', obj_type: 4, text: 'Fox', create_at: 1, read: false, unread: 0, ...extra };
}

function count(): string | null {
  return container.querySelector('[data-testid="bell-count"]')?.textContent ?? null;
}

beforeEach(async () => {
  reads = 0;
  appStore.set(notificationsAtom, EMPTY_NOTIFICATIONS);
  appStore.set(tokenAtom, 'tok');
  vi.spyOn(squareApi, 'notifications').mockResolvedValue({ items: [n('n1')], next_cursor: null, unread: 1 });
  vi.spyOn(squareApi, 'markAllRead').mockImplementation(async () => {
    reads += 1;
  });
  window.history.replaceState(null, '', '/en/');
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => {
    root.render(
      <Provider store={appStore}>
        <Bell />
      </Provider>,
    );
  });
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  appStore.set(tokenAtom, null);
  appStore.set(notificationsAtom, EMPTY_NOTIFICATIONS);
});

describe('Bell', () => {
  it('counts the unread, adds a push, reads all on open and goes to the work', async () => {
    expect(count()).toBe('1');
    act(() => notificationPushHook({ type: FrameType.Notification, seq: 3, content: n('n2', { kind: 'comment', text: 'Nice', create_at: 2, unread: 2 }) } as unknown as PushFrame));
    expect(count()).toBe('2');

    await act(async () => container.querySelector<HTMLButtonElement>('[data-testid="bell"]')?.click());
    expect(reads).toBe(1);
    expect(count()).toBeNull();
    const items = [...container.querySelectorAll<HTMLAnchorElement>('[data-testid="notification"]')];
    expect(items.map((a) => a.textContent)).toEqual([expect.stringContaining('Bea commented: Nice'), expect.stringContaining('Bea liked "Fox"')]);
    expect(items[0]?.getAttribute('href')).toBe('/en/artWorkDetail/w1');
    act(() => items[0]?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 })));
    expect(window.location.pathname).toBe('/en/artWorkDetail/w1');
    expect(container.querySelector('[data-testid="notifications"]')).toBeNull();
  });

  it('shows nothing to a visitor', async () => {
    await act(async () => appStore.set(tokenAtom, null));
    expect(container.querySelector('[data-testid="bell"]')).toBeNull();
  });
});

describe('notification paths', () => {
  it('a comment on a model goes to the model, one on a work to the work', () => {
    expect(notificationPath(n('c', { kind: 'comment', obj_id: 'm 1', obj_type: 2 }))).toBe('/models/detail/m%201');
    expect(notificationPath(n('w', { kind: 'comment' }))).toBe('/artWorkDetail/w1');
  });
});
