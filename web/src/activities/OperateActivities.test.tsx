// The operators' tab against a mocked API: creating an activity sends the
// form's definition (prizes parsed, types in order); a picks-mode period
// that has closed is judged with the ticked entries in rank order; a
// votes-mode live period is closed (and judged) with one button.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appStore, Provider } from '../state/jotai';
import { activitiesApi } from './actions';
import { OperateActivities } from './OperateActivities';
import type { ActivityAdmin, ActivityDraft, Entry } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
const NOW = Date.now();
const H = 3_600_000;

function admin(judging: 'votes' | 'picks', status: 'live' | 'closed'): ActivityAdmin {
  return {
    id: `a-${judging}`, title: `By ${judging}`, cover: null, status: 'live', daily: false, judging, types: ['work'], prizes: [50, 20],
    periods: [{ index: 0, start: NOW - 2 * H, end: status === 'live' ? NOW + H : NOW - H, status }],
    current_period: status === 'live' ? 0 : null, start: NOW - 2 * H, end: NOW + H, card_id: '', obj_type: 61, entries: 3, max_entries: 3, create_at: 0,
    rules_html: '', joined: false, my_entries: 0, rules: '', excellent_count: 2, period_entries: [3],
  };
}

const entry = (id: string): Entry => ({
  entry_id: `e-${id}`, activity_id: 'a', period: 0, type: 'work', obj_id: id, obj_type: 4, title: `W ${id}`, cover: null,
  author: { id: 'x', name: 'X' }, votes: 0, voted: false, create_at: 0, status: 'entered', rank: null, prize: null, card: null,
});

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

describe('OperateActivities', () => {
  it('creates an activity from the form', async () => {
    vi.spyOn(activitiesApi, 'adminList').mockResolvedValue([]);
    const sent: Array<[ActivityDraft, string | null]> = [];
    vi.spyOn(activitiesApi, 'save').mockImplementation(async (d, id) => {
      sent.push([d, id]);
      return { ...admin('votes', 'live'), id: 'new', title: d.title };
    });
    act(() => root.render(<Provider store={appStore}><OperateActivities upload={async () => '/files/c.png'} /></Provider>));
    await flush();
    const save = () => q('[data-testid="form-save"]') as HTMLButtonElement;
    expect(save().disabled).toBe(true);
    type(q('[data-testid="form-title"]'), '  Moonrise ');
    type(q('[data-testid="form-rules"]'), 'Paint the **moon**.');
    type(q('[data-testid="form-prizes"]'), '300; 100');
    act(() => (q('[data-testid="form-type-model_LORA"]') as HTMLInputElement).click());
    type(q('[data-testid="form-prizes"]'), 'lots');
    expect(q('[data-testid="form-problems"]')?.textContent).toContain('Prizes are whole numbers');
    expect(save().disabled).toBe(true);
    type(q('[data-testid="form-prizes"]'), '300, 100');
    await act(async () => save().click());
    await flush();
    expect(sent).toHaveLength(1);
    const [draft, id] = sent[0]!;
    expect(id).toBeNull();
    expect(draft).toMatchObject({ title: 'Moonrise', rules: 'Paint the **moon**.', prizes: [300, 100], types: ['work', 'model_LORA'], judging: 'votes', daily: false, cover: null });
    expect(draft.periods).toHaveLength(1);
    expect(q('[data-testid="admin-activity"][data-id="new"]')?.textContent).toContain('Moonrise');
  });

  it('judges a closed picks-mode period with the ticked entries in rank order', async () => {
    vi.spyOn(activitiesApi, 'adminList').mockResolvedValue([admin('picks', 'closed')]);
    vi.spyOn(activitiesApi, 'posts').mockResolvedValue({ items: [entry('1'), entry('2'), entry('3')], next_cursor: null, period: 0 });
    const judge = vi.spyOn(activitiesApi, 'judge').mockResolvedValue({ period: 0, start: 0, end: 0, status: 'judged', judged_at: NOW, judging: 'picks', winners: [{ rank: 1, prize: 50, entry: entry('3') }, { rank: 2, prize: 20, entry: entry('1') }] });
    act(() => root.render(<Provider store={appStore}><OperateActivities /></Provider>));
    await flush();
    act(() => q('[data-testid="admin-manage"]')?.click());
    await flush();
    expect(q('[data-testid="admin-close"]')).toBeNull();
    const judgeButton = () => q('[data-testid="admin-judge"]') as HTMLButtonElement;
    expect(judgeButton().disabled).toBe(true);
    const pick = (obj: string) => act(() => (q(`[data-testid="admin-entry"][data-obj="${obj}"] [data-testid="admin-pick"]`) as HTMLInputElement).click());
    pick('3');
    pick('1');
    // At most `excellent_count` (2): a third tick is ignored.
    pick('2');
    await act(async () => judgeButton().click());
    await flush();
    expect(judge).toHaveBeenCalledWith('a-picks', 0, ['e-3', 'e-1']);
    expect([...container.querySelectorAll<HTMLElement>('[data-testid="admin-result"] li')].map((li) => li.dataset.obj)).toEqual(['3', '1']);
  });

  it('closes a live votes-mode period', async () => {
    // After the close the console reloads the list: the period now reads judged, and the result stays shown.
    const judged = admin('votes', 'live');
    vi.spyOn(activitiesApi, 'adminList')
      .mockResolvedValueOnce([admin('votes', 'live')])
      .mockResolvedValue([{ ...judged, periods: judged.periods.map((p) => ({ ...p, status: 'judged' as const })) }]);
    vi.spyOn(activitiesApi, 'posts').mockResolvedValue({ items: [entry('1')], next_cursor: null, period: 0 });
    const close = vi.spyOn(activitiesApi, 'close').mockResolvedValue({ period: 0, start: 0, end: 0, status: 'judged', judged_at: NOW, judging: 'votes', winners: [{ rank: 1, prize: 50, entry: entry('1') }] });
    act(() => root.render(<Provider store={appStore}><OperateActivities /></Provider>));
    await flush();
    act(() => q('[data-testid="admin-manage"]')?.click());
    await flush();
    expect(q('[data-testid="admin-pick"]')).toBeNull();
    await act(async () => q('[data-testid="admin-close"]')?.click());
    await flush();
    expect(close).toHaveBeenCalledWith('a-votes', 0);
    expect(activitiesApi.adminList).toHaveBeenCalledTimes(2);
    expect(q('[data-testid="admin-period"]')?.dataset.status).toBe('judged');
    expect(q('[data-testid="admin-result"]')?.dataset.status).toBe('judged');
    expect(q('[data-testid="admin-result"] li')?.textContent).toContain('#1: 50 credits');
  });
});
