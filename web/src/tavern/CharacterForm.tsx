import { useId, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import { AvatarField } from './AvatarField';
import { CharCount } from './CharCount';
import { checkDraft, draftOf, EMPTY_DRAFT, fieldsOf, LIMITS } from './form';
import type { CharacterDraft, DraftProblem } from './form';
import { GENDERS } from './model';
import { PicturePrompts } from './PicturePrompts';
import { PresetChips } from './PresetChips';
import { PreviewDialog } from './PreviewDialog';
import type { CharacterView } from './model';
import { tavernPath } from './route';
import { useCharacter } from './useCharacter';
import { useErrorText } from './useErrorText';

type TextField = 'name' | 'description' | 'persona' | 'scenario' | 'greeting' | 'example_dialogue';

const LABELS: Record<TextField, Parameters<Translate>[0]> = {
  name: 'tavern.form.name',
  description: 'tavern.form.description',
  persona: 'tavern.form.persona',
  scenario: 'tavern.form.scenario',
  greeting: 'tavern.form.greeting',
  example_dialogue: 'tavern.form.exampleDialogue',
};

function problemText(t: Translate, p: DraftProblem): string {
  if (p.kind === 'required') return t('tavern.form.required', { field: t(LABELS[p.field]) });
  if (p.kind === 'tags') return t('tavern.form.tooManyTags', { max: LIMITS.tags, len: LIMITS.tag });
  const label = p.field in LABELS ? t(LABELS[p.field as TextField]) : p.field;
  return t('tavern.form.tooLong', { field: label, max: p.max });
}

function Field(props: {
  field: TextField;
  draft: CharacterDraft;
  set: (patch: Partial<CharacterDraft>) => void;
  rows?: number;
  hint?: ReactNode;
}) {
  const t = useT();
  const id = useId();
  const hintId = useId();
  const { field, draft, set } = props;
  const max = LIMITS[field];
  const length = [...draft[field]].length;
  const common = {
    id,
    className: 'tavern-input',
    value: draft[field],
    'aria-describedby': hintId,
    'aria-invalid': length > max,
  };
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {t(LABELS[field])}
      </label>
      {props.rows === undefined ? (
        <input {...common} type="text" onChange={(e) => set({ [field]: e.target.value })} />
      ) : (
        <textarea {...common} rows={props.rows} onChange={(e) => set({ [field]: e.target.value })} />
      )}
      <span id={hintId} className="field__hint">
        {props.hint}
        <CharCount length={length} max={max} />
      </span>
    </div>
  );
}

function Choices({ draft, set }: { draft: CharacterDraft; set: (patch: Partial<CharacterDraft>) => void }) {
  const t = useT();
  const genderId = useId();
  const typeId = useId();
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor={genderId} className="field__label">
          {t('tavern.form.gender')}
        </label>
        <select id={genderId} className="tavern-input" value={draft.gender} onChange={(e) => set({ gender: GENDERS.find((g) => g === e.target.value) ?? 'other' })}>
          {GENDERS.map((g) => (
            <option key={g} value={g}>
              {t(`tavern.gender.${g}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={typeId} className="field__label">
          {t('tavern.form.type')}
        </label>
        <select id={typeId} className="tavern-input" value={draft.character_type} onChange={(e) => set({ character_type: e.target.value === '2' ? 2 : 1 })}>
          <option value={1}>{t('tavern.type.1')}</option>
          <option value={2}>{t('tavern.type.2')}</option>
        </select>
      </div>
    </div>
  );
}

function FormBody({ base }: { base: CharacterView | null }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const tagsId = useId();
  const tagsHint = useId();
  const [draft, setDraft] = useState<CharacterDraft>(base ? draftOf(base) : EMPTY_DRAFT);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const set = (patch: Partial<CharacterDraft>) => setDraft((d) => ({ ...d, ...patch }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const problem = checkDraft(draft);
    if (problem !== null) {
      setError(problemText(t, problem));
      return;
    }
    setSaving(true);
    setError(null);
    try {
      const id = await tavernApi.publish(fieldsOf(draft, base), base?.id ?? null);
      navigate(appStore, localePath(locale, tavernPath({ view: 'detail', id: id !== '' ? id : (base?.id ?? '') })), { replace: base !== null });
    } catch (err) {
      setError(errorText(err));
      setSaving(false);
    }
  }

  function openPreview() {
    if (draft.name.trim() === '') {
      setError(t('tavern.form.previewNeedsName'));
      return;
    }
    setError(null);
    setPreviewing(true);
  }

  const cancelTo = base ? tavernPath({ view: 'detail', id: base.id }) : tavernPath({ view: 'mine' });
  return (
    <form className="character-form" onSubmit={(e) => void onSubmit(e)} noValidate data-testid="character-form">
      <h2>{base ? t('tavern.form.titleEdit', { name: base.name }) : t('tavern.form.titleNew')}</h2>
      {base === null && <PresetChips draft={draft} onApply={setDraft} />}
      <AvatarField value={draft.avatar} name={draft.name} onChange={(avatar) => set({ avatar })} />
      <PicturePrompts characterId={base?.id ?? null} />
      <Field field="name" draft={draft} set={set} />
      <Field field="description" draft={draft} set={set} rows={2} hint={`${t('tavern.form.descriptionHint')} `} />
      <Choices draft={draft} set={set} />
      <Field field="persona" draft={draft} set={set} rows={6} hint={`${t('tavern.form.personaHint')} `} />
      <Field field="scenario" draft={draft} set={set} rows={3} />
      <Field field="greeting" draft={draft} set={set} rows={3} hint={`${t('tavern.form.greetingHint')} `} />
      <Field field="example_dialogue" draft={draft} set={set} rows={4} hint={`${t('tavern.form.exampleHint')} `} />
      <div className="field">
        <label htmlFor={tagsId} className="field__label">
          {t('tavern.form.tags')}
        </label>
        <input id={tagsId} className="tavern-input" value={draft.tags} aria-describedby={tagsHint} onChange={(e) => set({ tags: e.target.value })} />
        <span id={tagsHint} className="field__hint">
          {t('tavern.form.tagsHint', { max: LIMITS.tags })}
        </span>
      </div>
      <label className="field-check">
        <input type="checkbox" checked={draft.published} onChange={(e) => set({ published: e.target.checked })} />
        {t('tavern.form.published')}
      </label>
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
      <div className="character-form__bar">
        <Link to={localePath(locale, cancelTo)} className="button">
          {t('tavern.form.cancel')}
        </Link>
        <button type="button" className="button" aria-haspopup="dialog" onClick={openPreview}>
          {t('tavern.form.preview')}
        </button>
        <button type="submit" className="button button--primary" disabled={saving}>
          {saving ? t('tavern.form.saving') : t('tavern.form.save')}
        </button>
      </div>
      {previewing && <PreviewDialog draft={draft} avatar={draft.avatar} onClose={() => setPreviewing(false)} />}
    </form>
  );
}

/** Creates a character (id null) or edits one of the caller's. */
export function CharacterForm({ id }: { id: string | null }) {
  const t = useT();
  const state = useCharacter(id);
  if (state.status === 'loading') return <p className="tavern__note">{t('tavern.loading')}</p>;
  if (state.status === 'error') return <p className="tavern__error" role="alert">{state.error}</p>;
  return <FormBody base={state.value} />;
}
