// The operators' Surveys tab (`/operate/surveys`): build a survey (title,
// audience, dates, questions of four kinds) or open one from the list and
// edit it (its questions keep their ids, so the answers so far still count),
// list surveys with their answer counts, close or reopen them, read results
// with bars, download the CSV.
import { useCallback, useEffect, useState } from 'react';
import { useT } from '../i18n/useT';
import type { MessageKey } from '../i18n/messages';
import { useErrorText } from '../tavern/useErrorText';
import { barPercent, draftToDef, isProblem, newQuestion, newSurvey, surveyToDraft } from './model';
import type { Audience, QuestionDraft, QuestionKind, SurveyDraft, SurveyResults, SurveyView } from './model';
import { surveysApi } from './services';
import './surveys.css';

const KINDS: QuestionKind[] = ['single', 'multiple', 'rating', 'text'];
const AUDIENCES: Audience[] = ['all', 'free', 'members'];

export function OperateSurveys() {
  const t = useT();
  const errorText = useErrorText();
  const [items, setItems] = useState<SurveyView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [results, setResults] = useState<SurveyResults | null>(null);
  const [editing, setEditing] = useState<SurveyView | null>(null);

  const load = useCallback(() => {
    surveysApi
      .list()
      .then((r) => setItems(r.items))
      .catch((e: unknown) => setError(errorText(e)));
  }, [errorText]);
  useEffect(load, [load]);

  async function act(f: () => Promise<unknown>) {
    setError(null);
    try {
      await f();
      load();
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function download(s: SurveyView) {
    setError(null);
    try {
      const blob = await surveysApi.csv(s.id);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `survey-${s.id}.csv`;
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <div className="operate-surveys" data-testid="operate-surveys">
      <SurveyBuilder
        key={editing === null ? 'new' : `${editing.id}-${editing.updated_at}`}
        editing={editing}
        onSaved={() => {
          setEditing(null);
          load();
        }}
        onCancel={() => setEditing(null)}
      />
      <section>
        <h2>{t('surveys.list.heading')}</h2>
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        {items === null && error === null && <p className="muted">…</p>}
        {items !== null && items.length === 0 && <p className="muted">{t('surveys.list.empty')}</p>}
        <ul className="survey-list">
          {items?.map((s) => (
            <li key={s.id} className="survey-list__item" data-testid="survey-row">
              <strong>{s.title}</strong>{' '}
              <span className="muted">
                · {t(`surveys.audience.${s.audience}` as MessageKey)} · {s.closed ? t('surveys.list.closed') : t('surveys.list.open')} ·{' '}
                <span data-testid="survey-responses">{t('surveys.list.responses', { n: s.responses })}</span>
              </span>
              <span className="survey-list__actions">
                <button
                  type="button"
                  className="button"
                  data-testid="survey-edit"
                  aria-pressed={editing?.id === s.id}
                  onClick={() => {
                    setEditing(s);
                    document.querySelector('[data-testid="survey-builder"]')?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
                  }}
                >
                  {t('surveys.list.edit')}
                </button>
                <button type="button" className="button" onClick={() => void act(async () => setResults(await surveysApi.results(s.id)))}>
                  {t('surveys.list.results')}
                </button>
                <button type="button" className="button" onClick={() => void download(s)}>
                  {t('surveys.list.csv')}
                </button>
                <button type="button" className="button" data-testid="survey-close" onClick={() => void act(() => surveysApi.setClosed(s.id, !s.closed))}>
                  {s.closed ? t('surveys.list.reopen') : t('surveys.list.close')}
                </button>
              </span>
            </li>
          ))}
        </ul>
      </section>
      {results !== null && <ResultsView results={results} />}
    </div>
  );
}

function ResultsView({ results }: { results: SurveyResults }) {
  const t = useT();
  return (
    <section className="survey-results" data-testid="survey-results">
      <h2>{t('surveys.results.heading', { title: results.title })}</h2>
      <p className="muted">{t('surveys.list.responses', { n: results.responses })}</p>
      {results.questions.map((q, i) => {
        const bars =
          q.kind === 'rating'
            ? q.rating_counts.map((count, j) => ({ id: String(j + 1), label: `${j + 1}`, count }))
            : q.options.map((o) => ({ id: o.id, label: o.label, count: o.count }));
        const counts = bars.map((b) => b.count);
        return (
          <div key={q.id} className="survey-results__q">
            <h3>
              {i + 1}. {q.title} <span className="muted">· {t('surveys.results.answered', { n: q.answered })}</span>
            </h3>
            {q.kind === 'rating' && q.rating_average !== null && (
              <p>{t('surveys.results.average', { avg: q.rating_average.toFixed(2) })}</p>
            )}
            {bars.length > 0 && (
              <ul className="survey-bars">
                {bars.map((b) => (
                  <li key={b.id} className="survey-bars__row">
                    <span className="survey-bars__label">{b.label}</span>
                    <span className="survey-bars__track">
                      <span className="survey-bars__bar" style={{ width: `${barPercent(b.count, counts)}%` }} />
                    </span>
                    <span className="survey-bars__count" data-testid={`bar-${q.id}-${b.id}`}>
                      {b.count}
                    </span>
                  </li>
                ))}
              </ul>
            )}
            {q.kind === 'text' &&
              (q.texts.length === 0 ? (
                <p className="muted">{t('surveys.results.noTexts')}</p>
              ) : (
                <ul className="survey-texts">
                  {q.texts.map((x, j) => (
                    <li key={j}>{x}</li>
                  ))}
                </ul>
              ))}
          </div>
        );
      })}
    </section>
  );
}

interface BuilderProps {
  /** The survey being edited (null: a new one). */
  editing: SurveyView | null;
  onSaved: () => void;
  onCancel: () => void;
}

function SurveyBuilder({ editing, onSaved, onCancel }: BuilderProps) {
  const t = useT();
  const errorText = useErrorText();
  const [draft, setDraft] = useState<SurveyDraft>(() => (editing === null ? newSurvey() : surveyToDraft(editing)));
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function setQ(i: number, patch: Partial<QuestionDraft>) {
    setDraft((d) => ({ ...d, questions: d.questions.map((q, j) => (j === i ? { ...q, ...patch } : q)) }));
  }

  async function save() {
    setNote(null);
    const def = draftToDef(draft);
    if (isProblem(def)) {
      setError(t(def.key as MessageKey, { n: def.question ?? 0 }));
      return;
    }
    setError(null);
    setBusy(true);
    try {
      if (editing === null) {
        await surveysApi.create(def);
        setDraft(newSurvey());
        setNote(t('surveys.build.created'));
      } else {
        await surveysApi.edit(editing.id, def);
      }
      onSaved();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="survey-builder" data-testid="survey-builder">
      <h2>{editing === null ? t('surveys.build.heading') : t('surveys.build.editHeading', { title: editing.title })}</h2>
      {editing !== null && editing.responses > 0 && (
        <p className="muted" data-testid="survey-edit-note">
          {t('surveys.build.editNote', { n: editing.responses })}
        </p>
      )}
      <label className="survey-field">
        {t('surveys.build.title')}
        <input value={draft.title} maxLength={120} onChange={(e) => setDraft({ ...draft, title: e.target.value })} />
      </label>
      <label className="survey-field">
        {t('surveys.build.description')}
        <textarea rows={2} value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} />
      </label>
      <div className="survey-row">
        <label className="survey-field">
          {t('surveys.build.audience')}
          <select value={draft.audience} onChange={(e) => setDraft({ ...draft, audience: e.target.value as Audience })}>
            {AUDIENCES.map((a) => (
              <option key={a} value={a}>
                {t(`surveys.audience.${a}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label className="survey-field">
          {t('surveys.build.opensAt')}
          <input type="datetime-local" value={draft.opensAt} onChange={(e) => setDraft({ ...draft, opensAt: e.target.value })} />
        </label>
        <label className="survey-field">
          {t('surveys.build.closesAt')}
          <input type="datetime-local" value={draft.closesAt} onChange={(e) => setDraft({ ...draft, closesAt: e.target.value })} />
        </label>
      </div>
      {draft.questions.map((q, i) => (
        <fieldset key={i} className="survey-builder__q" data-testid={`build-q-${i + 1}`}>
          <legend>{t('surveys.build.question', { n: i + 1 })}</legend>
          <div className="survey-row">
            <label className="survey-field survey-field--grow">
              {t('surveys.build.questionTitle')}
              <input value={q.title} onChange={(e) => setQ(i, { title: e.target.value })} />
            </label>
            <label className="survey-field">
              {t('surveys.build.kind')}
              <select value={q.kind} onChange={(e) => setQ(i, { kind: e.target.value as QuestionKind })}>
                {KINDS.map((k) => (
                  <option key={k} value={k}>
                    {t(`surveys.kind.${k}` as MessageKey)}
                  </option>
                ))}
              </select>
            </label>
            <label className="survey-check">
              <input type="checkbox" checked={q.required} onChange={(e) => setQ(i, { required: e.target.checked })} /> {t('surveys.build.requiredFlag')}
            </label>
          </div>
          {(q.kind === 'single' || q.kind === 'multiple') && (
            <label className="survey-field">
              {t('surveys.build.options')}
              <textarea rows={3} value={q.optionsText} onChange={(e) => setQ(i, { optionsText: e.target.value })} />
            </label>
          )}
          {q.kind === 'multiple' && (
            <label className="survey-field">
              {t('surveys.build.maxChoices')}
              <input type="number" min={0} max={20} value={q.maxChoices} onChange={(e) => setQ(i, { maxChoices: Number(e.target.value) })} />
            </label>
          )}
          {q.kind === 'text' && (
            <label className="survey-field">
              {t('surveys.build.maxChars')}
              <input type="number" min={0} max={2000} value={q.maxChars} onChange={(e) => setQ(i, { maxChars: Number(e.target.value) })} />
            </label>
          )}
          {draft.questions.length > 1 && (
            <button type="button" className="button button--link" onClick={() => setDraft({ ...draft, questions: draft.questions.filter((_, j) => j !== i) })}>
              {t('surveys.build.remove')}
            </button>
          )}
        </fieldset>
      ))}
      <div className="survey-row">
        <button type="button" className="button" onClick={() => setDraft({ ...draft, questions: [...draft.questions, newQuestion('single')] })}>
          {t('surveys.build.addQuestion')}
        </button>
        <button type="button" className="button button--primary" data-testid="survey-save" disabled={busy} onClick={() => void save()}>
          {editing === null ? t('surveys.build.create') : t('surveys.build.save')}
        </button>
        {editing !== null && (
          <button type="button" className="button" onClick={onCancel}>
            {t('surveys.build.cancel')}
          </button>
        )}
      </div>
      {error !== null && (
        <p className="sq-error" role="alert">
          {error}
        </p>
      )}
      {note !== null && (
        <p className="muted" role="status">
          {note}
        </p>
      )}
    </section>
  );
}
