import { useMemo, useState } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { workPath } from '../square/route';
import { PublishDialog } from '../works/PublishDialog';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import { ACTION_LABELS, DISABLED_ACTIONS, grantedPermissions, visibleActions } from './actions';
import type { ActionButton } from './actions';
import { ShareToChannel } from '../channels/ShareToChannel';
import { ExpandDialog } from './ExpandDialog';
import { isOwnTask } from './model';
import { MoreMenu } from './MoreMenu';
import type { MenuExtra } from './MoreMenu';
import type { SourceImage } from './requests';
import { runAction } from './runner';
import { TaskStatus } from './types';
import type { Task } from './types';

/**
 * The result action bar of one image (spec 2 §2): the edit group as
 * buttons, the "more" group in a menu; each button gated by its permission key.
 */
export function ActionBar({ task, img }: { task: Task; img: SourceImage }) {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const groups = useMemo(() => visibleActions(grantedPermissions(loggedIn)), [loggedIn]);
  const [busy, setBusy] = useState<ActionButton | null>(null);
  const [expanding, setExpanding] = useState(false);
  const [sharing, setSharing] = useState(false);
  const [publishing, setPublishing] = useState(false);
  const me = useAtomValue(accountAtom)?.id ?? null;
  const locale = useAtomValue(localeAtom);
  // The task's owner posts a finished result to the square; once posted it links to the work.
  const canPost = loggedIn && task.status === TaskStatus.Success && isOwnTask(task, me);
  const posted = task.pub_artwork_no ?? null;
  const postReason = posted || canPost ? null : t('works.publish.notYours');
  // A finished result can be posted into a joined channel.
  const extras: MenuExtra[] =
    loggedIn && task.status === TaskStatus.Success
      ? [{ id: 'share', label: t('channels.share'), onSelect: () => setSharing(true) }]
      : [];

  async function run(button: ActionButton) {
    if (DISABLED_ACTIONS[button] || busy !== null) return;
    if (button === 'post') {
      // Posting is the owner's, once; a posted task's item goes to its work.
      if (posted) navigate(appStore, localePath(locale, workPath(posted)));
      else if (canPost) setPublishing(true);
      return;
    }
    if (button === 'expandImage') {
      setExpanding(true);
      return;
    }
    setBusy(button);
    try {
      await runAction(button, task, img);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="action-bar" role="toolbar" aria-label={t('tasks.actions.label')} data-testid="action-bar">
      <div className="action-bar__group" role="group" aria-label={t('tasks.actions.edit')}>
        {groups.edit.map((button) => (
          <button
            key={button}
            type="button"
            className="button action-bar__button"
            aria-busy={busy === button}
            disabled={busy === button}
            onClick={() => void run(button)}
          >
            {t(ACTION_LABELS[button])}
          </button>
        ))}
      </div>
      {posted && (
        <Link to={localePath(locale, workPath(posted))} className="button action-bar__button action-bar__posted" data-testid="posted-link">
          {t('works.publish.posted')}
        </Link>
      )}
      {groups.more.length + extras.length > 0 && (
        <MoreMenu
          items={groups.more}
          extras={extras}
          label={(b) => (b === 'save' && task.saved ? t('tasks.action.saved') : b === 'post' && posted ? t('works.publish.posted') : t(ACTION_LABELS[b]))}
          disabledReason={(b) => {
            if (b === 'post') return postReason;
            const key = DISABLED_ACTIONS[b];
            return key ? t(key) : null;
          }}
          onSelect={(b) => void run(b)}
        />
      )}
      {expanding && <ExpandDialog task={task} img={img} onClose={() => setExpanding(false)} />}
      {sharing && <ShareToChannel taskId={task.id} onClose={() => setSharing(false)} />}
      {publishing && <PublishDialog task={task} onClose={() => setPublishing(false)} />}
    </div>
  );
}
