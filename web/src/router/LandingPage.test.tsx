import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { page } from '../app/App';
import { appStore, Provider } from '../state/jotai';
import { startRouter } from './router';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  appStore.set(tokenAtom, null);
});

async function render(path: string) {
  window.history.replaceState(null, '', path);
  stop = startRouter(appStore);
  const container = document.createElement('div');
  const root = createRoot(container);
  await act(async () => {
    root.render(<Provider store={appStore}>{page(new URL(path, 'http://x').pathname.replace(/^\/[^/]+/, ''))}</Provider>);
  });
  return { container, unmount: () => act(() => root.unmount()) };
}

describe('landing route', () => {
  it('shows the landing page to a visitor', async () => {
    const { container, unmount } = await render('/en/landing');
    expect(container.querySelector('h1')?.textContent).toBe('Create images, video and audio with AI');
    expect(window.location.pathname).toBe('/en/landing');
    unmount();
  });

  it('sends a logged-in visitor to the home page', async () => {
    appStore.set(tokenAtom, 'token-1');
    const { container, unmount } = await render('/de/landing');
    expect(window.location.pathname).toBe('/de/');
    expect(container.textContent).toBe('');
    unmount();
  });
});

describe('page table', () => {
  it.each([
    ['/create', 'generator'],
    ['/studio', 'generator'],
    ['/create/video', 'generator'],
    ['/create/nope', 'not found'],
    ['/prompt-editor', 'editor'],
  ])('%s shows the %s', async (rest, what) => {
    const node = page(rest);
    const name = (node as { type?: { name?: string } }).type?.name;
    expect({ generator: 'GeneratorPage', 'not found': 'NotFoundPage', editor: 'PromptEditorPage' }[what]).toBe(name);
  });
});
