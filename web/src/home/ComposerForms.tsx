// The composer's three forms (banner, popup, module). Each makes a new item,
// or, given `item`, edits that one: the form starts from the item, saving
// sends it with its id (the server replaces it in the draft), and "cancel"
// goes back to a new item. The parent keys each form by the item it edits,
// so opening another item starts the form afresh.
import { useId, useState } from 'react';
import { useT } from '../i18n/useT';
import { homeApi } from './api';
import { formatElements, parseElements } from './carousel';
import { ImageField, ScheduleFields, TargetingFields } from './ComposerFields';
import type { Banner, Cap, Composition, LiveQuery, LiveSource, Module, Popup, PopupKind, Schedule, Targeting } from './types';

const NO_TARGET: Targeting = { audiences: [], languages: [] };
const ALWAYS: Schedule = { start: null, end: null };

export type Save = (f: (version: number) => Promise<{ draft: Composition }>) => Promise<boolean>;

interface FormProps<T> {
  save: Save;
  /** The item edited; null: a new one. */
  item: T | null;
  /** Called after a successful save or on cancel. */
  onDone: () => void;
  /** Slot names offered (any valid name may be typed). */
  slots: string[];
}

function SlotField({ value, onChange, slots, testId }: { value: string; onChange: (s: string) => void; slots: string[]; testId: string }) {
  const t = useT();
  const id = useId();
  return (
    <>
      <label htmlFor={`${id}-slot`}>{t('home.compose.slot')}</label>
      <input id={`${id}-slot`} data-testid={testId} list={`${id}-slots`} value={value} onChange={(e) => onChange(e.target.value)} />
      <datalist id={`${id}-slots`}>
        {slots.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
    </>
  );
}

function EnabledField({ value, onChange, testId }: { value: boolean; onChange: (v: boolean) => void; testId: string }) {
  const t = useT();
  return (
    <label className="inline">
      <input type="checkbox" data-testid={testId} checked={value} onChange={(e) => onChange(e.target.checked)} />
      {t('home.compose.enabled')}
    </label>
  );
}

function Buttons({ editing, addKey, testId, onCancel }: { editing: boolean; addKey: 'home.compose.addBanner' | 'home.compose.addPopup' | 'home.compose.addModule'; testId: string; onCancel: () => void }) {
  const t = useT();
  return (
    <div className="field">
      <button type="submit" className="button button--primary" data-testid={`${testId}-save`}>
        {editing ? t('home.compose.saveChanges') : t(addKey)}
      </button>
      {editing && (
        <button type="button" className="button" data-testid={`${testId}-cancel`} onClick={onCancel}>
          {t('home.compose.cancel')}
        </button>
      )}
    </div>
  );
}

export function BannerForm({ save, item, onDone, slots }: FormProps<Banner>) {
  const t = useT();
  const id = useId();
  const [b, setB] = useState({
    title: item?.title ?? '',
    image: item?.image ?? '',
    link: item?.link ?? '',
    slot: item?.slot ?? 'home-top',
    order: item?.order ?? 0,
    enabled: item?.enabled ?? true,
  });
  const [targeting, setTargeting] = useState(item?.targeting ?? NO_TARGET);
  const [schedule, setSchedule] = useState(item?.schedule ?? ALWAYS);
  return (
    <form
      className="form"
      data-testid="compose-banner"
      data-editing={item?.id ?? ''}
      onSubmit={(e) => {
        e.preventDefault();
        const body: Partial<Banner> = { ...b, id: item?.id ?? '', targeting, schedule };
        void save((v) => homeApi.saveBanner(v, body)).then((done) => {
          if (!done) return;
          if (item === null) setB((x) => ({ ...x, title: '', image: '', link: '' }));
          onDone();
        });
      }}
    >
      <fieldset>
        <legend>{item === null ? t('home.compose.banner') : t('home.compose.editBanner')}</legend>
        <div className="field">
          <label htmlFor={`${id}-title`}>{t('home.compose.title')}</label>
          <input id={`${id}-title`} data-testid="banner-title" value={b.title} onChange={(e) => setB({ ...b, title: e.target.value })} />
        </div>
        <ImageField value={b.image} onChange={(image) => setB({ ...b, image })} testId="banner-image" />
        <div className="field">
          <label htmlFor={`${id}-link`}>{t('home.compose.link')}</label>
          <input id={`${id}-link`} data-testid="banner-link" value={b.link} placeholder="/en/…" onChange={(e) => setB({ ...b, link: e.target.value })} />
        </div>
        <div className="field">
          <SlotField value={b.slot} onChange={(slot) => setB({ ...b, slot })} slots={slots} testId="banner-slot" />
          <label htmlFor={`${id}-order`}>{t('home.compose.order')}</label>
          <input id={`${id}-order`} type="number" value={b.order} onChange={(e) => setB({ ...b, order: Number(e.target.value) || 0 })} />
          <EnabledField value={b.enabled} onChange={(enabled) => setB({ ...b, enabled })} testId="banner-enabled" />
        </div>
        <TargetingFields value={targeting} onChange={setTargeting} prefix="banner" />
        <ScheduleFields value={schedule} onChange={setSchedule} />
        <Buttons editing={item !== null} addKey="home.compose.addBanner" testId="banner" onCancel={onDone} />
      </fieldset>
    </form>
  );
}

const CAPS: Cap[] = ['once', 'daily', 'weekly', 'every_visit'];
const KINDS: PopupKind[] = ['face_photo', 'notice', 'wakeup'];

export function PopupForm({ save, item, onDone }: FormProps<Popup>) {
  const t = useT();
  const id = useId();
  const [p, setP] = useState({
    kind: item?.kind ?? ('face_photo' as PopupKind),
    title: item?.title ?? '',
    body: item?.body ?? '',
    image: item?.image ?? '',
    link: item?.link ?? '',
    cap: item?.cap ?? ('daily' as Cap),
    allow_dont_pop: item?.allow_dont_pop ?? true,
    away_days: item !== null && item.away_days > 0 ? item.away_days : 7,
    order: item?.order ?? 0,
    enabled: item?.enabled ?? true,
  });
  const [targeting, setTargeting] = useState(item?.targeting ?? NO_TARGET);
  const [schedule, setSchedule] = useState(item?.schedule ?? ALWAYS);
  return (
    <form
      className="form"
      data-testid="compose-popup"
      data-editing={item?.id ?? ''}
      onSubmit={(e) => {
        e.preventDefault();
        const body: Partial<Popup> = { ...p, away_days: p.kind === 'wakeup' ? p.away_days : 0, id: item?.id ?? '', targeting, schedule };
        void save((v) => homeApi.savePopup(v, body)).then((done) => {
          if (!done) return;
          if (item === null) setP((x) => ({ ...x, title: '', body: '', image: '', link: '' }));
          onDone();
        });
      }}
    >
      <fieldset>
        <legend>{item === null ? t('home.compose.popup') : t('home.compose.editPopup')}</legend>
        <div className="field">
          <label htmlFor={`${id}-kind`}>{t('home.compose.kind')}</label>
          <select id={`${id}-kind`} value={p.kind} onChange={(e) => setP({ ...p, kind: e.target.value as PopupKind })}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`home.kind.${k}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-title`}>{t('home.compose.title')}</label>
          <input id={`${id}-title`} data-testid="popup-title" value={p.title} onChange={(e) => setP({ ...p, title: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-body`}>{t('home.compose.body')}</label>
          <textarea id={`${id}-body`} data-testid="popup-body" value={p.body} onChange={(e) => setP({ ...p, body: e.target.value })} />
        </div>
        <ImageField value={p.image} onChange={(image) => setP({ ...p, image })} testId="popup-image" />
        <div className="field">
          <label htmlFor={`${id}-link`}>{t('home.compose.link')}</label>
          <input id={`${id}-link`} data-testid="popup-link" value={p.link} onChange={(e) => setP({ ...p, link: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-cap`}>{t('home.compose.cap')}</label>
          <select id={`${id}-cap`} data-testid="popup-cap" value={p.cap} onChange={(e) => setP({ ...p, cap: e.target.value as Cap })}>
            {CAPS.map((c) => (
              <option key={c} value={c}>
                {t(`home.cap.${c}`)}
              </option>
            ))}
          </select>
          <label className="inline">
            <input type="checkbox" checked={p.allow_dont_pop} onChange={(e) => setP({ ...p, allow_dont_pop: e.target.checked })} />
            {t('home.compose.allowDontPop')}
          </label>
          <EnabledField value={p.enabled} onChange={(enabled) => setP({ ...p, enabled })} testId="popup-enabled" />
        </div>
        {p.kind === 'wakeup' && (
          <div className="field">
            <label htmlFor={`${id}-away`}>{t('home.compose.awayDays')}</label>
            <input id={`${id}-away`} type="number" min={1} value={p.away_days} onChange={(e) => setP({ ...p, away_days: Number(e.target.value) || 1 })} />
          </div>
        )}
        <TargetingFields value={targeting} onChange={setTargeting} prefix="popup" />
        <ScheduleFields value={schedule} onChange={setSchedule} />
        <Buttons editing={item !== null} addKey="home.compose.addPopup" testId="popup" onCancel={onDone} />
      </fieldset>
    </form>
  );
}

const SOURCES: LiveSource[] = ['works', 'posts', 'videos', 'characters', 'models', 'activities'];

export function ModuleForm({ save, item, onDone, slots }: FormProps<Module>) {
  const t = useT();
  const id = useId();
  const [m, setM] = useState({
    title: item?.title ?? '',
    slot: item?.slot ?? 'home-modules',
    order: item?.order ?? 0,
    link: item?.link ?? '',
    enabled: item?.enabled ?? true,
  });
  const [mode, setMode] = useState<'live' | 'ids'>(item !== null && item.live === null ? 'ids' : 'live');
  const [live, setLive] = useState<LiveQuery>(item?.live ?? { source: 'works', order: 'hot', window: 'week', size: 8 });
  const [ids, setIds] = useState(item === null ? '' : formatElements(item.elements));
  const [targeting, setTargeting] = useState(item?.targeting ?? NO_TARGET);
  const [schedule, setSchedule] = useState(item?.schedule ?? ALWAYS);
  return (
    <form
      className="form"
      data-testid="compose-module"
      data-editing={item?.id ?? ''}
      onSubmit={(e) => {
        e.preventDefault();
        const body: Partial<Module> = {
          ...m,
          id: item?.id ?? '',
          targeting,
          schedule,
          live: mode === 'live' ? live : null,
          elements: mode === 'ids' ? parseElements(ids) : [],
        };
        void save((v) => homeApi.saveModule(v, body)).then((done) => {
          if (!done) return;
          if (item === null) setM((x) => ({ ...x, title: '' }));
          onDone();
        });
      }}
    >
      <fieldset>
        <legend>{item === null ? t('home.compose.module') : t('home.compose.editModule')}</legend>
        <div className="field">
          <label htmlFor={`${id}-title`}>{t('home.compose.title')}</label>
          <input id={`${id}-title`} data-testid="module-title" value={m.title} onChange={(e) => setM({ ...m, title: e.target.value })} />
          <SlotField value={m.slot} onChange={(slot) => setM({ ...m, slot })} slots={slots} testId="module-slot" />
          <label htmlFor={`${id}-order`}>{t('home.compose.order')}</label>
          <input id={`${id}-order`} type="number" value={m.order} onChange={(e) => setM({ ...m, order: Number(e.target.value) || 0 })} />
          <EnabledField value={m.enabled} onChange={(enabled) => setM({ ...m, enabled })} testId="module-enabled" />
        </div>
        <div className="field">
          <label className="inline">
            <input type="radio" data-testid="module-mode-live" checked={mode === 'live'} onChange={() => setMode('live')} />
            {t('home.compose.live')}
          </label>
          <label className="inline">
            <input type="radio" data-testid="module-mode-ids" checked={mode === 'ids'} onChange={() => setMode('ids')} />
            {t('home.compose.byId')}
          </label>
        </div>
        {mode === 'live' ? (
          <div className="field">
            <select aria-label={t('home.compose.source')} data-testid="module-source" value={live.source} onChange={(e) => setLive({ ...live, source: e.target.value as LiveSource })}>
              {SOURCES.map((s) => (
                <option key={s} value={s}>
                  {t(`home.source.${s}`)}
                </option>
              ))}
            </select>
            {live.source !== 'activities' && (
              <>
                <select aria-label={t('home.compose.liveOrder')} value={live.order} onChange={(e) => setLive({ ...live, order: e.target.value as LiveQuery['order'] })}>
                  <option value="hot">{t('home.order.hot')}</option>
                  <option value="new">{t('home.order.new')}</option>
                </select>
                <select aria-label={t('home.compose.window')} value={live.window} onChange={(e) => setLive({ ...live, window: e.target.value as LiveQuery['window'] })}>
                  {(['day', 'week', 'month', 'all'] as const).map((w) => (
                    <option key={w} value={w}>
                      {t(`home.window.${w}`)}
                    </option>
                  ))}
                </select>
              </>
            )}
          </div>
        ) : (
          <div className="field">
            <label htmlFor={`${id}-ids`}>{t('home.compose.elements')}</label>
            <input id={`${id}-ids`} data-testid="module-ids" value={ids} placeholder="work:ID, character:ID, model:ID, activity:ID" onChange={(e) => setIds(e.target.value)} />
          </div>
        )}
        <TargetingFields value={targeting} onChange={setTargeting} prefix="module" />
        <ScheduleFields value={schedule} onChange={setSchedule} />
        <Buttons editing={item !== null} addKey="home.compose.addModule" testId="module" onCancel={onDone} />
      </fieldset>
    </form>
  );
}
