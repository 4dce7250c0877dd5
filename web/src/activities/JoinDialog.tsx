// The Join/Contribute flow: my published objects of the types the activity
// takes (filtered by a type chip when it takes several), one picked and
// committed. A character joins through `character-join`, the rest through
// `activity/commit`; the server's refusal (wrong type, not public, duplicate,
// limit, closed period) shows in the dialog.
import { useState } from 'react';
import { accountAtom } from '../account/atoms';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { activitiesApi, loadMyObjects } from './actions';
import { candidates } from './model';
import type { Candidate } from './model';
import { TYPE_KEYS } from './parts';
import type { ActivityDetail, CommitAnswer, ContributionType } from './types';

export function JoinDialog({ activity, onClose, onJoined }: { activity: ActivityDetail; onClose: () => void; onJoined: (answer: CommitAnswer) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const me = useAtomValue(accountAtom);
  const [filter, setFilter] = useState<ContributionType | 'all'>('all');
  const [picked, setPicked] = useState<Candidate | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mine = useLoaded(async () => (me === null ? [] : candidates(await loadMyObjects(me.id, activity.types), activity.types)), [me?.id, activity.id], null as Candidate[] | null);
  const shown = (mine.value ?? []).filter((c) => filter === 'all' || c.type === filter);

  async function commit() {
    if (picked === null) return;
    setBusy(true);
    setError(null);
    try {
      onJoined(await activitiesApi.commit(picked.type, picked.obj_id, activity.id));
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  }

  return (
    <Dialog title={t('activities.join.title', { title: activity.title })} closeLabel={t('activities.close')} onClose={onClose} className="act-join">
      <div data-testid="join-dialog">
        {activity.types.length > 1 && (
          <div className="act-chips act-chips--filter" role="group" aria-label={t('activities.types')}>
            {(['all', ...activity.types] as const).map((x) => (
              <button key={x} type="button" className={`act-chip${filter === x ? ' act-chip--on' : ''}`} aria-pressed={filter === x} onClick={() => setFilter(x)}>
                {x === 'all' ? t('activities.join.all') : t(TYPE_KEYS[x])}
              </button>
            ))}
          </div>
        )}
        {mine.failed && (
          <p role="alert" className="tavern__error">
            {errorText(mine.error)}
          </p>
        )}
        {mine.value === null && !mine.failed && <p className="muted">{t('activities.loading')}</p>}
        {mine.value !== null && shown.length === 0 && <p className="muted" data-testid="join-empty">{t('activities.join.none')}</p>}
        <ul className="act-pick" role="listbox" aria-label={t('activities.join.pick')}>
          {shown.map((c) => {
            const on = picked?.type === c.type && picked.obj_id === c.obj_id;
            return (
              <li key={`${c.type}:${c.obj_id}`} role="option" aria-selected={on}>
                <button type="button" className={`act-pick__item${on ? ' act-pick__item--on' : ''}`} onClick={() => setPicked(c)} data-testid="join-candidate" data-obj={c.obj_id} data-type={c.type}>
                  {c.cover !== null ? <img src={c.cover} alt="" /> : <span className="act-tile__blank">{c.title}</span>}
                  <span className="act-pick__title">{c.title || t('square.card.untitled')}</span>
                  <span className="act-chip">{t(TYPE_KEYS[c.type])}</span>
                </button>
              </li>
            );
          })}
        </ul>
        {error !== null && (
          <p role="alert" className="tavern__error" data-testid="join-error">
            {error}
          </p>
        )}
        <div className="act-join__actions">
          <button type="button" className="button" onClick={onClose}>
            {t('activities.cancel')}
          </button>
          <button type="button" className="button button--primary" disabled={picked === null || busy} onClick={() => void commit()} data-testid="join-submit">
            {t('activities.join.submit')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
