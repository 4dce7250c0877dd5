// The one WebSocket to `/ws`: plain code (no React) that owns connecting,
// authenticating, the heartbeat, reconnecting and resuming, and writes what
// it knows to the socket atoms through the store.
//
// Protocol (DESIGN.md "Contracts", protocol/src/frame.rs):
//   open -> send {type: 7, token}; the server's first {type: 4} confirms auth
//   with {account_id, stream, seq}; from then on the client sends {type: 4}
//   every 15 s. After a reconnect the client sends {type: 15, content:
//   {last_seq, stream}} naming the stream it saw before, and the server
//   answers {type: 15, content: {resumed, replayed, seq, stream}}.
//   Close 4401 (bad token) or 4403 (account disabled) ends the session; any other close reconnects in 5 s.
import type { AppStore } from '../state/jotai';
import { lastSeqAtom, recentFramesAtom, socketStateAtom } from './atoms';
import type { FrameLogEntry, SocketState } from './atoms';
import { encodeClientFrame, FrameType, isPushFrame, parseServerFrame } from './frames';
import type { ClientFrame, PushFrame, ResumeResult, ServerFrame } from './frames';

/** The client's heartbeat period; the server closes a socket silent for 45 s. */
export const HEARTBEAT_MS = 15_000;
/** Delay before reopening a socket that closed without being asked to. */
export const RECONNECT_MS = 5_000;
/** Length of the recent-frames log. */
export const RECENT_FRAMES = 20;

/** Close codes the server uses (DESIGN.md "Actors"). */
export const CloseCode = {
  Normal: 1000,
  FrameTooLarge: 1009,
  BadToken: 4401,
  /** The account was disabled while connected: also the end of the session. */
  Banned: 4403,
  AuthTimeout: 4408,
  TooManyFrames: 4429,
} as const;

/** The part of the browser's WebSocket this module uses (a fake one in tests). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: Event) => unknown) | null;
  onmessage: ((ev: MessageEvent) => unknown) | null;
  onclose: ((ev: CloseEvent) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
}

export type WebSocketFactory = (url: string) => WebSocketLike;

/** WebSocket.OPEN, without relying on a global WebSocket in tests. */
const OPEN = 1;

export interface SocketClientOptions {
  store: AppStore;
  /** The socket URL, computed when each socket opens. */
  url: () => string;
  createSocket?: WebSocketFactory;
  /** The server refused the token (close 4401): the session is over. */
  onBadToken?: () => void;
  /** A resume could not replay everything: state must be reloaded over REST. */
  onResyncNeeded?: (result: ResumeResult) => void;
  /** Every decoded pushed frame, after the sequence bookkeeping. */
  onPush?: (frame: PushFrame) => void;
}

/** `ws:` or `wss:` to the page's own origin, path `/ws`. */
export function socketUrl(loc: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

export class SocketClient {
  private readonly store: AppStore;
  private readonly options: SocketClientOptions;
  private readonly createSocket: WebSocketFactory;

  /** The current socket; handlers of older sockets compare against it and bail out. */
  private ws: WebSocketLike | null = null;
  /** The token to authenticate with; null means no socket is wanted. */
  private token: string | null = null;
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  /** The push stream seen before the current socket, named by a resume. */
  private stream: string | null = null;
  /** Highest `seq` seen on `stream`; mirrored in lastSeqAtom. */
  private lastSeq: number | null = null;
  /** Numbers the recent-frames log entries. */
  private logId = 0;

  constructor(options: SocketClientOptions) {
    this.options = options;
    this.store = options.store;
    this.createSocket =
      options.createSocket ?? ((url: string) => new WebSocket(url) as unknown as WebSocketLike);
  }

  get state(): SocketState {
    return this.store.get(socketStateAtom);
  }

  /**
   * Opens the socket for `token` (or keeps the one already open for it). A
   * different token closes the old socket first and starts a fresh stream.
   */
  connect(token: string): void {
    if (this.token === token && this.ws !== null) return;
    if (this.token !== null && this.token !== token) this.resetStream();
    this.token = token;
    this.clearReconnect();
    this.dropSocket();
    this.open();
  }

  /** Closes the socket for good (logout): no reconnect, stream forgotten. */
  disconnect(): void {
    this.token = null;
    this.clearReconnect();
    this.dropSocket();
    this.resetStream();
    this.setState('offline');
  }

  private open(): void {
    if (this.token === null) return;
    this.setState('connecting');
    let ws: WebSocketLike;
    try {
      ws = this.createSocket(this.options.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws || this.token === null) return;
      this.send({ type: FrameType.Auth, token: this.token, content: null });
      this.setState('authenticating');
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (ws !== this.ws || typeof ev.data !== 'string') return;
      const frame = parseServerFrame(ev.data);
      if (frame) this.handleFrame(frame);
    };
    ws.onclose = (ev: CloseEvent) => {
      if (ws !== this.ws) return;
      this.handleClose(ev.code);
    };
    // An error is always followed by a close event, which does the work.
    ws.onerror = null;
  }

  private handleFrame(frame: ServerFrame): void {
    switch (frame.type) {
      case FrameType.Heartbeat:
        if (this.state === 'authenticating' && frame.content) this.handleAuthConfirm(frame.content.stream, frame.content.seq);
        return;
      case FrameType.Resume:
        this.stream = frame.content.stream;
        this.setLastSeq(frame.content.seq);
        if (!frame.content.resumed) this.options.onResyncNeeded?.(frame.content);
        return;
      case FrameType.Error:
        this.log({
          type: frame.type,
          seq: null,
          at: Date.now(),
          summary: frame.content.key ?? String(frame.content.code),
        });
        return;
      default:
        if (isPushFrame(frame)) this.handlePush(frame);
    }
  }

  private handleAuthConfirm(stream: string, seq: number): void {
    this.setState('online');
    this.startHeartbeat();
    if (this.stream !== null && this.lastSeq !== null) {
      // A reconnect: ask for what was pushed on the old stream while away.
      // The answer (frame 15) names the stream to follow from now on.
      this.send({ type: FrameType.Resume, content: { last_seq: this.lastSeq, stream: this.stream } });
    } else {
      this.stream = stream;
      this.setLastSeq(seq);
    }
  }

  private handlePush(frame: PushFrame): void {
    if (frame.seq !== undefined && (this.lastSeq === null || frame.seq > this.lastSeq)) {
      this.setLastSeq(frame.seq);
    }
    this.log({ type: frame.type, seq: frame.seq ?? null, at: Date.now(), summary: summarize(frame) });
    this.options.onPush?.(frame);
  }

  private handleClose(code: number): void {
    this.ws = null;
    this.stopHeartbeat();
    if (code === CloseCode.BadToken || code === CloseCode.Banned) {
      this.token = null;
      this.resetStream();
      this.setState('offline');
      this.options.onBadToken?.();
      return;
    }
    if (this.token === null) {
      this.setState('offline');
      return;
    }
    // 4408 (auth too slow), 4429 (too many frames), 1009 (frame too large),
    // a server restart or a network drop: try again later, resuming the stream.
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.ws = null;
    this.setState('reconnecting');
    this.clearReconnect();
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.open();
    }, RECONNECT_MS);
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeatTimer = setInterval(() => {
      this.send({ type: FrameType.Heartbeat, content: null });
    }, HEARTBEAT_MS);
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private clearReconnect(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  /** Detaches and closes the current socket without triggering a reconnect. */
  private dropSocket(): void {
    this.stopHeartbeat();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      try {
        ws.close(CloseCode.Normal);
      } catch {
        // Closing a socket that never opened may throw in some browsers.
      }
    }
  }

  private send(frame: ClientFrame): void {
    if (this.ws && this.ws.readyState === OPEN) this.ws.send(encodeClientFrame(frame));
  }

  private resetStream(): void {
    this.stream = null;
    this.setLastSeq(null);
    this.store.set(recentFramesAtom, []);
  }

  private setLastSeq(seq: number | null): void {
    this.lastSeq = seq;
    this.store.set(lastSeqAtom, seq);
  }

  private setState(state: SocketState): void {
    this.store.set(socketStateAtom, state);
  }

  private log(entry: Omit<FrameLogEntry, 'id'>): void {
    const logged: FrameLogEntry = { id: ++this.logId, ...entry };
    this.store.set(recentFramesAtom, (prev) => [logged, ...prev].slice(0, RECENT_FRAMES));
  }
}

function summarize(frame: PushFrame): string {
  switch (frame.type) {
    case FrameType.TaskUpdate:
      return `task ${frame.content.id}`;
    case FrameType.ChatStream:
      return `chat ${frame.content.session_id}${frame.content.done ? ' (done)' : ''}`;
    case FrameType.ImMessage:
      return `channel ${frame.content.channel_id}`;
    case FrameType.Notification:
      return 'notification';
  }
}
