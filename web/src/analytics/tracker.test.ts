import { describe, expect, it } from 'vitest';
import { ERRORS_URL, EVENTS_URL, MAX_ERRORS, pagePath, privacySignal, Tracker } from './tracker';
import type { Transport } from './tracker';

interface Sent {
  url: string;
  body: Record<string, unknown>;
  token: string | null;
  beacon: boolean;
}

function setup(opts: { optedOut?: () => boolean; beaconOk?: boolean; token?: string | null } = {}) {
  const sent: Sent[] = [];
  const transport: Transport = {
    post: (url, body, token) => sent.push({ url, body: JSON.parse(body) as Record<string, unknown>, token, beacon: false }),
    beacon: (url, body) => {
      if (opts.beaconOk === false) return false;
      sent.push({ url, body: JSON.parse(body) as Record<string, unknown>, token: null, beacon: true });
      return true;
    },
  };
  const t = new Tracker({
    release: '1.2.3',
    sessionId: 'session-1234',
    getToken: () => (opts.token === undefined ? 'tok' : opts.token),
    isOptedOut: opts.optedOut ?? (() => false),
    transport,
    now: () => 1_700_000_000_000,
    maxBatch: 3,
  });
  return { t, sent };
}

describe('tracker', () => {
  it('batches events and sends them with the release and session', () => {
    const { t, sent } = setup();
    t.pageView('/en/square?q=secret');
    t.track('search', { length: 4 });
    expect(sent).toHaveLength(0);
    t.track('checkin');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(EVENTS_URL);
    expect(sent[0]!.token).toBe('tok');
    expect(sent[0]!.body).toMatchObject({ release: '1.2.3', session_id: 'session-1234' });
    const events = sent[0]!.body.events as { name: string; page: string }[];
    expect(events.map((e) => e.name)).toEqual(['page_view', 'search', 'checkin']);
    expect(events[0]!.page).toBe('/en/square');
    expect(t.pending).toBe(0);
  });

  it('uses a beacon with the token in the body when the page goes away, fetch when refused', () => {
    const { t, sent } = setup();
    t.track('checkin');
    t.flush(true);
    expect(sent[0]!).toMatchObject({ beacon: true, body: { token: 'tok' } });
    const refused = setup({ beaconOk: false });
    refused.t.track('checkin');
    refused.t.flush(true);
    expect(refused.sent[0]!.beacon).toBe(false);
    expect(refused.sent[0]!.body.token).toBeUndefined();
    expect(refused.sent[0]!.token).toBe('tok');
  });

  it('sends nothing when opted out', () => {
    let out = true;
    const { t, sent } = setup({ optedOut: () => out });
    t.pageView('/en/');
    t.track('checkin');
    t.reportError('boom');
    t.flush(true);
    expect(sent).toHaveLength(0);
    out = false;
    t.track('checkin');
    t.flush(false);
    expect(sent).toHaveLength(1);
  });

  it('reports each error once and at most MAX_ERRORS per page load', () => {
    const { t, sent } = setup();
    t.reportError('TypeError: x', '/assets/app.js?v=1', 3, 7, 'stack');
    t.reportError('TypeError: x', '/assets/app.js?v=1', 3, 7, 'stack');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(ERRORS_URL);
    expect(sent[0]!.body).toMatchObject({ release: '1.2.3', errors: [{ message: 'TypeError: x', source: '/assets/app.js', line: 3, col: 7 }] });
    for (let i = 0; i < 20; i++) t.reportError(`e${i}`);
    expect(sent).toHaveLength(MAX_ERRORS);
  });

  it('reads DNT and GPC', () => {
    expect(privacySignal({ doNotTrack: '1' })).toBe(true);
    expect(privacySignal({ globalPrivacyControl: true })).toBe(true);
    expect(privacySignal({ doNotTrack: null }, { doNotTrack: '1' })).toBe(true);
    expect(privacySignal({ doNotTrack: '0', globalPrivacyControl: false })).toBe(false);
    expect(privacySignal(undefined)).toBe(false);
  });

  it('keeps only the path of a page', () => {
    expect(pagePath('/en/a?token=1#x')).toBe('/en/a');
    expect(pagePath('')).toBe('/');
  });
});
