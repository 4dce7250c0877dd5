// A video post's page: the app's player plays the work's MP4 with its
// poster, one play is counted per page view when playback starts
// (ai-video/play), and "Report" (issue 20's report dialog) is offered to
// logged-in viewers of someone else's work only.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountAtom, tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { click, render, settle } from '../mall/testing';
import type { Rendered } from '../mall/testing';
import type { WorkDetail } from '../square/types';
import { appStore } from '../state/jotai';
import { WorkPage } from './WorkPage';

const MP4 = '/files/u/v1/out0.mp4';
const POSTER = '/files/u/v1/out0.jpg';

function work(over: Partial<WorkDetail> = {}): WorkDetail {
  return {
    id: 'w1',
    obj_type: 4,
    kind: 'video',
    title: 'Dawn',
    description: '',
    tags: [],
    visibility: 'public',
    nsfw: false,
    author: { id: 'author', name: 'Ann' },
    images: [{ url: POSTER, width: 1280, height: 720 }],
    video_url: MP4,
    params: [],
    hide_params: false,
    task_ids: [],
    likes: 0,
    collects: 0,
    comments: 0,
    views: 3,
    liked: false,
    collected: false,
    following: false,
    create_at: 1,
    update_at: 1,
    ...over,
  };
}

let shown: WorkDetail;
let calls: string[];
let plays: number;
let view: Rendered | null;

function envelope(data: unknown): Response {
  return new Response(JSON.stringify({ status: { code: 10000, key: null, msg: 'ok' }, data }), { headers: { 'Content-Type': 'application/json' } });
}

async function open(): Promise<HTMLElement> {
  view = render(<WorkPage id="w1" article={false} />);
  await settle(10);
  const page = view.container.querySelector<HTMLElement>('[data-testid="work-page"]');
  if (!page) throw new Error(`no work page: ${view.container.innerHTML}`);
  return page;
}

beforeEach(() => {
  shown = work();
  calls = [];
  plays = 0;
  view = null;
  appStore.set(tokenAtom, 'tok');
  appStore.set(accountAtom, { id: 'viewer', name: 'Vic', email: 'v@example.com', create_at: 0, status: 1 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const path = new URL(url, 'http://x').pathname.replace('/api/v1/', '');
      calls.push(path);
      if (path === 'artwork/detail') return envelope(shown);
      if (path === 'ai-video/play') return envelope({ id: 'w1', plays: (plays += 1) });
      return envelope({ items: [], next_cursor: null, total: 0 });
    }),
  );
});

afterEach(() => {
  view?.unmount();
  vi.unstubAllGlobals();
  appStore.set(tokenAtom, null);
  appStore.set(accountAtom, null);
});

describe('a video work page', () => {
  it('plays the MP4 with its poster and counts one play per page view', async () => {
    const page = await open();
    const video = page.querySelector<HTMLVideoElement>('[data-testid="work-video"] video');
    expect(video?.getAttribute('src')).toBe(MP4);
    expect(video?.getAttribute('poster')).toBe(POSTER);
    expect(video?.dataset.playback).toBe('mp4');
    expect(video?.getAttribute('aria-label')).toBe(en['works.video'].replace('{title}', 'Dawn'));
    expect(calls.filter((c) => c === 'ai-video/play')).toEqual([]);

    await act(async () => video?.dispatchEvent(new Event('playing')));
    await settle();
    await act(async () => video?.dispatchEvent(new Event('playing')));
    await settle();
    expect(calls.filter((c) => c === 'ai-video/play')).toEqual(['ai-video/play']);
    expect(page.querySelector('[data-testid="work-plays"]')?.textContent).toBe(en['works.plays'].replace('{plays}', '1'));
  });

  it('offers "Report" on someone else’s video, opening the report dialog', async () => {
    const page = await open();
    const report = page.querySelector<HTMLButtonElement>('[data-testid="report-button"]');
    expect(report?.textContent).toBe(en['moderation.report.open']);
    await click(report as HTMLButtonElement);
    expect(document.querySelector('[data-testid="report-form"]')).not.toBeNull();
  });

  it('no "Report" on your own video or for a visitor; a picture has one too', async () => {
    shown = work({ author: { id: 'viewer', name: 'Vic' } });
    expect((await open()).querySelector('[data-testid="report-button"]')).toBeNull();
    view?.unmount();

    shown = work();
    appStore.set(tokenAtom, null);
    appStore.set(accountAtom, null);
    expect((await open()).querySelector('[data-testid="report-button"]')).toBeNull();
    view?.unmount();

    appStore.set(tokenAtom, 'tok');
    appStore.set(accountAtom, { id: 'viewer', name: 'Vic', email: 'v@example.com', create_at: 0, status: 1 });
    shown = work({ kind: 'picture', video_url: null });
    const page = await open();
    expect(page.querySelector('[data-testid="report-button"]')).not.toBeNull();
    expect(page.querySelector('video')).toBeNull();
    expect(page.querySelector('[data-testid="work-image"]')).not.toBeNull();
  });
});
