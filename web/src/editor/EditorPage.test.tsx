// The editor screen over a mocked EditorApi: the open workspace's clips and total, a typed trim
// applied on Enter and saved after the quiet moment, reorder buttons, adding a material, and
// export's progress bar turning into the player with its download link.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { ApiError } from '../api/client';
import { en } from '../i18n/en';
import { locationAtom } from '../router/router';
import { appStore } from '../state/jotai';
import { buttonByText, click, render, settle } from '../mall/testing';
import type { Rendered } from '../mall/testing';
import type { EditorWorkspace, ExportCheck, Material } from './api';
import { editorMaterialsAtom, editorMyVideosAtom, editorOpenAtom, editorWorkspacesAtom } from './atoms';
import { EditorPage } from './EditorPage';
import { EXPORT_POLL_MS, SAVE_DEBOUNCE_MS } from './session';
import { editorApi, editorSession } from './services';

let view: Rendered | null = null;

const m1: Material = { material_id: 'm1', kind: 'video', name: 'beach.mp4', url: '/files/m1.mp4', poster_url: '/files/m1.jpg', duration: 4, width: 640, height: 360, has_audio: false, source: 'upload', created_at: 0 };
const m2: Material = { ...m1, material_id: 'm2', name: 'city.mp4', duration: 2 };
const song: Material = { ...m1, material_id: 'a1', kind: 'audio', name: 'song.mp3', poster_url: null, has_audio: true, duration: 30 };

function workspace(over: Partial<EditorWorkspace> = {}): EditorWorkspace {
  return {
    workspace_id: 'w1',
    name: 'Beach day',
    width: 1280,
    height: 720,
    fps: 24,
    timeline: { clips: [{ material_id: 'm1', start: 0, end: 4 }], music: null },
    duration: 4,
    operations: [],
    last_export: null,
    created_at: 0,
    updated_at: 0,
    ...over,
  };
}

function check(over: Partial<ExportCheck>): ExportCheck {
  return { task_id: 't1', status: 'running', progress: 0, video_url: null, poster_url: null, error: null, ...over };
}

/** Types into a field the way a person does (React sees the input event), then presses Enter. */
async function typeAndEnter(input: HTMLInputElement, value: string): Promise<void> {
  await act(async () => {
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
    setter?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await act(async () => {
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  });
  await settle();
}

function clipRows(): HTMLElement[] {
  return [...(view?.container.querySelectorAll<HTMLElement>('[data-testid="clip"]') ?? [])];
}

function inputLabelled(root: ParentNode, text: string): HTMLInputElement {
  const label = [...root.querySelectorAll('label')].find((l) => l.querySelector('span')?.textContent === text);
  const input = label?.querySelector('input');
  if (!input) throw new Error(`no field "${text}"`);
  return input;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  window.history.replaceState(null, '', '/en/create/video/editor');
  appStore.set(locationAtom, { pathname: '/en/create/video/editor', search: '', hash: '' });
  appStore.set(tokenAtom, 'tok');
  vi.spyOn(editorApi, 'listWorkspaces').mockResolvedValue({ items: [workspace()], next_cursor: null });
  vi.spyOn(editorApi, 'detail').mockResolvedValue(workspace());
  vi.spyOn(editorApi, 'listMaterials').mockResolvedValue({ items: [m1, m2, song], next_cursor: null });
  vi.spyOn(editorApi, 'editWorkspace').mockImplementation(async (id, change) => workspace({ workspace_id: id, ...change }));
  vi.spyOn(editorApi, 'saveOperations').mockResolvedValue(1);
});

afterEach(async () => {
  view?.unmount();
  view = null;
  await act(async () => {
    await vi.runAllTimersAsync();
  });
  vi.useRealTimers();
  appStore.set(tokenAtom, null);
  appStore.set(editorWorkspacesAtom, { state: 'idle' });
  appStore.set(editorMaterialsAtom, { state: 'idle' });
  appStore.set(editorMyVideosAtom, { state: 'idle' });
  appStore.set(editorOpenAtom, null);
});

describe('EditorPage', () => {
  it('shows the clips, applies a typed trim, reorders, and saves after the quiet moment', async () => {
    vi.spyOn(editorSession, 'loadMyVideos').mockResolvedValue();
    view = render(<EditorPage />);
    await settle(12);
    expect(clipRows()).toHaveLength(1);
    expect(view.container.querySelector('[data-testid="timeline-total"]')?.getAttribute('data-seconds')).toBe('4');

    const city = [...view.container.querySelectorAll<HTMLElement>('[data-testid="material"]')].find((el) => el.getAttribute('data-material-id') === 'm2');
    await click(buttonByText(city!, en['editor.addClip']));
    expect(clipRows().map((r) => r.getAttribute('data-material-id'))).toEqual(['m1', 'm2']);

    await typeAndEnter(inputLabelled(clipRows()[0]!, en['editor.start']), '1.25');
    await typeAndEnter(inputLabelled(clipRows()[0]!, en['editor.end']), '99');
    expect([clipRows()[0]?.getAttribute('data-start'), clipRows()[0]?.getAttribute('data-end')]).toEqual(['1.25', '4']);
    expect(view.container.querySelector('[data-testid="timeline-total"]')?.getAttribute('data-seconds')).toBe('4.75');

    await click(clipRows()[1]!.querySelector<HTMLButtonElement>(`button[aria-label="Move clip 2 left"]`)!);
    expect(clipRows().map((r) => r.getAttribute('data-material-id'))).toEqual(['m2', 'm1']);
    expect(view.container.querySelector('[data-testid="editor-save"]')?.getAttribute('data-state')).toBe('pending');
    expect(editorApi.editWorkspace).not.toHaveBeenCalled();

    await act(async () => {
      await vi.advanceTimersByTimeAsync(SAVE_DEBOUNCE_MS);
    });
    await settle();
    expect(editorApi.editWorkspace).toHaveBeenCalledTimes(1);
    expect(editorApi.editWorkspace).toHaveBeenCalledWith('w1', {
      name: 'Beach day',
      timeline: {
        clips: [
          { material_id: 'm2', start: 0, end: 2 },
          { material_id: 'm1', start: 1.25, end: 4 },
        ],
        music: null,
      },
    });
    expect(view.container.querySelector('[data-testid="editor-save"]')?.getAttribute('data-state')).toBe('saved');
  });

  it('exports with a progress bar, then plays the result with a download link', async () => {
    vi.spyOn(editorSession, 'loadMyVideos').mockResolvedValue();
    vi.spyOn(editorApi, 'exportWorkspace').mockResolvedValue('t1');
    vi.spyOn(editorApi, 'checkExport')
      .mockResolvedValueOnce(check({ progress: 30 }))
      .mockResolvedValueOnce(check({ status: 'succeeded', progress: 100, video_url: '/files/out.mp4', poster_url: '/files/out.jpg' }));
    view = render(<EditorPage />);
    await settle(12);
    await click(buttonByText(view.container, en['editor.exportButton']));
    await settle();
    const bar = view.container.querySelector('[data-testid="export-progress"]');
    expect(bar?.getAttribute('value')).toBe('30');
    expect(view.container.querySelector('[data-testid="export-percent"]')?.textContent).toBe('30%');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(EXPORT_POLL_MS);
    });
    await settle();
    expect(view.container.querySelector('[data-testid="export-progress"]')).toBeNull();
    const result = view.container.querySelector('[data-testid="export-result"]');
    expect(result?.querySelector('video')?.getAttribute('poster')).toBe('/files/out.jpg');
    expect(result?.querySelector('[data-testid="video-download"]')?.getAttribute('href')).toBe('/files/out.mp4');
  });

  it('shows a refused export in the texts of the envelope', async () => {
    vi.spyOn(editorSession, 'loadMyVideos').mockResolvedValue();
    vi.spyOn(editorApi, 'exportWorkspace').mockRejectedValue(new ApiError({ code: 40000, key: 'pleaseSelectVideo', msg: '' }, 400));
    view = render(<EditorPage />);
    await settle(12);
    await click(buttonByText(view.container, en['editor.exportButton']));
    await settle();
    expect(view.container.querySelector('[data-testid="export-error"]')?.textContent).toBe(en.pleaseSelectVideo);
  });
});
