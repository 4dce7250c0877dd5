// The editor in jsdom with a fake API: chips from text, weight steps,
// disable-all, dialect switch, the prompts URL parameter, presets in storage.
import { act, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppStore, Provider } from '../../state/jotai';
import { PRESETS_STORAGE_KEY } from '../editor';
import type { Poster } from './api';
import { PromptEditor } from './PromptEditor';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let changes: Array<[string, string]>;

const api = {
  post: vi.fn(async (path: string) => {
    if (path === '/api/v1/prompt/definitions') {
      return { language: 'en', categories: [{ name: 'style', count: 1 }], total: 1, items: [{ term: 'watercolor', text: 'watercolor', lang: 'watercolor', subType: 'style', desc: '', dir: 'style', isAlias: false, translated: false }], next_cursor: null };
    }
    return { language: 'en', items: [] };
  }),
} as unknown as Poster;

function Host({ initial = '' }: { initial?: string }) {
  const [texts, setTexts] = useState({ prompt: initial, negative: '' });
  return (
    <PromptEditor
      api={api}
      value={texts.prompt}
      negative={texts.negative}
      onChange={(prompt, negative) => {
        changes.push([prompt, negative]);
        setTexts({ prompt, negative });
      }}
    />
  );
}

async function mount(initial = '') {
  await act(async () => {
    root.render(
      <Provider store={createAppStore()}>
        <Host initial={initial} />
      </Provider>,
    );
  });
}

function chips(list: string): string[] {
  return [...container.querySelectorAll(`[data-testid="list-${list}"] .chip__label`)].map((el) => el.textContent ?? '');
}

function button(label: string | RegExp): HTMLButtonElement {
  const found = [...container.querySelectorAll('button')].find((b) => {
    const name = b.getAttribute('aria-label') ?? b.textContent ?? '';
    return typeof label === 'string' ? name === label : label.test(name);
  });
  if (!found) throw new Error(`no button ${String(label)}`);
  return found;
}

async function typeInto(el: HTMLTextAreaElement, text: string) {
  await act(async () => {
    el.focus();
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set;
    setter?.call(el, text);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

beforeEach(() => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  window.history.replaceState(null, '', '/en/prompt-editor');
  changes = [];
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

describe('PromptEditor', () => {
  it('shows the owner prompt as chips with weights only when not 1', async () => {
    await mount('(cat:1.3), dog');
    expect(chips('normal')).toEqual(['cat1.3', 'dog']);
    expect(changes).toEqual([]);
  });

  it('re-parses typed text at once and hands the rendered text to the owner', async () => {
    await mount();
    const prompt = container.querySelector<HTMLTextAreaElement>('textarea')!;
    await typeInto(prompt, '(red:1.5), house, ');
    expect(chips('normal')).toEqual(['red1.5', 'house']);
    expect(changes.at(-1)).toEqual(['(red:1.5), house', '']);
    expect(prompt.value).toBe('(red:1.5), house, ');
  });

  it('steps a weight by 1.1 and toggles a list', async () => {
    await mount('cat, dog');
    await act(async () => button('Increase the weight of cat').click());
    expect(chips('normal')).toEqual(['cat1.1', 'dog']);
    expect(changes.at(-1)?.[0]).toBe('(cat), dog');
    await act(async () => button('Turn all words of Words on or off').click());
    expect(changes.at(-1)?.[0]).toBe('');
    expect(button('Turn all words of Words on or off').textContent).toBe('Turn all on');
    await act(async () => button(/^dog/).click());
    expect(changes.at(-1)?.[0]).toBe('dog');
  });

  it('moves a word with the keyboard and keeps focus on it', async () => {
    await mount('cat, dog');
    const cat = button(/^cat/);
    await act(async () => {
      cat.focus();
      cat.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    });
    expect(chips('normal')).toEqual(['dog']);
    expect(chips('style')).toEqual(['cat']);
    expect(document.activeElement?.textContent).toBe('cat');
  });

  it('switches dialect keeping the words', async () => {
    await mount('(cat:1.5), dog');
    const bot = container.querySelector<HTMLInputElement>('input[value="bot"]')!;
    await act(async () => bot.click());
    expect(changes.at(-1)).toEqual(['cat::1.5 dog', '']);
    expect(chips('normal')).toEqual(['cat1.5', 'dog']);
  });

  it('reads the prompts parameter once and removes it from the URL', async () => {
    window.history.replaceState(null, '', `/en/prompt-editor?x=1&prompts=${encodeURIComponent('["a cat", "(sky:1.2)"]')}`);
    await mount();
    expect(window.location.search).toBe('?x=1');
    // One group per imported prompt.
    expect(container.querySelectorAll('.prompt-group')).toHaveLength(2);
    expect(chips('normal')).toEqual(['a cat', 'sky1.2']);
    expect(changes.at(-1)?.[0]).toBe('a cat, (sky:1.2)');
  });

  it('only logs a wrong prompts value', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    window.history.replaceState(null, '', '/en/prompt-editor?prompts=%5Bnot-json');
    await mount();
    expect(window.location.search).toBe('');
    expect(warn).toHaveBeenCalled();
  });

  it('keeps presets in localStorage: create, rename, switch', async () => {
    await mount('cat');
    await act(async () => button('New preset').click());
    expect(changes.at(-1)).toEqual(['', '']);
    await act(async () => button('Rename').click());
    const input = container.querySelector<HTMLInputElement>('.prompt-toolbar input')!;
    await act(async () => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
      setter?.call(input, 'Portraits');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => button('Save name').click());
    const stored = JSON.parse(window.localStorage.getItem(PRESETS_STORAGE_KEY) ?? '{}') as { presets: Array<{ name: string }> };
    expect(stored.presets.map((p) => p.name)).toEqual(['untitled', 'Portraits']);
    const select = container.querySelector<HTMLSelectElement>('.prompt-toolbar select')!;
    await act(async () => {
      select.value = select.options[0]!.value;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(changes.at(-1)).toEqual(['cat', '']);
  });
});

describe('PromptEditor on mount with empty texts', () => {
  it('keeps the stored work in its preset and shows an empty one', async () => {
    await mount('cat, dog');
    act(() => root.unmount());
    root = createRoot(container);
    changes = [];
    await mount('');
    expect(chips('normal')).toEqual([]);
    expect(changes).toEqual([]);
    const stored = JSON.parse(window.localStorage.getItem(PRESETS_STORAGE_KEY) ?? '{}') as { presets: Array<{ output: string }> };
    expect(stored.presets.map((p) => p.output)).toEqual(['cat, dog', '']);
    // A second empty mount reuses the empty preset.
    act(() => root.unmount());
    root = createRoot(container);
    await mount('');
    const again = JSON.parse(window.localStorage.getItem(PRESETS_STORAGE_KEY) ?? '{}') as { presets: unknown[] };
    expect(again.presets).toHaveLength(2);
  });
});
