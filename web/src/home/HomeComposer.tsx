// The operators' home-page composer (`/operate/home`): banners, modules and
// popups of the draft with their targeting and schedule, a live preview of
// the draft for a chosen audience and language, and publishing.
import { useCallback, useEffect, useId, useState } from 'react';
import { useT } from '../i18n/useT';
import { errorText } from '../timbre/errors';
import { homeApi } from './api';
import { parseElements } from './carousel';
import { ImageField, ScheduleFields, TargetingFields } from './ComposerFields';
import { BannerCarousel, ModuleRow } from './HomeSlot';
import type { Audience, Banner, Cap, Composition, DraftState, LiveQuery, Module, Popup, PopupKind, Preview, Schedule, Targeting } from './types';
import './home.css';

const NO_TARGET: Targeting = { audiences: [], languages: [] };
const ALWAYS: Schedule = { start: null, end: null };

type Save = (f: (version: number) => Promise<{ draft: Composition }>) => Promise<boolean>;

function BannerForm({ save }: { save: Save }) {
  const t = useT();
  const id = useId();
  const [b, setB] = useState({ title: '', image: '', link: '', slot: 'home-top', order: 0 });
  const [targeting, setTargeting] = useState(NO_TARGET);
  const [schedule, setSchedule] = useState(ALWAYS);
  return (
    <form
      className="form"
      data-testid="compose-banner"
      onSubmit={(e) => {
        e.preventDefault();
        void save((v) => homeApi.saveBanner(v, { ...b, enabled: true, targeting, schedule } as Partial<Banner>)).then((done) => {
          if (done) setB((x) => ({ ...x, title: '', image: '', link: '' }));
        });
      }}
    >
      <fieldset>
        <legend>{t('home.compose.banner')}</legend>
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
          <label htmlFor={`${id}-slot`}>{t('home.compose.slot')}</label>
          <input id={`${id}-slot`} value={b.slot} onChange={(e) => setB({ ...b, slot: e.target.value })} />
          <label htmlFor={`${id}-order`}>{t('home.compose.order')}</label>
          <input id={`${id}-order`} type="number" value={b.order} onChange={(e) => setB({ ...b, order: Number(e.target.value) || 0 })} />
        </div>
        <TargetingFields value={targeting} onChange={setTargeting} prefix="banner" />
        <ScheduleFields value={schedule} onChange={setSchedule} />
        <button type="submit" className="button button--primary" data-testid="banner-save">
          {t('home.compose.addBanner')}
        </button>
      </fieldset>
    </form>
  );
}

const CAPS: Cap[] = ['once', 'daily', 'weekly', 'every_visit'];
const KINDS: PopupKind[] = ['face_photo', 'notice', 'wakeup'];

function PopupForm({ save }: { save: Save }) {
  const t = useT();
  const id = useId();
  const [p, setP] = useState({
    kind: 'face_photo' as PopupKind,
    title: '',
    body: '',
    image: '',
    link: '',
    cap: 'daily' as Cap,
    allow_dont_pop: true,
    away_days: 7,
    order: 0,
  });
  const [targeting, setTargeting] = useState(NO_TARGET);
  const [schedule, setSchedule] = useState(ALWAYS);
  return (
    <form
      className="form"
      data-testid="compose-popup"
      onSubmit={(e) => {
        e.preventDefault();
        void save((v) => homeApi.savePopup(v, { ...p, enabled: true, targeting, schedule } as Partial<Popup>)).then((done) => {
          if (done) setP((x) => ({ ...x, title: '', body: '', image: '', link: '' }));
        });
      }}
    >
      <fieldset>
        <legend>{t('home.compose.popup')}</legend>
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
        </div>
        {p.kind === 'wakeup' && (
          <div className="field">
            <label htmlFor={`${id}-away`}>{t('home.compose.awayDays')}</label>
            <input id={`${id}-away`} type="number" min={1} value={p.away_days} onChange={(e) => setP({ ...p, away_days: Number(e.target.value) || 1 })} />
          </div>
        )}
        <TargetingFields value={targeting} onChange={setTargeting} prefix="popup" />
        <ScheduleFields value={schedule} onChange={setSchedule} />
        <button type="submit" className="button button--primary" data-testid="popup-save">
          {t('home.compose.addPopup')}
        </button>
      </fieldset>
    </form>
  );
}

function ModuleForm({ save }: { save: Save }) {
  const t = useT();
  const id = useId();
  const [m, setM] = useState({ title: '', slot: 'home-top', order: 0, link: '' });
  const [mode, setMode] = useState<'live' | 'ids'>('live');
  const [live, setLive] = useState<LiveQuery>({ source: 'works', order: 'hot', window: 'week', size: 8 });
  const [ids, setIds] = useState('');
  const [targeting, setTargeting] = useState(NO_TARGET);
  const [schedule, setSchedule] = useState(ALWAYS);
  return (
    <form
      className="form"
      data-testid="compose-module"
      onSubmit={(e) => {
        e.preventDefault();
        const item: Partial<Module> = {
          ...m,
          enabled: true,
          targeting,
          schedule,
          live: mode === 'live' ? live : null,
          elements: mode === 'ids' ? parseElements(ids) : [],
        };
        void save((v) => homeApi.saveModule(v, item)).then((done) => {
          if (done) setM((x) => ({ ...x, title: '' }));
        });
      }}
    >
      <fieldset>
        <legend>{t('home.compose.module')}</legend>
        <div className="field">
          <label htmlFor={`${id}-title`}>{t('home.compose.title')}</label>
          <input id={`${id}-title`} value={m.title} onChange={(e) => setM({ ...m, title: e.target.value })} />
          <label htmlFor={`${id}-slot`}>{t('home.compose.slot')}</label>
          <input id={`${id}-slot`} value={m.slot} onChange={(e) => setM({ ...m, slot: e.target.value })} />
        </div>
        <div className="field">
          <label className="inline">
            <input type="radio" checked={mode === 'live'} onChange={() => setMode('live')} />
            {t('home.compose.live')}
          </label>
          <label className="inline">
            <input type="radio" checked={mode === 'ids'} onChange={() => setMode('ids')} />
            {t('home.compose.byId')}
          </label>
        </div>
        {mode === 'live' ? (
          <div className="field">
            <select aria-label={t('home.compose.source')} value={live.source} onChange={(e) => setLive({ ...live, source: e.target.value as LiveQuery['source'] })}>
              {(['works', 'posts', 'videos', 'characters', 'models'] as const).map((s) => (
                <option key={s} value={s}>
                  {t(`home.source.${s}`)}
                </option>
              ))}
            </select>
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
          </div>
        ) : (
          <div className="field">
            <label htmlFor={`${id}-ids`}>{t('home.compose.elements')}</label>
            <input id={`${id}-ids`} value={ids} placeholder="work:ID, character:ID, model:ID" onChange={(e) => setIds(e.target.value)} />
          </div>
        )}
        <TargetingFields value={targeting} onChange={setTargeting} prefix="module" />
        <ScheduleFields value={schedule} onChange={setSchedule} />
        <button type="submit" className="button button--primary">
          {t('home.compose.addModule')}
        </button>
      </fieldset>
    </form>
  );
}

function PreviewPanel({ version }: { version: number }) {
  const t = useT();
  const [audience, setAudience] = useState<Audience>('visitor');
  const [lang, setLang] = useState('en');
  const [preview, setPreview] = useState<Preview | null>(null);
  useEffect(() => {
    let live = true;
    homeApi
      .preview(audience, lang)
      .then((p) => live && setPreview(p))
      .catch(() => live && setPreview(null));
    return () => {
      live = false;
    };
  }, [audience, lang, version]);
  return (
    <section className="home-preview" data-testid="home-preview" aria-label={t('home.preview.title')}>
      <h2>{t('home.preview.title')}</h2>
      <div className="field">
        <select aria-label={t('home.compose.audiences')} data-testid="preview-audience" value={audience} onChange={(e) => setAudience(e.target.value as Audience)}>
          {(['visitor', 'free', 'member'] as const).map((a) => (
            <option key={a} value={a}>
              {t(`home.audience.${a}`)}
            </option>
          ))}
        </select>
        <input aria-label={t('home.compose.languages')} data-testid="preview-lang" value={lang} onChange={(e) => setLang(e.target.value)} />
      </div>
      {preview !== null && (
        <>
          <BannerCarousel banners={preview.banners} />
          {preview.modules.map((m) => (
            <ModuleRow key={m.module.id} module={m.module} elements={m.elements} />
          ))}
          <h3>{t('home.preview.popups')}</h3>
          <ul data-testid="preview-popups">
            {preview.popups.map((p) => (
              <li key={p.id}>
                {p.title} · {t(`home.cap.${p.cap}`)}
              </li>
            ))}
          </ul>
          {preview.banners.length === 0 && preview.popups.length === 0 && preview.modules.length === 0 && (
            <p className="muted">{t('home.preview.empty')}</p>
          )}
        </>
      )}
    </section>
  );
}

export function HomeComposer() {
  const t = useT();
  const [state, setState] = useState<DraftState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const reload = useCallback(() => {
    homeApi
      .draft()
      .then(setState)
      .catch((e: unknown) => setError(errorText(t, e)));
  }, [t]);
  useEffect(reload, [reload]);

  const save: Save = async (f) => {
    if (state === null) return false;
    setError(null);
    setNotice(null);
    try {
      const r = await f(state.draft.version);
      setState({ ...state, draft: r.draft });
      return true;
    } catch (e) {
      setError(errorText(t, e));
      reload();
      return false;
    }
  };

  if (state === null) return <p className="muted">{error ?? t('operate.loading')}</p>;
  const { draft } = state;
  const unpublished = draft.version !== state.live_version;
  const items: { kind: 'banner' | 'module' | 'popup'; id: string; label: string }[] = [
    ...draft.banners.map((b) => ({ kind: 'banner' as const, id: b.id, label: b.title || b.image })),
    ...draft.modules.map((m) => ({ kind: 'module' as const, id: m.id, label: m.title })),
    ...draft.popups.map((p) => ({ kind: 'popup' as const, id: p.id, label: p.title })),
  ];
  return (
    <div className="home-composer" data-testid="home-composer">
      <div className="home-composer__status">
        <span data-testid="draft-status">
          {unpublished ? t('home.status.unpublished', { draft: draft.version, live: state.live_version }) : t('home.status.published', { version: draft.version })}
        </span>{' '}
        <button
          type="button"
          className="button button--primary"
          data-testid="home-publish"
          disabled={!unpublished}
          onClick={() => {
            setError(null);
            homeApi
              .publish(draft.version)
              .then((r) => {
                setState({ ...state, live_version: r.version, published_at: r.published_at });
                setNotice(t('home.status.done'));
              })
              .catch((e: unknown) => setError(errorText(t, e)));
          }}
        >
          {t('home.compose.publish')}
        </button>
        {state.link_hosts.length > 0 && <small className="muted"> {t('home.compose.hosts', { hosts: state.link_hosts.join(', ') })}</small>}
      </div>
      {error !== null && (
        <p className="error" role="alert" data-testid="home-error">
          {error}
        </p>
      )}
      {notice !== null && <p role="status">{notice}</p>}
      <ul className="home-composer__items" data-testid="draft-items">
        {items.map((x) => (
          <li key={`${x.kind}:${x.id}`}>
            <span>
              {t(`home.item.${x.kind}`)} · {x.label}
            </span>
            <button type="button" className="button button--link" onClick={() => void save((v) => homeApi.remove(v, x.kind, x.id))}>
              {t('home.compose.delete')}
            </button>
          </li>
        ))}
      </ul>
      <div className="home-composer__grid">
        <BannerForm save={save} />
        <PopupForm save={save} />
        <ModuleForm save={save} />
        <PreviewPanel version={draft.version} />
      </div>
    </div>
  );
}
