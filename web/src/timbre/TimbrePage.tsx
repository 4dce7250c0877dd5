// The voice (timbre) pages (spec 3 §2 ai-audio filters, §7 Timbre): the
// voice lists (all, recommended, mine) with genders, ages, languages,
// intonation and order; a voice's page with its preview, a "try it" box,
// and for its owner the edit form, training from samples (progress and
// log) and delete; and the create form.
import { useEffect, useId, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate, routeAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { ConfirmDialog } from '../tavern/ConfirmDialog';
import { WaveformPlayer } from '../audio/WaveformPlayer';
import type { EngineLabel } from '../audio/WaveformPlayer';
import { AGES, editForm, GENDERS, INTONATIONS, LANGUAGES, listTimbres, NO_FILTERS, ORDERS, speak, TIMBRE_PATHS, toggleFilter } from './api';
import type { Timbre, TimbreEdit, TimbreFeed, TimbreFilters } from './api';
import { parseTimbrePath, timbrePath } from './route';
import type { TimbreRoute } from './route';
import { TrainPanel } from './TrainPanel';
import { errorText } from './errors';
import '../audio/audio.css';

function useHref() {
  const locale = useAtomValue(localeAtom);
  return (r: TimbreRoute) => localePath(locale, timbrePath(r));
}

function Nav({ view }: { view: TimbreRoute['view'] }) {
  const t = useT();
  const href = useHref();
  const loggedIn = useAtomValue(loggedInAtom);
  const tabs: { view: 'list' | 'rec' | 'my'; key: 'timbre.feed.list' | 'timbre.feed.rec' | 'timbre.feed.my' }[] = [
    { view: 'list', key: 'timbre.feed.list' },
    { view: 'rec', key: 'timbre.feed.rec' },
    ...(loggedIn ? [{ view: 'my' as const, key: 'timbre.feed.my' as const }] : []),
  ];
  return (
    <nav className="timbre-nav" aria-label={t('timbre.title')}>
      {tabs.map((tab) => (
        <Link key={tab.view} to={href({ view: tab.view })} className={view === tab.view ? 'button button--primary' : 'button'} aria-current={view === tab.view ? 'page' : undefined}>
          {t(tab.key)}
        </Link>
      ))}
      {loggedIn && (
        <Link to={href({ view: 'new' })} className="button" data-testid="timbre-new">
          {t('timbre.create')}
        </Link>
      )}
    </nav>
  );
}

function Chips({ legend, values, chosen, label, onToggle }: { legend: string; values: readonly string[]; chosen: string[]; label: (v: string) => string; onToggle: (v: string) => void }) {
  return (
    <fieldset className="timbre-filters__group">
      <legend className="field__label">{legend}</legend>
      {values.map((v) => (
        <button key={v} type="button" className="button timbre-chip" aria-pressed={chosen.includes(v)} onClick={() => onToggle(v)} data-testid={`timbre-filter-${v}`}>
          {label(v)}
        </button>
      ))}
    </fieldset>
  );
}

function Filters({ filters, onChange }: { filters: TimbreFilters; onChange: (f: TimbreFilters) => void }) {
  const t = useT();
  const orderId = useId();
  const langId = useId();
  return (
    <section className="panel timbre-filters" aria-label={t('timbre.filters')}>
      <div className="timbre-filters__group">
        <label htmlFor={orderId} className="field__label">
          {t('timbre.order')}
        </label>
        <select id={orderId} className="tavern-input" value={filters.order_by} onChange={(e) => onChange({ ...filters, order_by: e.target.value as TimbreFilters['order_by'] })} data-testid="timbre-order">
          {ORDERS.map((o) => (
            <option key={o} value={o}>
              {t(`timbre.order.${o}`)}
            </option>
          ))}
        </select>
        <label htmlFor={langId} className="field__label">
          {t('timbre.language')}
        </label>
        <select
          id={langId}
          className="tavern-input"
          value={filters.languages[0] ?? ''}
          onChange={(e) => onChange({ ...filters, languages: e.target.value === '' ? [] : [e.target.value] })}
          data-testid="timbre-language"
        >
          <option value="">—</option>
          {LANGUAGES.map((l) => (
            <option key={l} value={l}>
              {t(`timbre.lang.${l}`)}
            </option>
          ))}
        </select>
        <button type="button" className="button" onClick={() => onChange(NO_FILTERS)}>
          {t('timbre.clear')}
        </button>
      </div>
      <Chips legend={t('timbre.gender')} values={GENDERS} chosen={filters.genders} label={(v) => t(`timbre.gender.${v as (typeof GENDERS)[number]}`)} onToggle={(v) => onChange(toggleFilter(filters, 'genders', v))} />
      <Chips legend={t('timbre.age')} values={AGES} chosen={filters.ages} label={(v) => t(`timbre.age.${v as (typeof AGES)[number]}`)} onToggle={(v) => onChange(toggleFilter(filters, 'ages', v))} />
      <Chips legend={t('timbre.intonation')} values={INTONATIONS} chosen={filters.tones} label={(v) => t(`timbre.tone.${v as (typeof INTONATIONS)[number]}`)} onToggle={(v) => onChange(toggleFilter(filters, 'tones', v))} />
    </section>
  );
}

function tagText(t: Translate, v: Timbre): string[] {
  const out: string[] = [];
  if ((GENDERS as readonly string[]).includes(v.gender)) out.push(t(`timbre.gender.${v.gender as (typeof GENDERS)[number]}`));
  if ((AGES as readonly string[]).includes(v.age)) out.push(t(`timbre.age.${v.age as (typeof AGES)[number]}`));
  if ((LANGUAGES as readonly string[]).includes(v.language)) out.push(t(`timbre.lang.${v.language as (typeof LANGUAGES)[number]}`));
  if ((INTONATIONS as readonly string[]).includes(v.intonation)) out.push(t(`timbre.tone.${v.intonation as (typeof INTONATIONS)[number]}`));
  return out;
}

function statusKey(status: string): 'timbre.status.ready' | 'timbre.status.training' | 'timbre.status.failed' {
  return status === 'training' ? 'timbre.status.training' : status === 'failed' ? 'timbre.status.failed' : 'timbre.status.ready';
}

function engineOf(v: Timbre): EngineLabel {
  return { name: v.engine, neural: v.neural, label: v.label };
}

function VoiceCard({ v }: { v: Timbre }) {
  const t = useT();
  const href = useHref();
  return (
    <li className="panel timbre-card" data-testid="timbre-card" data-id={v.id}>
      <h3>
        <Link to={href({ view: 'detail', id: v.id })}>{v.name}</Link>
      </h3>
      <div className="timbre-tags">
        {tagText(t, v).map((s) => (
          <span key={s} className="timbre-tag">
            {s}
          </span>
        ))}
        {v.status !== 'ready' && <span className="timbre-tag">{t(statusKey(v.status))}</span>}
      </div>
      <p className="muted gen-small">
        {t('timbre.by', { name: v.owner.name })} · {t('timbre.uses', { count: v.uses })}
      </p>
      {v.preview_url ? <WaveformPlayer src={v.preview_url} engine={engineOf(v)} testId="timbre-preview" /> : <p className="muted gen-small">{t('timbre.noPreview')}</p>}
    </li>
  );
}

function VoiceList({ feed }: { feed: TimbreFeed }) {
  const t = useT();
  const [filters, setFilters] = useState<TimbreFilters>(NO_FILTERS);
  const [state, setState] = useState<{ items: Timbre[]; cursor: string | null; loading: boolean; error: string | null; key: string }>({ items: [], cursor: null, loading: true, error: null, key: '' });
  const key = `${feed}:${JSON.stringify(filters)}`;

  async function load(cursor: string | null) {
    setState((s) => ({ ...s, loading: true, error: null }));
    try {
      const page = await listTimbres(api, feed, filters, cursor);
      setState((s) => ({ items: cursor && s.key === key ? [...s.items, ...page.items] : page.items, cursor: page.next_cursor, loading: false, error: null, key }));
    } catch (e) {
      setState((s) => ({ ...s, loading: false, error: errorText(t, e), key }));
    }
  }

  useEffect(() => {
    void load(null);
    // One load per feed and filter set.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return (
    <>
      {feed !== 'my' && <Filters filters={filters} onChange={setFilters} />}
      {state.error && (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      )}
      {state.items.length > 0 ? (
        <ul className="timbre-grid" aria-busy={state.loading} data-testid="timbre-list">
          {state.items.map((v) => (
            <VoiceCard key={v.id} v={v} />
          ))}
        </ul>
      ) : (
        <p className="muted">{state.loading ? t('timbre.loading') : t('timbre.empty')}</p>
      )}
      {state.cursor && (
        <button type="button" className="button" disabled={state.loading} onClick={() => void load(state.cursor)}>
          {t('timbre.more')}
        </button>
      )}
    </>
  );
}

function Select<T extends string>({ label, value, values, text, onChange }: { label: string; value: string; values: readonly T[]; text: (v: T) => string; onChange: (v: T) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <select id={id} className="tavern-input" value={value} onChange={(e) => onChange(e.target.value as T)}>
        {values.map((v) => (
          <option key={v} value={v}>
            {text(v)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Create (no id) or edit a voice. */
function EditForm({ voice, onSaved }: { voice: Timbre | null; onSaved: (v: Timbre) => void }) {
  const t = useT();
  const [form, setForm] = useState<TimbreEdit>(editForm(voice));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nameId = useId();
  const descId = useId();
  const up = (p: Partial<TimbreEdit>) => setForm((f) => ({ ...f, ...p }));
  async function save() {
    setBusy(true);
    setError(null);
    try {
      const saved = await api.post<Timbre>(TIMBRE_PATHS.edit, form);
      showToast(appStore, t('timbre.saved'));
      onSaved(saved);
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form
      className="panel gen-form"
      noValidate
      data-testid="timbre-edit"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2 className="gen-form__title">{voice ? t('timbre.edit') : t('timbre.create')}</h2>
      <div className="field">
        <label htmlFor={nameId} className="field__label">
          {t('timbre.name')}
        </label>
        <input id={nameId} className="tavern-input" value={form.name} maxLength={50} onChange={(e) => up({ name: e.target.value })} data-testid="timbre-name" />
      </div>
      <div className="field">
        <label htmlFor={descId} className="field__label">
          {t('timbre.description')}
        </label>
        <textarea id={descId} className="tavern-input" rows={2} value={form.description} onChange={(e) => up({ description: e.target.value })} />
      </div>
      <Select label={t('timbre.gender')} value={form.gender} values={GENDERS} text={(v) => t(`timbre.gender.${v}`)} onChange={(gender) => up({ gender })} />
      <Select label={t('timbre.age')} value={form.age} values={AGES} text={(v) => t(`timbre.age.${v}`)} onChange={(age) => up({ age })} />
      <Select label={t('timbre.language')} value={form.language} values={LANGUAGES} text={(v) => t(`timbre.lang.${v}`)} onChange={(language) => up({ language })} />
      <Select label={t('timbre.intonation')} value={form.intonation} values={INTONATIONS} text={(v) => t(`timbre.tone.${v}`)} onChange={(intonation) => up({ intonation })} />
      <label className="audio-choice__opt">
        <input type="checkbox" checked={form.is_public} onChange={(e) => up({ is_public: e.target.checked })} /> {t('timbre.isPublic')}
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="button button--primary" disabled={busy} data-testid="timbre-save">
        {t('timbre.save')}
      </button>
    </form>
  );
}

function TryIt({ voice }: { voice: Timbre }) {
  const t = useT();
  const id = useId();
  const [text, setText] = useState(t('timbre.trySample'));
  const [made, setMade] = useState<{ url: string; engine: EngineLabel | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run() {
    setBusy(true);
    setError(null);
    try {
      const r = await speak(api, { text, timbre_id: voice.id });
      setMade({ url: r.url, engine: r.engine ?? engineOf(voice) });
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} className="gen-form__title">
        {t('timbre.tryText')}
      </h2>
      <textarea id={id} className="tavern-input" rows={2} value={text} onChange={(e) => setText(e.target.value)} aria-labelledby={`${id}-h`} data-testid="timbre-try-text" />
      <button type="button" className="button button--primary" disabled={busy || voice.status !== 'ready'} onClick={() => void run()} data-testid="timbre-try">
        {t('timbre.try')}
      </button>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {made && <WaveformPlayer src={made.url} engine={made.engine} testId="timbre-try-player" />}
    </section>
  );
}

function Detail({ id }: { id: string }) {
  const t = useT();
  const href = useHref();
  const [voice, setVoice] = useState<Timbre | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [pending, setPending] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const [version, setVersion] = useState(0);
  const reload = () => setVersion((n) => n + 1);
  useEffect(() => {
    let live = true;
    api
      .post<Timbre>(TIMBRE_PATHS.detail, { id })
      .then((v) => live && setVoice(v))
      .catch((e: unknown) => live && setError(isApiError(e) && e.key === 'NotFound' ? t('timbre.notFound') : errorText(t, e)));
    return () => {
      live = false;
    };
  }, [id, version, t]);

  if (error) {
    return (
      <p className="form-error" role="alert">
        {error}
      </p>
    );
  }
  if (!voice) return <p className="muted">{t('timbre.loading')}</p>;
  async function remove() {
    setPending(true);
    setDeleteError(null);
    try {
      await api.post(TIMBRE_PATHS.del, { id });
      showToast(appStore, t('timbre.deleted'));
      navigate(appStore, href({ view: 'my' }));
    } catch (e) {
      setDeleteError(errorText(t, e));
    } finally {
      setPending(false);
    }
  }
  return (
    <div className="timbre" data-testid="timbre-detail" data-id={voice.id}>
      <section className="panel timbre-card">
        <h1>{voice.name}</h1>
        <div className="timbre-tags">
          {tagText(t, voice).map((s) => (
            <span key={s} className="timbre-tag">
              {s}
            </span>
          ))}
          <span className="timbre-tag" data-testid="timbre-status">
            {t(statusKey(voice.status))}
          </span>
          <span className="timbre-tag">{voice.is_public ? t('timbre.public') : t('timbre.private')}</span>
        </div>
        {voice.description && <p>{voice.description}</p>}
        <p className="muted gen-small">
          {t('timbre.by', { name: voice.owner.name })} · {t('timbre.uses', { count: voice.uses })} · {t('timbre.engineLabel', { label: voice.label })}
        </p>
        {!voice.neural && <p className="muted gen-small">{t('timbre.nonNeural')}</p>}
        <h2 className="gen-form__title">{t('timbre.preview')}</h2>
        {voice.preview_url ? <WaveformPlayer src={voice.preview_url} engine={engineOf(voice)} testId="timbre-preview" /> : <p className="muted gen-small">{t('timbre.noPreview')}</p>}
      </section>
      <TryIt voice={voice} />
      {voice.is_mine && (
        <>
          <EditForm key={`${voice.id}:${voice.create_at}`} voice={voice} onSaved={setVoice} />
          <TrainPanel voice={voice} onChanged={reload} />
          <button type="button" className="button button--danger" onClick={() => setConfirm(true)} data-testid="timbre-delete">
            {t('timbre.delete')}
          </button>
        </>
      )}
      {confirm && (
        <ConfirmDialog
          title={t('timbre.delete')}
          message={t('timbre.deleteConfirm', { name: voice.name })}
          confirmLabel={t('timbre.delete')}
          variant="danger"
          pending={pending}
          error={deleteError}
          onConfirm={() => void remove()}
          onCancel={() => setConfirm(false)}
        />
      )}
    </div>
  );
}

export function TimbrePage() {
  const t = useT();
  const href = useHref();
  const route: TimbreRoute = parseTimbrePath(useAtomValue(routeAtom).rest) ?? { view: 'list' };
  const loggedIn = useAtomValue(loggedInAtom);
  return (
    <section className="timbre" aria-label={t('timbre.title')}>
      {route.view !== 'detail' && <h1>{t('timbre.title')}</h1>}
      <Nav view={route.view} />
      {route.view === 'list' && <VoiceList key="list" feed="list" />}
      {route.view === 'rec' && <VoiceList key="rec" feed="rec" />}
      {route.view === 'my' && (loggedIn ? <VoiceList key="my" feed="my" /> : <p className="muted">{t('timbre.loginFirst')}</p>)}
      {route.view === 'new' &&
        (loggedIn ? <EditForm voice={null} onSaved={(v) => navigate(appStore, href({ view: 'detail', id: v.id }))} /> : <p className="muted">{t('timbre.loginFirst')}</p>)}
      {route.view === 'detail' && <Detail key={route.id} id={route.id} />}
    </section>
  );
}
