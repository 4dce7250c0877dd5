// Atoms owned by the socket feature. Only src/socket/socket.ts writes them
// (through the store); components read them.
import { atom } from '../state/jotai';

/**
 * - offline: no socket and none wanted (logged out, or the token was refused);
 * - connecting: a socket is opening;
 * - authenticating: open, the auth frame sent, waiting for the server's first heartbeat;
 * - online: authenticated; pushed frames flow;
 * - reconnecting: the socket closed unexpectedly; a new one opens after a delay.
 */
export type SocketState = 'offline' | 'connecting' | 'authenticating' | 'online' | 'reconnecting';

/** One entry of the recent-frames log shown to the user. */
export interface FrameLogEntry {
  /** Unique within the page, for list keys. */
  id: number;
  type: number;
  /** Pushed frames carry a sequence number; errors do not. */
  seq: number | null;
  /** Milliseconds since the epoch, when the frame arrived. */
  at: number;
  /** A one-line description (task id, channel, error key...). */
  summary: string;
}

export const socketStateAtom = atom<SocketState>('offline');

/** Highest sequence number seen on the current push stream (null before auth). */
export const lastSeqAtom = atom<number | null>(null);

/** The most recent pushed frames (and socket errors), newest first, at most 20. */
export const recentFramesAtom = atom<readonly FrameLogEntry[]>([]);
