// The composer against a mocked API: an item opened from the draft's list
// fills its form, saving sends it with its id and the draft's version (and
// the form goes back to a new item), a module's elements (activities too)
// round-trip through the text field, removing sends the kind and id, each
// popup shows its statistics, and feature switches are flipped and added.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appStore, Provider } from '../state/jotai';
import { homeApi } from './api';
import { HomeComposer } from './HomeComposer';
import type { Banner, Composition, DraftState, Module, Popup, PopupStats } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

const base = { order: 0, enabled: true, targeting: { audiences: [], languages: [] }, schedule: { start: null, end: null } };
const banner: Banner = { ...base, id: 'bn1', slot: 'home-top', image: '/files/b.png', title: 'Winter', link: '/en/activities' };
const mod: Module = {
  ...base,
  id: 'md1',
  slot: 'home-modules',
  title: 'Challenges',
  elements: [
    { kind: 'activity', id: 'a1' },
    { kind: 'work', id: 'w2' },
  ],
  live: null,
  link: '',
};
const popup: Popup = {
  ...base,
  id: 'pp1',
  kind: 'notice',
  image: '',
  title: 'Tip',
  body: 'Hello',
  link: '',
  cap: 'daily',
  allow_dont_pop: true,
  away_days: 0,
  targeting: { audiences: ['member'], languages: ['en'] },
};

function composition(version: number, patch: Partial<Composition> = {}): Composition {
  return { version, updated_at: 0, updated_by: 'op', published_at: null, banners: [banner], modules: [mod], popups: [popup], features: { checkin: true }, ...patch };
}

function state(version = 7): DraftState {
  return { draft: composition(version), live_version: 6, published_at: null, link_hosts: [], slots: ['home-top', 'home-modules', 'generator-side'] };
}

const stats: PopupStats = {
  id: 'pp1',
  shown: { total: 5, accounts: 2, visitors: 2 },
  closed: { total: 2, accounts: 1, visitors: 1 },
  clicked: { total: 1, accounts: 1, visitors: 0 },
  dont_pop: { total: 1, accounts: 0, visitors: 1 },
};

async function flush() {
  await act(async () => {
    for (let i = 0; i < 8; i++) await Promise.resolve();
  });
}

const q = (sel: string) => container.querySelector<HTMLElement>(sel);

function type(el: HTMLElement | null, value: string) {
  if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) throw new Error('no field');
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function value(sel: string): string {
  const el = q(sel);
  if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) throw new Error(`no field ${sel}`);
  return el.value;
}

async function render() {
  act(() =>
    root.render(
      <Provider store={appStore}>
        <HomeComposer />
      </Provider>,
    ),
  );
  await flush();
}

function edit(kind: string, id: string) {
  act(() => q(`[data-testid="draft-item"][data-kind="${kind}"][data-id="${id}"] [data-testid="draft-item-edit"]`)?.click());
}

beforeEach(() => {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  vi.spyOn(homeApi, 'draft').mockResolvedValue(state());
  vi.spyOn(homeApi, 'popupStats').mockResolvedValue({ stats: [stats] });
  vi.spyOn(homeApi, 'preview').mockResolvedValue({ version: 7, audience: 'visitor', language: 'en', banners: [], slots: [], modules: [], popups: [] });
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  vi.restoreAllMocks();
});

describe('HomeComposer', () => {
  it('edits a banner: opens it, saves it under its id, goes back to a new one', async () => {
    const save = vi.spyOn(homeApi, 'saveBanner').mockImplementation(async (_v, item) => ({
      id: 'bn1',
      draft: composition(8, { banners: [{ ...banner, ...item } as Banner] }),
    }));
    await render();
    expect(q('[data-testid="compose-banner"]')?.dataset.editing).toBe('');
    edit('banner', 'bn1');
    expect(q('[data-testid="compose-banner"]')?.dataset.editing).toBe('bn1');
    expect(value('[data-testid="banner-title"]')).toBe('Winter');
    expect(value('[data-testid="banner-link"]')).toBe('/en/activities');
    expect(value('[data-testid="banner-slot"]')).toBe('home-top');
    type(q('[data-testid="banner-title"]'), 'Winter light');
    act(() => (q('[data-testid="banner-enabled"]') as HTMLInputElement).click());
    await act(async () => q('[data-testid="banner-save"]')?.click());
    await flush();
    expect(save).toHaveBeenCalledTimes(1);
    const [version, item] = save.mock.calls[0]!;
    expect(version).toBe(7);
    expect(item).toMatchObject({ id: 'bn1', title: 'Winter light', image: '/files/b.png', slot: 'home-top', enabled: false });
    // Saved: the list shows the change, the form is a new banner again.
    expect(q('[data-testid="draft-item"][data-id="bn1"]')?.textContent).toContain('Winter light');
    expect(q('[data-testid="compose-banner"]')?.dataset.editing).toBe('');
    expect(value('[data-testid="banner-title"]')).toBe('');
  });

  it('cancels an edit, and a new banner is sent without an id', async () => {
    const save = vi.spyOn(homeApi, 'saveBanner').mockResolvedValue({ id: 'bn2', draft: composition(8) });
    await render();
    edit('banner', 'bn1');
    act(() => q('[data-testid="banner-cancel"]')?.click());
    expect(q('[data-testid="compose-banner"]')?.dataset.editing).toBe('');
    type(q('[data-testid="banner-title"]'), 'Spring');
    type(q('[data-testid="banner-image"]'), '/files/s.png');
    await act(async () => q('[data-testid="banner-save"]')?.click());
    await flush();
    expect(save.mock.calls[0]![1]).toMatchObject({ id: '', title: 'Spring', image: '/files/s.png', enabled: true });
  });

  it('edits a module and a popup, keeping what was not changed', async () => {
    const saveModule = vi.spyOn(homeApi, 'saveModule').mockResolvedValue({ id: 'md1', draft: composition(8) });
    const savePopup = vi.spyOn(homeApi, 'savePopup').mockResolvedValue({ id: 'pp1', draft: composition(9) });
    await render();
    edit('module', 'md1');
    expect(value('[data-testid="module-title"]')).toBe('Challenges');
    expect(value('[data-testid="module-ids"]')).toBe('activity:a1, work:w2');
    type(q('[data-testid="module-ids"]'), 'activity:a1, activity:a9, bogus');
    await act(async () => q('[data-testid="module-save"]')?.click());
    await flush();
    expect(saveModule.mock.calls[0]![1]).toMatchObject({
      id: 'md1',
      slot: 'home-modules',
      live: null,
      elements: [
        { kind: 'activity', id: 'a1' },
        { kind: 'activity', id: 'a9' },
      ],
    });

    edit('popup', 'pp1');
    expect(value('[data-testid="popup-body"]')).toBe('Hello');
    type(q('[data-testid="popup-title"]'), 'Better tip');
    await act(async () => q('[data-testid="popup-save"]')?.click());
    await flush();
    expect(saveModule.mock.calls.length).toBe(1);
    expect(savePopup.mock.calls[0]![0]).toBe(8);
    expect(savePopup.mock.calls[0]![1]).toMatchObject({
      id: 'pp1',
      kind: 'notice',
      title: 'Better tip',
      body: 'Hello',
      cap: 'daily',
      targeting: { audiences: ['member'], languages: ['en'] },
    });
  });

  it('removes an item by kind and id', async () => {
    const remove = vi.spyOn(homeApi, 'remove').mockResolvedValue({ draft: composition(8, { popups: [] }) });
    await render();
    await act(async () => q('[data-testid="draft-item"][data-id="pp1"] [data-testid="draft-item-remove"]')?.click());
    await flush();
    expect(remove).toHaveBeenCalledWith(7, 'popup', 'pp1');
    expect(q('[data-testid="draft-item"][data-id="pp1"]')).toBeNull();
  });

  it("shows each popup's statistics", async () => {
    await render();
    const line = q('[data-testid="popup-stats"][data-id="pp1"]')?.textContent ?? '';
    expect(line).toContain('shown 5 (4 viewers: 2 accounts, 2 visitors)');
    expect(line).toContain('closed 2 (2 viewers)');
    expect(line).toContain('clicked 1 (1 viewers)');
    expect(line).toContain('25% of viewers clicked');
  });

  it('flips, adds and removes feature switches in the draft', async () => {
    const set = vi.spyOn(homeApi, 'setFeatures').mockImplementation(async (v, features) => ({ draft: composition(v + 1, { features }) }));
    await render();
    const box = () => q('[data-testid="feature-checkin"]') as HTMLInputElement;
    expect(box().checked).toBe(true);
    await act(async () => box().click());
    await flush();
    expect(set).toHaveBeenLastCalledWith(7, { checkin: false });
    expect(box().checked).toBe(false);
    const add = () => q('[data-testid="feature-add"]') as HTMLButtonElement;
    type(q('[data-testid="feature-name"]'), 'Bad Name');
    expect(add().disabled).toBe(true);
    type(q('[data-testid="feature-name"]'), 'surveys');
    await act(async () => add().click());
    await flush();
    expect(set).toHaveBeenLastCalledWith(8, { checkin: false, surveys: true });
    expect(value('[data-testid="feature-name"]')).toBe('');
    await act(async () => q('[data-testid="feature-remove-checkin"]')?.click());
    await flush();
    expect(set).toHaveBeenLastCalledWith(9, { surveys: true });
  });
});
