// The operators' Surveys tab against a scripted server: a listed survey opens
// in the builder, is saved through `admin/survey/edit` with its question and
// option ids kept, and the list's button closes or reopens it.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appStore, Provider } from '../state/jotai';
import type { SurveyView } from './model';
import { OperateSurveys } from './OperateSurveys';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let stored: SurveyView;
let asked: Array<{ path: string; body: Record<string, unknown> }>;
let container: HTMLDivElement;
let root: Root;

function reply(data: unknown) {
  return Promise.resolve(new Response(JSON.stringify({ status: { code: 10000, msg: '', key: null }, data }), { headers: { 'Content-Type': 'application/json' } }));
}

beforeEach(() => {
  window.history.replaceState(null, '', '/en/operate/surveys');
  stored = {
    id: 's1',
    title: 'One month in',
    description: '',
    audience: 'all',
    opens_at: null,
    closes_at: null,
    closed: false,
    created_at: 1,
    updated_at: 1_000,
    responses: 3,
    questions: [
      { id: 'fav', kind: 'single', title: 'Favourite', required: true, options: [{ id: 'img', label: 'Images' }, { id: 'vid', label: 'Video' }], min_choices: 0, max_choices: 0, max_chars: 0 },
      { id: 'stars', kind: 'rating', title: 'How good?', required: true, options: [], min_choices: 0, max_choices: 0, max_chars: 0 },
    ],
  };
  asked = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
    asked.push({ path, body });
    if (path.endsWith('/admin/survey/list')) return reply({ items: [stored] });
    if (path.endsWith('/admin/survey/edit')) {
      const def: Record<string, unknown> = { ...body };
      delete def.id;
      stored = { ...stored, ...(def as Partial<SurveyView>), updated_at: stored.updated_at + 1 };
      return reply(stored);
    }
    if (path.endsWith('/admin/survey/close')) {
      stored = { ...stored, closed: body.closed === true };
      return reply(stored);
    }
    return reply(null);
  });
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  vi.unstubAllGlobals();
});

async function settle() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

function type(el: HTMLInputElement | HTMLTextAreaElement | null, value: string) {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
    el?.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

describe('OperateSurveys', () => {
  it('opens a survey in the builder and saves it through edit, keeping its ids', async () => {
    await act(async () => {
      root.render(
        <Provider store={appStore}>
          <OperateSurveys />
        </Provider>,
      );
    });
    await settle();
    act(() => container.querySelector<HTMLButtonElement>('[data-testid="survey-edit"]')?.click());
    const builder = container.querySelector('[data-testid="survey-builder"]');
    expect(builder?.querySelector('h2')?.textContent).toBe('Edit: One month in');
    expect(container.querySelector('[data-testid="survey-edit-note"]')?.textContent).toContain('3 responses');
    const title = builder?.querySelector<HTMLInputElement>('input') ?? null;
    expect(title?.value).toBe('One month in');
    type(title, 'Two months in');
    const options = container.querySelector<HTMLTextAreaElement>('[data-testid="build-q-1"] textarea');
    expect(options?.value).toBe('Images\nVideo');
    type(options, 'Video\nImages\nAudio');
    await act(async () => {
      container.querySelector<HTMLButtonElement>('[data-testid="survey-save"]')?.click();
      await new Promise((r) => setTimeout(r, 0));
    });
    await settle();
    const edit = asked.find((a) => a.path.endsWith('/admin/survey/edit'));
    expect(edit?.body.id).toBe('s1');
    expect(edit?.body.title).toBe('Two months in');
    const questions = edit?.body.questions as SurveyView['questions'];
    expect(questions.map((q) => q.id)).toEqual(['fav', 'stars']);
    expect(questions[0]?.options).toEqual([
      { id: 'vid', label: 'Video' },
      { id: 'img', label: 'Images' },
      { id: 'o1-rs', label: 'Audio' },
    ]);
    expect(asked.filter((a) => a.path.endsWith('/admin/survey/create'))).toHaveLength(0);
    // Saved: the builder is a new survey's again, and the list shows the new title.
    expect(container.querySelector('[data-testid="survey-builder"] h2')?.textContent).toBe('New survey');
    expect(container.querySelector('[data-testid="survey-row"] strong')?.textContent).toBe('Two months in');
  });

  it('closes and reopens a survey from the list', async () => {
    await act(async () => {
      root.render(
        <Provider store={appStore}>
          <OperateSurveys />
        </Provider>,
      );
    });
    await settle();
    const button = () => container.querySelector<HTMLButtonElement>('[data-testid="survey-close"]');
    expect(button()?.textContent).toBe('Close');
    await act(async () => {
      button()?.click();
      await new Promise((r) => setTimeout(r, 0));
    });
    await settle();
    expect(asked.filter((a) => a.path.endsWith('/admin/survey/close')).at(-1)?.body).toEqual({ id: 's1', closed: true });
    expect(button()?.textContent).toBe('Reopen');
    await act(async () => {
      button()?.click();
      await new Promise((r) => setTimeout(r, 0));
    });
    await settle();
    expect(asked.filter((a) => a.path.endsWith('/admin/survey/close')).at(-1)?.body).toEqual({ id: 's1', closed: false });
    expect(button()?.textContent).toBe('Close');
  });
});
