// The operators' home-page composer (`/operate/home`): banners, modules and
// popups of the draft with their targeting and schedule (opened from the
// list to be edited or removed), what viewers did with each popup, the
// feature switches `app/fetch` answers, a live preview of the draft for a
// chosen audience and language, and publishing.
import { useCallback, useEffect, useState } from 'react';
import { useT } from '../i18n/useT';
import { errorText } from '../timbre/errors';
import { homeApi } from './api';
import { BannerForm, ModuleForm, PopupForm } from './ComposerForms';
import type { Save } from './ComposerForms';
import { FeaturesPanel } from './FeaturesPanel';
import { BannerCarousel, ModuleRow } from './HomeSlot';
import { PopupStatsLine } from './PopupStatsLine';
import type { Audience, DraftState, ItemKind, PopupStats, Preview } from './types';
import './home.css';

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
  const [editing, setEditing] = useState<{ kind: ItemKind; id: string } | null>(null);
  const [stats, setStats] = useState<PopupStats[]>([]);

  const reload = useCallback(() => {
    homeApi
      .draft()
      .then(setState)
      .catch((e: unknown) => setError(errorText(t, e)));
  }, [t]);
  useEffect(reload, [reload]);
  const version = state?.draft.version;
  useEffect(() => {
    if (version === undefined) return;
    let live = true;
    homeApi
      .popupStats()
      .then((r) => live && setStats(r.stats))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [version]);

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
  const items: { kind: ItemKind; id: string; label: string; enabled: boolean }[] = [
    ...draft.banners.map((b) => ({ kind: 'banner' as const, id: b.id, label: b.title || b.image, enabled: b.enabled })),
    ...draft.modules.map((m) => ({ kind: 'module' as const, id: m.id, label: m.title, enabled: m.enabled })),
    ...draft.popups.map((p) => ({ kind: 'popup' as const, id: p.id, label: p.title, enabled: p.enabled })),
  ];
  const open = (kind: ItemKind) => (editing?.kind === kind ? editing.id : null);
  const banner = draft.banners.find((b) => b.id === open('banner')) ?? null;
  const popup = draft.popups.find((p) => p.id === open('popup')) ?? null;
  const moduleItem = draft.modules.find((m) => m.id === open('module')) ?? null;
  const done = () => setEditing(null);
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
        {items.map((x) => {
          const popupStats = x.kind === 'popup' ? stats.find((s) => s.id === x.id) : undefined;
          const isOpen = editing?.kind === x.kind && editing.id === x.id;
          return (
            <li key={`${x.kind}:${x.id}`} data-testid="draft-item" data-kind={x.kind} data-id={x.id} aria-current={isOpen ? 'true' : undefined}>
              <span>
                {t(`home.item.${x.kind}`)} · {x.label}
                {!x.enabled && <small className="muted"> · {t('home.compose.off')}</small>}
                {popupStats !== undefined && <PopupStatsLine stats={popupStats} />}
              </span>
              <span>
                <button type="button" className="button button--link" data-testid="draft-item-edit" onClick={() => setEditing({ kind: x.kind, id: x.id })}>
                  {t('home.compose.edit')}
                </button>
                <button
                  type="button"
                  className="button button--link"
                  data-testid="draft-item-remove"
                  onClick={() =>
                    void save((v) => homeApi.remove(v, x.kind, x.id)).then((ok) => {
                      if (ok && isOpen) setEditing(null);
                    })
                  }
                >
                  {t('home.compose.delete')}
                </button>
              </span>
            </li>
          );
        })}
      </ul>
      <div className="home-composer__grid">
        <BannerForm key={`banner:${banner?.id ?? ''}`} save={save} item={banner} onDone={done} slots={state.slots} />
        <PopupForm key={`popup:${popup?.id ?? ''}`} save={save} item={popup} onDone={done} slots={state.slots} />
        <ModuleForm key={`module:${moduleItem?.id ?? ''}`} save={save} item={moduleItem} onDone={done} slots={state.slots} />
        <FeaturesPanel features={draft.features} live={!unpublished} save={save} />
        <PreviewPanel version={draft.version} />
      </div>
    </div>
  );
}
