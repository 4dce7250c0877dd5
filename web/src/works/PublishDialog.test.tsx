// The publish dialog: the server's limits checked before sending (with the
// server's message texts), the pictures to post chosen, the request sent,
// the task marked as posted, and "Check it now" going to the new work.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../i18n/en';
import { squareApi } from '../square/actions';
import type { PublishPictureRequest } from '../square/types';
import { appStore, Provider } from '../state/jotai';
import { tasksAtom } from '../tasks/atoms';
import { EMPTY_LIST } from '../tasks/model';
import { makeTask } from '../tasks/testTask';
import { PublishDialog } from './PublishDialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let sent: PublishPictureRequest[];
let closed: number;

const task = makeTask({
  id: 't1',
  status: 3,
  img_uris: ['/files/a.png', '/files/b.png'],
  outputs: [
    { url: '/files/a.png', mime: 'image/png', width: 512, height: 512, seed: 1 },
    { url: '/files/b.png', mime: 'image/png', width: 512, height: 512, seed: 2 },
  ],
});

function field(label: string): HTMLInputElement | HTMLTextAreaElement {
  const l = [...container.querySelectorAll('label')].find((x) => x.textContent === label);
  const el = l && document.getElementById(l.htmlFor);
  if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) throw new Error(`no field ${label}`);
  return el;
}

function type(el: HTMLInputElement | HTMLTextAreaElement, value: string) {
  const proto = el instanceof HTMLInputElement ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function button(text: string): HTMLButtonElement {
  const b = [...container.querySelectorAll('button')].find((x) => x.textContent === text);
  if (!b) throw new Error(`no button ${text}`);
  return b;
}

async function submit() {
  await act(async () => {
    button(en['works.publish.post']).form?.requestSubmit(button(en['works.publish.post']));
    for (let i = 0; i < 4; i++) await Promise.resolve();
  });
}

beforeEach(() => {
  sent = [];
  closed = 0;
  appStore.set(tasksAtom, { ...EMPTY_LIST, byId: { t1: task }, order: ['t1'], loaded: true });
  vi.spyOn(squareApi, 'publishPicture').mockImplementation(async (req) => {
    sent.push(req);
    return { id: 'w9' };
  });
  window.history.replaceState(null, '', '/en/create');
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => {
    root.render(
      <Provider store={appStore}>
        <PublishDialog task={task} onClose={() => (closed += 1)} />
      </Provider>,
    );
  });
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  appStore.set(tasksAtom, EMPTY_LIST);
});

describe('PublishDialog', () => {
  it('refuses what the server would refuse, field by field, and sends nothing', async () => {
    type(field(en['works.form.title']), 'x'.repeat(101));
    type(field(en['works.form.description']), 'd'.repeat(2001));
    type(field(en['works.form.tags']), Array.from({ length: 11 }, (_, i) => `t${i}`).join(','));
    await submit();
    const alerts = [...container.querySelectorAll('[role="alert"]')].map((a) => a.textContent);
    expect(alerts).toEqual([en.WorkTitleTooLong, en.WorkTextTooLong, en.WorkTooManyTags]);
    expect(sent).toEqual([]);

    // No picture chosen.
    type(field(en['works.form.title']), 'Fox');
    type(field(en['works.form.description']), '');
    type(field(en['works.form.tags']), 'fox, <b>');
    for (const box of container.querySelectorAll<HTMLInputElement>('.publish-images input')) act(() => box.click());
    await submit();
    expect([...container.querySelectorAll('[role="alert"]')].map((a) => a.textContent)).toEqual([en['square.publish.noImage'], en.WorkTagInvalid]);
    expect(sent).toEqual([]);
  });

  it('posts the chosen pictures and offers "Check it now", going to the new work', async () => {
    type(field(en['works.form.title']), '  A red fox ');
    type(field(en['works.form.tags']), '#Fox, fox, forest');
    act(() => container.querySelectorAll<HTMLInputElement>('.publish-images input')[0]?.click());
    const visibility = container.querySelector('select');
    act(() => {
      if (visibility) visibility.value = 'followers';
      visibility?.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await submit();
    expect(sent).toEqual([
      { task_ids: ['t1'], title: 'A red fox', description: '', tags: ['Fox', 'forest'], visibility: 'followers', nsfw: false, hide_params: false, images: ['/files/b.png'] },
    ]);
    expect(appStore.get(tasksAtom).byId.t1?.pub_artwork_no).toBe('w9');
    expect(container.querySelector('[data-testid="publish-done"]')?.textContent).toBe(en['works.publish.doneText']);
    act(() => button(en['works.publish.checkNow']).click());
    expect(window.location.pathname).toBe('/en/artWorkDetail/w9');
    expect(closed).toBe(1);
  });
});
