// The operators' check-in and awards tab (`/operate/checkin`): the reward
// schedule by streak day and the task awards (title, credits, on or off).
import { useState } from 'react';
import type { FormEvent } from 'react';
import { api } from '../app/services';
import type { MessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { checkinApi } from './api';
import type { AwardConfig, AwardDef, AwardTrigger } from './model';
import { parseSchedule } from './model';
import './checkin.css';

function AwardRow({ trigger, daily, current, fallback, onSaved }: { trigger: AwardTrigger; daily: boolean; current: AwardDef | undefined; fallback: AwardDef; onSaved: (c: AwardConfig) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const [draft, setDraft] = useState<AwardDef>(current ?? fallback);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(call: () => Promise<AwardConfig>) {
    setBusy(true);
    setNote(null);
    try {
      onSaved(await call());
      setNote(t('operate.checkin.saved'));
    } catch (e) {
      setNote(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <tr data-testid="award-row" data-trigger={trigger}>
      <td>
        {t(`awards.trigger.${trigger}` as MessageKey)} <span className="muted">({daily ? t('operate.checkin.daily') : t('operate.checkin.once')})</span>
        {current === undefined && <div className="muted">{t('operate.checkin.missing')}</div>}
      </td>
      <td>
        <input aria-label={t('operate.checkin.awardTitle')} value={draft.title} maxLength={60} onChange={(e) => setDraft({ ...draft, title: e.target.value })} />
      </td>
      <td>
        <input aria-label={t('operate.checkin.amount')} type="number" min={1} max={100000} value={draft.amount} onChange={(e) => setDraft({ ...draft, amount: Number(e.target.value) })} />
      </td>
      <td>
        <input aria-label={t('operate.checkin.enabled')} type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })} />
      </td>
      <td>
        <button type="button" className="button button--small" disabled={busy} data-testid="award-save" onClick={() => void run(() => checkinApi(api).adminUpsert(draft))}>
          {current === undefined ? t('operate.checkin.add') : t('operate.checkin.save')}
        </button>
        {current !== undefined && (
          <button type="button" className="button button--small" disabled={busy} onClick={() => void run(() => checkinApi(api).adminDelete(trigger))}>
            {t('operate.checkin.delete')}
          </button>
        )}
        {note !== null && <span className="muted checkin-admin__note">{note}</span>}
      </td>
    </tr>
  );
}

export function CheckinAdminTab() {
  const t = useT();
  const errorText = useErrorText();
  const config = useLoaded(() => checkinApi(api).adminList(), [], null as AwardConfig | null);
  const [text, setText] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const c = config.value;
  if (c === null) return <p className="muted">{config.failed ? errorText(config.error) : '…'}</p>;
  const scheduleText = text ?? c.schedule.join(', ');

  async function saveSchedule(e: FormEvent) {
    e.preventDefault();
    const rewards = parseSchedule(scheduleText);
    if (rewards === null) {
      setNote(t('operate.checkin.scheduleBad'));
      return;
    }
    try {
      config.setValue(await checkinApi(api).adminSchedule(rewards));
      setText(null);
      setNote(t('operate.checkin.saved'));
    } catch (err) {
      setNote(errorText(err));
    }
  }

  return (
    <section className="checkin-admin" data-testid="checkin-admin">
      <form onSubmit={(e) => void saveSchedule(e)}>
        <h2>{t('operate.checkin.schedule')}</h2>
        <p className="muted">{t('operate.checkin.scheduleHelp')}</p>
        <input className="checkin-admin__schedule" data-testid="schedule-input" aria-label={t('operate.checkin.schedule')} value={scheduleText} onChange={(e) => setText(e.target.value)} />
        <button type="submit" className="button button--primary" data-testid="schedule-save">
          {t('operate.checkin.saveSchedule')}
        </button>
        {note !== null && <span className="muted checkin-admin__note">{note}</span>}
      </form>
      <h2>{t('operate.checkin.awards')}</h2>
      <table className="checkin-admin__awards">
        <thead>
          <tr>
            <th>{t('operate.checkin.trigger')}</th>
            <th>{t('operate.checkin.awardTitle')}</th>
            <th>{t('operate.checkin.amount')}</th>
            <th>{t('operate.checkin.enabled')}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {c.triggers.map((x) => (
            <AwardRow key={`${x.trigger}:${c.awards.some((a) => a.trigger === x.trigger)}`} trigger={x.trigger} daily={x.daily} current={c.awards.find((a) => a.trigger === x.trigger)} fallback={x.default} onSaved={(next) => config.setValue(next)} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
