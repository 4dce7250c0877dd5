// The operators' text filter lists (issue 20 item 5): the effective list by
// language and action, adding, editing and removing words and patterns with
// their action and scenes (shipped entries are edited by overriding them and
// can be restored), and a "try a text" box showing what matched and the
// masked result (`tool/text/detection`).
import { useId, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { api } from '../app/services';
import type { Detection, FilterAction, FilterEntryView, FilterList, FilterKind, Scene } from './textFilterApi';
import { FILTER_ACTIONS, SCENES, TextFilterApi } from './textFilterApi';
import type { Draft, ListFilter } from './textFilterModel';
import { ALL, draftOf, draftProblem, EMPTY_DRAFT, entryOf, languages, pieces, visible } from './textFilterModel';

export const textFilterApi = new TextFilterApi(api);

const EMPTY_LIST: FilterList = { list: [], deleted_defaults: [] };

export function FilterView() {
  const t = useT();
  const errorText = useErrorText();
  const list = useLoaded(() => textFilterApi.list(), [], EMPTY_LIST);
  const [view, setView] = useState<ListFilter>(ALL);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ids = { lang: useId(), action: useId(), search: useId() };
  const shown = useMemo(() => visible(list.value.list, view), [list.value.list, view]);
  const langs = useMemo(() => languages(list.value.list), [list.value.list]);

  async function remove(e: FilterEntryView) {
    setError(null);
    try {
      await textFilterApi.remove(e.id);
      showToast(appStore, t('moderation.filter.removed', { term: e.term }));
      list.reload();
    } catch (err) {
      setError(errorText(err));
    }
  }

  async function restore(id: string) {
    setError(null);
    try {
      await textFilterApi.restore(id);
      list.reload();
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <section className="mod-filter" data-testid="mod-filter">
      <TryText />
      <h2>{t('moderation.filter.lists')}</h2>
      <div className="mod-form mod-form--inline">
        <div className="field">
          <label htmlFor={ids.lang}>{t('moderation.filter.lang')}</label>
          <select id={ids.lang} value={view.lang} onChange={(e) => setView({ ...view, lang: e.target.value })}>
            <option value="">{t('moderation.filter.all')}</option>
            {langs.map((l) => (
              <option key={l} value={l}>
                {l === '*' ? t('moderation.filter.anyLang') : l}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.action}>{t('moderation.filter.action')}</label>
          <select id={ids.action} value={view.action} onChange={(e) => setView({ ...view, action: e.target.value as FilterAction | '' })}>
            <option value="">{t('moderation.filter.all')}</option>
            {FILTER_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {t(`moderation.filter.action.${a}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.search}>{t('moderation.filter.search')}</label>
          <input id={ids.search} type="search" value={view.search} onChange={(e) => setView({ ...view, search: e.target.value })} />
        </div>
        <button type="button" className="button button--primary" onClick={() => setDraft({ ...EMPTY_DRAFT, lang: view.lang !== '' && view.lang !== '*' ? view.lang : 'en' })}>
          {t('moderation.filter.add')}
        </button>
      </div>
      {draft !== null && (
        <EntryForm
          draft={draft}
          taken={new Set(list.value.list.map((e) => e.id))}
          onCancel={() => setDraft(null)}
          onSaved={() => {
            setDraft(null);
            list.reload();
          }}
        />
      )}
      {error !== null && (
        <p className="sq-error" role="alert">
          {error}
        </p>
      )}
      {list.failed && (
        <p className="sq-error" role="alert">
          {errorText(list.error)}
        </p>
      )}
      {!list.loading && !list.failed && shown.length === 0 && <p className="sq-note">{t('moderation.filter.empty')}</p>}
      <ul className="mod-rows">
        {shown.map((e) => (
          <li key={e.id} className="mod-row" data-testid="filter-entry" data-id={e.id} data-action={e.action}>
            <div>
              <strong className="mod-filter__term">{e.term}</strong>{' '}
              <span className={`mod-filter__action mod-filter__action--${e.action}`}>{t(`moderation.filter.action.${e.action}`)}</span>
              <p className="muted">
                {[
                  e.kind === 'pattern' ? t('moderation.filter.kind.pattern') : t('moderation.filter.kind.word'),
                  e.lang === '*' ? t('moderation.filter.anyLang') : e.lang,
                  e.category,
                  e.scenes.length === 0 ? t('moderation.filter.everyScene') : e.scenes.map((s) => t(`moderation.filter.scene.${s}`)).join(', '),
                  t(`moderation.filter.source.${e.source}`),
                ].join(' · ')}
              </p>
            </div>
            <div className="mod-row__actions">
              <button type="button" className="button button--small" onClick={() => setDraft(draftOf(e))}>
                {t('moderation.filter.edit')}
              </button>
              {e.source === 'operator' && e.id.startsWith('default.') && (
                <button type="button" className="button button--small" onClick={() => void restore(e.id)}>
                  {t('moderation.filter.restore')}
                </button>
              )}
              <button type="button" className="button button--small button--danger" onClick={() => void remove(e)} aria-label={t('moderation.filter.removeTerm', { term: e.term })}>
                {t('moderation.filter.remove')}
              </button>
            </div>
          </li>
        ))}
      </ul>
      {list.value.deleted_defaults.length > 0 && (
        <>
          <h3>{t('moderation.filter.deleted')}</h3>
          <ul className="mod-rows">
            {list.value.deleted_defaults.map((id) => (
              <li key={id} className="mod-row" data-testid="filter-deleted" data-id={id}>
                <code>{id}</code>
                <button type="button" className="button button--small" onClick={() => void restore(id)}>
                  {t('moderation.filter.restore')}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function EntryForm({ draft, taken, onCancel, onSaved }: { draft: Draft; taken: ReadonlySet<string>; onCancel: () => void; onSaved: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const [d, setD] = useState<Draft>(draft);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { term: useId(), kind: useId(), lang: useId(), category: useId(), action: useId(), whole: useId(), head: useId() };

  function toggleScene(s: Scene) {
    setD({ ...d, scenes: d.scenes.includes(s) ? d.scenes.filter((x) => x !== s) : [...d.scenes, s] });
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const problem = draftProblem(d);
    if (problem !== null) {
      setError(t(problem));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const saved = await textFilterApi.upsert(entryOf(d, taken));
      showToast(appStore, t('moderation.filter.saved', { term: saved.term }));
      onSaved();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="mod-form mod-filter__form" data-testid="filter-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={ids.head}>
      <h3 id={ids.head}>{d.id === null ? t('moderation.filter.new') : t('moderation.filter.editing', { id: d.id })}</h3>
      <div className="field">
        <label htmlFor={ids.term}>{t('moderation.filter.term')}</label>
        <input id={ids.term} value={d.term} autoComplete="off" onChange={(e) => setD({ ...d, term: e.target.value })} />
      </div>
      <div className="mod-form--inline">
        <div className="field">
          <label htmlFor={ids.kind}>{t('moderation.filter.kind')}</label>
          <select id={ids.kind} value={d.kind} onChange={(e) => setD({ ...d, kind: e.target.value as FilterKind })}>
            <option value="word">{t('moderation.filter.kind.word')}</option>
            <option value="pattern">{t('moderation.filter.kind.pattern')}</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.action}>{t('moderation.filter.action')}</label>
          <select id={ids.action} value={d.action} onChange={(e) => setD({ ...d, action: e.target.value as FilterAction })}>
            {FILTER_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {t(`moderation.filter.action.${a}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.lang}>{t('moderation.filter.lang')}</label>
          <input id={ids.lang} value={d.lang} size={6} onChange={(e) => setD({ ...d, lang: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor={ids.category}>{t('moderation.filter.category')}</label>
          <input id={ids.category} value={d.category} size={12} onChange={(e) => setD({ ...d, category: e.target.value })} />
        </div>
      </div>
      <fieldset className="mod-filter__scenes">
        <legend>{t('moderation.filter.scenes')}</legend>
        <p className="muted">{t('moderation.filter.scenesHint')}</p>
        {SCENES.map((s) => (
          <label key={s} className="check">
            <input type="checkbox" checked={d.scenes.includes(s)} onChange={() => toggleScene(s)} /> {t(`moderation.filter.scene.${s}`)}
          </label>
        ))}
      </fieldset>
      {d.kind === 'word' && (
        <label className="check" htmlFor={ids.whole}>
          <input id={ids.whole} type="checkbox" checked={d.wholeWord} onChange={(e) => setD({ ...d, wholeWord: e.target.checked })} /> {t('moderation.filter.wholeWord')}
        </label>
      )}
      {error !== null && (
        <p className="sq-error" role="alert">
          {error}
        </p>
      )}
      <div className="mod-row__actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {t('moderation.filter.save')}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          {t('moderation.filter.cancel')}
        </button>
      </div>
    </form>
  );
}

function TryText() {
  const t = useT();
  const errorText = useErrorText();
  const ids = { text: useId(), scene: useId(), head: useId() };
  const [text, setText] = useState('');
  const [scene, setScene] = useState<Scene>('comment');
  const [result, setResult] = useState<{ text: string; detection: Detection } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy || text.trim() === '') return;
    setBusy(true);
    setError(null);
    try {
      setResult({ text, detection: await textFilterApi.detect(text, scene) });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const d = result?.detection;
  return (
    <form className="mod-form mod-filter__try" data-testid="filter-try" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={ids.head}>
      <h2 id={ids.head}>{t('moderation.filter.try')}</h2>
      <div className="field">
        <label htmlFor={ids.text}>{t('moderation.filter.tryText')}</label>
        <textarea id={ids.text} rows={2} value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <div className="mod-form--inline">
        <div className="field">
          <label htmlFor={ids.scene}>{t('moderation.filter.scene')}</label>
          <select id={ids.scene} value={scene} onChange={(e) => setScene(e.target.value as Scene)}>
            {SCENES.map((s) => (
              <option key={s} value={s}>
                {t(`moderation.filter.scene.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button--primary" disabled={busy}>
          {t('moderation.filter.check')}
        </button>
      </div>
      {error !== null && (
        <p className="sq-error" role="alert">
          {error}
        </p>
      )}
      {result !== null && d !== undefined && (
        <div className="mod-filter__result" data-testid="filter-result" data-refused={d.refused ? 'true' : 'false'}>
          <p>
            <strong>{t(d.refused ? 'moderation.filter.verdict.refused' : d.hit ? 'moderation.filter.verdict.masked' : 'moderation.filter.verdict.clean')}</strong>
          </p>
          <p className="mod-filter__marked">
            {pieces(result.text, d.hits).map((p, i) =>
              p.action === null ? (
                <span key={i}>{p.text}</span>
              ) : (
                <mark key={i} className={`mod-filter__hit mod-filter__hit--${p.action}`} title={p.category ?? ''}>
                  {p.text}
                </mark>
              ),
            )}
          </p>
          {d.hits.length > 0 && (
            <ul className="mod-filter__hits">
              {d.hits.map((h, i) => (
                <li key={i} data-testid="filter-hit">
                  {t('moderation.filter.hitLine', { text: h.text, category: h.category, action: t(`moderation.filter.action.${h.action}`) })}
                </li>
              ))}
            </ul>
          )}
          {!d.refused && (
            <p>
              {t('moderation.filter.maskedLabel')} <output data-testid="filter-masked">{d.masked}</output>
            </p>
          )}
        </div>
      )}
    </form>
  );
}
