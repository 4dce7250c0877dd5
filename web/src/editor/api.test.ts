// The editor's calls through the real ApiClient over a mocked fetch: paths, bodies, the token,
// the mapping of answers (tolerant of missing fields) and the envelope's errors.
import { describe, expect, it, vi } from 'vitest';
import { ApiClient, ApiError } from '../api/client';
import { errorMessage, messagesFor, renderErrorMessage } from '../i18n/messages';
import { asExportCheck, asMaterial, asWorkspace, EDITOR_BASE, EditorApi } from './api';

type Answer = { code?: number; key?: string | null; msg?: string; data?: unknown };

function mocked(answers: Answer[]) {
  const calls: Array<{ path: string; body: unknown; token: string | undefined }> = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = (init?.headers ?? {}) as Record<string, string>;
    calls.push({ path: String(input), body: init?.body ? JSON.parse(String(init.body)) : undefined, token: headers.token });
    const a = answers.shift() ?? {};
    const status = { code: a.code ?? 10000, key: a.key ?? null, msg: a.msg ?? 'success' };
    return new Response(JSON.stringify({ status, data: a.data ?? null }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  const api = new EditorApi(new ApiClient({ fetch: fetchMock as unknown as typeof fetch, getToken: () => 'tok' }));
  return { api, calls };
}

const wireWorkspace = {
  workspace_id: 'w1',
  name: 'Trip',
  width: 1280,
  height: 720,
  fps: 24,
  timeline: { clips: [{ material_id: 'm1', start: 0.5, end: 2 }], music: { material_id: 'a1', start: 1, volume: 0.8 } },
  duration: 1.5,
  operations: [{ op: 'addClip' }],
  last_export: { task_id: 't9' },
  created_at: 1,
  updated_at: 2,
};

const wireMaterial = {
  material_id: 'm1',
  kind: 'video',
  name: 'clip.mp4',
  url: '/files/m1.mp4',
  poster_url: '/files/m1.jpg',
  duration: 4.5,
  width: 640,
  height: 360,
  has_audio: true,
  source: 'task',
  created_at: 3,
};

describe('EditorApi', () => {
  it('creates, edits, lists, reads and deletes workspaces on their paths with the token', async () => {
    const { api, calls } = mocked([
      { data: wireWorkspace },
      { data: wireWorkspace },
      { data: { items: [wireWorkspace], next_cursor: 'c2' } },
      { data: wireWorkspace },
      { data: {} },
      { data: { count: 7 } },
    ]);
    expect(await api.createWorkspace({ name: 'Trip' })).toEqual(wireWorkspace);
    const timeline = { clips: [{ material_id: 'm1', start: 0, end: 1 }], music: null };
    await api.editWorkspace('w1', { name: 'Trip 2', timeline });
    const list = await api.listWorkspaces(10, 'c1');
    expect(list).toEqual({ items: [wireWorkspace], next_cursor: 'c2' });
    await api.detail('w1');
    await api.deleteWorkspace('w1');
    expect(await api.saveOperations('w1', [{ op: 'rename', name: 'x' }])).toBe(7);
    expect(calls.map((c) => c.path)).toEqual([
      `${EDITOR_BASE}/workspace/create`,
      `${EDITOR_BASE}/workspace/edit`,
      `${EDITOR_BASE}/workspace/list`,
      `${EDITOR_BASE}/detail`,
      `${EDITOR_BASE}/workspace/del`,
      `${EDITOR_BASE}/operation/save`,
    ]);
    expect(calls.map((c) => c.body)).toEqual([
      { name: 'Trip' },
      { workspace_id: 'w1', name: 'Trip 2', timeline },
      { page_size: 10, cursor: 'c1' },
      { workspace_id: 'w1' },
      { workspace_id: 'w1' },
      { workspace_id: 'w1', operations: [{ op: 'rename', name: 'x' }] },
    ]);
    expect(calls.every((c) => c.token === 'tok')).toBe(true);
  });

  it('lists, adds and deletes materials, and exports', async () => {
    const { api, calls } = mocked([
      { data: { items: [wireMaterial], next_cursor: '' } },
      { data: wireMaterial },
      { data: wireMaterial },
      { data: {} },
      { data: { task_id: 't1' } },
      { data: { task_id: 't1', status: 'running', progress: 42.5, video_url: null, poster_url: null, error: null } },
    ]);
    expect(await api.listMaterials(20, null, 'audio')).toEqual({ items: [wireMaterial], next_cursor: null });
    expect(await api.addMaterial({ file_id: 'f1' })).toEqual(wireMaterial);
    await api.addMaterial({ task_id: 't0', index: 1 });
    await api.deleteMaterial('m1');
    expect(await api.exportWorkspace('w1')).toBe('t1');
    expect(await api.checkExport('t1')).toEqual({ task_id: 't1', status: 'running', progress: 42.5, video_url: null, poster_url: null, error: null });
    expect(calls.map((c) => [c.path.slice(EDITOR_BASE.length), c.body])).toEqual([
      ['/material/list', { page_size: 20, kind: 'audio' }],
      ['/material/upload', { file_id: 'f1' }],
      ['/material/upload', { task_id: 't0', index: 1 }],
      ['/material/delete', { material_id: 'm1' }],
      ['/export', { workspace_id: 'w1' }],
      ['/export/check', { task_id: 't1' }],
    ]);
  });

  it("raises the envelope's error, which translates", async () => {
    const { api } = mocked([{ code: 40000, key: 'uploadVideoError', msg: 'not a video' }, { code: 40000, key: 'pleaseSelectVideo', msg: '' }, { code: 40400, key: null, msg: 'workspace not found' }]);
    const e1 = await api.addMaterial({ file_id: 'f1' }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ApiError);
    expect(renderErrorMessage(messagesFor('en'), errorMessage(e1))).toBe('This file is not a video we can read. Please upload another.');
    const e2 = await api.exportWorkspace('w1').catch((e: unknown) => e);
    expect(renderErrorMessage(messagesFor('zhCN'), errorMessage(e2))).toBe('请先在时间线上添加视频片段。');
    const e3 = await api.detail('nope').catch((e: unknown) => e);
    expect(errorMessage(e3)).toEqual({ text: 'workspace not found' });
  });
});

describe('answer mapping', () => {
  it('fills what an answer lacks', () => {
    expect(asWorkspace({ workspace_id: 'w' })).toEqual({
      workspace_id: 'w',
      name: '',
      width: 1280,
      height: 720,
      fps: 24,
      timeline: { clips: [], music: null },
      duration: 0,
      operations: [],
      last_export: null,
      created_at: 0,
      updated_at: 0,
    });
    expect(asWorkspace({ timeline: { clips: [{ material_id: 'm', start: '1', end: 2 }], music: { start: 1 } } }).timeline).toEqual({
      clips: [{ material_id: 'm', start: 0, end: 2 }],
      music: null,
    });
    expect(asMaterial({ material_id: 'a', kind: 'audio', poster_url: '' })).toMatchObject({ kind: 'audio', poster_url: null, has_audio: false, source: 'upload' });
  });

  it('reads an export check, clamping the progress and defaulting an unknown status to queued', () => {
    expect(asExportCheck({ task_id: 't', status: 'succeeded', progress: 130, video_url: '/v.mp4', poster_url: '/p.jpg' })).toEqual({
      task_id: 't',
      status: 'succeeded',
      progress: 100,
      video_url: '/v.mp4',
      poster_url: '/p.jpg',
      error: null,
    });
    expect(asExportCheck({ status: 'weird', progress: -5 })).toMatchObject({ status: 'queued', progress: 0 });
  });
});
