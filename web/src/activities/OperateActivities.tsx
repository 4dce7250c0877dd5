// The operators' console tab `/operate/activities`: every activity (newest
// first), a form that creates or edits one (title, Markdown rules, cover
// upload, periods, contribution types, prizes, judging mode, daily flag,
// limits), and per period its contributions with Close and Judge (in picks
// mode the operator ticks the winners in rank order).
import { useState } from 'react';
import type { ChangeEvent, FormEvent } from 'react';
import { isApiError } from '../api/client';
import { api } from '../app/services';
import { IMAGE_UPLOAD_CATEGORY, uploadFile } from '../generator/upload';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { activitiesApi, useNow } from './actions';
import { draftOf, draftProblems, emptyDraft, formatPrizes, fromLocalInput, nextPeriod, parsePrizes, toLocalInput, toggleType } from './draft';
import { StatusLabel, TYPE_KEYS } from './parts';
import { periodStatus } from './time';
import type { ActivityAdmin, ActivityDraft, Entry, ExcellentPeriod, Judging } from './types';
import { CONTRIBUTION_TYPES } from './types';
import './activities.css';

export function OperateActivities({ upload = (file: File) => uploadFile({ api, file, fileName: file.name, category: IMAGE_UPLOAD_CATEGORY }) }: { upload?: (file: File) => Promise<string> }) {
  const t = useT();
  const errorText = useErrorText();
  const all = useLoaded(() => activitiesApi.adminList(), [], null as ActivityAdmin[] | null);
  const [editing, setEditing] = useState<ActivityAdmin | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [managing, setManaging] = useState<string | null>(null);

  function saved(a: ActivityAdmin) {
    all.setValue((list) => [a, ...(list ?? []).filter((x) => x.id !== a.id)]);
    setEditing(null);
    setFormKey((k) => k + 1);
  }

  const managed = all.value?.find((a) => a.id === managing) ?? null;
  return (
    <section className="act-operate" data-testid="operate-activities" aria-label={t('activities.admin.title')}>
      <h2>{t('activities.admin.title')}</h2>
      {all.failed && (
        <p role="alert" className="tavern__error">
          {errorText(all.error)}
        </p>
      )}
      {all.value !== null && all.value.length === 0 && <p className="muted">{t('activities.admin.none')}</p>}
      <ul className="act-admin-list">
        {(all.value ?? []).map((a) => (
          <li key={a.id} data-testid="admin-activity" data-id={a.id}>
            <strong>{a.title}</strong> <StatusLabel status={a.status} />
            {a.daily && <span className="act-daily">{t('activities.daily')}</span>}
            <span className="muted">
              {t('activities.admin.periods', { n: a.periods.length })} · {t('activities.entries', { n: a.entries })}
            </span>
            <button type="button" className="button button--small" onClick={() => setEditing(a)} data-testid="admin-edit">
              {t('activities.admin.edit')}
            </button>
            <button type="button" className="button button--small" onClick={() => setManaging(managing === a.id ? null : a.id)} aria-expanded={managing === a.id} data-testid="admin-manage">
              {t('activities.admin.manage')}
            </button>
          </li>
        ))}
      </ul>
      {managed !== null && <PeriodsPanel activity={managed} onJudged={all.reload} />}
      <ActivityForm key={`${editing?.id ?? 'new'}-${formKey}`} editing={editing} upload={upload} onSaved={saved} onCancel={() => setEditing(null)} />
    </section>
  );
}

function ActivityForm({ editing, upload, onSaved, onCancel }: { editing: ActivityAdmin | null; upload: (file: File) => Promise<string>; onSaved: (a: ActivityAdmin) => void; onCancel: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const [draft, setDraft] = useState<ActivityDraft>(() => (editing === null ? emptyDraft(Date.now()) : draftOf(editing)));
  const [prizeText, setPrizeText] = useState(formatPrizes(draft.prizes));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (change: Partial<ActivityDraft>) => setDraft((d) => ({ ...d, ...change }));
  const prizes = parsePrizes(prizeText);
  const problems = draftProblems(draft);

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      set({ cover: await upload(file) });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  function setPeriod(i: number, which: 'start' | 'end', value: string) {
    const ms = fromLocalInput(value);
    if (ms === null) return;
    set({ periods: draft.periods.map((p, j) => (j === i ? { ...p, [which]: ms } : p)) });
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    if (prizes === null || problems.length > 0) return;
    setBusy(true);
    setError(null);
    try {
      onSaved(await activitiesApi.save({ ...draft, title: draft.title.trim(), prizes }, editing?.id ?? null));
    } catch (err) {
      // `activityInvalid`'s message names the field (ACT_API.md): shown beside the translated text.
      setError(isApiError(err) && err.key === 'activityInvalid' && err.msg.trim() !== '' ? `${errorText(err)} (${err.msg})` : errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="act-form" onSubmit={(e) => void save(e)} data-testid="activity-form">
      <h3>{editing === null ? t('activities.admin.new') : t('activities.admin.editing', { title: editing.title })}</h3>
      <label>
        {t('activities.admin.field.title')}
        <input value={draft.title} maxLength={100} required onChange={(e) => set({ title: e.target.value })} data-testid="form-title" />
      </label>
      <label>
        {t('activities.admin.field.rules')}
        <textarea value={draft.rules} maxLength={20000} rows={6} onChange={(e) => set({ rules: e.target.value })} data-testid="form-rules" />
      </label>
      <label>
        {t('activities.admin.field.cover')}
        <input type="file" accept="image/png,image/jpeg,image/webp" onChange={(e) => void onFile(e)} data-testid="form-cover" />
      </label>
      {draft.cover !== null && (
        <p>
          <img className="act-form__cover" src={draft.cover} alt="" />{' '}
          <button type="button" className="button button--small" onClick={() => set({ cover: null })}>
            {t('activities.admin.removeCover')}
          </button>
        </p>
      )}
      <fieldset>
        <legend>{t('activities.periods')}</legend>
        {draft.periods.map((p, i) => (
          <div key={i} className="act-form__period" data-testid="form-period">
            <span>{t('activities.period', { n: i + 1 })}</span>
            <label>
              {t('activities.admin.field.start')}
              <input type="datetime-local" value={toLocalInput(p.start)} onChange={(e) => setPeriod(i, 'start', e.target.value)} data-testid="form-period-start" />
            </label>
            <label>
              {t('activities.admin.field.end')}
              <input type="datetime-local" value={toLocalInput(p.end)} onChange={(e) => setPeriod(i, 'end', e.target.value)} data-testid="form-period-end" />
            </label>
            {draft.periods.length > 1 && (
              <button type="button" className="button button--small" onClick={() => set({ periods: draft.periods.filter((_, j) => j !== i) })}>
                {t('activities.admin.removePeriod')}
              </button>
            )}
          </div>
        ))}
        <button type="button" className="button button--small" onClick={() => set({ periods: [...draft.periods, nextPeriod(draft.periods, Date.now())] })} data-testid="form-add-period">
          {t('activities.admin.addPeriod')}
        </button>
      </fieldset>
      <fieldset>
        <legend>{t('activities.types')}</legend>
        {CONTRIBUTION_TYPES.map((type) => (
          <label key={type} className="act-form__check">
            <input type="checkbox" checked={draft.types.includes(type)} onChange={(e) => set({ types: toggleType(draft.types, type, e.target.checked, CONTRIBUTION_TYPES) })} data-testid={`form-type-${type}`} />{' '}
            {t(TYPE_KEYS[type])}
          </label>
        ))}
      </fieldset>
      <label>
        {t('activities.admin.field.prizes')}
        <input value={prizeText} onChange={(e) => setPrizeText(e.target.value)} aria-invalid={prizes === null} data-testid="form-prizes" />
      </label>
      <label>
        {t('activities.admin.field.judging')}
        <select value={draft.judging} onChange={(e) => set({ judging: e.target.value as Judging })} data-testid="form-judging">
          <option value="votes">{t('activities.judging.votes')}</option>
          <option value="picks">{t('activities.judging.picks')}</option>
        </select>
      </label>
      <label>
        {t('activities.admin.field.maxEntries')}
        <input type="number" min={1} max={100} step={1} value={draft.max_entries} onChange={(e) => set({ max_entries: Math.trunc(Number(e.target.value) || 0) })} />
      </label>
      <label>
        {t('activities.admin.field.excellentCount')}
        <input type="number" min={1} max={100} step={1} value={draft.excellent_count} onChange={(e) => set({ excellent_count: Math.trunc(Number(e.target.value) || 0) })} data-testid="form-excellent-count" />
      </label>
      <label className="act-form__check">
        <input type="checkbox" checked={draft.daily} onChange={(e) => set({ daily: e.target.checked })} data-testid="form-daily" /> {t('activities.admin.field.daily')}
      </label>
      {(problems.length > 0 || prizes === null) && (
        <ul className="act-form__problems" data-testid="form-problems">
          {problems.map((p) => (
            <li key={p}>{t(`activities.admin.problem.${p}`)}</li>
          ))}
          {prizes === null && <li>{t('activities.admin.problem.prizes')}</li>}
        </ul>
      )}
      {error !== null && (
        <p role="alert" className="tavern__error" data-testid="form-error">
          {error}
        </p>
      )}
      <div>
        {editing !== null && (
          <button type="button" className="button" onClick={onCancel}>
            {t('activities.cancel')}
          </button>
        )}{' '}
        <button type="submit" className="button button--primary" disabled={busy || problems.length > 0 || prizes === null} data-testid="form-save">
          {t(editing === null ? 'activities.admin.create' : 'activities.admin.save')}
        </button>
      </div>
    </form>
  );
}

/** Each period of one activity: dates, status, entry count, Close and Judge, and its contributions. */
function PeriodsPanel({ activity, onJudged }: { activity: ActivityAdmin; onJudged: () => void }) {
  const t = useT();
  const now = useNow(5000);
  const [open, setOpen] = useState<number | null>(activity.current_period ?? activity.periods[0]?.index ?? null);
  return (
    <section className="act-periods-panel" data-testid="admin-periods" data-id={activity.id}>
      <h3>{t('activities.admin.manageTitle', { title: activity.title })}</h3>
      <ul>
        {activity.periods.map((p) => (
          <li key={p.index} data-testid="admin-period" data-period={p.index} data-status={periodStatus(p, now)}>
            <button type="button" className="button button--link" aria-expanded={open === p.index} onClick={() => setOpen(open === p.index ? null : p.index)}>
              {t('activities.period', { n: p.index + 1 })} · {toLocalInput(p.start).replace('T', ' ')} – {toLocalInput(p.end).replace('T', ' ')}
            </button>{' '}
            <StatusLabel status={periodStatus(p, now)} /> <span className="muted">{t('activities.entries', { n: activity.period_entries[p.index] ?? 0 })}</span>
            {open === p.index && <PeriodJudging key={`${activity.id}:${p.index}`} activity={activity} period={p.index} status={periodStatus(p, now)} onJudged={onJudged} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

function PeriodJudging({ activity, period, status, onJudged }: { activity: ActivityAdmin; period: number; status: string; onJudged: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const [picks, setPicks] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<ExcellentPeriod | null>(null);
  const entries = useLoaded(() => activitiesApi.posts(activity.id, period, 'top', null, 50).then((p) => p.items), [activity.id, period], null as Entry[] | null);
  const picking = activity.judging === 'picks' && status === 'closed';

  async function run(action: 'close' | 'judge') {
    setBusy(true);
    setError(null);
    try {
      const answer = action === 'close' ? await activitiesApi.close(activity.id, period) : await activitiesApi.judge(activity.id, period, activity.judging === 'picks' ? picks : null);
      setResult(answer);
      onJudged();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  function togglePick(entryId: string, on: boolean) {
    setPicks((old) => (on ? (old.includes(entryId) || old.length >= activity.excellent_count ? old : [...old, entryId]) : old.filter((x) => x !== entryId)));
  }

  return (
    <div className="act-judging" data-testid="admin-judging">
      <div className="act-judging__actions">
        {(status === 'live' || status === 'upcoming') && (
          <button type="button" className="button button--small" disabled={busy} onClick={() => void run('close')} data-testid="admin-close">
            {t('activities.admin.close')}
          </button>
        )}
        {status === 'closed' && (
          <button type="button" className="button button--small button--primary" disabled={busy || (activity.judging === 'picks' && picks.length === 0)} onClick={() => void run('judge')} data-testid="admin-judge">
            {t(activity.judging === 'picks' ? 'activities.admin.judgePicks' : 'activities.admin.judgeVotes')}
          </button>
        )}
        {picking && <span className="muted">{t('activities.admin.pickHint', { n: activity.excellent_count })}</span>}
      </div>
      {error !== null && (
        <p role="alert" className="tavern__error" data-testid="admin-judging-error">
          {error}
        </p>
      )}
      {result !== null && (
        <ol className="act-result" data-testid="admin-result" data-status={result.status}>
          {result.winners.map((w) => (
            <li key={w.entry.entry_id} data-obj={w.entry.obj_id}>
              {w.entry.title || t('square.card.untitled')} — {w.entry.author.name} — {t('activities.prize.rank', { rank: w.rank, credits: w.prize })}
            </li>
          ))}
          {result.winners.length === 0 && <li className="muted">{t(result.status === 'judged' ? 'activities.excellent.empty' : 'activities.admin.awaitPicks')}</li>}
        </ol>
      )}
      {entries.failed && (
        <p role="alert" className="tavern__error">
          {errorText(entries.error)}
        </p>
      )}
      {entries.value !== null && entries.value.length === 0 && <p className="muted">{t('activities.contributions.none')}</p>}
      <ul className="act-admin-entries">
        {(entries.value ?? []).map((e) => {
          const rank = picks.indexOf(e.entry_id) + 1;
          return (
            <li key={e.entry_id} data-testid="admin-entry" data-obj={e.obj_id}>
              {picking && (
                <input type="checkbox" checked={rank > 0} onChange={(ev) => togglePick(e.entry_id, ev.target.checked)} aria-label={t('activities.admin.pick', { title: e.title })} data-testid="admin-pick" />
              )}
              {e.cover?.url && <img src={e.cover.url} alt="" width={40} height={40} />}
              <span>{e.title || t('square.card.untitled')}</span>
              <span className="muted">
                {e.author.name} · {t(TYPE_KEYS[e.type])}
                {activity.judging === 'votes' && ` · ${t('activities.votes', { n: e.votes })}`}
              </span>
              {rank > 0 && <strong>{t('activities.rank', { rank })}</strong>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
