// The web app's analytics tracker (issue 22): page views and key actions
// batched to `dot/report`, client errors to `/log/v1/error_report`, both
// first-party only. Nothing is sent when the browser says Do Not Track or
// Global Privacy Control, or when the person opted out (a switch in the
// settings, kept in this browser and on the account). Events wait in memory
// up to `flushEvery` ms or `maxBatch` events; when the page is hidden or
// closed they leave with `navigator.sendBeacon`, which cannot carry headers,
// so the token then rides in the body.

/** Where events and errors go. */
export const EVENTS_URL = '/api/v1/dot/report';
export const ERRORS_URL = '/log/v1/error_report';
/** The browser's own opt-out of this app's analytics. */
export const OPT_OUT_KEY = 'easel.analytics.optOut';
/** At most this many error reports per page load (a loop must not flood). */
export const MAX_ERRORS = 10;

export interface TrackedEvent {
  name: string;
  props?: Record<string, string | number | boolean>;
  page: string;
  ts: number;
}

export interface Transport {
  /** A normal call (fetch with keepalive): the token in its header. */
  post(url: string, body: string, token: string | null): void;
  /** A call that survives the page closing; false when the browser refused it. */
  beacon(url: string, body: string): boolean;
}

export interface TrackerOptions {
  release: string;
  sessionId: string;
  getToken: () => string | null;
  /** DNT, GPC or the person's opt-out. */
  isOptedOut: () => boolean;
  transport: Transport;
  now?: () => number;
  maxBatch?: number;
}

/** Whether the browser asks not to be tracked (DNT or GPC). */
export function privacySignal(nav: { doNotTrack?: string | null; globalPrivacyControl?: boolean } | undefined, win?: { doNotTrack?: string | null }): boolean {
  return nav?.doNotTrack === '1' || nav?.doNotTrack === 'yes' || win?.doNotTrack === '1' || nav?.globalPrivacyControl === true;
}

/** The page's path without query or fragment (they may carry secrets). */
export function pagePath(pathname: string): string {
  return (pathname.split(/[?#]/)[0] ?? '').slice(0, 200) || '/';
}

export class Tracker {
  private queue: TrackedEvent[] = [];
  private readonly reported = new Set<string>();
  private errorsSent = 0;
  private readonly maxBatch: number;
  private readonly now: () => number;
  private page = '/';

  constructor(private readonly options: TrackerOptions) {
    this.maxBatch = options.maxBatch ?? 20;
    this.now = options.now ?? (() => Date.now());
  }

  /** Events waiting to be sent. */
  get pending(): number {
    return this.queue.length;
  }

  /** A page was shown. */
  pageView(pathname: string): void {
    this.page = pagePath(pathname);
    this.track('page_view', document.referrer ? { referrer: referrerHost(document.referrer) } : undefined);
  }

  /** A key action (`action`, `search`, `publish`, ...; see protocol/src/analytics). */
  track(name: string, props?: TrackedEvent['props']): void {
    if (this.options.isOptedOut()) return;
    this.queue.push(props === undefined ? { name, page: this.page, ts: this.now() } : { name, props, page: this.page, ts: this.now() });
    if (this.queue.length >= this.maxBatch) this.flush(false);
  }

  /** Sends what waits; `beacon` when the page is going away. */
  flush(beacon: boolean): void {
    if (this.queue.length === 0) return;
    const events = this.queue.splice(0, 50);
    if (this.options.isOptedOut()) return;
    const payload: Record<string, unknown> = {
      release: this.options.release,
      session_id: this.options.sessionId,
      events,
    };
    this.send(EVENTS_URL, payload, beacon);
    if (this.queue.length > 0) this.flush(beacon);
  }

  /** A client error, reported once per message and place per page load. */
  reportError(message: string, source?: string, line?: number, col?: number, stack?: string, kind = 'error'): void {
    if (this.options.isOptedOut()) return;
    const key = `${message}|${source ?? ''}|${line ?? ''}`;
    if (this.reported.has(key) || this.errorsSent >= MAX_ERRORS) return;
    this.reported.add(key);
    this.errorsSent += 1;
    const error: Record<string, unknown> = { message: message.slice(0, 500), kind, page: this.page, ts: this.now() };
    if (source) error.source = (source.split(/[?#]/)[0] ?? '').slice(0, 300);
    if (line !== undefined) error.line = line;
    if (col !== undefined) error.col = col;
    if (stack) error.stack = stack.slice(0, 4000);
    this.send(ERRORS_URL, { release: this.options.release, session_id: this.options.sessionId, errors: [error] }, false);
  }

  private send(url: string, payload: Record<string, unknown>, beacon: boolean): void {
    const token = this.options.getToken();
    if (beacon) {
      const body = JSON.stringify(token ? { ...payload, token } : payload);
      if (this.options.transport.beacon(url, body)) return;
    }
    this.options.transport.post(url, JSON.stringify(payload), token);
  }
}

function referrerHost(referrer: string): string {
  try {
    return new URL(referrer).host.slice(0, 100);
  } catch {
    return '';
  }
}

/** The browser's transport: fetch with keepalive, and sendBeacon. */
export const browserTransport: Transport = {
  post(url, body, token) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.token = token;
    void fetch(url, { method: 'POST', body, headers, keepalive: true, credentials: 'same-origin' }).catch(() => undefined);
  },
  beacon(url, body) {
    if (typeof navigator.sendBeacon !== 'function') return false;
    return navigator.sendBeacon(url, new Blob([body], { type: 'text/plain' }));
  },
};
