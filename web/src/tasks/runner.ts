// Performs the action bar's actions: new tasks (tracked like any other),
// download, save, delete, share. Plain code over the app's store and API.
import { tokenAtom } from '../account/atoms';
import { TOKEN_HEADER } from '../api/client';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { messagesFor, translate } from '../i18n/messages';
import type { MessageKey } from '../i18n/messages';
import { localeAtom } from '../router/router';
import { appStore } from '../state/jotai';
import type { ActionButton } from './actions';
import { trackTaskAtom } from './atoms';
import { errorNote } from './errors';
import {
  absoluteUrl,
  defaultCheckpoint,
  dispositionName,
  expandCall,
  extraUpscaleCall,
  removeBackgroundCall,
  upscaleCall,
  variationCall,
} from './requests';
import type { CatalogueCheckpoint, Margins, SourceImage, TaskCall } from './requests';
import { taskSync } from './service';
import type { Task } from './types';

function say(key: MessageKey, params?: Record<string, string | number>): void {
  showToast(appStore, translate(messagesFor(appStore.get(localeAtom)), key, params));
}

/** Shows a failed call's message. */
export function sayError(error: unknown): void {
  const note = errorNote(error);
  if ('key' in note) say(note.key);
  else showToast(appStore, note.text);
}

let checkpoints: Promise<CatalogueCheckpoint[]> | null = null;

/** The catalogue's checkpoints, fetched once. */
function catalogueCheckpoints(): Promise<CatalogueCheckpoint[]> {
  checkpoints ??= api
    .post<{ checkpoints: CatalogueCheckpoint[] }>('/api/v1/task/v2/config/model')
    .then((c) => c.checkpoints)
    .catch((e: unknown) => {
      checkpoints = null;
      throw e;
    });
  return checkpoints;
}

async function startTask(call: TaskCall): Promise<void> {
  const { id } = await api.post<{ id: string }>(call.path, call.body);
  appStore.set(trackTaskAtom, id);
  say('tasks.notice.started');
}

/** Runs one button of the bar on one image of a task. Errors are shown, not thrown. */
export async function runAction(button: ActionButton, task: Task, img: SourceImage): Promise<void> {
  try {
    switch (button) {
      case 'upscale':
        return await startTask(upscaleCall(task, img));
      case 'extraUpscale':
        return await startTask(extraUpscaleCall(task, img));
      case 'variations':
        return await startTask(variationCall(task, img, defaultCheckpoint(await catalogueCheckpoints(), task.category)));
      case 'removeBackground':
        return await startTask(removeBackgroundCall(task, img));
      case 'download':
        return await download(task);
      case 'save':
        await taskSync.save(task.id);
        return say('tasks.notice.saved');
      case 'deleteSingleImg':
        await taskSync.remove(task.id);
        return say('tasks.notice.deleted');
      case 'Share':
        return await share(img.url);
      default:
        return;
    }
  } catch (e) {
    sayError(e);
  }
}

export async function runExpand(task: Task, img: SourceImage, margins: Margins): Promise<void> {
  try {
    await startTask(expandCall(task, img, margins, defaultCheckpoint(await catalogueCheckpoints(), task.category)));
  } catch (e) {
    sayError(e);
  }
}

/** `v2/download`: the task's file (or a zip of its files), saved by the browser. */
async function download(task: Task): Promise<void> {
  const token = appStore.get(tokenAtom);
  const res = await fetch('/api/v1/task/v2/download', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { [TOKEN_HEADER]: token } : {}) },
    body: JSON.stringify({ id: task.id }),
    credentials: 'same-origin',
  });
  const type = res.headers.get('Content-Type') ?? '';
  if (!res.ok || type.includes('application/json')) {
    // An error envelope: let the client's decoding turn it into an ApiError.
    await api.post('/api/v1/task/v2/download', { id: task.id });
    return;
  }
  const blob = await res.blob();
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = dispositionName(res.headers.get('Content-Disposition'), `easel-${task.id}`);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

async function share(url: string): Promise<void> {
  const full = absoluteUrl(url, window.location.origin);
  try {
    await navigator.clipboard.writeText(full);
    say('tasks.notice.copied');
  } catch {
    say('tasks.notice.copyFailed', { url: full });
  }
}

export async function cancelTask(id: string): Promise<void> {
  try {
    await taskSync.cancel(id);
    say('tasks.notice.cancelled');
  } catch (e) {
    sayError(e);
  }
}

export async function deleteTask(id: string): Promise<void> {
  try {
    await taskSync.remove(id);
    say('tasks.notice.deleted');
  } catch (e) {
    sayError(e);
  }
}
