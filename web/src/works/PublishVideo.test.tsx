// Posting a finished video from its result: "Post" on the video's action bar
// (the owner's only) opens the publish dialog in its video mode (the poster
// as the preview, no picture choice, no hidden parameters), which sends
// post/video/add with the task id; the task then links to its work.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountAtom, tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { buttonByText, click, render, settle } from '../mall/testing';
import type { Rendered } from '../mall/testing';
import { appStore } from '../state/jotai';
import { tasksAtom } from '../tasks/atoms';
import { EMPTY_LIST } from '../tasks/model';
import { TaskCard } from '../tasks/TaskCard';
import { makeTask } from '../tasks/testTask';

const MP4 = '/files/u/v1/out0.mp4';
const POSTER = '/files/u/v1/out0.jpg';
const video = (over: Parameters<typeof makeTask>[0]) =>
  makeTask({
    status: 3,
    type: 43,
    account_id: 'me',
    video_uris: [MP4],
    img_uris: [POSTER],
    outputs: [
      { url: MP4, mime: 'video/mp4', width: 1280, height: 720, seed: 1 },
      { url: POSTER, mime: 'image/jpeg', width: 1280, height: 720, seed: 1 },
    ],
    ...over,
  });

let calls: Array<{ path: string; body: unknown }>;
let view: Rendered | null;

function show(task: ReturnType<typeof makeTask>): Rendered {
  appStore.set(tasksAtom, { ...EMPTY_LIST, byId: { [task.id]: task }, order: [task.id], loaded: true });
  view = render(<TaskCard id={task.id} />);
  return view;
}

function type(el: Element | null, value: string) {
  if (!(el instanceof HTMLInputElement)) throw new Error('no input');
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function labelled(root: ParentNode, label: string): Element | null {
  const l = [...root.querySelectorAll('label')].find((x) => x.textContent === label);
  return l ? document.getElementById(l.htmlFor) : null;
}

beforeEach(() => {
  calls = [];
  view = null;
  appStore.set(tokenAtom, 'tok');
  appStore.set(accountAtom, { id: 'me', name: 'Me', email: 'me@example.com', create_at: 0, status: 1 });
  window.history.replaceState(null, '', '/en/create/video');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ path: new URL(url, 'http://x').pathname, body: JSON.parse(String(init.body ?? 'null')) });
      return new Response(JSON.stringify({ status: { code: 10000, key: null, msg: 'ok' }, data: { id: 'w9' } }), { headers: { 'Content-Type': 'application/json' } });
    }),
  );
});

afterEach(() => {
  view?.unmount();
  vi.unstubAllGlobals();
  appStore.set(tasksAtom, EMPTY_LIST);
  appStore.set(tokenAtom, null);
  appStore.set(accountAtom, null);
});

describe('posting a video result', () => {
  it('"Post" opens the video publish dialog, sends post/video/add and the task then links to its work', async () => {
    const { container } = show(video({ id: 'v1' }));
    const bar = container.querySelector('[data-testid="video-action-bar"]');
    expect(bar).not.toBeNull();
    await click(buttonByText(bar as Element, en['tasks.action.post']));

    const form = document.querySelector('[data-testid="publish-form"]');
    expect(form).not.toBeNull();
    const preview = form?.querySelector<HTMLImageElement>('[data-testid="publish-video"] img');
    expect(preview?.getAttribute('src')).toBe(POSTER);
    expect(preview?.alt).toBe(en['works.publish.videoPoster']);
    // No picture choice, no hidden parameters: a video post has neither.
    expect(form?.querySelectorAll('.publish-images input')).toHaveLength(0);
    expect([...(form?.querySelectorAll('label') ?? [])].some((l) => l.textContent?.includes(en['works.form.hideParams']))).toBe(false);

    // The server's limits first: nothing is sent.
    type(labelled(form as Element, en['works.form.title']), 'x'.repeat(101));
    await act(async () => (form as HTMLFormElement).requestSubmit());
    await settle();
    expect(form?.querySelector('[role="alert"]')?.textContent).toBe(en.WorkTitleTooLong);
    expect(calls).toEqual([]);

    type(labelled(form as Element, en['works.form.title']), ' Dawn over the valley ');
    type(labelled(form as Element, en['works.form.tags']), 'dawn, #Valley');
    await act(async () => (form as HTMLFormElement).requestSubmit());
    await settle();
    expect(calls).toEqual([
      { path: '/api/v1/post/video/add', body: { task_id: 'v1', title: 'Dawn over the valley', description: '', tags: ['dawn', 'Valley'], visibility: 'public', nsfw: false } },
    ]);
    expect(document.querySelector('[data-testid="publish-done"]')?.textContent).toBe(en['works.publish.doneText']);
    expect(appStore.get(tasksAtom).byId.v1?.pub_artwork_no).toBe('w9');

    // The result now shows it is posted, linking to the work; "Post" is gone.
    const link = container.querySelector<HTMLAnchorElement>('[data-testid="posted-link"]');
    expect(link?.getAttribute('href')).toBe('/en/artWorkDetail/w9');
    expect(link?.textContent).toBe(en['works.publish.posted']);
    expect(bar?.querySelector('[data-action="post"]')).toBeNull();
    await click(buttonByText(document.body, en['works.publish.checkNow']));
    expect(window.location.pathname).toBe('/en/artWorkDetail/w9');
  });

  it('a posted video links to its work; someone else’s video cannot be posted; a visitor sees no "Post"', () => {
    let { container } = show(video({ id: 'v2', pub_artwork_no: 'w5' }));
    expect(container.querySelector('[data-testid="posted-link"]')?.getAttribute('href')).toBe('/en/artWorkDetail/w5');
    expect(container.querySelector('[data-action="post"]')).toBeNull();
    view?.unmount();

    ({ container } = show(video({ id: 'v3', account_id: 'someone-else' })));
    const post = container.querySelector<HTMLButtonElement>('[data-action="post"]');
    expect(post?.disabled).toBe(true);
    expect(post?.title).toBe(en['works.publish.notYours']);
    view?.unmount();

    appStore.set(tokenAtom, null);
    appStore.set(accountAtom, null);
    ({ container } = show(video({ id: 'v4' })));
    expect(container.querySelector('[data-action="post"]')).toBeNull();
  });
});
