import { useMemo, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import { ACTION_LABELS, grantedPermissions, visibleActions } from '../tasks/actions';
import type { ActionButton } from '../tasks/actions';
import { sayError } from '../tasks/runner';
import type { Task } from '../tasks/types';
import { videoParamsAtom } from './atoms';
import type { VideoOutput } from './player';
import { taskRestoreTab } from './restore';
import { reuseVideoTask, runToolOnResult } from './reuse';
import type { VideoTool } from './tools';

/** The tool each video button runs. */
const BUTTON_TOOL: Partial<Record<ActionButton, VideoTool>> = {
  videoExtension: 'extend',
  videoUpscale: 'upscale',
  videoExtendFrame: 'frameInterpolation',
};

/**
 * The result action bar of a finished video (spec 2 §2): extend, upscale and
 * frame interpolation (each gated by its permission key; add music and lip
 * sync stay hidden: no audio service), each creating the tool's task with
 * parent_task_id; and "reuse", which restores the task into the form.
 */
export function VideoActionBar({ task, output }: { task: Task; output: VideoOutput }) {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const params = useAtomValue(videoParamsAtom);
  const buttons = useMemo(() => visibleActions(grantedPermissions(loggedIn), 'video').edit.filter((b) => BUTTON_TOOL[b] !== undefined), [loggedIn]);
  const [busy, setBusy] = useState<string | null>(null);
  // Reuse is offered where the task restores to a tab (params unknown yet: offered, checked on press).
  const reusable = params.state !== 'ready' || taskRestoreTab(params.params, task) !== null;

  async function run(button: ActionButton) {
    const tool = BUTTON_TOOL[button];
    if (!tool || busy !== null) return;
    setBusy(button);
    try {
      const got = await runToolOnResult(appStore, api, tool, task, output);
      showToast(appStore, 'problem' in got ? t(got.problem) : t('tasks.notice.started'));
    } catch (e) {
      sayError(e);
    } finally {
      setBusy(null);
    }
  }

  async function reuse() {
    if (busy !== null) return;
    setBusy('reuse');
    try {
      const tab = await reuseVideoTask(appStore, api, task);
      showToast(appStore, tab === null ? t('video.reuse.none') : t('video.reuse.done', { tab: t(`video.tab.${tab}`) }));
    } catch (e) {
      sayError(e);
    } finally {
      setBusy(null);
    }
  }

  if (buttons.length === 0 && !reusable) return null;
  return (
    <div className="action-bar video-action-bar" role="toolbar" aria-label={t('tasks.actions.label')} data-testid="video-action-bar">
      <div className="action-bar__group" role="group" aria-label={t('tasks.actions.edit')}>
        {buttons.map((button) => (
          <button
            key={button}
            type="button"
            className="button action-bar__button"
            aria-busy={busy === button}
            disabled={busy !== null}
            data-action={button}
            onClick={() => void run(button)}
          >
            {t(ACTION_LABELS[button])}
          </button>
        ))}
        {reusable && (
          <button type="button" className="button action-bar__button" aria-busy={busy === 'reuse'} disabled={busy !== null} data-action="reuse" onClick={() => void reuse()}>
            {t('tasks.action.reuse')}
          </button>
        )}
      </div>
    </div>
  );
}
