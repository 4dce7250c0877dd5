import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import {
  closeGenerator,
  closeGeneratorTarget,
  generatorRouteAtom,
  historyTrailAtom,
  localeAtom,
  locationAtom,
  navigate,
  startRouter,
} from './router';

let store: AppStore;
let stop: () => void;

function visit(path: string, state: unknown = null) {
  window.history.replaceState(state, '', path);
}

beforeEach(() => {
  store = createAppStore();
});

afterEach(() => {
  stop?.();
});

describe('router', () => {
  it('redirects to the canonical locale path and publishes the location', () => {
    visit('/zh-cn/create/video?id=5');
    stop = startRouter(store);
    expect(window.location.pathname).toBe('/zhCN/create/video');
    expect(store.get(localeAtom)).toBe('zhCN');
    expect(store.get(locationAtom).search).toBe('?id=5');
    expect(store.get(generatorRouteAtom)).toMatchObject({ mode: 'page', tab: 'generateVideo', id: '5' });
  });

  it('numbers the entries it makes and remembers their paths', () => {
    visit('/en/');
    stop = startRouter(store);
    expect(store.get(historyTrailAtom)).toEqual({ index: 0, paths: ['/en/'] });
    navigate(store, '/en/explore');
    navigate(store, '/en/create/image');
    expect(store.get(historyTrailAtom)).toEqual({ index: 2, paths: ['/en/', '/en/explore', '/en/create/image'] });
    expect(window.history.state).toMatchObject({ easelIndex: 2 });
    navigate(store, '/en/studio', { replace: true });
    expect(store.get(historyTrailAtom)).toEqual({ index: 2, paths: ['/en/', '/en/explore', '/en/studio'] });
  });

  it('keeps the position over a reload (history.state survives it)', () => {
    visit('/en/create/audio', { easelIndex: 4 });
    stop = startRouter(store);
    expect(store.get(historyTrailAtom).index).toBe(4);
    // The previous path is unknown after a reload: closing goes back.
    expect(closeGeneratorTarget(store)).toEqual({ kind: 'back' });
  });

  it('closing the generator opened first goes home, replacing the entry', () => {
    visit('/fr/create/image');
    stop = startRouter(store);
    const back = vi.spyOn(window.history, 'back');
    closeGenerator(store);
    expect(back).not.toHaveBeenCalled();
    expect(window.location.pathname).toBe('/fr/');
    expect(store.get(historyTrailAtom).index).toBe(0);
  });

  it('closing after the home page goes home; after another page goes back', () => {
    visit('/en/');
    stop = startRouter(store);
    navigate(store, '/en/create/image');
    expect(closeGeneratorTarget(store)).toEqual({ kind: 'navigate', to: '/en/' });
    navigate(store, '/en/explore');
    navigate(store, '/en/create/video');
    const back = vi.spyOn(window.history, 'back').mockImplementation(() => undefined);
    closeGenerator(store);
    expect(back).toHaveBeenCalledOnce();
  });

  it('follows popstate to the entry it names', () => {
    visit('/en/');
    stop = startRouter(store);
    navigate(store, '/en/explore');
    visit('/en/', { easelIndex: 0 });
    window.dispatchEvent(new PopStateEvent('popstate', { state: { easelIndex: 0 } }));
    expect(store.get(historyTrailAtom).index).toBe(0);
    expect(store.get(locationAtom).pathname).toBe('/en/');
  });
});
