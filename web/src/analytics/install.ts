// Starts the tracker for the web app: page views on every route change,
// clicks on elements marked `data-track="name"` as `action` events, errors
// from window.onerror and unhandled rejections, a flush every 5 s and a
// beacon when the page is hidden or closed.
import { tokenAtom } from '../account/atoms';
import { locationAtom } from '../router/router';
import type { AppStore } from '../state/jotai';
import { browserTransport, OPT_OUT_KEY, privacySignal, Tracker } from './tracker';

const RELEASE = (import.meta.env.VITE_EASEL_RELEASE as string | undefined) ?? '0.1.0';
const FLUSH_EVERY_MS = 5000;

let tracker: Tracker | null = null;

/** The browser's own opt-out (set by the settings switch). */
export function localOptOut(): boolean {
  try {
    return localStorage.getItem(OPT_OUT_KEY) === '1';
  } catch {
    return false;
  }
}

export function setLocalOptOut(on: boolean): void {
  try {
    if (on) localStorage.setItem(OPT_OUT_KEY, '1');
    else localStorage.removeItem(OPT_OUT_KEY);
  } catch {
    // Storage refused (private mode): the account's setting still applies.
  }
}

function sessionId(): string {
  try {
    const known = sessionStorage.getItem('easel.analytics.session');
    if (known) return known;
    const id = crypto.randomUUID();
    sessionStorage.setItem('easel.analytics.session', id);
    return id;
  } catch {
    return crypto.randomUUID();
  }
}

/** The running tracker, for features that report key actions. */
export function track(name: string, props?: Record<string, string | number | boolean>): void {
  tracker?.track(name, props);
}

export function installTracker(store: AppStore): void {
  if (tracker !== null) return;
  const t = new Tracker({
    release: RELEASE,
    sessionId: sessionId(),
    getToken: () => store.get(tokenAtom),
    isOptedOut: () => privacySignal(navigator as Navigator & { globalPrivacyControl?: boolean }, window as Window & { doNotTrack?: string }) || localOptOut(),
    transport: browserTransport,
  });
  tracker = t;
  t.pageView(store.get(locationAtom).pathname);
  let last = store.get(locationAtom).pathname;
  store.sub(locationAtom, () => {
    const path = store.get(locationAtom).pathname;
    if (path !== last) {
      last = path;
      t.pageView(path);
    }
  });
  document.addEventListener('click', (e) => {
    const el = e.target instanceof Element ? e.target.closest('[data-track]') : null;
    const target = el?.getAttribute('data-track');
    if (target) t.track('action', { target: target.slice(0, 64) });
  });
  window.addEventListener('error', (e) => {
    t.reportError(e.message || 'error', e.filename, e.lineno, e.colno, e.error instanceof Error ? e.error.stack : undefined);
  });
  window.addEventListener('unhandledrejection', (e) => {
    const r: unknown = e.reason;
    const message = r instanceof Error ? r.message : String(r);
    t.reportError(message || 'unhandled rejection', undefined, undefined, undefined, r instanceof Error ? r.stack : undefined, 'unhandledrejection');
  });
  window.setInterval(() => t.flush(false), FLUSH_EVERY_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') t.flush(true);
  });
  window.addEventListener('pagehide', () => t.flush(true));
}
