import { useMemo, useState } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { workPath } from '../square/route';
import { appStore, useAtomValue } from '../state/jotai';
import { ACTION_LABELS, grantedPermissions, visibleActions } from '../tasks/actions';
import type { ActionButton } from '../tasks/actions';
import { isOwnTask } from '../tasks/model';
import { sayError } from '../tasks/runner';
import { TaskStatus } from '../tasks/types';
import type { Task } from '../tasks/types';
import { PublishDialog } from '../works/PublishDialog';
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
 * parent_task_id; "reuse", which restores the task into the form; and
 * "Post" (supportPublish), the owner's, opening the publish dialog in its
 * video mode; a posted task links to its work instead.
 */
export function VideoActionBar({ task, output }: { task: Task; output: VideoOutput }) {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const params = useAtomValue(videoParamsAtom);
  const groups = useMemo(() => visibleActions(grantedPermissions(loggedIn), 'video'), [loggedIn]);
  const buttons = groups.edit.filter((b) => BUTTON_TOOL[b] !== undefined);
  const me = useAtomValue(accountAtom)?.id ?? null;
  const locale = useAtomValue(localeAtom);
  const [busy, setBusy] = useState<string | null>(null);
  const [publishing, setPublishing] = useState(false);
  // As on a picture: the owner posts a finished video once; then it links to the work.
  const postable = groups.more.includes('post');
  const canPost = loggedIn && task.status === TaskStatus.Success && isOwnTask(task, me);
  const posted = task.pub_artwork_no ?? null;
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

  if (buttons.length === 0 && !reusable && !postable && !posted) return null;
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
      {posted ? (
        <Link to={localePath(locale, workPath(posted))} className="button action-bar__button action-bar__posted" data-testid="posted-link">
          {t('works.publish.posted')}
        </Link>
      ) : (
        postable && (
          <div className="action-bar__group" role="group" aria-label={t('tasks.actions.more')}>
            <button
              type="button"
              className="button action-bar__button"
              disabled={!canPost || busy !== null}
              title={canPost ? undefined : t('works.publish.notYours')}
              data-action="post"
              onClick={() => setPublishing(true)}
            >
              {t(ACTION_LABELS.post)}
            </button>
          </div>
        )
      )}
      {publishing && <PublishDialog task={task} onClose={() => setPublishing(false)} />}
    </div>
  );
}
