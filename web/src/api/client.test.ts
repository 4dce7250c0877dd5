import { describe, expect, it, vi } from 'vitest';
import { ApiClient, ApiError, NETWORK_ERROR_CODE } from './client';

function envelope(code: number, data: unknown, key: string | null = null, msg = code === 10000 ? 'success' : 'failed') {
  return { status: { code, msg, key }, data };
}

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function clientWith(fetchImpl: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>, token: string | null = null) {
  const fetchMock = vi.fn(fetchImpl);
  const client = new ApiClient({ fetch: fetchMock as unknown as typeof fetch, getToken: () => token });
  return { client, fetchMock };
}

const account = { id: 'a1', name: 'Ada', email: 'ada@example.com', create_at: 1700000000, status: 1, device_code: 'd1' };

describe('ApiClient', () => {
  it('POSTs JSON and returns data on code 10000', async () => {
    const { client, fetchMock } = clientWith(async () => jsonResponse(envelope(10000, { account, token: 'tok' })));
    const data = await client.login({ email: 'ada@example.com', password: 'secret123' });
    expect(data).toEqual({ account, token: 'tok' });

    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/v1/account/login-in');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(init?.body as string)).toEqual({ type: 'email', email: 'ada@example.com', password: 'secret123' });
    const headers = init?.headers as Record<string, string>;
    expect(headers['Content-Type']).toBe('application/json');
    expect(headers.token).toBeUndefined();
  });

  it('sends the current token in the `token` header, or the one given for the call', async () => {
    const { client, fetchMock } = clientWith(
      async () => jsonResponse(envelope(10000, { id: 'a1', name: 'Ada', email: 'e', create_at: 1, status: 1, settings: { insight: false, task_flow_version: 2, task_flow_gt: false }, admin: false })),
      'current-token',
    );
    await client.info();
    expect((fetchMock.mock.calls[0]![1]?.headers as Record<string, string>).token).toBe('current-token');
    await client.completeProfile({ name: 'Ada' }, { token: 'temporary' });
    const [url, init] = fetchMock.mock.calls[1]!;
    expect(url).toBe('/api/v1/account/complete-profile');
    expect((init?.headers as Record<string, string>).token).toBe('temporary');
    expect(JSON.parse(init?.body as string)).toEqual({ name: 'Ada' });
  });

  it('logout sends no body', async () => {
    const { client, fetchMock } = clientWith(async () => jsonResponse(envelope(10000, null)), 'tok');
    await client.logout();
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/v1/account/logout');
    expect(init?.body).toBeNull();
    expect((init?.headers as Record<string, string>)['Content-Type']).toBeUndefined();
  });

  it('hits each endpoint with its body', async () => {
    const { client, fetchMock } = clientWith(async () => jsonResponse(envelope(10000, {})));
    await client.signUp({ email: 'e@x.io', password: 'p', name: 'N' });
    await client.paymentInfo();
    expect(fetchMock.mock.calls.map((c) => c[0])).toEqual(['/api/v1/account/sign-up', '/api/v1/account/payment-info']);
    expect(JSON.parse(fetchMock.mock.calls[0]![1]?.body as string)).toEqual({ email: 'e@x.io', password: 'p', name: 'N' });
  });

  it('throws an ApiError with code, key and msg on a non-10000 code', async () => {
    const { client } = clientWith(async () => jsonResponse(envelope(20005, null, 'PasswordError', 'wrong password'), 401));
    const err = await client.login({ email: 'a@b.co', password: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 20005, key: 'PasswordError', msg: 'wrong password', httpStatus: 401 });
  });

  it('treats an envelope with a non-10000 code as an error even with HTTP 200', async () => {
    const { client } = clientWith(async () => jsonResponse(envelope(20101, { account: null }, 'EmailRegistered')));
    await expect(client.signUp({ email: 'a@b.co', password: 'x', name: 'n' })).rejects.toMatchObject({
      code: 20101,
      key: 'EmailRegistered',
    });
  });

  it('normalises a missing key to null', async () => {
    const { client } = clientWith(async () => jsonResponse({ status: { code: 20001, msg: 'nope' }, data: null }, 404));
    await expect(client.login({ email: 'a@b.co', password: 'x' })).rejects.toMatchObject({ code: 20001, key: null, msg: 'nope' });
  });

  it('turns a non-envelope answer into a network ApiError', async () => {
    const { client } = clientWith(async () => new Response('<html>Bad gateway</html>', { status: 502 }));
    await expect(client.info()).rejects.toMatchObject({ code: NETWORK_ERROR_CODE, key: 'NetworkError', httpStatus: 502 });
  });

  it('turns a fetch failure into a network ApiError', async () => {
    const { client } = clientWith(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(client.info()).rejects.toMatchObject({ code: NETWORK_ERROR_CODE, key: 'NetworkError', httpStatus: 0 });
  });

  it('uses the global fetch by default, looked up at call time', async () => {
    const globalFetch = vi.fn(async () => jsonResponse(envelope(10000, { ok: 1 })));
    vi.stubGlobal('fetch', globalFetch);
    const client = new ApiClient({ baseUrl: 'http://h', getToken: () => null });
    await expect(client.post('/api/v1/x', { a: 1 })).resolves.toEqual({ ok: 1 });
    expect(globalFetch).toHaveBeenCalledWith('http://h/api/v1/x', expect.objectContaining({ method: 'POST' }));
  });
});
