// The search box: completion is asked for once typing pauses, an older
// answer never shows for a newer keyword, and Enter opens the search page.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { squareApi } from '../square/actions';
import { appStore, Provider } from '../state/jotai';
import { COMPLETE_DEBOUNCE_MS, SearchBox } from './SearchBox';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let asked: Array<{ keyword: string; resolve: (items: string[]) => void }>;

function input(): HTMLInputElement {
  const el = container.querySelector<HTMLInputElement>('[data-testid="search-input"]');
  if (!el) throw new Error('no input');
  return el;
}

function type(value: string) {
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input(), value);
    input().dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function suggestions(): string[] {
  return [...container.querySelectorAll('[data-testid="search-suggestion"]')].map((li) => li.textContent ?? '');
}

beforeEach(() => {
  vi.useFakeTimers();
  asked = [];
  vi.spyOn(squareApi, 'complete').mockImplementation((keyword) => new Promise((resolve) => asked.push({ keyword, resolve })));
  window.history.replaceState(null, '', '/en/');
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => {
    root.render(
      <Provider store={appStore}>
        <SearchBox />
      </Provider>,
    );
  });
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  vi.useRealTimers();
});

describe('SearchBox', () => {
  it('asks once typing pauses and shows only the newest keyword\'s answer', async () => {
    type('l');
    type('li');
    type('lig');
    act(() => vi.advanceTimersByTime(COMPLETE_DEBOUNCE_MS - 1));
    expect(asked).toEqual([]);
    act(() => vi.advanceTimersByTime(1));
    expect(asked.map((a) => a.keyword)).toEqual(['lig']);

    type('ligh');
    act(() => vi.advanceTimersByTime(COMPLETE_DEBOUNCE_MS));
    expect(asked.map((a) => a.keyword)).toEqual(['lig', 'ligh']);
    // The older answer arrives last: it is not shown.
    await act(async () => asked[1]?.resolve(['lighthouse']));
    await act(async () => asked[0]?.resolve(['ligature']));
    expect(suggestions()).toEqual(['lighthouse']);
  });

  it('opens the search page on Enter, with a highlighted suggestion when one is chosen', async () => {
    type('sea');
    act(() => vi.advanceTimersByTime(COMPLETE_DEBOUNCE_MS));
    await act(async () => asked[0]?.resolve(['sea side', 'seal']));
    act(() => input().dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true })));
    act(() => input().dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true })));
    act(() => input().form?.requestSubmit());
    expect(window.location.pathname + window.location.search).toBe('/en/search?q=seal');
  });
});
