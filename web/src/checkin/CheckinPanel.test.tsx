// The check-in panel: the calendar's cells and rewards, the button before a
// check-in and the countdown after; frame 13 `award.granted` asks the popup to read.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { paymentStaleAtom } from '../mall/pushHook';
import { FrameType } from '../socket/frames';
import { appStore, Provider } from '../state/jotai';
import { awardsStaleAtom } from './atoms';
import { CheckinPanel } from './CheckinPanel';
import type { CheckinInfo } from './model';
import { applyAwardFrame } from './pushHook';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

const info: CheckinInfo = {
  checked_today: false,
  streak: 2,
  today: '2026-11-27',
  time_zone: 'Asia/Shanghai',
  reward_today: 10,
  next_at: Date.now() + 90 * 60_000,
  calendar: [1, 2, 3, 4, 5, 6, 7].map((n) => ({ date: `2026-11-${24 + n}`, streak_day: n, reward: [5, 5, 10, 10, 15, 15, 30][n - 1] ?? 0, checked: n < 3, today: n === 3 })),
  total_days: 2,
  temp_coins_popup: 0,
  time_zone_pinned: true,
  time_zone_change_at: 0,
};

beforeEach(() => {
  window.history.replaceState(null, '', '/en/');
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

function render(i: CheckinInfo, onCheckIn = () => undefined, onChangeZone?: (tz: string) => Promise<boolean>) {
  act(() =>
    root.render(
      <Provider store={appStore}>
        <CheckinPanel info={i} busy={false} error={null} onCheckIn={onCheckIn} {...(onChangeZone ? { onChangeZone } : {})} />
      </Provider>,
    ),
  );
}

describe('CheckinPanel', () => {
  it('shows the streak, the week with rewards, and the button', () => {
    const onCheckIn = vi.fn();
    render(info, onCheckIn);
    expect(container.querySelector('[data-testid="checkin-streak"]')?.getAttribute('data-streak')).toBe('2');
    expect(container.querySelector('[data-flames]')?.getAttribute('data-flames')).toBe('2');
    expect(container.querySelectorAll('.checkin-flame')).toHaveLength(2);
    const days = [...container.querySelectorAll('[data-testid="checkin-day"]')];
    expect(days).toHaveLength(7);
    expect(days.map((d) => d.getAttribute('data-checked'))).toEqual(['true', 'true', 'false', 'false', 'false', 'false', 'false']);
    expect(days[2]?.getAttribute('data-today')).toBe('true');
    expect(days[6]?.textContent).toContain('+30');
    const button = container.querySelector<HTMLButtonElement>('[data-testid="checkin-button"]');
    expect(button?.textContent).toBe('Check in (+10)');
    act(() => button?.click());
    expect(onCheckIn).toHaveBeenCalledTimes(1);
  });

  it('shows the countdown once checked in', () => {
    render({ ...info, checked_today: true, streak: 3 });
    expect(container.querySelector('[data-testid="checkin-button"]')).toBeNull();
    expect(container.querySelector('[data-testid="checkin-done"]')?.textContent).toMatch(/Checked in today · Next check-in in 1:(29|30)/);
  });
});

describe('the time zone line', () => {
  it('shows the zone and changes it through the list', async () => {
    const onChangeZone = vi.fn<(tz: string) => Promise<boolean>>(() => Promise.resolve(true));
    render(info, undefined, onChangeZone);
    const line = container.querySelector('[data-testid="checkin-zone"]');
    expect(line?.getAttribute('data-zone')).toBe('Asia/Shanghai');
    expect(line?.textContent).toContain('Days follow Asia/Shanghai.');
    act(() => container.querySelector<HTMLButtonElement>('[data-testid="checkin-zone-change"]')?.click());
    const select = container.querySelector<HTMLSelectElement>('[data-testid="checkin-zone-select"]');
    const options = [...(select?.options ?? [])].map((o) => o.value);
    expect(options).toContain('Asia/Shanghai');
    expect(options).toContain('UTC');
    expect(container.textContent).toContain('once every 30 days');
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')?.set?.call(select, 'UTC');
      select?.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await act(async () => {
      container.querySelector<HTMLButtonElement>('[data-testid="checkin-zone-save"]')?.click();
      await Promise.resolve();
    });
    expect(onChangeZone).toHaveBeenCalledWith('UTC');
    // Changed: the form closes.
    expect(container.querySelector('[data-testid="checkin-zone-select"]')).toBeNull();
  });

  it('says from when the zone can change again, without a button', () => {
    const until = new Date('2026-12-27T10:00:00Z').getTime();
    render({ ...info, time_zone_change_at: until }, undefined, () => Promise.resolve(true));
    expect(container.querySelector('[data-testid="checkin-zone-change"]')).toBeNull();
    expect(container.querySelector('[data-testid="checkin-zone-wait"]')?.textContent).toMatch(/It can change again from Dec 2[67], 2026\./);
  });

  it('keeps the form open when the change is refused', async () => {
    render(info, undefined, () => Promise.resolve(false));
    act(() => container.querySelector<HTMLButtonElement>('[data-testid="checkin-zone-change"]')?.click());
    const select = container.querySelector<HTMLSelectElement>('[data-testid="checkin-zone-select"]');
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')?.set?.call(select, 'UTC');
      select?.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await act(async () => {
      container.querySelector<HTMLButtonElement>('[data-testid="checkin-zone-save"]')?.click();
      await Promise.resolve();
    });
    expect(container.querySelector('[data-testid="checkin-zone-select"]')).not.toBeNull();
  });
});

describe('award pushes', () => {
  it('mark the awards and the credits stale, and ignore other notices', () => {
    const awards = appStore.get(awardsStaleAtom);
    const pay = appStore.get(paymentStaleAtom);
    applyAwardFrame(appStore, { type: FrameType.Notification, content: { kind: 'like', id: 'n1' } });
    expect(appStore.get(awardsStaleAtom)).toBe(awards);
    applyAwardFrame(appStore, { type: FrameType.Notification, content: { kind: 'award.granted', award: { key: 'award:first_follow:u', trigger: 'first_follow', title: 'x', amount: 5, at: 1 } } });
    expect(appStore.get(awardsStaleAtom)).toBe(awards + 1);
    expect(appStore.get(paymentStaleAtom)).toBe(pay + 1);
  });
});
