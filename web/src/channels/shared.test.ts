import { describe, expect, it } from 'vitest';
import { makeTask } from '../tasks/testTask';
import { TaskStatus } from '../tasks/types';
import { EMPTY_LOG, parseMessage } from './model';
import type { ChannelLog, ChannelMessage } from './model';
import {
  channelGenerateBody,
  channelTaskCards,
  defaultSdCheckpoint,
  membersNoticeChannel,
  RESULT_WAIT_MS,
} from './shared';

const NOW = 1_700_000_000_000;

function logWith(...items: ChannelMessage[]): ChannelLog {
  return { ...EMPTY_LOG, loaded: true, items };
}

function taskMessage(seq: number, taskId: string): ChannelMessage {
  const m = parseMessage({
    channel_id: 'c1',
    seq,
    sender: 'a',
    kind: 'task',
    content: { task_id: taskId, img_uris: ['/files/x.png'], prompt: 'kite' },
  });
  if (m === null) throw new Error('parse');
  return m;
}

describe('defaultSdCheckpoint', () => {
  it('picks the default checkpoint of the normal mode', () => {
    expect(
      defaultSdCheckpoint([
        { model_ver_no: 'xl', category: 5, is_default: true },
        { model_ver_no: 'sd-a', category: 1, is_default: false },
        { model_ver_no: 'sd-b', category: 1, is_default: true },
      ]),
    ).toBe('sd-b');
  });

  it('falls back to the first sd checkpoint, and to null without one', () => {
    expect(defaultSdCheckpoint([{ model_ver_no: 'sd-a', category: 1, is_default: false }])).toBe('sd-a');
    expect(defaultSdCheckpoint([{ model_ver_no: 'xl', category: 5, is_default: true }])).toBeNull();
  });
});

describe('channelGenerateBody', () => {
  it('is a one-image text-to-image request in the channel', () => {
    expect(channelGenerateBody('sd-b', 'c1', '  a red kite ')).toEqual({
      category: 1,
      art_model_ver_no: 'sd-b',
      channel_id: 'c1',
      meta: { prompt: 'a red kite', n_iter: 1 },
    });
  });
});

describe('channelTaskCards', () => {
  const running = makeTask({ id: 'r', channel_id: 'c1', status: TaskStatus.Running, process: 40, create_at: NOW - 2 });
  const queued = makeTask({ id: 'q', channel_id: 'c1', status: TaskStatus.Queued, create_at: NOW - 1 });
  const other = makeTask({ id: 'o', channel_id: 'c2', status: TaskStatus.Running, create_at: NOW });
  const mine = makeTask({ id: 'm', channel_id: null, status: TaskStatus.Running, create_at: NOW });
  const failed = makeTask({ id: 'f', channel_id: 'c1', status: TaskStatus.Ended, create_at: NOW });

  it("shows this channel's live tasks, oldest first", () => {
    const cards = channelTaskCards([queued, other, mine, failed, running], 'c1', EMPTY_LOG, NOW);
    expect(cards.map((t) => t.id)).toEqual(['r', 'q']);
  });

  it('keeps a finished task until its result message arrives', () => {
    const done = makeTask({ id: 'd', channel_id: 'c1', status: TaskStatus.Success, create_at: NOW - 1000 });
    expect(channelTaskCards([done], 'c1', logWith(), NOW).map((t) => t.id)).toEqual(['d']);
    expect(channelTaskCards([done], 'c1', logWith(taskMessage(1, 'd')), NOW)).toEqual([]);
  });

  it('stops waiting for a result after a while', () => {
    const old = makeTask({ id: 'd', channel_id: 'c1', status: TaskStatus.Success, create_at: NOW - RESULT_WAIT_MS });
    expect(channelTaskCards([old], 'c1', logWith(), NOW)).toEqual([]);
  });
});

describe('membersNoticeChannel', () => {
  it('reads the channel of a channel.members notice', () => {
    expect(membersNoticeChannel({ kind: 'channel.members', channel_id: 'c1' })).toBe('c1');
  });

  it('ignores other notices and bad content', () => {
    expect(membersNoticeChannel({ kind: 'credits', balance: 1 })).toBeNull();
    expect(membersNoticeChannel({ kind: 'channel.members' })).toBeNull();
    expect(membersNoticeChannel(null)).toBeNull();
  });
});

describe('parseMessage', () => {
  it('keeps the task id of a task message', () => {
    expect(taskMessage(3, 't9').task_id).toBe('t9');
  });
});
