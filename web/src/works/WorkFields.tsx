import { useId } from 'react';
import { useT } from '../i18n/useT';
import type { Visibility } from '../square/types';
import { chars, MAX_DESCRIPTION_CHARS, MAX_TAGS, MAX_TITLE_CHARS } from './publish';
import type { ProblemKey } from './publish';

export interface WorkFieldsValue {
  title: string;
  description: string;
  tags: string;
  visibility: Visibility;
  nsfw: boolean;
  hideParams: boolean;
}

/** The fields the publish and edit dialogs share, each with its limit and problem. */
export function WorkFields({
  value,
  onChange,
  problems,
  descriptionLabel,
  descriptionMax = MAX_DESCRIPTION_CHARS,
  showHideParams = true,
}: {
  value: WorkFieldsValue;
  onChange: (v: WorkFieldsValue) => void;
  problems: Partial<Record<'title' | 'description' | 'tags', ProblemKey>>;
  descriptionLabel?: string | undefined;
  descriptionMax?: number;
  showHideParams?: boolean;
}) {
  const t = useT();
  const ids = { title: useId(), description: useId(), tags: useId(), visibility: useId() };
  const set = (patch: Partial<WorkFieldsValue>) => onChange({ ...value, ...patch });
  const problem = (field: 'title' | 'description' | 'tags') => {
    const key = problems[field];
    return key ? (
      <span className="sq-error work-form__problem" role="alert">
        {t(key)}
      </span>
    ) : null;
  };
  return (
    <div className="work-form">
      <div className="field">
        <label htmlFor={ids.title}>{t('works.form.title')}</label>
        <input id={ids.title} value={value.title} onChange={(e) => set({ title: e.target.value })} aria-invalid={problems.title !== undefined} />
        <span className="muted work-form__count">
          {chars(value.title.trim())}/{MAX_TITLE_CHARS}
        </span>
        {problem('title')}
      </div>
      <div className="field">
        <label htmlFor={ids.description}>{descriptionLabel ?? t('works.form.description')}</label>
        <textarea
          id={ids.description}
          rows={descriptionMax > MAX_DESCRIPTION_CHARS ? 12 : 4}
          value={value.description}
          onChange={(e) => set({ description: e.target.value })}
          aria-invalid={problems.description !== undefined}
        />
        <span className="muted work-form__count">
          {chars(value.description.trim())}/{descriptionMax}
        </span>
        {problem('description')}
      </div>
      <div className="field">
        <label htmlFor={ids.tags}>{t('works.form.tags')}</label>
        <input
          id={ids.tags}
          value={value.tags}
          placeholder={t('works.form.tagsHint', { max: MAX_TAGS })}
          onChange={(e) => set({ tags: e.target.value })}
          aria-invalid={problems.tags !== undefined}
        />
        {problem('tags')}
      </div>
      <div className="field">
        <label htmlFor={ids.visibility}>{t('works.visibilityLabel')}</label>
        <select id={ids.visibility} value={value.visibility} onChange={(e) => set({ visibility: e.target.value as Visibility })}>
          {(['public', 'followers', 'private'] as const).map((v) => (
            <option key={v} value={v}>
              {t(`works.visibility.${v}`)}
            </option>
          ))}
        </select>
      </div>
      <label className="work-form__check">
        <input type="checkbox" checked={value.nsfw} onChange={(e) => set({ nsfw: e.target.checked })} />
        {t('works.form.nsfw')}
      </label>
      {showHideParams && (
        <label className="work-form__check">
          <input type="checkbox" checked={value.hideParams} onChange={(e) => set({ hideParams: e.target.checked })} />
          {t('works.form.hideParams')}
        </label>
      )}
    </div>
  );
}
