// The editor's actions over a mocked EditorApi and hand-run timers: opening, the debounced save
// with the operation log, undo, a failed save kept for the next attempt, export polled to its
// end, uploads, "From my videos" and deleting the open workspace.
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { createAppStore } from '../state/jotai';
import type { EditorApi, EditorWorkspace, ExportCheck, Material, Timeline } from './api';
import { AUDIO_UPLOAD_CATEGORY, VIDEO_UPLOAD_CATEGORY } from './api';
import { editorExportAtom, editorHistoryAtom, editorMaterialsAtom, editorOpenAtom, editorProblemAtom, editorSaveAtom, editorUploadAtom, editorWorkspacesAtom } from './atoms';
import { EditorSession, EXPORT_POLL_MS, OPERATIONS_PER_SAVE, SAVE_DEBOUNCE_MS, uploadCategory, videoTaskOutputs } from './session';
import { addClip, moveClip, replaceClip } from './timeline';

function workspace(id: string, over: Partial<EditorWorkspace> = {}): EditorWorkspace {
  return { workspace_id: id, name: `WS ${id}`, width: 1280, height: 720, fps: 24, timeline: { clips: [], music: null }, duration: 0, operations: [], last_export: null, created_at: 0, updated_at: 0, ...over };
}

function material(id: string, over: Partial<Material> = {}): Material {
  return { material_id: id, kind: 'video', name: id, url: `/files/${id}.mp4`, poster_url: null, duration: 4, width: 640, height: 360, has_audio: false, source: 'upload', created_at: 0, ...over };
}

function check(status: ExportCheck['status'], progress: number, over: Partial<ExportCheck> = {}): ExportCheck {
  return { task_id: 't1', status, progress, video_url: null, poster_url: null, error: null, ...over };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await Promise.resolve();
}

/** Timers run by hand: `fire()` runs what is due, `delays` lists what was asked for. */
function manualTimers() {
  let next = 1;
  const due = new Map<number, { fn: () => void; ms: number }>();
  return {
    timers: {
      set: (fn: () => void, ms: number) => {
        due.set(next, { fn, ms });
        return next++;
      },
      clear: (h: unknown) => void due.delete(h as number),
    },
    delays: () => [...due.values()].map((d) => d.ms),
    async fire() {
      const all = [...due.values()];
      due.clear();
      for (const d of all) d.fn();
      await settle();
    },
  };
}

function setup(workspaces: EditorWorkspace[] = [workspace('w1'), workspace('w2')]) {
  const store = createAppStore();
  const byId = new Map(workspaces.map((w) => [w.workspace_id, w]));
  const api = {
    listWorkspaces: vi.fn(async () => ({ items: [...byId.values()], next_cursor: null })),
    detail: vi.fn(async (id: string) => byId.get(id) ?? workspace(id)),
    createWorkspace: vi.fn(async () => workspace('new', { name: 'Untitled edit' })),
    editWorkspace: vi.fn(async (id: string, change: { name?: string; timeline?: Timeline }) => workspace(id, { name: change.name ?? '', timeline: change.timeline ?? { clips: [], music: null }, updated_at: 9 })),
    deleteWorkspace: vi.fn(async () => {}),
    saveOperations: vi.fn(async (_id: string, ops: unknown[]) => ops.length),
    listMaterials: vi.fn(async () => ({ items: [material('m1')], next_cursor: null })),
    addMaterial: vi.fn(async () => material('up', { kind: 'audio', has_audio: true })),
    deleteMaterial: vi.fn(async () => {}),
    exportWorkspace: vi.fn(async () => 't1'),
    checkExport: vi.fn(async () => check('running', 0)),
  };
  const tasks = { post: vi.fn(async () => ({ items: [] })) } as unknown as Pick<ApiClient, 'post'>;
  const upload = vi.fn(async (_f: Blob, _n: string, _c: number, onProgress: (f: number) => void) => {
    onProgress(0.5);
    return { file_id: 'file-1' };
  });
  const clock = manualTimers();
  const session = new EditorSession({ store, api: api as unknown as EditorApi, tasks, upload, timers: clock.timers, now: () => 1234 });
  return { store, api, tasks, upload, clock, session };
}

const m1 = material('m1');

describe('EditorSession', () => {
  it('opens the preferred workspace, else the newest', async () => {
    const a = setup();
    await a.session.loadWorkspaces('w2');
    expect(a.store.get(editorOpenAtom)?.workspace.workspace_id).toBe('w2');
    const b = setup();
    await b.session.loadWorkspaces('gone');
    expect(b.store.get(editorOpenAtom)?.workspace.workspace_id).toBe('w1');
  });

  it('applies edits at once and saves them together after a quiet moment, then logs them', async () => {
    const { store, api, clock, session } = setup();
    await session.loadWorkspaces();
    session.edit({ op: 'addClip', material_id: 'm1', index: 0 }, (t) => addClip(t, m1));
    session.edit({ op: 'addClip', material_id: 'm1', index: 1 }, (t) => addClip(t, m1));
    // Two drags of one handle: one log entry, one undo step.
    session.edit({ op: 'trimClip', index: 1, start: 1, end: 4 }, (t) => replaceClip(t, 1, { material_id: 'm1', start: 1, end: 4 }), true);
    session.edit({ op: 'trimClip', index: 1, start: 2, end: 4 }, (t) => replaceClip(t, 1, { material_id: 'm1', start: 2, end: 4 }), true);
    session.rename('Holiday');
    expect(store.get(editorOpenAtom)?.timeline.clips).toEqual([
      { material_id: 'm1', start: 0, end: 4 },
      { material_id: 'm1', start: 2, end: 4 },
    ]);
    expect(store.get(editorSaveAtom)).toBe('pending');
    expect(api.editWorkspace).not.toHaveBeenCalled();
    expect(clock.delays()).toEqual([SAVE_DEBOUNCE_MS]);
    await clock.fire();
    expect(api.editWorkspace).toHaveBeenCalledTimes(1);
    expect(api.editWorkspace).toHaveBeenCalledWith('w1', { name: 'Holiday', timeline: store.get(editorOpenAtom)?.timeline });
    expect(api.saveOperations).toHaveBeenCalledWith('w1', [
      { op: 'addClip', material_id: 'm1', index: 0, at: 1234 },
      { op: 'addClip', material_id: 'm1', index: 1, at: 1234 },
      { op: 'trimClip', index: 1, start: 2, end: 4, at: 1234 },
      { op: 'rename', name: 'Holiday', at: 1234 },
    ]);
    expect(store.get(editorSaveAtom)).toBe('saved');
    // The list shows the saved workspace first.
    const list = store.get(editorWorkspacesAtom);
    expect(list.state === 'ready' && list.value.map((w) => [w.workspace_id, w.name])).toEqual([
      ['w1', 'Holiday'],
      ['w2', 'WS w2'],
    ]);
    // A change that changes nothing is neither kept nor saved.
    session.edit({ op: 'moveClip', from: 0, to: 0 }, (t) => moveClip(t, 0, 0));
    expect(store.get(editorSaveAtom)).toBe('saved');
    expect(store.get(editorHistoryAtom)).toHaveLength(3);
  });

  it('logs many operations in batches the server takes', async () => {
    const { api, clock, session } = setup();
    await session.loadWorkspaces();
    for (let i = 0; i < 120; i++) session.edit({ op: 'addClip', material_id: 'm1', index: i }, (t) => addClip(t, m1));
    await clock.fire();
    expect(api.saveOperations.mock.calls.map((c) => (c[1] as unknown[]).length)).toEqual([OPERATIONS_PER_SAVE, OPERATIONS_PER_SAVE, 20]);
    expect((api.saveOperations.mock.calls[2]?.[1] as Array<{ index: number }>)[19]?.index).toBe(119);
  });

  it('undoes the last operation and logs the undo', async () => {
    const { store, api, clock, session } = setup();
    await session.loadWorkspaces();
    session.edit({ op: 'addClip', material_id: 'm1', index: 0 }, (t) => addClip(t, m1));
    session.edit({ op: 'addClip', material_id: 'm2', index: 1 }, (t) => addClip(t, material('m2')));
    session.edit({ op: 'moveClip', from: 1, to: 0 }, (t) => moveClip(t, 1, 0));
    session.undo();
    expect(store.get(editorOpenAtom)?.timeline.clips.map((c) => c.material_id)).toEqual(['m1', 'm2']);
    session.undo();
    session.undo();
    expect(store.get(editorOpenAtom)?.timeline.clips).toEqual([]);
    session.undo();
    await clock.fire();
    expect(api.editWorkspace).toHaveBeenLastCalledWith('w1', { name: 'WS w1', timeline: { clips: [], music: null } });
    const ops = api.saveOperations.mock.calls[0]?.[1] as Array<{ op: string }>;
    expect(ops.map((o) => o.op)).toEqual(['addClip', 'addClip', 'moveClip', 'undo', 'undo', 'undo']);
    expect(ops[3]).toEqual({ op: 'undo', undone: { op: 'moveClip', from: 1, to: 0 }, at: 1234 });
  });

  it('keeps a refused save and its operations for the next attempt', async () => {
    const { store, api, clock, session } = setup();
    await session.loadWorkspaces();
    api.editWorkspace.mockRejectedValueOnce(new ApiError({ code: 40000, key: 'InvalidParams', msg: 'bad trim' }, 400));
    session.edit({ op: 'addClip', material_id: 'm1', index: 0 }, (t) => addClip(t, m1));
    await clock.fire();
    expect(store.get(editorSaveAtom)).toBe('error');
    expect(store.get(editorProblemAtom)).toEqual({ key: 'InvalidParams' });
    expect(api.saveOperations).not.toHaveBeenCalled();
    session.rename('Again');
    await clock.fire();
    expect(store.get(editorSaveAtom)).toBe('saved');
    expect(store.get(editorProblemAtom)).toBeNull();
    expect((api.saveOperations.mock.calls[0]?.[1] as Array<{ op: string }>).map((o) => o.op)).toEqual(['addClip', 'rename']);
  });

  it('exports after saving, polls every second and shows the result', async () => {
    const { store, api, clock, session } = setup();
    await session.loadWorkspaces();
    session.edit({ op: 'addClip', material_id: 'm1', index: 0 }, (t) => addClip(t, m1));
    api.checkExport
      .mockResolvedValueOnce(check('queued', 0))
      .mockResolvedValueOnce(check('running', 40))
      .mockResolvedValueOnce(check('succeeded', 100, { video_url: '/files/out.mp4', poster_url: '/files/out.jpg' }));
    await session.exportOpen();
    expect(api.editWorkspace).toHaveBeenCalledTimes(1);
    expect(api.editWorkspace.mock.invocationCallOrder[0]).toBeLessThan(api.exportWorkspace.mock.invocationCallOrder[0] ?? 0);
    expect(api.exportWorkspace).toHaveBeenCalledWith('w1');
    expect(store.get(editorExportAtom)).toEqual({ state: 'running', check: check('queued', 0) });
    expect(clock.delays()).toEqual([EXPORT_POLL_MS]);
    // A second press while it runs does nothing.
    await session.exportOpen();
    expect(api.exportWorkspace).toHaveBeenCalledTimes(1);
    await clock.fire();
    expect(store.get(editorExportAtom)).toEqual({ state: 'running', check: check('running', 40) });
    await clock.fire();
    expect(store.get(editorExportAtom)).toEqual({ state: 'succeeded', check: check('succeeded', 100, { video_url: '/files/out.mp4', poster_url: '/files/out.jpg' }) });
    expect(clock.delays()).toEqual([]);
    expect(store.get(editorOpenAtom)?.workspace.last_export).toEqual({ task_id: 't1' });
  });

  it("shows a refused export's key and a failed render's error", async () => {
    const { store, api, session } = setup();
    await session.loadWorkspaces();
    api.exportWorkspace.mockRejectedValueOnce(new ApiError({ code: 40000, key: 'pleaseSelectVideo', msg: '' }, 400));
    await session.exportOpen();
    expect(store.get(editorExportAtom)).toEqual({ state: 'failed', check: null, message: { key: 'pleaseSelectVideo' } });
    api.checkExport.mockResolvedValueOnce(check('failed', 50, { error: 'ffmpeg exited 1' }));
    await session.exportOpen();
    expect(store.get(editorExportAtom)).toMatchObject({ state: 'failed', message: { text: 'ffmpeg exited 1' } });
  });

  it("follows the open workspace's last export; opening another stops it", async () => {
    const { store, api, clock, session } = setup([workspace('w1', { last_export: { task_id: 't1' } }), workspace('w2')]);
    await session.loadWorkspaces();
    await settle();
    expect(store.get(editorExportAtom)).toEqual({ state: 'running', check: check('running', 0) });
    await session.open('w2');
    expect(clock.delays()).toEqual([]);
    expect(store.get(editorExportAtom)).toEqual({ state: 'idle' });
    expect(api.checkExport).toHaveBeenCalledTimes(1);
  });

  it('uploads a file by its category, adds it to the bin and clears the progress', async () => {
    const { store, api, upload, session } = setup();
    await session.loadMaterials();
    const seen: unknown[] = [];
    store.sub(editorUploadAtom, () => seen.push(store.get(editorUploadAtom)));
    const file = new File([new Uint8Array(8)], 'song.mp3', { type: 'audio/mpeg' });
    const m = await session.uploadMaterial(file);
    expect(upload).toHaveBeenCalledWith(file, 'song.mp3', AUDIO_UPLOAD_CATEGORY, expect.any(Function));
    expect(api.addMaterial).toHaveBeenCalledWith({ file_id: 'file-1' });
    expect(m?.material_id).toBe('up');
    expect(seen).toEqual([{ name: 'song.mp3', fraction: 0 }, { name: 'song.mp3', fraction: 0.5 }, null]);
    const bin = store.get(editorMaterialsAtom);
    expect(bin.state === 'ready' && bin.value.items.map((x) => x.material_id)).toEqual(['up', 'm1']);
    upload.mockRejectedValueOnce(new Error('upload failed: network'));
    expect(await session.uploadMaterial(file)).toBeNull();
    expect(store.get(editorProblemAtom)).toEqual({ key: 'editor.uploadFailed' });
    api.addMaterial.mockRejectedValueOnce(new ApiError({ code: 40000, key: 'uploadVideoError', msg: '' }, 400));
    await session.uploadMaterial(file);
    expect(store.get(editorProblemAtom)).toEqual({ key: 'uploadVideoError' });
  });

  it('deletes the open workspace and opens the next', async () => {
    const { store, api, clock, session } = setup();
    await session.loadWorkspaces();
    session.edit({ op: 'addClip', material_id: 'm1', index: 0 }, (t) => addClip(t, m1));
    await session.remove('w1');
    expect(api.deleteWorkspace).toHaveBeenCalledWith('w1');
    expect(store.get(editorOpenAtom)?.workspace.workspace_id).toBe('w2');
    await clock.fire();
    // The deleted workspace's pending change is not saved.
    expect(api.editWorkspace).not.toHaveBeenCalled();
    const list = store.get(editorWorkspacesAtom);
    expect(list.state === 'ready' && list.value.map((w) => w.workspace_id)).toEqual(['w2']);
  });
});

describe('helpers', () => {
  it('picks the upload category from the file', () => {
    expect(uploadCategory({ type: 'video/mp4', name: 'a.mp4' })).toBe(VIDEO_UPLOAD_CATEGORY);
    expect(uploadCategory({ type: 'audio/wav', name: 'a.wav' })).toBe(AUDIO_UPLOAD_CATEGORY);
    expect(uploadCategory({ type: '', name: 'Track.FLAC' })).toBe(AUDIO_UPLOAD_CATEGORY);
    expect(uploadCategory({ type: '', name: 'clip.mov' })).toBe(VIDEO_UPLOAD_CATEGORY);
  });

  it('lists the outputs of finished video tasks only', () => {
    expect(
      videoTaskOutputs({
        items: [
          { id: 'a', status: 3, video_uris: ['/a0.mp4', '/a1.mp4'], img_uris: ['/a0.jpg'], prompt: 'dawn', create_at: 5 },
          { id: 'b', status: 2, video_uris: ['/b.mp4'], img_uris: [] },
          { id: 'c', status: 3, img_uris: ['/c.png'] },
          null,
        ],
      }),
    ).toEqual([
      { task_id: 'a', index: 0, mp4: '/a0.mp4', poster: '/a0.jpg', prompt: 'dawn', created_at: 5 },
      { task_id: 'a', index: 1, mp4: '/a1.mp4', poster: null, prompt: 'dawn', created_at: 5 },
    ]);
    expect(videoTaskOutputs({})).toEqual([]);
  });
});
