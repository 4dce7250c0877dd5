// The one typed client for Easel's REST API: POSTs JSON, unwraps the
// `{status, data}` envelope, and turns every failure (a non-10000 code, an
// HTTP error without an envelope, a network failure) into an ApiError.
//
// Calls authenticate with the `token` request header only. The cookie `T`
// exists so the page can restore its token after a reload; it never
// authenticates a call, so no request can be forged cross-site.
import type {
  AccountInfo,
  CompleteProfileRequest,
  Envelope,
  LoginData,
  LoginRequest,
  PaymentInfo,
  SignUpRequest,
  Status,
} from './types';

/** `status.code` of a successful response. */
export const SUCCESS_CODE = 10000;
/** Code of an ApiError raised by the client itself: no usable answer arrived. */
export const NETWORK_ERROR_CODE = 0;
/** Key of such an error (translated like the server's keys). */
export const NETWORK_ERROR_KEY = 'NetworkError';
/** The request header that carries the token. */
export const TOKEN_HEADER = 'token';

/** A failed call, with the envelope's code, key and message. */
export class ApiError extends Error {
  readonly code: number;
  readonly key: string | null;
  readonly msg: string;
  /** HTTP status of the response; 0 when none arrived. */
  readonly httpStatus: number;

  constructor(status: Status, httpStatus: number) {
    super(`${status.code} ${status.key ?? ''} ${status.msg}`.trim());
    this.name = 'ApiError';
    this.code = status.code;
    this.key = status.key;
    this.msg = status.msg;
    this.httpStatus = httpStatus;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

export interface ApiClientOptions {
  /** Prefix of every path; '' for the page's own origin. */
  baseUrl?: string;
  /** The fetch to use (tests pass a mock). Defaults to the global one. */
  fetch?: typeof fetch;
  /** The current token, read at each call. */
  getToken: () => string | null;
}

export interface CallOptions {
  /** Authenticate with this token instead of the current one (the final-step's temporary token). */
  token?: string;
  signal?: AbortSignal;
}

function isStatus(v: unknown): v is Status {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return typeof s.code === 'number' && (typeof s.msg === 'string' || s.msg === undefined);
}

export class ApiClient {
  private readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly getToken: () => string | null;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl ?? '';
    // Bound so that `window.fetch` is not called with another `this`.
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.getToken = options.getToken;
  }

  /** POSTs `body` as JSON to `path` and returns the envelope's `data`. */
  async post<T>(path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    return this.send<T>('POST', path, body, options);
  }

  private async send<T>(method: 'GET' | 'POST', path: string, body: unknown, options: CallOptions): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const token = options.token ?? this.getToken();
    if (token) headers[TOKEN_HEADER] = token;

    let response: Response;
    try {
      response = await this.fetchFn(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        credentials: 'same-origin',
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (e) {
      if (e instanceof DOMException && e.name === 'AbortError') throw e;
      throw new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: 'network error' }, 0);
    }

    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      payload = undefined;
    }
    const status = typeof payload === 'object' && payload !== null ? (payload as { status?: unknown }).status : undefined;
    if (!isStatus(status)) {
      throw new ApiError(
        {
          code: NETWORK_ERROR_CODE,
          key: NETWORK_ERROR_KEY,
          msg: `unexpected answer (HTTP ${response.status})`,
        },
        response.status,
      );
    }
    if (status.code !== SUCCESS_CODE) {
      throw new ApiError(
        { code: status.code, key: typeof status.key === 'string' ? status.key : null, msg: status.msg ?? '' },
        response.status,
      );
    }
    return (payload as Envelope<T>).data;
  }

  /** GETs `path` (the few read-only calls the server serves on GET) and returns the envelope's `data`. */
  async get<T>(path: string, options: CallOptions = {}): Promise<T> {
    return this.send<T>('GET', path, undefined, options);
  }

  signUp(req: SignUpRequest, options?: CallOptions): Promise<LoginData> {
    return this.post<LoginData>('/api/v1/account/sign-up', req, options);
  }

  login(req: Omit<LoginRequest, 'type'>, options?: CallOptions): Promise<LoginData> {
    const body: LoginRequest = { type: 'email', email: req.email, password: req.password };
    return this.post<LoginData>('/api/v1/account/login-in', body, options);
  }

  async logout(options?: CallOptions): Promise<void> {
    await this.post<unknown>('/api/v1/account/logout', undefined, options);
  }

  info(options?: CallOptions): Promise<AccountInfo> {
    return this.post<AccountInfo>('/api/v1/account/info', undefined, options);
  }

  paymentInfo(options?: CallOptions): Promise<PaymentInfo> {
    return this.post<PaymentInfo>('/api/v1/account/payment-info', undefined, options);
  }

  completeProfile(req: CompleteProfileRequest, options?: CallOptions): Promise<LoginData> {
    return this.post<LoginData>('/api/v1/account/complete-profile', req, options);
  }
}
