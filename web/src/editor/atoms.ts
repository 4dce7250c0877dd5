// The video editor's state: the workspace list, the open workspace with its
// local timeline (ahead of the server while a save is pending), the undo
// history, the save state, the media bin and the user's finished videos,
// the upload in progress, the selected clip, the export and the problem shown.
import type { ErrorMessage } from '../i18n/messages';
import { atom } from '../state/jotai';
import type { EditorWorkspace, ExportCheck, Material, Timeline } from './api';
import type { HistoryEntry } from './timeline';

export type Loadable<T> = { state: 'idle' } | { state: 'loading' } | { state: 'ready'; value: T } | { state: 'error'; message: ErrorMessage };

export const editorWorkspacesAtom = atom<Loadable<EditorWorkspace[]>>({ state: 'idle' });

/** The open workspace: the server's last answer, and the name and timeline as edited here. */
export interface OpenWorkspace {
  workspace: EditorWorkspace;
  name: string;
  timeline: Timeline;
}

export const editorOpenAtom = atom<OpenWorkspace | null>(null);

export const editorHistoryAtom = atom<HistoryEntry[]>([]);

/** `saved`: the server has every change; `pending`: a save is waiting or running; `error`: the last save failed. */
export type SaveState = 'saved' | 'pending' | 'error';

export const editorSaveAtom = atom<SaveState>('saved');

export interface MaterialBin {
  items: Material[];
  cursor: string | null;
}

export const editorMaterialsAtom = atom<Loadable<MaterialBin>>({ state: 'idle' });

/** One output of a finished video task, for "From my videos". */
export interface VideoTaskOutput {
  task_id: string;
  index: number;
  mp4: string;
  poster: string | null;
  prompt: string;
  created_at: number;
}

export const editorMyVideosAtom = atom<Loadable<VideoTaskOutput[]>>({ state: 'idle' });

export interface UploadProgress {
  name: string;
  /** 0..1. */
  fraction: number;
}

export const editorUploadAtom = atom<UploadProgress | null>(null);

/** Index of the clip shown in the preview. */
export const editorSelectedAtom = atom<number | null>(null);

export type ExportState =
  | { state: 'idle' }
  | { state: 'starting' }
  | { state: 'running'; check: ExportCheck }
  | { state: 'succeeded'; check: ExportCheck }
  | { state: 'failed'; check: ExportCheck | null; message: ErrorMessage };

export const editorExportAtom = atom<ExportState>({ state: 'idle' });

/** The last failure, shown under the toolbar until the next action. */
export const editorProblemAtom = atom<ErrorMessage | null>(null);
