// The page as a user meets it: the real App, store, API client, session and
// socket client, with fetch answered by a scripted server and WebSocket faked.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loginDialogAtom } from '../account/atoms';
import { readTokenCookie } from '../account/tokenCookie';
import { en } from '../i18n/en';
import { startRouter } from '../router/router';
import { appStore, Provider } from '../state/jotai';
import { FakeWebSocket } from '../test/fakeWebSocket';
import { App } from './App';
import { session } from './services';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Handler = (body: unknown, headers: Record<string, string>) => { code?: number; key?: string; msg?: string; data?: unknown; http?: number };

let routes: Record<string, Handler>;
let calls: Array<{ path: string; body: unknown; headers: Record<string, string> }>;
let container: HTMLDivElement;
let root: Root;
let stopRouter: () => void;

const account = (status: number, name = 'Ada') => ({
  id: 'a1', name, email: 'ada@example.com', create_at: 1, status, device_code: 'd1',
});
const info = { id: 'a1', name: 'Ada', email: 'ada@example.com', create_at: 1, status: 1, settings: { insight: false, task_flow_version: 2, task_flow_gt: false }, admin: false };

function respond(path: string, init: RequestInit | undefined): Response {
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null;
  const headers = (init?.headers ?? {}) as Record<string, string>;
  calls.push({ path, body, headers });
  const handler = routes[path];
  const r = handler ? handler(body, headers) : { code: 40400, key: 'NotFound', http: 404 };
  const code = r.code ?? 10000;
  return new Response(
    JSON.stringify({ status: { code, msg: r.msg ?? (code === 10000 ? 'success' : 'failed'), key: r.key ?? null }, data: r.data ?? null }),
    { status: r.http ?? 200, headers: { 'Content-Type': 'application/json' } },
  );
}

/** A fetch whose answers the test can hold back, to see the pending state. */
let gate: Promise<void> | null = null;

async function flush() {
  await act(async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  });
}

function $(selector: string): HTMLElement | null {
  return container.querySelector<HTMLElement>(selector);
}

function byLabel(label: string): HTMLInputElement {
  const el = [...container.querySelectorAll('label')].find((l) => l.textContent === label);
  const input = el && document.getElementById(el.htmlFor);
  if (!(input instanceof HTMLInputElement)) throw new Error(`no input labelled ${label}`);
  return input;
}

function button(text: string): HTMLButtonElement {
  const b = [...container.querySelectorAll('button')].find((x) => x.textContent === text);
  if (!(b instanceof HTMLButtonElement)) throw new Error(`no button ${text}`);
  return b;
}

function type(input: HTMLInputElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  act(() => {
    setter?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function click(el: HTMLElement) {
  act(() => {
    el.dispatchEvent(new MouseEvent('click', { bubbles: true, button: 0 }));
  });
}

/** Submits the dialog's form with its submit button, checking the button's label. */
function submit(text: string) {
  const b = container.querySelector<HTMLButtonElement>('[role="dialog"] button[type="submit"]');
  if (!b || b.textContent !== text) throw new Error(`no submit button ${text} (found ${b?.textContent})`);
  act(() => {
    b.form?.requestSubmit(b);
  });
}

function socketState(): string | null | undefined {
  return $('[data-testid="socket-state"]')?.textContent;
}

beforeEach(() => {
  routes = {};
  calls = [];
  gate = null;
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    if (gate) await gate;
    return respond(String(input), init);
  });
  window.history.replaceState(null, '', '/');
  sessionStorage.clear();
  stopRouter = startRouter(appStore);
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => {
    root.render(
      <Provider store={appStore}>
        <App />
      </Provider>,
    );
  });
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  session.endLocally();
  appStore.set(loginDialogAtom, { open: false });
  stopRouter();
});

describe('home page and login popup', () => {
  it('redirects / to /en/ and shows the header offline with a Log in button', () => {
    expect(window.location.pathname).toBe('/en/');
    expect($('.brand')?.textContent).toContain('Easel');
    expect(socketState()).toBe('offline');
    expect(button('Log in')).toBeTruthy();
    expect($('[role="dialog"]')).toBeNull();
  });

  it('shows the translated PasswordError and disables submit while pending', async () => {
    routes['/api/v1/account/login-in'] = () => ({ code: 20005, key: 'PasswordError', msg: 'wrong password', http: 401 });
    click(button('Log in'));
    const dialog = $('[role="dialog"]');
    expect(dialog?.getAttribute('aria-modal')).toBe('true');
    const title = document.getElementById(dialog?.getAttribute('aria-labelledby') ?? '');
    expect(title?.textContent).toBe(en['login.titleLogin']);

    type(byLabel('E-mail'), 'ada@example.com');
    type(byLabel('Password'), 'not-the-password');
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    submit('Log in');
    await flush();
    const pendingButton = container.querySelector<HTMLButtonElement>('[role="dialog"] button[type="submit"]');
    expect(pendingButton?.disabled).toBe(true);
    expect(pendingButton?.textContent).toBe(en['login.pending']);

    open();
    await flush();
    expect($('[data-testid="login-error"]')?.textContent).toBe(en.PasswordError);
    expect(container.querySelector<HTMLButtonElement>('[role="dialog"] button[type="submit"]')?.disabled).toBe(false);
    expect(calls.at(-1)?.body).toEqual({ type: 'email', email: 'ada@example.com', password: 'not-the-password' });
    expect(socketState()).toBe('offline');
  });

  it('signs up (status 1): closes, shows the name, connects the socket and redirects', async () => {
    sessionStorage.setItem('redirectPath', '/en/somewhere');
    routes['/api/v1/account/sign-up'] = () => ({ data: { account: account(1), token: 'tok-1' } });
    routes['/api/v1/account/info'] = () => ({ data: info });
    click(button('Log in'));
    click(button(en['login.tabSignup']));
    type(byLabel('Display name'), 'Ada');
    type(byLabel('E-mail'), 'ada@example.com');
    type(byLabel('Password'), 'correct horse');
    submit(en['login.submitSignup']);
    await flush();

    // The home square reads its feed first; the sign-up is the call that matters here.
    expect(calls.find((c) => c.path === '/api/v1/account/sign-up')?.body).toEqual({ name: 'Ada', email: 'ada@example.com', password: 'correct horse' });
    expect($('[role="dialog"]')).toBeNull();
    expect($('[data-testid="account-name"]')?.textContent).toBe('Ada');
    expect(readTokenCookie()).toBe('tok-1');
    expect(window.location.pathname).toBe('/en/somewhere');
    expect(calls.find((c) => c.path === '/api/v1/account/info')?.headers.token).toBe('tok-1');

    expect(socketState()).toBe('connecting');
    const ws = FakeWebSocket.latest();
    expect(ws.url).toBe(`ws://${window.location.host}/ws`);
    act(() => ws.serverOpen());
    expect(socketState()).toBe('authenticating');
    act(() => ws.serverSend({ type: 4, content: { account_id: 'a1', stream: 's1', seq: 0 } }));
    expect(socketState()).toBe('online');

    expect($('h1')?.textContent).toBe(en['notFound.title']);
    const home = container.querySelector<HTMLAnchorElement>('main a');
    if (!home) throw new Error('no home link');
    click(home);
    expect(window.location.pathname).toBe('/en/');

    act(() => ws.serverSend({ type: 10, seq: 1, content: { id: 'task-9', status: 2 } }));
    expect($('[data-testid="recent-frames"]')?.textContent).toContain('task task-9');

    click(button('Log out'));
    await flush();
    expect(socketState()).toBe('offline');
    expect(readTokenCookie()).toBeNull();
    // The square reads its feed again as a visitor after the logout.
    expect(calls.filter((c) => c.path === '/api/v1/account/logout')).toMatchObject([{ headers: { token: 'tok-1' } }]);
    expect(button('Log in')).toBeTruthy();
  });

  it('refuses a disabled account (status 2)', async () => {
    routes['/api/v1/account/login-in'] = () => ({ data: { account: account(2), token: '' } });
    click(button('Log in'));
    type(byLabel('E-mail'), 'ada@example.com');
    type(byLabel('Password'), 'whatever1');
    submit('Log in');
    await flush();
    expect($('[data-testid="login-error"]')?.textContent).toBe(en.AccountDisabled);
    expect(readTokenCookie()).toBeNull();
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it('moves a status-3 account to the final step and completes the profile', async () => {
    routes['/api/v1/account/login-in'] = () => ({ data: { account: account(3, ''), token: 'temp' } });
    routes['/api/v1/account/complete-profile'] = () => ({ data: { account: account(1, 'Grace'), token: 'full' } });
    click(button('Log in'));
    type(byLabel('E-mail'), 'grace@example.com');
    type(byLabel('Password'), 'whatever1');
    submit('Log in');
    await flush();
    expect($('[role="dialog"] h2')?.textContent).toBe(en['login.titleFinal']);
    expect(readTokenCookie()).toBeNull();

    routes['/api/v1/account/complete-profile'] = () => ({ code: 20103, key: 'NameInvalid', http: 400 });
    submit(en['login.submitFinal']);
    await flush();
    expect($('[data-testid="login-error"]')?.textContent).toBe(en.NameInvalid);

    routes['/api/v1/account/complete-profile'] = () => ({ data: { account: account(1, 'Grace'), token: 'full' } });
    type(byLabel('Display name'), 'Grace');
    submit(en['login.submitFinal']);
    await flush();
    const call = calls.filter((c) => c.path === '/api/v1/account/complete-profile').at(-1);
    expect(call).toMatchObject({ body: { name: 'Grace' }, headers: { token: 'temp' } });
    expect($('[role="dialog"]')).toBeNull();
    expect($('[data-testid="account-name"]')?.textContent).toBe('Grace');
    expect(readTokenCookie()).toBe('full');
  });

  it('closes on Escape', () => {
    click(button('Log in'));
    const dialog = $('[role="dialog"]');
    act(() => {
      dialog?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect($('[role="dialog"]')).toBeNull();
  });
});
