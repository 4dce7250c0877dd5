// The operators' form: upload a picture, add an ornament (the draft the
// server gets), edit one (its slot fixed); and a work's frame picker that
// lists only owned frames and sets the chosen one.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../i18n/en';
import { appStore, Provider } from '../state/jotai';
import { ornamentApi } from './actions';
import { AdminPanel } from './AdminPanel';
import { WorkFramePicker } from './WorkFramePicker';
import type { Ornament, OrnamentDraft, ShopItem } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

const halo: Ornament = { ornament_id: 'halo', slot: 'work_frame', name: 'Halo', description: '', price: 10, image: { url: '/files/halo.png' }, active: true, sort: 0, limited: null, sold: 3 };

async function flush() {
  await act(async () => {
    for (let i = 0; i < 6; i++) await Promise.resolve();
  });
}

function render(node: React.ReactNode) {
  act(() => root.render(<Provider store={appStore}>{node}</Provider>));
}

function type(el: HTMLInputElement | HTMLTextAreaElement | null, value: string) {
  if (!el) throw new Error('no field');
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function field(label: string): HTMLInputElement {
  const l = [...container.querySelectorAll('label')].find((x) => x.textContent?.startsWith(label));
  const input = l?.querySelector('input, select, textarea');
  if (!input) throw new Error(`no field ${label}`);
  return input as HTMLInputElement;
}

beforeEach(() => {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  vi.restoreAllMocks();
});

describe('AdminPanel', () => {
  it('uploads a picture and adds an ornament', async () => {
    const saved: OrnamentDraft[] = [];
    vi.spyOn(ornamentApi, 'adminList').mockResolvedValue([halo]);
    vi.spyOn(ornamentApi, 'adminUpsert').mockImplementation(async (d) => {
      saved.push(d);
      return { ...halo, ...d, ornament_id: 'new', limited: d.limited, sold: 0 };
    });
    const onSaved = vi.fn();
    const upload = vi.fn(async () => '/files/u/crown.png');
    render(<AdminPanel onSaved={onSaved} upload={upload} />);
    await flush();
    expect(container.querySelectorAll('[data-testid="admin-ornament"]')).toHaveLength(1);
    expect(container.textContent).toContain('3 sold');
    const submit = () => [...container.querySelectorAll('button')].find((b) => b.textContent === en['ornaments.admin.add']) as HTMLButtonElement;
    expect(submit().disabled).toBe(true);
    type(field(en['ornaments.admin.name']), 'Crown');
    type(field(en['ornaments.admin.price']), '250');
    type(field(en['ornaments.admin.limited']), '7');
    const file = container.querySelector<HTMLInputElement>('[data-testid="ornament-file"]');
    Object.defineProperty(file, 'files', { value: [new File([new Uint8Array([1])], 'crown.png', { type: 'image/png' })] });
    await act(async () => file?.dispatchEvent(new Event('change', { bubbles: true })));
    await flush();
    expect(upload).toHaveBeenCalledTimes(1);
    await act(async () => submit().click());
    await flush();
    expect(saved).toEqual([{ ornament_id: null, slot: 'avatar', name: 'Crown', description: '', price: 250, image: { url: '/files/u/crown.png' }, active: true, sort: 0, limited: 7 }]);
    expect(onSaved).toHaveBeenCalled();
    expect(container.querySelectorAll('[data-testid="admin-ornament"]')).toHaveLength(2);
  });

  it('edits an ornament without changing its slot', async () => {
    vi.spyOn(ornamentApi, 'adminList').mockResolvedValue([halo]);
    render(<AdminPanel onSaved={() => {}} />);
    await flush();
    act(() => ([...container.querySelectorAll('button')].find((b) => b.textContent === en['ornaments.admin.edit']) as HTMLButtonElement).click());
    expect(field(en['ornaments.admin.name']).value).toBe('Halo');
    expect((field(en['ornaments.admin.slot']) as unknown as HTMLSelectElement).disabled).toBe(true);
  });
});

describe('WorkFramePicker', () => {
  it('lists owned frames and sets the chosen one', async () => {
    const item = (id: string, owned: boolean): ShopItem => ({ ...halo, ornament_id: id, name: id, image: { url: `/files/${id}.png` }, owned, worn: false });
    vi.spyOn(ornamentApi, 'list').mockResolvedValue({ items: [item('gilt', true), item('oak', false)], next_cursor: null });
    const calls: Array<[string, string | null]> = [];
    vi.spyOn(ornamentApi, 'wearWorkFrame').mockImplementation(async (work, id) => {
      calls.push([work, id]);
      return { work_id: work, frame: id === null ? null : { ...halo, ornament_id: id, image: { url: `/files/${id}.png` } } };
    });
    const changes: Array<string | null> = [];
    render(<WorkFramePicker workId="w1" frame={null} onChange={(u) => changes.push(u)} />);
    await flush();
    const select = container.querySelector<HTMLSelectElement>('[data-testid="work-frame-picker"]');
    expect([...(select?.options ?? [])].map((o) => o.value)).toEqual(['', 'gilt']);
    await act(async () => {
      if (!select) return;
      select.value = 'gilt';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await flush();
    expect(calls).toEqual([['w1', 'gilt']]);
    expect(changes).toEqual(['/files/gilt.png']);
  });
});
